"""A system available through Slurm: its generic resources (GRES) on the cluster's nodes,
where the login node has none of its devices (``Launcher.availability``, for both launchers)."""

from __future__ import annotations

import functools
import shutil
import subprocess

from accelbench.engine.plugin.system import Availability, System


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


def reach(system: System) -> Availability | None:
    """Available through the first of ``system``'s GRES names this cluster's nodes have,
    else unavailable saying so; None for a system that names no GRES."""
    if not system.gres:
        return None
    for name in system.gres:
        count = slurm_gres().get(name)
        if count:
            return Availability(True, detail=f"through Slurm (GRES {name}:{count} per node)")
    return Availability(False, reason="no Slurm GRES " + ", ".join(repr(n) for n in system.gres))
