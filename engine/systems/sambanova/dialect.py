"""SambaNova's BERT-Large scripts (``BertLarge_compile.sh`` / ``BertLarge_run.sh``).

The compile script marks its steps with ``COMPILE START AT <s>`` and ``RUN``; the
run's ``transformers_hook.py`` logs step lines (``...|global_step:501|average_loss:
8.34513|...``, after a tqdm ``Iteration: ... 500/2549`` bar) and ends with a summary
dict, ``{'e2e_train_time': 457.09, 'training_sequences_per_second': ..., 'final_loss':
..., 'training_samples_per_second': ...}``. The summary figures are also read in the
``key: value`` / ``key = value`` forms people copy them into notes with.
"""

from __future__ import annotations

import re

from accelbench.engine.events import Diagnosis, Event, Metric, Phase, Progress
from accelbench.engine.parsers import Dialect

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_SUMMARY = re.compile(r"\b(e2e_train_time|training_sequences_per_second|final_loss|"
                      rf"training_samples_per_second)['\"]?\s*[:=]\s*({_NUMBER})")
_STEP = re.compile(rf"\|global_step:(\d+)\|average_loss:({_NUMBER})")
_ITERATION = re.compile(r"Iteration:.*?\|\s*(\d+)/(\d+) \[")
_COMPILE = re.compile(r"^COMPILE START AT \d+")
_RUN = re.compile(r"^RUN(?: COMMAND:|$)")
_FINISHED = re.compile(r"NLP app finished")
_BAD_CONFIG = re.compile(r"\berror\b.*(?:requested node configuration is not available|"
                         r"invalid (?:\w+ )?configuration)", re.I)
_MIN_THROUGHPUT = re.compile(r"Expected throughput to be at least ([\d.]+), instead found ([\d.]+)")
_NO_PEF = re.compile(r"(?<!\S)(\S+\.pef) does not exist")  # (?<!\S): linear time
_SNIFF = re.compile(r"training_sequences_per_second|e2e_train_time")


class SambaNova(Dialect):
    """SambaNova BERT-Large logs: compile/run phases, steps, summary figures, failures."""

    name = "sambanova"
    run_end = frozenset({"training_samples_per_second"})
    title = "SambaNova SambaFlow"
    needs = ("e2e_train_time", "_per_second", "final_loss", "|global_step:", "Iteration:",
             "COMPILE START AT ", "RUN", "NLP app finished",
             "Expected throughput to be at least ", ".pef does not exist")
    needs_nocase = ("error",)  # _BAD_CONFIG is case-insensitive

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase = ""

    def _enter(self, ts: float, name: str, detail: str = "") -> list[Event]:
        """A Phase event, unless the run is already in phase ``name``."""
        if self._phase == name:
            return []
        self._phase = name
        return [Phase(self.run_id, ts, name, detail)]

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.strip()
        run = self.run_id
        if summary := _SUMMARY.findall(line):
            return [Metric(run, ts, key, float(value)) for key, value in summary]
        events: list[Event] = []
        if m := _ITERATION.search(line):
            events.append(Progress(run, ts, int(m[1]), int(m[2])))
        if m := _STEP.search(line):
            events += self._enter(ts, "running")
            events.append(Metric(run, ts, "loss", float(m[2]), int(m[1])))
        if events:
            return events
        if _COMPILE.match(line):
            return self._enter(ts, "compiling", "compiling the PEF")
        if _RUN.match(line):
            return self._enter(ts, "starting", "run step")
        if _FINISHED.search(line):
            return self._enter(ts, "completing", "training finished")
        if _BAD_CONFIG.search(line):
            return [Diagnosis(run, ts, "slurm_invalid_configuration", line,
                              "ntasks must not exceed ntasks_per_node × nodes")]
        if m := _MIN_THROUGHPUT.search(line):
            return [Diagnosis(run, ts, "sambanova_min_throughput", line,
                              f"the run asserts --min_throughput {m[1]}; fewer tasks or RDUs "
                              "give less: lower it to match the configuration")]
        if m := _NO_PEF.search(line):
            return [Diagnosis(run, ts, "sambanova_no_pef", line,
                              f"compile first: the run needs {m[1]}")]
        return []

    sniff_needs = ("training_sequences_per_second", "e2e_train_time")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
