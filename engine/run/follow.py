"""Following a run: its folded state plus a bounded buffer of its log lines.

Front ends (the CLI's live display, the TUI's run view) read a ``Follower``
whenever they redraw: the newest state wins, and log lines are taken in batches
by sequence number, so a flood of output never queues up stale UI work.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from accelbench.engine.core.events import Event, Log
from accelbench.engine.run.state import RunState

if TYPE_CHECKING:
    from accelbench.engine.run.runner import RunHandle

MAX_LOG_LINES = 20_000
WATCHED_S = 3.0  # a follower whose log lines were asked for this recently is watched


class Follower:
    """The state and recent log lines of one run, fed by its events."""

    def __init__(self, run_id: str, max_log_lines: int = MAX_LOG_LINES) -> None:
        self.run_id = run_id
        self.state = RunState(run_id)
        self.logs: deque[Log] = deque(maxlen=max_log_lines)
        self.log_seq = 0  # number of log lines ever fed
        self.version = 0  # bumped by every fed batch: "has anything changed?"
        self.looked = float("-inf")  # time.monotonic() when its log lines were last asked for
        self._wanted = (float("-inf"), 0.0)  # time.monotonic() of a view's want(), its pace

    @classmethod
    def from_events(cls, run_id: str, events: Iterable[Event]) -> Follower:
        """A follower holding a recorded event stream (tests, snapshots, finished runs)."""
        follower = cls(run_id)
        follower.feed(list(events))
        return follower

    @property
    def ended(self) -> bool:
        """True once the run's Finished event has been fed."""
        return self.state.finished is not None

    def feed(self, events: list[Event]) -> None:
        """Fold a batch of events in."""
        self.state.feed_all(events)
        self._take(events, self.state)

    def _take(self, events: list[Event], state: RunState) -> None:
        """A batch of events and the state they were folded into (by the reader)."""
        self.state = state
        logs = [event for event in events if type(event) is Log]
        self.logs.extend(logs)
        self.log_seq += len(logs)
        self.version += 1

    def logs_since(self, seq: int) -> tuple[list[Log], int]:
        """Log lines fed after sequence number ``seq`` (as many as are still kept), and the new
        seq. The follower is watched (see :meth:`follow`) for ``WATCHED_S`` seconds."""
        self.looked = time.monotonic()
        missing = min(self.log_seq - seq, len(self.logs))
        if missing <= 0:
            return [], self.log_seq
        newest = list(itertools.islice(reversed(self.logs), missing))
        newest.reverse()
        return newest, self.log_seq

    def want(self, every: float) -> None:
        """Have the run read at least every ``every`` seconds while unwatched, for the next
        ``WATCHED_S`` seconds (a view that redraws its figures that often asks at each
        redraw)."""
        self._wanted = (time.monotonic(), every)

    async def follow(self, handle: RunHandle, poll: float = 0.1, chunk: int = 64 * 1024,
                     unwatched: float | None = None) -> None:
        """Feed the run's events until it ends (a batch a tick at most: see ``lane.Hub``;
        the reader folds them, this takes its state):
        read every ``poll`` seconds, or every ``unwatched`` seconds (if given) while no one
        watches it (asks for its log lines: a run's detailed view does, a table of runs
        shows only its figures), or as often as a view wants (:meth:`want`) if sooner."""
        def pace() -> float:
            now = time.monotonic()
            if unwatched is None or now - self.looked < WATCHED_S:
                return poll
            asked, every = self._wanted
            return max(poll, min(unwatched, every)) if now - asked < WATCHED_S else unwatched

        async for batch, state in handle.folds(poll=poll, chunk=chunk, pace=pace):
            self._take(batch, state)
