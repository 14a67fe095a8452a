"""How the CLI's history commands grow with the number of runs in the store.

A store of N finished runs is made quickly in a temporary ACCELBENCH_HOME: one real run
is imported from a recorded Cerebras log (tests/fixtures/recordings), its directory is
cloned N times (the log hard-linked; meta.json, spec.toml, summary.json and digest.json
written with varied times, accelerators and statuses), and the engine rebuilds the index from the
directories as it does for a lost index. Then each command is timed (wall time, the
best of three tries, and peak memory of the process), and printed beside the figure
measured before issue 12's work (same command, same 2-core machine). Target at 10k runs:
`runs` <= 0.3 s.

    python bench/history_scale.py [--sizes 1000,10000] [--big]   # --big adds 100k runs
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests/fixtures/recordings/cerebras_bert_large_batch2048.log"
ACCELERATORS = ("cerebras", "cpu", "groq", "trainium")
# seconds and MB measured on the code before issue 12's changes (2-core machine, one try)
BASELINE: dict[int, dict[str, tuple[float, float]]] = {
    1_000: {"runs": (1.84, 44), "runs --format json": (0.46, 39), "show ID": (0.43, 32),
            "compare 200": (0.57, 30)},
    10_000: {"runs": (16.55, 144), "runs --format json": (2.02, 128), "show ID": (0.46, 35),
             "compare 200": (1.88, 32)},
}
COMMANDS = ("runs", "runs --format json", "show ID", "compare 200", "compare 200 --plot")


def make_store(home: Path, count: int) -> list[str]:
    """``count`` finished runs in ``home``; their ids, newest first."""
    env = {**os.environ, "ACCELBENCH_HOME": str(home)}
    out = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "import", str(FIXTURE)],
                         env=env, check=True, capture_output=True, text=True).stdout
    template = home / "runs" / out.split()[0]
    spec = (template / "spec.toml").read_text()
    end = json.loads((template / "summary.json").read_text())
    digest = json.loads((template / "digest.json").read_text())
    now = time.time()
    sources = {name: template / name for name in ("output.log", "launch.json", "exit.json")}
    ids = []
    for n in range(count):
        created = now - (count - n) * 60.0
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(created))
        run_id = f"{stamp}-bench-{n:06d}"
        run_dir = home / "runs" / run_id
        run_dir.mkdir(mode=0o700)
        for name in ("output.log", "launch.json", "exit.json"):
            try:
                os.link(sources[name], run_dir / name)
            except OSError as exc:  # a file system's limit of links to one file
                if exc.errno != errno.EMLINK:
                    raise
                shutil.copyfile(sources[name], run_dir / name)
                sources[name] = run_dir / name
        (run_dir / "spec.toml").write_text(spec.replace(
            'accelerator = "cerebras"', f'accelerator = "{ACCELERATORS[n % 4]}"'))
        (run_dir / "meta.json").write_text(json.dumps(
            {"id": run_id, "created": created, "experiment": None, "variant": {}}))
        ending = {"status": "failed" if n % 10 == 0 else "done", "ended": created + 30}
        (run_dir / "summary.json").write_text(json.dumps({**end, **ending}))
        (run_dir / "digest.json").write_text(json.dumps({**digest, **ending}))
        ids.append(run_id)
    for name in os.listdir(template):
        os.unlink(template / name)
    template.rmdir()
    (home / "index.sqlite").unlink()
    subprocess.run([sys.executable, "-m", "accelbench.cli.main", "runs", "--limit", "1"],
                   env=env, check=True, capture_output=True)  # the index, rebuilt once
    return ids[::-1]


def timed(home: Path, args: list[str], repeat: int = 3) -> tuple[float, float]:
    """Seconds (the best of ``repeat``: the machine is shared) and peak MB of
    ``accelbench ARGS`` (output to a pipe, as in a script)."""
    env = {**os.environ, "ACCELBENCH_HOME": str(home), "COLUMNS": "160"}
    took, mb = float("inf"), 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", *args], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        took = min(took, time.perf_counter() - start)
        mb = max(mb, usage.ru_maxrss / 1024)
        assert proc.stderr is not None
        if status:
            raise SystemExit(f"accelbench {' '.join(args)} failed: {proc.stderr.read().decode()}")
    return took, mb


def measure(count: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        made = time.perf_counter()
        ids = make_store(home, count)
        print(f"\n{count:,} runs (store made in {time.perf_counter() - made:.1f} s)")
        argv = {"runs": ["runs"], "runs --format json": ["runs", "--format", "json"],
                "show ID": ["show", ids[len(ids) // 2]],
                "compare 200": ["compare", "--format", "csv", *ids[:200]],
                "compare 200 --plot": ["compare", "--plot", *ids[:200]]}
        figures = {}
        for what in COMMANDS:
            figures[what] = took, mb = timed(home, argv[what])
            base = BASELINE.get(count, {}).get(what)
            was = f"  [before: {base[0]:6.2f} s {base[1]:6.0f} MB]" if base else ""
            print(f"  accelbench {what:20} {took:6.2f} s {mb:6.0f} MB{was}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="store sizes, comma-separated")
    parser.add_argument("--big", action="store_true", help="also 100,000 runs (slow to make)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([100_000] if args.big else [])
    results = {count: measure(count) for count in sizes}
    if len(sizes) > 1:
        print("\ngrowth from the smallest store to the largest (time ratio):")
        for what in COMMANDS:
            first, last = results[sizes[0]][what][0], results[sizes[-1]][what][0]
            print(f"  {what:20} x{last / first:5.1f} for x{sizes[-1] // sizes[0]} runs")


if __name__ == "__main__":
    main()
