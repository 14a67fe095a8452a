"""Trainium: the compile phase of BERT on XLA, neuron_parallel_compile pre-compilation and
neuron-profile capture, with stand-ins for the Neuron virtualenv's python, for
neuron_parallel_compile and for neuron-profile (tests/standins)."""

import json
from types import SimpleNamespace

import pytest

from engine.workloads import SCRIPTS_DIR
from engine.workloads.emit import PREFIX


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
                        precompiling=True))
    tracing = "neuron_parallel_compile: tracing the {} graphs"
    assert story(machine_events(capsys.readouterr().out)) == [
        ("compiling", tracing.format("training")), 1, 2, 3,
        ("compiling", tracing.format("evaluation")),
        ("compiling", tracing.format("training")), 4, 5, 6,
        ("compiling", tracing.format("evaluation"))]
