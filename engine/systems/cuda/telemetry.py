"""NVIDIA GPU sampler: utilisation and memory of every GPU, read in-process through NVML."""

from __future__ import annotations

import contextlib
from typing import Any

from accelbench.engine.telemetry.tool import Readings, ToolSampler

_MIB = 1024 * 1024


class NvmlSampler(ToolSampler):
    """``gpu<i>`` (percent busy) and ``gpu<i> mem`` engines; no GPU or driver: none."""

    name = "nvml"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._handles: list[Any] = []

    def start(self) -> NvmlSampler:
        """Open NVML (nothing to run beside the job)."""
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i)
                             for i in range(pynvml.nvmlDeviceGetCount())]
        except Exception:  # noqa: BLE001 - no driver, no library: no GPU engines
            self._handles = []
        return self

    def sample(self) -> Readings:
        """One reading per GPU and one of its memory."""
        if not self._handles:
            return []
        import pynvml

        out = []
        for i, handle in enumerate(self._handles):
            try:
                util = pynvml.nvmlDeviceGetUtilizationRates(handle)
                mem = pynvml.nvmlDeviceGetMemoryInfo(handle)
            except pynvml.NVMLError:
                continue
            out.append({"engine": f"gpu{i}", "percent": float(util.gpu)})
            out.append({"engine": f"gpu{i} mem", "percent": round(100 * mem.used / mem.total, 2),
                        "value": round(mem.used / _MIB, 1), "unit": "MiB"})
        return out

    def close(self, grace: float = 2.0) -> None:
        """Let NVML go."""
        if self._handles:
            import pynvml

            with contextlib.suppress(pynvml.NVMLError):
                pynvml.nvmlShutdown()
