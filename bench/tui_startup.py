"""Time from `accelbench` to its first screen drawn, against a bare Textual app.

Both run in a 120x40 pseudo-terminal; the clock stops when the first screen's
text ("Accelerator") reaches the terminal. The baseline is the smallest Textual
app that draws the same word, in the same harness. Target: <= 0.7 s.

    python bench/tui_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pty import PtyProgram

BARE = ("from textual.app import App\nfrom textual.widgets import Static\n"
        "class A(App):\n    def compose(self):\n        yield Static('Accelerator')\nA().run()\n")


def first_screen(argv: list[str], env: dict) -> float:
    program = PtyProgram(argv, env=env)
    try:
        return program.wait_for("Accelerator")
    finally:
        program.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "ACCELBENCH_HOME": home, "TERM": "xterm-256color"}
        first_screen([sys.executable, "-m", "accelbench.cli.main"], env)  # warm the file cache
        app, bare = [], []
        for _ in range(args.repeat):
            bare.append(first_screen([sys.executable, "-c", BARE], env))
            os.chdir(root)
            app.append(first_screen([sys.executable, "-m", "accelbench.cli.main"], env))
    a, b = statistics.median(app), statistics.median(bare)
    print(f"bare Textual app : {b:.3f} s to first screen (median of {args.repeat})")
    print(f"accelbench       : {a:.3f} s to first screen (median of {args.repeat})"
          f"  [target <= 0.7 s]")
    print(f"ratio            : {a / b:.2f}x the bare app")


if __name__ == "__main__":
    main()
