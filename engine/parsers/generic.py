"""The dialects read on every system: formats of programs that run anywhere (a package
adds its own to them: ``reading.formats``)."""

from __future__ import annotations

from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.hf_trainer import HFTrainer
from accelbench.engine.parsers.keras import Keras
from accelbench.engine.parsers.tqdm_bar import TqdmBar
from accelbench.engine.reading.failures import Failures
from accelbench.engine.reading.mllog import Mllog
from accelbench.engine.reading.records import Records
from accelbench.engine.reading.shapes import ShapeReader

GENERIC_DIALECTS: tuple[type[Dialect], ...] = (HFTrainer, TqdmBar, Keras, Mllog)

FILE_DIALECTS: tuple[type[Dialect], ...] = (Records,)
"""The dialects of structured files (``reading.records``): files people have, not a job's
output (as tools' tables: ``reading.tools``)."""

ALWAYS_DIALECTS: tuple[type[Dialect], ...] = (ShapeReader, Failures)
"""The dialects read on every log whatever is detected (``Dialect.always``)."""
