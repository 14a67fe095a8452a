"""What reading one line's named numbers and counters costs (engine/reading/numbers.py).

Every line of the real fixtures (tests/fixtures/real: 6,282 lines of real logs and tool
output today), read once with ``named_numbers`` and once with ``counters``, against a bare loop
that searches each line with one regex (bench/parse_speed.py's). The shapes reader calls
them once per line template, not per line: the figure says what a line costs the first time
its shape is seen, and what reading every line would cost. Best of --repeat rounds, in one
process, the three interleaved (a loaded machine skews them alike).

    python bench/reading_numbers.py [--repeat 5] [--against REV]

``--against REV`` also reads every line with engine/reading's numbers and vocabulary as they
were at git revision REV, and prints the median over 2 * --repeat + 1 rounds of this
version's CPU time over that one's, each round timing both back to back (a ratio stands
up to a loaded machine better than the times do).
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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


def _at_revision(rev: str, into: Path) -> ModuleType:
    """engine/reading's numbers module as it was at git revision ``rev`` (with the
    vocabulary of then), imported from copies under ``into``."""
    package = into / "reading_then"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("numbers", "vocabulary"):
        text = subprocess.run(["git", "show", f"{rev}:engine/reading/{name}.py"], check=True,
                              capture_output=True, text=True, cwd=FIXTURES.parents[2]).stdout
        text = text.replace("accelbench.engine.reading.vocabulary", "reading_then.vocabulary")
        (package / f"{name}.py").write_text(text)
    sys.path.insert(0, str(into))
    return importlib.import_module("reading_then.numbers")


def _ratios(lines: list[str], now: Callable[[str], object], then: Callable[[str], object],
            rounds: int) -> float:
    """The median over ``rounds`` of ``now``'s CPU time over ``then``'s, back to back."""
    def cost(read: Callable[[str], object]) -> float:
        start = time.process_time()
        for line in lines:
            read(line)
        return time.process_time() - start
    ratios = []
    for i in range(rounds):
        first, second = (now, then) if i % 2 else (then, now)
        times = {first: cost(first), second: cost(second)}
        ratios.append(times[now] / times[then])
    return statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="a git revision to compare with")
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
    if args.against:
        with tempfile.TemporaryDirectory() as into:
            then = _at_revision(args.against, Path(into))
            for name, now, before in (("named_numbers", named_numbers, then.named_numbers),
                                      ("counters", counters, then.counters)):
                ratio = _ratios(lines, now, before, 2 * args.repeat + 1)
                print(f"{name:16s} {ratio:8.3f}x the CPU time at {args.against} (median)")


if __name__ == "__main__":
    main()
