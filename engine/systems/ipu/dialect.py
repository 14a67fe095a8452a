"""Graphcore PopTorch output (a script such as ``mnist_poptorch.py`` under ``srun --ipus=N``).

Recognises Slurm's queue lines, the tqdm bars (``Graph compilation``, ``Epochs`` and the
unlabelled evaluation bar that follows training), ``Accuracy on test set: N%``, the
``Failed to acquire N IPU(s)`` / ``No IPU detected`` error and an environment variable
written after ``srun`` (``execve(): VAR=...: No such file or directory``). Bars and log
messages are often glued on one line, so everything is searched for, never anchored.
"""

from __future__ import annotations

import re

from accelbench.engine.events import Diagnosis, Event, Metric, Phase, Progress
from accelbench.engine.parsers import Dialect

_QUEUED = re.compile(r"srun: job (\d+) queued and waiting for resources")
_ALLOCATED = re.compile(r"srun: job (\d+) has been allocated resources")
# A tqdm bar, labelled or not: "Epochs:  40%|████| 4/10 [...", " 97%|██████...".
_BAR = re.compile(r"(?:(Epochs|Graph compilation):\s*)?(\d{1,3})%\|(?:[^|]*\|\s*(\d+)/(\d+))?")
_ACCURACY = re.compile(r"Accuracy on test set:\s*(\d+(?:\.\d+)?)%")
_ACQUIRE = re.compile(r"Failed to acquire (\d+) IPU\(s\)")
_NO_IPU = re.compile(r"No IPU detected in the system")
_ENV_AS_COMMAND = re.compile(r"execve\(\): ([A-Za-z_]\w*)=.*: No such file or directory")


class PopTorch(Dialect):
    """Graphcore PopTorch training and evaluation output."""

    name = "poptorch"
    run_end = frozenset({"accuracy"})
    title = "Graphcore PopTorch"
    needs = ("srun: job ", "%|", "Accuracy on test set:", "Failed to acquire", "No IPU detected",
             "execve(): ")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase: tuple[str, str] | None = None
        self._epochs: tuple[int, int] | None = None  # the Epochs bar's last (step, total)
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
        if m := _ACCURACY.search(line):
            events.append(Metric(self.run_id, ts, "accuracy", float(m[1])))
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

    sniff_needs = ("Graph compilation:", "poptorch", "Failed to acquire", "IPU")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return ("Graph compilation:" in text or "poptorch" in text.lower()
                or ("Failed to acquire" in text and "IPU" in text))

    def _enter(self, ts: float, name: str, detail: str = "") -> list[Event]:
        """A Phase, unless it repeats the last one."""
        if self._phase == (name, detail):
            return []
        self._phase = (name, detail)
        return [Phase(self.run_id, ts, name, detail)]

    def _bar(self, ts: float, label: str | None, percent: str, step: str | None,
             total: str | None) -> list[Event]:
        if label == "Graph compilation":
            return self._enter(ts, "compiling", f"graph compilation {int(percent)}%")
        if label == "Epochs":
            events = self._enter(ts, "running")
            if step is not None and total is not None and self._epochs != (int(step), int(total)):
                self._epochs = done, of = int(step), int(total)
                events.append(Progress(self.run_id, ts, done, of, epoch=done, epochs=of))
            return events
        # An unlabelled bar once the epochs are done is the test loop.
        if self._epochs and self._epochs[0] == self._epochs[1]:
            return self._enter(ts, "evaluating")
        return []

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
