"""Real training runs of each workload on the CPU through `accelbench run` (short, offline)."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tests.helpers import ROOT, accelbench, json_events

pytestmark = pytest.mark.slow

MNIST_TINY = ["--set", "data=synthetic", "--set", "train_samples=1280", "--set", "test_samples=400",
              "--set", "epochs=2", "--set", "threads=1", "--set", "telemetry_interval=0.5"]
BERT_TINY = ["--set", "train_samples=128", "--set", "eval_samples=32", "--set", "epochs=2",
             "--set", "env.HF_HUB_OFFLINE=1"]


def phases(events):
    return [e["name"] for e in events if e["type"] == "phase"]


def check_stream(events, expected_phases):
    assert phases(events) == expected_phases
    progress = [e for e in events if e["type"] == "progress"]
    assert progress and progress[-1]["step"] == progress[-1]["total"] > 0
    assert [p["step"] for p in progress] == sorted(p["step"] for p in progress)
    throughput = [e["samples_per_s"] for e in events if e["type"] == "throughput"]
    assert throughput and all(t > 0 for t in throughput)
    assert any(e["type"] == "utilization" and e["engine"] == "job rss" for e in events)
    finished = events[-1]
    assert finished["type"] == "finished" and finished["status"] == "done"
    return finished["summary"]


def test_mnist_cnn_end_to_end(home, monkeypatch):
    out = accelbench("run", "cpu-mnist", *MNIST_TINY, "--json")
    assert out.returncode == 0, out.stderr
    events = json_events(out.stdout)
    summary = check_stream(events, ["queued", "running", "loading", "running", "evaluating",
                                    "done"])
    assert summary["total_steps"] == 2 * 1280 // 64
    assert summary["samples_per_s"] > 0 and summary["train_time_s"] > 0
    assert 0 < summary["final_loss"] < 3
    assert 10 < summary["accuracy"] <= 100  # synthetic digits are learnable: above chance
    assert summary["diagnoses"] == ["synthetic_data"]
    logs = [e["text"] for e in events if e["type"] == "log"]
    # the final loss is the log's last epoch loss, in the summary and in `show`
    epoch_loss = next(line for line in reversed(logs) if line.startswith("Epoch 2/2: loss "))
    assert f"loss {summary['final_loss']:.4f}," in epoch_loss
    monkeypatch.setenv("COLUMNS", "100")
    show = accelbench("show", events[-1]["run_id"])
    assert re.search(rf"^final loss\s+{summary['final_loss']:.4g}\s+metric final_loss",
                     show.stdout, re.MULTILINE), show.stdout
    assert f"Accuracy on test set: {summary['accuracy']:.2f}%" in logs
    assert any("SYNTHETIC" in line for line in logs)


def test_bert_finetune_end_to_end(home):
    out = accelbench("run", "cpu-bert-finetune-tiny", *BERT_TINY, "--json")
    assert out.returncode == 0, out.stderr
    events = json_events(out.stdout)
    summary = check_stream(events, ["queued", "running", "loading", "running", "evaluating",
                                    "running", "evaluating", "done"])
    assert summary["total_steps"] == 2 * 128 // 16
    for key in ("samples_per_s", "train_time_s", "final_loss", "accuracy", "eval_loss"):
        assert summary[key] > 0, key
    logs = [e["text"] for e in events if e["type"] == "log"]
    assert "***** train metrics *****" in logs
    assert any(line.strip().startswith("train_samples_per_second =") for line in logs)


def test_live_display_shows_progress_and_summary(home):
    out = accelbench("run", "cpu-mnist", *MNIST_TINY)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "40/40 steps" in text and "epoch 2/2" in text and "samples/s" in text
    for figure in ("samples/s", "train time", "final loss", "acc %"):
        assert re.search(rf"^{figure}(\s+\(s\))?\s+[\d.]+", text, re.MULTILINE), figure
    assert "done" in text


def test_ctrl_c_cancels_the_job_and_leaves_no_orphan(home):
    cmd = [sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist", "--json",
           "--set", "data=synthetic", "--set", "epochs=50", "--set", "threads=1"]
    cli = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=os.environ.copy())
    seen = []
    for line in cli.stdout:  # wait until training is under way
        seen.append(line)
        if '"type":"progress"' in line:
            break
    job_pids = [p.pid for p in psutil.Process(cli.pid).children(recursive=True)]
    run_dir = next((home / "runs").iterdir())
    job_pid = json.loads((run_dir / "wrapper.json").read_text())["job_pid"]
    cli.send_signal(signal.SIGINT)
    rest, err = cli.communicate(timeout=60)
    assert cli.returncode == 130
    assert "cancelling run" in err and "was cancelled" in err
    events = json_events("".join(seen) + rest)
    assert events[-1]["type"] == "finished" and events[-1]["status"] == "cancelled"
    assert "Stopped by SIGTERM at step" in " ".join(
        e["text"] for e in events if e["type"] == "log")
    time.sleep(0.5)
    assert not psutil.pid_exists(job_pid) or psutil.Process(job_pid).status() == "zombie"
    assert not [p for p in job_pids if psutil.pid_exists(p)
                and psutil.Process(p).status() != "zombie"]
    assert json.loads(accelbench("runs", "--format", "json").stdout)[0]["status"] == "cancelled"
