"""CPU used to follow live runs that each print 150 machine lines a second.

Starts --runs live local runs (1, 5 and 20 by default) whose job prints, 50 times a second,
a progress, a throughput and a loss line (``@@accelbench {...}``, as engine/workloads/emit.py
writes them), then opens the app on them (120x40 pseudo-terminal: it follows every live run
from the start) and measures its CPU over --seconds after a warm-up; with one run, also
``accelbench attach RUN`` (its live display). Targets (issue 12): the app <= 5% of a core
with 20 runs, attach <= 1% with one. ``--quiet``: jobs that print nothing (the floor: what
following live runs costs before any line is read). Each figure also as CPU seconds
(user + system), which a loaded machine skews less than the share of wall time.

    python bench/follow_cpu.py [--runs 1 5 20] [--seconds 20] [--quiet]
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pty import PtyProgram

BASELINE = {1: 1.6, 5: 4.1, 20: 11.3}  # issue 12, "Measured today": % of a core, the app
BEFORE = {1: 2.3, 5: 6.7, 20: 16.3}  # this bench before the hub (a thread per run, 10 Hz)
ATTACH_BEFORE = 2.3  # attach of one run, the same
WARM_UP_S = 5.0
JOB = """
import json, sys, time
def emit(type, **fields):
    fields = {"type": type, "t": round(time.time(), 6), **fields}
    sys.stdout.write("@@accelbench " + json.dumps(fields, separators=(",", ":")) + "\\n")
total = 1_000_000
for step in range(1, total):
    emit("progress", step=step, total=total, epoch=1, epochs=1)
    emit("throughput", samples_per_s=1234.5, step=step)
    emit("metric", name="loss", value=1.0 / step, step=step)
    sys.stdout.flush()
    time.sleep(0.02)
"""
QUIET_JOB = "import time\ntime.sleep(3600)\n"


def cpu_share(proc: psutil.Process, seconds: float) -> tuple[float, float]:
    """% of one core ``proc`` used over ``seconds``, and its CPU seconds (user + system)."""
    t0, c0 = time.perf_counter(), sum(proc.cpu_times()[:2])
    time.sleep(seconds)
    used = sum(proc.cpu_times()[:2]) - c0
    return 100 * used / (time.perf_counter() - t0), used


def measure(runs: int, seconds: float, job: str = JOB
            ) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """The app's CPU (share, seconds) following ``runs`` live runs of ``job``, and
    attach's with one run."""
    from accelbench.engine.config.spec import spec_from_dict
    from accelbench.engine.run.runner import Runner
    from accelbench.engine.store.runs import Store

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as home:
        os.environ["ACCELBENCH_HOME"] = home
        env = {**os.environ, "TERM": "xterm-256color"}
        runner = Runner(Store())
        spec = spec_from_dict({"name": "flood", "workload": "command", "telemetry_interval": 0,
                               "params": {"command": shlex.join([sys.executable, "-c", job])}})
        handles = [runner.start(spec) for _ in range(runs)]
        try:
            os.chdir(root)
            app = PtyProgram([sys.executable, "-m", "accelbench.cli.main"], env=env)
            try:
                app.wait_for("still live", timeout=60)
                time.sleep(WARM_UP_S)
                app_share = cpu_share(psutil.Process(app.proc.pid), seconds)
            finally:
                app.close()
            attach_share = None
            if runs == 1:
                attach = PtyProgram([sys.executable, "-m", "accelbench.cli.main", "attach",
                                     handles[0].id], env=env)
                try:
                    time.sleep(WARM_UP_S)
                    attach_share = cpu_share(psutil.Process(attach.proc.pid), seconds)
                finally:
                    attach.proc.terminate()  # ctrl+c would cancel the run
                    attach.proc.wait(5)
                    os.close(attach.master)
        finally:
            for handle in handles:
                handle.cancel(grace=1)
    return app_share, attach_share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--quiet", action="store_true", help="jobs that print nothing")
    args = parser.parse_args()
    rate = "0" if args.quiet else "150"
    for runs in args.runs:
        (app, app_s), attach = measure(runs, args.seconds, QUIET_JOB if args.quiet else JOB)
        before = (f"issue {BASELINE[runs]}%, before {BEFORE[runs]}%"
                  if runs in BASELINE and not args.quiet else "no baseline")
        print(f"{runs:2} live run(s) x {rate:>3} lines/s: app {app:5.2f}% of one core"
              f" ({app_s:.2f} s CPU over {args.seconds:.0f} s)  [{before};"
              " target <= 5% at 20 runs]")
        if attach is not None:
            print(f"{'':29}attach {attach[0]:5.2f}% of one core ({attach[1]:.2f} s CPU)"
                  f"  [before {ATTACH_BEFORE}%; target <= 1%]")


if __name__ == "__main__":
    main()
