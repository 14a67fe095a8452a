"""Job specs and TOML presets: loading, validation, ``--set`` overrides, saving.

Every error is a ``UserError`` naming the file, the line where one can be found,
the key and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from accelbench.engine.config import sweep as sweeps
from accelbench.engine.config import tomlfile
from accelbench.engine.core.errors import UserError, close_to, lookup, shown, shown_key
from accelbench.engine.core.job import JobSpec
from accelbench.engine.core.params import Param, check_text
from accelbench.engine.plugin.launcher import Launcher, launchers, option_tables
from accelbench.engine.plugin.registry import get_accelerator, get_workload
from accelbench.engine.workloads import Workload

_TOP_LEVEL: dict[str, Param] = {p.name: p for p in (
    Param("name", str, "run", "a short name for runs of this spec", line=True),
    Param("description", str, "", "one line shown in preset lists", line=True),
    Param("accelerator", str, "cpu", "the system to run on"),
    Param("workload", str, "", "what to run"),
    Param("launcher", str, "local", "how to start it"),  # one of the launchers: _fields()
    Param("python", str, "", "the job's Python interpreter (empty: accelbench's own)"),
    Param("telemetry_interval", float, 1.0, "seconds between telemetry samples (0: off)",
          min=0, max=3600),
)}
_OWN_TABLES = ("params", "env")  # then the launchers' option tables, then "sweep"


def variants(job: JobSpec) -> list[tuple[dict[str, Any], JobSpec]]:
    """The variants of ``job``'s sweep, each with its own spec (none: just ``job``)."""
    if not job.sweep:
        return [({}, job)]
    base = {k: v for k, v in job.to_dict().items() if k != "sweep"}
    out = []
    for variant in sweeps.variants(job.sweep):
        spec = spec_from_dict(sweeps.apply(base, variant, set(_TOP_LEVEL)))
        spec.name = f"{job.name} {sweeps.label(variant)}"
        out.append((variant, spec))
    return out



def load_preset(path: str | Path, overrides: Sequence[str] = ()) -> JobSpec:
    """Read a preset file and apply ``key=value`` overrides to it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{shown_key(path)}: no such preset file",
                        hint="run `accelbench presets` to list the presets") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{shown_key(path)}: cannot read preset: {exc}") from None
    return spec_from_dict(tomlfile.parse(text, path), overrides, source=shown_key(path),
                          text=text)


def spec_from_dict(data: dict[str, Any], overrides: Sequence[str] = (), source: str = "spec",
                   text: str = "") -> JobSpec:
    """Validate raw preset data plus ``key=value`` overrides into a ``JobSpec``."""
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    tables = _tables()
    parsed = _split_overrides(overrides, tables)

    def where(table: str, key: str) -> str:
        line = _line_of(text, table, key) if text else None
        dotted = f"{table}.{shown_key(key)}" if table else shown_key(key)
        return f"{source}:{line}: {dotted}" if line else f"{source}: {dotted}"

    for key in data:
        if key not in _TOP_LEVEL and key not in tables:
            raise UserError(f"{where('', key)}: unknown key"
                            + _suggest(key, [*_TOP_LEVEL, *tables]))
    for table in tables:
        if not isinstance(data.get(table, {}), dict):
            raise UserError(f"{where('', table)}: expected a table ([{table}]),"
                            f" got {shown(data[table])}")

    top = _top(data, parsed[""], where, source)
    workload = get_workload(top["workload"])
    params = _params(workload, data, parsed, where)
    env = _env({**data.get("env", {}), **parsed["env"]}, where)
    # every launcher's table is checked, whatever the launcher: a preset switched later
    # to the launcher that reads it must not fail then
    options = {table: _options(launcher, data.get(table, {}), parsed[table], where, source)
               for table, launcher in option_tables().items() if table in data or parsed[table]}
    spec = JobSpec(params=params, env=env, options=options, **top)
    if "sweep" in data or parsed["sweep"]:
        spec.sweep = _sweep(data, parsed, overrides, where, source)
    return spec


def _top(data: dict[str, Any], given: dict[str, str], where: Callable[[str, str], str],
         source: str) -> dict[str, Any]:
    """The top-level fields checked (with their ``--set`` values), the workload and the
    accelerator known, and the one running on the other."""
    top: dict[str, Any] = {}
    for name, param in _fields().items():
        try:
            if name in given:
                top[name] = param.parse(given[name])
            elif name in data:
                top[name] = param.check(data[name])
            else:
                top[name] = param.default
        except UserError as exc:
            raise exc.prefixed(f"--set {name}" if name in given else where("", name)) from None
    if not top["workload"]:
        raise UserError(f"{source}: workload: missing",
                        hint="add e.g. workload = \"mnist_cnn\" (see `accelbench presets`)")
    for name in ("workload", "accelerator"):
        try:
            {"workload": get_workload, "accelerator": get_accelerator}[name](top[name])
        except UserError as exc:
            raise exc.prefixed(where("", name)) from None
    workload = get_workload(top["workload"])
    if not workload.runs_on(top["accelerator"]):
        raise UserError(f"{where('', 'accelerator')}: workload {workload.name!r} does not run on "
                        f"{top['accelerator']!r}",
                        hint="it runs on: " + ", ".join(workload.accelerators))
    return top


def _params(workload: Workload, data: dict[str, Any], parsed: dict[str, dict[str, str]],
            where: Callable[[str, str], str]) -> dict[str, Any]:
    """The workload's knobs: its defaults, the preset's ``[params]``, then ``--set``."""
    params = workload.defaults()
    # the preset's knobs belong to its own workload: --set workload=... starts afresh
    switched = "workload" in parsed[""] and data.get("workload") not in (None, workload.name)
    for key, value in ({} if switched else data.get("params", {})).items():
        try:
            params[key] = workload.param(key).check(value)
        except UserError as exc:
            raise exc.prefixed(where("params", key)) from None
    for key, value in parsed["params"].items():
        try:
            params[key] = workload.param(key).parse(value)
        except UserError as exc:
            raise exc.prefixed(f"--set params.{shown_key(key)}") from None
    return params


def _tables() -> tuple[str, ...]:
    """The tables a preset may hold: its own, the launchers' option tables, ``sweep``."""
    tables = tuple(option_tables())
    for table in tables:
        if table in (*_OWN_TABLES, "sweep", *_TOP_LEVEL):
            raise UserError(f"launcher {option_tables()[table].name!r}: its option table"
                            f" [{table}] takes the name of a preset's own key",
                            hint="fix or uninstall the package that registers it")
    return (*_OWN_TABLES, *tables, "sweep")


def _fields() -> dict[str, Param]:
    """The top-level fields, ``launcher`` being one of the installed launchers."""
    param = _TOP_LEVEL["launcher"]
    names = sorted(launchers(), key=lambda name: (name != param.default, name))
    return {**_TOP_LEVEL, "launcher": replace(param, choices=tuple(names))}


def _options(launcher: Launcher, given: dict[str, Any], overrides: dict[str, str],
             where: Callable[[str, str], str], source: str) -> dict[str, Any]:
    """``launcher``'s option table checked, with its ``--set table.key`` values."""
    table, values = launcher.table, {}
    items = [(key, value, False) for key, value in given.items()]
    items += [(key, value, True) for key, value in overrides.items()]
    for key, value, from_set in items:
        try:
            param = lookup(launcher.options, key, f"{table} setting")
            values[key] = param.parse(value) if from_set else param.check(value)
        except UserError as exc:
            raise exc.prefixed(f"--set {table}.{shown_key(key)}" if from_set
                               else where(table, key)) from None
    try:
        launcher.check(values)
    except UserError as exc:
        raise exc.prefixed(source) from None
    return values


def _env(given: dict[str, Any], where: Callable[[str, str], str]) -> dict[str, str]:
    """The ``[env]`` table checked: variable names, and values that an environment can hold."""
    env = {}
    for key, value in given.items():
        try:
            check_text(key)
        except UserError as exc:
            raise exc.prefixed(f"{where('env', key)}: not a variable name") from None
        if not key or "=" in key:
            raise UserError(f"{where('env', key)}: not a variable name (empty, or holds '=')",
                            hint="e.g. env.OMP_NUM_THREADS=4")
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise UserError(f"{where('env', key)}: expected a string, got {shown(value)}")
        try:
            check_text(str(value))
        except UserError as exc:
            raise exc.prefixed(where("env", key)) from None
        env[key] = str(value)
    return env


def _sweep(data: dict[str, Any], parsed: dict[str, dict[str, str]], overrides: Sequence[str],
           where: Callable[[str, str], str], source: str) -> dict[str, Any]:
    """The checked ``[sweep]`` (with ``--set sweep.x`` options); every variant is checked."""
    def at(key: str) -> str:
        return where("sweep", key) if key else where("", "sweep")

    reach = (*_OWN_TABLES, *option_tables())  # the tables a dotted key may reach
    sweep = sweeps.check(data.get("sweep", {}) if "sweep" in data else {"variants": []}, at,
                         reach)
    for key, value in parsed["sweep"].items():
        try:
            sweep[key] = lookup(sweeps.OPTIONS, key, "sweep option").parse(value)
        except UserError as exc:
            raise exc.prefixed(f"--set sweep.{shown_key(key)}") from None
    sweeps.check_count(sweep, at)
    given = {*parsed[""], *parsed["params"], *(f"{t}.{k}" for t in reach[1:] for k in parsed[t])}
    for key in sorted(sweeps.keys(sweep)):
        if key.removeprefix("params.") in given:
            raise UserError(f"--set {shown_key(key.removeprefix('params.'))}: the preset sweeps"
                            " this key",
                            hint="drop it from --set, or from the preset's [sweep]")
    base = {k: v for k, v in data.items() if k != "sweep"}
    plain = [o for o in overrides if not o.startswith("sweep.")]
    for variant in sweeps.variants(sweep):
        try:
            spec_from_dict(sweeps.apply(base, variant, set(_TOP_LEVEL)), plain,
                           source=f"{source} [sweep {sweeps.label(variant)}]")
        except UserError as exc:
            raise UserError(exc.message, hint=exc.hint or "check the values in [sweep]") from None
    return sweep


def save_preset(spec: JobSpec, path: str | Path) -> Path:
    """Write ``spec`` as a preset file (creating its directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec.to_toml(), encoding="utf-8")
    return path


def _split_overrides(overrides: Sequence[str],
                     tables: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """``["epochs=3", "env.X=1"]`` → ``{"": {}, "params": {"epochs": "3"}, "env": {"X": "1"}}``.

    A bare key names a top-level field if there is one, else a workload parameter.
    """
    out: dict[str, dict[str, str]] = {table: {} for table in ("", *tables)}
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UserError(f"--set {shown_key(item)}: expected key=value",
                            hint="e.g. --set epochs=2")
        table, dot, rest = key.partition(".")
        if dot and table in tables:
            out[table][rest] = value
        elif dot:
            raise UserError(f"--set {shown_key(key)}: unknown table {shown(table)}",
                            hint="dotted keys start with: " + ", ".join(tables))
        elif key in _TOP_LEVEL:
            out[""][key] = value
        else:
            out["params"][key] = value
    return out


def _line_of(text: str, table: str, key: str) -> int | None:
    """The 1-based line where ``key`` is set inside ``[table]`` ("" for the top), if found."""
    current = ""
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1)
            if table == "" and current == key:
                return number
        elif current == table and pattern.match(line):
            return number
    return None


def _suggest(key: str, known: list[str]) -> str:
    close = close_to(key, known)
    return f" (did you mean {close!r}?)" if close else f" (known keys: {', '.join(known)})"
