"""NVIDIA GPU sampler: utilisation, memory, power, temperature and SM clock of every GPU,
read in-process through NVML."""

from __future__ import annotations

import contextlib
from typing import Any

from accelbench.engine.telemetry.tool import Readings, ToolSampler

_MIB = 1024 * 1024


class NvmlSampler(ToolSampler):
    """``gpu<i>`` (percent busy) and ``gpu<i> mem`` engines, and where the GPU reports them
    ``gpu<i> power`` (W, % of the enforced limit), ``gpu<i> temp`` (°C, % of the slowdown
    threshold) and ``gpu<i> sm clock`` (MHz, % of its maximum); no GPU or driver: none."""

    name = "nvml"

    def __init__(self, *args: Any) -> None:
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
            out += _extra(pynvml, handle, i)
        return out

    def close(self, grace: float = 2.0) -> None:
        """Let NVML go."""
        if self._handles:
            import pynvml

            with contextlib.suppress(pynvml.NVMLError):
                pynvml.nvmlShutdown()


def _extra(pynvml: Any, handle: Any, i: int) -> Readings:
    """Power, temperature and SM clock of GPU ``i``, each left out where NVML lacks it."""
    out = []
    readings = (
        ("power", "W", lambda: pynvml.nvmlDeviceGetPowerUsage(handle) / 1000,
         lambda: pynvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000),
        ("temp", "C", lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
         lambda: pynvml.nvmlDeviceGetTemperatureThreshold(
             handle, pynvml.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)),
        ("sm clock", "MHz", lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
         lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM)),
    )
    for name, unit, value, scale in readings:
        try:
            now, top = float(value()), float(scale())
        except pynvml.NVMLError:
            continue
        out.append({"engine": f"gpu{i} {name}", "value": round(now, 1), "unit": unit,
                    "percent": round(100 * now / top, 1) if top > 0 else 0.0})
    return out
