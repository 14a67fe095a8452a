"""PyTorch Lightning's ``CSVLogger`` file (``metrics.csv``) as records.

One row per ``log`` call, its columns the union of every key logged (sparse: a row holds
only what was logged at that ``step``); ``step`` and ``epoch`` are columns like the others.
A ``_step`` suffix (``on_step=True``) names the per-step figure (``train_loss_step`` is the
loss); an ``_epoch`` one an epoch's mean, kept under its own name.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from accelbench.engine.core import safefile
from accelbench.engine.core.errors import UserError
from accelbench.engine.reading.records import Record, figure, lines, place
from accelbench.engine.reading.vocabulary import named

NAME = "metrics.csv"


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def csv_records(path: Path) -> Iterator[Record]:
    """The records of a Lightning ``metrics.csv``, streamed (a line read at most
    ``records.MAX_LINE`` characters)."""
    try:
        with safefile.opened(path, "r", encoding="utf-8", errors="replace", newline="") as f:
            reader = csv.DictReader(lines(f, path))
            fields = reader.fieldnames or []
            if "step" not in fields:
                raise UserError(f"{path}: not a Lightning {NAME}: no step column")
            names = {key: named(key[:-5] if key.endswith("_step") else key)
                     for key in fields if key not in ("step", "epoch")}
            for row in reader:
                metrics = {name: value * scale for key, (name, scale) in names.items()
                           if (value := _float(row.get(key))) is not None}
                yield Record(step=place(_float(row.get("step"))),
                             epoch=figure(_float(row.get("epoch"))),
                             metrics=metrics)
    except csv.Error as exc:
        raise UserError(f"{path}: damaged {NAME}: {exc}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
