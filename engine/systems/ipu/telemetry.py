"""Graphcore's tools: ``gc-inventory``'s device attributes as per-IPU utilisation engines
(the sampler), and readers of ``gc-info -l`` and ``gc-monitor`` (detection, ``top``).

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

import contextlib
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from accelbench.engine.core.patterns import lazy
from accelbench.engine.telemetry.tool import Readings, ToolSampler


class GraphcoreSampler(ToolSampler):
    """IPU utilisation of every IPU ``gc-inventory`` lists."""

    name = "graphcore"
    tool = "gc-inventory"
    repeat = True

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._device = ""
        self._ipus: dict[str, float] = {}

    def feed(self, line: str) -> Readings | None:
        """The readings with this IPU's utilisation, if the line gives it."""
        key, value = _attribute(line)
        if key == "id":
            self._device = value
        elif key == "ipu utilisation" and self._device:
            self._ipus[self._device] = float(value.rstrip("%"))
            return [{"engine": f"ipu{device}", "percent": percent}
                    for device, percent in self._ipus.items()]
        return None


def read_inventory(text: str) -> dict[int, float]:
    """Each IPU's utilisation (percent) by id in ``gc-inventory``'s device attributes
    (the keys the sampler reads; a figure printed ``N/A`` is left out)."""
    device, found = "", {}
    for line in text.splitlines():
        key, value = _attribute(line)
        if key == "id":
            device = value
        elif key == "ipu utilisation" and device.isdigit():
            with contextlib.suppress(ValueError):
                found[int(device)] = float(value.rstrip("%"))
    return found


def _attribute(line: str) -> tuple[str, str]:
    """A device attribute line's key and value (``  ipu utilisation: 99.96%``)."""
    key, _, value = line.strip().lstrip("- ").partition(":")
    return key, value.strip()


@dataclass(frozen=True)
class Device:
    """One entry of ``gc-info -l``: an IPU, or a multi-IPU device and its members' ids."""

    id: int
    target: str  # Fabric, PCIe or Multi IPU
    partition: str = ""
    host: str = ""  # the IPU-M host, or the PCI domain of a PCIe card
    members: tuple[int, ...] = ()
    board_ipu: int | None = None  # "IPU#": the IPU's index on its IPU-M board


@dataclass
class Monitor:
    """What one ``gc-monitor`` screen shows: the partition, its IPUs' cards, and the
    IPUs that processes have attached (a row per IPU)."""

    partition: str = ""
    ipu_count: int | None = None  # "has N reconfigurable IPUs"
    cards: dict[int, dict[str, str]] = field(default_factory=dict)  # IPU id → card row
    attached: list[Attached] = field(default_factory=list)


@dataclass(frozen=True)
class Attached:
    """An IPU in use as ``gc-monitor`` shows it; the sensors read None where it says N/A
    (an application reads them only under GCDA_MONITOR=1) or leaves them blank (the board
    figures are on the first IPU of each board)."""

    ipu: int
    pid: int | None = None
    command: str = ""
    user: str = ""
    time: str = ""  # how long the process has been attached, as printed ("1m3s")
    host: str = ""  # the application host (IPUs attached from other namespaces)
    clock_mhz: float | None = None
    temp_c: float | None = None
    board_temp_c: float | None = None
    power_w: float | None = None


_FIELD = lazy(r"([\w#][\w#\- ]*?):\s*\[([^\]]*)\]")
_PARTITION = lazy(r"Partition:\s*(\S+)")
_IPU_COUNT = lazy(r"has (\d+) reconfigurable IPUs")
_UNIT = lazy(r"(-?\d+(?:\.\d+)?)\s*(?:MHz|C|W)$")


def read_devices(text: str) -> list[Device]:
    """The devices ``gc-info -l`` (``--list-devices``, with or without
    ``--all-partitions``) lists, in order, each with the partition it is listed under."""
    found: list[Device] = []
    partition = ""
    for line in map(str.strip, text.splitlines()):
        if m := _PARTITION.match(line):
            partition = m[1]
            continue
        fields: dict[str, str] = dict(_FIELD.findall(line))
        if not fields.get("Id", "").strip().isdigit():
            continue
        if line.startswith("-+-"):
            number = fields.get("IPU#", "").strip()
            found.append(Device(int(fields["Id"]), fields.get("target", fields.get("type", "")),
                                partition, fields.get("IPU-M host", fields.get("PCI Domain", "")),
                                board_ipu=int(number) if number.isdigit() else None))
        elif line.startswith("|---") and found:
            last = found[-1]
            found[-1] = dataclasses.replace(last, members=(*last.members, int(fields["Id"])))
    return found


def read_monitor(text: str) -> Monitor:
    """The tables of one ``gc-monitor`` screen (with or without ``--no-card-info``)."""
    monitor = Monitor()
    header: list[str] = []
    for line in map(str.strip, text.splitlines()):
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if m := _PARTITION.search(line):
            monitor.partition = m[1]
            if count := _IPU_COUNT.search(line):
                monitor.ipu_count = int(count[1])
        elif m := re.search(r"(?:processes in partition|IPUs in) (\S+)", line):
            monitor.partition = monitor.partition or m[1]
        elif "ID" in cells:
            header = _named(cells)
        elif header and len(cells) == len(header) and cells[header.index("ID")].isdigit():
            row = dict(zip(header, cells, strict=True))
            if "PID" in row or "Application host" in row:
                monitor.attached.append(_attached(row))
            else:
                monitor.cards[int(row["ID"])] = row
    return monitor


def _named(cells: list[str]) -> list[str]:
    """Column names, the second ``Temp`` (the board's, under the Board heading) renamed."""
    names: list[str] = []
    for cell in cells:
        names.append("Board temp" if cell == "Temp" and "Temp" in names else cell)
    return names


def _attached(row: dict[str, str]) -> Attached:
    return Attached(int(row["ID"]), int(row["PID"]) if row.get("PID", "").isdigit() else None,
                    row.get("Command", ""), row.get("User", ""), row.get("Time", ""),
                    row.get("Application host", ""),
                    _reading(row.get("Clock", "")), _reading(row.get("Temp", "")),
                    _reading(row.get("Board temp", "")), _reading(row.get("Power", "")))


def _reading(cell: str) -> float | None:
    """The number of a sensor cell such as ``1330MHz``, ``24.2 C``, ``113.7 W``."""
    m = _UNIT.match(cell)
    return float(m[1]) if m else None
