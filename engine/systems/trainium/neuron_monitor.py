"""``neuron-monitor`` reports kept in a log or a file: one JSON document a line.

Each report gives the NeuronCores' utilization and the device memory the Neuron
applications use (read as the live sampler reads them, ``telemetry.readings``; the memory
also as a figure in MiB, which reports without the devices' size still give), the host's
memory in use (``system_data.memory_info``) and, where the ``execution_stats`` group is on,
the executions completed and failed in its period.
"""

from __future__ import annotations

import json

from accelbench.engine.core.events import Event, Metric, Utilization
from accelbench.engine.parsers import Dialect
from accelbench.engine.systems.trainium.telemetry import device_memory_used, readings

_REPORT = '{"neuron_runtime_data":'
_EXECUTIONS = ("completed", "completed_with_err", "completed_with_num_err", "timed_out",
               "incorrect_input", "failed_to_queue")


class NeuronMonitor(Dialect):
    """NeuronCore utilization, device memory and execution counts of neuron-monitor reports."""

    whole = True
    name = "neuron_monitor"
    title = "AWS neuron-monitor reports"
    needs = (_REPORT,)

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.strip()
        if not line.startswith(_REPORT):
            return []
        try:
            report = json.loads(line)
            found = readings(report)
            device = device_memory_used(report)
        except (ValueError, TypeError, KeyError, AttributeError):
            return []  # a report cut short (the log's line limit) says nothing
        events: list[Event] = [Utilization(self.run_id, ts, r["engine"], r["percent"],
                                           r.get("value"), r.get("unit", "")) for r in found]
        host = (report.get("system_data") or {}).get("memory_info") or {}
        if host.get("memory_total_bytes"):
            used = host.get("memory_used_bytes", 0)
            events.append(Utilization(self.run_id, ts, "host mem",
                                      round(100 * used / host["memory_total_bytes"], 2),
                                      round(used / 2 ** 20, 1), "MiB"))
        if report["neuron_runtime_data"]:
            events.append(Metric(self.run_id, ts, "neuron.device_mem_used_mib",
                                 round(device / 2 ** 20, 1)))
        counts = dict.fromkeys(_EXECUTIONS, 0)
        seen = False
        for app in report["neuron_runtime_data"]:
            stats = ((app.get("report") or {}).get("execution_stats") or {})
            summary = stats.get("execution_summary") or {}
            seen = seen or bool(summary)
            for key in _EXECUTIONS:
                counts[key] += int(summary.get(key, 0))
        if seen:
            events += [Metric(self.run_id, ts, f"neuron.executions_{key}", count)
                       for key, count in counts.items()]
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return _REPORT in text
