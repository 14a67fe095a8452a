"""The small wrapper that owns a job: ``python -m accelbench.engine.launchers.jobwrap RUN_DIR``.

It runs detached (its own session, no terminal), so the reader that started it
may exit or lose its SSH link at any time. It reserves the space of ``exit.json``
and forks a *keeper*, the job's parent: the keeper starts the job from the run's
``launch.json`` in a process group of its own with stdout going to ``output.log``,
copies its stderr there too, waits for it and reports how it ended. The wrapper
samples telemetry beside it (this machine's, and the vendor tools' that
``launch.json``'s ``samplers`` name), forwards SIGTERM to the job's group, and
records the exit status in ``exit.json``. Under a scheduler it notes the job's id
(from the variable ``job_id_env`` names); a signalled job's end then awaits the word
of the launcher that ``verdict`` names (a cancel, or a time limit?).

If the wrapper dies (kill -9), the keeper goes on: the job's stderr still reaches
the log, the wrapper's death is noted in ``state.jsonl`` and the keeper records
the job's end itself.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO

import psutil

from accelbench.engine.core import fs
from accelbench.engine.core.events import Diagnosis
from accelbench.engine.launchers.procs import group_alive
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.exitfile import ExitRecord, recorded, reserve, write_exit
from accelbench.engine.rundir.files import (
    CANCEL_FILE,
    EXIT_FILE,
    LAUNCH_FILE,
    OUTPUT_FILE,
    STDERR_FILE,
    TELEMETRY_FILE,
)
from accelbench.engine.rundir.records import Launch, Wrapper


def wrapper_died(run_dir: Path) -> Diagnosis:
    """The note that the job's wrapper died while the job goes on."""
    return Diagnosis(run_dir.name, round(time.time(), 3), "wrapper_died",
                     "the job's wrapper died: telemetry stopped",
                     "the job goes on; `accelbench cancel RUN` stops it")


def command(run_dir: Path) -> list[str]:
    """The wrapper's command line for the run in ``run_dir`` (``-P``: the run directory, its
    working directory, never shadows a module)."""
    return [sys.executable, "-P", "-m", "accelbench.engine.launchers.jobwrap", str(run_dir)]


def exit_record(returncode: int | None, cancelled: bool, started: float,
                **extra: Any) -> ExitRecord:
    """The exit record of a job that ended with ``returncode`` (``extra``: more fields)."""
    status = "cancelled" if cancelled else "done" if returncode == 0 else "failed"
    killed = signal.Signals(-returncode).name if returncode is not None and returncode < 0 else None
    return ExitRecord(status, returncode, started, time.time(), killed, **extra)


def unknown_end(run_dir: Path, started: float, why: str) -> ExitRecord:
    """The exit record of a job that ended with no one left to see how: ``ended``
    (``cancelled`` if a cancel was asked for), exit status unknown."""
    cancelled = (run_dir / CANCEL_FILE).exists()
    return ExitRecord("cancelled" if cancelled else "ended", None, started, time.time(),
                      detail=f"exit status unknown ({why})")


def record_end(run_dir: Path, end: dict[str, Any], started: float, cancelled: bool,
               **extra: Any) -> None:
    """Write ``exit.json`` for the keeper's report ``end`` of how the job ended; a job
    that failed on a full disk (or lost output to one) gets ``disk_full``."""
    record = exit_record(end["returncode"], cancelled, started,
                         **{k: end[k] for k in ("error",) if k in end}, **extra)
    if end.get("no_space") or record.status == "failed":
        filesystem = fs.filesystem(run_dir)
        if end.get("no_space") or filesystem["full"]:
            record.disk_full = filesystem
    write_exit(run_dir / EXIT_FILE, record)


def copy_stderr(pipe: int, out: BinaryIO, note: BinaryIO) -> bool:
    """Copy the job's stderr to ``out`` (``output.log``, keeping its place among stdout
    lines), after noting each chunk in ``note`` (``stderr.log``) so readers can tell
    the two apart. A chunk that cannot be written is dropped, never left in the pipe
    for the job to block on; returns whether one was, for want of space."""
    no_space = False
    while chunk := os.read(pipe, 65536):
        noted = os.fstat(note.fileno()).st_size
        try:
            _write_all(note, chunk)
            _write_all(out, chunk)
        except OSError as exc:
            no_space = no_space or exc.errno in (errno.ENOSPC, errno.EDQUOT)
            with contextlib.suppress(OSError):
                os.ftruncate(note.fileno(), noted)  # stderr.log holds only what output.log has
    return no_space


def _copy_to_logs(pipe: int, run_dir: Path, no_space: list[bool]) -> None:
    with open(run_dir / OUTPUT_FILE, "ab", buffering=0) as out, \
            open(run_dir / STDERR_FILE, "ab", buffering=0) as note:
        no_space.append(copy_stderr(pipe, out, note))


def _write_all(f: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[f.write(view):]


class Keeper:
    """The wrapper's side of the keeper, a forked child that is the job's parent.

    The keeper reports on one pipe (the job's pid, then its end, as JSON lines);
    the wrapper holds the other open until it has recorded the end, so the keeper
    knows when the wrapper is gone, whether it finished or was killed.
    """

    def __init__(self, run_dir: Path, launch: Launch, started: float) -> None:
        report_r, report_w = os.pipe()
        hold_r, hold_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(report_r)
            os.close(hold_w)
            code = 1
            try:
                keep(run_dir, launch, started, report_w, hold_r)
                code = 0
            except BaseException:  # noqa: BLE001 - a forked child: print what ends it, then _exit
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        os.close(report_w)
        os.close(hold_r)
        self.created = psutil.Process(self.pid).create_time()
        self._report = os.fdopen(report_r, "rb")
        self._hold = hold_w

    def news(self) -> dict[str, Any] | None:
        """The keeper's next report; None if it died before sending one."""
        line = self._report.readline()
        return json.loads(line) if line else None

    def release(self) -> None:
        """The end is recorded: let the keeper go, and reap it."""
        os.close(self._hold)
        os.waitpid(self.pid, 0)


def keep(run_dir: Path, launch: Launch, started: float, report: int, hold: int) -> None:
    """The keeper: start the job, report it, copy its stderr, wait for it, report its
    end; and record the end itself if the wrapper is gone without doing so."""
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: None)  # meant for the job; the keeper must see its end
    _adopt_orphans()
    running, gone = threading.Event(), threading.Event()

    def watch() -> None:
        while os.read(hold, 1):
            pass
        gone.set()
        if running.is_set():
            journal.append(run_dir, wrapper_died(run_dir), once=True)

    threading.Thread(target=watch, daemon=True).start()
    with open(run_dir / OUTPUT_FILE, "ab") as out:
        try:
            job = subprocess.Popen(launch.argv, cwd=launch.cwd, env={**os.environ, **launch.env},
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                                   start_new_session=True)
        except OSError as exc:
            job = None
            end = {"returncode": 127,
                   "error": f"cannot start {launch.argv[0]!r}: {exc.strerror}"}
    if job is not None:
        running.set()
        _send(report, {"pid": job.pid, "created": psutil.Process(job.pid).create_time()})
        no_space: list[bool] = []
        assert job.stderr is not None  # started with stderr=PIPE
        copier = threading.Thread(target=_copy_to_logs, daemon=True,
                                  args=(job.stderr.fileno(), run_dir, no_space))
        copier.start()
        returncode = job.wait()
        running.clear()
        if (run_dir / CANCEL_FILE).exists():
            _stop_escaped(run_dir)
        copier.join(5)  # a child of the job may hold its stderr open: do not wait for it
        end = {"returncode": returncode, "no_space": any(no_space)}
    _send(report, end)
    gone.wait()
    if not recorded(run_dir / EXIT_FILE):  # the wrapper died before recording it
        record_end(run_dir, end, started, (run_dir / CANCEL_FILE).exists())


def _adopt_orphans() -> None:
    """Make this process the parent of the job's orphans (Linux's child subreaper), so a
    child that left the job's process group (``setsid()``) stays below it, to be found
    and stopped with the job (``launchers.local``)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _stop_escaped(run_dir: Path) -> None:
    """Kill what the cancelled job left running outside its process group (``setsid()``):
    every process still below the keeper; the journal says how many survived."""
    escaped = psutil.Process().children(recursive=True)
    for proc in escaped:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(escaped, timeout=5)
    if escaped:
        journal.append(run_dir, Diagnosis(
            run_dir.name, round(time.time(), 3), "escaped_killed",
            f"{len(escaped)} process(es) the job had started outside its process group"
            " (setsid) survived the cancel: killed", "nothing to do: they are stopped"))


def _send(pipe: int, message: dict[str, Any]) -> None:
    with contextlib.suppress(BrokenPipeError):  # the wrapper is gone: the keeper will see
        os.write(pipe, json.dumps(message).encode() + b"\n")


def run(run_dir: Path) -> int:
    """Start, watch and record the job of the run in ``run_dir``."""
    launch = Launch.read(run_dir)
    if launch is None or not launch.argv:  # the launcher writes it before starting the wrapper
        sys.exit(f"{run_dir / LAUNCH_FILE}: missing, unreadable or without a command line,"
                 " the job cannot start")
    started = time.time()
    reserve(run_dir / EXIT_FILE)
    keeper = Keeper(run_dir, launch, started)
    news = keeper.news()
    job_id = os.environ.get(launch.job_id_env) if launch.job_id_env else None
    wrapper = Wrapper(os.getpid(), socket.gethostname(), started, keeper.pid, keeper.created,
                      job_id)  # (job_id: the scheduler's id of the job)
    if news is None or "pid" not in news:  # the job did not start, or the keeper died
        wrapper.write(run_dir)
        return _ended(run_dir, keeper, news, started)
    job_pid = news["pid"]
    wrapper.job_pid, wrapper.job_started = job_pid, news["created"]
    wrapper.write(run_dir)
    terminated = []

    def forward(signum: int, frame: FrameType | None) -> None:
        terminated.append(signal.Signals(signum).name)  # scancel, a time limit, a shutdown
        with contextlib.suppress(ProcessLookupError):
            os.killpg(job_pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    stop, interval, vendors = threading.Event(), launch.telemetry_interval, []
    if interval > 0:
        from accelbench.engine.telemetry.host import sample_until
        from accelbench.engine.telemetry.tool import start_samplers

        vendors = start_samplers(launch.samplers, interval, run_dir)
        threading.Thread(target=sample_until, daemon=True, args=(
            stop, job_pid, interval, run_dir / TELEMETRY_FILE, vendors)).start()
    end = keeper.news()
    if end is None:  # the keeper was killed: wait for the job, then say what is known
        while group_alive(job_pid, news["created"]):
            time.sleep(0.5)
    stop.set()
    for vendor in vendors:
        vendor.close()
    extra = {"detail": f"the job's wrapper received {terminated[0]}"} if terminated else {}
    # A cancel or a time limit? Its launcher will tell; Slurm signals the job's processes
    # too, so the job may die of the signal before the wrapper hears of it.
    signalled = terminated or (end is not None and (end.get("returncode") or 0) < 0)
    if signalled and job_id is not None and launch.verdict:
        extra["verdict"] = launch.verdict
    cancelled = (run_dir / CANCEL_FILE).exists() or bool(terminated)
    return _ended(run_dir, keeper, end, started, cancelled, **extra)


def _ended(run_dir: Path, keeper: Keeper, end: dict[str, Any] | None, started: float,
           cancelled: bool = False, **extra: Any) -> int:
    """Record the end the keeper reported (or that it died first), and let it go."""
    if end is None:
        write_exit(run_dir / EXIT_FILE, unknown_end(run_dir, started, "the job's keeper died"))
    else:
        record_end(run_dir, end, started, cancelled, **extra)
    keeper.release()
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1])))
