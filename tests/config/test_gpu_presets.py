"""The GPU presets: their command lines (torchrun, Slurm --gpus), checks and errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from accelbench.cli.main import main
from accelbench.engine.config.presets import find_preset, list_presets
from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.errors import UserError
from accelbench.engine.launchers.slurm.commands import resource_args
from accelbench.engine.run.runner import Runner
from accelbench.engine.workloads import SCRIPTS_DIR
from tests.helpers import accelbench

PYTHON = "/opt/cuda-env/bin/python"


def _plan(preset: str, *overrides: str, tmp_path) -> list[str]:
    spec = load_preset(find_preset(preset), [f"python={PYTHON}", *overrides])
    return Runner.plan(spec, tmp_path).argv


def test_gpu_presets_load_and_are_listed(home, monkeypatch):
    entries = {e.name: e for e in list_presets()}
    for name in ("gpu-mnist", "gpu-bert-finetune"):
        assert not entries[name].error and entries[name].spec.accelerator == "cuda"
    bert = entries["gpu-bert-finetune"].spec
    assert (bert.params["model"], bert.params["precision"], bert.params["gpus"]) == (
        "base", "bf16", 0)
    monkeypatch.setenv("COLUMNS", "200")  # the names whole
    out = accelbench("presets")
    assert out.returncode == 0 and "gpu-mnist" in out.stdout
    assert "gpu-bert-finetune " in out.stdout and "BERT-base fine-tuning" in out.stdout


def test_gpu_mnist_command_line(home, tmp_path):
    argv = _plan("gpu-mnist", tmp_path=tmp_path)
    assert argv[:5] == [PYTHON, "-u", str(SCRIPTS_DIR / "mnist_cnn.py"), "--device", "cuda"]
    assert "--batch-size=64" in argv and "--epochs=1" in argv and "--train-samples=0" in argv


def test_bert_on_every_visible_gpu_under_torchrun(home, tmp_path):
    argv = _plan("gpu-bert-finetune", tmp_path=tmp_path)
    assert argv == [
        PYTHON, "-u", "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=gpu",
        str(SCRIPTS_DIR / "bert_finetune.py"), "--device", "cuda", "--model=base",
        "--dataset=synthetic", "--max-seq-length=128", "--batch-size=32", "--epochs=3",
        "--learning-rate=5e-05", "--train-samples=0", "--eval-samples=0", "--precision=bf16",
        "--logging-steps=10", "--seed=42"]


def test_bert_on_the_gpus_asked_for(home, tmp_path):
    argv = _plan("gpu-bert-finetune", "gpus=4", tmp_path=tmp_path)
    assert "--nproc_per_node=4" in argv and not any(a.startswith("--gpus") for a in argv)


def test_gpus_is_a_cuda_knob(home, tmp_path):
    spec = load_preset(find_preset("cpu-bert-finetune-tiny"), ["gpus=2"])
    with pytest.raises(UserError) as info:
        Runner.plan(spec, tmp_path)
    assert info.value.message == "params.gpus: a CUDA knob, for accelerator 'cuda' only"
    assert info.value.hint == "set gpus=0"


def test_through_slurm_with_gpus(home):
    spec = load_preset(find_preset("gpu-bert-finetune"),
                       ["launcher=slurm", "slurm.gpus=h100:4", "slurm.time=1:00:00"])
    assert resource_args(spec.options["slurm"]) == ["--gpus=h100:4", "--time=1:00:00"]
    with pytest.raises(UserError) as info:
        load_preset(find_preset("gpu-bert-finetune"), ["slurm.gpu=4"])
    assert "gpus" in info.value.hint


def test_a_gpu_preset_without_a_gpu_is_one_line_with_a_hint(home, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # no NVML: as on a machine without GPU
    assert main(["run", "gpu-mnist"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [("accelbench: error: accelerator 'cuda' is not available here:"
                    " nvidia-ml-py is not installed; no Slurm GRES 'gpu'"),
                   "hint: run `accelbench accelerators` to see what is"]
    assert not list((home / "runs").glob("*"))


@pytest.mark.parametrize("rank, shown", [("0", True), ("1", False)])
def test_only_rank_0_prints(rank, shown):
    code = "from emit import emit, say\nsay('Accuracy: 0.5')\nemit('phase', name='running')\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=SCRIPTS_DIR, env={**os.environ, "RANK": rank}, check=True)
    assert (out.stdout.splitlines()[0] == "Accuracy: 0.5" if shown else out.stdout == "")
    assert out.stdout.count("@@accelbench ") == int(shown)


def test_base_is_bert_base_sized_and_built_offline():
    code = ("from bert_finetune import offline_model\n"
            "_, model = offline_model('base', ['a good film', 'a bad film'], 2)\n"
            "print(sum(p.numel() for p in model.parameters()), model.config.hidden_size,"
            " model.config.num_hidden_layers)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=SCRIPTS_DIR, env={**os.environ, "HF_HUB_OFFLINE": "1"}, check=True)
    assert out.stdout.split() == ["109483778", "768", "12"]  # bert-base-uncased's, 2 labels


def test_two_ranks_under_torchrun_report_once(tmp_path):
    """The script under torchrun as the cuda recipe starts it (2 CPU processes here, gloo):
    one set of machine lines and one accuracy line, the step count of 2 ranks."""
    argv = [sys.executable, "-u", "-m", "torch.distributed.run", "--standalone",
            "--nproc_per_node=2", str(SCRIPTS_DIR / "bert_finetune.py"), "--device", "cpu",
            "--model=tiny", "--epochs=1", "--train-samples=128", "--eval-samples=32",
            "--batch-size=16", "--max-seq-length=16"]
    out = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"}, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert sum(line.startswith("Accuracy: ") for line in lines) == 1
    assert sum(line.startswith("Model tiny: ") for line in lines) == 1
    progress = [line for line in lines if '"type":"progress"' in line]
    assert progress and all('"total":4' in line for line in progress)  # 128 / (16 × 2 ranks)
