"""Finding Graphcore IPUs here: device files or Graphcore's tools, and the IPUs the tools
list (on an IPU-POD the IPUs are in a V-IPU partition, not under /dev)."""

from __future__ import annotations

import subprocess

from accelbench.engine.plugin.detect import finder, tools
from accelbench.engine.plugin.system import Availability
from accelbench.engine.systems.ipu.telemetry import read_devices, read_monitor

_HERE = finder("/dev/ipu*", ("gc-info", "gc-monitor"))


def detect() -> Availability:
    """Here when IPU device files or the tools are; the detail says how many IPUs
    ``gc-info -l`` lists (else ``gc-monitor`` shows) and in which partition."""
    here = _HERE()
    if not here.available:
        return here
    listed = _gc_info() or _gc_monitor()
    return Availability(True, detail=f"{listed}; {here.detail}") if listed else here


def _gc_info() -> str:
    ipus = [d for d in read_devices(_output("gc-info", "-l")) if not d.members]
    partitions = sorted({d.partition for d in ipus if d.partition})
    where = f" in partition {', '.join(partitions)}" if partitions else ""
    return f"gc-info -l: {len(ipus)} IPU(s){where}" if ipus else ""


def _gc_monitor() -> str:
    monitor = read_monitor(_output("gc-monitor"))
    if not monitor.ipu_count:
        return ""
    return f"gc-monitor: {monitor.ipu_count} IPU(s) in partition {monitor.partition}"


def _output(*argv: str) -> str:
    """What the tool ``argv`` prints ('' when it is not on PATH, fails to start or hangs;
    gc-monitor dumps core when no partition is active)."""
    if not tools(argv[0]):
        return ""
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=10,
                              check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
