"""The seed systems' launch recipes: exact command lines, and runs with stand-ins."""

import asyncio
import json
import sys
from pathlib import Path

import pytest

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.errors import UserError
from accelbench.engine.launchers.slurm.commands import QUEUE, resource_args
from accelbench.engine.run.runner import Runner
from accelbench.engine.rundir.files import WORK_DIR
from accelbench.engine.workloads import SCRIPTS_DIR
from tests.helpers import FIXTURES, ROOT

STANDINS = ROOT / "tests" / "standins"
RECORDINGS = FIXTURES / "recordings"


@pytest.fixture
def site(tmp_path, home):
    """A site configuration with a fake ModelZoo checkout and a stand-in BertLarge_run.sh."""
    zoo = tmp_path / "modelzoo" / "bert"
    (zoo / "configs").mkdir(parents=True)
    (zoo / "configs" / "params_bert_large.yaml").write_text(
        "train_input:\n  data_dir: ./data\n  batch_size: 1024  # per system\n"
        "model:\n  hidden_size: 1024\nrunconfig:\n  max_steps: 1000\n")
    (zoo / "run.py").write_text(
        f"import runpy, sys\nsys.argv = [{str(STANDINS / 'replay.py')!r}, "
        f"{str(RECORDINGS / 'cerebras_bert_large_batch2048.log')!r}, '--'] + sys.argv[1:]\n"
        f"runpy.run_path(sys.argv[0], run_name='__main__')\n")
    script = tmp_path / "BertLarge_run.sh"
    script.write_text(f"#!/bin/bash\nexec {sys.executable} {STANDINS / 'replay.py'} "
                      f"{RECORDINGS / 'sambanova_bert_large_ntasks16.log'} -- \"$@\"\n")
    config = Path(home).parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[trainium]\npython = "/opt/neuron/bin/python"\n\n'
                      f'[sambanova]\nbert_large_script = "{script}"\n\n'
                      f'[cerebras]\npython = "{sys.executable}"\n'
                      f'params = "{zoo / "configs" / "params_bert_large.yaml"}"\n')
    return {"zoo": zoo, "script": script, "config": config}


def test_trainium_command_line(site, tmp_path):
    spec = load_preset(find_preset("trainium-bert-padding-32"))
    plan = Runner.plan(spec, tmp_path)
    assert plan.argv[:6] == ["/opt/neuron/bin/python", "-m", "torch.distributed.run",
                             "--nproc_per_node=2", str(SCRIPTS_DIR / "bert_finetune.py"),
                             "--device"]
    flags = dict(arg.split("=", 1) for arg in plan.argv[7:])
    assert plan.argv[6] == "xla"
    assert (flags["--max-seq-length"], flags["--batch-size"], flags["--epochs"],
            flags["--model"]) == ("32", "32", "3", "bert-base-uncased")
    assert spec.env == {"NEURON_RT_STOCHASTIC_ROUNDING_EN": "0",
                        "NEURON_CC_FLAGS": "--model-type=transformer"}
    assert not any("=" in a and not a.startswith("-") for a in plan.argv)  # no VAR=... words


def test_sambanova_command_line_and_slurm_request(site, tmp_path):
    spec = load_preset(find_preset("sambanova-bert-large-ntasks16"))
    plan = Runner.plan(spec, tmp_path)
    assert plan.argv == ["bash", str(site["script"])] and plan.dialects == ["sambanova"]
    assert resource_args(spec.options["slurm"]) == [
        "--nodes=1", "--ntasks=16", "--ntasks-per-node=16", "--cpus-per-task=8", "--gres=rdu:8"]


def test_cerebras_command_line_and_params_copy(site, tmp_path):
    spec = load_preset(find_preset("cerebras-bert-large-batch512"))
    plan = Runner.plan(spec, tmp_path)
    assert plan.argv == [sys.executable, str(site["zoo"] / "run.py"), "CSX", "--params",
                         str(tmp_path / "params.yaml"), "--mode", "train", "--model_dir",
                         str(tmp_path / "model_dir"), "--num_csx", "1"]
    assert plan.files["params.yaml"] == ("train_input:\n  data_dir: ./data\n  batch_size: 512\n"
                                         "model:\n  hidden_size: 1024\nrunconfig:\n"
                                         "  max_steps: 1000\n")


def test_missing_site_configuration_is_a_clear_error(home, tmp_path):
    spec = load_preset(find_preset("cerebras-bert-large-batch512"))
    with pytest.raises(UserError) as info:
        Runner.plan(spec, tmp_path)
    assert str(info.value).startswith("cerebras.params is not set in ")
    assert "config.toml" in str(info.value) and "[cerebras] params" in info.value.hint


def test_broken_site_configuration_names_the_key(site):
    site["config"].write_text('[cerebras]\nparam = "x"\n')
    with pytest.raises(UserError, match=r"config.toml: cerebras.param: unknown key"):
        Runner.plan(load_preset(find_preset("cerebras-bert-large-batch512")), Path("/tmp"))


def follow(handle):
    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    return asyncio.run(asyncio.wait_for(collect(), 120))


def test_cerebras_run_with_a_stand_in_run_py(site, runner, monkeypatch):
    # no csctl here
    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", lambda name: None)
    spec = load_preset(find_preset("cerebras-bert-large-batch512"))
    handle = runner.start(spec)
    events = follow(handle)
    assert events[-1].status == "done"
    rates = [e.samples_per_s for e in events if e.kind == "throughput"]
    assert len(rates) == 10
    summary = events[-1].summary
    assert summary["final_loss"] == pytest.approx(7.14844)
    assert summary["metrics"]["samples_processed"] == 2048000
    assert summary["train_time_s"] == pytest.approx(304.403202469)
    work = handle.info.dir / WORK_DIR  # the job's own files
    called = json.loads((work / "argv.json").read_text())["args"]
    assert called == ["CSX", "--params", str(work / "params.yaml"), "--mode", "train",
                      "--model_dir", str(work / "model_dir"), "--num_csx", "1"]
    assert "batch_size: 512" in (work / "params.yaml").read_text()


@pytest.mark.slurm
def test_sambanova_run_through_slurm_with_a_stand_in_script(site, runner, monkeypatch, request):
    request.getfixturevalue("cluster")
    monkeypatch.setattr(QUEUE, "interval", 0.5)
    spec = load_preset(find_preset("sambanova-bert-large-ntasks16"), [
        "slurm.ntasks=2", "slurm.ntasks_per_node=2", "slurm.cpus_per_task=1"])
    events = follow(runner.start(spec))
    assert events[-1].status == "done"
    summary = events[-1].summary
    assert summary["samples_per_s"] == pytest.approx(4543.12670624255)
    assert summary["train_time_s"] == pytest.approx(455.2987697124481)
    assert summary["final_loss"] == pytest.approx(8.254524230957031)


def test_sambanova_ntasks_32_is_refused_when_the_preset_loads(site):
    with pytest.raises(UserError, match="Slurm rejects this as an invalid configuration"):
        load_preset(find_preset("sambanova-bert-large-ntasks16"), ["slurm.ntasks=32"])


@pytest.mark.parametrize("system, tool", [("trainium", "neuron-ls"), ("ipu", "gc-info"),
                                          ("sambanova", "sntilestat"), ("cerebras", "csctl"),
                                          ("groq", "groq-smi")])
def test_detection_by_tools_on_path(system, tool, tmp_path, monkeypatch):
    from accelbench.engine.launchers.slurm.gres import slurm_gres
    from accelbench.engine.plugin.registry import detect, get_accelerator

    monkeypatch.setenv("PATH", str(tmp_path))  # no Slurm, no vendor tools
    slurm_gres.cache_clear()
    absent = detect(get_accelerator(system))
    assert not absent.available and absent.reason
    (tmp_path / tool).write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / tool).chmod(0o755)
    present = detect(get_accelerator(system))
    assert present.available and tool in present.detail
    slurm_gres.cache_clear()


def test_detection_through_slurm_gres(monkeypatch):
    from accelbench.engine.plugin.registry import detect, get_accelerator

    monkeypatch.setattr("accelbench.engine.launchers.slurm.gres.slurm_gres", lambda: {"rdu": 8})
    found = detect(get_accelerator("sambanova"))
    assert found.available and found.detail == "through Slurm (GRES rdu:8 per node)"


def test_cerebras_appliance_state_and_cancel_with_csctl(site, runner, monkeypatch, tmp_path):
    from accelbench.engine.systems.cerebras.appliance import APPLIANCE

    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", lambda name: None)
    monkeypatch.setenv("PATH", f"{STANDINS}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("CSCTL_CANCELLED", str(tmp_path / "cancelled"))
    monkeypatch.setattr(APPLIANCE, "interval", 0.2)
    slow = site["zoo"] / "run.py"
    slow.write_text(slow.read_text().replace("cerebras_bert_large_batch2048.log",
                                             "cerebras_bert_large_batch512.log")
                    .replace("'--']", "'--delay', '0.1', '--']"))
    handle = runner.start(load_preset(find_preset("cerebras-bert-large-batch512")))
    seen = []

    async def watch():
        async for event in handle.events(poll=0.05):
            seen.append(event)
            if event.kind == "phase" and event.detail.startswith("csctl: wsjob-awx6"):
                await asyncio.to_thread(handle.cancel, 2)

    asyncio.run(asyncio.wait_for(watch(), 60))
    assert ("running", "csctl: wsjob-awx6fid64f4fzt6gfqmvdv RUNNING") in [
        (e.name, e.detail) for e in seen if e.kind == "phase"]
    assert (tmp_path / "cancelled").read_text().split() == ["wsjob-awx6fid64f4fzt6gfqmvdv"]
    assert seen[-1].status == "cancelled"
