"""Trainium: the compile phase of BERT on XLA, neuron_parallel_compile pre-compilation and
neuron-profile capture, with stand-ins for the Neuron virtualenv's python, for
neuron_parallel_compile and for neuron-profile (tests/standins)."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import Phase
from accelbench.engine.run.runner import Runner
from accelbench.engine.rundir.files import WORK_DIR
from accelbench.engine.systems.trainium.neuron_runtime import NeuronRuntime
from accelbench.engine.workloads import SCRIPTS_DIR
from accelbench.engine.workloads.emit import PREFIX
from tests.helpers import FIXTURES, ROOT, SYSTEMS

STANDINS = ROOT / "tests" / "standins"
NEURON_BIN = STANDINS / "neuron-venv" / "bin"
PRESET = "trainium-bert-padding-32"


@pytest.fixture
def watcher_class(monkeypatch):
    """bert_finetune.py's Trainer callback (imported as the script imports its siblings)."""
    monkeypatch.syspath_prepend(str(SCRIPTS_DIR))
    import bert_finetune

    return bert_finetune.Watcher


def train(watcher, steps_per_epoch: int = 3, epochs: int = 2) -> None:
    """Call ``watcher`` as the Trainer does: steps, logs, an evaluation after each epoch."""
    args = SimpleNamespace(per_device_train_batch_size=8, world_size=2)
    state = SimpleNamespace(global_step=0, max_steps=steps_per_epoch * epochs, epoch=0.0)
    control = SimpleNamespace(should_training_stop=False, should_evaluate=False)
    watcher.on_train_begin(args, state, control)
    for _ in range(epochs):
        for _ in range(steps_per_epoch):
            watcher.on_step_begin(args, state, control)
            state.global_step += 1
            state.epoch = state.global_step / steps_per_epoch
            watcher.on_step_end(args, state, control)
            watcher.on_log(args, state, control, logs={"loss": 0.5, "epoch": state.epoch})
        control.should_evaluate = True
        watcher.on_epoch_end(args, state, control)
        control.should_evaluate = False


def machine_events(text: str) -> list[dict]:
    return [json.loads(line[len(PREFIX):]) for line in text.splitlines()
            if line.startswith(PREFIX)]


def story(events: list[dict]) -> list:
    """Phases as (name, detail), progress as its step, other events as their type."""
    return [(e["name"], e["detail"]) if e["type"] == "phase" else
            e["step"] if e["type"] == "progress" else e["type"] for e in events]


COMPILING = ("compiling", "XLA graph compilation (first steps)")


def test_xla_first_steps_are_the_compiling_phase(watcher_class, capsys):
    train(watcher_class(SimpleNamespace(requested=False), epochs=2, interval=0, xla=True))
    assert story(machine_events(capsys.readouterr().out)) == [
        COMPILING,
        1, "throughput", "metric",
        2, "throughput", "metric",
        ("running", ""),
        3, "throughput", "metric",
        ("evaluating", ""),
        ("running", ""),
        4, "throughput", "metric", 5, "throughput", "metric", 6, "throughput", "metric",
        ("evaluating", "")]


def test_short_epochs_on_xla_come_back_to_compiling_after_evaluation(watcher_class, capsys):
    train(watcher_class(SimpleNamespace(requested=False), epochs=2, interval=0, xla=True),
          steps_per_epoch=1)
    phases = [e for e in story(machine_events(capsys.readouterr().out)) if isinstance(e, tuple)]
    assert phases == [COMPILING, ("evaluating", ""), COMPILING, ("evaluating", "")]


def test_cpu_has_no_compiling_phase(watcher_class, capsys):
    train(watcher_class(SimpleNamespace(requested=False), epochs=2, interval=0))
    phases = [e for e in story(machine_events(capsys.readouterr().out)) if isinstance(e, tuple)]
    assert phases == [("running", ""), ("evaluating", ""), ("running", ""), ("evaluating", "")]


def test_neuron_parallel_compile_pass_only_compiles_and_reports_no_figures(watcher_class, capsys):
    train(watcher_class(SimpleNamespace(requested=False), epochs=2, interval=0, xla=True,
                        tracing_for="neuron_parallel_compile"))
    tracing = "neuron_parallel_compile: tracing the {} graphs"
    assert story(machine_events(capsys.readouterr().out)) == [
        ("compiling", tracing.format("training")), 1, 2, 3,
        ("compiling", tracing.format("evaluation")),
        ("compiling", tracing.format("training")), 4, 5, 6,
        ("compiling", tracing.format("evaluation"))]


# ---- neuron_parallel_compile and neuron-profile ----------------------------------------

BERT_FLAGS = ["--model=bert-base-uncased", "--dataset=glue/sst2", "--max-seq-length=32",
              "--batch-size=32", "--epochs=3", "--learning-rate=5e-05", "--train-samples=0",
              "--eval-samples=0", "--precision=fp32", "--logging-steps=10", "--seed=42"]
NEURON_FLAGS = ["--device-sdk=Neuron SDK",
                ("--missing-device-hint=set [trainium] python in accelbench's config.toml to the"
                 " Neuron virtualenv"),
                "--trace-only-env=NEURON_PARALLEL_COMPILE",
                "--trace-only-tool=neuron_parallel_compile"]


@pytest.fixture
def neuron_site(home, tmp_path, monkeypatch):
    """[trainium] python is the stand-in Neuron virtualenv's; the stand-in neuron-profile and
    neuron-monitor are on PATH; the stand-ins log their calls to ``calls.jsonl``."""
    config = Path(home).parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[trainium]\npython = "{NEURON_BIN / "python"}"\n')
    monkeypatch.setenv("PATH", f"{STANDINS}:{os.environ['PATH']}")
    monkeypatch.setenv("NEURON_STANDIN_CALLS", str(tmp_path / "calls.jsonl"))
    return SimpleNamespace(config=config, calls=tmp_path / "calls.jsonl")


def torchrun(python: str) -> list[str]:
    return [python, "-m", "torch.distributed.run", "--nproc_per_node=2",
            str(SCRIPTS_DIR / "bert_finetune.py"), "--device", "xla", *NEURON_FLAGS,
            *BERT_FLAGS]


def test_precompile_and_profile_command_line(neuron_site, tmp_path):
    spec = load_preset(find_preset(PRESET), ["precompile=true", "profile=true"])
    plan = Runner.plan(spec, tmp_path)
    python = str(NEURON_BIN / "python")
    assert plan.argv == [python, "-u", str(SYSTEMS / "trainium" / "neuron_job.py"),
                         "--precompile", str(NEURON_BIN / "neuron_parallel_compile"),
                         "--profile", str(tmp_path / "profile"),
                         "--neuron-profile", "neuron-profile",
                         "--", *torchrun(python)]
    assert plan.env == {"NEURON_RT_INSPECT_ENABLE": "1", "NEURON_RT_INSPECT_DEVICE_PROFILE": "1",
                        "NEURON_RT_INSPECT_OUTPUT_DIR": str(tmp_path / "profile")}
    assert plan.dialects == ["neuron_runtime", "neuron_profile"]


def test_profile_preset_command_line(neuron_site, tmp_path):
    spec = load_preset(find_preset("trainium-bert-padding-32-profile"))
    plan = Runner.plan(spec, tmp_path)
    python = str(NEURON_BIN / "python")
    assert plan.argv == [python, "-u", str(SYSTEMS / "trainium" / "neuron_job.py"),
                         "--profile", str(tmp_path / "profile"),
                         "--neuron-profile", "neuron-profile",
                         "--", *torchrun(python)]
    assert plan.env["NEURON_RT_INSPECT_OUTPUT_DIR"] == str(tmp_path / "profile")
    assert spec.env == {"NEURON_RT_STOCHASTIC_ROUNDING_EN": "0",
                        "NEURON_CC_FLAGS": "--model-type=transformer"}


def test_precompile_alone_and_the_tools_from_the_site(neuron_site, tmp_path):
    neuron_site.config.write_text('[trainium]\npython = "/opt/neuron/bin/python"\n'
                                  'neuron_profile = "/opt/aws/neuron/bin/neuron-profile"\n')
    plan = Runner.plan(load_preset(find_preset(PRESET), ["precompile=true"]), tmp_path)
    assert plan.argv == ["/opt/neuron/bin/python", "-u",
                         str(SYSTEMS / "trainium" / "neuron_job.py"),
                         "--precompile", "neuron_parallel_compile",  # none beside python: PATH's
                         "--", *torchrun("/opt/neuron/bin/python")]
    assert plan.env == {} and plan.dialects == ["neuron_runtime"]
    plan = Runner.plan(load_preset(find_preset(PRESET), ["profile=true"]), tmp_path)
    assert plan.argv[3:7] == ["--profile", str(tmp_path / "profile"), "--neuron-profile",
                              "/opt/aws/neuron/bin/neuron-profile"]
    plan = Runner.plan(load_preset(find_preset(PRESET)), tmp_path)
    assert plan.argv == torchrun("/opt/neuron/bin/python") and plan.env == {}


def test_neuron_knobs_are_refused_off_trainium(home, tmp_path):
    spec = load_preset(find_preset("cpu-bert-finetune-tiny"), ["profile=true"])
    with pytest.raises(UserError, match=r"^params.profile: a Neuron SDK knob, for accelerator "
                                        r"'trainium' only$"):
        Runner.plan(spec, tmp_path)


def follow(runner, *overrides: str):
    handle = runner.start(load_preset(find_preset(PRESET), list(overrides)))

    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    return asyncio.run(asyncio.wait_for(collect(), 60)), handle.info


def calls(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_precompiled_and_profiled_run_with_stand_ins(neuron_site, runner):
    events, info = follow(runner, "precompile=true", "profile=true")
    assert events[-1].status == "done", events[-1].summary
    capture = info.dir / WORK_DIR / "profile" / "i-0ade06f040a13f2bf_pid_210229"
    neff = capture / "neff_14382885777943380728.neff"
    phases = [(e.name, e.detail) for e in events if isinstance(e, Phase)]
    assert phases[2:] == [
        ("compiling",
         "neuron_parallel_compile: the job's graphs compiled in parallel into the cache"),
        ("completing", f"neuron-profile: summary of {neff.name}"),
        ("done", "")]
    precompile, job, view = calls(neuron_site.calls)
    assert precompile["tool"] == job["tool"] == "torchrun"
    assert precompile["args"] == job["args"] == torchrun("")[3:]
    assert precompile["env"]["NEURON_PARALLEL_COMPILE"] == "1"
    assert "NEURON_PARALLEL_COMPILE" not in job["env"]
    assert job["env"]["NEURON_RT_INSPECT_OUTPUT_DIR"] == str(info.dir / WORK_DIR / "profile")
    assert view == {"tool": "neuron-profile", "args": [
        "view", "--output-format", "summary-text", "-n", str(neff),
        "-s", str(capture / "14382885777943380728_instid_0_vnc_0.ntff")]}
    summary = events[-1].summary
    engines = {k: v for k, v in summary["utilization"].items() if k in PROFILE_ENGINES}
    assert engines == PROFILE_ENGINES
    m = summary["metrics"]
    assert m["profile.mfu_estimated_percent"] == 10.45
    assert m["profile.hfu_estimated_percent"] == 12.65
    assert m["profile.total_time"] == pytest.approx(0.05482)
    assert m["profile.device_memory.Total"] == pytest.approx(5.473 * 2**30)
    assert "diagnoses" not in summary


PROFILE_ENGINES = {"tensor": 21.21, "vector": 40.17, "scalar": 32.9, "gpsimd": 3.49,
                   "sync": 0.75, "dma": 81.95, "cc": 26.81}


def test_profile_without_a_capture_says_why(neuron_site, runner):
    events, _ = follow(runner, "profile=true", "env.NEURON_RT_INSPECT_DEVICE_PROFILE=0")
    assert events[-1].status == "done"
    [empty] = [e for e in events if e.kind == "diagnosis"]
    assert empty.code == "profile_empty" and "NEURON_RT_INSPECT_DEVICE_PROFILE=1" in empty.hint
    assert [c["tool"] for c in calls(neuron_site.calls)] == ["torchrun"]


def test_missing_neuron_parallel_compile_fails_before_the_job(neuron_site, runner, tmp_path):
    bare = tmp_path / "venv" / "bin"  # a Neuron virtualenv without torch-neuronx's tools
    bare.mkdir(parents=True)
    shutil.copy(NEURON_BIN / "python", bare / "python")
    neuron_site.config.write_text(f'[trainium]\npython = "{bare / "python"}"\n')
    events, _ = follow(runner, "precompile=true")
    assert events[-1].status == "failed"
    missing = next(e for e in events if e.kind == "diagnosis")
    assert missing.code == "neuron_parallel_compile_missing"
    assert not neuron_site.calls.exists()  # the job never started


def test_failed_graph_compilations_are_diagnosed():
    log = (FIXTURES / "recordings" / "neuron_parallel_compile.log").read_text()
    assert not [e for line in log.splitlines() for e in NeuronRuntime("r").feed(line, 0)]
    line = ("2024-10-24 18:49:49.000950: INFO ||NEURON_PARALLEL_COMPILE||: "
            "Total failed compilations: 3")
    [diagnosis] = NeuronRuntime("r").feed(line, 0)
    assert diagnosis.code == "neuron_precompile_graphs_failed"


# ---- bert_finetune.py as the recipe runs it: the Neuron SDK's names come from the recipe ----

def run_script(neuron_site, tmp_path, device: str, *overrides: str, env: dict | None = None):
    """bert_finetune.py with the recipe's argv (from the script on, ``--device`` replaced)."""
    argv = Runner.plan(load_preset(find_preset(PRESET)), tmp_path).argv
    script = argv.index(str(SCRIPTS_DIR / "bert_finetune.py"))
    assert argv[script + 1:script + 3] == ["--device", "xla"]
    assert argv[script + 3:script + 7] == NEURON_FLAGS
    job = [sys.executable, *argv[script:script + 2], device, *argv[script + 3:], *overrides]
    return subprocess.run(job, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          check=False, env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def test_neuron_parallel_compile_pass_of_the_script_traces_and_reports_nothing(neuron_site,
                                                                               tmp_path):
    done = run_script(neuron_site, tmp_path, "cpu", "--model=tiny", "--dataset=synthetic",
                      "--train-samples=16", "--eval-samples=8", "--batch-size=8", "--epochs=1",
                      env={"NEURON_PARALLEL_COMPILE": "1"})
    assert done.returncode == 0, done.stderr
    events = machine_events(done.stdout)
    tracing = "neuron_parallel_compile: tracing the {} graphs"
    assert [(e["name"], e["detail"]) for e in events if e["type"] == "phase"] == [
        ("loading", "model tiny, dataset synthetic"),
        ("compiling", tracing.format("training")), ("compiling", tracing.format("evaluation"))]
    assert {e["type"] for e in events} == {"phase", "diagnosis", "progress"}  # no figures
    assert done.stdout.splitlines()[-1] == ("Graphs traced for neuron_parallel_compile; "
                                            "this pass's figures are not real.")


def test_script_without_torch_xla_names_the_neuron_virtualenv(neuron_site, tmp_path):
    done = run_script(neuron_site, tmp_path, "xla")
    assert done.returncode == 2
    [diagnosis] = [e for e in machine_events(done.stdout) if e["type"] == "diagnosis"]
    message = "--device xla, but this Python has no torch_xla (Neuron SDK)"
    hint = "set [trainium] python in accelbench's config.toml to the Neuron virtualenv"
    assert (diagnosis["code"], diagnosis["message"], diagnosis["hint"]) == (
        "torch_xla_missing", message, hint)
    assert done.stderr.splitlines()[-1] == f"bert_finetune: error: {message}; hint: {hint}"
