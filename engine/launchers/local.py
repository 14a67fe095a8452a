"""Local launcher: the job runs on this machine under a detached wrapper."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import psutil

from engine.launchers import jobwrap
from engine.spec import JobSpec
from engine.store import CANCEL_FILE, EXIT_FILE, WRAPPER_FILE, RunInfo, read_json, write_json

WRAPPER_START_TIMEOUT = 30.0


def start(run: RunInfo, spec: JobSpec) -> None:  # noqa: ARG001 - the launcher interface
    """Start the wrapper, in a session of its own, on the run's ``launch.json``."""
    with open(run.path("wrapper.log"), "ab") as log:
        subprocess.Popen([sys.executable, jobwrap.__file__, str(run.dir)], cwd=run.dir,
                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True, close_fds=True)


def cancel(run: RunInfo, grace: float = 10.0) -> None:
    """SIGTERM to the job's process group, SIGKILL after ``grace`` seconds."""
    write_json(run.path(CANCEL_FILE), {"requested": time.time()})
    pgid = _wait_for_job_pid(run)
    if pgid is not None:
        _signal(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _group_alive(pgid):
            _signal(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 5  # the wrapper records the exit within moments
    while not run.path(EXIT_FILE).exists() and time.monotonic() < deadline:
        if poll(run) == "lost":  # the wrapper itself is gone: record the end for it
            write_json(run.path(EXIT_FILE), jobwrap.exit_record(None, True, run.created))
            break
        time.sleep(0.05)


def poll(run: RunInfo) -> str:
    """``queued`` before the wrapper starts, ``running`` while it lives, else ``lost``.

    Callers read ``exit.json`` first: a wrapper that ended normally has written it.
    """
    wrapper = read_json(run.path(WRAPPER_FILE))
    if wrapper is None:
        return "lost" if time.time() - run.created > WRAPPER_START_TIMEOUT else "queued"
    if wrapper["host"] != socket.gethostname() or alive(wrapper["pid"], wrapper["started"]):
        return "running"
    return "lost"


def _wait_for_job_pid(run: RunInfo, timeout: float = 5.0) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not run.path(EXIT_FILE).exists():
        wrapper = read_json(run.path(WRAPPER_FILE)) or {}
        if "job_pid" in wrapper:
            return wrapper["job_pid"]
        time.sleep(0.05)
    return None


def alive(pid: int, started: float) -> bool:
    """``pid`` runs and is the process that started at ``started``, not a reused pid."""
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE and proc.create_time() <= started + 1
    except psutil.Error:
        return False


def _group_alive(pgid: int) -> bool:
    """Some process of group ``pgid`` still runs (zombies do not count)."""
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except OSError:
            continue
    return False


def _signal(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass
