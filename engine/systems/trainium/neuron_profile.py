"""The ``neuron-profile`` summary tables, as pasted in markdown.

Summary rows are ``| Group | **name** | value |`` on a group's first row and
``| **name** | value | |`` on the others; units are bold (``18.23 **%**``,
``9.81 **ms**``, ``3.979 **GiB**``). Device-memory rows are
``| nd | nc | usage type | amount |``; their header may be missing, blank or a
data row, so rows are recognised by their shape alone.
"""

from __future__ import annotations

from accelbench.engine.core.events import Event, Metric, Utilization
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect

_BOLD = lazy(r"^\*\*(\w+)\*\*$")
_VALUE = lazy(r"^(-?\d+(?:\.\d+)?)(?:\s*\*\*(\S+)\*\*)?$")
_UNITS = {
    None: 1.0, "%": 1.0, "flops/byte": 1.0,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
    "B": 1.0, "KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30, "TiB": 2.0**40,
    "FLOPS": 1.0, "MFLOPS": 1e6, "GFLOPS": 1e9, "TFLOPS": 1e12,
}
_ENGINES = {
    "tensor_engine_active_time_percent": "tensor",
    "vector_engine_active_time_percent": "vector",
    "scalar_engine_active_time_percent": "scalar",
    "gpsimd_engine_active_time_percent": "gpsimd",
    "sync_engine_active_time_percent": "sync",
    "dma_active_time_percent": "dma",
    "cc_op_active_time_percent": "cc",
}
_SNIFF = lazy(r"tensor_engine_active_time_percent|Summary metrics account for")


def _value(text: str) -> float | None:
    """``text`` in its base unit (s, bytes, FLOP, percent), or None if not a known quantity."""
    m = _VALUE.match(text)
    if not m or m[2] not in _UNITS:
        return None
    return float(m[1]) * _UNITS[m[2]]


class NeuronProfile(Dialect):
    """``neuron-profile`` summary metrics and device-memory usage."""

    name = "neuron_profile"
    title = "AWS Neuron profiler summary"
    needs = ("|",)

    def feed(self, line: str, ts: float) -> list[Event]:
        if not line.lstrip().startswith("|"):
            return []
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit() and cells[1].isdigit():
            return self._memory(cells[2], cells[3], ts)
        if len(cells) == 3:
            if m := _BOLD.match(cells[0]):
                return self._summary(m[1], cells[1], ts)
            if m := _BOLD.match(cells[1]):
                return self._summary(m[1], cells[2], ts)
        return []

    def _summary(self, name: str, text: str, ts: float) -> list[Event]:
        value = _value(text)
        if value is None:
            return []
        events: list[Event] = [Metric(self.run_id, ts, f"profile.{name}", value)]
        if engine := _ENGINES.get(name):
            events.append(Utilization(self.run_id, ts, engine, value))
        return events

    def _memory(self, usage: str, text: str, ts: float) -> list[Event]:
        value = _value(text)
        if value is None:
            return []
        name = "_".join(usage.split())  # case kept: "Tensor" and "tensor" are different rows
        return [Metric(self.run_id, ts, f"profile.device_memory.{name}", value)]

    sniff_needs = ("tensor_engine_active_time_percent", "Summary metrics account for")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
