"""What reading one line's named numbers and counters costs (engine/reading/numbers.py).

Every line of the real fixtures (tests/fixtures/real: 6,282 lines of real logs and tool
output today), read once with ``named_numbers`` and once with ``counters``, against a bare loop
that searches each line with one regex (bench/parse_speed.py's). The shapes reader calls
them once per line template, not per line: the figure says what a line costs the first time
its shape is seen, and what reading every line would cost. Best of --repeat rounds, in one
process, the three interleaved (a loaded machine skews them alike).

    python bench/reading_numbers.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from pathlib import Path

from accelbench.engine.reading.numbers import counters, named_numbers

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
BARE = re.compile(r"\| Train Device=[^,]+, Step=(\d+), Loss=([^,]+), ")
# us/line over the same lines, the first version (b0bd419: keys found from their start, one
# regex of four branches), interleaved with this version (41.4 and 1.63) and the bare loop
# (0.13) in one process on this 2-core machine shared by 9 agents
BASELINE = {"named_numbers": 77.1, "counters": 27.1}


def _lines() -> list[str]:
    return [line for path in sorted(FIXTURES.rglob("*")) if path.is_file()
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    lines = _lines()
    readers: dict[str, Callable[[str], object]] = {
        "bare regex loop": BARE.search, "named_numbers": named_numbers, "counters": counters}
    best = dict.fromkeys(readers, float("inf"))
    for _ in range(args.repeat):
        for name, read in readers.items():
            start = time.perf_counter()
            for line in lines:
                read(line)
            best[name] = min(best[name], (time.perf_counter() - start) / len(lines) * 1e6)
    found = sum(len(named_numbers(line)) for line in lines)
    print(f"{len(lines)} lines of {FIXTURES.relative_to(FIXTURES.parents[2])}, "
          f"{found} named numbers")
    bare = best["bare regex loop"]
    for name, micros in best.items():
        if name in BASELINE:
            print(f"{name:16s} {micros:8.2f} us/line  ({micros / bare:.0f}x the bare loop's;"
                  f" first version {BASELINE[name]:.1f})")
        else:
            print(f"{name:16s} {micros:8.2f} us/line")


if __name__ == "__main__":
    main()
