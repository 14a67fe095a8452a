"""NVIDIA GPUs for ``accelbench top``: through NVML when ``pynvml`` imports and the driver
answers, else through ``nvidia-smi --query-gpu``/``--query-compute-apps`` CSV.

Each GPU gives its utilisation, memory, power, temperature and the processes on it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from accelbench.engine.systems.cuda.dialect import cell_number, query_rows
from accelbench.engine.telemetry.node import Absent, Device, PolledSampler

_MIB = 1024 * 1024
GPU_FIELDS = ("index", "name", "uuid", "utilization.gpu", "memory.used", "memory.total",
              "power.draw", "temperature.gpu")
APP_FIELDS = ("gpu_uuid", "pid")


class NvidiaNode(PolledSampler):
    """Every NVIDIA GPU: NVML first, ``nvidia-smi`` when NVML cannot be had."""

    name = "nvml"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._pynvml: Any = None
        self._handles: list[Any] | None = None  # None until NVML is tried
        self._nvml_why = ""

    def read(self) -> list[Device]:
        if self._handles is None:
            self._open_nvml()
        if self._handles:
            return self._read_nvml()
        self.name = "nvidia-smi"
        try:
            return read_smi(self.run_tool)
        except Absent as exc:
            raise Absent(f"NVML: {self._nvml_why}; {exc}") from None

    def close(self) -> None:
        super().close()
        if self._handles:
            with contextlib.suppress(Exception):
                self._pynvml.nvmlShutdown()

    def _open_nvml(self) -> None:
        self._handles = []
        try:
            import pynvml
        except ImportError:
            self._nvml_why = "pynvml (nvidia-ml-py) is not installed"
            return
        try:
            pynvml.nvmlInit()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i)
                             for i in range(pynvml.nvmlDeviceGetCount())]
        except pynvml.NVMLError as exc:
            self._nvml_why = f"{exc}"
            return
        self._pynvml = pynvml
        self._nvml_why = "" if self._handles else "the driver reports no GPU"

    def _read_nvml(self) -> list[Device]:
        nvml = self._pynvml
        assert self._handles is not None
        found = []
        for i, handle in enumerate(self._handles):
            def get(call: Any, *args: Any, handle: Any = handle) -> Any:
                try:
                    return call(handle, *args)
                except nvml.NVMLError:
                    return None

            name = get(nvml.nvmlDeviceGetName)
            util, mem = get(nvml.nvmlDeviceGetUtilizationRates), get(nvml.nvmlDeviceGetMemoryInfo)
            power = get(nvml.nvmlDeviceGetPowerUsage)
            temp = get(nvml.nvmlDeviceGetTemperature, nvml.NVML_TEMPERATURE_GPU)
            procs = [*(get(nvml.nvmlDeviceGetComputeRunningProcesses) or ()),
                     *(get(nvml.nvmlDeviceGetGraphicsRunningProcesses) or ())]
            found.append(Device(
                f"gpu{i}", name.decode() if isinstance(name, bytes) else name or "",
                float(util.gpu) if util else None,
                round(mem.used / _MIB, 1) if mem else None,
                round(mem.total / _MIB, 1) if mem else None,
                round(power / 1000, 1) if power is not None else None,
                float(temp) if temp is not None else None,
                tuple(sorted({p.pid for p in procs}))))
        return found


def read_smi(run_tool: Callable[[list[str]], str]) -> list[Device]:
    """Every GPU as ``nvidia-smi`` shows it, with the processes on it; ``run_tool`` runs it.
    A GPU row that cannot be read is shown as a device of its own that says so (none read
    at all: ``Absent``, with the row)."""
    unreadable: list[str] = []
    gpus = query_rows(run_tool(["nvidia-smi", f"--query-gpu={','.join(GPU_FIELDS)}",
                                "--format=csv"]), unreadable)
    if unreadable and not gpus:
        raise Absent(f"nvidia-smi printed no GPU row that can be read: {_shown(unreadable[0])}")
    apps = query_rows(run_tool(["nvidia-smi", f"--query-compute-apps={','.join(APP_FIELDS)}",
                                "--format=csv"]))
    return smi_devices(gpus, apps) + [Device("gpu?", f"unreadable nvidia-smi row: {_shown(row)}")
                                      for row in unreadable]


def _shown(row: str) -> str:
    """A row of a tool's output, printable and short."""
    return ascii(row.strip())[1:-1][:80]


def smi_devices(gpus: list[dict[str, str]], apps: list[dict[str, str]]) -> list[Device]:
    """Devices from ``--query-gpu`` rows and the ``--query-compute-apps`` rows on them."""
    pids: dict[str, set[int]] = {}
    for app in apps:
        if app.get("pid", "").isdigit():
            pids.setdefault(app.get("gpu_uuid", ""), set()).add(int(app["pid"]))
    return [Device(f"gpu{row.get('index', i)}", row.get("name", ""),
                   cell_number(row.get("utilization.gpu", "")),
                   cell_number(row.get("memory.used", "")),
                   cell_number(row.get("memory.total", "")),
                   cell_number(row.get("power.draw", "")),
                   cell_number(row.get("temperature.gpu", "")),
                   tuple(sorted(pids.get(row.get("uuid", ""), ()))))
            for i, row in enumerate(gpus)]
