"""Graphcore IPU (PopTorch): found by its device files, its tools, or Slurm GRES on the cluster."""

from __future__ import annotations

from accelbench.engine.accelerators import Accelerator, Availability
from accelbench.engine.accelerators.probe import devices, slurm_gres, tools

TOOLS = ('gc-info', 'gc-monitor',)


def detect() -> Availability:
    """Here when its devices or tools are on this machine, or the cluster has its GRES."""
    found = devices("/dev/ipu*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    gres = slurm_gres().get("ipu")
    if gres:
        return Availability(True, detail=f"through Slurm (GRES ipu:{gres} per node)")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/ipu* here)")
    return Availability(False, reason="no /dev/ipu* devices, no Slurm GRES 'ipu'"
                                      " and none of gc-info, gc-monitor on PATH")


ACCELERATOR = Accelerator(name="ipu", title="Graphcore IPU (PopTorch)", device="ipu",
                          detect=detect, sampler="graphcore")
