"""The dialects read on every system: formats of programs that run anywhere."""

from __future__ import annotations

from accelbench.engine.launchers.slurm.log_dialect import SlurmLog
from accelbench.engine.launchers.slurm.table_dialect import SlurmTable
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.hf_trainer import HFTrainer
from accelbench.engine.parsers.keras import Keras
from accelbench.engine.parsers.tqdm_bar import TqdmBar
from accelbench.engine.reading.failures import Failures
from accelbench.engine.reading.mllog import Mllog
from accelbench.engine.reading.records import Records
from accelbench.engine.reading.shapes import ShapeReader
from accelbench.engine.reading.tools.pbs_jobs import PbsTable

GENERIC_DIALECTS: tuple[type[Dialect], ...] = (HFTrainer, SlurmLog, TqdmBar, Keras, Mllog)

TABLE_DIALECTS: tuple[type[Dialect], ...] = (SlurmTable, PbsTable, Records)
"""The dialects of tools' tables (``sacct``, ``qstat``, ...) and structured files
(``reading.records``): files people have, not a job's output."""

ALWAYS_DIALECTS: tuple[type[Dialect], ...] = (ShapeReader, Failures)
"""The dialects read on every log whatever is detected (``Dialect.always``)."""
