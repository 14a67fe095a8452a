"""A run's current state, folded from its events: what every view shows.

The CLI's live display and the TUI both read a ``RunState``; its summary is
what the store records when the run ends.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from engine.events import (Diagnosis, Event, Finished, Log, Metric, Phase, Progress,
                           Throughput, Utilization)

HISTORY = 600  # samples kept per utilization engine


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
    metric_history: dict[str, list[tuple[int | None, float]]] = field(default_factory=dict)
    throughput: list[tuple[float, float]] = field(default_factory=list)
    utilization: dict[str, Utilization] = field(default_factory=dict)
    util_history: dict[str, deque[float]] = field(default_factory=dict)
    _util_sums: dict[str, list[float]] = field(default_factory=dict)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    log_lines: int = 0
    log_tail: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    finished: Finished | None = None

    def feed(self, event: Event) -> None:
        """Fold one event into the state."""
        if self.created is None:
            self.created = event.ts
        self.last_ts = event.ts
        if isinstance(event, Log):
            self.log_lines += 1
            self.log_tail.append(event.text)
        elif isinstance(event, Utilization):
            self.utilization[event.engine] = event
            self.util_history.setdefault(event.engine, deque(maxlen=HISTORY)).append(event.percent)
            sums = self._util_sums.setdefault(event.engine, [0.0, 0])
            sums[0] += event.percent
            sums[1] += 1
        elif isinstance(event, Progress):
            self.step, self.total = event.step, event.total
            self.epoch, self.epochs = event.epoch, event.epochs
            self.progress_ts = event.ts
            if self.first_progress is None:
                self.first_progress = (event.ts, event.step)
        elif isinstance(event, Throughput):
            self.throughput.append((event.ts, event.samples_per_s))
        elif isinstance(event, Metric):
            self.metrics[event.name] = event.value
            self.metric_history.setdefault(event.name, []).append((event.step, event.value))
        elif isinstance(event, Phase):
            self.phase, self.phase_detail = event.name, event.detail
        elif isinstance(event, Diagnosis):
            self.diagnoses.append(event)
        elif isinstance(event, Finished):
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
        if self.finished or not self.total or self.first_progress is None:
            return None
        first_ts, first_step = self.first_progress
        if self.step <= first_step or self.progress_ts <= first_ts:
            return None
        rate = (self.step - first_step) / (self.progress_ts - first_ts)
        return max(0.0, (self.total - self.step) / rate)

    def samples_per_s(self) -> float | None:
        """The latest throughput sample."""
        return self.throughput[-1][1] if self.throughput else None

    def summary(self) -> dict[str, Any]:
        """The figures runs are compared by (what the store keeps)."""
        m = self.metrics
        out: dict[str, Any] = {}

        def put(key: str, *candidates: Any) -> None:
            value = next((c for c in candidates if c is not None), None)
            if value is not None:
                out[key] = value

        mean_rate = (sum(v for _, v in self.throughput) / len(self.throughput)
                     if self.throughput else None)
        put("samples_per_s", m.get("train_samples_per_second"),
            m.get("training_samples_per_second"), mean_rate)
        put("train_time_s", m.get("train_runtime"), m.get("e2e_train_time"))
        put("final_loss", m.get("final_loss"), m.get("train_loss"), m.get("loss"))
        put("accuracy", m.get("accuracy"))
        put("eval_loss", m.get("eval_loss"), m.get("test_loss"))
        if self.total:
            out["steps"] = self.step
            out["total_steps"] = self.total
        if self.created is not None and self.last_ts is not None:
            out["duration_s"] = round(self.last_ts - self.created, 3)
        if self.diagnoses:
            out["diagnoses"] = sorted({d.code for d in self.diagnoses})
        if self._util_sums:
            out["utilization"] = {k: round(s / n, 2) for k, (s, n) in self._util_sums.items()}
        out["metrics"] = dict(m)
        return out
