"""Graphcore's example applications (graphcore/examples) as they print their training.

- PopTorch BERT pre-training (``run_pretraining.py``): the ``--- ... Started ---`` banners
  (data loading, compilation or loading from the cache, training, the training metrics),
  ``Data loaded in X secs``, ``Compiled/Loaded model in X secs``, the step bar
  ``Step: i / N - LR: ... - total loss: X - mlm_loss: ... - nsp_acc: ... %: ...
  N it/s, throughput: Y samples/sec]`` (0-based ``i`` of ``N + 1`` steps; several redraws
  of it are often glued on one line, the last is read), the training metrics
  (``global_batch_size``, ``device_iterations``, ``training_steps``) and
  ``Training time: X secs``, with or without poprun's ``[1,0]<stderr>:`` prefixes.
- GPT-2 (PopTorch): ``step N of epoch E, loss: X, acc: Y, lr: Z, throughput: W samples/sec``.
- ResNet50 (``train.py``): ``[INFO] Total replicas``, ``Global batch size`` and ``Number of
  IPUs required``, ``[INFO] Epoch E/M``, an epoch's ``[INFO] loss: X,``, ``[INFO] accuracy:
  Y %`` (training accuracy) and ``[INFO] throughput: W samples/sec``, and ``[INFO] Finished
  training. ... It took: H:MM:SS.ffffff``; poprun's ``Using V-IPU partition P`` and ``mpirun
  (PID N) terminated with exit code C``.
"""

from __future__ import annotations

import re

from accelbench.engine.core.events import Event, Metric, Phase, Progress, Throughput
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect

_NUM = r"(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"
_BANNERS = {"Data Loading Started": ("loading", "data"),
            "Compilation/Loading from Cache Started": ("compiling", "compiling or loading"),
            "Training Started": ("running", ""),
            "Training Metrics": ("completing", "")}
_BANNER = lazy(r"-{3,} (" + "|".join(re.escape(b) for b in _BANNERS) + r") -{3,}")
_SECONDS = lazy(r"(Data loaded|Compiled/Loaded model|Training time:) (?:in )?"
                + _NUM + " secs")
_SECONDS_METRIC = {"Data loaded": "data_load_time", "Compiled/Loaded model": "compile_time",
                   "Training time:": "training_time"}
_STEP = lazy(r"Step: (\d+) / (\d+) - ")
_STEP_FIELD = lazy(r"(LR|total loss|mlm_loss|nsp_loss|mlm_acc|nsp_acc): " + _NUM)
_STEP_METRIC = {"LR": "learning_rate", "total loss": "loss"}
_SAMPLES = lazy(r"throughput: " + _NUM + " samples/sec")
_CONFIG = {"global_batch_size": "global_batch_size", "device_iterations": "device_iterations",
           "training_steps": "training_steps", "[INFO] Global batch size": "global_batch_size",
           "[INFO] Total replicas": "replicas", "[INFO] Number of IPUs required": "ipus"}
_CONFIG_LINE = lazy("(" + "|".join(re.escape(key) for key in _CONFIG) + r"): (\d+)")
_ITERATIONS = lazy(r"(\d+(?:\.\d+)?)it/s")
_GPT_STEP = lazy(r"step (\d+) of epoch (\d+), loss: " + _NUM + ", acc: " + _NUM
                 + ", lr: " + _NUM)
_INFO_EPOCH = lazy(r"\[INFO\] Epoch (\d+)/(\d+)")
_INFO_FIGURE = lazy(r"\[INFO\] (loss|accuracy): " + _NUM)
_INFO_METRIC = {"loss": "loss", "accuracy": "train_accuracy"}
# poprun, the launcher of the multi-replica runs
_PARTITION = lazy(r"POPRUN \[I\] Using V-IPU partition (\S+)")
_MPIRUN_END = lazy(r"POPRUN \[I\] mpirun \(PID \d+\) terminated with exit code (\d+)")
_TOOK = lazy(r"\[INFO\] Finished training\..* It took: (\d+):(\d\d):(\d\d(?:\.\d+)?)")


class GraphcoreExamples(Dialect):
    """Graphcore's example applications: BERT pre-training, GPT-2 and ResNet50."""

    name = "graphcore_examples"
    title = "Graphcore examples (BERT, GPT-2, ResNet50)"
    run_end = frozenset({"training_time"})
    needs = ("----- ", " secs", "Step: ", "throughput: ", "global_batch_size: ",
             "device_iterations: ", "training_steps: ", " of epoch ", "[INFO] ", "POPRUN [I] ")
    # what a line sniff recognises holds, with case (a BERT bar's "Step: " with its "total
    # loss:"): a long log's middle is sniffed on those lines, not on every "[INFO] " line
    sniff_needs = ("Compiled/Loaded model in", "total loss:", " of epoch ", "[INFO] throughput:",
                   "[INFO] Epoch ")
    sniff_cased = True

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._epochs = 0  # the epochs a ResNet50 run announced ("[INFO] Epoch E/M")
        self._running = False  # a figure of training was seen

    def feed(self, line: str, ts: float) -> list[Event]:
        events: list[Event] = []
        if m := _BANNER.search(line):
            events.append(Phase(self.run_id, ts, *_BANNERS[m[1]]))
        if m := _SECONDS.search(line):
            events.append(Metric(self.run_id, ts, _SECONDS_METRIC[m[1]], float(m[2])))
        if (start := line.rfind("Step: ")) >= 0:
            events += self._bert_step(line[start:], ts)
        elif m := _GPT_STEP.search(line):
            events += self._gpt_step(m, line, ts)
        elif "[INFO] " in line:
            events += self._resnet(line, ts)
        if m := _PARTITION.search(line):
            events.append(Phase(self.run_id, ts, "starting", f"V-IPU partition {m[1]}"))
        elif m := _MPIRUN_END.search(line):
            events.append(Phase(self.run_id, ts, "completing", f"mpirun exit code {m[1]}"))
        if m := _CONFIG_LINE.search(line):
            events.append(Metric(self.run_id, ts, _CONFIG[m[1]], float(m[2])))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return ("Compiled/Loaded model in" in text
                or ("total loss:" in text and _STEP.search(text) is not None)
                or (" of epoch " in text and _GPT_STEP.search(text) is not None)
                or ("[INFO] throughput:" in text and _INFO_EPOCH.search(text) is not None))

    def _bert_step(self, bar: str, ts: float) -> list[Event]:
        """The newest redraw of the BERT step bar: progress, its figures, its throughput."""
        m = _STEP.match(bar)
        if m is None:
            return []
        step = int(m[1]) + 1
        events: list[Event] = [Progress(self.run_id, ts, step, int(m[2]) + 1)]
        events += [Metric(self.run_id, ts, _STEP_METRIC.get(f[1], f[1]), float(f[2]), step)
                   for f in _STEP_FIELD.finditer(bar)]
        if rate := _ITERATIONS.search(bar):
            events.append(Metric(self.run_id, ts, "iterations_per_s", float(rate[1]), step))
        if rate := _SAMPLES.search(bar):
            events.append(Throughput(self.run_id, ts, float(rate[1]), step))
        return events

    def _run(self, ts: float) -> list[Event]:
        """The running phase, at the first figure of training (GPT-2, ResNet50)."""
        started, self._running = self._running, True
        return [] if started else [Phase(self.run_id, ts, "running")]

    def _gpt_step(self, m: re.Match[str], line: str, ts: float) -> list[Event]:
        step = int(m[1])
        events = self._run(ts)
        events += [Metric(self.run_id, ts, name, float(value), step)
                   for name, value in (("epoch", int(m[2]) + 1), ("loss", m[3]), ("acc", m[4]),
                                       ("learning_rate", m[5]))]
        if rate := _SAMPLES.search(line):
            events.append(Throughput(self.run_id, ts, float(rate[1]), step))
        return events

    def _resnet(self, line: str, ts: float) -> list[Event]:
        """ResNet50's ``[INFO]`` lines: epoch starts, an epoch's figures, the end."""
        if m := _INFO_EPOCH.search(line):
            epoch, self._epochs = int(m[1]), int(m[2])
            return [*self._run(ts),
                    Progress(self.run_id, ts, epoch - 1, self._epochs, epoch, self._epochs)]
        if m := _INFO_FIGURE.search(line):  # the epoch's training figures
            return [*self._run(ts), Metric(self.run_id, ts, _INFO_METRIC[m[1]], float(m[2]))]
        if m := _SAMPLES.search(line):
            return [*self._run(ts), Throughput(self.run_id, ts, float(m[1]))]
        if m := _TOOK.search(line):
            seconds = int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
            done = [Progress(self.run_id, ts, self._epochs, self._epochs, self._epochs,
                             self._epochs)] if self._epochs else []
            return [*done, Metric(self.run_id, ts, "training_time", round(seconds, 6))]
        return []
