"""A lane: one daemon thread that runs blocking calls, one at a time, for async code.

Following a run reads its files and asks its launcher (``squeue``, ``scontrol``, ``csctl``:
seconds when a controller is slow). A follower sends those calls down its own lane, so the
event loop (the TUI's) never waits on them and a slow call delays only that run. The thread
is a daemon: quitting never waits for a controller that does not answer. Unlike the loop's
default executor, a lane is never shared, so a stuck call cannot hold up anyone else's work.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_Job = tuple[asyncio.AbstractEventLoop, asyncio.Future, Callable[..., Any], tuple[Any, ...]]


class Lane:
    """A daemon thread serving calls in order; :meth:`close` ends it once its calls are done."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` run in the lane's thread; what it raises is raised here. Cancelling
        the caller does not stop a call already running (its result is dropped)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((loop, future, fn, args))
        return await future

    def close(self) -> None:
        """End the thread after the calls already sent (it does not wait for them)."""
        self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            loop, future, fn, args = job
            try:
                outcome: tuple[Callable[[Any], None], Any] = (future.set_result, fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
                outcome = (future.set_exception, exc)
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, *outcome)


def _settle(future: asyncio.Future, settle: Callable[[Any], None], value: Any) -> None:
    if not future.done():  # a cancelled caller no longer wants it
        settle(value)
