"""Groq (GroqChip): found by its device files, its tools, Slurm GRES on the cluster, or
GroqFlow importable by the [groq] Python (or by this one, when none is configured)."""

from __future__ import annotations

import importlib.util
import subprocess

from accelbench.engine import site
from accelbench.engine.accelerators import Accelerator, Availability
from accelbench.engine.accelerators.probe import devices, slurm_gres, tools
from accelbench.engine.errors import UserError

TOOLS = ('groq-smi',)
FIND_GROQFLOW = "import importlib.util, sys; sys.exit(importlib.util.find_spec('groqflow') is None)"


def groqflow() -> tuple[bool, str]:
    """Whether GroqFlow is importable, and by which Python (found, not imported: cheap)."""
    try:
        python = site.value("groq", "python")
    except UserError as exc:
        return False, f"the [groq] python ({exc})"
    if not python:
        return importlib.util.find_spec("groqflow") is not None, "this Python"
    try:
        found = subprocess.run([python, "-c", FIND_GROQFLOW], capture_output=True,
                               timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        found = False
    return found, python


def detect() -> Availability:
    """Here when its devices or tools are on this machine, the cluster has its GRES, or
    GroqFlow is importable (it builds for the GroqChip without one)."""
    found = devices("/dev/groq*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    gres = slurm_gres().get("groq")
    if gres:
        return Availability(True, detail=f"through Slurm (GRES groq:{gres} per node)")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/groq* here)")
    importable, python = groqflow()
    if importable:
        return Availability(True, detail=f"GroqFlow importable by {python} (no /dev/groq* here)")
    return Availability(False, reason="no /dev/groq* devices, no Slurm GRES 'groq', none of"
                                      f" groq-smi on PATH, and GroqFlow not importable by {python}")


ACCELERATOR = Accelerator(name="groq", title="Groq (GroqChip)", device="groq", detect=detect)
