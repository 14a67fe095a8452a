"""Reading TensorBoard event files: accelbench's reader against the bare TFRecord framing.

Builds an event file of ``--copies`` copies of a real one (the HF Trainer's, from
tests/fixtures/real/ondisk/hf_t5_summarization: 1726 scalars in 98 KB; a TFRecord file
stays valid concatenated), then times, best of ``--repeat`` rounds in this process: the
baseline, reading every record's length, data and checksum bytes with no checksum computed
and no decoding (the least any reader does); ``tfevents.scalars`` (checksums of the
records it reads, protobuf decoding, float32 shortest decimals); and ``accelbench parse``'s
way through it (``logfile.parse_file``: records, the records dialect, events). Prints
seconds, MB/s, scalars/s and each one's speed against the baseline, and the peak memory.

    python bench/tfevents_speed.py [--copies 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (ROOT / "tests/fixtures/real/ondisk/hf_t5_summarization/runs/"
          "Mar24_22-23-40_DESKTOP-41L2EO3/events.out.tfevents.1742826235.DESKTOP-41L2EO3.107869.0")


def _framing(path: Path) -> int:
    import struct

    n = 0
    with open(path, "rb") as f:
        while head := f.read(12):
            length = struct.unpack("<Q", head[:8])[0]
            f.read(length)
            f.read(4)
            n += 1
    return n


def _best(run, repeat: int) -> tuple[float, int]:
    best, out = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    from accelbench.engine.logs.logfile import parse_file
    from accelbench.engine.reading import tfevents

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / SOURCE.name
        path.write_bytes(SOURCE.read_bytes() * args.copies)
        size = path.stat().st_size / 1e6
        rows = [("baseline: framing only", *_best(lambda: _framing(path), args.repeat)),
                ("tfevents.scalars", *_best(lambda: sum(1 for _ in tfevents.scalars(path)),
                                            args.repeat)),
                ("parse_file (events)", *_best(lambda: sum(
                    len(s.events) for s in parse_file(path)), args.repeat))]
    base = rows[0][1]
    scalars = 1726 * args.copies
    print(f"{path.name} x{args.copies}: {size:.1f} MB, {scalars:,} scalars")
    print(f"{'reader':24} {'seconds':>8} {'MB/s':>7} {'scalars/s':>10} {'vs baseline':>12}")
    for name, seconds, _ in rows:
        print(f"{name:24} {seconds:8.3f} {size / seconds:7.2f} {scalars / seconds:10,.0f}"
              f" {base / seconds:11.3f}x")
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
