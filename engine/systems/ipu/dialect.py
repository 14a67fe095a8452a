"""Graphcore PopTorch output (a script such as ``mnist_poptorch.py`` under ``srun --ipus=N``).

Recognises Slurm's queue lines, the tqdm bars (``Graph compilation`` and ``Epochs`` with
their elapsed times, the unlabelled evaluation bar that follows training, and the
per-epoch ``[Epoch NN]: ...| n/N [..., X it/s, Loss=Y]`` bars of the PopTorch tutorials),
``Accuracy on test set: N%`` or ``Eval accuracy: N%``, poptorch's own MNIST example's
``loss at batch: N is tensor([...])`` and ``Training accuracy: X% from batch``, the
``Failed to acquire N IPU(s)`` / ``No IPU detected`` error and an environment variable
written after ``srun`` (``execve(): VAR=...: No such file or directory``). Bars and log
messages are often glued on one line, so everything is searched for, never anchored.
"""

from __future__ import annotations

import re

from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase, Progress
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.systems.ipu.examples import GraphcoreExamples

_QUEUED = lazy(r"srun: job (\d+) queued and waiting for resources")
_ALLOCATED = lazy(r"srun: job (\d+) has been allocated resources")
# A tqdm bar, labelled or not: "Epochs:  40%|████| 4/10 [...", " 97%|██████...".
_BAR = lazy(r"(?:(Epochs|Graph compilation):\s*)?(\d{1,3})%\|"
            r"(?:[^|]*\|\s*(\d+)/(\d+)(?: \[([\d:]+)<[^,\]]*(?:, *(\d+(?:\.\d+)?)s/it)?)?)?")
# "[Epoch 02]: 100%|██████████| 3750/3750 [00:09<00:00, 376.43it/s, Loss=0.775]"
_EPOCH_BAR = lazy(r"\[Epoch (\d+)\]:\s*\d{1,3}%\|[^|]*\|\s*(\d+)/(\d+) \[[^,\]]*"
                  r"(?:,\s*(\d+(?:\.\d+)?)(it/s|s/it))?(?:,\s*Loss=(\d+(?:\.\d+)?))?")
_ACCURACY = lazy(r"(?:Accuracy on test set|Eval accuracy):\s*(\d+(?:\.\d+)?)%")
# poptorch's examples/mnist.py: "PoptorchIPU loss at batch: 10 is tensor([0.5195, 0.3766])",
# "Training accuracy: 87.5% from batch of size 80"
_BATCH_LOSS = lazy(r"loss at batch: (\d+) is tensor\(\[([-\d., e]+)\]\)")
_TRAIN_ACCURACY = lazy(r"Training accuracy: (\d+(?:\.\d+)?)% from batch")
_POPTORCH = lazy("poptorch", re.IGNORECASE)  # (as ``in text.lower()``, not lowering it)
_ACQUIRE = lazy(r"Failed to acquire (\d+) IPU\(s\)")
_NO_IPU = lazy(r"No IPU detected in the system")
_ENV_AS_COMMAND = lazy(r"execve\(\): ([A-Za-z_]\w*)=.*: No such file or directory")


class PopTorch(Dialect):
    """Graphcore PopTorch training and evaluation output."""

    name = "poptorch"
    run_end = frozenset({"accuracy"})
    title = "Graphcore PopTorch"
    needs = ("srun: job ", "%|", "Accuracy on test set:", "Eval accuracy:", "Failed to acquire",
             "No IPU detected", "execve(): ", "loss at batch: ", "Training accuracy: ")
    # what a line sniff recognises holds (its own and Graphcore's examples'): a long log's
    # middle is sniffed on those lines, not on every bar ("%|")
    sniff_needs = ("Graph compilation:", "poptorch", "Failed to acquire",
                   "Compiled/Loaded model in", "total loss:", " of epoch ", "[INFO] throughput:",
                   "[INFO] Epoch ")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase: tuple[str, str] | None = None
        self._epochs: tuple[int, int] | None = None  # the Epochs bar's last (step, total)
        self._epoch_bar: tuple[int, int] | None = None  # an [Epoch NN] bar's last (epoch, n)
        self._epoch_bar_total = 0  # and its total
        self._wanted: int | None = None  # IPUs a "Failed to acquire" asked for, reason pending
        self._diagnosed = False

    def feed(self, line: str, ts: float) -> list[Event]:
        events = self._ipu_unavailable(line, ts)
        if m := _QUEUED.search(line):
            events += self._enter(ts, "queued", f"Slurm job {m[1]} waiting for resources")
        if m := _ALLOCATED.search(line):
            events += self._enter(ts, "starting", f"Slurm job {m[1]} allocated")
        for m in _BAR.finditer(line):
            events += self._bar(ts, *m.groups())
        for m in _EPOCH_BAR.finditer(line):
            events += self._epoch_bar_of(ts, *m.groups())
        if m := _ACCURACY.search(line):
            events.append(Metric(self.run_id, ts, "accuracy", float(m[1])))
        if m := _BATCH_LOSS.search(line):  # a loss per device iteration: their mean
            losses = [float(x) for x in m[2].split(",")]
            events.append(Metric(self.run_id, ts, "loss", sum(losses) / len(losses), int(m[1])))
        if m := _TRAIN_ACCURACY.search(line):
            events.append(Metric(self.run_id, ts, "train_accuracy", float(m[1])))
        if m := _ENV_AS_COMMAND.search(line):
            events.append(Diagnosis(
                self.run_id, ts, "env_before_command",
                f"srun took {m[1]}=... for the command to run: No such file or directory",
                f"set {m[1]} in the environment ([env] in the preset), not as text after srun"))
        return events

    def skipped(self, ts: float) -> list[Event]:
        return self._ipu_unavailable("", ts)  # a pending "Failed to acquire" has its reason

    def finish(self, ts: float) -> list[Event]:
        return self._ipu_unavailable("", ts)


    @classmethod
    def sniff(cls, text: str) -> bool:
        return ("Graph compilation:" in text or _POPTORCH.search(text) is not None
                or ("Failed to acquire" in text and "IPU" in text)
                or GraphcoreExamples.sniff(text))  # PopTorch programs: their srun lines

    def _enter(self, ts: float, name: str, detail: str = "") -> list[Event]:
        """A Phase, unless it repeats the last one."""
        if self._phase == (name, detail):
            return []
        self._phase = (name, detail)
        return [Phase(self.run_id, ts, name, detail)]

    def _bar(self, ts: float, label: str | None, percent: str, step: str | None,
             total: str | None, elapsed: str | None, per_step: str | None) -> list[Event]:
        if label == "Graph compilation":
            events = self._enter(ts, "compiling", f"graph compilation {int(percent)}%")
            # its time once, as it reaches 100%; the inference graph's once an epoch is done
            if elapsed and step == total and events:
                trained = (self._epochs and self._epochs[0] == self._epochs[1]) or (
                    self._epoch_bar and self._epoch_bar[1] == self._epoch_bar_total)
                name = "eval_graph_compile_time" if trained else "graph_compile_time"
                events.append(Metric(self.run_id, ts, name, _seconds(elapsed)))
            return events
        if label == "Epochs":
            events = self._enter(ts, "running")
            if step is not None and total is not None and self._epochs != (int(step), int(total)):
                self._epochs = done, of = int(step), int(total)
                events.append(Progress(self.run_id, ts, done, of, epoch=done, epochs=of))
                if elapsed and done == of:
                    events.append(Metric(self.run_id, ts, "epochs_time", _seconds(elapsed)))
                if per_step and done == of:  # "7.71s/it": the mean seconds of an epoch
                    events.append(Metric(self.run_id, ts, "epoch_seconds", float(per_step)))
            return events
        # An unlabelled bar once the epochs are done is the test loop.
        if self._epochs and self._epochs[0] == self._epochs[1]:
            return self._enter(ts, "evaluating")
        return []

    def _epoch_bar_of(self, ts: float, epoch: str, step: str, total: str, rate: str | None,
                      unit: str | None, loss: str | None) -> list[Event]:
        """An ``[Epoch NN]`` bar: steps of that epoch (the epochs are not printed), its
        iterations per second and running loss."""
        if self._epoch_bar == (int(epoch), int(step)):
            return []
        self._epoch_bar, self._epoch_bar_total = (int(epoch), int(step)), int(total)
        events = self._enter(ts, "running")
        events.append(Progress(self.run_id, ts, int(step), int(total), epoch=int(epoch)))
        if rate is not None and float(rate) > 0:
            per_s = float(rate) if unit == "it/s" else 1 / float(rate)
            events.append(Metric(self.run_id, ts, "iterations_per_s", per_s))
        if loss is not None:
            events.append(Metric(self.run_id, ts, "loss", float(loss)))
        return events

    def _ipu_unavailable(self, line: str, ts: float) -> list[Event]:
        """The one ipu_unavailable diagnosis: "Failed to acquire N IPU(s)", then its reason."""
        if self._diagnosed:
            return []
        acquire, no_ipu = _ACQUIRE.search(line), _NO_IPU.search(line)
        if acquire:
            self._wanted = int(acquire[1])
            if not no_ipu:
                return []  # the reason comes on the next line
        elif self._wanted is None and not no_ipu:
            return []
        n = self._wanted or 1
        parts = [f"Failed to acquire {n} IPU(s)"] if self._wanted else []
        parts += ["no IPU detected"] if no_ipu else []
        self._diagnosed, self._wanted = True, None
        return [Diagnosis(self.run_id, ts, "ipu_unavailable", ": ".join(parts),
                          f"run it through Slurm: srun --ipus={n} python ...")]


def _seconds(elapsed: str) -> float:
    """Seconds of a tqdm elapsed time: ``MM:SS`` or ``H:MM:SS``."""
    seconds = 0.0
    for part in elapsed.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds
