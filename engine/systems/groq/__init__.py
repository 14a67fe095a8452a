"""Groq (GroqChip): found by its device files, its tools, Slurm GRES on the cluster, or
GroqFlow importable by the [groq] Python (or by this one, when none is configured);
GroqFlow's bert_tiny proof point, its output read."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from typing import Any

from accelbench.engine.config import site
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.params import Param
from accelbench.engine.plugin.detect import devices, tools
from accelbench.engine.plugin.system import Availability, Column, System
from accelbench.engine.systems.groq.dialect import GroqFlow
from accelbench.engine.workloads import Context, Plan, Workload, own_script

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
    """Here when its devices or tools are on this machine, or GroqFlow is importable (it
    builds for the GroqChip without one); the registry adds the cluster's GRES."""
    found = devices("/dev/groq*")
    if found:
        return Availability(True, detail=f"{len(found)} device(s): {', '.join(found[:4])}")
    have = tools(*TOOLS)
    if have:
        return Availability(True, detail=f"tools found: {', '.join(have)} (no /dev/groq* here)")
    importable, python = groqflow()
    if importable:
        return Availability(True, detail=f"GroqFlow importable by {python} (no /dev/groq* here)")
    return Availability(False, reason="no /dev/groq* devices, none of groq-smi on PATH,"
                                      f" and GroqFlow not importable by {python}")


def _bert_tiny(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    """Our GroqFlow bert_tiny driver under the GroqFlow virtualenv's Python ([groq] python)."""
    return own_script(workload, params, ctx, "groq")


BERT_TINY = Workload(
    name="groq_bert_tiny",
    title="BERT-tiny inference (GroqFlow)",
    description="GroqFlow's bert_tiny proof point: built for the GroqChip by groqit, then SST"
                " accuracy, latency and inferences/s on the GroqChip and on the CPU.",
    accelerators=("groq",),
    script=str(Path(__file__).resolve().parent / "groq_bert_tiny.py"),
    recipe=_bert_tiny,
    params=(
        Param("model", str, "M-FAC/bert-tiny-finetuned-sst2",
              "Hugging Face name or local path of an SST-2 classifier (the proof point's)"),
        Param("batch_size", int, 1, "inputs per GroqChip call (the seeds' value: 1)",
              min=1, max=1024),
        Param("max_seq_length", int, 128, "tokens per input (the seeds: 128, then 512)",
              min=8, max=512),
        Param("mode", str, "both", "build (groqit only), execute (a cached build) or both",
              choices=("both", "build", "execute")),
    ),
)

SYSTEM = System(
    name="groq", order=70, title="Groq (GroqChip)", device="groq", detect=detect,
    site_keys=(Param("python", str, "",
                       "the GroqFlow virtualenv's python (groqflow and demo_helpers)"),),
    gres=("groq",),
    dialects=(GroqFlow,),
    workloads=(BERT_TINY,),
    metric_aliases={"groq.ips": "samples_per_s", "groq.accuracy": "accuracy"},
    columns=(Column(r"^\w+\.(ips|on_chip_ips)$", "max"),
             Column(r"^\w+\.(e2e_latency_ms|on_chip_latency_ms)$", "min")),
)
