"""The Hugging Face Trainer's console output.

Four kinds of line: the log dicts printed while training
(``{'loss': 0.6929, 'learning_rate': 4.9e-05, 'epoch': 0.42}``; transformers 5
prints the values as strings; a diverged run prints ``nan`` or ``inf``; TRL's and
axolotl's keys hold ``/``: ``rewards/margins`` is the metric ``rewards_margins``), the
``***** train metrics *****`` blocks of ``key = value`` lines, the ``Accuracy: ...``
lines of BERT examples, and the tqdm step bars (``100%|████| 10/10 [00:36<00:00,
1.94s/it]``; optimum-neuron's bars are often cut into by other output). A dict's
``epoch`` is the progress's epoch, at the last bar's step (the bars after it carry it on).
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Any, NamedTuple

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import MAX_NUMBER, Event, Metric, Progress, finite
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.steps import StepLines
from accelbench.engine.reading.failures import LOSS_NOT_FINITE, diverged
from accelbench.engine.reading.vocabulary import metric_name

_metric_name = functools.lru_cache(maxsize=1024)(metric_name)  # (a log's keys are few)
_LOG_DICT = lazy(r"\{'[^{}]*\}")
_NOT_FINITE = lazy(r"(:\s*)(-?(?:nan|inf))(?=\s*[,}])")
_BAR = lazy(r"(?<![\w./])(\d+)/(\d+) \[(?:\d+:)?\d+:\d+<[^\]]*(?:s/it|it/s)\]")
# a log dict of numbers only (as most are), read without ``ast.literal_eval``: the same dict
_NUM = r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|0|[1-9][0-9]*)(?:[eE][-+]?[0-9]+)?"  # (ASCII: as Python)
_FLAT_VALUE = rf"(?:{_NUM}|'-?(?:nan|inf)')"  # (a nan or inf quoted: ``_NOT_FINITE``)
_FLAT = lazy(rf"\{{'[^'\\\n\r\x00]*': {_FLAT_VALUE}(?:, '[^'\\\n\r\x00]*': "
             rf"{_FLAT_VALUE})*\}}")
_FLAT_ENTRY = lazy(rf"'([^'\\\n]*)': ({_NUM}|'-?(?:nan|inf)')")
_LOG_KEYS = {"epoch", "loss", "eval_loss", "train_runtime"}
# The lines holding a log dict, read as columns: the text before the dict (a line with
# some is fed) and the dict on. In those, each value of a flat dict (``_FLAT``) masked, a
# number as ``\x00``, a ``nan`` or ``inf`` as ``\x01``, leaves the dict's shape: its keys
_STEPS = StepLines("{'", lazy(r"(?m)^([^\n]*?)(\{'[^\n]*)$"), (None, None))
_VALUE = lazy(rf"': {_NUM}(?=, '|\}})")
_NOT_A_NUMBER = lazy(r"': -?(?:nan|inf)(?=, '|\})")
_ANY_VALUE = lazy(rf"': ({_NUM}|-?(?:nan|inf))(?=, '|\}})")
_SHAPE = lazy(r"\{'[^'\\\n\r\x00\x01]*': [\x00\x01](?:, '[^'\\\n\r\x00\x01]*': "
              r"[\x00\x01])*\}")
_SHAPE_KEY = lazy(r"'([^'\\\n\r\x00\x01]*)': [\x00\x01]")
_BLOCK = lazy(r"^\*{5} (\w+) metrics \*{5}$")
_ENTRY = lazy(r"^\s+(\w+)\s+=\s+(\S.*)$")
_DURATION = lazy(r"^(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")
_GIGAFLOS = lazy(r"^(\d+)GF$")
_ACCURACY = lazy(r"^Accuracy:\s*(?:[\d.]+\s*\()?([\d.]+)%\)?$")
_STOCHASTIC = lazy(r"^Stochastic Rounding on acc:\s*([\d.]+)%$")
_SNIFF = lazy(r"^\*{5} train metrics \*{5}$|\{'(?:loss|train_runtime)': ", re.M)


def _number(value: object) -> float | None:
    """``value`` as a float if it is a number or a numeric string, else None."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


class _Shape(NamedTuple):
    """A log dict's shape read: its number of values; the places of its numbers; for
    each of those, the metric it is (None: the epoch); whether it is a log (``_LOG_KEYS``);
    whether a loss of it is no number (diagnosed the first time)."""

    width: int
    numbers: tuple[int, ...]
    names: tuple[str | None, ...]
    log: bool
    loss_nan: bool


@functools.lru_cache(maxsize=256)
def _shape(shape: str) -> _Shape | None:
    """The shape of log dicts whose values, masked, leave ``shape``, where its lines are
    read as columns: a flat dict of distinct keys, none read otherwise by ``feed``
    (``_NOT_FINITE``); else None."""
    if not _SHAPE.fullmatch(shape) or _NOT_FINITE.search(shape):
        return None
    keys = _SHAPE_KEY.findall(shape)
    if len(set(keys)) != len(keys):
        return None
    marks = [mark for mark in shape if mark in "\x00\x01"]
    numbers = tuple(i for i, mark in enumerate(marks) if mark == "\x00")
    return _Shape(len(keys), numbers, tuple(
        None if keys[i] == "epoch" else _metric_name(keys[i]) for i in numbers),
        bool(_LOG_KEYS.intersection(keys)),
        any(key.endswith("loss") and mark == "\x01" for key, mark in zip(keys, marks,
                                                                          strict=True)))


def _entry(key: str, text: str) -> tuple[str, float] | None:
    """The metric of a ``key = text`` block line: durations in seconds, ``GF`` kept in GF."""
    if m := _DURATION.match(text):
        days, hours, minutes, seconds = m.groups()
        return key, ((int(days or 0) * 24 + int(hours)) * 60 + int(minutes)) * 60 + float(seconds)
    if m := _GIGAFLOS.match(text):
        return f"{key}_gf", float(m[1])
    value = _number(text)
    return None if value is None else (key, value)


class HFTrainer(Dialect):
    """Hugging Face ``Trainer`` logs: log dicts, metrics blocks, accuracy lines."""

    name = "hf_trainer"
    title = "Hugging Face Trainer"
    success = frozenset({"train_runtime"})  # the Trainer's last figures, once training ended
    warnings = frozenset({LOSS_NOT_FINITE})  # training went on to its end
    step_lines = _STEPS
    # (a block's entries hold " = ": the Trainer prints ``f"  {key: <{width}} = {value}"``)
    needs = (" = ", "*****", "{'", "Accuracy:", "Stochastic Rounding on acc:", "s/it]", "it/s]")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._in_block = False
        self._diverged = False
        self._step = self._total = 0  # the last bar's
        self._epoch = 0.0  # the last dict's

    def _metric(self, ts: float, name: str, value: float) -> Metric:
        return Metric(self.run_id, ts, name, value)

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.rstrip()
        if self._in_block:
            if " = " in line and (m := _ENTRY.match(line)):
                entry = _entry(m[1], m[2])
                return [self._metric(ts, *entry)] if entry else []
            self._in_block = False
        stripped = line.strip()
        if _BLOCK.match(stripped):
            self._in_block = True
            return []
        logs = _LOG_DICT.search(line)
        events = self._log_dict(logs[0], ts) if logs else []
        if bar := _BAR.search(line, logs.end() if logs else 0):  # also a bar cut in after
            self._step, self._total = int(bar[1]), int(bar[2])
            events.append(Progress(self.run_id, ts, self._step, self._total, self._epoch))
        if logs or bar:
            return events
        if m := _ACCURACY.match(stripped):
            return [self._metric(ts, "accuracy", float(m[1]))]
        if m := _STOCHASTIC.match(stripped):
            return [self._metric(ts, "accuracy_stochastic_rounding", float(m[1]))]
        return []

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows] | None:
        """What ``feed`` gives of lines holding a log dict: each run of flat dicts of the
        same shape (``_shape``) whose numbers are all finite, as columns; any other line
        fed."""
        leads, dicts = columns
        joined = "\n".join(dicts)
        if "\x00" in joined or "\x01" in joined or "': -0," in joined or "': -0}" in joined:
            return self._fed(leads, dicts, range(len(dicts)), ts)  # (-0: an int, so 0.0)
        masked = _VALUE.sub("': \x00", _NOT_A_NUMBER.sub("': \x01", joined)).split("\n")
        values = _ANY_VALUE.findall(joined)
        shapes = masked if not any(leads) else [
            shape if not lead else "" for shape, lead in zip(masked, leads, strict=True)]
        ends = [i for i in range(1, len(shapes)) if shapes[i] != shapes[i - 1]]
        ends.append(len(shapes))
        events: list[Event | Rows] = []
        line = done = 0  # the run's first line; its first value
        for end in ends:
            read, n = _shape(shapes[line]), end - line
            if read is None:
                events += self._fed(leads, dicts, range(line, end), ts)
                done += sum(masked[i].count("\x00") + masked[i].count("\x01")
                            for i in range(line, end))
                line = end
                continue
            width = read.width
            texts = values[done:done + n * width]
            figures = [list(map(float, texts[i::width])) for i in read.numbers]
            if not all(min(column) >= -MAX_NUMBER and max(column) <= MAX_NUMBER
                       for column in figures):
                events += self._fed(leads, dicts, range(line, end), ts)
            else:
                self._in_block = False
                if read.log:
                    first = 0  # (a loss that is no number, the first one: fed, diagnosed)
                    if read.loss_nan and not self._diverged:
                        events += self.feed(dicts[line], ts)
                        first = 1
                    if first < n and read.numbers:
                        events.append(self._rows(read.names, figures, first, n, ts))
            line = end
            done += n * width
        return events

    def _fed(self, leads: list[str], dicts: list[str], lines: range, ts: float
             ) -> list[Event | Rows]:
        """``feed`` of each of ``lines``."""
        return [event for i in lines for event in self.feed(leads[i] + dicts[i], ts)]

    def _rows(self, names: tuple[str | None, ...], figures: list[list[float]], first: int,
              n: int, ts: float) -> Rows:
        """The events of lines ``first`` to ``n`` of log dicts whose numbers are
        ``figures`` (a column each: the metric ``names``, None the epoch), as ``_log_dict``
        gives them."""
        if first:
            figures = [column[first:] for column in figures]
            n -= first
        none = [None] * n
        kinds: list[tuple[type[Event], tuple[list[Any], ...]]] = []
        for name, column in zip(names, figures, strict=True):
            if name is None:
                self._epoch = column[-1]
                kinds.append((Progress, ([self._step] * n, [self._total] * n, column, [0] * n)))
            else:
                kinds.append((Metric, ([name] * n, column, none)))
        return Rows(self.run_id, [ts] * n, kinds)

    def skipped(self, ts: float) -> list[Event]:
        self._in_block = False  # a metrics block ends at its first other line
        return []

    def _log_dict(self, text: str, ts: float) -> list[Event]:
        """A Metric for each finite numeric entry of a Trainer log dict but ``epoch`` (a
        Progress); the first ``nan`` or ``inf`` loss of the run is a diagnosis."""
        text = _NOT_FINITE.sub(r"\1'\2'", text)
        if _FLAT.fullmatch(text):
            logs = {key: number.strip("'") if number[0] == "'" else float(number)
                    if number.strip("-0123456789") else int(number)
                    for key, number in _FLAT_ENTRY.findall(text)}
        else:
            try:
                logs = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return []
        if not isinstance(logs, dict) or not _LOG_KEYS & logs.keys():
            return []
        events: list[Event] = []
        for key, raw in logs.items():
            value = _number(raw)
            if value is None:
                continue
            if key == "epoch":
                if finite(value):
                    self._epoch = value
                    events.append(Progress(self.run_id, ts, self._step, self._total, value))
            elif finite(value):  # (1e200 too is a loss that blew up: no event holds it)
                events.append(self._metric(ts, _metric_name(key), value))
            elif key.endswith("loss") and not self._diverged:
                self._diverged = True
                events.append(diverged(self.run_id, ts, key, raw))
        return events

    sniff_needs = ("*****", "{'")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
