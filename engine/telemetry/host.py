"""Host samplers (psutil): per-core CPU % and the job tree's CPU and RSS, beside the
samplers of the run's system; and this machine's cores and memory for ``accelbench top``."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelbench.engine.telemetry import record_line
from accelbench.engine.telemetry.node import Device, PolledSampler
from accelbench.engine.telemetry.tool import ToolSampler

if TYPE_CHECKING:
    import psutil

_MIB = 1024 * 1024
# psutil is imported where a sampler starts: the cpu system declares HostNode, and every
# command that loads the systems (``accelbench parse`` too) need not load psutil.


class HostSampler:
    """Samples the machine the job runs on, following the job's process tree."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.root = psutil.Process(pid)
        self._procs: dict[int, psutil.Process] = {}
        self._total_mem = psutil.virtual_memory().total
        psutil.cpu_percent(percpu=True)  # start the per-core counters

    def sample(self) -> list[dict[str, Any]]:
        """One reading per engine: cores, the job (CPU, RSS)."""
        import psutil

        engines = [{"engine": f"cpu{i}", "percent": p}
                   for i, p in enumerate(psutil.cpu_percent(percpu=True))]
        cpu, rss = self._job_tree()
        engines.append({"engine": "job cpu", "percent": round(cpu, 1)})
        engines.append({"engine": "job rss", "percent": round(100 * rss / self._total_mem, 2),
                        "value": round(rss / _MIB, 1), "unit": "MiB"})
        return engines

    def _job_tree(self) -> tuple[float, int]:
        import psutil

        try:
            procs = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return 0.0, 0
        cpu, rss, alive = 0.0, 0, {}
        for found in procs:
            proc = self._procs.get(found.pid, found)
            try:
                cpu += proc.cpu_percent()
                rss += proc.memory_info().rss
                alive[proc.pid] = proc
            except psutil.Error:
                continue
        self._procs = alive
        return cpu, rss


class HostNode(PolledSampler):
    """The CPU (``cpu``: its cores' mean busy percent; the processes of this host's live
    runs are put on it), each core (``cpu<i>``) and the memory in use (``mem``)."""

    name = "psutil"
    host_device = "cpu"

    FIRST_S = 0.5  # the span of the first reading

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._first = True

    def read(self) -> list[Device]:
        import psutil

        if self._first:  # psutil measures from its previous call in the same thread, so
            self._first = False  # the sampler's own thread takes the first reading's start
            psutil.cpu_percent(percpu=True)
            self._stop.wait(self.FIRST_S)
        memory = psutil.virtual_memory()
        return [*cpu_devices(psutil.cpu_percent(percpu=True)),
                Device("mem", "memory", util_percent=memory.percent,
                       mem_used_mib=round((memory.total - memory.available) / _MIB, 1),
                       mem_total_mib=round(memory.total / _MIB, 1))]


def cpu_devices(cores: list[float]) -> list[Device]:
    """The CPU (its ``cores``' mean busy percent), then each core."""
    mean = round(sum(cores) / len(cores), 1) if cores else None
    return [Device("cpu", f"{len(cores)} cores", util_percent=mean),
            *(Device(f"cpu{i}", util_percent=p, core=True) for i, p in enumerate(cores))]


def sample_until(stop: threading.Event, pid: int, interval: float, out: Path,
                 samplers: Sequence[ToolSampler] = ()) -> None:
    """Append a telemetry line to ``out`` every ``interval`` s until ``stop`` is set:
    this machine's readings and the latest of each of ``samplers``, in one record.
    A line the disk has no room for is skipped (a full disk must not stop the job)."""
    import psutil

    try:
        sampler = HostSampler(pid)
    except psutil.Error:
        return
    with open(out, "ab", buffering=0) as f:
        while not stop.wait(interval):
            engines = sampler.sample() + [e for other in samplers for e in other.sample()]
            with contextlib.suppress(OSError):
                f.write((record_line(time.time(), engines) + "\n").encode())
