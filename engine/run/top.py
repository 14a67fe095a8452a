"""``accelbench top``: this node's devices across vendors, and the accelbench run on each.

The sources are every installed system's node samplers (``System.node``, through the
registry); each samples in a thread of its own, so ``Top.sample()`` never waits on a
tool. A device's processes are matched against the live runs of the store that run on
this host: a process is a run's when it is the run's job, in the job's process group,
or below the job in the process tree. The host's CPU (a sampler's ``host_device``)
carries the processes of every such run: its job and the job's descendants.

``json_lines`` gives a sample as JSON lines, one per device (each core too on request)
and one per source that is not present, each with every field of ``FIELDS``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from accelbench.engine.plugin import registry
from accelbench.engine.rundir.records import Wrapper
from accelbench.engine.store.runs import RunQuery, Store
from accelbench.engine.telemetry.node import Device, NodeSampler, Reading

FIELDS = ("t", "system", "source", "device", "name", "present", "why", "util_percent",
          "mem_used_mib", "mem_total_mib", "power_w", "temp_c", "pids", "runs")
"""The fields of every ``--json`` line: the time (seconds since the epoch), the system
and the source (library or tool) read, the device (``cpu``, ``cpu3``, ``mem``, ``gpu0``, ``nc1``,
``ipu0``, ``rdu2``; null on a source's "not present" line) and its model, whether the
source is present and why not, utilisation in percent, memory used and in all (MiB),
power (W), temperature (°C), the pids on the device and the accelbench runs they
belong to. A figure the source does not give is null."""

FIRST_READING_S = 6.0  # how long one sample (--once, --json) waits for the first readings
_ANCESTORS = 16  # how far up the process tree a device's process is followed


@dataclass(frozen=True)
class Sample:
    """Every source's latest reading at ``t``, devices marked with their runs."""

    t: float
    readings: tuple[Reading, ...]


class Top:
    """Samples this node: every system's node samplers, started together."""

    def __init__(self, interval: float = 1.0, store: Store | None = None) -> None:
        self.interval = interval
        self._workdir = Path(tempfile.mkdtemp(prefix="accelbench-top-"))
        self.samplers: list[NodeSampler] = []
        for system, cls in registry.node_samplers():
            sampler = cls(interval, self._workdir)
            sampler.system = system
            self.samplers.append(sampler)
        self.runs = LiveRuns(store)

    def __enter__(self) -> Top:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Top:
        """Start every sampler."""
        for sampler in self.samplers:
            sampler.start()
        return self

    def wait_first(self, timeout: float = FIRST_READING_S) -> None:
        """Wait until every source has answered once, or ``timeout`` has passed."""
        deadline = time.monotonic() + timeout
        for sampler in self.samplers:
            sampler.answered.wait(max(0.0, deadline - time.monotonic()))

    def sample(self) -> Sample:
        """The latest of every source, now; never waits on a tool."""
        self.runs.refresh()
        readings = []
        for sampler in self.samplers:
            reading = sampler.latest()
            devices = [self.runs.host(d) if d.id == sampler.host_device else d
                       for d in reading.devices]
            readings.append(dataclasses.replace(
                reading, devices=tuple(self.runs.mark(d) for d in devices)))
        return Sample(time.time(), tuple(readings))

    def close(self) -> None:
        """Stop every sampler and remove their files."""
        for sampler in self.samplers:
            sampler.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


class LiveRuns:
    """The store's live runs on this host, by their jobs' pids (read again whenever the
    index changes), and the runs a process belongs to."""

    def __init__(self, store: Store | None) -> None:
        self.store = store
        self.jobs: dict[int, str] = {}  # job pid (its process group) → run id
        self._seen: int | None = None
        self._pending = False  # a live run whose job pid is not written yet
        self._owners: dict[int, tuple[str, ...]] = {}
        self._host = socket.gethostname()

    def refresh(self) -> None:
        """Read the live runs again if the index changed; a run's job pid is written once
        its job starts, so runs still without one are looked at every time."""
        if self.store is None:
            return
        changes = self.store.changes()
        if changes == self._seen and not self._pending:
            return
        self._seen, self._pending, jobs = changes, False, {}
        for info in self.store.list(query=RunQuery(unfinished=True)):
            wrapper = Wrapper.read(info.dir)
            if wrapper is None or wrapper.job_pid is None:
                self._pending = True
            elif wrapper.host == self._host:
                jobs[wrapper.job_pid] = info.id
        if jobs != self.jobs:
            self.jobs, self._owners = jobs, {}

    def host(self, device: Device) -> Device:
        """``device`` (the host's CPU) with the processes of the live runs: each job
        and its descendants."""
        pids = set()
        for job in self.jobs:
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(job)
                pids |= {job, *(child.pid for child in root.children(recursive=True))}
        return dataclasses.replace(device, pids=tuple(sorted(pids))) if pids else device

    def mark(self, device: Device) -> Device:
        """``device`` with the runs its processes belong to."""
        if not device.pids or not self.jobs:
            return device
        runs = sorted({run for pid in device.pids for run in self.owners(pid)})
        return dataclasses.replace(device, runs=tuple(runs))

    def owners(self, pid: int) -> tuple[str, ...]:
        """The runs ``pid`` belongs to (none, or one)."""
        if pid not in self._owners:
            if len(self._owners) > 4096:
                self._owners.clear()
            self._owners[pid] = tuple(self._find(pid))
        return self._owners[pid]

    def _find(self, pid: int) -> Iterable[str]:
        if pid in self.jobs:
            return [self.jobs[pid]]
        with contextlib.suppress(OSError):
            if (group := os.getpgid(pid)) in self.jobs:
                return [self.jobs[group]]
        with contextlib.suppress(psutil.Error):
            for parent in psutil.Process(pid).parents()[:_ANCESTORS]:
                if parent.pid in self.jobs:
                    return [self.jobs[parent.pid]]
        return []


def json_lines(sample: Sample, per_core: bool = False) -> list[str]:
    """The sample as JSON lines: a line per device (and per core if ``per_core``), a line
    per source not present."""
    lines = []
    for reading in sample.readings:
        base: dict[str, Any] = {"t": round(sample.t, 3), "system": reading.system,
                                "source": reading.source}
        rows = [_device_fields(d) for d in reading.devices
                if per_core or not d.core] if reading.present else [
            {"device": None, "name": None, "util_percent": None, "mem_used_mib": None,
             "mem_total_mib": None, "power_w": None, "temp_c": None, "pids": [], "runs": []}]
        for row in rows:
            record = {**base, "present": reading.present, "why": reading.why, **row}
            lines.append(json.dumps({key: record[key] for key in FIELDS}))
    return lines


def _device_fields(device: Device) -> dict[str, Any]:
    return {"device": device.id, "name": device.name, "util_percent": device.util_percent,
            "mem_used_mib": device.mem_used_mib, "mem_total_mib": device.mem_total_mib,
            "power_w": device.power_w, "temp_c": device.temp_c, "pids": list(device.pids),
            "runs": list(device.runs)}
