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

import re

from accelbench.engine.core.events import Event, Metric, Progress
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import any_line

# "<percent>%|<bar>| <n>/<total> [<elapsed><<remaining>, <rate>, <postfix>]"; bar optional
_BAR = re.compile(r"(\d{1,3})%(?:\|[^|\r\n]*\|)?\s*(\d+)/(\d+) \[[\d:]+<[\d:?]+,\s*"
                  r"(?:([\d.]+)([a-zA-Z]+)/s|([\d.]+)s/([a-zA-Z]+)|\?[a-zA-Z]+/s),"
                  r"((?:\s*\w+=[^,\]]*,?)+)\]")
# the end of a description naming the epoch: "Epoch 0: ", "Training Epoch 1 / 5: "
_EPOCH = re.compile(r"Epoch (\d+)(?:\s*/\s*(\d+))?:\s*$")
_FIELD = re.compile(r"(\w+)=([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)$")
_REACHED = re.compile(r"Epoch \d+: (\w+) reached ([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?) \(best ")
_NOT_METRICS = frozenset({"v_num"})  # PyTorch Lightning's logger version, not a figure


class TqdmBar(Dialect):
    """tqdm bars with postfix fields (PyTorch Lightning's, a loop's ``set_postfix``)."""

    name = "tqdm"
    title = "tqdm progress bars"
    needs = ("<", " reached ")  # "[<elapsed><<remaining>" in every bar
    fallback = True

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
            step, total = int(m[2]), int(m[3])
            desc = _EPOCH.search(line, 0, m.start())
            epoch, epochs = (int(desc[1]), int(desc[2] or 0)) if desc else (0, 0)
            if self._step != (step, total, epoch, epochs):
                self._step = (step, total, epoch, epochs)
                events.append(Progress(self.run_id, ts, step, total, epoch, epochs))
            figures = [(f"{m[5]}_per_s", float(m[4]))] if m[4] else []
            if m[6] and float(m[6]):
                figures.append((f"{m[7]}_per_s", 1 / float(m[6])))
            for part in m[8].split(","):
                if (f := _FIELD.match(part.strip())) and f[1] not in _NOT_METRICS:
                    figures.append((f[1], float(f[2])))
            for name, value in figures:
                if self._last.get(name) != value:
                    self._last[name] = value
                    events.append(Metric(self.run_id, ts, name, value, step=step))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any_line(text, ("<",), _BAR, also="=")  # (a bar's postfix: ``key=value``)
