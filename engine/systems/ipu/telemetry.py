"""Graphcore sampler: ``gc-inventory``'s device attributes as per-IPU utilisation engines.

``gc-monitor`` shows clock, temperature and power but no utilisation figure; the
device attributes do (Graphcore Command Line Tools, "Device attributes"), printed as
``key: value`` lines by ``gc-inventory`` for every IPU, in the form ``gc-info
--device-info`` shows for one::

    Device Info:
      id: 0
      ...
      ipu utilisation: 99.96%
      ipu utilisation (session): 99.98%

Only two keys are read, whatever the indentation or headings: ``id`` starts a
device, its ``ipu utilisation`` (percent) is the engine ``ipu<id>``.
``gc-inventory`` prints once and exits, so it is run again every interval.
"""

from __future__ import annotations

from accelbench.engine.telemetry.tool import Readings, ToolSampler


class GraphcoreSampler(ToolSampler):
    """IPU utilisation of every IPU ``gc-inventory`` lists."""

    name = "graphcore"
    tool = "gc-inventory"
    repeat = True

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._device = ""
        self._ipus: dict[str, float] = {}

    def feed(self, line: str) -> Readings | None:
        """The readings with this IPU's utilisation, if the line gives it."""
        key, _, value = line.strip().lstrip("- ").partition(":")
        if key == "id":
            self._device = value.strip()
        elif key == "ipu utilisation" and self._device:
            self._ipus[self._device] = float(value.strip().rstrip("%"))
            return [{"engine": f"ipu{device}", "percent": percent}
                    for device, percent in self._ipus.items()]
        return None
