"""Keras ``model.fit`` progress lines.

``Epoch 3/200`` heads each epoch; then verbose 1 prints
``125/125 [======] - 4s 28ms/step - loss: 3.3872 - sparse_categorical_accuracy: 0.3728``
(``- ETA: 4s`` while the epoch runs) and verbose 2
``1079/1079 - 21s - loss: 0.2431 - 21s/epoch - 19ms/step``. A line gives the step over all
epochs, the epoch's time and the time per step, and each ``name: value`` as a metric;
accuracies (``acc``, ``accuracy``, ``*_accuracy``), fractions in Keras, become percents as
accelbench reports them, ``acc`` named ``accuracy``.
"""

from __future__ import annotations

import re

from accelbench.engine.events import Event, Metric, Progress
from accelbench.engine.parsers import Dialect

_EPOCH = re.compile(r"^Epoch (\d+)/(\d+)\s*$")
_LINE = re.compile(r"^\s*(\d+)/(\d+) (?:\[[=>.]*\] )?- ((?:ETA: \S+|\d+s)\b.*)$")
_METRIC = re.compile(r"^(\w+): ([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)$")
_TIME = re.compile(r"^(\d+)s(?: (\d+)(s|ms|us)/step)?$|^(\d+)(s|ms|us)/(step|epoch)$")
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000}
_RENAMED = {"acc": "accuracy", "val_acc": "val_accuracy"}
_SNIFF = re.compile(_LINE.pattern, re.M)


def _figures(part: str) -> dict[str, float]:
    """The figures of one `` - ``-separated part of a progress line, by metric name."""
    if m := _METRIC.match(part):
        name = _RENAMED.get(m[1], m[1])
        value = float(m[2])
        return {name: round(value * 100, 10) if name.endswith("accuracy") else value}
    if not (m := _TIME.match(part)):
        return {}
    if m[4]:
        return {f"{m[6]}_time_s": float(m[4]) / _PER_SECOND[m[5]]}
    return {"epoch_time_s": float(m[1]),
            **({"step_time_s": float(m[2]) / _PER_SECOND[m[3]]} if m[2] else {})}


class Keras(Dialect):
    """Keras ``fit`` output, verbose 1 (bars) or 2 (a line per epoch)."""

    name = "keras"
    title = "Keras progress lines"
    needs = ("Epoch ", " - ")
    fallback = True

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._epoch = (0, 0)  # (the epoch under way, of how many); (0, 0) before any

    def feed(self, line: str, ts: float) -> list[Event]:
        if m := _EPOCH.match(line):
            self._epoch = int(m[1]), int(m[2])
            return []
        if not (m := _LINE.match(line)):
            return []
        epoch, epochs = self._epoch
        n, per_epoch = int(m[1]), int(m[2])
        step = max(epoch - 1, 0) * per_epoch + n
        figures = {name: value for part in m[3].split(" - ")
                   for name, value in _figures(part.strip()).items()}
        return [Progress(self.run_id, ts, step, per_epoch * max(epochs, 1),
                         epoch=epoch, epochs=epochs),
                *(Metric(self.run_id, ts, name, value, step=step)
                  for name, value in figures.items())]

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
