"""CPU used to follow live runs that each print 150 machine lines a second.

Starts --runs live local runs (1, 5 and 20 by default) whose job prints, 50 times a second,
a progress, a throughput and a loss line (``@@accelbench {...}``, as engine/workloads/emit.py
writes them), then opens the app on them (120x40 pseudo-terminal: it follows every live run
from the start) and measures its CPU over --seconds after a warm-up; with one run, also
``accelbench attach RUN`` (its live display). Targets (issue 12): the app <= 5% of a core
with 20 runs, attach <= 1% with one.

    python bench/follow_cpu.py [--runs 1 5 20] [--seconds 20]
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


def cpu_share(proc: psutil.Process, seconds: float) -> float:
    """% of one core ``proc`` used over ``seconds``."""
    t0, c0 = time.perf_counter(), sum(proc.cpu_times()[:2])
    time.sleep(seconds)
    return 100 * (sum(proc.cpu_times()[:2]) - c0) / (time.perf_counter() - t0)


def measure(runs: int, seconds: float) -> tuple[float, float | None]:
    """The app's CPU share following ``runs`` live runs, and attach's with one run."""
    from accelbench.engine.runner import Runner
    from accelbench.engine.spec import spec_from_dict
    from accelbench.engine.store import Store

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as home:
        os.environ["ACCELBENCH_HOME"] = home
        env = {**os.environ, "TERM": "xterm-256color"}
        runner = Runner(Store())
        spec = spec_from_dict({"name": "flood", "workload": "command", "telemetry_interval": 0,
                               "params": {"command": shlex.join([sys.executable, "-c", JOB])}})
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
    args = parser.parse_args()
    for runs in args.runs:
        app, attach = measure(runs, args.seconds)
        before = (f"issue {BASELINE[runs]}%, before {BEFORE[runs]}%" if runs in BASELINE
                  else "no baseline")
        print(f"{runs:2} live run(s) x 150 lines/s: app {app:5.2f}% of one core over"
              f" {args.seconds:.0f} s  [{before}; target <= 5% at 20 runs]")
        if attach is not None:
            print(f"{'':27}attach {attach:5.2f}% of one core  [before {ATTACH_BEFORE}%;"
                  " target <= 1%]")


if __name__ == "__main__":
    main()
