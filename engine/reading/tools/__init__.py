"""Tool output a file given to ``accelbench parse`` or ``import`` is read whole as: job
records (a scheduler's tables: PBS's here, Slurm's from its launcher package), each job a
run read with its kind's dialect.

:data:`KINDS` holds accelbench's own; the registry's ``tables()`` adds those the installed
packages declare (``reading.formats``), and ``logfile`` asks :func:`runs` with them and
reads any other file as a log (where the line dialects read telemetry: ``nvidia-smi``,
``neuron-monitor``, ``sntilestat``...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.tools.pbs_jobs import PbsTable, job_runs

MAX_WHOLE = 64 * 1024 * 1024  # characters: a larger file is read as a log


@dataclass(frozen=True)
class ToolOutput:
    """A kind of tool output read whole: the dialect its runs are read with (whose
    ``sniff`` tells a file of this kind by its start), and its runs as (title, text),
    None if it holds none."""

    dialect: type[Dialect]
    runs: Callable[[str], list[tuple[str, str]] | None]


KINDS: tuple[ToolOutput, ...] = (ToolOutput(PbsTable, job_runs),)


def runs(start: str, whole: Callable[[], str | None], kinds: Sequence[ToolOutput],
         dialect: str = "auto") -> tuple[str, list[tuple[str, str]]] | None:
    """The dialect and runs of a file of tool output whose ``start`` is given (``whole``
    gives all of it, None if it is too large: read as a log), or None if it is of none of
    ``kinds``, tried in order (``dialect``: only that one, or any for ``auto``)."""
    for kind in kinds:
        name = kind.dialect.name
        if dialect in ("auto", name) and kind.dialect.sniff(start):
            text = whole()
            found = None if text is None else kind.runs(text)
            if found is not None:
                return name, found
    return None
