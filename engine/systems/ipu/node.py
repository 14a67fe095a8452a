"""IPUs for ``accelbench top``: ``gc-monitor``'s tables (the IPUs of the partition, the
processes attached with their temperature and power) and ``gc-inventory``'s device
attributes (each IPU's utilisation), both run again every interval."""

from __future__ import annotations

from accelbench.engine.systems.ipu.telemetry import Attached, read_inventory, read_monitor
from accelbench.engine.telemetry.node import Absent, Device, PolledSampler


class GraphcoreNode(PolledSampler):
    """Every IPU either tool lists; one tool missing leaves its figures out."""

    name = "gc-monitor"

    def read(self) -> list[Device]:
        texts, why = {}, []
        for tool in ("gc-monitor", "gc-inventory"):
            try:
                texts[tool] = self.run_tool([tool])
            except Absent as exc:
                why.append(str(exc))
        if not texts:
            raise Absent("; ".join(why))
        return ipus(texts.get("gc-monitor", ""), texts.get("gc-inventory", ""))


def ipus(monitor_text: str, inventory_text: str) -> list[Device]:
    """Every IPU of a ``gc-monitor`` screen and ``gc-inventory``'s attributes: its board
    type, utilisation, the first attached process's sensors, the attached pids."""
    monitor = read_monitor(monitor_text)
    util = read_inventory(inventory_text)
    attached: dict[int, list[Attached]] = {}
    for row in monitor.attached:
        attached.setdefault(row.ipu, []).append(row)
    found = []
    for ipu in sorted(set(monitor.cards) | set(attached) | set(util)):
        rows = attached.get(ipu, [])
        sensors = rows[0] if rows else Attached(ipu)
        found.append(Device(f"ipu{ipu}", monitor.cards.get(ipu, {}).get("Type", ""),
                            util.get(ipu), power_w=sensors.power_w, temp_c=sensors.temp_c,
                            pids=tuple(sorted({r.pid for r in rows if r.pid is not None}))))
    return found
