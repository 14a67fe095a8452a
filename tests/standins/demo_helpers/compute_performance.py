"""Stand-in for ``demo_helpers.compute_performance``: replays the seeds' output.

``compute_performance`` prints what the real one printed in the seeds (length 512:
seed 003's table; any other length: seed 002's run at 128) and returns its rows as the
real one does: (source, accuracy, end-to-end ms, end-to-end IPS, on-chip ms, on-chip IPS).
"""

from __future__ import annotations

import time
from pathlib import Path

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"


def compute_performance(groq_model, pytorch_model, dataset, tokenizer=None, max_seq_length=None,
                        feature_extractor=None, task=None) -> list[tuple[str, ...]]:
    """Print the recorded run for ``max_seq_length`` and return its table's rows."""
    length = 512 if max_seq_length == 512 else 128
    print("Preprocessing data.", flush=True)
    rows = []
    for line in (RECORDINGS / f"groq_bert_tiny_seq{length}.log").read_text().splitlines():
        print(line, flush=True)
        time.sleep(0.01)
        cells = tuple(c.strip() for c in line.strip().strip("|").split("|"))
        if line.startswith("|") and cells[0] != "Source":
            rows.append(cells)
    return rows
