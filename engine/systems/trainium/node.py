"""NeuronCores for ``accelbench top``: ``neuron-monitor``'s reports, one JSON document a line.

Every NeuronCore of the instance (``neuron_hardware_info``: devices × cores per device)
is a device ``nc<i>``: its utilisation where a Neuron application uses it (0 where none
does), the device memory the applications hold on it (``usage_breakdown
.neuroncore_memory_usage``) of its share of the device's, and the applications' pids.
"""

from __future__ import annotations

import json

from accelbench.engine.systems.trainium.telemetry import monitor_argv
from accelbench.engine.telemetry.node import Device, StreamSampler

_MIB = 1024 * 1024


class NeuronNode(StreamSampler):
    """NeuronCore utilisation, memory and processes from a ``neuron-monitor`` it runs."""

    name = "neuron-monitor"

    def argv(self) -> list[str]:
        """``neuron-monitor -c CONFIG``: reports every interval, the groups read here."""
        return monitor_argv(self.workdir, self.interval)

    def feed(self, line: str) -> list[Device] | None:
        return cores(json.loads(line)) if line.startswith("{") else None


def cores(report: dict) -> list[Device]:
    """The NeuronCores of one ``neuron-monitor`` report."""
    hardware = report.get("neuron_hardware_info") or {}
    per_device = int(hardware.get("neuroncore_per_device_count") or 0)
    count = int(hardware.get("neuron_device_count") or 0) * per_device
    core_mib = (hardware.get("neuron_device_memory_size", 0) / per_device / _MIB
                if per_device else None)
    util: dict[int, float] = {}
    memory: dict[int, float] = {}
    pids: dict[int, set[int]] = {}
    for app in report["neuron_runtime_data"]:
        groups = app.get("report") or {}
        in_use = (groups.get("neuroncore_counters") or {}).get("neuroncores_in_use") or {}
        for index, core in in_use.items():
            util[int(index)] = float(core["neuroncore_utilization"])
            if isinstance(app.get("pid"), int):
                pids.setdefault(int(index), set()).add(app["pid"])
        used = (groups.get("memory_used") or {}).get("neuron_runtime_used_bytes") or {}
        breakdown = (used.get("usage_breakdown") or {}).get("neuroncore_memory_usage") or {}
        for index, parts in breakdown.items():
            memory[int(index)] = memory.get(int(index), 0.0) + sum(parts.values()) / _MIB
    indices = sorted(set(range(count)) | set(util) | set(memory))
    return [Device(f"nc{i}", hardware.get("neuron_device_type", ""), util.get(i, 0.0),
                   round(memory.get(i, 0.0), 1), round(core_mib, 1) if core_mib else None,
                   pids=tuple(sorted(pids.get(i, ())))) for i in indices]
