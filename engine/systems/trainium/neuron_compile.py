"""The Neuron compiler's side of a job's log: the compiling phase and its figures.

Lines of ``libneuronxla``'s wrapper and cache (``INFO ||NEURON_CC_WRAPPER||: Call compiler
...``, ``||NEURON_CACHE||: ...``), ``Compiler status PASS`` and ``neuron_parallel_compile``'s
own (``||NEURON_PARALLEL_COMPILE||``, ``||PARALLEL_COMPILE||`` before SDK 2.18) put the run
in its compiling phase. ``neuron_parallel_compile`` ends with ``Total graphs: N``,
``Total successful compilations: N`` and ``Total failed compilations: N``, after its JSON
report, whose ``"compilation_time"`` (seconds) line is read on its own. Its cache's
``Current remaining items are R, locked are L, failed are F, done are D, total is T``
lines give the graphs done, failed and in all so far. Its totals end the job: with no
failed compilation it succeeded, with some it failed. Lines stamped ``2025-01-17
01:16:07.000970:`` (after ``INFO:`` in the docs' form) carry their own time (local time);
the report's lines take the last stamp.
"""

from __future__ import annotations

from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.logclock import stamp_seconds

_COMPILING = ("||NEURON_CC_WRAPPER||", "||NEURON_CACHE||", "PARALLEL_COMPILE||",
              "Compiler status")
_TOTALS = lazy(r"PARALLEL_COMPILE\|\|: Total (graphs|successful compilations|"
               r"failed compilations): (\d+)")
_NAMES = {"graphs": "compile.graphs", "successful compilations": "compile.graphs_compiled",
          "failed compilations": "compile.graphs_failed"}
_CACHE = lazy(r"NEURON_CACHE\|\|: Current remaining items are \d+, locked are \d+, "
              r"failed are (\d+), done are (\d+), total is (\d+)")
# what a line _TOTALS or _CACHE reads holds (other lines give nothing once compiling)
_COUNTS = ("PARALLEL_COMPILE||: Total ", "NEURON_CACHE||: Current remaining items are ")
_TIME = lazy(r'^\s*"compilation_time": (\d+(?:\.\d+)?)')
_STAMP = lazy(r"^(?:INFO:\s+)?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d+):")
_SNIFF = lazy(r"\|\|(?:NEURON_)?PARALLEL_COMPILE\|\||\|\|NEURON_CC_WRAPPER\|\||"
              r"Compiler status (?:PASS|FAIL)")


class NeuronCompile(Dialect):
    """Neuron compilation: the compiling phase, graph counts and compilation time."""

    name = "neuron_compile"
    title = "Neuron compiler and neuron_parallel_compile"
    needs = (*_COMPILING, '"compilation_time"')
    sniff_needs = ("||", "Compiler status ")  # (what each of its sniff's patterns holds)
    success = frozenset({"compile.graphs_compiled"})  # the totals of a finished job

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._compiling = False
        self._stamp = 0.0

    def feed(self, line: str, ts: float) -> list[Event]:
        if m := _STAMP.match(line):
            self._stamp = stamp_seconds(m[1]) + float("0." + m[2])
        ts = self._stamp or ts
        if m := _TIME.match(line):
            return [Metric(self.run_id, ts, "compile.time_s", float(m[1]))]
        if not any(text in line for text in _COMPILING):
            return []
        events: list[Event] = []
        if not self._compiling:
            self._compiling = True
            events.append(Phase(self.run_id, ts, "compiling", "Neuron compiler"))
        elif not any(text in line for text in _COUNTS):
            return events
        if m := _TOTALS.search(line):
            events.append(Metric(self.run_id, ts, _NAMES[m[1]], int(m[2])))
            if m[1] == "failed compilations" and int(m[2]):
                events.append(Diagnosis(
                    self.run_id, ts, "neuron_compile_failed",
                    f"neuron_parallel_compile: {m[2]} graph(s) failed to compile",
                    "read each failed graph's compiler log (its compilation_report entry);"
                    " --retry_failed_compilation in NEURON_CC_FLAGS compiles them again"))
        elif m := _CACHE.search(line):
            events += [Metric(self.run_id, ts, f"compile.cache_{name}", int(count))
                       for name, count in zip(("failed", "done", "total"), m.groups(),
                                                  strict=True)]
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
