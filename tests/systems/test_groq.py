"""Groq: the bert_tiny recipe and presets, GroqFlow detection, and runs with a stand-in
groqflow and demo_helpers (tests/standins) replaying the seeds' output."""

import asyncio
import json
import sys
from pathlib import Path

import pytest

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.events import Phase
from accelbench.engine.run.runner import Runner
from accelbench.engine.systems.groq.dialect import GroqFlow
from tests.helpers import ROOT, SYSTEMS

STANDINS = ROOT / "tests" / "standins"
STEPS = ["Exporting PyTorch to ONNX", "Optimizing ONNX file", "Checking for Op support",
         "Converting to FP16", "Compiling model", "Assembling model"]
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film", "movie", "is", "was",
         "good", "great", "bad", "awful", "boring", "fun", ",", "and", "an", "one"]


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A small SST-2-shaped BERT classifier saved as a local Hugging Face model directory."""
    import torch
    import transformers

    path = tmp_path_factory.mktemp("tinybert")
    transformers.BertTokenizer(vocab={w: i for i, w in enumerate(WORDS)}).save_pretrained(path)
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(WORDS), hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32, num_labels=2)
    transformers.BertForSequenceClassification(config).save_pretrained(path)
    return path


@pytest.fixture
def groq_site(home, monkeypatch):
    """[groq] python is this interpreter, which imports the stand-in groqflow."""
    config = Path(home).parent / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[groq]\npython = "{sys.executable}"\n')
    monkeypatch.setenv("PYTHONPATH", str(STANDINS))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("accelbench.engine.systems.groq.devices", lambda pattern: [])
    monkeypatch.setattr("accelbench.engine.launchers.slurm.gres.slurm_gres", dict)
    monkeypatch.setattr("accelbench.engine.systems.groq.tools", lambda *names: [])
    return config


@pytest.mark.parametrize("preset, length", [("groq-bert-tiny-seq128", "128"),
                                            ("groq-bert-tiny-seq512", "512")])
def test_preset_command_lines(preset, length, groq_site, tmp_path):
    spec = load_preset(find_preset(preset))
    plan = Runner.plan(spec, tmp_path)
    assert plan.argv == [sys.executable, "-u", str(SYSTEMS / "groq" / "groq_bert_tiny.py"),
                         "--model=M-FAC/bert-tiny-finetuned-sst2", "--batch-size=1",
                         f"--max-seq-length={length}", "--mode=both"]
    assert plan.dialects == ["groq"] and plan.env == {} and spec.env == {}
    assert spec.launcher == "local"


def test_detection_finds_groqflow_importable_by_the_configured_python(groq_site, monkeypatch):
    from accelbench.engine.plugin.registry import detect, get_accelerator

    found = detect(get_accelerator("groq"))
    assert found.available
    assert found.detail == f"GroqFlow importable by {sys.executable} (no /dev/groq* here)"
    monkeypatch.delenv("PYTHONPATH")
    absent = detect(get_accelerator("groq"))
    assert not absent.available
    assert absent.reason.endswith(f"and GroqFlow not importable by {sys.executable}"
                                  "; no Slurm GRES 'groq'")


def test_detection_without_configuration_asks_this_python(home, monkeypatch):
    from accelbench.engine.plugin.registry import detect, get_accelerator

    monkeypatch.setattr("accelbench.engine.systems.groq.devices", lambda pattern: [])
    monkeypatch.setattr("accelbench.engine.launchers.slurm.gres.slurm_gres", dict)
    monkeypatch.setattr("accelbench.engine.systems.groq.tools", lambda *names: [])
    absent = detect(get_accelerator("groq"))
    assert not absent.available and absent.reason.endswith("; no Slurm GRES 'groq'")
    monkeypatch.setattr("accelbench.engine.launchers.slurm.gres.slurm_gres", lambda: {"groq": 2})
    assert detect(get_accelerator("groq")).detail == "through Slurm (GRES groq:2 per node)"
    monkeypatch.setattr("accelbench.engine.launchers.slurm.gres.slurm_gres", dict)
    monkeypatch.syspath_prepend(str(STANDINS))
    found = detect(get_accelerator("groq"))
    assert found.available and found.detail.startswith("GroqFlow importable by this Python")


def test_cached_build_is_a_loading_phase():
    line = '\x1b[92m\nWoohoo! \x1b[0m\x1b[0mBuild "bert_tiny" found in cache. Loading it!\x1b[0m'
    events = [e for part in line.split("\n") for e in GroqFlow("r").feed(part, 0.0)]
    assert [(e.name, e.detail) for e in events] == [("loading", 'build "bert_tiny" from the cache')]


def run(runner, preset: str, *overrides: str) -> tuple[list, dict]:
    handle = runner.start(load_preset(find_preset(preset), list(overrides)))

    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    events = asyncio.run(asyncio.wait_for(collect(), 120))
    return events, handle.info


def phases_from_loading(events) -> list[tuple[str, str]]:
    phases = [(e.name, e.detail) for e in events if isinstance(e, Phase)]
    return phases[[name for name, _ in phases].index("loading"):]


@pytest.mark.parametrize("preset, length, figures", [
    ("groq-bert-tiny-seq128", 128, {"cpu.e2e_latency_ms": 2.21, "cpu.ips": 453.45,
                                    "groq.e2e_latency_ms": 0.05, "groq.ips": 19253.91,
                                    "groq.on_chip_latency_ms": 0.03, "groq.on_chip_ips": 37576.72}),
    ("groq-bert-tiny-seq512", 512, {"cpu.e2e_latency_ms": 9.26, "cpu.ips": 108.03,
                                    "groq.e2e_latency_ms": 0.13, "groq.ips": 7515.17,
                                    "groq.on_chip_latency_ms": 0.09, "groq.on_chip_ips": 10953.97}),
])
def test_preset_runs_with_the_stand_in_groqflow(preset, length, figures, groq_site, runner,
                                                tiny_model):
    events, info = run(runner, preset, f"model={tiny_model}")
    assert events[-1].status == "done", events[-1].summary
    assert phases_from_loading(events) == [
        ("loading", f"model {tiny_model}"),
        ("compiling", f'building "{tiny_model.name}_b1_s{length}"'),
        *(("compiling", step) for step in STEPS),
        ("running", "inference on GroqChip"),
        ("running", "inference using PyTorch model (CPU)"),
        ("running", "result table"),
        ("done", "")]
    summary = events[-1].summary
    assert {k: summary["metrics"][k] for k in figures} == figures
    assert summary["metrics"]["cpu.accuracy"] == summary["metrics"]["groq.accuracy"] == 77.47
    assert summary["accuracy"] == 77.47 and summary["samples_per_s"] == figures["groq.ips"]
    argv = json.loads(info.path("launch.json").read_text())["argv"]
    assert f"--max-seq-length={length}" in argv


def test_batch_of_four_is_measured_on_batches(groq_site, runner, tiny_model):
    events, _ = run(runner, "groq-bert-tiny-seq128", f"model={tiny_model}", "batch_size=4",
                    "mode=execute")
    assert events[-1].status == "done", events[-1].summary
    assert phases_from_loading(events) == [
        ("loading", f"model {tiny_model}"),
        ("loading", f'build "{tiny_model.name}_b4_s128" from the cache'),
        ("running", "inference on GroqChip"),
        ("running", "inference using PyTorch model (CPU)"),
        ("running", "result table"),
        ("done", "")]
    m = events[-1].summary["metrics"]
    # the stand-in GroqChip takes the seeds' time per input: four inputs a call, same rate
    assert (m["groq.on_chip_latency_ms"], m["groq.on_chip_ips"]) == (0.11, 37576.72)
    assert (m["groq.e2e_latency_ms"], m["groq.ips"]) == (0.21, 19253.91)
    # ten test sentences in three calls (the last topped up): the same predictions as the CPU's
    assert m["groq.accuracy"] == m["cpu.accuracy"] == m["accuracy"]
    assert round(m["accuracy"] / 10, 6).is_integer() and m["cpu.ips"] > 0


def test_run_without_groqflow_says_so(home, runner, tiny_model, monkeypatch):
    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", lambda name: None)
    events, _ = run(runner, "groq-bert-tiny-seq128", f"model={tiny_model}")
    assert events[-1].status == "failed"
    [diagnosis] = [e for e in events if e.kind == "diagnosis" and e.code == "groqflow_missing"]
    assert "[groq] python" in diagnosis.hint
