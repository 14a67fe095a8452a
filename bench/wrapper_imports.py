"""What the job's side loads: the accelbench modules that importing the detached wrapper
(``launchers/jobwrap``) and ``exit.json``'s reader (``rundir/exitfile``) bring in, and the
time it takes (``python -X importtime``'s cumulative figure, best of --repeat fresh
processes), for this tree and for the tree at git revision --against.

    python bench/wrapper_imports.py [--repeat 5] [--against 84f41e4]

The wrapper starts inside the job's allocation, on a compute node, for every run: what it
imports it pays before the job starts. The default revision is the last one before the
engine moved into floors (docs/architecture.md), where ``exitfile`` and the wrapper
imported the store for a file name.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# module now, module at the baseline revision
MODULES = {
    "wrapper": ("accelbench.engine.launchers.jobwrap", "accelbench.engine.launchers.jobwrap"),
    "exit.json": ("accelbench.engine.rundir.exitfile", "accelbench.engine.exitfile"),
}
# Measured on this 2-core machine shared by 8 agents at 84f41e4 (the baseline's figures):
# the wrapper loaded 53 accelbench modules, exitfile 50.
BASELINE_COUNTS = {"wrapper": 53, "exit.json": 50}
PROBE = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, {root!r})
import {module}
print(sum(name.startswith("accelbench") for name in sys.modules))
"""


def _tree(rev: str | None, into: Path) -> Path:
    """A folder holding ``accelbench/`` as installed: engine/ at ``rev`` (None: the work
    tree as it is)."""
    package = into / "accelbench"
    package.mkdir(parents=True)
    if rev is None:
        (package / "engine").symlink_to(ROOT / "engine")
    else:
        archive = subprocess.run(["git", "archive", rev, "engine"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(package, filter="data")
    return into


def _measure(root: Path, module: str, repeat: int) -> tuple[int, float]:
    """(accelbench modules loaded, best cumulative import time in ms) of ``module``."""
    best, count = float("inf"), 0
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                               PROBE.format(root=str(root), module=module)],
                              capture_output=True, text=True, check=True)
        count = int(done.stdout.split()[-1])
        line = next(line for line in done.stderr.splitlines()
                    if re.search(rf"\|\s*{re.escape(module)}$", line))
        best = min(best, int(line.split("|")[1]) / 1000)
    return count, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", default="84f41e4")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        now, then = _tree(None, Path(tmp) / "now"), _tree(args.against, Path(tmp) / "then")
        for what, (module, old) in MODULES.items():
            count, ms = _measure(now, module, args.repeat)
            old_count, old_ms = _measure(then, old, args.repeat)
            print(f"{what:9} {module}: {count} accelbench modules, {ms:.0f} ms;"
                  f" at {args.against}: {old_count} ({old}, {old_ms:.0f} ms;"
                  f" recorded {BASELINE_COUNTS[what]})")


if __name__ == "__main__":
    main()
