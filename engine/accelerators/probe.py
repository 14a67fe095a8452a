"""Small probes the accelerator modules share: device files, tools on PATH, Slurm GRES."""

from __future__ import annotations

import functools
import glob
import shutil
import subprocess


def devices(pattern: str) -> list[str]:
    """Device files matching ``pattern`` (e.g. ``/dev/neuron*``)."""
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
                             timeout=10)
    except subprocess.TimeoutExpired:
        return {}
    found: dict[str, int] = {}
    for item in out.stdout.replace("\n", ",").split(","):
        name, _, count = item.partition(":")
        count = count.split("(")[0].rpartition(":")[2]
        if name and name != "(null)" and count.isdigit():
            found[name] = max(found.get(name, 0), int(count))
    return found
