"""AWS Neuron sampler: ``neuron-monitor``'s JSON reports as NeuronCore and device-memory engines.

``neuron-monitor -c CONFIG`` writes one JSON document per line every period (AWS
Neuron Monitor User Guide). Read here: each Neuron application in
``neuron_runtime_data`` (with ``torchrun`` one per process), its
``report.neuroncore_counters.neuroncores_in_use`` (NeuronCore index → its
``neuroncore_utilization`` in percent) and ``report.memory_used.neuron_runtime_used_bytes
.neuron_device``; and ``neuron_hardware_info`` for the device memory in all.
Engines: ``nc0``, ``nc1``, ... (percent) and ``neuron mem`` (all applications' device
memory: percent of the instance's, value in MiB).
"""

from __future__ import annotations

import json
from pathlib import Path

from accelbench.engine.telemetry.tool import Readings, ToolSampler

_MIB = 1024 * 1024


class NeuronSampler(ToolSampler):
    """NeuronCore utilization and device memory of the Neuron applications on this machine."""

    name = "neuron"
    tool = "neuron-monitor"

    def argv(self) -> list[str]:
        """``neuron-monitor -c <run>/neuron-monitor.json``: the period and metric groups we read."""
        return monitor_argv(self.run_dir, self.interval)

    def feed(self, line: str) -> Readings | None:
        """One report's readings (a line holds a whole report)."""
        return readings(json.loads(line))


def device_memory_used(report: dict) -> int:
    """The device memory, in bytes, all the Neuron applications of ``report`` use."""
    return sum(((app.get("report") or {}).get("memory_used", {})
                .get("neuron_runtime_used_bytes") or {}).get("neuron_device", 0)
               for app in report["neuron_runtime_data"])


def readings(report: dict) -> Readings:
    """The NeuronCore utilization and device-memory readings of one ``neuron-monitor`` report.

    ``neuron mem`` needs the devices' memory (``neuron_hardware_info``), which reports of
    older tools leave out: then there is none (no share to give).
    """
    cores = {}
    for app in report["neuron_runtime_data"]:
        groups = app.get("report") or {}
        in_use = groups.get("neuroncore_counters", {}).get("neuroncores_in_use") or {}
        for index, core in in_use.items():
            cores[int(index)] = float(core["neuroncore_utilization"])
    found = [{"engine": f"nc{i}", "percent": cores[i]} for i in sorted(cores)]
    hardware = report.get("neuron_hardware_info", {})
    total = hardware.get("neuron_device_count", 0) * hardware.get("neuron_device_memory_size", 0)
    if report["neuron_runtime_data"] and total:
        used = device_memory_used(report)
        found.append({"engine": "neuron mem", "percent": round(100 * used / total, 2),
                      "value": round(used / _MIB, 1), "unit": "MiB"})
    return found


def monitor_argv(folder: Path, interval: float) -> list[str]:
    """``neuron-monitor -c FOLDER/neuron-monitor.json``, the config written there: a report
    every ``interval`` (whole seconds, 1 at least) with the groups read here."""
    config = folder / "neuron-monitor.json"
    config.write_text(json.dumps({
        "period": f"{max(1, round(interval))}s",
        "neuron_runtimes": [{"tag_filter": ".*", "metrics": [
            {"type": "neuroncore_counters"}, {"type": "memory_used"}]}],
        "system_metrics": []}))
    return ["neuron-monitor", "-c", str(config)]
