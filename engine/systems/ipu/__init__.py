"""Graphcore IPU (PopTorch): found by its device files, its tools, or Slurm GRES on the
cluster; the seeds' MNIST CNN through PopTorch, gc-inventory beside the job, PopTorch's
output read."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from accelbench.engine.core.params import Param
from accelbench.engine.plugin.system import System
from accelbench.engine.systems.ipu.detect import detect
from accelbench.engine.systems.ipu.dialect import PopTorch
from accelbench.engine.systems.ipu.examples import GraphcoreExamples
from accelbench.engine.systems.ipu.node import GraphcoreNode
from accelbench.engine.systems.ipu.telemetry import GraphcoreSampler
from accelbench.engine.workloads import (
    COMMAND,
    MNIST_CNN,
    Context,
    Extension,
    Plan,
    Workload,
    own_script,
)


def _poptorch(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    """Our PopTorch MNIST script under the PopTorch virtualenv's Python ([ipu] python)."""
    return own_script(workload, params, ctx, "poptorch")


MNIST_POPTORCH = Workload(
    name="mnist_poptorch",
    title="MNIST CNN (Graphcore PopTorch)",
    description="The seeds' MNIST CNN through PopTorch, as in Graphcore's tutorial; on the"
                " IPUs of an srun allocation (--ipus=N in [slurm] extra).",
    accelerators=("ipu",),
    script=str(Path(__file__).resolve().parent / "mnist_poptorch.py"),
    recipe=_poptorch,
    params=(
        *(MNIST_CNN.param(name) for name in ("learning_rate", "epochs", "batch_size",
                                             "test_batch_size")),
        Param("device_iterations", int, 50, "training steps per call of the IPU"
              " (PopTorch deviceIterations; the tutorial's: 50)", min=1, max=100000),
        *(MNIST_CNN.param(name) for name in ("data", "data_dir", "train_samples",
                                             "test_samples", "seed")),
    ),
)

def _command(workload: Workload, params: dict[str, Any], ctx: Context) -> Plan:
    """The user's command on IPUs (a Graphcore example such as BERT's run_pretraining.py, or
    poprun): its output read live with the PopTorch and Graphcore examples dialects."""
    return dataclasses.replace(COMMAND.plan(params, ctx),
                               dialects=[PopTorch.name, GraphcoreExamples.name])


SYSTEM = System(
    name="ipu", order=40, title="Graphcore IPU (PopTorch)", device="ipu",
    detect=detect,
    site_keys=(Param("python", str, "", "the PopTorch virtualenv's python"),),
    gres=("ipu",),
    samplers=(GraphcoreSampler,),
    node=(GraphcoreNode,),
    dialects=(PopTorch, GraphcoreExamples),
    metric_aliases={"training_time": "train_time_s", "epochs_time": "train_time_s"},
    workloads=(MNIST_POPTORCH,),
    extends=(Extension("command", recipe=_command),),
)
