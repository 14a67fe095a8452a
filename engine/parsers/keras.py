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

import operator
from bisect import bisect_left, bisect_right
from itertools import accumulate, repeat
from operator import eq
from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Event, Metric, Progress
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import any_line
from accelbench.engine.parsers.steps import StepLines, split_rows

_EPOCH = lazy(r"^Epoch (\d+)/(\d+)\s*$")
# "<n>/<N> " then Keras 2's "[===>...] - ", Keras 3's "━━━━  " or verbose 2's "- ", then
# "ETA: ...", "<time> <t>/step" or verbose 2's "<time> - ... <t>/step": "/step" or "ETA: " in each
_LINE = lazy(r"^\s*(\d+)/(\d+) (?:\[[=>.]*\] - |━+\s+|- )"
             r"((?:ETA: |(?:\d+s|\d+:[\d:]+) \d+(?:s|ms|us)/step|\d+s - .*/step).*)$")
_METRIC = lazy(r"^(\w+): ([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)$")
# the first part: "7s 30ms/step", "ETA: 4s", "8:21 1s/step" (an ETA), "21s"
_TIMES = lazy(r"^(?:ETA: \S+|(\d+)s|\d+:[\d:]+)(?: (\d+)(s|ms|us)/step)?$")
_PER = lazy(r"^(\d+)(s|ms|us)/(step|epoch)$")  # verbose 2's later parts
_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000}
_RENAMED = {"acc": "accuracy", "val_acc": "val_accuracy"}
_NUMBER = r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?"  # (_METRIC's)
_VALUE = lazy(rf": ({_NUMBER})")  # a metric's value in a line's `` - name: value``s
_NAME = lazy(r"(\w+): ")  # ... its name

# Every line of Keras's literals read at once: an ``Epoch`` line; a progress line of the
# shapes above, each part one that ``_figures`` reads whole (the whole line, stripped, the
# step and steps, the times part's seconds or clock, its time per step, the metrics'
# ``- name: value``s, verbose 2's time per epoch and per step); any other line as text (fed)
_STEPS = StepLines("/step", lazy(
    r"(?m)^(?:Epoch (\d+)/(\d+)[^\S\n]*|[^\S\n]*((\d+)/(\d+) (?:\[[=>.]*\] - |━+[^\S\n]+|- )"
    r"(?:ETA: [^\s]+|(\d+)s|(\d+:[\d:]+))(?: (\d+)(s|ms|us)/step)?"
    rf"((?: - \w+: {_NUMBER})*)(?: - (\d+)(s|ms|us)/epoch)?(?: - (\d+)(s|ms|us)/step)?)"
    r"[^\S\n]*|([^\n]*))$"),
    (None,) * 15,
    also=("Epoch ", "ETA: "))


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


def _per(value: str, unit: str) -> float:
    """Seconds of ``value`` ``unit`` (``s``, ``ms``, ``us``)."""
    return float(value) / _PER_SECOND[unit]


def _plan(names: tuple[str, ...], test: bool, epoch_time: bool, per: bool, per_epoch: bool,
          per_step: bool) -> list[tuple[str, int | str]]:
    """The metrics ``feed`` gives of a progress line, in order, as (name, source): the
    metric ``names`` (a source: the index of its value), the seconds of the times part
    (``"secs"``, where ``epoch_time``), its time per step (``"per"``) and verbose 2's
    (``"epoch"``, ``"step"``), where the line has them; ``test``: evaluate()'s line."""
    renamed = [_RENAMED.get(name, name) for name in names]
    if test:
        return [(f"test_{name}", j) for j, name in enumerate(renamed)
                if not name.endswith("_time_s")]
    figures: dict[str, int | str] = {}
    if epoch_time:
        figures["epoch_time_s"] = "secs"
    if per:
        figures["step_time_s"] = "per"
    figures.update((name, j) for j, name in enumerate(renamed))
    if per_epoch:
        figures["epoch_time_s"] = "epoch"
    if per_step:
        figures["step_time_s"] = "step"
    return list(figures.items())


class _Block:
    """A block's progress lines (``Keras.step_rows``'s columns), their events gathered
    as Rows: ``read`` are the lines ``feed`` reads figures of (their indices), each then
    taken as a fit's step or evaluate()'s line, in order."""

    def __init__(self, run_id: str, columns: list[list[Any]], ts: float) -> None:
        self.run_id, self.columns, self.ts = run_id, columns, ts
        (_, _, lines, steps_at, totals_at, secs, clocks, pers, _, metrics, per_epochs, _,
         per_steps, _, _) = columns
        joined = "\n".join(metrics)
        keys = _VALUE.sub(": ", joined).split("\n")  # each line's metrics less values
        self.names = names = {key: tuple(_NAME.findall(key)) for key in set(keys)}
        self.values = list(map(float, _VALUE.findall(joined)))
        self.starts = list(accumulate(map(len, map(names.__getitem__, keys)),
                                      initial=0))  # each line's first value in values
        self.read = read = [i for i, (line, key, s, c, p, st) in enumerate(zip(
            lines, keys, secs, clocks, pers, per_steps, strict=True))
            if line and names[key] and (p or (st and s) or not (s or c))]  # (as _LINE)
        self.n = list(map(int, map(steps_at.__getitem__, read)))
        self.of = list(map(int, map(totals_at.__getitem__, read)))
        self.last = list(map(eq, self.n, self.of))  # at its epoch's last step
        get, read_keys = list.__getitem__, list(map(keys.__getitem__, read))
        self.as_step = list(zip(  # the key and flags of _plan of each as a step ...
            read_keys, repeat(False),
            map(operator.and_, map(bool, map(get, repeat(secs), read)), self.last),
            *(map(bool, map(get, repeat(column), read))
              for column in (pers, per_epochs, per_steps)), strict=False))
        self.as_test = list(zip(read_keys, repeat(True), repeat(False), repeat(False),
                                repeat(False), repeat(False), strict=False))  # ... as a test
        self.taken: list[int] = []  # those of read giving events, not yet given
        self.kinds_of: list[tuple[Any, ...]] = []  # each one's key and flags
        self.epoch_of: list[tuple[int, int] | None] = []  # each one's epoch (None: a test)

    def given(self) -> list[Rows]:
        """The events of the lines taken, as Rows of lines alike; none taken then."""
        taken, kinds_of, epoch_of = self.taken, self.kinds_of, self.epoch_of
        if not taken:
            return []
        self.taken, self.kinds_of, self.epoch_of = [], [], []
        columns, values, starts, read = self.columns, self.values, self.starts, self.read
        secs, pers, units, per_epochs, epoch_units, per_steps, step_units = (
            columns[i] for i in (5, 7, 8, 10, 11, 12, 13))
        sources = {"secs": lambda i: float(secs[i]), "per": lambda i: _per(pers[i], units[i]),
                   "epoch": lambda i: _per(per_epochs[i], epoch_units[i]),
                   "step": lambda i: _per(per_steps[i], step_units[i])}

        def kinds(part: slice) -> list[tuple[type[Event], tuple[list[Any], ...]]]:
            at = taken[part]
            rows = list(map(read.__getitem__, at))
            key, test, *flags = kinds_of[part.start or 0]
            made: list[tuple[type[Event], tuple[list[Any], ...]]] = []
            steps: list[Any] = [None] * len(at)
            if not test:
                epoch, epochs = map(list, zip(*epoch_of[part], strict=True))
                n, of = map(self.n.__getitem__, at), list(map(self.of.__getitem__, at))
                steps = list(map(operator.add, map(operator.mul, of, map(
                    max, map(operator.sub, epoch, repeat(1)), repeat(0))), n))
                totals = list(map(operator.mul, of, map(max, epochs, repeat(1))))
                made.append((Progress, (steps, totals, epoch, epochs)))
            first, last, k = starts[rows[0]], starts[rows[-1]], len(self.names[key])
            for name, source in _plan(self.names[key], test, *flags):
                if isinstance(source, int):  # (every k-th where no line between has values)
                    column = (values[first + source:last + source + 1:k]
                              if last - first == k * (len(rows) - 1)
                              else [values[starts[i] + source] for i in rows])
                    if name.endswith("accuracy"):
                        column = list(map(round, map(operator.mul, column, repeat(100)),
                                          repeat(10)))
                else:
                    column = list(map(sources[source], rows))
                made.append((Metric, ([name] * len(at), column, steps)))
            return made

        return split_rows(self.run_id, [self.ts] * len(taken), kinds_of, kinds)


class Keras(Dialect):
    """Keras ``fit`` output, verbose 1 (bars) or 2 (a line per epoch)."""

    name = "keras"
    title = "Keras progress lines"
    needs = ("Epoch ", "/step", "ETA: ")
    # what the lines its sniff reads hold, with case (not "Epoch ", not mmengine's "eta: ")
    sniff_needs, sniff_cased = ("/step", "ETA: "), True
    fallback = True
    step_lines = _STEPS

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

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows]:
        """What ``feed`` gives of Keras's lines, the progress lines' as columns: the state
        (the epoch, evaluate()'s bars after its last step) followed line by line, the
        figures of lines alike read together."""
        block = _Block(self.run_id, columns, ts)
        lines, others, epochs_at, ofs_at = columns[2], columns[14], columns[0], columns[1]
        marks = [i for i, line in enumerate(lines) if not line]  # Epoch lines, others
        fed = [i for i in marks if others[i]]
        events: list[Event | Rows] = []
        state, ended = self._epoch, self._ended
        done = 0  # the marks acted on

        def act(upto: int) -> None:  # on the marks before ``upto``
            nonlocal state, ended, done
            if bisect_left(fed, marks[done]) == bisect_left(fed, marks[upto - 1] + 1):
                done, i = upto, marks[upto - 1]  # Epoch lines only: the last one counts
                state, ended = (int(epochs_at[i]), int(ofs_at[i])), ""
                return
            for i in marks[done:upto]:
                if others[i]:
                    events.extend(block.given())
                    self._epoch, self._ended = state, ended
                    events.extend(self.feed(others[i], ts))
                    state, ended = self._epoch, self._ended
                else:
                    state, ended = (int(epochs_at[i]), int(ofs_at[i])), ""
            done = upto

        taken, kinds_of, epoch_of = block.taken, block.kinds_of, block.epoch_of
        read, last, as_step, as_test = block.read, block.last, block.as_step, block.as_test
        for j, before in enumerate(map(bisect_right, repeat(marks), read)):
            if before != done:
                act(before)
                taken, kinds_of, epoch_of = block.taken, block.kinds_of, block.epoch_of
            if not ended:
                taken.append(j)
                kinds_of.append(as_step[j])
                epoch_of.append(state)
                if last[j] and state[0] > 0:
                    ended = lines[read[j]]
            elif lines[read[j]] != ended:
                taken.append(j)
                kinds_of.append(as_test[j])
                epoch_of.append(None)
        if done < len(marks):
            act(len(marks))
        self._epoch, self._ended = state, ended
        return events + block.given()

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any_line(text, ("/step", "ETA: "), _LINE)
