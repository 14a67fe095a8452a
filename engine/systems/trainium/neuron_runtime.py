"""Neuron SDK runtime and compiler failures (Trainium), recognised with a hint each."""

from __future__ import annotations

import re

from accelbench.engine.core.events import Diagnosis, Event
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect

# (code, pattern, message, hint): the first match of a line wins; each code once per run.
_FAILURES = [
    ("neuron_cores_busy",
     lazy(r"Neuron ?[Cc]ore\(?s?\)? (?:are )?(?:already in use|not available)|"
          r"nrt_allocate_neuron_cores.*(?:failed|in use)"),
     "the NeuronCores are held by another process",
     "neuron-ls or neuron-top shows who holds them; stop it, or lower nproc_per_node"),
    ("neuron_no_device",
     lazy(r"No neuron device available|/dev/neuron\d+.*(?:No such file|not found)"),
     "no Neuron device is visible to the job",
     "run on a trn1/inf2 instance (neuron-ls lists the devices) with the Neuron driver loaded"),
    ("neuron_out_of_memory",
     lazy(r"RESOURCE_EXHAUSTED|Failed to allocate .*(?:HBM|device memory)|"
          r"out of (?:device )?memory", re.IGNORECASE),
     "the model does not fit in the NeuronCores' device memory",
     "lower batch_size or max_seq_length"),
    ("neuron_precompile_graphs_failed",
     lazy(r"\|\|NEURON_PARALLEL_COMPILE\|\|: Total failed compilations: [1-9]"),
     "neuron_parallel_compile could not compile some of the job's graphs",
     "the run compiles them itself (a slower start); its log above names the graphs"),
    ("neuron_compile_failed",
     lazy(r"neuronx-cc.*(?:failed|error)|Compilation failed|ERROR.*NEFF|"
          r"ERROR \|\|NEURON_\w+\|\|: .*failed compilation|Compiler status FAIL",
          re.IGNORECASE),
     "the Neuron compiler failed on the model's graph",
     "read the compiler's log it names; check NEURON_CC_FLAGS"),
]


class NeuronRuntime(Dialect):
    """Runtime (NRT) and compiler (neuronx-cc) failures of Neuron SDK jobs."""

    name = "neuron_runtime"
    title = "Neuron runtime and compiler errors"
    warnings = frozenset({"neuron_precompile_graphs_failed"})  # the job may go on
    needs = ("already in use", "not available", "nrt_allocate_neuron_cores", "/dev/neuron",
             "No neuron device available", "NEURON_PARALLEL_COMPILE")
    # the out-of-memory and compiler patterns are case-insensitive
    needs_nocase = ("resource_exhausted", "failed to allocate ", "out of ", "neuronx-cc",
                    "compilation failed", "failed compilation", "compiler status fail", "neff")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self.reported: set[str] = set()

    def feed(self, line: str, ts: float) -> list[Event]:
        """A Diagnosis for the first line of each kind of failure."""
        for code, pattern, message, hint in _FAILURES:
            if code not in self.reported and pattern.search(line):
                self.reported.add(code)
                return [Diagnosis(self.run_id, ts, code, f"{message}: {line.strip()[:200]}",
                                  hint)]
        return []

    sniff_needs = ("NRT:", "neuronx-cc")

    @classmethod
    def sniff(cls, text: str) -> bool:
        """True when the text shows Neuron runtime or compiler messages."""
        return "NRT:" in text or "neuronx-cc" in text
