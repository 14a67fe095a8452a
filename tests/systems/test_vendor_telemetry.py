"""Vendor telemetry: each system's monitoring tool (a stand-in replaying recorded output)
sampled beside the job, its figures read back as Utilization events."""

import asyncio
import os
import shlex
import sys
from collections import defaultdict

import psutil
import pytest

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Utilization
from accelbench.engine.plugin.registry import get_accelerator
from tests.helpers import ROOT

STANDINS = ROOT / "tests" / "standins"

# engine -> the (percent, value) pairs the recordings in tests/fixtures/recordings hold
RECORDED = {
    "trainium": {"nc0": {(37.5, None), (62.5, None), (87.5, None)},
                 "nc1": {(41.25, None), (58.75, None), (85.0, None)},
                 "neuron mem": {(6.25, 2048.0), (12.5, 4096.0)}},
    "ipu": {"ipu0": {(87.5, None)}, "ipu1": {(43.25, None)},
            "ipu2": {(0.0, None)}, "ipu3": {(0.0, None)}},
    "sambanova": {"rdu0": {(91.6, None), (96.9, None)}, "rdu1": {(45.0, None), (50.2, None)},
                  **{f"rdu{i}": {(0.0, None)} for i in range(2, 8)}},
}
TOOLS = {"trainium": "neuron-monitor", "ipu": "gc-inventory", "sambanova": "sntilestat"}


@pytest.fixture
def run_on(runner, monkeypatch):
    """Run a 2 s job on an accelerator (taken as present) with ``path`` as PATH."""
    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", get_accelerator)

    def run(accelerator, path):
        monkeypatch.setenv("PATH", path)
        command = shlex.join([sys.executable, "-c", "import time; time.sleep(2)"])
        handle = runner.start(spec_from_dict({
            "name": "tel", "accelerator": accelerator, "workload": "command",
            "params": {"command": command}, "telemetry_interval": 0.2}))

        async def collect():
            return [e async for e in handle.events(poll=0.05)]
        return handle, asyncio.run(asyncio.wait_for(collect(), 60))
    return run


def readings(events):
    seen = defaultdict(set)
    for e in events:
        if isinstance(e, Utilization):
            seen[e.engine].add((e.percent, e.value))
    return seen


def running(tool):
    return [p for p in psutil.process_iter(["cmdline", "status"])
            if str(STANDINS / tool) in (p.info["cmdline"] or [])
            and p.info["status"] != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize("accelerator", RECORDED)
def test_recorded_figures_arrive_beside_host_engines(run_on, accelerator):
    handle, events = run_on(accelerator, f"{STANDINS}{os.pathsep}{os.environ['PATH']}")
    assert events[-1].status == "done"
    seen = readings(events)
    for engine, figures in RECORDED[accelerator].items():
        assert seen[engine] and seen[engine] <= figures, engine
    assert {"cpu0", "job cpu", "job rss"} <= seen.keys()
    mem = [e for e in events if isinstance(e, Utilization) and e.engine == "neuron mem"]
    assert all(e.unit == "MiB" for e in mem)
    records = handle.info.path("telemetry.jsonl").read_text().splitlines()
    first_vendor = next(iter(RECORDED[accelerator]))
    assert any('"cpu0"' in r and f'"{first_vendor}"' in r for r in records)  # one record each
    assert not running(TOOLS[accelerator])  # the tool was stopped with the job


@pytest.mark.parametrize("tool, message", [
    (None, "cannot start neuron-monitor: No such file or directory"),
    ("#!/bin/sh\nexit 3\n", "neuron-monitor exited with code 3"),
], ids=["missing", "dies"])
def test_a_missing_or_dying_tool_leaves_host_telemetry_only(run_on, tmp_path, tool, message):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if tool:
        (bin_dir / "neuron-monitor").write_text(tool)
        (bin_dir / "neuron-monitor").chmod(0o755)
    handle, events = run_on("trainium", str(bin_dir))
    assert events[-1].status == "done"
    seen = readings(events)
    assert "cpu0" in seen and not {"nc0", "nc1", "neuron mem"} & seen.keys()
    log = handle.info.path("wrapper.log").read_text().splitlines()
    assert log == [f"accelbench telemetry: {message}; no neuron readings"]
