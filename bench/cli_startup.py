"""What a command costs before it does anything: the CPU seconds (user + system, best of
--repeat fresh processes, this tree's and the baseline's taken in turn) of ``accelbench parse``
of a one-line file, ``accelbench --help`` and ``accelbench list`` (an unknown command: the
parser built and its error), for this tree and for the tree at git revision --against, with
the bare interpreter's start beside them.

    python bench/cli_startup.py [--repeat 5] [--against 1399511]

At 1 M lines the whole budget of ``accelbench parse`` is 1.4-2.4 s (bench/parse_speed.py):
what every parse pays at its start is a part of it for every format. The default revision
is the last one before the patterns of the dialects were compiled on first use
(``engine/core/patterns.py``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "cli", "api", "presets", "tui")  # what installs under accelbench/
COMMANDS = {"parse (1 line)": ["parse", "{tiny}"], "--help": ["--help"], "list": ["list"]}
PROBE = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, {root!r})
from accelbench.cli.main import main
sys.argv = ["accelbench", *{argv!r}]
sys.exit(main())
"""


def _tree(rev: str | None, into: Path) -> Path:
    """A folder holding ``accelbench/`` as installed, at ``rev`` (None: the work tree)."""
    package = into / "accelbench"
    package.mkdir(parents=True)
    if rev is None:
        for folder in FOLDERS:
            (package / folder).symlink_to(ROOT / folder)
    else:
        archive = subprocess.run(["git", "archive", rev, *FOLDERS], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(package, filter="data")
    return into


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    """The CPU seconds of one run of ``argv`` (its output dropped)."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=env)
    _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", default="1399511", help="the baseline's git revision")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        place = Path(tmp)
        tiny = place / "tiny.log"
        tiny.write_text("hi\n")
        trees = {"this tree": _tree(None, place / "now"),
                 args.against: _tree(args.against, place / "then")}
        env = {**os.environ, "XDG_DATA_HOME": tmp, "XDG_CONFIG_HOME": tmp,
               "XDG_STATE_HOME": tmp, "XDG_CACHE_HOME": tmp}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # (both trees' bytecode cached, as installed)
        bare = [sys.executable, "-c", "pass"]
        runs = {"python -c pass": dict.fromkeys(trees, bare)}
        for what, words in COMMANDS.items():
            argv = [word.format(tiny=tiny) for word in words]
            runs[what] = {name: [sys.executable, "-c", PROBE.format(root=str(root), argv=argv)]
                          for name, root in trees.items()}
        for by in runs.values():
            for argv in by.values():
                _cpu(argv, env)  # (a first run writes the bytecode)
        best = {what: dict.fromkeys(by, float("inf")) for what, by in runs.items()}
        for _ in range(args.repeat):
            for what, by in runs.items():
                for name, argv in by.items():
                    best[what][name] = min(best[what][name], _cpu(argv, env))
    print(f"CPU seconds, best of {args.repeat}")
    print(f"{'command':16}" + "".join(f"{name:>11}" for name in trees))
    for what, by in best.items():
        print(f"{what:16}" + "".join(f"{seconds:11.3f}" for seconds in by.values()))


if __name__ == "__main__":
    main()
