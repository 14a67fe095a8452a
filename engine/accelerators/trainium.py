"""AWS Trainium (Neuron SDK): found by its device files, its tools, or Slurm GRES on the cluster."""

from __future__ import annotations

from accelbench.engine.accelerators import Accelerator, Availability
from accelbench.engine.accelerators.probe import devices, slurm_gres, tools

TOOLS = ('neuron-ls', 'neuron-top', 'neuron-monitor',)


def detect() -> Availability:
    """Here when its devices or tools are on this machine, or the cluster has its GRES."""
    found = devices("/dev/neuron*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    gres = slurm_gres().get("neuron")
    if gres:
        return Availability(True, detail=f"through Slurm (GRES neuron:{gres} per node)")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/neuron* here)")
    return Availability(False, reason="no /dev/neuron* devices, no Slurm GRES 'neuron'"
                                      " and none of neuron-ls, neuron-top, neuron-monitor on PATH")


ACCELERATOR = Accelerator(name="trainium", title="AWS Trainium (Neuron SDK)", device="xla",
                          detect=detect, sampler="neuron")
