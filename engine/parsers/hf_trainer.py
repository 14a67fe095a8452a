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
import re

from accelbench.engine.core.events import Event, Metric, Progress, finite
from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.failures import LOSS_NOT_FINITE, diverged
from accelbench.engine.reading.vocabulary import metric_name

_LOG_DICT = re.compile(r"\{'[^{}]*\}")
_NOT_FINITE = re.compile(r"(:\s*)(-?(?:nan|inf))(?=\s*[,}])")
_BAR = re.compile(r"(?<![\w./])(\d+)/(\d+) \[(?:\d+:)?\d+:\d+<[^\]]*(?:s/it|it/s)\]")
# a log dict of numbers only (as most are), read without ``ast.literal_eval``: the same dict
_NUM = r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|0|[1-9][0-9]*)(?:[eE][-+]?[0-9]+)?"  # (ASCII: as Python)
_FLAT = re.compile(rf"\{{'[^'\\\n\r\x00]*': {_NUM}(?:, '[^'\\\n\r\x00]*': {_NUM})*\}}")
_FLAT_ENTRY = re.compile(rf"'([^'\\\n]*)': ({_NUM})")
_LOG_KEYS = {"epoch", "loss", "eval_loss", "train_runtime"}
_BLOCK = re.compile(r"^\*{5} (\w+) metrics \*{5}$")
_ENTRY = re.compile(r"^\s+(\w+)\s+=\s+(\S.*)$")
_DURATION = re.compile(r"^(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")
_GIGAFLOS = re.compile(r"^(\d+)GF$")
_ACCURACY = re.compile(r"^Accuracy:\s*(?:[\d.]+\s*\()?([\d.]+)%\)?$")
_STOCHASTIC = re.compile(r"^Stochastic Rounding on acc:\s*([\d.]+)%$")
_SNIFF = re.compile(r"^\*{5} train metrics \*{5}$|\{'(?:loss|train_runtime)': ", re.M)


def _number(value: object) -> float | None:
    """``value`` as a float if it is a number or a numeric string, else None."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


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
    needs = ("=", "*****", "{'", "Accuracy:", "Stochastic Rounding on acc:", "s/it]", "it/s]")

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
            if m := _ENTRY.match(line):
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

    def skipped(self, ts: float) -> list[Event]:
        self._in_block = False  # a metrics block ends at its first other line
        return []

    def _log_dict(self, text: str, ts: float) -> list[Event]:
        """A Metric for each finite numeric entry of a Trainer log dict but ``epoch`` (a
        Progress); the first ``nan`` or ``inf`` loss of the run is a diagnosis."""
        text = _NOT_FINITE.sub(r"\1'\2'", text)
        if _FLAT.fullmatch(text):
            logs = {key: float(number) if number.strip("-0123456789") else int(number)
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
                events.append(self._metric(ts, metric_name(key), value))
            elif key.endswith("loss") and not self._diverged:
                self._diverged = True
                events.append(diverged(self.run_id, ts, key, raw))
        return events

    sniff_needs = ("*****", "{'")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
