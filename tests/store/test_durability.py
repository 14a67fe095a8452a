"""Runs outlive what started them: kill -9 of the CLI, SIGHUP of the TUI under tmux,
and several CLIs writing to the store at once."""

import collections
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from accelbench.engine.rundir.exitfile import read_exit
from accelbench.engine.rundir.files import EXIT_FILE, read_json
from accelbench.engine.store.runs import Store
from tests.helpers import ROOT, accelbench, json_events

QUICK = ["--set", "data=synthetic", "--set", "train_samples=3000", "--set", "test_samples=300",
         "--set", "epochs=2", "--set", "threads=1"]


def counts(events):
    """Events by type, metric names, progress steps, and the final summary's figures."""
    by_type = collections.Counter(e["type"] for e in events)
    metrics = collections.Counter(e["name"] for e in events if e["type"] == "metric")
    steps = [e["step"] for e in events if e["type"] == "progress"]
    return by_type, metrics, steps, figures(events)


def figures(events):
    """The final summary's figures that do not depend on timing (seeded, one thread)."""
    summary = events[-1]["summary"]
    return {k: summary.get(k) for k in ("final_loss", "accuracy", "eval_loss", "steps",
                                        "total_steps", "exit_code")}


def watch(run_id):
    """``accelbench attach --json`` of a run, from its start to its end, uninterrupted."""
    return subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", "attach", run_id,
                             "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=ROOT)


def streams(events):
    """Job events and telemetry apart: each is in order, but a live reader may interleave
    the two files differently than a later one."""
    return ([e for e in events if e["type"] != "utilization"],
            [e for e in events if e["type"] == "utilization"])


def wait_until_finished(run_id, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = {r["id"]: r for r in json.loads(accelbench("runs", "--format", "json").stdout)}
        if listed[run_id]["status"] not in ("queued", "running"):
            return listed[run_id]
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} did not finish in {timeout}s")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The events of another run of the same spec, watched without interruption."""
    env = {**os.environ, "ACCELBENCH_HOME": str(tmp_path_factory.mktemp("baseline"))}
    out = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist", *QUICK,
                          "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    return json_events(out.stdout)


@pytest.mark.slow
def test_kill_9_of_the_cli_loses_nothing(home, baseline):
    for attempt in range(3):
        cli = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist",
                                *QUICK, "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        seen = [json.loads(cli.stdout.readline())]
        watcher = watch(seen[0]["run_id"])
        for line in cli.stdout:  # kill it in the middle of training, at a different step each time
            seen.append(json.loads(line))
            if seen[-1]["type"] == "progress" and seen[-1]["step"] >= 20 + 25 * attempt:
                break
        cli.kill()
        cli.wait()
        run_id = seen[0]["run_id"]
        assert wait_until_finished(run_id)["status"] == "done"
        attached = json_events(accelbench("attach", run_id, "--json").stdout)
        watched = json_events(watcher.communicate(timeout=60)[0])
        for before, after, whole in zip(streams(seen), streams(attached), streams(watched),
                                        strict=True):
            assert after[:len(before)] == before  # the same history, event for event
            assert after == whole
        assert counts(attached) == counts(watched)
        assert figures(attached) == figures(baseline)
        store = Store(home)
        record = read_json(store.get(run_id).path(EXIT_FILE))
        assert record["status"] == "done" and record["returncode"] == 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_sighup_of_the_tui_under_tmux_loses_nothing(home, tmp_path, baseline):
    preset = tmp_path / "quick.toml"
    preset.write_text('name = "hup"\nworkload = "mnist_cnn"\n[params]\ndata = "synthetic"\n'
                      'train_samples = 3000\ntest_samples = 300\nepochs = 2\nthreads = 1\n'
                      'batch_size = 64\ntest_batch_size = 500\n')
    session = f"accelbench-test-{os.getpid()}"
    command = f"{sys.executable} -m accelbench.cli.main --preset {preset} --start"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "48",
                    "-c", str(ROOT), "-e", f"ACCELBENCH_HOME={home}", command], check=True)
    try:
        deadline = time.monotonic() + 60
        run = None
        while time.monotonic() < deadline:
            runs = Store(home).list()
            if runs and runs[0].status == "running":
                run = runs[0]
                break
            time.sleep(0.2)
        assert run is not None, "the TUI did not start the run"
        watcher = watch(run.id)
        time.sleep(1.5)  # in the middle of training
        pane_pid = int(subprocess.run(["tmux", "list-panes", "-t", session, "-F",
                                       "#{pane_pid}"], capture_output=True, text=True,
                                      check=False).stdout)
        assert read_exit(run.path(EXIT_FILE)) is None
    finally:  # the SSH link drops: the terminal hangs up on the app
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    deadline = time.monotonic() + 10
    while _exists(pane_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _exists(pane_pid), "the TUI survived the hang-up"
    assert wait_until_finished(run.id)["status"] == "done"
    attached = json_events(accelbench("attach", run.id, "--json").stdout)
    watched = json_events(watcher.communicate(timeout=60)[0])
    assert counts(attached) == counts(watched)
    assert figures(attached) == figures(baseline)


def _exists(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def test_two_clis_starting_runs_at_once_lose_none(home):
    code = "print('ok')"

    def start_many(_):
        ids = []
        for _ in range(4):
            out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                             f"command={sys.executable} -c \"{code}\"", "--detach")
            assert out.returncode == 0, out.stderr
            ids.append(out.stdout.strip())
        return ids

    with ThreadPoolExecutor(2) as pool:
        started = [i for ids in pool.map(start_many, range(2)) for i in ids]
    assert len(set(started)) == 8
    for run_id in started:
        assert wait_until_finished(run_id)["status"] == "done"
    listed = json.loads(accelbench("runs", "--format", "json").stdout)
    assert sorted(r["id"] for r in listed) == sorted(started)
    assert [r["created"] for r in listed] == sorted((r["created"] for r in listed), reverse=True)

