"""NeuronX Distributed training examples' step lines.

``step 1 step_time 244.76s throughput 3.93 seq/s loss 13.41 grad norm 1.97`` (the Llama
pre-training examples, ``run_llama_nxd.py``): the step, its time, the throughput in
sequences per second, the loss and the gradient norm. Later scripts print
``... loss 12.07 val-loss: None current_lr: 3.99e-06 grad norm 21.875`` (the learning
rate, a validation loss where there is one); a ``nan`` loss is a diagnosis.
"""

from __future__ import annotations

import math
from itertools import repeat
from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Event, Metric, Phase, Progress, Throughput
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.steps import StepLines, optional
from accelbench.engine.reading.failures import LOSS_NOT_FINITE, diverged

_NUMBER = r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|-?inf)"
_STEP = lazy(rf"\bstep (\d+) step_time {_NUMBER}s throughput {_NUMBER} seq/s"
             rf" loss {_NUMBER}(?: val-loss: (?:None|{_NUMBER}))?"
             rf"(?: current_lr: {_NUMBER})?(?: grad norm (?:None|{_NUMBER}))?")
# The step lines of a text: the first match in each line, as feed reads it
_STEPS = StepLines(" step_time ", lazy(r"(?m)^[^\n]*?" + _STEP.pattern),
                   (int, float, float, float, *[optional(float)] * 3),
                   # (lines printed as the examples print them: the step first)
                   text_pattern=lazy("(?m)^" + _STEP.pattern.removeprefix(r"\b")))
_NAMES = ("loss", "val_loss", "learning_rate", "grad_norm")  # of the step's groups 4-7


class NxDTraining(Dialect):
    """NeuronX Distributed step lines: progress, loss, grad norm, step time, throughput."""

    name = "nxd_training"
    title = "NeuronX Distributed training steps"
    needs = (" step_time ",)
    sniff_needs = (" step_time ",)  # (its sniff's pattern holds it)
    warnings = frozenset({LOSS_NOT_FINITE})  # training went on
    step_lines = _STEPS

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._running = False
        self._diverged = False

    def feed(self, line: str, ts: float) -> list[Event]:
        m = _STEP.search(line)
        if not m:
            return []
        step, run = int(m[1]), self.run_id
        events: list[Event] = []
        if not self._running:
            self._running = True
            events.append(Phase(run, ts, "running", "training steps"))
        events += [Progress(run, ts, step, 0), Throughput(run, ts, float(m[3]), step),
                   Metric(run, ts, "step_time_s", float(m[2]), step)]
        for name, raw in (("loss", m[4]), ("val_loss", m[5]), ("learning_rate", m[6]),
                          ("grad_norm", m[7])):
            if raw is None:
                continue
            value = float(raw)
            if math.isfinite(value):
                events.append(Metric(run, ts, name, value, step))
            elif name == "loss" and not self._diverged:
                self._diverged = True
                events.append(diverged(run, ts, "loss", raw, step))
        return events

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows] | None:
        """What ``feed`` gives of step lines alike (each figure given in all or none, all
        finite), as columns."""
        steps, times, throughputs, *figures = columns
        n, run = len(steps), self.run_id
        for column in figures:
            if (column.count(None) != n if column[0] is None
                    else None in column or not all(map(math.isfinite, column))):
                return None
        events: list[Event | Rows] = []
        if not self._running:
            self._running = True
            events.append(Phase(run, ts, "running", "training steps"))
        kinds: list[tuple[type[Event], tuple[list[Any], ...]]] = [
            (Progress, (steps, [0] * n, [0] * n, [0] * n)), (Throughput, (throughputs, steps)),
            (Metric, (["step_time_s"] * n, times, steps))]
        kinds += [(Metric, ([name] * n, column, steps))
                  for name, column in zip(_NAMES, figures, strict=True) if column[0] is not None]
        return [*events, Rows(run, list(repeat(ts, n)), kinds)]

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_STEP.search(text))
