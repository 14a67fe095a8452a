"""Trainium's BERT fine-tuning: the generic script under torchrun, one process per
NeuronCore, on XLA, told the Neuron SDK's names; through ``neuron_job.py`` when
pre-compiling or profiling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelbench.engine.config import site
from accelbench.engine.core.params import Param
from accelbench.engine.workloads import Context, Extension, Plan, Workload

HERE = Path(__file__).resolve().parent

NEURON_KNOBS = (
    Param("precompile", bool, False, "Trainium: run the job under neuron_parallel_compile first"
          " (its graphs compiled in parallel into the Neuron cache)"),
    Param("profile", bool, False, "Trainium: capture a device profile (NEURON_RT_INSPECT_*) and"
          " import neuron-profile's summary (per-engine active time, MFU) as run metrics"),
)

# bert_finetune.py's device integration: what it names when torch_xla is missing, and
# neuron_parallel_compile's trace-only pass (the job run with NEURON_PARALLEL_COMPILE=1)
NEURON_FLAGS = (
    "--device-sdk=Neuron SDK",
    ("--missing-device-hint=set [trainium] python in accelbench's config.toml to the Neuron"
     " virtualenv"),
    "--trace-only-env=NEURON_PARALLEL_COMPILE",
    "--trace-only-tool=neuron_parallel_compile",
)


def _bert(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    nproc = site.value("trainium", "nproc_per_node")
    job = [ctx.python, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}",
           workload.script, "--device", "xla", *NEURON_FLAGS, *workload.flags(params)]
    if not (params["precompile"] or params["profile"]):
        return Plan(job, dialects=["neuron_runtime"])
    argv, env = [ctx.python, "-u", str(HERE / "neuron_job.py")], {}
    if params["precompile"]:
        argv += ["--precompile", _beside(ctx.python, "neuron_parallel_compile")]
    if params["profile"]:
        profile = str(ctx.run_dir / "profile")
        argv += ["--profile", profile, "--neuron-profile",
                 site.value("trainium", "neuron_profile")]
        env = {"NEURON_RT_INSPECT_ENABLE": "1", "NEURON_RT_INSPECT_DEVICE_PROFILE": "1",
               "NEURON_RT_INSPECT_OUTPUT_DIR": profile}
    dialects = ["neuron_runtime", *(["neuron_profile"] if params["profile"] else [])]
    return Plan([*argv, "--", *job], env=env, dialects=dialects)


def _beside(python: str, tool: str) -> str:
    """``tool`` in the bin directory of ``python``'s virtualenv if there, else by name (PATH)."""
    path = Path(python).parent / tool
    return str(path) if "/" in python and path.is_file() else tool


BERT = Extension("bert_finetune", recipe=_bert, params=NEURON_KNOBS, what="a Neuron SDK knob")
