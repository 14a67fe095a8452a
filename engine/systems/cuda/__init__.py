"""NVIDIA GPUs, found through NVML (the driver's library) without importing torch."""

from __future__ import annotations

from accelbench.engine.core.params import Param
from accelbench.engine.plugin.system import Availability, System
from accelbench.engine.systems.cuda.dialect import NvidiaSmi
from accelbench.engine.systems.cuda.node import NvidiaNode
from accelbench.engine.systems.cuda.telemetry import NvmlSampler
from accelbench.engine.systems.cuda.workloads import GPUS, bert_on_gpus
from accelbench.engine.workloads import Extension


def detect() -> Availability:
    """Available when NVML loads and reports at least one GPU."""
    try:
        import pynvml
    except ImportError:
        return Availability(False, reason="nvidia-ml-py is not installed")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        return Availability(False, reason=f"no NVIDIA driver (NVML: {exc})")
    try:
        count = pynvml.nvmlDeviceGetCount()
        names = [pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(i))
                 for i in range(count)]
    finally:
        pynvml.nvmlShutdown()
    if not count:
        return Availability(False, reason="the NVIDIA driver reports no GPU")
    names = [n.decode() if isinstance(n, bytes) else n for n in names]
    return Availability(True, detail=f"{count}× {names[0]}")


SYSTEM = System(
    name="cuda", order=20, title="NVIDIA GPU (CUDA)", device="cuda", detect=detect,
    site_keys=(Param("python", str, "", "the job's interpreter"),),
    gres=("gpu",),
    samplers=(NvmlSampler,),
    node=(NvidiaNode,),
    dialects=(NvidiaSmi,),
    extends=(Extension("mnist_cnn"),
             Extension("bert_finetune", bert_on_gpus, (GPUS,), "a CUDA knob")),
)
