"""The Cerebras appliance's console output (ModelZoo ``run.py CSX ...``, ``cszoo fit``).

Lines look like ``2024-03-30 14:09:43,663 INFO:   Effective batch size is 512.`` (indented
where a page nests them); their timestamp is taken as the event's, read as local time (the
client logs the login node's clock, without a zone). The appliance lifecycle (checkpoint,
compile job, queue, programming, weights, training) becomes phases; the ``| Train
Device=...`` lines (``Device=CSX`` or the older ``xla:0``, newer ones ending in
``LoopTimeRemaining=..., TimeRemaining=...``) give loss, rates and progress (its total from
``cszoo fit``'s summary, the train loop's range, or the time remaining);
``Processed N sample(s) in T seconds`` (``Training Complete. Completed ...`` before R2.0)
gives the totals. The TensorFlow era prints ``global step N: loss = X (Y steps/sec)``,
``Training finished with N samples in T seconds, R samples/second.`` and ``Loss for final
step: X.``.
"""

from __future__ import annotations

import operator
from itertools import repeat
from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase, Progress, Throughput
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.logclock import stamp_seconds, stamps_times
from accelbench.engine.parsers.steps import StepLines, optional, split_rows, whole

_HEAD = r"\s*(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) (\w+):\s+"  # stamp, millis, level
_LINE = lazy("^" + _HEAD)  # (the line's text: all after the match)
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|(?i:nan|inf))"  # as float() reads it
_RATE = r"\d+(?:\.\d*)?"
_TRAIN = lazy(r"\| Train Device=[^,]+, Step=(\d+), Loss=(" + _NUMBER + "), "
              r"Rate=(" + _RATE + ") samples/sec, GlobalRate=(" + _RATE + ") samples/sec"
              r"(?:, LoopTimeRemaining=[\d:]+, TimeRemaining[=>](\d+):(\d\d):(\d\d))?")
_EVAL = lazy(r"\| Eval Device=[^,]+, GlobalStep=(\d+)"
             r"(?:, Batch=(\d+), Loss=[^,]+, Rate=([\d.]+) samples/sec)?")
# A timestamped line whose text is a Train line: what _LINE, then _TRAIN, read of it.
_TRAIN_LINE = lazy(_HEAD + _TRAIN.pattern)
# Train lines, each at a line's start (their groups as findall gives them)
_TRAIN_ROWS = lazy("(?m)^" + _TRAIN_LINE.pattern)
# The Train lines of a text as the appliance prints them (``YYYY-MM-DD HH:MM:SS,mmm INFO:   |
# Train Device=...`` at a line's start), found by their literal (a quick search) with the
# stamp behind it: what _TRAIN_ROWS reads of such a line, the same groups.
_TRAIN_TEXT = lazy(r"\| Train Device=(?<=(?<![^\n])(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),"
                   r"(\d{3}) (INFO):   \| Train Device=)"
                   + _TRAIN.pattern.removeprefix(r"\| Train Device="))
# The Train lines as step lines (the groups of _TRAIN_LINE, converted)
_STEPS = StepLines("Train Device=", _TRAIN_ROWS,
                   (whole(stamps_times), int, None, int, float, float, float,
                    *[optional(int)] * 3), text_pattern=_TRAIN_TEXT)
_AVG_EVAL = lazy(r"Avg Eval Loss: ([-+\w.]+)")
_EVAL_METRIC = lazy(r"^- (eval/\w+) = ([-+\w.]+)$")
# "Processed N [training] sample(s) in T seconds"; before R2.0 "Training Complete. Completed ..."
_PROCESSED = lazy(r"(?:Processed|Completed) (\d+) (?:\w+ )?sample\(s\) in ([\d.]+) seconds")
_TOTAL = lazy(r"for a total of (\d+) train steps"
              r"|Starting train(?:ing)? loop \d+(?: of \d+)?, from global step \d+ to (\d+)")
_ESTIMATE = lazy(r"Compile estimated performance: ([\d.]+) samples/sec")
_TF_STEP = lazy(r"global step (\d+): loss = ([-+\w.]+) \(([\d.]+) steps/sec\)")
_TF_FINISHED = lazy(r"Training finished with (\d+) samples in ([\d.]+) seconds, "
                    r"([\d.]+) samples/second")
_TF_FINAL = lazy(r"Loss for final step: (" + _NUMBER + ")")
_BATCH = lazy(r"Effective batch size is (\d+)")
_SAVING = lazy(r"Saving checkpoint at (?:global )?step (\d+)")
_SAVED = lazy(r"Saved checkpoint (?:(?:at|for) global step:? (\d+)|(\S+))")
_JOB_ID = lazy(r"(compile|execute) job id: (wsjob-\w+)")
_NEW_JOB = lazy(r"Initiating a new (compile|execute) wsjob")  # R2.5: "Job id: ..." next
_JOB_ID_NEXT = lazy(r"^Job id: (wsjob-\w+)")
_POLL = lazy(r"current job status: (\w+), msg: (.*)")  # (the message: see _poll_message)
_JOB_FAILED = lazy(r"Job (wsjob-\w+) failed due to: ")
_EXCEPTION = lazy(r"^([\w.]*(?:Error|Exception)): ")
_SNIFF = lazy(r"Train Device=|wsjob-|Cerebras Wafer Scale Cluster"
              r"|(?:Processed|Completed) \d+ (?:training )?sample\(s\) in"
              r"|Training finished with \d+ samples in|global step \d+: loss = .* steps/sec")

# Lines that move the run on, by a piece of their text: (phase, detail).
_PHASES = {
    "Compiling the model": ("compiling", "compiling the model"),
    "Compile was successful": ("loading", "programming the system"),
    "Programming Cerebras Wafer Scale Cluster": ("loading", "programming the system"),
    "About to send initial weights": ("loading", "sending weights"),
    "Waiting for device programming": ("loading", "programming the device"),
    "Beginning appliance run": ("running", "appliance run started"),
    "Found existing cached compile": ("compiling", "cached compile found"),
    "Training completed successfully": ("completing", "training completed"),
    "Evaluation completed successfully": ("completing", "evaluation completed"),
}
# Where a job goes once the queue lets it through.
_AFTER_QUEUE = {"compile": "compiling", "execute": "loading"}
_NAN_HINT = "the loss became NaN: lower the learning rate or check the input data"


def _poll_message(text: str) -> str:
    """A job poll's message (after ``msg: ``): up to its first `` For more information``,
    less a final ``.`` (found with ``find``: a lazy pattern tries each of its places)."""
    cut = text.find(" For more information")
    return (text if cut < 0 else text[:cut]).removesuffix(".")


def _local_ts(stamp: str, millis: str) -> float:
    """Epoch seconds of a ``YYYY-MM-DD HH:MM:SS`` stamp read as local time, plus ms."""
    return stamp_seconds(stamp) + int(millis) / 1000


class Cerebras(Dialect):
    """Cerebras appliance logs: lifecycle phases, Train lines, samples processed, errors."""

    name = "cerebras"
    run_end = frozenset({"samples_processed"})
    title = "Cerebras appliance"
    # (each the literal of a pattern, or of a line ``feed`` acts on: a line holding none
    # gives no event)
    needs = ("Train Device=", "sample(s) in", "Effective batch size", "Saving checkpoint at ",
             "Saved checkpoint ", "job id: wsjob-", "Job id: wsjob-",
             "Initiating a new compile wsjob", "Initiating a new execute wsjob",
             "current job status: ", "ERROR:", "Traceback (most recent call last)", "Error: ",
             "Exception: ", "Eval Device=", "Avg Eval Loss", "- eval/", " train steps",
             "Starting train", "steps/sec)", "Training finished with", "Loss for final step",
             "Compile estimated performance", *_PHASES)

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase: tuple[str, str] | None = None
        self._job = ""  # the wsjob being waited for: "compile" or "execute"
        self._loss: float | None = None  # last Train loss not yet reported as final
        self._traceback = False
        self._total = 0  # the train steps planned (cszoo fit's summary, the loop's range)
        self._first: tuple[float, int] | None = None  # (ts, step) of the first Train line
        self._interval = 0  # steps between Train lines
        self._last_step = 0
        self._done = False  # the samples processed are in: checkpoints after are the run's end
        self._finished: list[Event] = []  # TensorFlow's totals, given with its final loss
        self._ts = 0.0  # the last timestamp a line carried

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

    def _progress(self, times: list[float], steps: list[int], lefts: list[int | None]
                  ) -> list[int]:
        """The total steps at each of some Train lines (0: not known): the planned total, or
        the total that the time remaining implies at the step rate since the first line (in
        whole logging intervals, so that the ETA from that rate is the one printed)."""
        first, last, interval, planned = self._first, self._last_step, self._interval, self._total
        totals = []
        for ts, step, left in zip(times, steps, lefts, strict=True):
            first = first or (ts, step)
            if last and step > last:
                interval = step - last
            last = step
            total = planned
            if not total and left is not None and interval and ts > first[0]:
                steps_left = left * (step - first[1]) / (ts - first[0])
                total = step + round(steps_left / interval) * interval
            totals.append(total)
        self._first, self._last_step, self._interval = first, last, interval
        return totals

    def _final_loss(self, ts: float) -> list[Event]:
        loss, self._loss = self._loss, None
        return [] if loss is None else [Metric(self.run_id, ts, "final_loss", loss)]

    def _train(self, events: list[Event], ts: float, step_text: str, loss_text: str,
               rate: str, global_rate: str, hours: str | None, minutes: str, seconds: str
               ) -> None:
        """Add the events of a Train line (the groups of ``_TRAIN``) to ``events``."""
        run, step, loss = self.run_id, int(step_text), float(loss_text)
        self._loss = loss
        if not self._training:
            events += self._enter(ts, "running")
        left = None if hours is None else int(hours) * 3600 + int(minutes) * 60 + int(seconds)
        if total := self._progress([ts], [step], [left])[0]:
            events.append(Progress(run, ts, step, total))
        events.extend((Metric(run, ts, "loss", loss, step),
                       Throughput(run, ts, float(rate), step),
                       Metric(run, ts, "global_rate", float(global_rate), step)))

    step_lines = _STEPS

    def feed_lines(self, lines: list[str], ts: float) -> list[Event | Rows]:
        """As ``feed`` each: the timestamped Train lines read with one pattern, those one
        after another as columns (``step_rows``)."""
        # Train lines only, as a rule: read all at once (a match for each line, each in its
        # line: then each is the line's own match, its groups '' where they took no part)
        rows = _TRAIN_ROWS.findall("\n".join(lines))
        if len(rows) == len(lines):
            return self._train_rows(rows)
        events: list[Event | Rows] = []
        alike: list[tuple[str, ...]] = []  # the Train lines so far
        for line, m in zip(lines, map(_TRAIN_LINE.match, lines), strict=True):
            if m is not None:
                alike.append(tuple(group or "" for group in m.groups()))
                continue
            events += self._train_rows(alike)
            alike = []
            events += self.feed(line, ts)
        return events + self._train_rows(alike)

    def _train_rows(self, rows: list[tuple[str, ...]]) -> list[Event | Rows]:
        return self.step_rows(_STEPS.read(rows), 0.0) if rows else []

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows]:
        """The events ``_train`` gives of Train lines (their ``_STEPS`` columns), as
        columns: a run of lines with a total, and one of lines without, each a Rows."""
        seconds, millis, _, steps, loss, rates, global_rates, hours, minutes, secs = columns
        times = list(map(operator.add, seconds, map(operator.truediv, millis, repeat(1000))))
        events: list[Event | Rows] = []
        if not self._training:
            events += self._enter(times[0], "running")
        n = len(steps)
        if any(hour is not None for hour in hours):  # a total from the time left: each
            totals = self._progress(times, steps, [
                None if h is None else h * 3600 + m * 60 + sec
                for h, m, sec in zip(hours, minutes, secs, strict=True)])
        else:  # what _progress keeps of each line: the first, the interval, the last step
            self._first = self._first or (times[0], steps[0])
            for step, before in zip(reversed(steps), reversed([self._last_step, *steps[:-1]]),
                                    strict=True):
                if before and step > before:
                    self._interval = step - before
                    break
            self._last_step = steps[-1]
            totals = [self._total] * n
        self._loss, self._ts = loss[-1], times[-1]

        def kinds(s: slice) -> list[tuple[type[Event], tuple[list[Any], ...]]]:
            k = len(steps[s])
            return [*([(Progress, (steps[s], totals[s], [0] * k, [0] * k))] if totals[s][0]
                      else []),
                    (Metric, (["loss"] * k, loss[s], steps[s])),
                    (Throughput, (rates[s], steps[s])),
                    (Metric, (["global_rate"] * k, global_rates[s], steps[s]))]

        return [*events, *split_rows(self.run_id, times, list(map(bool, totals)), kinds)]

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.rstrip()
        level = ""
        if m := _LINE.match(line):
            ts, level, line = _local_ts(m[1], m[2]), m[3], line[m.end():]
            self._ts = ts
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
        if "| Train Device=" in text and (m := _TRAIN.search(text)):
            events: list[Event] = []
            self._train(events, ts, *m.groups())
            return events
        if "global step " in text and (m := _TF_STEP.search(text)):
            step = int(m[1])
            self._done, finished, self._finished = False, self._finished, []
            self._loss = float(m[2])
            events = [] if self._training else self._enter(ts, "running")
            return [*finished, *events, Metric(run, ts, "loss", self._loss, step),
                    Metric(run, ts, "steps_per_s", float(m[3]), step)]
        if "| Eval Device=" in text and (m := _EVAL.search(text)):
            events = self._enter(ts, "evaluating", f"evaluating at step {m[1]}")
            if m[3] is not None:  # the eval batch's rate, at the trained step evaluated
                events.append(Metric(run, ts, "eval_rate", float(m[3]), int(m[1])))
            return events
        if "Avg Eval Loss: " in text and (m := _AVG_EVAL.search(text)):
            return [Metric(run, ts, "eval_loss", float(m[1]))]
        if "- eval/" in text and (m := _EVAL_METRIC.match(text.strip())):
            return [Metric(run, ts, m[1], float(m[2]))]
        if "Training finished with " in text and (m := _TF_FINISHED.search(text)):
            self._done = True
            self._finished = [Metric(run, ts, "samples_processed", float(m[1])),
                              Metric(run, ts, "train_runtime", float(m[2])),
                              Metric(run, ts, "train_samples_per_second", float(m[3]))]
            return []
        if "Loss for final step: " in text and (m := _TF_FINAL.search(text)):
            self._loss, finished, self._finished = None, self._finished, []
            return [*finished, Metric(run, ts, "final_loss", float(m[1]))]
        if "sample(s) in " in text and (m := _PROCESSED.search(text)):
            samples, seconds = int(m[1]), float(m[2])
            self._done = True
            return [Metric(run, ts, "samples_processed", float(samples)),
                    Metric(run, ts, "train_runtime", seconds),
                    Metric(run, ts, "train_samples_per_second", samples / seconds),
                    *self._final_loss(ts)]
        if "Effective batch size is " in text and (m := _BATCH.search(text)):
            return [Metric(run, ts, "batch_size", float(m[1]))]
        if " train" in text and (m := _TOTAL.search(text)):
            total, self._total = self._total, int(m[1] or m[2])
            return [] if total == self._total else [Metric(run, ts, "planned_steps",
                                                           self._total)]
        if "Compile estimated " in text and (m := _ESTIMATE.search(text)):
            return [Metric(run, ts, "compile_estimated_samples_per_s", float(m[1]))]
        if self._done and ("checkpoint" in text):
            return []
        if "Saving checkpoint at " in text and (m := _SAVING.search(text)):
            return self._enter(ts, self._checkpoint_phase, f"saving checkpoint at step {m[1]}")
        if "Saved checkpoint " in text and (m := _SAVED.search(text)):
            saved = f"at step {m[1]}" if m[1] else m[2]
            return self._enter(ts, self._checkpoint_phase, f"saved checkpoint {saved}")
        if " job id: wsjob-" in text and (m := _JOB_ID.search(text)):
            self._job = m[1]
            return self._enter(ts, _AFTER_QUEUE[m[1]], f"{m[1]} job {m[2]}")
        if "Initiating a new " in text and (m := _NEW_JOB.search(text)):
            self._job = m[1]
            return []
        if self._job and (m := _JOB_ID_NEXT.match(text)):
            return self._enter(ts, _AFTER_QUEUE[self._job], f"{self._job} job {m[1]}")
        if "current job status: " in text and (m := _POLL.search(text)):
            if m[1] == "Queueing":
                return self._enter(ts, "queued", _poll_message(m[2]))
            if m[1] == "Scheduled" and self._job:
                return self._enter(ts, _AFTER_QUEUE[self._job], f"{self._job} job scheduled")
            return []
        if level == "ERROR":
            if " failed due to: " in text and (m := _JOB_FAILED.search(text)):
                return [Diagnosis(run, ts, "cerebras_job_failed", text,
                                  f"run 'csctl get jobs' to see why {m[1]} failed")]
            hint = _NAN_HINT if "NaN" in text else ""
            return [Diagnosis(run, ts, "cerebras_error", text, hint)]
        for key, (name, detail) in _PHASES.items():
            if key in text:
                return self._enter(ts, name, detail)
        return []

    def finish(self, ts: float) -> list[Event]:
        ts = max(ts, self._ts)  # a log read afterwards ends at its last stamp
        finished, self._finished = self._finished, []
        return [*finished, *self._final_loss(ts)]

    sniff_needs = ("Train Device=", "wsjob-", "Cerebras Wafer Scale Cluster", "sample(s) in",
                   "Training finished with ", "steps/sec")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
