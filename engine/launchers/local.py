"""Local launcher: the job runs on this machine under a detached wrapper."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time

from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.launchers import jobwrap
from accelbench.engine.launchers.procs import alive, group_alive
from accelbench.engine.launchers.scheduler import cancel_run
from accelbench.engine.plugin.launcher import Launcher
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.exitfile import recorded, write_exit
from accelbench.engine.rundir.files import (
    EXIT_FILE,
)
from accelbench.engine.rundir.records import Wrapper

WRAPPER_START_TIMEOUT = 30.0


class Local(Launcher):
    """This machine: the wrapper runs detached, in a session of its own."""

    name = "local"
    title = "this machine, under a detached wrapper"

    def start(self, run: RunInfo, spec: JobSpec) -> None:
        """Start the wrapper, in a session of its own, on the run's ``launch.json``."""
        with open(run.path("wrapper.log"), "ab") as log:
            subprocess.Popen(jobwrap.command(run.dir), cwd=run.dir,
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True, close_fds=True)

    def cancel(self, run: RunInfo, grace: float = 10.0) -> None:
        """SIGTERM to the job's process group, SIGKILL after ``grace`` seconds; the wrapper
        (or keeper) records the end within moments, else this does where it is gone."""
        cancel_run(run, lambda: self.stop(run, grace), lambda run: Local.poll(self, run), 5.0,
                   every=0.05)

    def stop(self, run: RunInfo, grace: float) -> None:
        """SIGTERM to the job's process group, SIGKILL after ``grace`` seconds."""
        job = _wait_for_job(run)
        if job is not None:
            _signal(job[0], signal.SIGTERM)
            deadline = time.monotonic() + grace
            while group_alive(*job) and time.monotonic() < deadline:
                time.sleep(0.05)
            if group_alive(*job):
                _signal(job[0], signal.SIGKILL)

    def poll(self, run: RunInfo) -> str:
        """``queued`` before the wrapper starts, ``running`` while it or the job's process
        group lives, else ``lost``.

        Callers read ``exit.json`` first: a wrapper that ended normally has written it.
        When the wrapper was killed the job goes on, and its keeper records its end; if
        the keeper died too, the end is recorded here, once the job's group is gone.
        """
        wrapper = Wrapper.read(run.dir)
        if wrapper is None:
            return "lost" if time.time() - run.created > WRAPPER_START_TIMEOUT else "queued"
        if wrapper.host != socket.gethostname() or alive(wrapper.pid, wrapper.started):
            return "running"
        if wrapper.job_pid is None or wrapper.job_started is None:  # it died before the job
            return "lost"
        if group_alive(wrapper.job_pid, wrapper.job_started):
            journal.append(run.dir, jobwrap.wrapper_died(run.dir), once=True)
            return "running"
        pid, started = wrapper.keeper_pid, wrapper.keeper_started
        if not (pid is not None and started is not None and alive(pid, started)) \
                and not recorded(run.path(EXIT_FILE)):
            try:
                write_exit(run.path(EXIT_FILE), jobwrap.unknown_end(
                    run.dir, wrapper.started,
                    "the job's wrapper and keeper died before it ended"))
            except OSError:
                return "lost"  # no room to say more (a full disk with no space reserved)
        return "running"


def _wait_for_job(run: RunInfo, timeout: float = 5.0) -> tuple[int, float] | None:
    """The job's process group and its creation time, once the wrapper has started it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not recorded(run.path(EXIT_FILE)):
        wrapper = Wrapper.read(run.dir)
        if wrapper is not None and wrapper.job_pid is not None:
            return wrapper.job_pid, wrapper.job_started or wrapper.started
        time.sleep(0.05)
    return None


def _signal(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


LAUNCHER = Local()
