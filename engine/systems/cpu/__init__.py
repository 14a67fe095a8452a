"""The host CPU: always available."""

from __future__ import annotations

import os

from accelbench.engine.core.params import Param
from accelbench.engine.plugin.system import Availability, System
from accelbench.engine.telemetry.host import HostNode
from accelbench.engine.workloads import Extension


def detect() -> Availability:
    """The CPU is always there; say how many cores and which machine."""
    import platform  # (only here: the systems load on every command that reads a log)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return Availability(True, detail=f"{cores} cores, {platform.machine()}")


SYSTEM = System(
    name="cpu", order=10, title="CPU", device="cpu", detect=detect,
    site_keys=(Param("python", str, "", "the job's interpreter"),),
    node=(HostNode,),
    extends=(Extension("mnist_cnn"), Extension("bert_finetune")),
)
