"""CPU used by the app while it watches a live run with 1 Hz telemetry.

The app starts a run with telemetry every second and shows it in the run view
(120x40 pseudo-terminal); its CPU time is measured over 60 s once the view is up,
and the job's wrapper (which samples the telemetry) over the same window for
comparison. Two jobs: a quiet one (telemetry only), and one that also prints a
log line every second. Target: <= 2% of one core.

    python bench/tui_cpu.py [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pty import PtyProgram

JOB = ("import time\nfor i in range(80):\n    print('tick', i, flush=True) if i < 3 else None\n"
       "    time.sleep(1)\n")


def cpu_seconds(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def measure(kind: str, seconds: float) -> tuple[float, float]:
    """CPU % of one core of the app and of the job's wrapper, watching a ``kind`` job."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as home:
        preset = Path(home) / "ticks.toml"
        command = shlex.join([sys.executable, "-c", JOB, kind])
        preset.write_text(f'name = "ticks"\nworkload = "command"\ntelemetry_interval = 1.0\n'
                          f"[params]\ncommand = {json.dumps(command)}\n")
        env = {**os.environ, "ACCELBENCH_HOME": home, "TERM": "xterm-256color"}
        os.chdir(root)
        program = PtyProgram([sys.executable, "-m", "accelbench.cli.main", "--preset", str(preset),
                              "--start"], env=env)
        try:
            program.wait_for("tick 2", timeout=30)
            app = psutil.Process(program.proc.pid)
            wrapper_file = next(Path(home, "runs").glob("*/wrapper.json"))
            wrapper_pid = json.loads(wrapper_file.read_text())["pid"]
            wrapper = psutil.Process(wrapper_pid)
            a0, w0, t0 = cpu_seconds(app), cpu_seconds(wrapper), time.perf_counter()
            time.sleep(seconds)
            a1, w1, t1 = cpu_seconds(app), cpu_seconds(wrapper), time.perf_counter()
        finally:
            program.close()
    return 100 * (a1 - a0) / (t1 - t0), 100 * (w1 - w0) / (t1 - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    for kind, what in (("quiet", "telemetry at 1 Hz"), ("chatty", "+ a log line a second")):
        app, wrapper = measure(kind, args.seconds)
        print(f"{what:22}: app {app:5.2f}% of one core over {args.seconds:.0f} s"
              f"  [target <= 2%]; job wrapper + sampler {wrapper:.2f}%")


if __name__ == "__main__":
    main()
