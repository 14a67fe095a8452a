"""Event pipeline throughput: log lines/s through tail + parse + events.

Writes a large output.log (human lines with a machine line every tenth) into a
finished run and replays it through the same code every reader uses
(``RunHandle.replay``: FileTail, the machine-line parser, the Deriver and
RunState). A bare read-and-split of the same file in the same process is the
baseline. Target: >= 300,000 lines/s on a 2-core machine.

    python bench/event_pipeline.py [--lines 2000000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.run.runner import Runner
from accelbench.engine.rundir.files import EXIT_FILE, OUTPUT_FILE, write_json
from accelbench.engine.store.runs import Store


def make_log(path: Path, lines: int) -> None:
    """``lines`` lines: 90% Trainer-like human text, 10% progress machine lines."""
    t0 = 1.7e9
    with open(path, "w") as f:
        for i in range(lines):
            if i % 10 == 0:
                f.write("@@accelbench " + json.dumps(
                    {"type": "progress", "t": t0 + i * 1e-3, "step": i, "total": lines,
                     "epoch": 1, "epochs": 1}, separators=(",", ":")) + "\n")
            else:
                f.write(f"{{'loss': 0.{i % 9973:04d}, 'grad_norm': 1.2{i % 97}, 'learning_rate':"
                        f" 4.99e-05, 'epoch': 0.{i % 100:02d}}}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        runner = Runner(Store(home))
        spec = spec_from_dict({"name": "bench", "workload": "command",
                               "params": {"command": "true"}})
        info = runner.store.create(spec)
        make_log(info.path(OUTPUT_FILE), args.lines)
        write_json(info.path(EXIT_FILE), {"status": "done", "returncode": 0, "ended": 1.8e9})
        size = info.path(OUTPUT_FILE).stat().st_size
        best_bare = best_full = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            with open(info.path(OUTPUT_FILE), "rb") as f:
                assert len(f.read().decode().split("\n")) == args.lines + 1
            best_bare = min(best_bare, time.perf_counter() - t)
            t = time.perf_counter()
            events, state = runner.open(info.id).replay()
            best_full = min(best_full, time.perf_counter() - t)
        machine_lines = (args.lines + 9) // 10
        assert state.phase == "done" and state.log_lines == args.lines - machine_lines
    print(f"log: {args.lines:,} lines, {size / 2**20:.1f} MiB, {len(events):,} events")
    print(f"bare read+split : {args.lines / best_bare:12,.0f} lines/s ({best_bare:.2f} s)")
    print(f"tail+parse+events: {args.lines / best_full:12,.0f} lines/s ({best_full:.2f} s)"
          f"  [target >= 300,000]")
    print(f"pipeline / bare  : {best_bare / best_full:.3f}")


if __name__ == "__main__":
    main()
