"""Log flood: lines/s the run view's log pane absorbs while key presses stay handled.

A job writes --lines lines as fast as it can; the app (headless, 120x40) follows
it in the run view while a key (follow on/off) is pressed every 50 ms and the
time until its effect shows (the follow switch flips) is recorded. The baseline, in the same
process, is the engine alone deriving the same run's events (no UI).
Targets: key presses handled within 100 ms; memory bounded (lines kept <= limits).

    python bench/tui_log_flood.py [--lines 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
import time

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.run.runner import Runner
from accelbench.engine.store.runs import Store
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.run_view import RunView

FLOOD = ("import sys\nw = sys.stdout.write\nfor i in range(int(sys.argv[1])):\n"
         "    w(f'flood line {i:07d} ' + 'x' * 60 + '\\n')\n")


async def flood(runner: Runner, lines: int) -> tuple[float, list[float], int, object]:
    command = shlex.join([sys.executable, "-c", FLOOD, str(lines)])
    spec = spec_from_dict({"name": "flood", "workload": "command", "params": {"command": command},
                           "telemetry_interval": 0})
    app = AccelbenchApp(runner, spec, start=True)
    latencies = []
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, RunView):
            await pilot.pause(0.01)
        await pilot.pause(0.1)  # let the run view mount
        follower = app.screen.follower
        follow = app.screen.query_one("#log-follow")
        while follower.log_seq == 0:
            await asyncio.sleep(0.001)
        start = time.perf_counter()
        while not follower.ended:
            before, t = follow.value, time.perf_counter()
            app.simulate_key("f")
            while follow.value == before:  # handled: the follow switch flipped
                await asyncio.sleep(0.001)
            latencies.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - start
        kept = len(app.screen.query_one("#log").lines)
        return follower.log_seq / elapsed, latencies, kept, follower


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        runner = Runner(Store(home))
        rate, latencies, kept, follower = asyncio.run(flood(runner, args.lines))
        t = time.perf_counter()
        runner.open(follower.run_id).replay()
        engine_rate = args.lines / (time.perf_counter() - t)
    latencies.sort()
    print(f"log pane absorbed  : {rate:12,.0f} lines/s ({follower.log_seq:,} lines)")
    print(f"engine alone       : {engine_rate:12,.0f} lines/s (replay of the same run)")
    print(f"key press handled  : median {1000 * statistics.median(latencies):.1f} ms, "
          f"p95 {1000 * latencies[int(0.95 * (len(latencies) - 1))]:.1f} ms, "
          f"max {1000 * latencies[-1]:.1f} ms over {len(latencies)} presses  [target <= 100 ms]")
    print(f"memory bound       : {kept:,} lines in the Log widget, "
          f"{len(follower.logs):,} kept by the follower")


if __name__ == "__main__":
    main()
