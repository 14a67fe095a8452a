"""Records: what a structured file holds, as lines an imported run keeps and reads again.

Each structured file (``engine.reading.ondisk``) becomes records, one JSON object per line
of the run's ``output.log``: ``time`` (the writer's wall time, local, where it gives
one: the run's clock), ``step``, ``total``, ``epoch``, ``metrics`` (canonical names:
``loss``, ``eval_loss``, ``lr``, ``samples_per_s``, ``tokens_per_s``...: each file's keys
named by ``vocabulary.named``), and at the end
``status`` (``done``, or ``failed`` with ``code`` and ``detail``) and ``elapsed``
(seconds the run took, as its file says). The ``records`` dialect reads them back.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import (
    MAX_INT,
    Diagnosis,
    Event,
    Metric,
    Progress,
    Throughput,
    finite,
)
from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.failures import LOSS_NOT_FINITE, diverged

NAME = "records"
MAX_LINE = 1024 * 1024  # characters of a structured file's line read at most
SAMPLES = "samples_per_s"  # the metric name that is a Throughput event


def lines(f: TextIO, path: Path) -> Iterator[str]:
    """The lines of a text file ``f`` (at ``path``), none longer than ``MAX_LINE``: a longer
    one is damage (a ``UserError``), not read whole."""
    n = 0
    while line := f.readline(MAX_LINE + 1):
        n += 1
        if len(line) > MAX_LINE:
            raise UserError(f"{path}: line {n} is longer than {MAX_LINE} characters")
        yield line


def number(value: Any) -> float | None:
    """``value`` as a float where it is a number (not a bool), else None (an integer too
    large for a float: infinite, as JSON's ``1e999`` reads)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def place(value: Any) -> int | None:
    """``value`` as a step or a total (an integer an event holds, within 64 bits), where it
    is such a number, else None (``nan``, ``1e999``, ``1e300``)."""
    found = number(value)
    return int(found) if found is not None and -MAX_INT < found < MAX_INT else None


def figure(value: Any) -> float | None:
    """``value`` as a float where it is a number an event holds (``events.finite``), else
    None."""
    found = number(value)
    return found if finite(found) else None


@dataclass
class Record:
    """One line of figures (see the module's docstring)."""

    step: int | None = None
    total: int | None = None
    epoch: float | None = None
    time: float | None = None  # epoch seconds
    metrics: dict[str, float] = field(default_factory=dict)
    status: str | None = None
    code: str | None = None
    detail: str | None = None
    elapsed: float | None = None

    def line(self) -> str:
        out: dict[str, Any] = {}
        if self.time is not None and (stamp := _stamp(self.time)):
            out["time"] = stamp
        for key in ("step", "total", "epoch"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.metrics:
            out["metrics"] = self.metrics
        for key in ("status", "code", "detail", "elapsed"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return json.dumps(out)


def _stamp(seconds: float) -> str | None:
    """Epoch ``seconds`` as a local ``YYYY-MM-DD HH:MM:SS.mmm``, None where the platform's
    clock has no such time (NaN, infinite, 1e17: a writer's damaged wall time)."""
    try:
        return (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
                + f".{int(seconds % 1 * 1000):03d}")
    except (ValueError, OverflowError, OSError):
        return None


def text(records: Iterable[Record], size: int = 1 << 20) -> Iterator[str]:
    """The lines of ``records`` in blocks of whole lines of about ``size`` characters."""
    lines: list[str] = []
    count = 0
    for record in records:
        line = record.line()
        lines.append(line)
        count += len(line) + 1
        if count >= size:
            yield "\n".join(lines) + "\n"
            lines, count = [], 0
    if lines:
        yield "\n".join(lines) + "\n"


class Records(Dialect):
    """The records of a structured file (chosen by the file, never sniffed in a log)."""

    whole = True
    name = NAME
    title = ("structured files: TensorBoard events, trainer_state.json, metrics.csv,"
             " trainer_log.jsonl")
    needs = ("{",)
    warnings = frozenset({LOSS_NOT_FINITE})

    def feed(self, line: str, ts: float) -> list[Event]:
        if not line.startswith("{"):
            return []
        try:
            obj = json.loads(line)
        except ValueError:
            return []
        if not isinstance(obj, dict):
            return []
        events: list[Event] = []
        step = place(obj.get("step"))
        if step is not None:
            events.append(Progress(self.run_id, ts, step, place(obj.get("total")) or 0,
                                   figure(obj.get("epoch")) or 0.0))
        for name, given in (obj.get("metrics") or {}).items():
            value = number(given)
            if value is None:
                continue
            if not finite(value):
                if name == "loss":
                    events.append(diverged(self.run_id, ts, name, value, step))
                continue
            events.append(Throughput(self.run_id, ts, value, step) if name == SAMPLES
                          else Metric(self.run_id, ts, name, value, step))
        if (elapsed := figure(obj.get("elapsed"))) is not None:
            self.elapsed = elapsed
        if obj.get("status") == "done":
            self.status = "done"
        elif obj.get("status") == "failed":
            events.append(Diagnosis(self.run_id, ts, str(obj.get("code") or "run_failed"),
                                    str(obj.get("detail") or "the run failed"),
                                    "its file says so; see the lines before it"))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        """Never: a structured file is known by its name (``ondisk.kind``), not sniffed."""
        return False
