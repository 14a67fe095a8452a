"""Every table of what the installed systems know, derived from their ``System`` objects.

The systems are the objects registered under the entry-point group
``accelbench.systems`` (accelbench's own in its ``pyproject.toml``, exactly as a
third-party package registers one). They are loaded once and checked whole: a system
with a name declared twice, a workload or metric that does not resolve, a site key of
the wrong type is left out, in one line naming it (``plugins.faults``), when accelbench
starts, never later. A system's detection runs with a time limit (``DETECT_S``), in a
thread of its own: whatever it does, it answers an ``Availability``.
"""

from __future__ import annotations

import functools
import math
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from accelbench.engine.core.errors import UserError, lookup
from accelbench.engine.core.params import Param
from accelbench.engine.core.summary import CANONICAL, GENERIC_ALIASES, Alias
from accelbench.engine.core.text import printable
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.generic import ALWAYS_DIALECTS, FILE_DIALECTS, GENERIC_DIALECTS
from accelbench.engine.plugin import entrypoints as plugins
from accelbench.engine.plugin.launcher import get_launcher, launchers
from accelbench.engine.plugin.system import BETTER, Availability, Column, System
from accelbench.engine.reading import formats as reading_formats
from accelbench.engine.reading import tools
from accelbench.engine.telemetry.node import NodeSampler
from accelbench.engine.telemetry.tool import ToolSampler
from accelbench.engine.workloads import GENERIC, Extension, Workload

GROUP = "accelbench.systems"
SITE_TYPES = (str, int, float, bool)
GENERIC_COLUMNS = (Column(r"^eval_(f1|matthews_correlation)$", "max"),)
DETECT_S = 5.0  # the longest a system's detection may take before it counts as not here


@functools.cache
def systems() -> dict[str, System]:
    """The installed systems by name, checked, in their ``order``; those whose declarations
    fail the checks left out (``plugins.faults``)."""
    loaded = plugins.load(GROUP, System)
    found = {s.name: s for s in sorted(loaded.values(), key=lambda s: (s.order, s.name))}
    for system in list(found.values()):
        try:
            _check(system, found)
        except UserError as exc:
            plugins.left_out(GROUP, exc.message)
            del found[system.name]
    return _unique(found)



def get_accelerator(name: str) -> System:
    """The system called ``name``, or a ``UserError`` listing the known ones."""
    return lookup(systems(), name, "accelerator")


def require_available(name: str) -> System:
    """The system called ``name`` if it is usable here, else a ``UserError`` saying why."""
    system = get_accelerator(name)
    found = detect(system)
    if not found.available:
        raise UserError(f"accelerator {name!r} is not available here: {found.reason}",
                        hint="run `accelbench accelerators` to see what is")
    return system


def detect(system: System, seconds: float = DETECT_S) -> Availability:
    """Whether ``system`` is here: by its own detection (given ``seconds`` at most: one that
    fails, hangs or answers something else says so), else through a launcher that reaches
    it (``Launcher.availability``: Slurm's, through the system's GRES)."""
    try:
        answer = plugins.bounded(system.detect, seconds, "detection")
    except plugins.Fault as fault:
        answer = Availability(False, reason=str(fault) if fault.timed_out
                              else f"detection failed: {fault}")
    if not isinstance(answer, Availability):  # (a plug-in's types are not enforced)
        kind = type(answer).__name__  # type: ignore[unreachable]
        answer = Availability(False, reason=f"detection answered a {kind}, not an Availability")
    found = Availability(bool(answer.available), detail=printable(str(answer.detail)),
                         reason=printable(str(answer.reason)))  # a plug-in's words: gated
    return found if found.available else _through_launchers(system, found)


def _through_launchers(system: System, here: Availability) -> Availability:
    """``system`` through the first launcher that reaches it (``Launcher.availability``),
    else unavailable: ``here``'s reason and what each launcher looked for."""
    reasons = [here.reason]
    for launcher in launchers().values():
        try:
            answer = launcher.availability(system)
        except Exception as exc:  # noqa: BLE001 - a plug-in's bug: said, never raised
            answer = Availability(False, reason=f"launcher {launcher.name!r} failed: {exc}")
        if answer is None:
            continue
        if answer.available:
            return Availability(True, detail=printable(str(answer.detail)))
        if (reason := printable(str(answer.reason))) not in reasons:
            reasons.append(reason)
    return Availability(False, reason="; ".join(reasons))


def detect_all() -> dict[str, Availability]:
    """Whether each system is here, by name: every detection at once, ``DETECT_S`` in all."""
    with ThreadPoolExecutor(max(1, len(systems()))) as pool:  # (each its own thread)
        asked = {name: pool.submit(detect, system) for name, system in systems().items()}
        return {name: future.result() for name, future in asked.items()}


@functools.cache
def formats() -> dict[str, reading_formats.Formats]:
    """What the installed packages add to the reading of every log, by name (entry-point
    group ``accelbench.formats``: Slurm's launcher package's, without loading a launcher);
    one declaring anything but named ``Dialect`` subclasses and ``ToolOutput`` objects left out
    (``plugins.faults``)."""
    loaded = plugins.load(reading_formats.GROUP, reading_formats.Formats)
    for name, declared in list(loaded.items()):  # (a plug-in's types are not enforced)
        kinds = all(isinstance(kind, tools.ToolOutput) for kind in declared.tables)
        classes = [*declared.dialects, *(kind.dialect for kind in declared.tables if kinds)]
        if not kinds or not all(isinstance(c, type) and issubclass(c, Dialect) and c.name
                                for c in classes):
            plugins.left_out(reading_formats.GROUP, f"formats {name!r}: dialects are named"
                             " Dialect subclasses, tables ToolOutput objects")
            del loaded[name]
    return loaded


def generic_dialects() -> list[type[Dialect]]:
    """The dialects read on any system's output: accelbench's generic ones, then those the
    installed packages add (``formats``)."""
    return [*GENERIC_DIALECTS, *(d for f in formats().values() for d in f.dialects)]


def tables() -> list[tools.ToolOutput]:
    """Every kind of tool output read whole, in the order a file is tried: the installed
    packages' (``formats``), then accelbench's own (``tools.KINDS``)."""
    return [*(kind for f in formats().values() for kind in f.tables), *tools.KINDS]


@functools.cache
def dialects() -> dict[str, type[Dialect]]:
    """Every log dialect by name: the generic ones (read on any system) and the tables', then
    the systems' (the launchers' are looked up by name only: :func:`get_dialect`)."""
    table = [kind.dialect for kind in tables()]
    return {**{d.name: d for d in (*generic_dialects(), *table, *FILE_DIALECTS, *ALWAYS_DIALECTS)},
            **{d.name: d for system in systems().values() for d in system.dialects}}


def launcher_dialects(name: str) -> list[str]:
    """The names of the dialects launcher ``name`` declares (``Launcher.dialects``)."""
    return [dialect.name for dialect in get_launcher(name).dialects]


def always_dialects() -> list[type[Dialect]]:
    """The dialects read on every log, whatever is detected (``Dialect.always``)."""
    return [d for d in dialects().values() if d.always]


def get_dialect(name: str) -> type[Dialect]:
    """The dialect class called ``name``, or a ``UserError`` listing the known ones: a
    launcher's (``Launcher.dialects``) too, where no other is so called (the launchers are
    loaded only then: ``accelbench parse`` loads none)."""
    known = dialects()
    if name not in known:
        known = {**{d.name: d for launcher in launchers().values() for d in launcher.dialects},
                 **known}
    return lookup(known, name, "dialect")


@functools.cache
def dialect_systems() -> dict[str, str]:
    """The system each system-specific dialect points to (an imported log's system)."""
    return {d.name: system.name for system in systems().values() for d in system.dialects}


def sampler_refs(name: str) -> list[str]:
    """What the wrapper starts the samplers of system ``name`` by (``ToolSampler.ref``)."""
    return [sampler.ref() for sampler in get_accelerator(name).samplers]


def node_samplers() -> list[tuple[str, type[NodeSampler]]]:
    """(system name, class) of every system's node samplers, in the systems' order."""
    return [(name, cls) for name, system in systems().items() for cls in system.node]


@functools.cache
def workloads() -> dict[str, Workload]:
    """Every workload by name: the generic ones as the systems extend them, then the
    systems' own."""
    generic = {w.name: w for w in GENERIC}
    for system in systems().values():
        for ext in system.extends:
            generic[ext.workload] = generic[ext.workload].extended(system.name, ext)
    return {**generic, **{w.name: w for system in systems().values() for w in system.workloads}}


def get_workload(name: str) -> Workload:
    """The workload called ``name``, or a ``UserError`` listing the known ones."""
    return lookup(workloads(), name, "workload")


@functools.cache
def site_keys() -> dict[str, dict[str, Param]]:
    """Each system's site configuration keys (``Param``) by name."""
    return {system.name: {key.name: key for key in system.site_keys}
            for system in systems().values()}


@functools.cache
def metric_aliases() -> dict[str, str | Alias]:
    """Raw metric name → the summary field it gives (``summary.CANONICAL``; an ``Alias``
    where it scales), generic names first: a field takes the first of its names that a run
    reported."""
    return {**GENERIC_ALIASES,
            **{raw: field for system in systems().values()
               for raw, field in system.metric_aliases.items()}}


@functools.cache
def columns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern, better) of the metrics a comparison shows as columns."""
    declared = (*GENERIC_COLUMNS, *(c for s in systems().values() for c in s.columns))
    return tuple((re.compile(c.pattern), c.better) for c in declared)


def node_titles() -> str:
    """The systems whose devices ``accelbench top`` reads (those with node samplers), by
    title: what help texts list."""
    return ", ".join(system.title for system in systems().values() if system.node)


def preset_dirs() -> list[tuple[str, Path]]:
    """(system name, folder) of the presets each system's package ships (``System.presets``)."""
    return [(name, Path(system.presets)) for name, system in systems().items() if system.presets]


def dialect_help() -> str:
    """The ``--dialect`` values, for a command's help."""
    return ", ".join(["auto", *dialects()])


def _check(system: System, found: dict[str, System]) -> None:
    """A ``UserError`` naming ``system`` and its first bad declaration, if any."""
    def fail(what: str) -> None:
        raise UserError(f"system {system.name!r}: {what}",
                        hint="fix or uninstall the package that registers it")

    if not re.fullmatch(r"[a-z][a-z0-9_]*", system.name):
        fail("a name is lowercase letters, digits and _, starting with a letter")
    # A plug-in's declarations are checked as found: its types are not enforced at run time.
    if not callable(system.detect):
        fail("detect is not callable")  # type: ignore[unreachable]
    for key in system.site_keys:
        if not isinstance(key, Param):
            fail(f"site key {key!r} is not a Param")  # type: ignore[unreachable]
        if key.type not in SITE_TYPES:
            fail(f"site key {key.name!r}: type {key.type!r} is not one of str, int, float, bool")
        try:
            key.check(key.default)
        except UserError as exc:
            fail(f"site key {key.name!r}: default: {exc.message}")
    for kind, items, base in (("sampler", system.samplers, ToolSampler),
                              ("node sampler", system.node, NodeSampler),
                              ("dialect", system.dialects, Dialect)):
        for item in items:
            if not (isinstance(item, type) and issubclass(item, base) and item.name):
                fail(f"{kind} {item!r} is not a named {base.__name__} subclass")
    for workload in system.workloads:
        if not isinstance(workload, Workload):
            fail(f"workload {workload!r} is not a Workload")  # type: ignore[unreachable]
        for name in workload.accelerators:
            if name != "*" and name not in found:
                fail(f"workload {workload.name!r} runs on unknown accelerator {name!r}")
    generic = {w.name for w in GENERIC}
    for ext in system.extends:
        if not isinstance(ext, Extension) or ext.workload not in generic:
            fail(f"extends {getattr(ext, 'workload', ext)!r}, not a generic workload"
                 f" ({', '.join(sorted(generic))})")
    for raw, alias in system.metric_aliases.items():
        field, scale = (alias, 1.0) if isinstance(alias, str) else (
            getattr(alias, "field", alias), getattr(alias, "scale", None))
        if field not in CANONICAL:
            fail(f"metric alias {raw!r} → {field!r}: not one of {', '.join(CANONICAL)}")
        if not (isinstance(scale, int | float) and not isinstance(scale, bool)
                and 0 < scale < math.inf):
            fail(f"metric alias {raw!r}: scale {scale!r} is not a positive number")
    for column in system.columns:
        if column.better not in BETTER:
            fail(f"column {column.pattern!r}: better is {column.better!r}, not max or min")
        try:
            re.compile(column.pattern)
        except re.error as exc:
            fail(f"column {column.pattern!r}: {exc}")
    for check in system.doctor:
        if not callable(check):
            fail(f"doctor check {check!r} is not callable")  # type: ignore[unreachable]
    if not isinstance(system.presets, str):
        fail(f"presets {system.presets!r} is not a folder's path (str)")  # type: ignore[unreachable]
    keys = [key.name for key in system.site_keys]
    if len(set(keys)) != len(keys):
        fail("a site key is declared twice")


def _unique(found: dict[str, System]) -> dict[str, System]:
    """``found`` less each system that declares a name twice, or one an earlier system (or
    accelbench) declares (left out, saying which)."""
    owners: dict[tuple[str, str], str] = {
        **{("dialect", d.name): "accelbench" for d in (*generic_dialects(), *ALWAYS_DIALECTS)},
        **{("workload", w.name): "accelbench" for w in GENERIC},
        **{("knob", f"{w.name}.{p.name}"): "accelbench" for w in GENERIC for p in w.params},
        **{("metric alias", raw): "accelbench" for raw in GENERIC_ALIASES}}
    kept: dict[str, System] = {}
    for system in found.values():
        names = [*(("sampler", s.name) for s in system.samplers),
                 *(("dialect", d.name) for d in system.dialects),
                 *(("workload", w.name) for w in system.workloads),
                 *(("knob", f"{e.workload}.{p.name}") for e in system.extends for p in e.params),
                 *(("metric alias", raw) for raw in system.metric_aliases)]
        clash = next(((kind, name) for kind, name in names
                      if owners.get((kind, name), system.name) != system.name
                      or names.count((kind, name)) > 1), None)
        if clash is not None:
            owner = owners.get(clash, system.name)
            also = f" (also by {owner})" if owner != system.name else ""
            plugins.left_out(GROUP, f"system {system.name!r}: {clash[0]} {clash[1]!r} is"
                                    f" declared twice{also}")
            continue
        owners.update(dict.fromkeys(names, system.name))
        kept[system.name] = system
    return kept
