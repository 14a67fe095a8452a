"""Items made by blocking code in a daemon thread, taken by async code.

Following a run reads its files, tick by tick. A ``Hub`` steps the sources of all its
takers in one daemon thread (one wake-up a tick however many runs are followed) and
hands what they made to each event loop in one call a tick, so the loop never waits on
the files and wakes once a tick for all of them. Blocking calls that may take seconds
(``squeue``, ``scontrol``, ``csctl``) never run there: a source makes them in a thread of
its own, so a slow controller delays no one else. Threads are daemons: quitting never
waits for a controller that does not answer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
AHEAD = 4  # steps' items a taker may have waiting before its source is stepped again


class Source(Protocol[T]):
    """What a hub steps: non-blocking, in the hub's thread only."""

    def step(self) -> tuple[list[T], bool]:
        """The items made now, and whether the source has ended."""

    def more(self) -> bool:
        """True when the source could make more at once (no need to wait for a tick)."""

    def close(self) -> None:
        """Release what the source holds: it is stepped no more."""


class _Taker(Generic[T]):
    def __init__(self, source: Source[T], loop: asyncio.AbstractEventLoop) -> None:
        self.source = source
        self.loop = loop
        self.queue: asyncio.Queue[tuple[list[T], BaseException | None, bool]] = asyncio.Queue()
        self.room = threading.Semaphore(AHEAD)
        self.gone = False  # the taker has stopped taking, or the source has ended


class Hub:
    """Steps the sources of its takers every ``tick`` seconds (at once while one has more),
    in one daemon thread named ``name``, started with the first taker and ended with the
    last."""

    def __init__(self, tick: float, name: str) -> None:
        self.tick = tick
        self.name = name
        self._lock = threading.Lock()
        self._takers: list[_Taker[Any]] = []
        self._running = False
        self._wake = threading.Event()

    async def take(self, source: Source[T]) -> AsyncIterator[T]:
        """The items ``source`` makes until it ends; what its ``step`` raises is raised
        here. The source is stepped no more once the taker has gone."""
        taker = _Taker(source, asyncio.get_running_loop())
        with self._lock:
            self._takers.append(taker)
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name=self.name, daemon=True).start()
        self._wake.set()  # its first step now, not in a tick
        try:
            while True:
                items, error, ended = await taker.queue.get()
                taker.room.release()
                if error is not None:
                    raise error
                for item in items:
                    yield item
                if ended:
                    return
        finally:
            taker.gone = True

    def _run(self) -> None:
        while True:
            with self._lock:
                for taker in self._takers:
                    if taker.gone:
                        taker.source.close()
                self._takers = [t for t in self._takers if not t.gone]
                if not self._takers:
                    self._running = False
                    return
                takers = list(self._takers)
            self._wake.clear()
            if not self._step(takers):
                self._wake.wait(self.tick)

    def _step(self, takers: list[_Taker[Any]]) -> bool:
        """Step every source with room; hand the results to each loop in one call. True
        when a source has more to make at once."""
        handed: dict[asyncio.AbstractEventLoop, list[tuple[_Taker[Any], tuple]]] = {}
        busy = False
        for taker in takers:
            if taker.gone or not taker.room.acquire(blocking=False):
                continue
            error: BaseException | None = None
            try:
                items, ended = taker.source.step()
            except BaseException as exc:  # noqa: BLE001 - raised in the taker
                items, ended, error = [], True, exc
            if not items and not ended:
                taker.room.release()
            else:
                handed.setdefault(taker.loop, []).append((taker, (items, error, ended)))
            taker.gone = taker.gone or ended
            busy = busy or (not ended and taker.source.more())
        for loop, given in handed.items():
            try:
                loop.call_soon_threadsafe(_give, given)
            except RuntimeError:  # the loop has closed: nobody takes them
                for taker, _ in given:
                    taker.gone = True
        return busy


def _give(given: list[tuple[_Taker[Any], tuple]]) -> None:
    for taker, result in given:
        taker.queue.put_nowait(result)


_hubs: dict[float, Hub] = {}
_hubs_lock = threading.Lock()


def hub(tick: float) -> Hub:
    """The process's hub stepping every ``tick`` seconds."""
    with _hubs_lock:
        return _hubs.setdefault(tick, Hub(tick, f"hub-{tick:g}s"))
