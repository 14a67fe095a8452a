"""Cost of the output gate (``engine.text.printable``) per log line, beside baselines.

The gate runs on every line a view shows (the app's log pane takes up to 5,000 a batch),
so it must cost next to nothing on a clean line. Lines: every line of the real fixture
logs (tests/fixtures/real), as they are (nearly all clean), then the same lines each
with a coloured-logger SGR pair and an OSC 52 string in it (every line gated). Baselines
over the same lines: ``str.isprintable`` (the gate's own fast path) and Textual's
``Log._process_line`` (what the log pane did to each line before: its control-code regex
and ``expandtabs``).

    python bench/text_gate.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from textual.widgets import Log

from accelbench.engine.core.text import printable

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"


def lines() -> list[str]:
    """Every line of the real fixture logs (their ``# source`` lines left out)."""
    out: list[str] = []
    for path in sorted(REAL.rglob("*")):
        if path.is_file() and path.suffix in (".log", ".txt", ".out", ".csv"):
            out += [line for line in path.read_text(errors="replace").splitlines()
                    if not line.startswith("# source")]
    return out


def per_line_ns(call, texts: list[str], rounds: int) -> float:
    """The fastest of ``rounds`` passes of ``call`` over ``texts``, in ns a line."""
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        for text in texts:
            call(text)
        best = min(best, time.perf_counter() - began)
    return best / len(texts) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    clean = lines()
    dirty = [f"\x1b[32m{line}\x1b[0m \x1b]52;c;cm0gLXJmIH4=\x07" for line in clean]
    mean = sum(map(len, clean)) / len(clean)
    print(f"{len(clean):,} real log lines, {mean:.0f} characters on average")
    print(f"{'':34}{'ns/line':>10}")
    for label, call, texts in (
            ("printable, lines as they are", printable, clean),
            ("printable, each with SGR + OSC 52", printable, dirty),
            ("baseline: str.isprintable", str.isprintable, clean),
            ("baseline: Log._process_line", Log._process_line, clean)):
        print(f"{label:34}{per_line_ns(call, texts, rounds):10.0f}")


if __name__ == "__main__":
    main()
