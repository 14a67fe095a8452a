"""The small wrapper that owns a job: ``python jobwrap.py RUN_DIR``.

It runs detached (its own session, no terminal), so the reader that started it
may exit or lose its SSH link at any time. It starts the job from the run's
``launch.json`` in a process group of its own with stdout and stderr going to
``output.log``, samples telemetry beside it (this machine's, and the vendor tools'
that ``launch.json``'s ``samplers`` name), forwards SIGTERM to the job's group, and
records the exit status in ``exit.json``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

if __name__ == "__main__":  # run as a file: make the engine package importable
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from engine.store import (CANCEL_FILE, EXIT_FILE, LAUNCH_FILE, OUTPUT_FILE, STDERR_FILE,
                          TELEMETRY_FILE, WRAPPER_FILE, read_json, write_json)


def exit_record(returncode: int | None, cancelled: bool, started: float, **extra) -> dict:
    """The content of ``exit.json`` for a job that ended with ``returncode``."""
    if cancelled:
        status = "cancelled"
    else:
        status = "done" if returncode == 0 else "failed"
    record = {"status": status, "returncode": returncode, "started": started, "ended": time.time()}
    if returncode is not None and returncode < 0:
        record["signal"] = signal.Signals(-returncode).name
    return {**record, **extra}


def copy_stderr(pipe, run_dir: Path) -> None:
    """Append the job's stderr to ``output.log`` (keeping its place among stdout lines),
    after noting each chunk in ``stderr.log``, so readers can tell the two apart."""
    with open(run_dir / OUTPUT_FILE, "ab", buffering=0) as out, \
            open(run_dir / STDERR_FILE, "ab", buffering=0) as note:
        while chunk := os.read(pipe.fileno(), 65536):
            note.write(chunk)
            out.write(chunk)


def run(run_dir: Path) -> int:
    """Start, watch and record the job of the run in ``run_dir``."""
    launch = read_json(run_dir / LAUNCH_FILE)
    started = time.time()
    wrapper = {"pid": os.getpid(), "host": socket.gethostname(), "started": started}
    write_json(run_dir / WRAPPER_FILE, wrapper)
    with open(run_dir / OUTPUT_FILE, "ab") as out:
        try:
            job = subprocess.Popen(launch["argv"], cwd=launch["cwd"],
                                   env={**os.environ, **launch["env"]},
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                                   start_new_session=True)
        except OSError as exc:
            write_json(run_dir / EXIT_FILE, exit_record(
                127, False, started, error=f"cannot start {launch['argv'][0]!r}: {exc.strerror}"))
            return 127
    errors = threading.Thread(target=copy_stderr, args=(job.stderr, run_dir), daemon=True)
    errors.start()
    if "SLURM_JOB_ID" in os.environ:
        wrapper["slurm_job_id"] = os.environ["SLURM_JOB_ID"]
    write_json(run_dir / WRAPPER_FILE, {**wrapper, "job_pid": job.pid})
    terminated = []

    def forward(signum, frame):  # noqa: ARG001 - signal API
        terminated.append(signal.Signals(signum).name)  # scancel, a time limit, a shutdown
        try:
            os.killpg(job.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    stop, interval, vendors = threading.Event(), launch["telemetry_interval"], []
    if interval > 0:
        from engine.telemetry.host import sample_until
        from engine.telemetry.tool import start_samplers

        vendors = start_samplers(launch.get("samplers", []), interval, run_dir)
        threading.Thread(target=sample_until, daemon=True, args=(
            stop, job.pid, interval, run_dir / TELEMETRY_FILE, vendors)).start()
    returncode = job.wait()
    errors.join(5)
    stop.set()
    for vendor in vendors:
        vendor.close()
    cancelled = (run_dir / CANCEL_FILE).exists() or bool(terminated)
    extra = {"detail": f"the job's wrapper received {terminated[0]}"} if terminated else {}
    if terminated and "SLURM_JOB_ID" in os.environ:
        extra["verdict"] = "slurm"  # scancel or a time limit? Slurm's final state will tell
    write_json(run_dir / EXIT_FILE, exit_record(returncode, cancelled, started, **extra))
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1])))
