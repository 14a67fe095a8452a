"""The Graphcore IPU workload: PopTorch MNIST under srun, with a stand-in poptorch."""

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.events import Diagnosis, Log, Phase
from accelbench.engine.launchers.slurm.commands import QUEUE
from accelbench.engine.run.runner import Runner
from tests.helpers import ROOT, SYSTEMS

STANDINS = ROOT / "tests" / "standins"
OPTIONS = '{"autoReport.all":"true", "autoReport.directory":"./profile"}'


def no_env_words(argv):
    """True when no word of ``argv`` is a ``VAR=value`` (the seeds' broken srun form)."""
    return not any("=" in arg and not arg.startswith("-") for arg in argv)


def test_preset_command_line_and_srun_argv(home, runner, tmp_path, monkeypatch):
    config = Path(home).parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[ipu]\npython = "/opt/poptorch33_env/bin/python"\n')
    spec = load_preset(find_preset("ipu-mnist-seed"), [f"env.POPLAR_ENGINE_OPTIONS={OPTIONS}"])
    plan = Runner.plan(spec, tmp_path)
    assert plan.argv == [
        "/opt/poptorch33_env/bin/python", "-u", str(SYSTEMS / "ipu" / "mnist_poptorch.py"),
        "--learning-rate=0.03", "--epochs=10", "--batch-size=8", "--test-batch-size=80",
        "--device-iterations=50", "--data=auto", "--data-dir=", "--train-samples=0",
        "--test-samples=0", "--seed=0"]
    assert plan.dialects == ["poptorch"]

    fake = tmp_path / "bin"  # stand-in srun and sinfo: the argv is what is checked
    fake.mkdir()
    for tool in ("srun", "sinfo"):
        (fake / tool).write_text("#!/bin/sh\nexit 0\n")
        (fake / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", lambda name: None)
    handle = runner.start(spec)
    srun = json.loads(handle.info.path("slurm.json").read_text())["srun"]
    assert srun[0] == str(fake / "srun") and "--ipus=1" in srun and no_env_words(srun)
    launch = json.loads(handle.info.path("launch.json").read_text())
    assert launch["env"]["POPLAR_ENGINE_OPTIONS"] == OPTIONS


def run_quick(runner, *overrides):
    """The preset's run through the test cluster's srun, 1 short epoch on synthetic data."""
    spec = load_preset(find_preset("ipu-mnist-seed"), [
        "slurm.extra=", "slurm.gres=ipu:1", "data=synthetic", "epochs=1",
        "train_samples=800", "test_samples=160", "device_iterations=10", *overrides])
    handle = runner.start(spec)

    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    return handle, asyncio.run(asyncio.wait_for(collect(), 180))


@pytest.fixture
def slurm(request, monkeypatch):
    request.getfixturevalue("cluster")
    monkeypatch.setattr(QUEUE, "interval", 0.5)


@pytest.mark.slurm
def test_run_through_srun_with_the_stand_in_poptorch(slurm, runner):
    handle, events = run_quick(runner, f"env.PYTHONPATH={STANDINS}",
                               f"env.POPLAR_ENGINE_OPTIONS={OPTIONS}")
    assert events[-1].status == "done", events[-1].summary
    phases = [(e.name, e.detail) for e in events if isinstance(e, Phase)]
    assert ("compiling", "graph compilation 100%") in phases  # the poptorch dialect's
    names = [name for name, _ in phases]
    assert names[names.index("loading"):] == [
        "loading", "compiling", "compiling", "running", "compiling", "evaluating", "done"]
    progress = [e for e in events if e.kind == "progress"]
    assert progress[-1].step == progress[-1].total == 10
    summary = events[-1].summary
    assert 0 <= summary["accuracy"] <= 100 and summary["samples_per_s"] > 0
    assert f"Profiling with POPLAR_ENGINE_OPTIONS={OPTIONS}" in [
        e.text for e in events if isinstance(e, Log)]
    srun = json.loads(handle.info.path("slurm.json").read_text())["srun"]
    assert "--gres=ipu:1" in srun and no_env_words(srun)


@pytest.mark.slurm
def test_run_without_poptorch_says_so(slurm, runner):
    _, events = run_quick(runner)
    assert events[-1].status == "failed"
    missing = next(e for e in events if isinstance(e, Diagnosis) and e.code == "poptorch_missing")
    assert sys.executable in missing.message and "[ipu] python" in missing.hint
