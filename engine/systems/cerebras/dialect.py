"""The Cerebras appliance's console output (ModelZoo ``run.py CSX ...``).

Lines look like ``2024-03-30 14:09:43,663 INFO:   Effective batch size is 512.``;
their timestamp is taken as the event's, read as local time (the client logs the
login node's clock, without a zone). The appliance lifecycle (checkpoint, compile
job, queue, programming, weights, training) becomes phases; the ``| Train
Device=...`` lines (``Device=CSX`` or the older ``xla:0``, newer ones ending in
``TimeRemaining=...``) give loss and rates; ``Processed N sample(s) in T seconds``
gives the totals.
"""

from __future__ import annotations

import functools
import re
import time

from accelbench.engine.events import Diagnosis, Event, Metric, Phase, Throughput
from accelbench.engine.parsers import Dialect

_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) (\w+):\s+(.*)$")
_TRAIN = re.compile(r"\| Train Device=[^,]+, Step=(\d+), Loss=([^,]+), "
                    r"Rate=([\d.]+) samples/sec, GlobalRate=([\d.]+) samples/sec")
# A Train line as a whole (the usual line of a long log): read in one match.
_STAMPED_TRAIN = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) \w+:\s+" + _TRAIN.pattern
                            + r".*$")
_PROCESSED = re.compile(r"Processed (\d+) (?:\w+ )?sample\(s\) in ([\d.]+) seconds")
_BATCH = re.compile(r"Effective batch size is (\d+)")
_SAVING = re.compile(r"Saving checkpoint at (?:global )?step (\d+)")
_SAVED = re.compile(r"Saved checkpoint (\S+)")
_JOB_ID = re.compile(r"(compile|execute) job id: (wsjob-\w+)")
_POLL = re.compile(r"current job status: (\w+), msg: (.*?)\.?(?: For more information.*)?$")
_JOB_FAILED = re.compile(r"Job (wsjob-\w+) failed due to: ")
_EXCEPTION = re.compile(r"^([\w.]*(?:Error|Exception)): ")
_SNIFF = re.compile(r"Train Device=|wsjob-|Cerebras Wafer Scale Cluster"
                    r"|Processed \d+ (?:training )?sample\(s\) in")

# Lines that move the run on, by a piece of their text: (phase, detail).
_STEPS = {
    "Compiling the model": ("compiling", "compiling the model"),
    "Compile was successful": ("loading", "programming the system"),
    "Programming Cerebras Wafer Scale Cluster": ("loading", "programming the system"),
    "About to send initial weights": ("loading", "sending weights"),
    "Waiting for device programming": ("loading", "programming the device"),
    "Beginning appliance run": ("running", "appliance run started"),
    "Training completed successfully": ("completing", "training completed"),
}
# Where a job goes once the queue lets it through.
_AFTER_QUEUE = {"compile": "compiling", "execute": "loading"}
_NAN_HINT = "the loss became NaN: lower the learning rate or check the input data"


def _local_ts(stamp: str, millis: str) -> float:
    """Epoch seconds of a ``YYYY-MM-DD HH:MM:SS`` stamp read as local time, plus ms."""
    return _seconds(stamp) + int(millis) / 1000


@functools.lru_cache(maxsize=256)
def _seconds(stamp: str) -> float:
    """Epoch seconds of a stamp (cached: a log gives many lines the same second)."""
    return time.mktime((int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]), int(stamp[11:13]),
                        int(stamp[14:16]), int(stamp[17:19]), 0, 0, -1))  # strptime: slow


class Cerebras(Dialect):
    """Cerebras appliance logs: lifecycle phases, Train lines, samples processed, errors."""

    name = "cerebras"
    run_end = frozenset({"samples_processed"})
    title = "Cerebras appliance"
    needs = ("Train Device=", "sample(s) in", "Effective batch size", "checkpoint", "job id: ",
             "current job status: ", "ERROR:", "Traceback (most recent call last)", "Error: ",
             "Exception: ", *_STEPS)

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase: tuple[str, str] | None = None
        self._job = ""  # the wsjob being waited for: "compile" or "execute"
        self._loss: float | None = None  # last Train loss not yet reported as final
        self._traceback = False

    def _enter(self, ts: float, name: str, detail: str = "") -> list[Event]:
        """A Phase event, unless the run is already in that phase with that detail."""
        if self._phase == (name, detail):
            return []
        self._phase = (name, detail)
        return [Phase(self.run_id, ts, name, detail)]

    @property
    def _training(self) -> bool:
        return self._phase is not None and self._phase[0] == "running"

    @property
    def _checkpoint_phase(self) -> str:
        """Checkpoints belong to loading, or to running once training has begun."""
        return "running" if self._training else "loading"

    def _final_loss(self, ts: float) -> list[Event]:
        loss, self._loss = self._loss, None
        return [] if loss is None else [Metric(self.run_id, ts, "final_loss", loss)]

    def feed(self, line: str, ts: float) -> list[Event]:
        if self._training and (m := _STAMPED_TRAIN.match(line)):
            ts, run, step = _local_ts(m[1], m[2]), self.run_id, int(m[3])
            self._loss = loss = float(m[4])
            return [Metric(run, ts, "loss", loss, step), Throughput(run, ts, float(m[5]), step),
                    Metric(run, ts, "global_rate", float(m[6]), step)]
        line = line.rstrip()
        level = ""
        if m := _LINE.match(line):
            ts, level, line = _local_ts(m[1], m[2]), m[3], m[4]
        elif line.startswith("Traceback (most recent call last)"):
            self._traceback = True
        elif self._traceback and (m := _EXCEPTION.match(line)):
            self._traceback = False
            hint = _NAN_HINT if "Nan" in m[1] else ""
            return [Diagnosis(self.run_id, ts, "cerebras_exception", line, hint)]
        return self._body(line, level, ts)

    def _body(self, text: str, level: str, ts: float) -> list[Event]:
        """The events of a line's text (its timestamp and level already taken off)."""
        run = self.run_id
        if m := _TRAIN.search(text):
            step, loss = int(m[1]), float(m[2])
            self._loss = loss
            events = [] if self._training else self._enter(ts, "running")
            return [*events, Metric(run, ts, "loss", loss, step),
                    Throughput(run, ts, float(m[3]), step),
                    Metric(run, ts, "global_rate", float(m[4]), step)]
        if m := _PROCESSED.search(text):
            samples, seconds = int(m[1]), float(m[2])
            return [Metric(run, ts, "samples_processed", float(samples)),
                    Metric(run, ts, "train_runtime", seconds),
                    Metric(run, ts, "train_samples_per_second", samples / seconds),
                    *self._final_loss(ts)]
        if m := _BATCH.search(text):
            return [Metric(run, ts, "batch_size", float(m[1]))]
        if m := _SAVING.search(text):
            return self._enter(ts, self._checkpoint_phase, f"saving checkpoint at step {m[1]}")
        if m := _SAVED.search(text):
            return self._enter(ts, self._checkpoint_phase, f"saved checkpoint {m[1]}")
        if m := _JOB_ID.search(text):
            self._job = m[1]
            return self._enter(ts, _AFTER_QUEUE[m[1]], f"{m[1]} job {m[2]}")
        if m := _POLL.search(text):
            if m[1] == "Queueing":
                return self._enter(ts, "queued", m[2])
            if m[1] == "Scheduled" and self._job:
                return self._enter(ts, _AFTER_QUEUE[self._job], f"{self._job} job scheduled")
            return []
        if level == "ERROR":
            if m := _JOB_FAILED.search(text):
                return [Diagnosis(run, ts, "cerebras_job_failed", text,
                                  f"run 'csctl get jobs' to see why {m[1]} failed")]
            hint = _NAN_HINT if "NaN" in text else ""
            return [Diagnosis(run, ts, "cerebras_error", text, hint)]
        for key, (name, detail) in _STEPS.items():
            if key in text:
                return self._enter(ts, name, detail)
        return []

    def finish(self, ts: float) -> list[Event]:
        return self._final_loss(ts)

    sniff_needs = ("Train Device=", "wsjob-", "Cerebras Wafer Scale Cluster", "sample(s) in")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
