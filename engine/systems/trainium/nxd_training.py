"""NeuronX Distributed training examples' step lines.

``step 1 step_time 244.76s throughput 3.93 seq/s loss 13.41 grad norm 1.97`` (the Llama
pre-training examples, ``run_llama_nxd.py``): the step, its time, the throughput in
sequences per second, the loss and the gradient norm.
"""

from __future__ import annotations

import re

from accelbench.engine.events import Event, Metric, Phase, Progress, Throughput
from accelbench.engine.parsers import Dialect

_NUMBER = r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)"
_STEP = re.compile(rf"\bstep (\d+) step_time {_NUMBER}s throughput {_NUMBER} seq/s"
                   rf" loss {_NUMBER}(?: grad norm {_NUMBER})?")


class NxDTraining(Dialect):
    """NeuronX Distributed step lines: progress, loss, grad norm, step time, throughput."""

    name = "nxd_training"
    title = "NeuronX Distributed training steps"
    needs = (" step_time ",)

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._running = False

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
                   Metric(run, ts, "loss", float(m[4]), step),
                   Metric(run, ts, "step_time_s", float(m[2]), step)]
        if m[5] is not None:
            events.append(Metric(run, ts, "grad_norm", float(m[5]), step))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_STEP.search(text))
