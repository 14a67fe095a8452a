"""SambaNova RDU: found by its device files, its tools, or Slurm GRES on the cluster; the
vendor's BERT-Large script through sbatch, sntilestat beside the job, its output read."""

from __future__ import annotations

import shlex
from typing import Any

from accelbench.engine.config import site
from accelbench.engine.core.params import Param
from accelbench.engine.plugin.system import System
from accelbench.engine.systems.sambanova.dialect import SambaNova
from accelbench.engine.systems.sambanova.inventory import detect
from accelbench.engine.systems.sambanova.node import SntilestatNode
from accelbench.engine.systems.sambanova.sambatune import SambaTune
from accelbench.engine.systems.sambanova.telemetry import SambaNovaSampler, SnTileStat
from accelbench.engine.workloads import Context, Plan, Workload, file_arg


def _bert_large(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    """The vendor's BertLarge_run.sh, run inside the sbatch allocation ([slurm] sets it)."""
    script = params["script"] or site.required("sambanova", "bert_large_script")
    return Plan(["bash", file_arg(script), *shlex.split(params["args"])],
                dialects=["sambanova"])


BERT_LARGE = Workload(
    name="sambanova_bert_large",
    title="BERT-Large pre-training (SambaNova)",
    description="The vendor's BertLarge_run.sh through sbatch; ntasks, ntasks_per_node, nodes,"
                " cpus_per_task and gres (rdu:N) in the preset's [slurm] table.",
    accelerators=("sambanova",),
    recipe=_bert_large,
    params=(
        Param("script", str, "", "BertLarge_run.sh (empty: the site configuration's)"),
        Param("args", str, "", "arguments for the script, split like a shell would", words=True),
    ),
)

SYSTEM = System(
    name="sambanova", order=50, title="SambaNova RDU", device="rdu",
    detect=detect,
    site_keys=(Param("bert_large_script", str, "", "path of BertLarge_run.sh"),),
    gres=("rdu",),
    samplers=(SambaNovaSampler,),
    node=(SntilestatNode,),
    dialects=(SambaNova, SambaTune, SnTileStat),
    workloads=(BERT_LARGE,),
    metric_aliases={"training_samples_per_second": "samples_per_s",
                    "e2e_train_time": "train_time_s"},
)
