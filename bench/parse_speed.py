"""Reading a log people already have: ``accelbench parse`` against a bare regex loop.

Writes a Cerebras-style log (lines as the appliance prints them, from
tests/fixtures/recordings/cerebras_bert_large_batch512.log; every tenth a
``| Train Device=CSX, Step=...`` line), then runs, each in its own process, a bare
Python loop that reads the file and searches each line with one regular expression,
and ``accelbench parse FILE --json`` (output to /dev/null). Prints each one's wall time
and peak memory (the child's maxrss) and the ratio, and ``accelbench import`` of the
same file; then the figures recorded before the log was streamed (issue 12, same
machine, 1,000,000 lines). Target (issue 12): parse at >= 0.5x the bare loop's speed,
in <= 64 MB whatever the size (``--lines 2000000`` gives a 125 MB log).

    python bench/parse_speed.py [--lines 1000000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Body of the lines between Train lines, as the appliance prints them (no event in them).
_OTHER = ["Post-layout optimizations...", "Allocating buffers...", "Code generation...",
          "Compiling image...", "Compiling kernels", "Loading dataset from disk..."]

# Before streaming (whole file in memory, a Log object per line, two passes per section).
BASELINE = {"bare": (0.33, 13), "parse": (12.2, 271), "import": (None, None)}

BARE = """
import re, sys
rx = re.compile(r"\\| Train Device=[^,]+, Step=(\\d+), Loss=([^,]+), ")
n = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        if rx.search(line):
            n += 1
print(n)
"""


def make_log(path: Path, lines: int) -> None:
    """``lines`` timestamped appliance lines, 10% of them Train lines."""
    t0 = time.mktime((2024, 3, 30, 13, 0, 0, 0, 0, -1))
    with open(path, "w") as f:
        for i in range(lines):
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t0 + i // 50))
            head = f"{stamp},{i % 1000:03d} INFO:   "
            if i % 10 == 9:
                f.write(f"{head}| Train Device=CSX, Step={i // 10 + 1}, Loss={9 - i / lines:.5f},"
                        f" Rate=6855.28 samples/sec, GlobalRate=6776.30 samples/sec\n")
            else:
                f.write(head + _OTHER[i % len(_OTHER)] + "\n")


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, peak memory (MB) and CPU seconds (user + system) of a child process
    running ``argv`` (CPU: the figure to compare on a machine others load)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if status:
        sys.exit(f"{argv[2:]} failed: status {status}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp, "cerebras.log")
        make_log(log, args.lines)
        env = {**os.environ, "ACCELBENCH_HOME": str(Path(tmp, "home"))}
        bare = measure([sys.executable, "-c", BARE, str(log)], env)
        parse = measure([sys.executable, "-m", "accelbench.cli.main", "parse", str(log),
                         "--json"], env)
        imp = measure([sys.executable, "-m", "accelbench.cli.main", "import", str(log)], env)
        size = log.stat().st_size / 2**20
        print(f"{args.lines:,} lines ({size:.0f} MB), 10% Train lines")
        print(f"bare regex loop:   {bare[0]:6.2f} s  {bare[1]:6.0f} MB  {bare[2]:6.2f} s CPU")
        print(f"accelbench parse:  {parse[0]:6.2f} s  {parse[1]:6.0f} MB  {parse[2]:6.2f} s CPU"
              f"   (before: {BASELINE['parse'][0]} s, {BASELINE['parse'][1]} MB)")
        print(f"accelbench import: {imp[0]:6.2f} s  {imp[1]:6.0f} MB  {imp[2]:6.2f} s CPU")
        print(f"parse speed / bare loop speed: {bare[0] / parse[0]:.2f}x wall,"
              f" {bare[2] / parse[2]:.2f}x CPU (target >= 0.5x;"
              f" before: {BASELINE['bare'][0] / BASELINE['parse'][0]:.2f}x);"
              f" memory target <= 64 MB")


if __name__ == "__main__":
    main()
