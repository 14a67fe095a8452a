"""Comparing runs the way the seed notes do: the knobs that differ, then the figures.

A ``Comparison`` holds one row per run: the parameters whose values differ
between the runs (from each run's spec: workload knobs, ``env.*``, ``slurm.*``,
the accelerator and launcher), then samples/s, train time, final loss,
accuracy, evaluation figures, the metrics the systems declare as columns
(``System.columns``: inferences/s, latency, ...) and the mean utilization of each
engine. The best value of a ranked column is marked (utilization is shown, not
ranked: a busier engine is not better by itself); exports
(CSV, Markdown, JSON) hold the same numbers. What the runs hold (names, knob values,
imported section titles, metric names) passes the output gate (``engine.core.text``) into them:
a CSV cell that a spreadsheet would take for a formula is kept text (:func:`csv_cell`), a
Markdown cell holds no ``|`` or line break that would end it (:func:`markdown_cell`).
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accelbench.engine.core import safefile
from accelbench.engine.core.job import RunInfo
from accelbench.engine.core.summary import FIGURES, RunSummary
from accelbench.engine.core.text import printable, printable_lines
from accelbench.engine.plugin import registry
from accelbench.engine.rundir.files import SPEC_FILE


@dataclass(frozen=True)
class Column:
    """A figure column: where its value comes from, and which way is better."""

    key: str
    title: str
    better: str | None = None  # "max", "min", or None (not ranked)


_FIXED = tuple(Column(f.key, f.label, f.better) for f in FIGURES.values())
_CORES = re.compile(r"^([a-z]+)(\d+)$")  # host cores cpu0..cpuN: shown as one mean
_SPEC_NOISE = {"name", "description", "telemetry_interval", "python"}


def spec_values(info: RunInfo) -> dict[str, Any]:
    """A run's settings as flat keys: workload knobs bare, then ``env.X``, ``slurm.x``, ..."""
    try:
        data = tomllib.loads(safefile.read_text(info.path(SPEC_FILE)))
    except (OSError, ValueError, RecursionError):  # damaged: the index's copy of the knobs
        data = {"params": info.params}
    out: dict[str, Any] = dict(data.get("params", {}))
    for key, value in data.items():
        if isinstance(value, dict) and key != "params":
            out.update({f"{key}.{k}": v for k, v in value.items()})
        elif not isinstance(value, dict) and key not in _SPEC_NOISE:
            out[key] = value
    return out


def _utilization(summary: RunSummary) -> dict[str, float]:
    """Mean utilization per engine; numbered cores (cpu0, cpu1, ...) folded into one mean."""
    util = summary.utilization or {}
    groups: dict[str, list[float]] = {}
    for engine, value in util.items():
        m = _CORES.match(engine)
        if m and sum(1 for e in util if (c := _CORES.match(e)) and c[1] == m[1]) > 4:
            groups.setdefault(f"{m[1]} (all)", []).append(value)
        else:
            groups[engine] = [value]
    return {engine: round(sum(v) / len(v), 2) for engine, v in groups.items()}


@dataclass
class Comparison:
    """Runs side by side: ``params`` that differ, ``columns`` of figures, the best marked."""

    runs: list[RunInfo]
    params: list[str]
    columns: list[Column]
    values: list[dict[str, Any]]  # per run: param and column keys → value
    best: dict[str, set[int]]  # column key → indexes of the runs holding the best value

    def is_best(self, row: int, key: str) -> bool:
        """True if run ``row`` holds the best value of column ``key``."""
        return row in self.best.get(key, ())

    def records(self) -> list[dict[str, Any]]:
        """One plain record per run (the JSON export)."""
        return [{"id": run.id, "name": run.name, "status": run.status,
                 "params": {p: values.get(p) for p in self.params},
                 "figures": {c.key: values.get(c.key) for c in self.columns},
                 "best": [c.key for c in self.columns if self.is_best(i, c.key)]}
                for i, (run, values) in enumerate(zip(self.runs, self.values, strict=True))]

    def to_json(self) -> str:
        """The comparison as JSON: the columns, then one record per run."""
        return json.dumps({"params": self.params,
                           "columns": [{"key": c.key, "title": c.title, "better": c.better}
                                       for c in self.columns],
                           "runs": self.records()}, indent=1)

    def to_csv(self) -> str:
        """CSV: id, name, status, the parameters, the figures, then the columns it is best in."""
        out = io.StringIO()
        writer = csv.writer(out)
        rows = [["id", "name", "status", *self.params, *(c.key for c in self.columns), "best"]]
        for record in self.records():
            rows.append([record["id"], record["name"], record["status"],
                         *(knob(v) for v in record["params"].values()),
                         *(plain(v) for v in record["figures"].values()),
                         ";".join(record["best"])])
        writer.writerows([csv_cell(cell) for cell in row] for row in rows)
        return out.getvalue()

    def to_markdown(self) -> str:
        """A Markdown table as the seed notes have them; the best values in bold."""
        head = ["run", *self.params, *(c.title for c in self.columns)]
        lines = ["| " + " | ".join(map(markdown_cell, head)) + " |", "|" + "---|" * len(head)]
        for i, (run, values) in enumerate(zip(self.runs, self.values, strict=True)):
            cells = [markdown_cell(text) for text in
                     (run.id, *(knob(values.get(p)) for p in self.params))]
            for c in self.columns:
                text = plain(values.get(c.key))
                cells.append(f"**{text}**" if self.is_best(i, c.key) else text)
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


_FORMULA_FIRST = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads a formula from
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def csv_cell(text: str) -> str:
    """A CSV cell as a spreadsheet must show it: through the output gate, and one that
    would start a formula (``=``, ``+``, ``-``, ``@``, tab, CR first: OWASP's list) kept text
    by a ``'`` in front; a number (``-0.5``) stays a number, ``-`` (no value) stays."""
    if text.startswith(_FORMULA_FIRST) and text != "-" and not _NUMBER.fullmatch(text):
        text = "'" + text
    return printable_lines(text)


def markdown_cell(text: str) -> str:
    """A Markdown table cell: through the output gate, its line breaks as ``<br>``, its
    ``|`` escaped (else either would end the cell, and the table with it)."""
    return printable(_LINE_BREAK.sub("<br>", text)).replace("|", "\\|")


def knob(value: Any) -> str:
    """A knob's value as it was set (never rounded: a learning rate of 1e-05 is no 0.0);
    ``-`` if none."""
    return "-" if value is None else str(value)


def plain(value: Any) -> str:
    """A value for an export: numbers to 4 decimals, exactly as they parse back; ``-`` if none."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or (value == int(value) and abs(value) < 1e15):
        return str(int(value))
    return repr(round(value, 4))


def compare(runs: list[RunInfo]) -> Comparison:
    """The comparison of ``runs`` (in the order given) from their summaries and specs."""
    settings = [spec_values(run) for run in runs]
    keys = list(dict.fromkeys(k for s in settings for k in s))
    params = [k for k in keys if len({json.dumps(s.get(k), sort_keys=True) for s in settings}) > 1]
    values: list[dict[str, Any]] = []
    metric_columns: dict[str, Column] = {}
    util_columns: dict[str, Column] = {}
    for run, setting in zip(runs, settings, strict=True):
        row = {p: setting.get(p) for p in params}
        summary = run.summary
        row.update({c.key: getattr(summary, c.key) for c in _FIXED})
        for name, value in (summary.metrics or {}).items():
            for pattern, better in registry.columns():
                if pattern.match(name):
                    metric_columns.setdefault(name, Column(name, name, better))
                    row[name] = value
        for engine, value in _utilization(summary).items():
            key = f"util.{engine}"
            util_columns.setdefault(key, Column(key, f"{engine} util %"))  # not ranked
            row[key] = value
        values.append(row)
    columns = [c for c in (*_FIXED, *metric_columns.values(), *util_columns.values())
               if any(v.get(c.key) is not None for v in values)]
    best: dict[str, set[int]] = {}
    for c in columns:
        ranked = [(v[c.key], i) for i, v in enumerate(values) if v.get(c.key) is not None]
        if c.better and len({value for value, _ in ranked}) > 1:  # a tie of all marks none
            top = (max if c.better == "max" else min)(value for value, _ in ranked)
            best[c.key] = {i for value, i in ranked if value == top}
    return Comparison(runs, params, columns, values, best)


def label(comparison: Comparison, row: int) -> str:
    """A run in the words of the parameters that differ, their values as set, or its id
    when none differ."""
    values = comparison.values[row]
    return " ".join(f"{p}={knob(values[p])}" for p in comparison.params) or comparison.runs[row].id


def throughput(comparison: Comparison, labels: Sequence[str] = ()
               ) -> list[tuple[str, float | None]]:
    """(label, samples/s) per run, in the order of the differing parameters' values;
    ``labels``: the runs' (in their order), else ``label``'s."""
    def order(i: int) -> tuple:
        return tuple((0, v, "") if isinstance(v, int | float) else (1, 0, str(v))
                     for v in (comparison.values[i][p] for p in comparison.params))
    return [(labels[i] if labels else label(comparison, i),
             comparison.values[i].get("samples_per_s"))
            for i in sorted(range(len(comparison.runs)), key=order)]


def loss_curves(comparison: Comparison, histories: Sequence[Mapping[str, Sequence]],
                labels: Sequence[str] = ()) -> list[tuple[str, list[tuple[float, float]]]]:
    """(label, [(step, loss), ...]) of every run that reported a loss more than once;
    ``histories`` are the runs' ``RunState.metric_history``, in the same order (``labels``
    as ``throughput``'s)."""
    out = []
    for i, history in enumerate(histories):
        points = history.get("loss", [])
        curve = [(float(step if step is not None else n), value)
                 for n, (step, value) in enumerate(points)]
        if len(curve) > 1:
            out.append((labels[i] if labels else label(comparison, i), curve))
    return out
