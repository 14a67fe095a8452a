"""Runs through a private one-node Slurm cluster (the `cluster` fixture, tests/slurm/cluster.py)."""

import asyncio
import os
import shlex
import subprocess
import sys
import time

import pytest

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import Diagnosis, Log, Phase
from accelbench.engine.launchers import jobwrap
from accelbench.engine.launchers.slurm import commands as slurm_commands
from accelbench.engine.launchers.slurm.commands import QUEUE, SlurmQueue, preflight
from accelbench.engine.rundir.exitfile import read_exit
from accelbench.engine.rundir.files import EXIT_FILE
from tests.helpers import ROOT, accelbench, json_events

pytestmark = pytest.mark.slurm


@pytest.fixture(autouse=True)
def quick_polls(cluster, monkeypatch):
    monkeypatch.setattr(QUEUE, "interval", 0.5)
    monkeypatch.setenv("ACCELBENCH_SLURM_POLL", "0.5")


def spec(code: str, launcher="slurm", **slurm):
    command = shlex.join([sys.executable, "-c", code])
    return spec_from_dict({"name": "sl", "workload": "command", "launcher": launcher,
                           "params": {"command": command}, "telemetry_interval": 0.5,
                           "slurm": slurm})


def follow(handle, on_event=None, timeout=180):
    async def collect():
        events = []
        async for event in handle.events(poll=0.1):
            events.append(event)
            if on_event:
                on_event(event)
        return events
    return asyncio.run(asyncio.wait_for(collect(), timeout))


def phases(events):
    return [(e.name, e.detail) for e in events if isinstance(e, Phase)]


TICKS = "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.7)\n"


def test_run_completes_with_output_streamed(runner):
    handle = runner.start(spec(TICKS))
    streamed = []

    def check(event):  # the first line arrives while the job still runs
        if isinstance(event, Log) and not streamed:
            streamed.append(read_exit(handle.info.path(EXIT_FILE)) is None)

    events = follow(handle, check)
    assert streamed == [True]
    assert [e.text for e in events if isinstance(e, Log)] == [f"tick {i}" for i in range(4)]
    assert any(name == "running" and detail.startswith(("on ", "RUNNING on "))
               for name, detail in phases(events))
    assert any(e.kind == "utilization" for e in events)  # sampled inside the job
    assert events[-1].status == "done" and events[-1].summary["exit_code"] == 0
    script = handle.info.path("job.sbatch").read_text()
    assert script.splitlines()[-1] == "exec " + shlex.join(
        jobwrap.command(handle.info.dir))


def test_second_run_pends_for_resources_then_runs(runner):
    code = "import time; print('start', flush=True); time.sleep(4); print('end')"
    first = runner.start(spec(code, gres="rdu:8"))
    second = runner.start(spec(code, gres="rdu:8"))
    first_events, second_events = follow(first), follow(second)
    assert first_events[-1].status == second_events[-1].status == "done"
    assert ("queued", "PENDING (Resources)") in phases(second_events)
    names = [name for name, _ in phases(second_events)]
    assert names.index("running") > names.index("queued") and names[-1] == "done"


def wait_running(handle, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "tick 0" in handle.info.path("output.log").read_text():
            return
        time.sleep(0.1)
    raise AssertionError("the job did not start")


LONG = "import time\nfor i in range(600):\n    print('tick', i, flush=True)\n    time.sleep(0.5)\n"


def test_cancel_from_accelbench(runner):
    handle = runner.start(spec(LONG))
    wait_running(handle)
    handle.cancel(grace=5)
    events = follow(handle)
    assert events[-1].status == "cancelled"


def test_cancel_from_outside_shows_cancelled(runner):
    handle = runner.start(spec(LONG))
    wait_running(handle)
    job_id = handle.info.path("slurm.json").read_text()
    job_id = __import__("json").loads(job_id)["job_id"]
    subprocess.run(["scancel", str(job_id)], check=True)
    events = follow(handle)
    assert events[-1].status == "cancelled"


def test_cancel_while_pending(runner):
    blocker = runner.start(spec(LONG, gres="rdu:8"))
    waiting = runner.start(spec(LONG, gres="rdu:8"))
    wait_running(blocker)
    waiting.cancel(grace=5)
    blocker.cancel(grace=5)
    events = follow(waiting)
    assert events[-1].status == "cancelled" and not any(isinstance(e, Log) for e in events)
    assert "Slurm: CANCELLED" in [d for _, d in phases(events)][-1]
    assert follow(blocker)[-1].status == "cancelled"


def test_failing_job_reports_its_exit_code(runner):
    events = follow(runner.start(spec("import sys; print('oops', flush=True); sys.exit(3)")))
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == 3
    diag = next(e for e in events if isinstance(e, Diagnosis) and e.code == "job_failed")
    assert diag.message == "the job exited with code 3: oops"


def test_preflight_refuses_what_slurm_would():
    with pytest.raises(UserError) as info:
        preflight({"ntasks": 32, "ntasks_per_node": 16, "nodes": 1})
    assert str(info.value) == ("slurm.ntasks=32 is more than slurm.ntasks_per_node=16 × "
                               "slurm.nodes=1: Slurm rejects this as an invalid configuration")
    preflight({"ntasks": 16, "ntasks_per_node": 16, "nodes": 1, "gres": "rdu:8"})
    with pytest.raises(UserError, match="no such partition"):
        preflight({"partition": "gpu-h100"})
    with pytest.raises(UserError, match="no node here has GRES 'gpu'"):
        preflight({"gres": "gpu:1"})
    with pytest.raises(UserError, match="at most rdu:8"):
        preflight({"gres": "rdu:16"})


def test_cli_ntasks_error_is_one_line(home):
    out = accelbench("run", "slurm-cpu-mnist", "--set", "slurm.ntasks=32",
                     "--set", "slurm.ntasks_per_node=16")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines()[0].startswith(  # refused as the preset loads, naming it
        f"accelbench: error: {ROOT}/presets/slurm-cpu-mnist.toml: slurm.ntasks=32 is more than")


def test_sbatch_error_is_shown_verbatim(runner):
    with pytest.raises(UserError) as info:
        runner.start(spec("print(1)", time="not-a-time"))
    assert str(info.value).startswith("sbatch failed: sbatch: error: Invalid --time specification")


def test_srun_mode_runs_and_tracks_state(runner):
    events = follow(runner.start(spec(TICKS, launcher="srun", gres="ipu:1")))
    assert [e.text for e in events if isinstance(e, Log)] == [f"tick {i}" for i in range(4)]
    assert events[-1].status == "done"
    assert any(n == "running" and d.startswith(("on ", "RUNNING on ")) for n, d in phases(events))


def test_cli_end_to_end_with_mnist(home, monkeypatch):
    monkeypatch.setenv("ACCELBENCH_SLURM_POLL", "0.5")
    out = accelbench("run", "cpu-mnist", "--set", "launcher=slurm", "--set", "data=synthetic",
                     "--set", "train_samples=1280", "--set", "test_samples=200",
                     "--set", "threads=1", "--json")
    assert out.returncode == 0, out.stderr
    events = json_events(out.stdout)
    summary = events[-1]["summary"]
    assert events[-1]["status"] == "done" and summary["total_steps"] == 20
    assert summary["accuracy"] > 10 and summary["samples_per_s"] > 0


def test_one_squeue_call_serves_every_run(runner):
    queue = SlurmQueue(interval=30)
    handles = [runner.start(spec("import time; time.sleep(1)")) for _ in range(5)]
    for _ in range(3):
        for handle in handles:
            info = __import__("json").loads(handle.info.path("slurm.json").read_text())
            assert queue.find(job_id=info["job_id"]) is not None
    assert queue.calls == 1
    for handle in handles:
        follow(handle)


def test_controller_down_is_retried_with_back_off(tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "squeue").write_text("#!/bin/sh\necho 'squeue: error: Unable to contact slurm "
                                 "controller (connect failure)' >&2\nexit 1\n")
    (fake / "squeue").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    queue = SlurmQueue(interval=0.01)
    assert queue.snapshot() == {} and "Unable to contact slurm controller" in queue.error
    queue.snapshot()
    assert queue.calls == 1  # backing off: no second call right away
    assert queue._backoff >= 0.01


@pytest.mark.timeout(600)  # follows the job for up to 400 s
def test_time_limit_shows_as_timeout_not_cancelled(runner):
    """Slurm's time limits are in minutes: this test waits one out (about 70 s)."""
    events = follow(runner.start(spec(LONG, time="1")), timeout=400)
    assert events[-1].status == "failed"
    assert [d for _, d in phases(events)][-1] == "Slurm: TIMEOUT (TimeLimit)"
    timeout = next(e for e in events if isinstance(e, Diagnosis) and e.code == "slurm_timeout")
    assert timeout.message.startswith("the job reached its time limit (Slurm job ")
    assert timeout.hint == "raise slurm.time (--time), or save checkpoints and resume"


def _accounting(cluster):
    if cluster.accounting_error:
        pytest.skip(f"no Slurm accounting on the private cluster: {cluster.accounting_error}")


def _finished_job(script: str) -> int:
    """Submit ``script``; its job id once the controller says it ended."""
    out = subprocess.run(["sbatch", "--parsable", "--output=/dev/null", "--wrap", script],
                         capture_output=True, text=True, check=True)
    job_id = int(out.stdout.strip())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = subprocess.run(["scontrol", "show", "job", str(job_id)], capture_output=True,
                               text=True, check=False).stdout
        if "JobState=FAILED" in state or "JobState=COMPLETED" in state:
            return job_id
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} did not end in 60 s")


def test_sacct_answers_with_the_final_state_exit_code_and_elapsed_time(cluster):
    _accounting(cluster)
    job_id = _finished_job("sleep 1.2; exit 3")
    queue = SlurmQueue(0.1)
    deadline = time.monotonic() + 30  # the controller tells slurmdbd a moment later
    while (record := queue.accounting.job(job_id)) is None or record.state == "RUNNING":
        assert time.monotonic() < deadline, "sacct did not record the job's end in 30 s"
        time.sleep(0.3)
    assert (record.state, record.exit_code, record.signal) == ("FAILED", 3, 0)
    assert record.elapsed_s is not None and 1 <= record.elapsed_s <= 10
    assert queue.accounting.enabled is True


def test_a_job_the_controller_forgot_is_found_through_sacct(cluster, monkeypatch):
    """After MinJobAge the controller no longer knows a job: sacct still tells how it ended."""
    _accounting(cluster)
    job_id = _finished_job("exit 5")
    monkeypatch.setattr(slurm_commands, "scontrol_job", lambda _job_id: None)
    queue = SlurmQueue(0.1)
    monkeypatch.setattr(queue, "snapshot", dict)  # squeue no longer lists it either
    deadline = time.monotonic() + 30
    while (job := queue.find(job_id=job_id)) is None or not job.final:
        assert time.monotonic() < deadline, "sacct did not record the job's end in 30 s"
        time.sleep(0.3)
    assert (job.job_id, job.state, job.exit_code) == (job_id, "FAILED", 5)


def test_environment_reaches_the_job_without_text_around_srun(runner):
    """The seeds' pitfall: `srun POPLAR_ENGINE_OPTIONS=... python` fails in execve()."""
    options = '{"autoReport.all":"true", "autoReport.directory":"./report"}'
    code = "import os; print(os.environ['POPLAR_ENGINE_OPTIONS'])"
    job = spec(code, launcher="srun", gres="ipu:1")
    job.env["POPLAR_ENGINE_OPTIONS"] = options
    handle = runner.start(job)
    events = follow(handle)
    assert [e.text for e in events if isinstance(e, Log)] == [options]
    srun = __import__("json").loads(handle.info.path("slurm.json").read_text())["srun"]
    assert not any("=" in arg and not arg.startswith("--") for arg in srun[:srun.index(
        sys.executable)])
    assert srun[0].endswith("srun") and "--gres=ipu:1" in srun


def test_a_sweep_submits_every_variant_at_once(runner):
    """Slurm queues: the experiment's driver submits all variants, whatever max_parallel."""
    from accelbench.engine.run.experiment import start
    from accelbench.engine.rundir.files import read_json

    sleep = shlex.join([sys.executable, "-c", "import time; time.sleep(4)"])
    sweep = spec_from_dict({"name": "sl-sweep", "workload": "command", "launcher": "slurm",
                            "telemetry_interval": 0, "params": {"command": sleep},
                            "sweep": {"slurm.ntasks": [1, 1, 1], "max_parallel": 1}})
    exp = start(runner, sweep)
    deadline = time.monotonic() + 180
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.5)
    runs = exp.runs()
    assert exp.status() == "done" and [r.status for r in runs] == ["done"] * 3
    ends = [read_json(r.path(EXIT_FILE))["ended"] for r in runs]
    assert all(r.created < min(ends) for r in runs)  # all submitted before any ended
    assert len({read_json(r.path("slurm.json"))["job_id"] for r in runs}) == 3
