"""tqdm progress bars that carry postfix fields, as training loops print them.

``Epoch 0:  11%|█    | 2/18 [00:11<01:33,  5.82s/it, loss=10.224, v_num=193315]`` (the
bar glyphs may be missing, as in notebooks). Only bars with ``key=value`` postfix fields are
read: a bare bar is as often a download, a dataset map or a compilation as training, and a
system's dialect reads its own bars (``Dialect.fallback``). A bar gives its step and total
(with the epoch its description names, as printed: Lightning counts from 0), its rate
(``it_per_s``; ``s/it`` inverted) and each numeric field as a metric, a figure only when
it changed: a bar is redrawn many times with the same values. Lightning's checkpoint
message, often glued to a bar (``Epoch 00000: val_loss reached 0.67374 (best 0.67374),
saving model to ...``), gives the monitored metric.
"""

from __future__ import annotations

from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Event, Metric, Progress
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import any_line
from accelbench.engine.parsers.steps import StepLines

# "<percent>%|<bar>| <n>/<total> [<elapsed><<remaining>, <rate>, <postfix>]"; bar optional
_BAR = lazy(r"(\d{1,3})%(?:\|[^|\r\n]*\|)?\s*(\d+)/(\d+) \[[\d:]+<[\d:?]+,\s*"
            r"(?:([\d.]+)([a-zA-Z]+)/s|([\d.]+)s/([a-zA-Z]+)|\?[a-zA-Z]+/s),"
            r"((?:\s*\w+=[^,\]]*,?)+)\]")
# the end of a description naming the epoch: "Epoch 0: ", "Training Epoch 1 / 5: "
_EPOCH = lazy(r"Epoch (\d+)(?:\s*/\s*(\d+))?:\s*$")
_NUMBER = r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?"
# the numeric fields of a postfix: each ``key=number`` between its commas, blanks aside
_FIELDS = lazy(rf"(?:^|,)[^\S\n]*(\w+)=({_NUMBER})[^\S\n]*(?=,|$)")
_REACHED = lazy(r"Epoch \d+: (\w+) reached ([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?) \(best ")
_NOT_METRICS = frozenset({"v_num"})  # PyTorch Lightning's logger version, not a figure
# Every line of tqdm's literals read at once (none holding " reached "): a bar with a
# postfix, alone in its line but for a description before it (no "<" in it; the epoch it
# names where it ends the description) and blanks after it (its step and total, rate or
# time per unit, postfix: as _BAR reads them, a rate's number one float reads); a bar
# without a postfix, no second comma in its brackets (no groups: no figures); any other
# line as text (fed)
_STEPS = StepLines("<", lazy(
    r"(?m)^(?:(?![^\n]* reached )[^<\n]*?(?:"
    r"(?:Epoch (\d+)(?:[^\S\n]*/[^\S\n]*(\d+))?:[^\S\n]*)?\d{1,3}%(?:\|[^|\r\n]*\|)?"
    r"[^\S\n]*(\d+)/(\d+) \[[\d:]+<[\d:?]+,[^\S\n]*(?:(\d+\.?\d*)([a-zA-Z]+)/s|"
    r"(\d+\.?\d*)s/([a-zA-Z]+)|\?[a-zA-Z]+/s),((?:[^\S\n]*\w+=[^,\]\n]*,?)+)\]|"
    r"\d{1,3}%(?:\|[^|\r\n]*\|)?[^\S\n]*\d+/\d+ \[[\d:]+<[\d:?]+,[^,\]\n]*\])"
    r"[^\S\n]*|([^\n]+))$"), (None,) * 10, also=(" reached ",))


class TqdmBar(Dialect):
    """tqdm bars with postfix fields (PyTorch Lightning's, a loop's ``set_postfix``)."""

    name = "tqdm"
    title = "tqdm progress bars"
    needs = ("<", " reached ")  # "[<elapsed><<remaining>" in every bar
    fallback = True
    step_lines = _STEPS

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._last: dict[str, float] = {}
        self._step: tuple[int, int, int, int] | None = None

    def feed(self, line: str, ts: float) -> list[Event]:
        events: list[Event] = []
        if m := _REACHED.search(line):
            events.append(Metric(self.run_id, ts, m[1], float(m[2]),
                                 step=self._step[0] if self._step else None))
        for m in _BAR.finditer(line):
            desc = _EPOCH.search(line, 0, m.start())
            events += self._bar(desc[1] if desc else "", desc[2] if desc else "",
                                m[2], m[3], m[4], m[5], m[6], m[7], m[8], ts)
        return events

    def _bar(self, epoch: str, epochs: str, step: str, total: str, rate: str | None,
             unit: str | None, per: str | None, per_unit: str | None, postfix: str,
             ts: float, read: dict[str, list[tuple[str, float]]] | None = None
             ) -> list[Event]:
        """The events of a bar, from the texts _BAR reads of it (its epoch and epochs
        from its description, '' where it names none; a group that took no part: None
        or ''); ``read``: the fields of the postfixes read so far (a redrawn bar repeats
        its postfix)."""
        events: list[Event] = []
        at = (int(step), int(total), int(epoch) if epoch else 0,
              int(epochs) if epoch and epochs else 0)
        if self._step != at:
            self._step = at
            events.append(Progress(self.run_id, ts, *at))
        figures = [(f"{unit}_per_s", float(rate))] if rate else []
        if per and float(per):
            figures.append((f"{per_unit}_per_s", 1 / float(per)))
        if read is None or (fields := read.get(postfix)) is None:
            fields = [(name, float(value)) for name, value in _FIELDS.findall(postfix)
                      if name not in _NOT_METRICS]
            if read is not None:
                read[postfix] = fields
        for name, value in figures + fields:
            if self._last.get(name) != value:
                self._last[name] = value
                events.append(Metric(self.run_id, ts, name, value, step=at[0]))
        return events

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows] | None:
        """What ``feed`` gives of tqdm's lines: each bar's figures from its groups, the
        other lines fed; None where a number is none to Python (400 digits)."""
        events: list[Event | Rows] = []
        bar, feed, saved = self._bar, self.feed, (self._step, dict(self._last))
        read: dict[str, list[tuple[str, float]]] = {}  # each postfix's fields, this block
        try:
            for epoch, epochs, step, total, rate, unit, per, per_unit, postfix, other in (
                    zip(*columns, strict=True)):
                if step:
                    events += bar(epoch, epochs, step, total, rate, unit, per, per_unit,
                                  postfix, ts, read)
                elif other:
                    events += feed(other, ts)
        except ValueError:
            self._step, self._last = saved
            return None
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any_line(text, ("<",), _BAR, also="=")  # (a bar's postfix: ``key=value``)
