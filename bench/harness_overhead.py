"""Harness overhead: MNIST CNN samples/s through `accelbench run` vs a bare PyTorch loop.

Both sides train the workload's own network with the same batch size, the same
synthetic data, the same thread count and the same optimizer, each in a fresh
Python process: the bare loop as a child of this command, the accelbench run as a
real run (detached wrapper, telemetry at 1 Hz, machine lines, event parsing).
Rounds alternate so that machine noise hits both alike; the figure is the ratio
of medians. Target: >= 0.97.

    python bench/harness_overhead.py [--samples 12800] [--batch-size 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine" / "workloads"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from mnist_cnn import Network, prepare, synthetic  # noqa: E402


def bare_loop(samples: int, batch_size: int, lr: float, seed: int) -> float:
    """Samples/s of a plain training loop over the same data and model."""
    torch.manual_seed(seed)
    images, labels, _, _ = synthetic(seed)
    x, y = prepare(images, labels, samples, torch.device("cpu"))
    model = Network()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    model.train()
    start = time.perf_counter()
    for i in range(0, len(x), batch_size):
        batch = order[i:i + batch_size]
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    loss.item()
    return len(x) / (time.perf_counter() - start)


def bare_process(samples: int, batch_size: int, lr: float, threads: int) -> float:
    """Samples/s of :func:`bare_loop` in a fresh process, like the accelbench side."""
    out = subprocess.run([sys.executable, __file__, "--bare", "--samples", str(samples),
                          "--batch-size", str(batch_size), "--threads", str(threads)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def accelbench_run(home: str, samples: int, batch_size: int, lr: float, threads: int) -> float:
    """Samples/s the workload reports when run through `accelbench run`."""
    sets = {"data": "synthetic", "train_samples": samples, "test_samples": 500, "epochs": 1,
            "batch_size": batch_size, "learning_rate": lr, "threads": threads}
    argv = [sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist", "--json"]
    for key, value in sets.items():
        argv += ["--set", f"{key}={value}"]
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "ACCELBENCH_HOME": home}, check=True)
    finished = json.loads(out.stdout.splitlines()[-1])
    return finished["summary"]["metrics"]["train_samples_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=12800)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads on both sides (1 is steadiest on a shared 2-core box)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.bare:  # the child that runs the bare loop
        print(bare_loop(args.samples, args.batch_size, 0.03, 0))
        return
    bare, harness = [], []
    with tempfile.TemporaryDirectory() as home:
        for _ in range(args.rounds):
            bare.append(bare_process(args.samples, args.batch_size, 0.03, args.threads))
            harness.append(accelbench_run(home, args.samples, args.batch_size, 0.03, args.threads))
            print(f"  round: bare {bare[-1]:8.1f}  accelbench {harness[-1]:8.1f} samples/s",
                  flush=True)
    b, h = statistics.median(bare), statistics.median(harness)
    print(f"bare PyTorch loop : {b:8.1f} samples/s (median of {args.rounds})")
    print(f"accelbench run    : {h:8.1f} samples/s (median of {args.rounds})")
    print(f"ratio             : {h / b:.3f}  [target >= 0.97]")


if __name__ == "__main__":
    main()
