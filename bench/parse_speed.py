"""Reading a log people already have: ``accelbench parse`` against a bare regex loop.

Writes a Cerebras-style log (lines as the appliance prints them, from
tests/fixtures/recordings/cerebras_bert_large_batch512.log; every tenth a
``| Train Device=CSX, Step=...`` line), then runs, each in its own process and best of
``--repeat`` rounds: a bare Python loop that reads the file and searches each line with
one regular expression; the floor: the least any Python reader of the log's figures does
(``FLOOR``, no accelbench code); ``accelbench parse FILE`` (the table of its runs, to /dev/null);
``accelbench parse FILE --json`` (every event as a JSON line: 300,000 of them at 1 M
lines); and ``accelbench import FILE`` (which also writes the run and derives it as the
store does). Prints each one's CPU seconds (user + system: what to compare on a machine
others load), wall time, peak memory (the child's maxrss) and its speed against the bare
loop's, then the figures recorded before the log was streamed.

The children run as an installed package does: with its bytecode written and cached
(``PYTHONDONTWRITEBYTECODE`` is dropped from their environment and each command runs once
before the timed rounds), since pip-installed packages ship compiled bytecode; otherwise
every process would compile every module it imports, and that would be timed.

The floor shows what the target asks of Python itself. Reading the figures needs, at the
least: to know which of the dialect's 30 literals the lines hold (a pass over the text per
literal costs twice the whole bare loop, so each block's line shapes first, then only the
literals they hold), and each Train line's time, step, loss and rates read, by one pattern
found by its literal with the stamp behind it (as the Cerebras dialect's ``feed_text``), and
converted. It runs in bytes, with no detection, no events, no state and no output.

The target (issue 12) is the first ratio: plain ``parse`` at >= 0.5x the bare loop's
speed, in <= 64 MB whatever the size (``--lines 2000000`` gives a 125 MB log); the
``--json`` and ``import`` rows are there to see, with their own ratios.

    python bench/parse_speed.py [--lines 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from accelbench.engine.systems.cerebras.dialect import Cerebras

# Body of the lines between Train lines, as the appliance prints them (no event in them).
_OTHER = ["Post-layout optimizations...", "Allocating buffers...", "Code generation...",
          "Compiling image...", "Compiling kernels", "Loading dataset from disk..."]

# Before streaming (whole file in memory, a Log object per line, two passes per section):
# parse --json, 1,000,000 lines, seconds and MB.
BASELINE = {"bare": (0.33, 13), "parse --json": (12.2, 271)}

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

# The least a Python reader of the figures does (see the docstring): argv: FILE, the
# literals a line the dialect reads holds (a line each); local times read as parse reads
# them (``logclock.zone_file``); the log ends with a newline.
FLOOR = r"""
import operator, os, re, sys, time
from itertools import repeat
if "TZ" not in os.environ and os.path.exists("/etc/localtime"):
    os.environ["TZ"] = ":/etc/localtime"
needs = [text.encode() for text in sys.argv[2].split("\n")]
train = re.compile(rb"\| Train Device=(?<=(?<![^\n])(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) "
                   rb"INFO:   \| Train Device=)[^,]+, Step=(\d+), Loss=([^,]+), "
                   rb"Rate=([\d.]+) samples/sec, GlobalRate=([\d.]+) samples/sec")
seconds, rows_read, rate_sum, other, carry = {}, 0, 0.0, 0, b""
with open(sys.argv[1], "rb") as f:
    while block := f.read(1 << 20):
        cut = block.rfind(b"\n") + 1
        text, carry = carry + block[:cut], block[cut:]
        shapes = b"\n".join(set(text.translate(None, b"0123456789").split(b"\n")))
        for literal in [n for n in needs if n in shapes and n != b"Train Device="]:
            other += text.count(literal)  # (the other lines to read: none in this log)
        rows = train.findall(text)
        if not rows:
            continue
        assert len(rows) == text.count(b"Train Device=")  # (each a Train line as printed)
        stamps = list(map(operator.itemgetter(0), rows))
        for s in dict.fromkeys(stamps):
            if s not in seconds:
                seconds[s] = time.mktime((int(s[:4]), int(s[5:7]), int(s[8:10]), int(s[11:13]),
                                          int(s[14:16]), int(s[17:19]), 0, 0, -1))
        times = list(map(operator.add, map(seconds.__getitem__, stamps), map(
            operator.truediv, map(int, map(operator.itemgetter(1), rows)), repeat(1000))))
        steps = list(map(int, map(operator.itemgetter(2), rows)))
        losses, rates, global_rates = (list(map(float, map(operator.itemgetter(i), rows)))
                                       for i in (3, 4, 5))
        rows_read, rate_sum = rows_read + len(rows), rate_sum + sum(rates)
print(rows_read, rate_sum / max(rows_read, 1), other)
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
    """CPU seconds (user + system), wall seconds and peak memory (MB) of a child process
    running ``argv``."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if status:
        sys.exit(f"{argv[2:]} failed: status {status}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds; each command's of least CPU is shown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp, "cerebras.log")
        make_log(log, args.lines)
        cli = [sys.executable, "-m", "accelbench.cli.main"]
        needs = "\n".join(Cerebras.needs)
        commands = {"bare regex loop": [sys.executable, "-c", BARE, str(log)],
                    "floor (no accelbench)": [sys.executable, "-c", FLOOR, str(log), needs],
                    "accelbench parse": [*cli, "parse", str(log)],
                    "parse --json": [*cli, "parse", str(log), "--json"],
                    "import": [*cli, "import", str(log)]}
        best: dict[str, tuple[float, float, float]] = {}
        env = {key: value for key, value in os.environ.items()
               if key != "PYTHONDONTWRITEBYTECODE"}  # an installed package's bytecode is cached
        for argv in commands.values():  # a warm-up run each: the bytecode is written
            measure(argv, {**env, "ACCELBENCH_HOME": str(Path(tmp, "warm-up"))})
        for round_ in range(args.repeat):  # interleaved, so that load falls on each alike
            home = {**env, "ACCELBENCH_HOME": str(Path(tmp, f"home{round_}"))}
            for name, argv in commands.items():
                figures = measure(argv, home)
                best[name] = min(best.get(name, figures), figures)
        size = log.stat().st_size / 2**20
        print(f"{args.lines:,} lines ({size:.0f} MB), 10% Train lines; best of {args.repeat}"
              " (bytecode cached, after a warm-up run)")
        bare = best["bare regex loop"]
        for name, (cpu, wall, memory) in best.items():
            ratio = "" if name.startswith("bare") else (
                f"  speed {bare[0] / cpu:.2f}x the bare loop's (CPU; wall {bare[1] / wall:.2f}x)")
            print(f"{name + ':':22} {cpu:6.2f} s CPU {wall:6.2f} s {memory:5.0f} MB{ratio}")
        before = BASELINE["parse --json"]
        print(f"target: plain parse >= 0.5x the bare loop's speed, <= 64 MB; before streaming,"
              f" parse --json took {before[0]} s and {before[1]} MB"
              f" ({BASELINE['bare'][0] / before[0]:.2f}x)")


if __name__ == "__main__":
    main()
