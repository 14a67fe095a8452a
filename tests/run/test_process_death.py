"""Dead processes: kill -9 of the wrapper, of the job, of both; a stopped job; pid reuse.

A run is ``lost`` only when nothing is left to tell how it went: a job whose wrapper
died goes on (``running``, with a ``wrapper_died`` diagnosis), can be cancelled, and
its keeper still records its exit status.
"""

import json
import os
import signal
import subprocess
import sys
import time

import psutil

from accelbench.engine.core.events import Diagnosis, Phase
from accelbench.engine.launchers.procs import alive, group_alive
from accelbench.engine.launchers.slurm import sbatch as slurm
from accelbench.engine.launchers.slurm.commands import SlurmJob
from accelbench.engine.rundir.exitfile import read_exit, reserve, write_exit
from accelbench.engine.rundir.files import EXIT_FILE, WRAPPER_FILE, read_json, write_json
from tests.helpers import accelbench, command_spec, follow, wait_for

SLEEPS = "import time; print('up', flush=True); time.sleep(60)"


def gated(code):
    """A job that prints "up", waits until the test creates ``go`` in its run's directory
    (a command runs where it was launched: the run's directory comes from its environment),
    then runs ``code``: so the test decides when it ends, whatever the machine's load."""
    return ("import os, sys, time\nprint('up', flush=True)\n"
            "go = os.path.join(os.environ['ACCELBENCH_HOME'], 'runs',"
            " os.environ['ACCELBENCH_RUN_ID'], 'go')\n"
            "while not os.path.exists(go):\n    time.sleep(0.02)\n" + code)


# after the gate: a line on each stream every 0.05 s for 0.5 s, then exit code 3
FINISHES = gated("for i in range(10):\n    print('out', i, flush=True)\n"
                 "    print('err', i, file=sys.stderr, flush=True)\n    time.sleep(0.05)\n"
                 "sys.exit(3)\n")
# stdout only: with its keeper gone, nothing reads the job's stderr pipe any more
FINISHES_ON_STDOUT = gated("for i in range(10):\n    print('out', i, flush=True)\n")


def go(handle):
    handle.info.path("go").touch()


def started(runner, code):
    """A run of ``code``, once it has printed "up"; and its wrapper.json."""
    handle = runner.start(command_spec(code))
    assert wait_for(lambda: "up" in handle.info.path("output.log").read_text())
    assert wait_for(lambda: "job_started" in (read_json(handle.info.path(WRAPPER_FILE)) or {}))
    return handle, read_json(handle.info.path(WRAPPER_FILE))


def kill_9(*pids):
    """SIGKILL each pid and wait until it is gone (or a zombie nobody reaped yet)."""
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    for pid in pids:
        assert wait_for(lambda pid=pid: not alive(pid, time.time()), timeout=5)


def listed(run_id):
    """The run's row in ``accelbench runs --format json`` (a reader in another process)."""
    out = accelbench("runs", "--format", "json")
    assert out.returncode == 0, out.stderr
    return next(r for r in json.loads(out.stdout) if r["id"] == run_id)


def diagnoses(runner, run_id):
    return {d.code: d for d in runner.open(run_id).replay()[1].diagnoses}


def test_kill_9_of_the_wrapper_alone_leaves_a_running_job_that_cancel_stops(runner, home):
    handle, wrapper = started(runner, SLEEPS)
    kill_9(wrapper["pid"])
    time.sleep(0.5)
    assert listed(handle.id)["status"] == "running"
    assert group_alive(wrapper["job_pid"], wrapper["job_started"])
    died = diagnoses(runner, handle.id)["wrapper_died"]
    assert died.message == "the job's wrapper died: telemetry stopped"

    out = accelbench("cancel", handle.id, "--grace", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"run {handle.id}: cancelled"
    assert not group_alive(wrapper["job_pid"], wrapper["job_started"])
    assert listed(handle.id)["status"] == "cancelled"
    assert read_exit(handle.info.path(EXIT_FILE)).signal == "SIGTERM"


def test_orphaned_job_that_finishes_keeps_its_exit_status_and_output(runner):
    handle, wrapper = started(runner, FINISHES)
    kill_9(wrapper["pid"])
    go(handle)
    events = follow(handle)
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == 3
    codes = [e.code for e in events if isinstance(e, Diagnosis)]
    assert codes == ["wrapper_died", "job_failed"]
    logs = handle.info.path("output.log").read_text().splitlines()
    assert "out 9" in logs and "err 9" in logs  # written after the wrapper died


def test_kill_9_of_the_job_alone_is_failed_by_sigkill(runner):
    handle, wrapper = started(runner, SLEEPS)
    kill_9(wrapper["job_pid"])
    events = follow(handle)
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == -9
    diag = next(e for e in events if isinstance(e, Diagnosis))
    assert (diag.code, diag.message) == ("job_failed", "the job was killed by SIGKILL: up")


def test_kill_9_of_wrapper_and_job_is_failed_by_sigkill_not_lost(runner, store):
    # the keeper, the job's parent, saw how the job ended: no need to say "lost"
    handle, wrapper = started(runner, SLEEPS)
    kill_9(wrapper["pid"], wrapper["job_pid"])
    events = follow(handle)
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == -9
    assert store.get(handle.id).status == "failed"


def test_job_whose_wrapper_and_keeper_died_ends_with_exit_status_unknown(runner, store):
    handle, wrapper = started(runner, FINISHES_ON_STDOUT)
    kill_9(wrapper["pid"], wrapper["keeper_pid"])
    assert runner.runs()[0].status == "running"  # the job goes on
    go(handle)
    events = follow(handle)
    assert [e.name for e in events if isinstance(e, Phase)] == ["queued", "running", "ended"]
    diag = next(e for e in events if isinstance(e, Diagnosis) and e.code == "exit_unknown")
    assert diag.message == ("the job ended, exit status unknown "
                            "(the job's wrapper and keeper died before it ended)")
    assert store.get(handle.id).status == "ended"
    assert "out 9" in handle.info.path("output.log").read_text()


def test_cancel_of_a_job_whose_wrapper_and_keeper_died_records_the_end(runner, store):
    handle, wrapper = started(runner, SLEEPS)
    kill_9(wrapper["pid"], wrapper["keeper_pid"])
    runner.open(handle.id).cancel(grace=1)
    assert not group_alive(wrapper["job_pid"], wrapper["job_started"])
    assert read_exit(handle.info.path(EXIT_FILE)).status == "cancelled"
    assert follow(handle)[-1].status == "cancelled"


def test_stopped_job_stays_running_and_finishes_after_sigcont(runner, store):
    handle, wrapper = started(runner, gated("print('resumed', flush=True)\n"))
    os.killpg(wrapper["job_pid"], signal.SIGSTOP)
    try:
        go(handle)
        time.sleep(1)  # the job would have ended at once
        assert runner.runs()[0].status == "running"
        assert listed(handle.id)["status"] == "running"
        assert read_exit(handle.info.path(EXIT_FILE)) is None
    finally:
        os.killpg(wrapper["job_pid"], signal.SIGCONT)
    events = follow(handle)
    assert [e.name for e in events if isinstance(e, Phase)] == ["queued", "running", "done"]
    assert handle.info.path("output.log").read_text() == "up\nresumed\n"


def test_group_liveness_tells_a_reused_pid_apart():
    leader = subprocess.Popen([sys.executable, "-c",
                               ("import subprocess, sys, time; "
                                "subprocess.Popen([sys.executable, '-c', "
                                "'import time; time.sleep(30)']); time.sleep(30)")],
                              start_new_session=True)
    try:
        created = psutil.Process(leader.pid).create_time()
        assert group_alive(leader.pid, created)
        # a leader created later than the group we recorded is another process
        assert not group_alive(leader.pid, created - 100)
        assert wait_for(lambda: len(psutil.Process(leader.pid).children()) == 1)
        leader.kill()
        leader.wait()
        assert group_alive(leader.pid, created)  # its child still runs in the group
    finally:
        os.killpg(leader.pid, signal.SIGKILL)
    assert wait_for(lambda: not group_alive(leader.pid, created), timeout=5)


class FakeQueue:
    error, interval = "", 1.0

    def __init__(self, job):
        self.job = job

    def find(self, job_id=None, name=""):
        return self.job

    def accounted(self, job):  # a cluster without accounting: the controller's word stands
        return job


def slurm_run(store, monkeypatch, state):
    """A Slurm run whose job is in ``state`` and whose wrapper (on node1) is dead."""
    info = store.create(command_spec("print(1)"))
    write_json(info.path(slurm.SLURM_FILE), {"job_id": 7, "submitted": time.time()})
    write_json(info.path(WRAPPER_FILE), {"pid": 999999, "host": "node1", "started": 1.0})
    reserve(info.path(EXIT_FILE))  # the wrapper's reservation is no exit record
    monkeypatch.setattr(slurm, "QUEUE", FakeQueue(SlurmJob(7, "ab-x", state, exit_code=0)))
    monkeypatch.setattr(slurm, "FINAL_GRACE", -1.0)
    return info


def test_slurm_job_running_with_a_dead_wrapper_is_running_not_lost(store, monkeypatch):
    info = slurm_run(store, monkeypatch, "RUNNING")
    assert slurm.LAUNCHER.poll(info) == "running"
    assert read_exit(info.path(EXIT_FILE)) is None


def test_slurm_job_that_ended_without_its_wrapper_takes_slurms_word(store, monkeypatch):
    info = slurm_run(store, monkeypatch, "COMPLETED")
    assert slurm.LAUNCHER.poll(info) == "running"
    record = read_exit(info.path(EXIT_FILE))
    assert (record.status, record.detail) == ("done", "Slurm: COMPLETED")


def test_a_signalled_slurm_job_waits_for_slurms_verdict_at_every_liveness_check(
        store, monkeypatch):
    """The wrapper's record after SIGTERM (scancel? a time limit?) is not the end while Slurm
    still says COMPLETING, even on the steps that ask the launcher (the CI race of the
    time-limit test: the record came back on the next liveness check as `cancelled`)."""
    from accelbench.engine.launchers.jobwrap import exit_record
    from accelbench.engine.run.runner import RunHandle

    info = slurm_run(store, monkeypatch, "COMPLETING")
    info.launcher = "slurm"
    write_exit(info.path(EXIT_FILE), exit_record(-15, True, 1.0, verdict="slurm",
                                                 detail="the job's wrapper received SIGTERM"))
    handle = RunHandle(store, info)
    assert handle.fold().finished is None  # every step of a fold asks the launcher
    slurm.QUEUE.job = SlurmJob(7, "ab-x", "TIMEOUT", reason="TimeLimit", exit_code=0)
    finished = RunHandle(store, info).fold().finished
    assert (finished.status, finished.summary["exit_code"]) == ("failed", -15)
    assert read_exit(info.path(EXIT_FILE)).detail == "Slurm: TIMEOUT (TimeLimit)"


def test_sacct_has_the_last_word_on_how_a_slurm_job_ended(store, monkeypatch):
    """Where the cluster keeps accounting, sacct's final state and exit code (here an OOM
    kill the controller still shows as FAILED) settle the run, with a diagnosis and hint."""
    from accelbench.engine.rundir import journal

    info = slurm_run(store, monkeypatch, "FAILED")
    monkeypatch.setattr(slurm.QUEUE, "accounted", lambda job: SlurmJob(
        job.job_id, job.name, "OUT_OF_MEMORY", exit_code=0, signal=9))
    assert slurm.LAUNCHER.poll(info) == "running"
    record = read_exit(info.path(EXIT_FILE))
    assert (record.status, record.returncode, record.signal, record.detail) == (
        "failed", -9, "SIGKILL", "Slurm: OUT_OF_MEMORY")
    (oom,) = [e for e in journal.read(info.dir) if e.kind == "diagnosis"]
    assert oom.code == "slurm_oom"
    assert oom.message == "the job ran out of memory (Slurm job 7: OUT_OF_MEMORY)"
    assert oom.hint.startswith("ask for more memory")
