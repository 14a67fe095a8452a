"""How the generic workloads run on NVIDIA GPUs: BERT fine-tuning on every GPU asked for."""

from __future__ import annotations

from typing import Any

from accelbench.engine.core.params import Param
from accelbench.engine.workloads import Context, Plan, Workload

GPUS = Param("gpus", int, 0, "CUDA: GPUs to train on, one torchrun process each"
             " (0: every GPU the job sees)", min=0, max=1024)


def bert_on_gpus(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    """``bert_finetune.py`` under torchrun (``torch.distributed.run``), one process per GPU:
    ``gpus`` of them, or torchrun's ``gpu`` (every GPU visible where the job runs, which a
    Slurm job's ``--gpus`` sets); ``--standalone`` picks a free rendezvous port. Only rank 0
    prints machine lines and the figures."""
    return Plan([ctx.python, "-u", "-m", "torch.distributed.run", "--standalone",
                 f"--nproc_per_node={params['gpus'] or 'gpu'}",
                 workload.script, "--device", ctx.device, *workload.flags(params)])
