"""Controller queries while following many live Slurm runs.

Submits --runs jobs (through the real `sbatch`) and follows them all at once for
--seconds, as the TUI or several `attach` readers in one process would. A shim
`squeue` on PATH counts the calls. Target: no more than one `squeue` call per
poll interval in total, whatever the number of runs (a naive poller would make
one per run per interval). Needs a Slurm cluster: `python -m tests.slurm.cluster start DIR`
starts a private one (as root) and prints the SLURM_CONF to export.

    python bench/slurm_queries.py [--runs 20] [--seconds 60] [--interval 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--interval", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shim, calls = Path(tmp, "bin"), Path(tmp, "calls")
        shim.mkdir()
        real = shutil.which("squeue")
        if real is None:
            sys.exit("no squeue on PATH: start a cluster first (python -m tests.slurm.cluster)")
        (shim / "squeue").write_text(f'#!/bin/sh\necho x >> "{calls}"\nexec "{real}" "$@"\n')
        (shim / "squeue").chmod(0o755)
        os.environ["PATH"] = f"{shim}:{os.environ['PATH']}"
        os.environ["ACCELBENCH_SLURM_POLL"] = str(args.interval)

        from accelbench.engine.config.spec import spec_from_dict
        from accelbench.engine.run.runner import Runner
        from accelbench.engine.store.runs import Store

        runner = Runner(Store(Path(tmp, "home")))
        spec = spec_from_dict({"name": "q", "workload": "command", "launcher": "slurm",
                               "params": {"command": "sleep 600"}, "telemetry_interval": 0})
        handles = [runner.start(spec) for _ in range(args.runs)]

        async def follow_all() -> None:
            async def one(handle) -> None:
                async for _ in handle.batches(poll=0.5):
                    pass
            tasks = [asyncio.create_task(one(h)) for h in handles]
            await asyncio.sleep(args.seconds)
            for task in tasks:
                task.cancel()

        start = time.monotonic()
        asyncio.run(follow_all())
        span = time.monotonic() - start
        count = len(calls.read_text().splitlines()) if calls.exists() else 0
        for handle in handles:
            handle.cancel(grace=1)
    per_minute = count * 60 / span
    intervals = span / args.interval
    print(f"followed {args.runs} live runs for {span:.0f} s, poll interval {args.interval:g} s")
    print(f"squeue calls       : {count} ({per_minute:.1f}/min), "
          f"{count / intervals:.2f} per poll interval  [target <= 1]")
    print(f"a per-run poller   : would make {args.runs * intervals:.0f} "
          f"({args.runs * 60 / args.interval:.0f}/min)")


if __name__ == "__main__":
    main()
