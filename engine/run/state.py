"""A run's current state, folded from its events: what every view shows.

The CLI's live display and the TUI both read a ``RunState``; its summary is
what the store records when the run ends. Its size is bounded whatever the run
prints: histories are thinned as they grow (means come from running sums, so
the summary does not change), and names and diagnoses are capped.
"""

from __future__ import annotations

import functools
import operator
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from accelbench.engine.core.batches import Batch, Rows
from accelbench.engine.core.events import (
    Diagnosis,
    Event,
    Finished,
    Log,
    Metric,
    Phase,
    Progress,
    Redraw,
    Throughput,
    Utilization,
)
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.plugin.registry import metric_aliases

HISTORY = 600  # samples kept per utilization engine
SERIES = 1000  # points kept of each metric's history and of throughput (even)
MAX_NAMES = 1000  # distinct metrics, and utilization engines, kept
MAX_DIAGNOSES = 100
COLUMNS_FROM = 16  # events in a batch from which they fold as columns (:class:`_Columns`)


class Series(list):
    """A growing series kept to at most ``cap`` + 1 points however many are added: when
    full, every other point is dropped and later ones are kept at the new spacing, so
    it spans the whole run evenly; the newest point is always last."""

    def __init__(self, cap: int = SERIES) -> None:
        super().__init__()
        self.cap, self.stride, self.added = cap, 1, 0

    def add(self, point: Any) -> None:
        """Add the newest point."""
        added, stride = self.added, self.stride
        if self and (added - 1) % stride:
            self[-1] = point  # in place of the previous newest point, between two kept ones
        else:
            self.append(point)
        if added % stride == 0 and len(self) > self.cap:
            del self[1::2]
            self.stride = stride * 2
        self.added = added + 1

    def add_all(self, points: Sequence[Any]) -> None:
        """Add ``points``, newest last, as :meth:`add` each (the same series: tested), a
        stride's worth at once: one appended, the last of them newest; the whole strides
        that leave it at most ``cap`` long at once (each one's last point kept, sliced)."""
        i, n = 0, len(points)
        while i < n:
            added, stride = self.added, self.stride
            if self and (added - 1) % stride == 0 and (
                    whole := min(self.cap - len(self), (n - i) // stride)) > 0:
                self.extend(points[i + stride - 1:i + whole * stride:stride])
                self.added = added + whole * stride
                i += whole * stride
                continue
            if self:
                # up to and with the next multiple of the stride (its point ends the chunk)
                taken = min(-added % stride + 1, n - i)
                kept = -(added - 1) % stride  # where in the chunk the point appended is
                if kept < taken:
                    if kept:  # (those before it take the newest's place)
                        self[-1] = points[i + kept - 1]
                    self.append(points[i + kept])
                    if kept < taken - 1:
                        self[-1] = points[i + taken - 1]
                else:
                    self[-1] = points[i + taken - 1]
            else:
                self.append(points[i])
                taken = 1
            last = added + taken - 1
            if last % stride == 0 and len(self) > self.cap:
                del self[1::2]
                self.stride = stride * 2
            self.added = last + 1
            i += taken

    def copy(self) -> Series:
        """A copy that grows on its own."""
        out = Series(self.cap)
        out.extend(self)
        out.stride, out.added = self.stride, self.added
        return out


class _Pairs(Sequence[tuple[Any, Any]]):
    """The points ``(firsts[i], seconds[i])`` of two columns, made as they are read (a
    series keeps a few of many: no list of them all)."""

    def __init__(self, firsts: Sequence[Any], seconds: Sequence[Any]) -> None:
        if len(firsts) != len(seconds):
            raise ValueError("columns of different lengths")
        self.firsts, self.seconds = firsts, seconds

    def __len__(self) -> int:
        return len(self.firsts)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(zip(self.firsts[i], self.seconds[i], strict=True))
        return (self.firsts[i], self.seconds[i])


@dataclass
class RunState:
    """Everything known about a run so far; feed it events in order."""

    run_id: str
    phase: str = "queued"
    phase_detail: str = ""
    created: float | None = None
    last_ts: float | None = None
    first_progress: tuple[float, int] | None = None  # (ts, step) of the first progress seen
    step: int = 0
    total: int = 0
    epoch: float = 0
    epochs: float = 0
    progress_ts: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    metric_history: dict[str, Series] = field(default_factory=dict)  # (step, value) points
    throughput: Series = field(default_factory=Series)  # (ts, samples/s) points
    _rate_sum: list[float] = field(default_factory=lambda: [0.0, 0])  # every sample's sum, count
    utilization: dict[str, Utilization] = field(default_factory=dict)
    util_history: dict[str, deque[float]] = field(default_factory=dict)
    _util_sums: dict[str, list[float]] = field(default_factory=dict)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    log_lines: int = 0
    log_tail: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    redraw: str = ""  # the newest state of an output line being redrawn, until it ends
    finished: Finished | None = None

    def copy(self) -> RunState:
        """A copy that later folds of this state leave as it is (what a reader in another
        thread may keep while this one is fed further)."""
        return replace(
            self, metrics=dict(self.metrics),
            metric_history={name: s.copy() for name, s in self.metric_history.items()},
            throughput=self.throughput.copy(), _rate_sum=list(self._rate_sum),
            utilization=dict(self.utilization),
            util_history={name: deque(h, maxlen=h.maxlen)
                          for name, h in self.util_history.items()},
            _util_sums={name: list(sums) for name, sums in self._util_sums.items()},
            diagnoses=list(self.diagnoses), log_tail=deque(self.log_tail, self.log_tail.maxlen))

    def plain_lines(self, texts: list[str], ts: float) -> None:
        """Fold in log lines seen at ``ts`` as ``feed`` would their ``Log`` events (for
        readers that need the state only: no event object per line)."""
        if not texts:
            return
        if self.created is None:
            self.created = ts
        self.last_ts = ts
        self.log_lines += len(texts)
        self.log_tail.extend(texts[-(self.log_tail.maxlen or 0):])
        self.redraw = ""

    def feed(self, event: Event) -> None:
        """Fold one event into the state (the commonest types first)."""
        if self.created is None:
            self.created = event.ts
        self.last_ts = event.ts
        fold = _FOLDS.get(type(event))
        if fold is not None:
            fold(self, event)

    def feed_all(self, events: Batch) -> None:
        """Fold a batch of events into the state, as ``feed`` each in order: the metrics,
        throughput and progress as columns (:class:`_Columns`), a :class:`Rows` too."""
        if not events:
            return
        first, last = events[0], events[-1]
        if self.created is None:
            self.created = first.stamps[0] if isinstance(first, Rows) else first.ts
        self.last_ts = last.stamps[-1] if isinstance(last, Rows) else last.ts
        if len(events) >= COLUMNS_FROM:
            self._columns(events)
            return
        folds = _FOLDS  # (a few events: one by one is quicker)
        for event in events:
            fold = folds.get(type(event))
            if fold is not None:
                fold(self, event)

    def _columns(self, events: Batch) -> None:
        """Fold events (and Rows) as columns: :class:`_Columns`."""
        columns = _Columns()
        columns.add(self, events)
        columns.fold(self)

    def _log(self, event: Log) -> None:
        self.log_lines += 1
        self.log_tail.append(event.text)
        self.redraw = ""

    def _redraw(self, event: Redraw) -> None:
        self.redraw = event.text

    def _utilization(self, event: Utilization) -> None:
        if event.engine not in self.utilization and len(self.utilization) >= MAX_NAMES:
            return
        self.utilization[event.engine] = event
        self.util_history.setdefault(event.engine, deque(maxlen=HISTORY)).append(event.percent)
        sums = self._util_sums.setdefault(event.engine, [0.0, 0])
        sums[0] += event.percent
        sums[1] += 1

    def _progress(self, event: Progress) -> None:
        self._progresses(event.ts, event.step, event.ts, event.step, event.total, event.epoch,
                         event.epochs)

    def _progresses(self, first_ts: float, first_step: int, ts: float, step: int, total: int,
                    epoch: float, epochs: float) -> None:
        """Fold progress events: the first one's time and step, the last one's fields."""
        self.step, self.total, self.epoch, self.epochs = step, total, epoch, epochs
        self.progress_ts = ts
        if self.first_progress is None:
            self.first_progress = (first_ts, first_step)

    def _throughput(self, event: Throughput) -> None:
        self._rates((event.ts,), (event.samples_per_s,))

    def _rates(self, stamps: Sequence[float], rates: Sequence[float]) -> None:
        """Fold throughput events, given as columns (times, samples/s)."""
        sums = self._rate_sum
        if len(rates) == 1:  # (one event, as a live run gives them: no list made)
            self.throughput.add((stamps[0], rates[0]))
        else:
            self.throughput.add_all(_Pairs(stamps, rates))
        sums[0] = functools.reduce(operator.add, rates, sums[0])  # (in order, as += each)
        sums[1] += len(rates)

    def _metric(self, event: Metric) -> None:
        self._metrics(event.name, (event.value,), (event.step,))

    def _metrics(self, name: str, values: Sequence[float], steps: Sequence[int | None]
                 ) -> None:
        """Fold the events of metric ``name``, given as columns."""
        metrics = self.metrics
        if name not in metrics and len(metrics) >= MAX_NAMES:
            return
        metrics[name] = values[-1]
        history = self.metric_history.get(name)
        if history is None:  # (setdefault would make a Series per event)
            history = self.metric_history[name] = Series()
        if len(values) == 1:  # (one event, as a live run gives them: no list made)
            history.add((steps[0], values[0]))
        else:
            history.add_all(_Pairs(steps, values))

    def _phase(self, event: Phase) -> None:
        self.phase, self.phase_detail = event.name, event.detail

    def _diagnosis(self, event: Diagnosis) -> None:
        if len(self.diagnoses) < MAX_DIAGNOSES:
            self.diagnoses.append(event)

    def _finished(self, event: Finished) -> None:
        self.finished = event
        self.phase = event.status

    def elapsed(self, now: float) -> float:
        """Seconds since the run was created (until it finished)."""
        if self.created is None:
            return 0.0
        end = self.finished.ts if self.finished else now
        return max(0.0, end - self.created)

    def eta(self) -> float | None:
        """Seconds left at the step rate seen since the first progress report."""
        if (self.finished or not self.total or self.first_progress is None
                or self.progress_ts is None):
            return None
        first_ts, first_step = self.first_progress
        if self.step <= first_step or self.progress_ts <= first_ts:
            return None
        rate = (self.step - first_step) / (self.progress_ts - first_ts)
        return max(0.0, (self.total - self.step) / rate)

    def samples_per_s(self) -> float | None:
        """The latest throughput sample."""
        return self.throughput[-1][1] if self.throughput else None

    def summary(self) -> RunSummary:
        """The figures runs are compared by (what the store keeps)."""
        total, count = self._rate_sum
        duration = (round(self.last_ts - self.created, 3)
                    if self.created is not None and self.last_ts is not None else None)
        return RunSummary.from_metrics(
            self.metrics, total / count if count else None, metric_aliases(),
            steps=self.step if self.total else None, total_steps=self.total or None,
            duration_s=duration,
            diagnoses=sorted({d.code for d in self.diagnoses}) or None,
            utilization={k: round(s / n, 2) for k, (s, n) in self._util_sums.items()} or None)


_FOLDS: dict[type, Callable[[RunState, Any], None]] = {
    Log: RunState._log, Redraw: RunState._redraw, Utilization: RunState._utilization,
    Progress: RunState._progress, Throughput: RunState._throughput, Metric: RunState._metric,
    Phase: RunState._phase, Diagnosis: RunState._diagnosis, Finished: RunState._finished,
    Rows: lambda state, rows: state._columns((rows,))}


class _Columns:
    """The metric, throughput and progress events of a batch, as columns, folded after the
    others: each of these kinds changes fields of its own (no other kind changes them), so
    the state is the one that folding each event in order makes."""

    def __init__(self) -> None:
        self.metrics: dict[str, tuple[list[float], list[int | None]]] = {}  # (values, steps)
        self.rates: tuple[list[float], list[float]] = ([], [])  # times, samples/s
        # (time, step, total, epoch, epochs) of the first progress and of the last
        self.first: tuple[Any, ...] | None = None
        self.last: tuple[Any, ...] = ()

    def add(self, state: RunState, events: Batch) -> None:
        """Take the events of those kinds; fold the others into ``state`` in order."""
        metrics, (stamps, rates), folds = self.metrics, self.rates, _FOLDS
        for event in events:
            if type(event) is Metric:
                column = metrics.get(event.name)
                if column is None:
                    column = metrics[event.name] = ([], [])
                column[0].append(event.value)
                column[1].append(event.step)
            elif type(event) is Throughput:
                stamps.append(event.ts)
                rates.append(event.samples_per_s)
            elif type(event) is Progress:
                self.last = (event.ts, event.step, event.total, event.epoch, event.epochs)
                self.first = self.first or self.last
            elif type(event) is Rows:
                self._rows(state, event)
            elif (fold := folds.get(type(event))) is not None:
                fold(state, event)

    def _rows(self, state: RunState, rows: Rows) -> None:
        if not all(cls in (Throughput, Progress) or (
                cls is Metric and (names := columns[0]) and names.count(names[0]) == len(names))
                   for cls, columns in rows.kinds):  # (a Rows of other kinds, as events)
            self.add(state, rows.events())
            return
        for cls, columns in rows.kinds:
            if cls is Metric:
                values, steps = self.metrics.setdefault(columns[0][0], ([], []))
                values += columns[1]
                steps += columns[2]
            elif cls is Throughput:
                self.rates[0].extend(rows.stamps)
                self.rates[1].extend(columns[0])
            else:
                self.first = self.first or (rows.stamps[0], *(c[0] for c in columns))
                self.last = (rows.stamps[-1], *(c[-1] for c in columns))

    def fold(self, state: RunState) -> None:
        for name, (values, steps) in self.metrics.items():
            state._metrics(name, values, steps)
        if self.rates[0]:
            state._rates(*self.rates)
        if self.first is not None:
            state._progresses(*self.first[:2], *self.last)
