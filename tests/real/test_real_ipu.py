"""Graphcore real published output (tests/fixtures/real/ipu): parse, import, gc tools."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil

import pytest
from real_logs import body

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Diagnosis, Metric, Phase, Progress, Throughput
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.run.runner import Deriver, Runner
from accelbench.engine.store.runs import Store
from accelbench.engine.systems.ipu.telemetry import Attached, read_devices, read_monitor


def _events(tmp_path, name, dialects=None):
    log = tmp_path / name
    log.write_text(body("ipu", name))
    sections = parse_file(log)
    assert len(sections) == 1, [s.title for s in sections]
    if dialects is not None:
        assert sections[0].dialects == dialects
    return sections[0].events, log


def _metrics(events, name):
    return [e.value for e in events if isinstance(e, Metric) and e.name == name]


def _steps(events):
    return [(e.step, e.total, e.epoch, e.epochs) for e in events if isinstance(e, Progress)]


def _rates(events):
    return [e.samples_per_s for e in events if isinstance(e, Throughput)]


def _phases(events):
    return [(e.name, e.detail) for e in events if isinstance(e, Phase)]


def test_bert_demo_tiny_under_srun(tmp_path):
    events, log = _events(tmp_path, "bert_pretraining_demo_tiny_srun.log",
                          ["poptorch", "graphcore_examples"])
    assert _phases(events) == [
        ("queued", "Slurm job 20279 waiting for resources"),
        ("starting", "Slurm job 20279 allocated"),
        ("compiling", "compiling or loading"), ("compiling", "graph compilation 100%"),
        ("running", ""), ("completing", "")]
    assert _metrics(events, "data_load_time") == [9.856430063955486]
    assert _metrics(events, "graph_compile_time") == [92.0]  # the bar's [01:32<00:00]
    assert _metrics(events, "compile_time") == [97.88873339025304]
    assert _steps(events) == [(150, 150, 0, 0)]  # "Step: 149 / 149" is 0-based
    assert _metrics(events, "loss") == [7.389]
    assert _metrics(events, "learning_rate") == [1.00e-03]
    assert [_metrics(events, n) for n in ("mlm_loss", "nsp_loss", "mlm_acc", "nsp_acc")] == [
        [7.008], [0.380], [0.161], [0.875]]
    assert _rates(events) == [749.6]
    assert _metrics(events, "iterations_per_s") == [45.20]
    assert [_metrics(events, n) for n in ("global_batch_size", "device_iterations",
                                          "training_steps")] == [[16], [1], [150]]
    assert _metrics(events, "training_time") == [3.297]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert run.accelerator == "ipu"
    assert (run.summary.samples_per_s, run.summary.train_time_s, run.summary.final_loss) == (
        749.6, 3.297, 7.389)
    assert (run.summary.steps, run.summary.total_steps) == (150, 150)


def test_bert_pod4_ipujob(tmp_path):
    events, _ = _events(tmp_path, "bert_pretraining_ipujob_pod4.log")
    assert _metrics(events, "data_load_time") == [8.559805537108332]
    assert _metrics(events, "compile_time") == [500.756152929971]
    assert _metrics(events, "graph_compile_time") == [482.0]
    assert _steps(events) == [(1, 1, 0, 0)]
    assert _metrics(events, "loss") == [10.817]
    assert _metrics(events, "nsp_acc") == [1.0]
    assert _rates(events) == [4035.0]
    assert [_metrics(events, n) for n in ("global_batch_size", "device_iterations",
                                          "training_steps")] == [[65536], [1], [1]]
    assert _metrics(events, "iterations_per_s") == []  # "?it/s" before the first step ends
    assert _metrics(events, "training_time") == [16.245]


def test_bert_pod64_poprun_glued_bars(tmp_path):
    events, log = _events(tmp_path, "bert_pretraining_poprun_pod64.log")
    # three redraws of the step bar glued on one line: the newest one, once
    assert _steps(events) == [(1, 1, 0, 0)]
    assert _metrics(events, "loss") == [11.260]
    assert _metrics(events, "nsp_loss") == [0.863]
    assert _rates(events) == [17692.1]
    assert _metrics(events, "compile_time") == [683.6591004971415]
    assert _metrics(events, "training_time") == [3.718]
    assert [name for name, _ in _phases(events)] == ["compiling", "running", "completing"]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.summary.samples_per_s, run.summary.train_time_s) == (17692.1, 3.718)


def test_gpt2_step_lines(tmp_path):
    events, log = _events(tmp_path, "gpt2_pod16_steps.log", ["poptorch", "graphcore_examples"])
    assert _metrics(events, "loss") == [10.913220405578613, 10.836345672607422,
                                        10.831247329711914, 10.829034805297852]
    assert _metrics(events, "acc")[-1] == 1.990795135498047e-05
    assert _metrics(events, "learning_rate") == [0.00012803300858899104, 7.5e-05,
                                                 2.1966991411008938e-05, 0.0]
    assert _rates(events) == [646.8439205981404, 1058.0979097185766, 1058.7595523807183,
                              1059.6762623043378]
    assert [e.step for e in events if isinstance(e, Throughput)] == [0, 1, 2, 3]
    assert set(_metrics(events, "epoch")) == {1}
    [run] = import_file(Store(tmp_path / "home"), log)
    assert run.accelerator == "ipu"
    assert run.summary.final_loss == 10.829034805297852


def test_gpt2_after_a_28_minute_compilation(tmp_path):
    events, _ = _events(tmp_path, "gpt2_pod16_compile_steps.log")
    assert _metrics(events, "graph_compile_time") == [1684.0]  # [28:04<00:00]
    assert _metrics(events, "loss") == [10.913212776184082, 10.836352348327637,
                                        10.83123779296875, 10.829036712646484]
    assert _rates(events) == [36.69187444207895, 1064.3232077940409, 1064.3064018230857,
                              1064.4397806661352]
    assert _phases(events) == [("compiling", "graph compilation 100%"), ("running", "")]


def test_gpt2_tutorial_under_srun(tmp_path):
    events, _ = _events(tmp_path, "gpt2_sc23_tutorial_srun.log",
                        ["poptorch", "graphcore_examples"])
    assert _phases(events) == [("queued", "Slurm job 10697 waiting for resources"),
                               ("starting", "Slurm job 10697 allocated"), ("running", "")]
    assert _metrics(events, "loss")[-1] == 10.829034805297852
    assert _rates(events)[-1] == 1059.6762623043378


def test_resnet50_poprun_end_is_one_run(tmp_path):
    events, log = _events(tmp_path, "resnet50_poprun_end.log")
    assert _metrics(events, "loss") == [6.7462, 6.2720]
    assert _metrics(events, "train_accuracy") == [0.62, 2.48]
    assert _rates(events) == [7599.7, 8125.8]
    assert _steps(events) == [(1, 2, 2, 2), (2, 2, 2, 2)]
    assert _metrics(events, "training_time") == [326.090631]  # "It took: 0:05:26.090631"
    assert _phases(events) == [("compiling", "graph compilation 100%"), ("running", ""),
                               ("completing", "mpirun exit code 0")]
    assert _metrics(events, "graph_compile_time") == [4.0]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert run.summary.train_time_s == 326.090631
    assert run.summary.final_loss == 6.2720
    assert run.summary.samples_per_s == pytest.approx((7599.7 + 8125.8) / 2)


def test_resnet50_pod4_poprun(tmp_path):
    events, log = _events(tmp_path, "resnet50_pod4_poprun.log")
    assert [_metrics(events, n) for n in ("replicas", "global_batch_size", "ipus")] == [
        [4], [16416], [4]]
    assert _metrics(events, "graph_compile_time") == [386.0]  # [06:26<00:00]
    assert _metrics(events, "loss") == [6.7508, 6.2747]
    assert _metrics(events, "train_accuracy") == [0.61, 2.48]
    assert _rates(events) == [1886.4, 4476.7]
    assert _steps(events) == [(1, 2, 2, 2), (2, 2, 2, 2)]
    assert _metrics(events, "training_time") == [964.818638]  # "It took: 0:16:04.818638"
    assert _phases(events) == [("starting", "V-IPU partition slurm_2657"),
                               ("compiling", "graph compilation 100%"), ("running", "")]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.summary.train_time_s, run.summary.final_loss) == (964.818638, 6.2747)


def test_mnist_tutorial_bars_and_their_times(tmp_path):
    events, log = _events(tmp_path, "mnist_alcf_user_guide.log", ["poptorch"])
    assert _steps(events) == [(0, 10, 0, 10), (10, 10, 10, 10)]
    assert _metrics(events, "epochs_time") == [77.0]  # Epochs bar: [01:17<00:00, 7.71s/it]
    assert _metrics(events, "epoch_seconds") == [7.71]
    assert _metrics(events, "graph_compile_time") == [0.0]  # training graph: [00:00<00:00]
    assert _metrics(events, "eval_graph_compile_time") == [0.0]
    assert _metrics(events, "accuracy") == [96.85]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.summary.accuracy, run.summary.train_time_s) == (96.85, 77.0)


def test_mnist_homework_run_under_srun(tmp_path):
    events, log = _events(tmp_path, "mnist_homework_srun.log", ["poptorch"])
    assert [n for n, _ in _phases(events)] == [
        "queued", "starting", "running", "compiling", "compiling", "running", "evaluating",
        "compiling", "evaluating"]
    assert _steps(events) == [(0, 10, 0, 10), (10, 10, 10, 10)]
    assert _metrics(events, "graph_compile_time") == [21.0]
    assert _metrics(events, "epochs_time") == [111.0]  # [01:51<00:00, 11.14s/it]
    assert _metrics(events, "epoch_seconds") == [11.14]
    assert _metrics(events, "eval_graph_compile_time") == [15.0]
    assert _metrics(events, "accuracy") == [98.16]
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.summary.accuracy, run.summary.train_time_s) == (98.16, 111.0)


def test_poptorch_mnist_example_that_failed_to_acquire_its_ipu(tmp_path):
    events, log = _events(tmp_path, "mnist_failed_to_acquire_poptorch_issue3.log", ["poptorch"])
    assert [(e.step, e.value) for e in events if isinstance(e, Metric) and e.name == "loss"] == [
        (0, pytest.approx(2.289825)), (10, pytest.approx(0.436525)),
        (20, pytest.approx(0.53665)), (30, pytest.approx(0.290925))]  # each tensor's mean
    assert _metrics(events, "train_accuracy") == [11.25, 87.5, 76.25, 90.0]
    [diagnosis] = [e for e in events if isinstance(e, Diagnosis)]
    assert (diagnosis.code, diagnosis.message) == ("ipu_unavailable", "Failed to acquire 1 IPU(s)")
    [run] = import_file(Store(tmp_path / "home"), log)
    assert run.status == "failed"
    assert json.loads(run.path("exit.json").read_text())["detail"] == "Failed to acquire 1 IPU(s)"
    assert run.summary.diagnoses == ["ipu_unavailable", "job_failed"]
    assert run.summary.final_loss == pytest.approx(0.290925)


def test_epoch_bars_fashion_mnist(tmp_path):
    events, log = _events(tmp_path, "epoch_bars_fashion_mnist_matilda.log", ["poptorch"])
    assert _steps(events) == [(0, 3750, 1, 0)] + [(3750, 3750, e, 0) for e in range(1, 6)]
    assert _metrics(events, "loss") == [1.12, 0.775, 1.05, 0.897, 1.02]
    assert _metrics(events, "iterations_per_s") == [72.21, 376.43, 375.37, 365.68, 374.72]
    assert _metrics(events, "graph_compile_time") == [39.0]
    assert _metrics(events, "eval_graph_compile_time") == [15.0]
    assert _metrics(events, "accuracy") == [86.42]  # "Eval accuracy: 86.42%"
    [run] = import_file(Store(tmp_path / "home"), log)
    assert (run.summary.final_loss, run.summary.accuracy) == (1.02, 86.42)


@pytest.mark.parametrize("name, total, losses, rates, compile_s", [
    ("epoch_bars_resnet50_matilda.log", 6250, [1.47, 2.55, 1.23, 0.934, 1.42],
     [21.43, 110.37, 110.54, 110.26, 110.47], 228.0),
    ("epoch_bars_resnet50_two_replicas_matilda.log", 3125, [2.28, 1.86, 1.99, 1.22, 0.809],
     [10.39, 63.86, 62.47, 62.70, 63.76], 242.0),
    ("epoch_bars_resnet50_pipelined_matilda.log", 1041, [2.2, 2.04, 1.76, 1.49, 1.86],
     [3.27, 27.54, 28.66, 29.17, 29.25], 272.0),
])
def test_epoch_bars_resnet50(tmp_path, name, total, losses, rates, compile_s):
    events, _ = _events(tmp_path, name, ["poptorch"])
    assert _steps(events) == [(0, total, 1, 0)] + [(total, total, e, 0) for e in range(1, 6)]
    assert _metrics(events, "loss") == losses
    assert _metrics(events, "iterations_per_s") == rates
    assert _metrics(events, "graph_compile_time") == [compile_s]


@pytest.mark.parametrize("name", ["bert_pretraining_poprun_pod64.log",
                                  "bert_pretraining_demo_tiny_srun.log",
                                  "epoch_bars_fashion_mnist_matilda.log"])
def test_a_live_run_reads_what_parse_reads(tmp_path, name):
    """The dialect feed a live run uses (the Deriver over the job's output lines) gives the
    figures ``accelbench parse`` gives."""
    events, _ = _events(tmp_path, name)
    deriver = Deriver("r", 0.0, ["poptorch", "graphcore_examples"])
    live = deriver.output(body("ipu", name).split("\n")) + deriver.dialects_done()
    for pick in (_steps, _rates, _phases):
        assert pick(live) == pick(events)
    assert [(e.name, e.value) for e in live if isinstance(e, Metric)] == [
        (e.name, e.value) for e in events if isinstance(e, Metric)]


def test_only_graphcore_example_logs_are_taken_for_them():
    from real_logs import REAL

    from accelbench.engine.systems.ipu.examples import GraphcoreExamples

    others = [p for p in REAL.parent.rglob("*") if p.is_file() and p.suffix in (".log", ".txt")
              and REAL / "ipu" not in p.parents]
    assert others and not any(GraphcoreExamples.sniff(p.read_text(errors="replace"))
                              for p in others)
    examples = ("bert_pretraining_demo_tiny_srun.log", "bert_pretraining_ipujob_pod4.log",
                "bert_pretraining_poprun_pod64.log", "gpt2_pod16_steps.log",
                "gpt2_pod16_compile_steps.log", "gpt2_sc23_tutorial_srun.log",
                "resnet50_poprun_end.log", "resnet50_pod4_poprun.log")
    assert all(GraphcoreExamples.sniff(body("ipu", name)) for name in examples)
    assert not GraphcoreExamples.sniff(body("ipu", "mnist_alcf_user_guide.log"))


def test_a_redrawn_finished_compilation_bar_gives_its_time_once():
    from accelbench.engine.systems.ipu.dialect import PopTorch

    [bar] = [ln.split("]2024")[0] + "]" for ln in body("ipu", "mnist_homework_srun.log").split("\n")
             if ln.startswith("Graph compilation: 100%") and "00:21" in ln]
    dialect = PopTorch("r")
    events = [e for part in (bar, bar, bar) for e in dialect.feed(part, 0.0)]
    assert _metrics(events, "graph_compile_time") == [21.0]


@pytest.mark.parametrize("name, partitions, hosts", [
    ("gc_info_list_alcf.txt", {""}, {"10.1.5.1"}),
    ("gc_info_list_matilda.txt", {"p1"}, {"10.1.5.10"}),
    ("gc_info_list_all_partitions_matilda.txt", {"p1", "p2"}, {"10.1.5.10", "10.1.5.12"}),
])
def test_gc_info_lists_ipus(name, partitions, hosts):
    devices = read_devices(body("ipu", name))
    ipus = [d for d in devices if not d.members]
    assert {d.partition for d in ipus} == partitions
    assert {d.host for d in ipus} == hosts
    assert all(d.target == "Fabric" for d in ipus)
    if name == "gc_info_list_alcf.txt":
        assert [(d.id, d.board_ipu) for d in ipus] == [(0, 3), (1, 2), (2, 1)]
    if name == "gc_info_list_matilda.txt":
        assert [(d.id, d.target, d.members) for d in devices if d.members] == [
            (4, "Multi IPU", (0, 1)), (5, "Multi IPU", (2, 3)), (6, "Multi IPU", (0, 1, 2, 3))]
    if name == "gc_info_list_all_partitions_matilda.txt":
        assert [d.id for d in ipus if d.partition == "p2"] == [4, 5, 6, 7]


def test_gc_monitor_attached_from_other_namespaces():
    monitor = read_monitor(body("ipu", "gc_monitor_alcf.txt"))
    assert monitor.partition == "slurm_2616" and not monitor.cards
    assert monitor.attached == [Attached(0, host="gc-poplar-02", clock_mhz=1850.0, temp_c=24.2,
                                         board_temp_c=21.1, power_w=92.3)]


def test_gc_monitor_attached_processes_with_sensors():
    monitor = read_monitor(body("ipu", "gc_monitor_attached_matilda.txt"))
    assert monitor.partition == "p1"
    assert [(a.ipu, a.pid, a.command, a.user, a.time) for a in monitor.attached] == [
        (ipu, 81816, "gc-hosttraffictest", "justina", "10s") for ipu in (14, 15, 12, 13)]
    assert [(a.clock_mhz, a.temp_c, a.board_temp_c, a.power_w) for a in monitor.attached] == [
        (1300.0, 33.7, 35.0, 113.7), (1300.0, 37.4, None, None),
        (1300.0, 31.4, 32.8, 107.1), (1300.0, 34.7, None, None)]


@pytest.mark.parametrize("name, partition, count, in_use", [
    ("gc_monitor_cards_matilda.txt", "p1", 8, []),
    ("gc_monitor_one_ipu_matilda.txt", "pt-trainee01-4-ipus", 4, [(0, 205698)]),
    ("gc_monitor_two_replicas_matilda.txt", "pt-trainee01-4-ipus", 4, [(0, 203893), (1, 203893)]),
    ("gc_monitor_pipelined_matilda.txt", "pt-trainee01-4-ipus", 4,
     [(i, 177873) for i in range(4)]),
    ("gc_monitor_no_attached_paddle.txt", "ipuof", 4, []),
])
def test_gc_monitor_cards_and_users(name, partition, count, in_use):
    monitor = read_monitor(body("ipu", name))
    assert (monitor.partition, monitor.ipu_count) == (partition, count)
    assert sorted(monitor.cards) == list(range(count))
    assert [(a.ipu, a.pid) for a in monitor.attached] == in_use
    assert all(a.user == "trainee01" and a.command == "python" for a in monitor.attached)
    # no sensor is read unless the application runs with GCDA_MONITOR=1: N/A, not a figure
    assert all(a.clock_mhz in (1330.0,) and a.temp_c is None and a.power_w is None
               for a in monitor.attached)


def test_gc_monitor_card_rows():
    cards = read_monitor(body("ipu", "gc_monitor_cards_matilda.txt")).cards
    assert (cards[4]["IPU-M"], cards[4]["Serial"], cards[4]["Type"], cards[4]["IPU#"]) == (
        "10.1.5.11", "0013.0002.8204921", "M2000", "3")


def test_sampler_reads_real_device_attributes(tmp_path):
    """The gc-inventory sampler reads the device attributes in the form gc-info prints."""
    from accelbench.engine.systems.ipu.telemetry import GraphcoreSampler

    sampler = GraphcoreSampler(1.0, tmp_path)
    readings = [r for line in body("ipu", "gc_info_device_info_matilda.txt").split("\n")
                if (r := sampler.feed(line)) is not None]
    assert readings == [[{"engine": "ipu0", "percent": 0.0}]]


@pytest.mark.parametrize("tool, fixture, detail", [
    ("gc-info", "gc_info_list_matilda.txt",
     "gc-info -l: 4 IPU(s) in partition p1; tools found: gc-info"),
    ("gc-monitor", "gc_monitor_no_attached_paddle.txt",
     "gc-monitor: 4 IPU(s) in partition ipuof; tools found: gc-monitor"),
])
def test_detection_counts_the_ipus_the_tools_list(tmp_path, monkeypatch, tool, fixture, detail):
    from accelbench.engine.launchers.slurm.gres import slurm_gres
    from accelbench.engine.plugin.registry import detect, get_accelerator

    listing = tmp_path / "listing.txt"
    listing.write_text(body("ipu", fixture))
    (tmp_path / tool).write_text(f"#!/bin/sh\nexec '{shutil.which('cat')}' '{listing}'\n")
    (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    slurm_gres.cache_clear()
    found = detect(get_accelerator("ipu"))
    slurm_gres.cache_clear()
    assert found.available
    assert found.detail.startswith(detail)


def test_tool_readers_skip_what_is_not_their_table():
    assert read_devices("-+- Id: [x], target: [Fabric]\n |--- Id: [0]\nSegmentation fault") == []
    monitor = read_monitor("| ID | Clock |\n| N/A | 1 |\n| 3 |\n+--+\n")
    assert monitor.cards == {} and monitor.attached == [] and monitor.ipu_count is None


def test_a_graphcore_example_run_as_a_command_on_ipus_is_read_live(runner, monkeypatch,
                                                                    tmp_path):
    """``command`` on the ipu accelerator reads its output with the Graphcore dialects: a
    job printing a real BERT pre-training log ends with that log's figures."""
    monkeypatch.setattr("accelbench.engine.plugin.registry.require_available", lambda name: None)
    log = tmp_path / "pod64.log"
    log.write_text(body("ipu", "bert_pretraining_poprun_pod64.log"))
    spec = spec_from_dict({"name": "bert", "workload": "command", "accelerator": "ipu",
                           "telemetry_interval": 0,
                           "params": {"command": shlex.join([shutil.which("cat"), str(log)])}})
    assert Runner.plan(spec, tmp_path).dialects == ["poptorch", "graphcore_examples"]

    async def collect(handle):
        return [e async for e in handle.events(poll=0.05)]

    events = asyncio.run(asyncio.wait_for(collect(runner.start(spec)), 120))
    assert events[-1].status == "done"
    summary = events[-1].summary
    assert (summary["samples_per_s"], summary["train_time_s"], summary["final_loss"]) == (
        17692.1, 3.718, 11.26)
    assert summary["metrics"]["compile_time"] == 683.6591004971415
