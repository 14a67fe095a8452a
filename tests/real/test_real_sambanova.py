"""SambaNova's real published output (tests/fixtures/real/sambanova): parse, import, tiles."""

from __future__ import annotations

import json
import time

import pytest
from real_logs import body

from accelbench.engine.core.events import Diagnosis, Metric, Phase, Progress, Throughput
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.store.runs import Store
from accelbench.engine.systems.sambanova.telemetry import read_table


def _events(tmp_path, name):
    log = tmp_path / name
    log.write_text(body("sambanova", name))
    sections = parse_file(log)
    assert len(sections) == 1, [s.title for s in sections]
    return sections[0].events, log


def _metrics(events, name):
    return [e.value for e in events if isinstance(e, Metric) and e.name == name]


def test_min_throughput_assertion_is_one_run_with_figures_and_failure(tmp_path):
    events, log = _events(tmp_path, "bert_large_min_throughput_assertion.log")
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)][-1] == (504, 2549)
    assert _metrics(events, "loss")[-1] == 8.2374
    assert _metrics(events, "training_samples_per_second") == [2262.653769968614]
    assert _metrics(events, "e2e_train_time") == [457.0915858745575]
    assert _metrics(events, "final_loss") == [8.308523178100586]
    diagnosis, *slurm = [e for e in events if isinstance(e, Diagnosis)]
    assert diagnosis.code == "sambanova_min_throughput"
    assert [(d.code, d.message) for d in slurm] == [
        ("slurm_task_exit", "task 0 on sn30-r1-h1 exited with code 1"),
        ("slurm_task_signal", "tasks 2,6-7 on sn30-r1-h1: Killed")]
    assert diagnosis.message == ("AssertionError: Expected throughput to be at least 560000.0,"
                                 " instead found 289619.6825559826")
    # Its own timestamps: the first step line's, and the last stamp for the traceback.
    first = time.mktime(time.strptime("2024-04-03 09:39:54", "%Y-%m-%d %H:%M:%S")) + 0.427
    assert events[0].ts == pytest.approx(first)
    assert diagnosis.ts == pytest.approx(first + 3.484)
    [run] = import_file(Store(tmp_path / "home"), log)  # one run, not figures + diagnosis
    assert run.summary.samples_per_s == 2262.653769968614
    assert run.summary.train_time_s == 457.0915858745575
    assert run.summary.final_loss == 8.308523178100586
    exit_record = json.loads(run.path("exit.json").read_text())
    assert (exit_record["status"], exit_record["returncode"]) == ("failed", 1)  # srun's line
    assert run.summary.diagnoses == ["job_failed", "sambanova_min_throughput",
                                    "slurm_task_exit", "slurm_task_signal"]


def test_starter_app_compile_and_run(tmp_path):
    events, _ = _events(tmp_path, "ffn_mnist_output.log")
    phases = [(e.name, e.detail) for e in events if isinstance(e, Phase)]
    assert phases == [("compiling", "compilation succeeded"), ("running", "")]
    steps = [(e.step, e.total, e.epoch, e.epochs) for e in events if isinstance(e, Progress)]
    assert steps[0] == (10000, 60000, 1, 1) and steps[-1] == (60000, 60000, 1, 1)
    assert _metrics(events, "loss") == [0.5563, 0.4374, 0.3832, 0.3479, 0.3222, 0.3028]
    assert _metrics(events, "accuracy") == [94.5]
    assert _metrics(events, "test_loss") == [0.1905]


def test_starter_app_with_measured_throughput(tmp_path):
    events, _ = _events(tmp_path, "res_ffn_mnist_output.log")
    assert [e.name for e in events if isinstance(e, Phase)] == ["compiling", "running"]
    assert _metrics(events, "loss")[-1] == 0.5086
    assert _metrics(events, "accuracy") == [90.66]
    assert _metrics(events, "test_loss") == [0.434]
    assert [e.samples_per_s for e in events if isinstance(e, Throughput)] == [1898.6569130275361]


@pytest.mark.parametrize(("name", "steps", "losses", "accuracy", "test_loss"), [
    ("lenet_output.log", [59994, 59995, 59996, 59997, 59998, 59999, 60000], [0.1712] * 7,
     98.06, 0.0628),
    ("logreg_output.log", [10000, 20000, 30000, 40000, 50000, 60000],
     [0.4763, 0.4185, 0.3888, 0.3721, 0.359, 0.3524], 90.07, 0.3361),
])
def test_more_starter_apps(tmp_path, name, steps, losses, accuracy, test_loss):
    """LeNet and logistic regression from the same guide: steps, losses, test figures."""
    events, _ = _events(tmp_path, name)
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)] == [
        (step, 60000) for step in steps]
    assert _metrics(events, "loss") == losses
    assert (_metrics(events, "accuracy"), _metrics(events, "test_loss")) == (
        [accuracy], [test_loss])
    assert [e.name for e in events if isinstance(e, Phase)] == ["running"]


def test_sambatune_failed_steps_make_a_failed_run(tmp_path):
    events, log = _events(tmp_path, "sambatune_uno_failed_ccle.log")
    assert [(e.name, e.detail) for e in events if isinstance(e, Phase)] == [
        ("compiling", "SambaTune compiles the PEF"), ("running", "SambaTune's instrumented runs")]
    messages = [e.message for e in events if isinstance(e, Diagnosis)]
    assert [m.split(" failed")[0] for m in messages] == [
        "SambaTune: Execute Snprof", "SambaTune: Run snprof by lists",
        "SambaTune: Run benchmarking by lists", "SambaTune: Extract and Process e2e Snprof Data",
        "SambaTune: Get e2e measure performance json path"]
    assert messages[1] == "SambaTune: Run snprof by lists failed: Error while running snprof jobs"
    assert messages[-1].endswith(": Cannot find measure-performance data.")
    (info,) = import_file(Store(tmp_path / "home"), log)
    assert info.status == "failed"
    assert "sambatune_step_failed" in info.summary.diagnoses


def test_gpt_summary_dict_ends_a_finished_run(tmp_path):
    events, log = _events(tmp_path, "gpt15b_summary_sn30.log")
    assert (_metrics(events, "e2e_train_time"), _metrics(events, "final_loss")) == (
        [2179.2292835712433], [4.781678199768066])
    assert _metrics(events, "training_sequences_per_second") == [192467.31088004305]
    (info,) = import_file(Store(tmp_path / "home"), log)
    assert info.status == "done"  # the summary is printed once training is over


def test_unet_data_parallel_instances(tmp_path):
    events, log = _events(tmp_path, "unet_data_parallel_sn30.log")
    rates = [e.samples_per_s for e in events if isinstance(e, Throughput)]
    assert len(rates) == 8 and rates[0] == 563.9653143065 and rates[-1] == 808.442427336472
    assert _metrics(events, "train_loop_time_s")[0] == 36.314290046691895
    assert {e.step for e in events if isinstance(e, Throughput)} == {10}
    (info,) = import_file(Store(tmp_path / "home"), log)
    assert info.summary.samples_per_s == pytest.approx(sum(rates) / 8)


def test_sntilestat_of_a_busy_sn30():
    rdus = read_table(body("sambanova", "sntilestat_gpt15b_sn30.txt"))
    assert list(rdus) == [f"/XRDU_{x}/RDU_{r}" for x in range(4) for r in range(2)]
    assert all(len(r.exec_percent) == 8 and r.idle == 0 for r in rdus.values())
    assert rdus["/XRDU_0/RDU_0"].exec_percent[0] == 91.6
    assert rdus["/XRDU_3/RDU_1"].exec_percent[-1] == 92.0


def test_sntilestat_busy_table_with_wrapped_commands():
    rdus = read_table(body("sambanova", "sntilestat_busy_wrapped.txt"))
    assert len(rdus) == 8
    busy = rdus["/XRDU_0/RDU_0"]
    assert busy.exec_percent == [7.0, 6.9, 4.7, 6.3] and busy.idle == 0
    assert all(r.exec_percent == [0.0] * 4 and r.idle == 4
               for name, r in rdus.items() if name != "/XRDU_0/RDU_0")


def test_sntilestat_idle_table():
    rdus = read_table(body("sambanova", "sntilestat_idle.txt"))
    assert list(rdus) == [f"/XRDU_{x}/RDU_{r}" for x in range(4) for r in range(2)]
    assert sum(r.idle for r in rdus.values()) == 32


def test_snconfig_listing_names_the_node():
    from accelbench.engine.systems.sambanova.inventory import Node, read_snconfig

    node = read_snconfig(body("sambanova", "snconfig_sn10_8.txt"))
    assert node == Node("DataScale SN10-8", 4, 2, 4)
    assert node.rdus == 8
    assert read_snconfig(body("sambanova", "sntilestat_idle.txt")) is None


def test_detection_reads_snconfig(monkeypatch, tmp_path):
    from accelbench.engine.systems.sambanova.inventory import detect

    listing = tmp_path / "listing.txt"
    listing.write_text(body("sambanova", "snconfig_sn10_8.txt"))
    tool = tmp_path / "snconfig"
    tool.write_text(f"#!/bin/sh\nexec /bin/cat '{listing}'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    found = detect()
    assert found.available
    assert found.detail == ("DataScale SN10-8: 8 RDU(s) (4 XRDU × 2), 4 tiles each"
                            " (snconfig)")
