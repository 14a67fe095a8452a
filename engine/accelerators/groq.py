"""Groq (GroqChip): found by its device files, its tools, or Slurm GRES on the cluster."""

from __future__ import annotations

from engine.accelerators import Accelerator, Availability
from engine.accelerators.probe import devices, slurm_gres, tools

TOOLS = ('groq-smi',)


def detect() -> Availability:
    """Here when its devices or tools are on this machine, or the cluster has its GRES."""
    found = devices("/dev/groq*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    gres = slurm_gres().get("groq")
    if gres:
        return Availability(True, detail=f"through Slurm (GRES groq:{gres} per node)")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/groq* here)")
    return Availability(False, reason="no /dev/groq* devices, no Slurm GRES 'groq'"
                                      " and none of groq-smi on PATH")


ACCELERATOR = Accelerator(name="groq", title="Groq (GroqChip)", device="groq", detect=detect)
