"""AWS Trainium (Neuron SDK): found by its device files, its tools, or Slurm GRES on the
cluster (neuron-ls lists its devices); BERT fine-tuning under torchrun, Neuron Monitor beside
the job; the Neuron runtime's, compiler's, NeuronX Distributed's, neuron-monitor's and
neuron-profile's output read."""

from __future__ import annotations

from accelbench.engine.core.params import Param
from accelbench.engine.plugin.system import Column, System
from accelbench.engine.systems.trainium import neuron_ls
from accelbench.engine.systems.trainium.neuron_compile import NeuronCompile
from accelbench.engine.systems.trainium.neuron_monitor import NeuronMonitor
from accelbench.engine.systems.trainium.neuron_profile import NeuronProfile
from accelbench.engine.systems.trainium.neuron_runtime import NeuronRuntime
from accelbench.engine.systems.trainium.node import NeuronNode
from accelbench.engine.systems.trainium.nxd_training import NxDTraining
from accelbench.engine.systems.trainium.telemetry import NeuronSampler
from accelbench.engine.systems.trainium.workloads import BERT

SYSTEM = System(
    name="trainium", order=30, title="AWS Trainium (Neuron SDK)", device="xla",
    detect=neuron_ls.detect,
    site_keys=(
        Param("python", str, "", "the Neuron SDK virtualenv's python"),
        Param("nproc_per_node", int, 2, "torchrun processes (NeuronCores), default 2",
              min=1, max=1024),
        Param("neuron_profile", str, "neuron-profile",
                "the neuron-profile tool, default neuron-profile on PATH"),
    ),
    gres=("neuron",),
    samplers=(NeuronSampler,),
    node=(NeuronNode,),
    dialects=(NeuronProfile, NeuronRuntime, NeuronCompile, NxDTraining, NeuronMonitor,
              neuron_ls.NeuronLs),
    extends=(BERT,),
    columns=(Column(r"^profile\.(mfu|hfu)\w*$", "max"),),
)
