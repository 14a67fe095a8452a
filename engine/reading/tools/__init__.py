"""Tool output a file given to ``accelbench parse`` or ``import`` is read whole as: job
records (Slurm's tables, PBS's), each job a run read with its kind's dialect.

:data:`KINDS` is the one list of them: each recognises a file by its start and cuts it
into runs; ``logfile`` asks :func:`runs` and reads any other file as a log (where the
line dialects read telemetry: ``nvidia-smi``, ``neuron-monitor``, ``sntilestat``...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_WHOLE = 64 * 1024 * 1024  # characters: a larger file is read as a log


@dataclass(frozen=True)
class Kind:
    """A kind of tool output read whole: the dialect its runs are read with, whether a
    file's start is of this kind, and its runs as (title, text), None if it holds none."""

    dialect: str
    sniff: Callable[[str], bool]
    runs: Callable[[str], list[tuple[str, str]] | None]


def kinds() -> tuple[Kind, ...]:
    """Every kind of tool output read whole, in the order a file is tried."""
    from accelbench.engine.launchers.slurm.table_dialect import SlurmTable
    from accelbench.engine.launchers.slurm.tables import job_tables
    from accelbench.engine.reading.tools.pbs_jobs import PbsTable, job_runs

    return (Kind(SlurmTable.name, SlurmTable.sniff, job_tables),
            Kind(PbsTable.name, PbsTable.sniff, job_runs))


def runs(start: str, whole: Callable[[], str | None], dialect: str = "auto"
         ) -> tuple[str, list[tuple[str, str]]] | None:
    """The dialect and runs of a file of tool output whose ``start`` is given (``whole``
    gives all of it, None if it is too large: read as a log), or None if it is of no kind
    read whole (``dialect``: only that one, or any for ``auto``)."""
    for kind in kinds():
        if dialect in ("auto", kind.dialect) and kind.sniff(start):
            text = whole()
            found = None if text is None else kind.runs(text)
            if found is not None:
                return kind.dialect, found
    return None
