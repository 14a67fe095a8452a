"""Keras ``model.fit`` progress lines.

``Epoch 3/200`` heads each epoch; then Keras 2's verbose 1 prints
``125/125 [======] - 4s 28ms/step - loss: 3.3872 - sparse_categorical_accuracy: 0.3728``
(``- ETA: 4s`` while the epoch runs), Keras 3's ``422/422 ━━━━━━━━ 3s 5ms/step - accuracy:
...`` (the time is the ETA until the last step: ``8:21 1s/step``) and verbose 2
``1079/1079 - 21s - loss: 0.2431 - 21s/epoch - 19ms/step``. A line gives the step over all
epochs, the time per step, the epoch's time (on its last step) and each ``name: value`` as a
metric; accuracies (``acc``, ``accuracy``, ``*_accuracy``), fractions in Keras, become
percents as accelbench reports them, ``acc`` named ``accuracy``. A bar after the last
step of an epoch, before the next ``Epoch`` line, is ``evaluate()``'s: its metrics are
named ``test_...`` and it is no training step.
"""

from __future__ import annotations

import re

from accelbench.engine.core.events import Event, Metric, Progress
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import any_line

_EPOCH = re.compile(r"^Epoch (\d+)/(\d+)\s*$")
# "<n>/<N> " then Keras 2's "[===>...] - ", Keras 3's "━━━━  " or verbose 2's "- ", then
# "ETA: ...", "<time> <t>/step" or verbose 2's "<time> - ... <t>/step": "/step" or "ETA: " in each
_LINE = re.compile(r"^\s*(\d+)/(\d+) (?:\[[=>.]*\] - |━+\s+|- )"
                   r"((?:ETA: |(?:\d+s|\d+:[\d:]+) \d+(?:s|ms|us)/step|\d+s - .*/step).*)$")
_METRIC = re.compile(r"^(\w+): ([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)$")
# the first part: "7s 30ms/step", "ETA: 4s", "8:21 1s/step" (an ETA), "21s"
_TIMES = re.compile(r"^(?:ETA: \S+|(\d+)s|\d+:[\d:]+)(?: (\d+)(s|ms|us)/step)?$")
_PER = re.compile(r"^(\d+)(s|ms|us)/(step|epoch)$")  # verbose 2's later parts
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000}
_RENAMED = {"acc": "accuracy", "val_acc": "val_accuracy"}


def _figures(part: str, last: bool) -> dict[str, float]:
    """The figures of one `` - ``-separated part of a progress line, by metric name; a
    time that is not an ETA is the epoch's on its ``last`` step."""
    if m := _METRIC.match(part):
        name, value = _RENAMED.get(m[1], m[1]), float(m[2])
        return {name: round(value * 100, 10) if name.endswith("accuracy") else value}
    if m := _PER.match(part):
        return {f"{m[3]}_time_s": float(m[1]) / _PER_SECOND[m[2]]}
    if not (m := _TIMES.match(part)):
        return {}
    return {**({"epoch_time_s": float(m[1])} if m[1] and last else {}),
            **({"step_time_s": float(m[2]) / _PER_SECOND[m[3]]} if m[2] else {})}


class Keras(Dialect):
    """Keras ``fit`` output, verbose 1 (bars) or 2 (a line per epoch)."""

    name = "keras"
    title = "Keras progress lines"
    needs = ("Epoch ", "/step", "ETA: ")
    fallback = True

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._epoch = (0, 0)  # (the epoch under way, of how many); (0, 0) before any
        self._ended = ""  # the epoch's last line, once seen: another bar now is evaluate()'s

    def feed(self, line: str, ts: float) -> list[Event]:
        if m := _EPOCH.match(line):
            self._epoch, self._ended = (int(m[1]), int(m[2])), ""
            return []
        if not (m := _LINE.match(line)):
            return []
        parts = [part.strip() for part in m[3].split(" - ")]
        if not any(_METRIC.match(part) for part in parts):
            return []  # a bar without figures (predict()) is no training step
        epoch, epochs = self._epoch
        n, per_epoch = int(m[1]), int(m[2])
        if self._ended:
            if line.strip() == self._ended:
                return []  # the last line again (a redraw printed twice)
            return [Metric(self.run_id, ts, f"test_{name}", value)
                    for part in parts for name, value in _figures(part, False).items()
                    if not name.endswith("_time_s")]
        self._ended = line.strip() if epoch > 0 and n == per_epoch else ""
        step = max(epoch - 1, 0) * per_epoch + n
        figures = {name: value for part in parts
                   for name, value in _figures(part, n == per_epoch).items()}
        return [Progress(self.run_id, ts, step, per_epoch * max(epochs, 1),
                         epoch=epoch, epochs=epochs),
                *(Metric(self.run_id, ts, name, value, step=step)
                  for name, value in figures.items())]

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any_line(text, ("/step", "ETA: "), _LINE)
