"""The app's longest event-loop stall while it follows a Slurm run whose ``squeue`` is slow.

Stand-ins for ``sinfo``, ``sbatch``, ``squeue`` and ``scontrol`` go first on PATH: ``sbatch
--parsable`` runs the job script in the background (as a compute node would) and prints a
job id; ``squeue --me --json`` sleeps --squeue seconds, then lists the job (``RUNNING`` while
its script lives, then ``COMPLETED``) in Slurm's JSON shape. The app (in-process, headless,
120x40) starts a run that prints a line every 0.1 s and shows it; a timer every 10 ms on the
app's event loop records the largest gap between two ticks over --seconds, and how much of
it the loop's thread spent on the CPU (the rest: waiting for the CPU or the GIL). Each of
--rounds rounds is a fresh process, app and job; a bare asyncio loop's longest gap over the
same time, measured first, tells how much the machine alone stalls a loop.
Target: <= 50 ms with a 3 s squeue (issue 12 measured 3.01 s before the follower left the loop).

    python bench/ui_stall.py [--squeue 3] [--seconds 15] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE_S = 3.01  # issue 12, "Measured today": the follower polled the launcher on the loop
TICK_S = 0.010
JOB = "import time\nfor i in range(600):\n    print('tick', i, flush=True)\n    time.sleep(0.1)\n"

SINFO = "#!/bin/sh\necho 'debug|(null)'\n"
SBATCH = """#!{python}
import json, os, subprocess, sys
jobs = {jobs!r}
args = sys.argv[1:]
name = next(a.split("=", 1)[1] for a in args if a.startswith("--job-name="))
job_id = 1000 + len(os.listdir(jobs))
proc = subprocess.Popen(["bash", args[-1]], env={{**os.environ, "SLURM_JOB_ID": str(job_id)}},
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, start_new_session=True)
with open(os.path.join(jobs, str(job_id)), "w") as f:
    json.dump({{"name": name, "pid": proc.pid}}, f)
print(job_id)
"""
SQUEUE = """#!{python}
import json, os, sys, time
jobs = {jobs!r}
time.sleep({delay})
listed = []
for job_id in sorted(os.listdir(jobs)):
    with open(os.path.join(jobs, job_id)) as f:
        job = json.load(f)
    try:
        os.kill(job["pid"], 0)
        state = "RUNNING"
    except ProcessLookupError:
        state = "COMPLETED"
    listed.append({{"job_id": int(job_id), "name": job["name"], "job_state": [state],
                   "state_reason": "None", "nodes": "node1",
                   "exit_code": {{"return_code": {{"number": 0}}}}}})
print(json.dumps({{"jobs": listed}}))
"""
SCONTROL = "#!/bin/sh\necho 'slurm_load_jobs error: Invalid job id specified' >&2\nexit 1\n"


def stand_ins(folder: Path, delay: float) -> None:
    """Write the Slurm stand-ins into ``folder/bin`` and put it first on PATH."""
    bin_dir, jobs = folder / "bin", folder / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    scripts = {"sinfo": SINFO, "scontrol": SCONTROL,
               "sbatch": SBATCH.format(python=sys.executable, jobs=str(jobs)),
               "squeue": SQUEUE.format(python=sys.executable, jobs=str(jobs), delay=delay)}
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


async def ticks(seconds: float) -> tuple[float, float]:
    """The longest gap between two ticks of a ``TICK_S`` timer over ``seconds`` (beyond the
    tick itself), and the loop thread's CPU seconds over it and the tick before it."""
    worst, worst_cpu = 0.0, 0.0
    last, last_cpu = time.perf_counter(), time.thread_time()
    end = last + seconds
    while last < end:
        await asyncio.sleep(TICK_S)
        now, cpu = time.perf_counter(), time.thread_time()
        if now - last - TICK_S > worst:
            worst, worst_cpu = now - last - TICK_S, cpu - last_cpu
        last, last_cpu = now, cpu
    return worst, worst_cpu


async def longest_stall(seconds: float) -> tuple[float, float, float]:
    """The app's longest event-loop stall over ``seconds`` once the run view shows the job's
    output, the loop's CPU seconds within it, and the seconds the app took to get there."""
    from accelbench.engine.config.spec import spec_from_dict
    from accelbench.engine.run.runner import Runner
    from accelbench.tui.app import AccelbenchApp
    from accelbench.tui.screens.run_view import RunView

    spec = spec_from_dict({"name": "ticks", "workload": "command", "launcher": "slurm",
                           "params": {"command": shlex.join([sys.executable, "-c", JOB])}})
    app = AccelbenchApp(Runner(), spec, start=True)
    async with app.run_test(size=(120, 40)) as pilot:
        t0 = time.perf_counter()
        while not (isinstance(app.screen, RunView) and app.screen.follower.log_seq > 3):
            if time.perf_counter() - t0 > 60:
                raise SystemExit("the run's output did not show in 60 s")
            await pilot.pause(0.05)
        ready = time.perf_counter() - t0
        worst, cpu = await ticks(seconds)
    return worst, cpu, ready


def one_round(seconds: float, squeue: float) -> tuple[float, float, float]:
    """:func:`longest_stall` with fresh stand-ins, store and job (stopped afterwards)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ACCELBENCH_HOME"] = str(Path(tmp, "home"))
        stand_ins(Path(tmp), squeue)
        try:
            return asyncio.run(longest_stall(seconds))
        finally:
            for job in Path(tmp, "jobs").iterdir():  # the jobs' sessions: stop them
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(json.loads(job.read_text())["pid"], signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squeue", type=float, default=3.0, help="seconds squeue takes")
    parser.add_argument("--seconds", type=float, default=15.0, help="of each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one-round", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_round:  # in a process of its own: print the figures as JSON
        print(json.dumps(one_round(args.seconds, args.squeue)))
        return
    bare, _ = asyncio.run(ticks(args.seconds))
    stalls = []
    for n in range(1, args.rounds + 1):
        out = subprocess.run([sys.executable, __file__, "--one-round", "--seconds",
                              str(args.seconds), "--squeue", str(args.squeue)],
                             capture_output=True, text=True, check=True).stdout
        worst, cpu, ready = json.loads(out.splitlines()[-1])
        stalls.append(worst)
        print(f"round {n}: longest stall {1000 * worst:.0f} ms; the loop's CPU over it and the"
              f" tick before: {1000 * cpu:.0f} ms  (run view up after {ready:.1f} s)", flush=True)
    print(f"longest event-loop stall over {args.seconds:.0f} s with a {args.squeue:g} s squeue:"
          f" {' / '.join(f'{1000 * s:.0f}' for s in stalls)} ms in {args.rounds} rounds"
          f"  [target <= 50 ms; baseline {1000 * BASELINE_S:.0f} ms]"
          f"  (a bare asyncio loop beside it: {1000 * bare:.0f} ms;"
          f" load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
