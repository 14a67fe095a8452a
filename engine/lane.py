"""Items made by blocking code in a daemon thread of their own, taken by async code.

Following a run reads its files and asks its launcher (``squeue``, ``scontrol``, ``csctl``:
seconds when a controller is slow). A run's reader does that in its own thread, so the event
loop (the TUI's) never waits on it and a slow call delays only that run; the loop wakes only
when there is something to take. The thread is a daemon (quitting never waits for a
controller that does not answer) and never shared (a stuck call holds up no one else).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

T = TypeVar("T")
AHEAD = 4  # items the thread may make before the taker has taken them
_DONE = object()


class _Stopped(Exception):
    """The taker has gone: the thread stops making items."""


async def in_thread(make: Callable[[Callable[[T], None], threading.Event], None],
                    name: str) -> AsyncIterator[T]:
    """The items ``make(put, stop)`` puts, made in a daemon thread named ``name``; what
    ``make`` raises is raised here. ``put`` blocks while ``AHEAD`` items wait to be taken;
    ``stop`` is set once the taker has gone (wait on it instead of sleeping)."""
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[tuple[Any, BaseException | None]] = asyncio.Queue()
    room, stop = threading.Semaphore(AHEAD), threading.Event()

    def hand(item: Any, error: BaseException | None = None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody takes it
            loop.call_soon_threadsafe(items.put_nowait, (item, error))

    def put(item: T) -> None:
        while not room.acquire(timeout=0.5):
            if stop.is_set():
                raise _Stopped
        hand(item)

    def run() -> None:
        try:
            make(put, stop)
        except _Stopped:
            return
        except BaseException as exc:  # noqa: BLE001 - raised in the taker
            hand(_DONE, exc)
            return
        hand(_DONE)

    threading.Thread(target=run, name=name, daemon=True).start()
    try:
        while True:
            item, error = await items.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            room.release()
            yield item
    finally:
        stop.set()
