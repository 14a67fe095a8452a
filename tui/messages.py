"""What screens ask of the app: they post these, the app acts or answers.

A screen never reaches into the app's attributes (its runner, store or followers).
Requests (``OpenRun``, ``CompareRuns``, ...) are acted on; questions (``...Wanted``)
are answered by calling their ``reply`` on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from textual.message import Message

from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.run.follow import Follower
from accelbench.engine.store.compare import Comparison
from accelbench.engine.store.runs import RunOrder, RunQuery
from accelbench.engine.view.model import Live


class OpenRun(Message):
    """Show run ``run_id`` in the run view."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id


class CompareRuns(Message):
    """Show the runs ``run_ids`` side by side under ``title``."""

    def __init__(self, run_ids: list[str], title: str) -> None:
        super().__init__()
        self.run_ids = run_ids
        self.title = title


class CancelRun(Message):
    """Ask the user, then cancel run ``run_id``."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id


class StartRun(Message):
    """Start a run (or an experiment, for a spec with a sweep) and show it."""

    def __init__(self, spec: JobSpec) -> None:
        super().__init__()
        self.spec = spec


class SpecWanted(Message):
    """The spec the app was opened with, or None: ``reply(spec)``."""

    def __init__(self, reply: Callable[[JobSpec | None], None]) -> None:
        super().__init__()
        self.reply = reply


Runs = list[tuple[RunInfo, Live | None]]


@dataclass(frozen=True)
class RunsPage:
    """Runs of the history, each with its live figures when followed (else None): the
    ``offset``-th on, in ``order``, of the ``total`` a query selects; ``marked``: those
    of the asker's marked runs that still exist."""

    runs: Runs
    order: RunOrder
    offset: int
    total: int
    marked: list[str] = field(default_factory=list)


class RunsWanted(Message):
    """The runs ``query`` selects in ``order``, ``limit`` of them (every one when None)
    from the ``offset``-th on, read off the UI thread: ``reply(page, seen)``, ``seen``
    telling what they are as of (the index's change counter and the followers'
    versions); ``page`` is None when nothing changed since the ``seen`` of the message."""

    def __init__(self, reply: Callable[[RunsPage | None, object], None], seen: object = None,
                 query: RunQuery | None = None, order: RunOrder | None = None,
                 offset: int = 0, limit: int | None = None, marked: Sequence[str] = ()
                 ) -> None:
        super().__init__()
        self.reply = reply
        self.seen = seen
        self.query = query or RunQuery()
        self.order = order or RunOrder()
        self.offset, self.limit = offset, limit
        self.marked = tuple(marked)


class FollowersWanted(Message):
    """The followers of runs ``run_ids``, started if need be: ``reply({run_id: follower})``."""

    def __init__(self, run_ids: list[str], reply: Callable[[dict[str, Follower]], None]) -> None:
        super().__init__()
        self.run_ids = run_ids
        self.reply = reply


class ComparisonWanted(Message):
    """The comparison of runs ``run_ids`` and their metric histories (for the loss curves):
    ``reply(comparison, histories)``, computed off the UI thread."""

    def __init__(self, run_ids: list[str],
                 reply: Callable[[Comparison, list[dict[str, list]]], None]) -> None:
        super().__init__()
        self.run_ids = run_ids
        self.reply = reply
