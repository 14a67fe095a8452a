"""``Formats``: what a package adds to the reading of every log, whatever the system.

A package registers one under the entry-point group ``accelbench.formats`` (:data:`GROUP`)
as it registers a system or a launcher: the dialects of lines any job's output may hold
(what a scheduler's own tools print there), read with the generic ones on every log, and
the tool output read whole (a scheduler's job tables: ``reading.tools.ToolOutput``).
Slurm's launcher package declares its own so (``engine/launchers/slurm/formats.py``); the
registry reads them without loading any launcher, so ``accelbench parse`` stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.tools import ToolOutput

GROUP = "accelbench.formats"


@dataclass(frozen=True)
class Formats:
    """The dialects read on every log (as the generic ones) and the kinds of tool output
    read whole (tried before accelbench's own) that the package called ``name`` brings."""

    name: str
    dialects: tuple[type[Dialect], ...] = ()
    tables: tuple[ToolOutput, ...] = ()
