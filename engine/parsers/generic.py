"""The dialects read on every system: formats of programs that run anywhere."""

from __future__ import annotations

from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.hf_trainer import HFTrainer
from accelbench.engine.parsers.keras import Keras
from accelbench.engine.parsers.slurm_log import SlurmLog
from accelbench.engine.parsers.slurm_tables import SlurmTable
from accelbench.engine.parsers.tqdm_bar import TqdmBar
from accelbench.engine.reading.shapes import ShapeReader

GENERIC_DIALECTS: tuple[type[Dialect], ...] = (HFTrainer, SlurmLog, TqdmBar, Keras)

TABLE_DIALECTS: tuple[type[Dialect], ...] = (SlurmTable,)
"""The dialects of tools' tables (``sacct``, ...): a file people have, not a job's output."""

ALWAYS_DIALECTS: tuple[type[Dialect], ...] = (ShapeReader,)
"""The dialects read on every log whatever is detected (``Dialect.always``)."""
