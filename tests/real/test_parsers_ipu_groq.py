"""The Graphcore PopTorch and GroqFlow dialects on the seed logs (exact figures)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accelbench.engine.core.events import Diagnosis, Metric, Phase, Progress
from accelbench.engine.plugin.registry import get_dialect
from accelbench.engine.systems.groq.dialect import GroqFlow
from accelbench.engine.systems.ipu.dialect import PopTorch

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
HEADING = re.compile(r"(#{1,3}) +(.*)")


def seed(prefix: str) -> str:
    return next(SEEDS.glob(f"{prefix}_*.txt")).read_text(encoding="utf-8")


def code_blocks(text: str) -> dict[str, list[str]]:
    """The fenced code blocks of a markdown note, by heading path ("Groq / Default run:").

    A fence may have text glued after it (```Epochs: ...): that is the block's first line.
    """
    blocks: dict[str, list[str]] = {}
    headings: dict[int, str] = {}
    code: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith("```"):
            if code is None:
                code = [line[3:]] if line[3:].strip() else []
            else:
                path = " / ".join(headings[k] for k in sorted(headings))
                blocks.setdefault(path, []).append("\n".join(code))
                code = None
        elif code is not None:
            code.append(line)
        elif m := HEADING.match(line):
            level = len(m[1])
            headings = {k: v for k, v in headings.items() if k < level}
            headings[level] = m[2].strip()
    return blocks


def parse(cls, text: str) -> list:
    """Feed ``text`` the way the engine does: lines, each split into its \\r states."""
    d = cls("r")
    events = []
    for line in text.split("\n"):
        for part in line.split("\r"):
            if part:
                events += d.feed(part, 0.0)
    return events + d.finish(0.0)


def of(events: list, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def metrics(events: list) -> dict[str, float]:
    found = of(events, Metric)
    assert len({m.name for m in found}) == len(found), "a metric was emitted twice"
    return {m.name: m.value for m in found}


def phases(events: list) -> list[tuple[str, str]]:
    return [(p.name, p.detail) for p in of(events, Phase)]


# ---- Graphcore PopTorch ----------------------------------------------------------------

GRAPHCORE = code_blocks(seed("002"))


def test_registered():
    assert get_dialect("poptorch") is PopTorch
    assert get_dialect("groq") is GroqFlow


def test_default_run_phases_progress_and_accuracy():
    [block] = GRAPHCORE["Graphcore / When run with default hyperparameters:"]
    events = parse(PopTorch, block)
    assert phases(events) == [
        ("queued", "Slurm job 20702 waiting for resources"),
        ("starting", "Slurm job 20702 allocated"),
        ("running", ""),
        ("compiling", "graph compilation 100%"),
        ("compiling", "graph compilation 98%"),
        ("running", ""),
        ("evaluating", ""),
        ("compiling", "graph compilation 4%"),
        ("compiling", "graph compilation 100%"),
        ("evaluating", ""),
    ]
    assert [(p.step, p.total, p.epoch, p.epochs) for p in of(events, Progress)] == [
        (0, 10, 0, 10), (10, 10, 10, 10)]
    # the bars' times: training graph, the ten epochs (and s/it), inference graph
    assert metrics(events) == {"accuracy": pytest.approx(97.13),
                               "graph_compile_time": 22.0, "epochs_time": 109.0,
                               "epoch_seconds": 10.99,
                               "eval_graph_compile_time": 14.0}
    assert not of(events, Diagnosis)


@pytest.mark.parametrize("heading, accuracy, epoch_seconds", [
    ("Graphcore / And with a smaller number of epochs:", 98.58, 8.79),
    ("Graphcore / And with larger epochs:", 98.43, 8.74),
])
def test_other_epoch_runs(heading, accuracy, epoch_seconds):
    [block] = GRAPHCORE[heading]
    events = parse(PopTorch, block)
    assert metrics(events) == {"accuracy": pytest.approx(accuracy),
                               "graph_compile_time": 0.0, "epochs_time": 87.0,
                               "epoch_seconds": epoch_seconds,
                               "eval_graph_compile_time": 0.0}
    assert of(events, Progress)[-1].step == of(events, Progress)[-1].total == 10
    assert ("compiling", "graph compilation 100%") in phases(events)
    assert phases(events)[-1] == ("evaluating", "")


def test_ipu_unavailable_once():
    [block] = GRAPHCORE["Graphcore"]
    assert block.count("Failed to acquire 1 IPU(s)") == 2
    events = parse(PopTorch, block)
    assert events == [Diagnosis("r", 0.0, "ipu_unavailable",
                                "Failed to acquire 1 IPU(s): no IPU detected",
                                "run it through Slurm: srun --ipus=1 python ...")]


def test_ipu_unavailable_without_reason_line():
    events = parse(PopTorch, "poptorch_cpp_error': Failed to acquire 4 IPU(s)\nError raised in:")
    assert [(d.code, d.message, d.hint) for d in events] == [
        ("ipu_unavailable", "Failed to acquire 4 IPU(s)",
         "run it through Slurm: srun --ipus=4 python ...")]
    assert parse(PopTorch, "Failed to acquire 2 IPU(s)")[0].message == "Failed to acquire 2 IPU(s)"


def test_env_written_after_srun():
    [block] = GRAPHCORE["Graphcore / Note"]
    events = parse(PopTorch, block)
    [diagnosis] = of(events, Diagnosis)
    assert diagnosis.code == "env_before_command"
    assert "POPLAR_ENGINE_OPTIONS" in diagnosis.message
    assert diagnosis.hint == ("set POPLAR_ENGINE_OPTIONS in the environment ([env] in the preset), "
                              "not as text after srun")
    assert [d for d in phases(events) if d[0] == "queued"] == [
        ("queued", "Slurm job 20707 waiting for resources"),
        ("queued", "Slurm job 20708 waiting for resources")]
    assert metrics(events) == {"accuracy": pytest.approx(98.13),
                               "graph_compile_time": 28.0, "epochs_time": 136.0,
                               "epoch_seconds": 13.63,
                               "eval_graph_compile_time": 19.0}


def test_glued_bars_in_seed_004():
    [block] = code_blocks(seed("004"))["HW 7 log files with some comments / 2. Graphcore"]
    events = parse(PopTorch, block)
    assert phases(events) == [("running", ""), ("compiling", "graph compilation 100%"),
                              ("evaluating", "")]
    assert [(p.step, p.total) for p in of(events, Progress)] == [(10, 10)]
    assert metrics(events) == {"accuracy": pytest.approx(98.72),
                               "epochs_time": 108.0, "epoch_seconds": 10.81,
                               "eval_graph_compile_time": 14.0}


def test_carriage_return_redraws():
    text = ("Epochs:  30%|███       | 3/10 [00:33<01:17, 11.01s/it]\r"
            "Epochs:  40%|████      | 4/10 [00:43<01:05, 10.99s/it]\r"
            "Epochs:  40%|████      | 4/10 [00:44<01:05, 10.98s/it]")
    events = parse(PopTorch, text)
    assert phases(events) == [("running", "")]
    assert [(p.step, p.total, p.epoch, p.epochs) for p in of(events, Progress)] == [
        (3, 10, 3, 10), (4, 10, 4, 10)]


# ---- GroqFlow --------------------------------------------------------------------------

def table(cpu_latency, cpu_ips, groq_latency, groq_ips, chip_latency, chip_ips):
    return {
        "cpu.accuracy": pytest.approx(77.47), "cpu.e2e_latency_ms": pytest.approx(cpu_latency),
        "cpu.ips": pytest.approx(cpu_ips),
        "groq.accuracy": pytest.approx(77.47), "groq.e2e_latency_ms": pytest.approx(groq_latency),
        "groq.ips": pytest.approx(groq_ips), "groq.on_chip_latency_ms": pytest.approx(chip_latency),
        "groq.on_chip_ips": pytest.approx(chip_ips),
    }


def test_groq_default_run_seed_002():
    [block] = code_blocks(seed("002"))["Groq / Default run:"]
    events = parse(GroqFlow, block)
    assert phases(events) == [("running", "inference on GroqChip"),
                              ("running", "inference using PyTorch model (CPU)"),
                              ("running", "result table")]
    assert metrics(events) == table(2.21, 453.45, 0.05, 19253.91, 0.03, 37576.72)


def test_groq_sequence_length_128_vs_512_seed_003():
    seq128, seq512 = code_blocks(seed("003"))["Homework 07 AI accelerators / Groq"]
    assert metrics(parse(GroqFlow, seq128)) == table(2.25, 445.29, 0.06, 16788.58, 0.03, 37576.72)
    assert metrics(parse(GroqFlow, seq512)) == table(9.26, 108.03, 0.13, 7515.17, 0.09, 10953.97)


def test_groq_build_steps():
    text = ('\x1b[1mGroqFlow is building "bert_tiny"\x1b[0m\n'
            "      Exporting PyTorch to ONNX   \n"
            "\x1b[92m    ✓ \x1b[0mExporting PyTorch to ONNX   \n"
            "      Compiling model.. \r\x1b[92m    ✓ \x1b[0mCompiling model   ")
    assert phases(parse(GroqFlow, text)) == [("compiling", 'building "bert_tiny"'),
                                             ("compiling", "Exporting PyTorch to ONNX"),
                                             ("compiling", "Compiling model")]


# ---- sniffing --------------------------------------------------------------------------

@pytest.mark.parametrize("prefix, poptorch, groq", [
    ("000", False, False), ("001", False, False), ("002", True, True),
    ("003", False, True), ("004", True, False),
])
def test_sniff_seeds(prefix, poptorch, groq):
    assert PopTorch.sniff(seed(prefix)) is poptorch
    assert GroqFlow.sniff(seed(prefix)) is groq


def test_sniff_sections():
    blocks = code_blocks(seed("002"))
    for heading in ("Graphcore", "Graphcore / And with larger epochs:"):
        assert PopTorch.sniff(blocks[heading][0]) and not GroqFlow.sniff(blocks[heading][0])
    groq = blocks["Groq / Default run:"][0]
    assert GroqFlow.sniff(groq) and not PopTorch.sniff(groq)
    assert not PopTorch.sniff(blocks["Cerebras / Default run:"][0])
    assert not GroqFlow.sniff(blocks["Cerebras / Default run:"][0])
