"""Many lines' events at once, as columns: what a dialect may give for a run of lines alike.

A log prints the same kind of line by the hundred thousand (a training step's loss and
rate); making an event object of each, only to fold it into a ``RunState``, costs more
than reading the line. A :class:`Rows` holds those events as columns: a reader that folds
(``RunState.feed_all``) takes the columns as they are, any other is given the events
(:func:`expanded`), the same ones in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, TypeAlias

from accelbench.engine.core.events import Event, Metric


@dataclass(slots=True)
class Rows:
    """The events of ``len(stamps)`` lines: for each line ``i``, one event per ``(cls,
    columns)`` of ``kinds``, in order: ``cls(run_id, stamps[i], *(column[i] for column in
    columns))`` (every column as long as ``stamps``, which is not empty)."""

    run_id: str
    stamps: list[float]
    kinds: list[tuple[type[Event], tuple[list[Any], ...]]]

    def __len__(self) -> int:
        """The number of events."""
        return len(self.stamps) * len(self.kinds)

    def events(self) -> list[Event]:
        """The events, as objects."""
        made = [map(cls, repeat(self.run_id), self.stamps, *columns)
                for cls, columns in self.kinds]
        return [event for row in zip(*made, strict=True) for event in row]

    def metric_names(self) -> set[str]:
        """The names of the metrics among the events."""
        return {name for cls, columns in self.kinds if cls is Metric
                for name in set(columns[0])}


Batch: TypeAlias = Sequence[Event | Rows]  # events, some maybe as Rows


def expanded(batch: Batch) -> list[Event]:
    """The events of ``batch``, each :class:`Rows` as its events."""
    if Rows not in set(map(type, batch)):
        return list(batch)  # type: ignore[arg-type]  # (no Rows: all events)
    return [event for item in batch
            for event in (item.events() if isinstance(item, Rows) else (item,))]


def count(batch: Batch) -> int:
    """The number of events in ``batch``."""
    if Rows not in set(map(type, batch)):
        return len(batch)
    return sum(len(item) if type(item) is Rows else 1 for item in batch)
