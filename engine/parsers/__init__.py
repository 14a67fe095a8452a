"""Log dialects: turning the lines of a job's output into events.

accelbench's own workloads print machine lines (``machine.py``). Vendor programs
that accelbench drives unchanged print their own dialects; each has a ``Dialect``
subclass in a module of its own here, named in ``DIALECTS``.
"""

from __future__ import annotations

import importlib
from typing import ClassVar

from accelbench.engine.errors import lookup
from accelbench.engine.events import Event

DIALECTS = {
    "hf_trainer": "accelbench.engine.parsers.hf_trainer",
    "neuron_profile": "accelbench.engine.parsers.neuron_profile",
    "neuron_runtime": "accelbench.engine.parsers.neuron_runtime",
    "poptorch": "accelbench.engine.parsers.poptorch",
    "sambanova": "accelbench.engine.parsers.sambanova",
    "cerebras": "accelbench.engine.parsers.cerebras",
    "groq": "accelbench.engine.parsers.groq",
}


class Dialect:
    """One vendor dialect. Stateful: feed it a log's lines in order.

    ``feed`` returns the events a line completes (Phase, Progress, Metric,
    Throughput, Utilization, Diagnosis; never Log: the caller makes those), each
    with this dialect's ``run_id`` and the timestamp it is given unless the line
    carries its own. ``finish`` flushes what a block left pending at the end.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    run_end: ClassVar[frozenset[str]] = frozenset()  # metrics a run's log ends with

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    def feed(self, line: str, ts: float) -> list[Event]:
        """Events recognised in ``line`` (seen at ``ts``)."""
        raise NotImplementedError

    def finish(self, ts: float) -> list[Event]:
        """Events of a block still open at the end of the log."""
        return []

    @classmethod
    def sniff(cls, text: str) -> bool:
        """True when a log's ``text`` looks written in this dialect."""
        raise NotImplementedError


def get_dialect(name: str) -> type[Dialect]:
    """The dialect class called ``name``."""
    module = importlib.import_module(lookup(DIALECTS, name, "dialect"))
    return next(v for v in vars(module).values()
                if isinstance(v, type) and issubclass(v, Dialect) and v.name == name)
