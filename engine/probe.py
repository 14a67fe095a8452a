"""Small probes systems detect themselves with: device files, tools on PATH, Slurm GRES."""

from __future__ import annotations

import functools
import glob
import shutil
import subprocess
from collections.abc import Callable

from accelbench.engine.system import Availability


def devices(pattern: str) -> list[str]:
    """Device files matching ``pattern`` (a glob such as ``/dev/xyz*``)."""
    return sorted(glob.glob(pattern))


def tools(*names: str) -> list[str]:
    """Which of the commands ``names`` are on PATH."""
    return [name for name in names if shutil.which(name)]


@functools.lru_cache(maxsize=1)
def slurm_gres() -> dict[str, int]:
    """The largest count per GRES name on this cluster's nodes (empty without Slurm)."""
    if shutil.which("sinfo") is None:
        return {}
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%G"], capture_output=True, text=True,
                             timeout=10, check=False)
    except subprocess.TimeoutExpired:
        return {}
    found: dict[str, int] = {}
    for item in out.stdout.replace("\n", ",").split(","):
        name, _, count = item.partition(":")
        count = count.split("(")[0].rpartition(":")[2]
        if name and name != "(null)" and count.isdigit():
            found[name] = max(found.get(name, 0), int(count))
    return found


def finder(pattern: str, names: tuple[str, ...]) -> Callable[[], Availability]:
    """The usual detection on this machine: here when device files match ``pattern`` or
    tools ``names`` are on PATH (the cluster's GRES are the Slurm launcher's to check)."""
    def detect() -> Availability:
        found = devices(pattern)
        if found:
            return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
        have = tools(*names)
        if have:
            return Availability(True, detail=f"tools found: {', '.join(have)} (no {pattern} here)")
        return Availability(False, reason=f"no {pattern} devices and none of"
                                          f" {', '.join(names)} on PATH")
    return detect

