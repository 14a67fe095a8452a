"""Template mining for the generic reader: Drain (the ``drain3`` package) against the masking
of ``engine/reading/shapes.py``, on real framework logs.

For each log of tests/fixtures/real/frameworks, and for each of them repeated to
``--lines`` lines (its lines in turn, the numbers as printed), prints how many templates
each finds, whether every step line of the log (``STEP``: a line whose masked shape is
the shapes reader's template) falls in one Drain cluster, and the time a line: Drain's
``add_log_message`` on every line (as it must be run: a Python call per line) and the
masking of one ``re.sub`` over the text (as the reader runs it on a sample of each block).
Needs ``drain3`` (``pip install drain3``), which accelbench does not depend on.

    python bench/template_mining.py [--lines 100000]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from accelbench.engine.reading.shapes import _MASK, _SLOT, REPEAT

FRAMEWORKS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real" / "frameworks"


def masked(lines: list[str]) -> list[str]:
    return _MASK.sub(_SLOT, "\n".join(lines)).split("\n")


def drain(lines: list[str]) -> tuple[list[int], float]:
    """Drain's cluster id of each line, and its seconds."""
    from drain3 import TemplateMiner  # type: ignore[import-not-found]
    from drain3.template_miner_config import TemplateMinerConfig  # type: ignore[import-not-found]

    config = TemplateMinerConfig()
    config.profiling_enabled = False
    miner = TemplateMiner(config=config)
    t = time.perf_counter()
    ids = [miner.add_log_message(line)["cluster_id"] for line in lines]
    return ids, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    print(f"{'log':48} {'lines':>7} {'masks':>6} {'drain':>6} {'steps 1 cluster':>16}"
          f" {'mask us/line':>13} {'drain us/line':>14}")
    for path in sorted(FRAMEWORKS.glob("*.log")):
        lines = [line for line in path.read_text(encoding="utf-8").split("\n")[1:] if line]
        for count in (len(lines), args.lines):
            text = (lines * (count // len(lines) + 1))[:count]
            t = time.perf_counter()
            shapes = masked(text)
            mask_s = time.perf_counter() - t
            templates = {s for s, n in Counter(shapes).items() if n >= REPEAT and _SLOT in s}
            ids, drain_s = drain(text)
            steps = {i for i, s in zip(ids, shapes, strict=True) if s in templates}
            one = "-" if not templates else "yes" if len(steps) <= len(templates) else "no"
            print(f"{path.name[:48]:48} {count:7} {len(set(shapes)):6} {len(set(ids)):6}"
                  f" {one:>16} {mask_s / count * 1e6:13.2f} {drain_s / count * 1e6:14.2f}")


if __name__ == "__main__":
    main()
