"""The host CPU: always available."""

from __future__ import annotations

import os
import platform

from accelbench.engine.accelerators import Accelerator, Availability


def detect() -> Availability:
    """The CPU is always there; say how many cores and which machine."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return Availability(True, detail=f"{cores} cores, {platform.machine()}")


ACCELERATOR = Accelerator(name="cpu", title="CPU", device="cpu", detect=detect)
