"""How many of the figures a user reads off each real fixture accelbench gets.

Each fixture under tests/fixtures/real/ is listed in ``real_figures_list.py`` with the
figures a person reads off it (its steps, losses, throughput, accuracy, durations, phases,
diagnoses, and for a failed run its status), written down from the text itself. A log is
read as ``accelbench parse`` reads it (``parse_file``: every section's events) and
``accelbench import`` (each run's status); a tool's table (``gc-info``, ``gc-monitor``,
``sntilestat``, ``neuron-ls``, ``sacct``...) by the reader accelbench uses for it in
detection, telemetry and ``top``. A figure counts when an event (or the reader's result)
holds it. Prints the tally per format and in all; ``--write docs/real-formats.md``
writes it there as well. Target (issue 13): >= 95 % of the figures, every failed run
imported as failed.

    python bench/real_figures.py [--write docs/real-formats.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "fixtures" / "real"


@dataclass(frozen=True)
class Figure:
    """One figure a user reads off a fixture: its kind, its value, and what it is of."""

    kind: str  # step total epoch loss rate acc secs value phase status exit duration diag
    #            cause no_failure util text rows, and the canonical figures of CANONICAL
    #            (tokens tflops mfu ...)
    value: Any
    key: str = ""
    printed: float | None = None  # a canonical figure's number as printed, beside ``key``

    def label(self) -> str:
        key = self.key.split("|", 1)[0]
        return f"{self.kind}{'[' + key + ']' if key else ''}={self.value}"


def step(n: int) -> Figure:
    return Figure("step", n)


def total(n: int) -> Figure:
    return Figure("total", n)


def epoch(n: float) -> Figure:
    """The epoch a log shows (its last), as Progress.epoch holds it."""
    return Figure("epoch", n)


def loss(v: float) -> Figure:
    return Figure("loss", v)


def rate(v: float) -> Figure:
    return Figure("rate", v)


def acc(v: float) -> Figure:
    return Figure("acc", v)


def secs(v: float) -> Figure:
    return Figure("secs", v)


# The canonical figures of the generic reader (/work/brief/VOCAB.md): kind -> Metric name.
CANONICAL = {"tokens": "tokens_per_s", "tflops": "tflops", "mfu": "mfu_percent",
             "step_time": "step_time_s", "memory": "memory_gib", "lr": "lr",
             "eval_loss": "eval_loss"}
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
# Memory units as training frameworks print them: PyTorch, DeepSpeed, Megatron and the
# rest divide bytes by powers of 1024 whether they write MB/GB or MiB/GiB.
_GIB = {"B": 2.0 ** -30, "KB": 2.0 ** -20, "KiB": 2.0 ** -20, "M": 2.0 ** -10,
        "MB": 2.0 ** -10, "MiB": 2.0 ** -10, "G": 1.0, "GB": 1.0, "GiB": 1.0, "TB": 1024.0,
        "TiB": 1024.0}


def tokens_per_s(v: float, key: str) -> Figure:
    """Tokens/s printed as ``v`` next to ``key``. A canonical figure (this and those below)
    counts on its canonical Metric (CANONICAL) in the canonical unit, or on a Metric named
    for the printed key holding the number as printed."""
    return Figure("tokens", v, key, v)


def tflops(v: float, key: str) -> Figure:
    return Figure("tflops", v, key, v)


def mfu(v: float, key: str = "mfu", fraction: bool = False) -> Figure:
    """MFU printed as ``v`` (a percentage, or a fraction where ``fraction``)."""
    return Figure("mfu", round(v * 100, 10) if fraction else v, key, v)


def step_time(v: float, unit: str, key: str) -> Figure:
    """The time per step printed as ``v`` ``unit`` (ms, s...): the figure in seconds."""
    return Figure("step_time", round(v * _SECONDS[unit], 12), key, v)


def memory(v: float, unit: str, key: str) -> Figure:
    """Memory printed as ``v`` ``unit`` (MB, GB, GiB...): the figure in GiB."""
    return Figure("memory", v * _GIB[unit], key, v)


def lr(v: float, key: str = "lr") -> Figure:
    return Figure("lr", v, key, v)


def eval_loss(v: float, key: str) -> Figure:
    return Figure("eval_loss", v, key, v)


def value(v: float, what: str = "", metric: str = "") -> Figure:
    """A figure ``what``; in a log, held by a metric whose name has ``metric`` in it, where
    given (for small counts, which other metrics could hold by chance)."""
    return Figure("value", v, f"{what}|{metric}" if metric else what)


def phase(name: str) -> Figure:
    return Figure("phase", name)


def status(name: str) -> Figure:
    return Figure("status", name)


def exit_code(n: int) -> Figure:
    return Figure("exit", n)


def duration(first: str, last: str) -> Figure:
    """The run's length a user reads off its first and last ``Y-M-D H:M:S`` stamps."""
    import time
    seconds = [time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S")) for stamp in (first, last)]
    return Figure("duration", seconds[1] - seconds[0])


def diag(code: str) -> Figure:
    return Figure("diag", code)


def no_failure() -> Figure:
    """That the log shows no failure (what looks like one is handled: Python goes on)."""
    return Figure("no_failure", True)


def cause(said: str) -> Figure:
    """A figure a failure names (a size, a rank, a port, a signal), as its diagnosis's
    message gives it."""
    return Figure("cause", said)


def util(engine: str, percent: float) -> Figure:
    return Figure("util", percent, engine)


def text(s: str) -> Figure:
    return Figure("text", s)


def rows(n: int) -> Figure:
    return Figure("rows", n)


@dataclass
class Fixture:
    """A real fixture, its format, the figures a user reads off it, and how it is read."""

    path: str  # system/name under tests/fixtures/real
    format: str
    figures: list[Figure]
    reader: Callable[[str], Any] | None = None  # a table's reader; None: a log
    got: list[Figure] = field(default_factory=list)
    missed: list[Figure] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)  # of each imported run
    exits: list[int | None] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)

    @property
    def failed_run(self) -> bool:
        return status("failed") in self.figures


def close(a: Any, b: Any) -> bool:
    """Equal numbers (to float rounding) or equal values."""
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) \
            or not isinstance(b, (int, float)):
        return bool(a == b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _metric(events: list, test: Callable[[str], bool], v: float) -> bool:
    return any(e.kind == "metric" and test(e.name.lower()) and close(e.value, v)
               for e in events)


def normalised(key: str) -> str:
    """A printed key as a Metric name: lower-cased, non-word runs made ``_``."""
    return re.sub(r"\W+", "_", key.lower()).strip("_")


def found_in_log(fig: Figure, events: list, fixture: Fixture) -> bool:
    """Whether ``events`` (or the runs ``fixture`` imported as) hold ``fig``."""
    kind, v = fig.kind, fig.value
    if kind in CANONICAL:  # the canonical Metric, or one named for the printed key
        return _metric(events, lambda n: n == CANONICAL[kind], v) or (bool(fig.key) and _metric(
            events, lambda n: normalised(n) == normalised(fig.key), fig.printed))
    if kind == "exit":
        return v in fixture.exits
    if kind == "duration":  # to the second the stamps give, or 1 % of a long run
        return any(abs(d - v) <= max(1.0, v / 100) for d in fixture.durations)
    if kind == "step":
        return any(e.kind == "progress" and e.step == v for e in events) or any(
            e.kind == "metric" and e.step == v for e in events)
    if kind == "total":
        return any(e.kind == "progress" and e.total == v for e in events)
    if kind == "epoch":
        return any(e.kind == "progress" and e.epoch == v for e in events)
    if kind == "loss":
        return _metric(events, lambda n: "loss" in n, v)
    if kind == "rate":
        return any(e.kind == "throughput" and close(e.samples_per_s, v) for e in events) or \
            _metric(events, lambda n: any(w in n for w in ("rate", "per_s", "ips", "put")), v)
    if kind == "acc":
        return any(_metric(events, lambda n: "acc" in n or "spearman" in n, x)
                   for x in (v, round(v * 100, 10)))
    if kind == "value" and "|" in fig.key:
        part = fig.key.split("|", 1)[1]
        return _metric(events, lambda n: part in n, v)
    if kind in ("secs", "value"):
        return _metric(events, lambda n: True, v) or any(
            e.kind == "utilization" and (close(e.percent, v) or close(e.value, v))
            for e in events)
    if kind == "phase":
        return any(e.kind == "phase" and e.name == v for e in events)
    if kind == "status":
        return v in fixture.statuses
    if kind == "diag":
        return any(e.kind == "diagnosis" and e.code == v for e in events)
    if kind == "cause":
        return any(e.kind == "diagnosis" and v in e.message for e in events)
    if kind == "no_failure":
        return not any(e.kind == "diagnosis" for e in events) and "failed" not in fixture.statuses
    if kind == "util":
        return any(e.kind == "utilization" and e.engine == fig.key and close(e.percent, v)
                   for e in events)
    raise ValueError(f"{fig.label()}: no such figure for a log")


def scalars(obj: Any) -> Iterable[Any]:
    """Every number and string in a reader's result (dataclasses, dicts, lists)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from scalars(getattr(obj, f.name))
    elif isinstance(obj, dict):
        for key, item in obj.items():
            yield key
            yield from scalars(item)
    elif isinstance(obj, (list, tuple, set)):
        for item in obj:
            yield from scalars(item)
    elif obj is not None:
        yield obj


def found_in_table(fig: Figure, result: Any) -> bool:
    if fig.kind == "rows":
        return len(result) == fig.value
    found = list(scalars(result))
    if fig.kind == "text":
        return any(isinstance(s, str) and fig.value in s for s in found)
    return any(close(s, fig.value) for s in found if isinstance(s, (int, float)))


def materialise(path: str, dest: Path) -> Path:
    """The fixture ``path`` (under tests/fixtures/real: a file, or a run directory) under
    ``dest`` as its source has it: a text file without its source line, a binary one (its
    source in ``<name>.source``) as is, the ``.source`` files left out."""
    src = REAL / path
    for file in sorted(src.rglob("*")) if src.is_dir() else [src]:
        if file.is_dir() or file.suffix == ".source":
            continue
        out = dest / src.name / file.relative_to(src) if src.is_dir() else dest / src.name
        out.parent.mkdir(parents=True, exist_ok=True)
        if file.with_name(file.name + ".source").exists():
            out.write_bytes(file.read_bytes())
        else:
            out.write_text(file.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
    return dest / src.name


def read_log(fixture: Fixture, tmp: Path) -> None:
    from accelbench.engine.core.errors import UserError
    from accelbench.engine.logs.importer import import_file
    from accelbench.engine.logs.logfile import parse_file
    from accelbench.engine.store.runs import Store

    log = materialise(fixture.path, tmp / "in")
    events = [e for section in parse_file(log) for e in section.events]
    try:
        runs = import_file(Store(tmp / "home"), log)
    except UserError:
        runs = []
    for info in runs:
        fixture.statuses.append(info.status)
        fixture.exits.append(json.loads(info.path("exit.json").read_text()).get("returncode"))
        fixture.durations.append(info.summary.duration_s or 0.0)
    for fig in fixture.figures:
        (fixture.got if found_in_log(fig, events, fixture) else fixture.missed).append(fig)


def tally(fixtures: list[Fixture]) -> None:
    for fixture in fixtures:
        if fixture.reader is None:
            with tempfile.TemporaryDirectory() as tmp:
                read_log(fixture, Path(tmp))
            continue
        result = fixture.reader((REAL / fixture.path).read_text(encoding="utf-8")
                                .split("\n", 1)[1])
        for fig in fixture.figures:
            (fixture.got if found_in_table(fig, result) else fixture.missed).append(fig)


def _sources(path: str) -> str:
    first = REAL / path
    if first.is_dir():  # a run directory: its first file's source
        first = min(p for p in first.rglob("*") if p.is_file() and p.suffix != ".source")
    sidecar = first.with_name(first.name + ".source")
    line = (sidecar if sidecar.exists() else first).read_text(encoding="utf-8").split("\n", 1)[0]
    return line.removeprefix("# source: ").split(",", 1)[0].split("@", 1)[0]


def report(fixtures: list[Fixture]) -> str:
    """The markdown tally: one row per format, one per family (fixture directory), then
    the whole, and every figure not read by name."""
    formats: dict[str, list[Fixture]] = {}
    for fixture in fixtures:
        formats.setdefault(fixture.format, []).append(fixture)
    lines = [("| format | fixtures (sources) | figures a user wants | figures read |"
              " failed runs filed as failed |"), "| --- | --- | --- | --- | --- |"]
    for name, group in formats.items():
        wanted = sum(len(f.figures) for f in group)
        got = sum(len(f.got) for f in group)
        failed = [f for f in group if f.failed_run]
        filed = ("-" if not failed else "yes" if all("failed" in f.statuses for f in failed)
                 else "no")
        listed = "<br>".join(f"`{Path(f.path).name}` ({_sources(f.path)})" for f in group)
        kinds = sorted({fig.kind for f in group for fig in f.figures})
        lines.append(f"| {name} | {listed} | {wanted} ({', '.join(kinds)}) |"
                     f" {got} ({100 * got / wanted:.0f} %) | {filed} |")
    families: dict[str, list[Fixture]] = {}
    for fixture in fixtures:
        families.setdefault(fixture.path.split("/", 1)[0], []).append(fixture)
    lines += ["", "| family (fixture directory) | fixtures | figures a user wants | figures read |",
              "| --- | --- | --- | --- |"]
    for name, group in families.items():
        wanted = sum(len(f.figures) for f in group)
        got = sum(len(f.got) for f in group)
        lines.append(f"| {name} | {len(group)} | {wanted} |"
                     f" {got} ({100 * got / max(wanted, 1):.0f} %) |")
    logs = [f for f in fixtures if f.reader is None]
    tables = [f for f in fixtures if f.reader is not None]
    lines.append("")
    for what, group in (("logs (parse/import)", logs), ("tool tables (their readers)", tables),
                        ("all", fixtures)):
        wanted = sum(len(f.figures) for f in group)
        got = sum(len(f.got) for f in group)
        lines.append(f"- {what}: {len(group)} fixtures, {got} of {wanted} figures"
                     f" ({100 * got / max(wanted, 1):.1f} %)")
    failed = [f for f in fixtures if f.failed_run]
    filed = [f for f in failed if "failed" in f.statuses]
    lines.append(f"- failed runs imported as failed: {len(filed)} of {len(failed)}")
    missed = [f"`{f.path}`: {', '.join(m.label() for m in f.missed)}"
              for f in fixtures if f.missed]
    if missed:
        lines += ["", "Figures not read:", ""] + [f"- {m}" for m in missed]
    return "\n".join(lines) + "\n"


DOC_HEAD = """# Real output of every system: the figures accelbench reads

Written by `python bench/real_figures.py --write docs/real-formats.md` (do not edit by
hand): for each real fixture under `tests/fixtures/real/` (its source on its first line,
its README beside it), the figures a user reads off it, as listed in
`bench/real_figures_list.py`, and how many of them `accelbench parse` / `import` get
(tool tables: the reader accelbench uses for them). A failed run counts as filed as failed
when `import` gives it the status `failed`. Target (issues 13 and 21): at least 95 % of
the figures, every failed run imported as failed; `tests/real/test_real_figures_tally.py` holds it.

"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", type=Path, help="also write the tally to this file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from real_figures_list import listed

    fixtures = listed()
    tally(fixtures)
    out = report(fixtures)
    print(out, end="")
    if args.write:
        args.write.write_text(DOC_HEAD + out, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
