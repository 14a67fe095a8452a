"""Small probes systems detect themselves with: device files, tools on PATH (a scheduler's
nodes are a launcher's to answer for: ``Launcher.availability``)."""

from __future__ import annotations

import glob
import shutil
from collections.abc import Callable

from accelbench.engine.plugin.system import Availability


def devices(pattern: str) -> list[str]:
    """Device files matching ``pattern`` (a glob such as ``/dev/xyz*``)."""
    return sorted(glob.glob(pattern))


def tools(*names: str) -> list[str]:
    """Which of the commands ``names`` are on PATH."""
    return [name for name in names if shutil.which(name)]


def finder(pattern: str, names: tuple[str, ...]) -> Callable[[], Availability]:
    """The usual detection on this machine: here when device files match ``pattern`` or
    tools ``names`` are on PATH (the cluster's GRES are the registry's to check)."""
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
