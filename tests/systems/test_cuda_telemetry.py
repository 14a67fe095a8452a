"""The NVML sampler, against a stand-in ``pynvml`` module (CI has no GPU)."""

from __future__ import annotations

import sys

import pytest

from accelbench.engine.systems.cuda.telemetry import NvmlSampler
from tests.helpers import NVMLError, fake_pynvml


def test_nvml_gives_power_temperature_and_sm_clock(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    readings = {r["engine"]: r for r in NvmlSampler(1.0, tmp_path).start().sample()}
    assert readings["gpu0"]["percent"] == 97.0
    assert readings["gpu0 mem"] == {"engine": "gpu0 mem", "percent": 25.0, "value": 20480.0,
                                    "unit": "MiB"}
    assert readings["gpu0 power"] == {"engine": "gpu0 power", "value": 350.0, "unit": "W",
                                      "percent": 50.0}
    assert readings["gpu0 temp"] == {"engine": "gpu0 temp", "value": 62.0, "unit": "C",
                                     "percent": 68.9}
    assert readings["gpu0 sm clock"]["value"] == 1980.0
    assert readings["gpu0 sm clock"]["percent"] == 100.0


def test_a_reading_nvml_does_not_support_is_left_out(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(power=False))
    engines = [r["engine"] for r in NvmlSampler(1.0, tmp_path).start().sample()]
    assert engines == ["gpu0", "gpu0 mem", "gpu0 temp", "gpu0 sm clock"]


def test_without_nvml_there_are_no_gpu_engines(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    sampler = NvmlSampler(1.0, tmp_path).start()
    assert sampler.sample() == []
    sampler.close()


@pytest.mark.parametrize("broken", ["nvmlInit", "nvmlDeviceGetCount"])
def test_no_driver_means_no_gpu_engines(monkeypatch, tmp_path, broken):
    module = fake_pynvml()

    def fail(*args):
        raise NVMLError("Driver Not Loaded")

    setattr(module, broken, fail)
    monkeypatch.setitem(sys.modules, "pynvml", module)
    assert NvmlSampler(1.0, tmp_path).start().sample() == []
