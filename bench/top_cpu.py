"""CPU cost of ``accelbench top`` at a 1 s interval, beside baselines from the same command.

Runs the live view on an 80x24 pseudo-terminal for --seconds after a warm-up and takes
its CPU time (user + system, its own process: the vendor tools it starts are counted
apart); then the same for the app showing its top screen (f4). With --standins (the
default) the stand-in vendor tools of tests/standins/top are first on PATH and NVML is
absent, so every source is read: nvidia-smi twice a second, gc-monitor and gc-inventory
once, neuron-monitor and sntilestat streaming.
The stand-ins are Python scripts: their own cost is printed but is no real tool's.
Baselines, measured the same way: an idle Python process that wakes every second, and
procps ``top -b -d 1`` when it is on PATH. Target (issue 14): top < 2% of one core.

    python bench/top_cpu.py [--seconds 30] [--no-standins]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pty import PtyProgram

ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "tests" / "standins"
WARM_UP_S = 5.0
F4 = b"\x1bOS"  # the key f4 as an xterm sends it
IDLE = "import time\nwhile True:\n    time.sleep(1)\n"


def cpu_seconds(proc: psutil.Process) -> tuple[float, float]:
    """(own, its live descendants') user + system CPU seconds."""
    own = sum(proc.cpu_times()[:2])
    tools = 0.0
    for child in proc.children(recursive=True):
        try:
            tools += sum(child.cpu_times()[:2])
        except psutil.Error:
            continue
    return own, tools + sum(proc.cpu_times()[2:4])  # + the children it has waited for


def measure(argv: list[str], seconds: float, env: dict[str, str],
            keys: bytes = b"") -> tuple[float, float]:
    """% of one core used by ``argv`` (on a pty, sent ``keys`` once it has drawn) and by
    the tools it starts, over ``seconds`` after the warm-up."""
    program = PtyProgram(argv, cols=80, rows=24, env=env)
    try:
        proc = psutil.Process(program.proc.pid)
        if keys:
            program.wait_for("Launch", timeout=60)  # the app's first screen drawn
            time.sleep(2)
            program.send(keys)
        time.sleep(WARM_UP_S)
        t0, (own0, tools0) = time.perf_counter(), cpu_seconds(proc)
        time.sleep(seconds)
        own1, tools1 = cpu_seconds(proc)
        span = time.perf_counter() - t0
    finally:
        program.send(b"\x11" if keys else b"q")  # the app quits on ctrl+q
        try:
            program.proc.wait(10)
        except subprocess.TimeoutExpired:
            program.proc.kill()
            program.proc.wait()
        os.close(program.master)
    return 100 * (own1 - own0) / span, 100 * (tools1 - tools0) / span


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--no-standins", dest="standins", action="store_false",
                        help="read only what this machine has")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TERM": "xterm-256color", "ACCELBENCH_HOME": home}
        if args.standins:
            env["PATH"] = f"{STANDINS / 'top'}{os.pathsep}{env['PATH']}"
            env["PYTHONPATH"] = str(STANDINS / "no_nvml")
            env["STANDIN_PERIOD"] = "1"  # a report a second, as the real tools at 1 s
        os.chdir(ROOT)
        top, tools = measure([sys.executable, "-m", "accelbench.cli.main", "top"],
                             args.seconds, env)
        app, _ = measure([sys.executable, "-m", "accelbench.cli.main"], args.seconds, env,
                         keys=F4)
        idle, _ = measure([sys.executable, "-c", IDLE], args.seconds, env)
        procps = (measure(["top", "-b", "-d", "1"], args.seconds, env)[0]
                  if shutil.which("top") else None)
    where = "stand-in tools for every vendor" if args.standins else "this machine's tools"
    print(f"accelbench top, 1 s interval, 80x24, {where}, {args.seconds:.0f} s:")
    print(f"  accelbench top      {top:5.2f}% of one core  [target < 2%]")
    print(f"  its vendor tools    {tools:5.2f}%  (the stand-ins: Python scripts)")
    print(f"  the app on f4       {app:5.2f}% of one core")
    print(f"  idle python (1 s)   {idle:5.2f}%  [baseline]")
    if procps is not None:
        print(f"  top -b -d 1         {procps:5.2f}%  [baseline]")


if __name__ == "__main__":
    main()
