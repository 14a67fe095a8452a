"""SambaNova RDU: found by its device files, its tools, or Slurm GRES on the cluster."""

from __future__ import annotations

from accelbench.engine.accelerators import Accelerator, Availability
from accelbench.engine.accelerators.probe import devices, slurm_gres, tools

TOOLS = ('snconfig', 'sntilestat',)


def detect() -> Availability:
    """Here when its devices or tools are on this machine, or the cluster has its GRES."""
    found = devices("/dev/rdu*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    gres = slurm_gres().get("rdu")
    if gres:
        return Availability(True, detail=f"through Slurm (GRES rdu:{gres} per node)")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/rdu* here)")
    return Availability(False, reason="no /dev/rdu* devices, no Slurm GRES 'rdu'"
                                      " and none of snconfig, sntilestat on PATH")


ACCELERATOR = Accelerator(name="sambanova", title="SambaNova RDU", device="rdu",
                          detect=detect, sampler="sambanova")
