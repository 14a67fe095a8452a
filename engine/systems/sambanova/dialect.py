"""SambaNova's BERT-Large scripts (``BertLarge_compile.sh`` / ``BertLarge_run.sh``).

The compile script marks its steps with ``COMPILE START AT <s>`` and ``RUN``; the
run's ``transformers_hook.py`` logs step lines (``...|global_step:501|average_loss:
8.34513|...``, after a tqdm ``Iteration: ... 500/2549`` bar) and ends with a summary
dict, ``{'e2e_train_time': 457.09, 'training_sequences_per_second': ..., 'final_loss':
..., 'training_samples_per_second': ...}``. The summary figures are also read in the
``key: value`` / ``key = value`` forms people copy them into notes with.

SambaFlow's starter apps (ALCF's ``ffn_mnist.py`` logs) print ``[info] Compilation
succeeded.`` (``... for partition ...`` in later releases), ``Epoch [1/1], Step
[10000/60000], Loss: 0.5563``, ``Test Accuracy: 94.50 Loss: 0.1905`` and
``e2e_throughput: 1898.65 samples/s``; the UNet data-parallel app, one line per instance,
``inner train loop time : 36.31 for 10 epochs, number of global steps: 10, e2e
samples_per_sec: 563.97``. A summary's ``e2e_train_time`` ends a run. An app's
``AssertionError: ...`` is the run's failure. Lines stamped ``2024-04-03 09:39:54,427 -``
or ``2021-6-10 14:54:47 :`` carry their own time (local time, as Python's logging writes
it).
"""

from __future__ import annotations

import operator
import re
from itertools import repeat
from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase, Progress, Throughput
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.logclock import local_time, stamps_times
from accelbench.engine.parsers.steps import StepLines, optional, whole

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_SUMMARY = lazy(r"\b(e2e_train_time|training_sequences_per_second|final_loss|"
                rf"training_samples_per_second)['\"]?\s*[:=]\s*({_NUMBER})")
_STEP = lazy(rf"\|global_step:(\d+)\|average_loss:({_NUMBER})")
_ITERATION = lazy(r"Iteration:.*?\|\s*(\d+)/(\d+) \[")
_COMPILE = lazy(r"^COMPILE START AT \d+")
_RUN = lazy(r"^RUN(?: COMMAND:|$)")
_BAD_CONFIG = lazy(r"\berror\b.*(?:requested node configuration is not available|"
                   r"invalid (?:\w+ )?configuration)", re.I)
_MIN_THROUGHPUT = lazy(r"Expected throughput to be at least ([\d.]+), instead found ([\d.]+)")
_NO_PEF = lazy(r"(?<!\S)(\S+\.pef) does not exist")  # (?<!\S): linear time
_COMPILED = lazy(r"Compilation succeeded(?: for partition[ _]?(\S+))?")
_EPOCH_STEP = lazy(rf"Epoch \[(\d+)/(\d+)\], Step \[(\d+)/(\d+)\], Loss: ({_NUMBER})")
_TEST = lazy(rf"Test Accuracy: ({_NUMBER}) Loss: ({_NUMBER})")
_E2E = lazy(rf"e2e_throughput: ({_NUMBER}) samples/s")
_INNER = lazy(rf"inner train loop time : ({_NUMBER}) for (\d+) epochs, number of global"
              rf" steps: (\d+), e2e samples_per_sec: ({_NUMBER})")
_ASSERTION = lazy(r"^AssertionError: (.*\S)")
_STAMP = lazy(r"(\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2})(?:,(\d{3}))? [-:] ")
_SNIFF = lazy(r"training_sequences_per_second|e2e_train_time|\[SAMBA\]|SambaConnector|"
              r"inner train loop time : ")


def _seconds(stamp: str) -> float:
    """Epoch seconds of a ``Y-M-D H:M:S`` stamp (its fields maybe not zero-padded) read
    as local time; an impossible date (month 13) as the epoch's start."""
    return local_time(stamp) or 0.0


def _stamps_times(stamps: list[str]) -> list[float]:
    """``_seconds`` of each of ``stamps``, in order (zero-padded ones many at once)."""
    if all(map((19).__eq__, map(len, stamps))):
        return stamps_times(stamps)
    return list(map(_seconds, stamps))


def line_time(line: str) -> float | None:
    """The time a SambaNova log line is stamped with, if it is."""
    m = _STAMP.search(line) if "-" in line else None
    return _seconds(m[1]) + int(m[2] or 0) / 1000 if m else None


# The MLPerf step lines: a bar first (nothing before it but blanks and a pasted ``^M``,
# no digit in its glyphs), then the first stamp, then the global step: the first of each in
# the line, as feed finds them; none holding a summary's key or an ``Epoch [`` (feed reads
# those otherwise)
_STEPS = StepLines("|global_step:", lazy(
    r"(?m)^[^\S\n]*(?:\^M)?[^\S\n]*Iteration:[^\S\n]*\d{1,3}%\|[^|\n\d]*\|[^\S\n]*(\d+)/(\d+) \["
    r"[^\n]*?" + _STAMP.pattern + r"[^\n]*?" + _STEP.pattern),
    (int, int, whole(_stamps_times), optional(int), int, float),
    without=("e2e_train_time", "training_sequences_per_second", "final_loss",
             "training_samples_per_second", "Epoch ["))


class SambaNova(Dialect):
    """SambaNova BERT-Large logs: compile/run phases, steps, summary figures, failures."""

    name = "sambanova"
    run_end = frozenset({"training_samples_per_second"})
    success = frozenset({"e2e_train_time"})  # the summary a finished run prints
    title = "SambaNova SambaFlow"
    needs = ("e2e_train_time", "training_sequences_per_second", "final_loss",
             "training_samples_per_second", "|global_step:", "Iteration:", "COMPILE START AT",
             "RUN", "NLP app finished", "Expected throughput", ".pef does not exist",
             "Compilation succeeded", "Epoch [", "Test Accuracy: ", "e2e_throughput: ",
             "inner train loop time : ", "AssertionError: ", "SambaConnector", " - info ",
             " - warning ")
    needs_nocase = ("error",)  # _BAD_CONFIG is case-insensitive
    step_lines = _STEPS

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase = ""
        self._stamp = 0.0

    def _enter(self, ts: float, name: str, detail: str = "") -> list[Event]:
        """A Phase event, unless the run is already in phase ``name``."""
        if self._phase == name:
            return []
        self._phase = name
        return [Phase(self.run_id, ts, name, detail)]

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.strip().removeprefix("^M")  # a carriage return pasted as text
        run = self.run_id
        stamped = line_time(line)
        self._stamp = stamped or self._stamp
        ts = stamped or ts or self._stamp  # an imported log's unstamped lines: the last stamp
        if ("e2e_train_time" in line or "_per_second" in line or "final_loss" in line) and (
                summary := _SUMMARY.findall(line)):
            return [Metric(run, ts, key, float(value)) for key, value in summary]
        events: list[Event] = []
        if "Iteration:" in line and (m := _ITERATION.search(line)):
            events.append(Progress(run, ts, int(m[1]), int(m[2])))
        if "|global_step:" in line and (m := _STEP.search(line)):
            events += self._enter(ts, "running")
            events.append(Metric(run, ts, "loss", float(m[2]), int(m[1])))
        if "Epoch [" in line and (m := _EPOCH_STEP.search(line)):
            epoch, epochs, step, total = (int(m[i]) for i in range(1, 5))
            events += self._enter(ts, "running")
            events += [Progress(run, ts, step, total, epoch=epoch, epochs=epochs),
                       Metric(run, ts, "loss", float(m[5]), step)]
        if events:
            return events
        if "Compilation succeeded" in line and (m := _COMPILED.search(line)):
            return self._enter(ts, "compiling", "compilation succeeded"
                               + (f" for partition {m[1]}" if m[1] else ""))
        if "Test Accuracy: " in line and (m := _TEST.search(line)):
            return [Metric(run, ts, "accuracy", float(m[1])),
                    Metric(run, ts, "test_loss", float(m[2]))]
        if "inner train loop time : " in line and (m := _INNER.search(line)):  # one
            # instance's loop: its time and throughput
            return [*self._enter(ts, "running"),
                    Metric(run, ts, "train_loop_time_s", float(m[1]), int(m[3])),
                    Throughput(run, ts, float(m[4]), int(m[3]))]
        if "e2e_throughput: " in line and (m := _E2E.search(line)):
            return [Throughput(run, ts, float(m[1]))]
        if line.startswith("COMPILE START AT ") and _COMPILE.match(line):
            return self._enter(ts, "compiling", "compiling the PEF")
        if line.startswith("RUN") and _RUN.match(line):
            return self._enter(ts, "starting", "run step")
        if "NLP app finished" in line:
            return self._enter(ts, "completing", "training finished")
        if "gurat" in line.lower() and _BAD_CONFIG.search(line):  # ("configuration":
            # its letters but i, which also matches a dotless i)
            return [Diagnosis(run, ts, "slurm_invalid_configuration", line,
                              "ntasks must not exceed ntasks_per_node × nodes")]
        if "Expected throughput" in line and (m := _MIN_THROUGHPUT.search(line)):
            return [Diagnosis(run, ts, "sambanova_min_throughput", line,
                              f"the run asserts --min_throughput {m[1]}; fewer tasks or RDUs "
                              "give less: lower it to match the configuration")]
        if ".pef does not exist" in line and (m := _NO_PEF.search(line)):
            return [Diagnosis(run, ts, "sambanova_no_pef", line,
                              f"compile first: the run needs {m[1]}")]
        if line.startswith("AssertionError: ") and (m := _ASSERTION.match(line)):
            return [Diagnosis(run, ts, "assertion_failed", line,
                              "the app's own check failed: read the assertion above it")]
        return []

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows]:
        """What ``feed`` gives of MLPerf step lines, as columns: each a Progress of its bar
        and the loss at its global step (the first line's before it, where it starts the
        running phase)."""
        iterations, totals, seconds, millis, steps, losses = columns
        times = list(map(operator.add, seconds,
                         map(operator.truediv, [m or 0 for m in millis], repeat(1000))))
        self._stamp, run = times[-1], self.run_id
        events: list[Event | Rows] = []
        if self._phase != "running":
            events = [Progress(run, times[0], iterations[0], totals[0]),
                      *self._enter(times[0], "running"),
                      Metric(run, times[0], "loss", losses[0], steps[0])]
            iterations, totals, times, steps, losses = (
                column[1:] for column in (iterations, totals, times, steps, losses))
        if not times:
            return events
        n = len(times)
        return [*events, Rows(run, times, [(Progress, (iterations, totals, [0] * n, [0] * n)),
                                           (Metric, (["loss"] * n, losses, steps))])]

    sniff_needs = ("training_sequences_per_second", "e2e_train_time", "[SAMBA]", "SambaConnector",
                   "inner train loop time : ")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
