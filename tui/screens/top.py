"""``accelbench top`` in the app (f4): this node's devices, redrawn every second.

Sampling never runs on the event loop: the samplers start, are read and stop in worker
threads (``engine.top``; each tool in a thread of its own, so a hung tool holds up only
its own row), and they run only while the screen is shown.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from accelbench.engine import registry, topview
from accelbench.engine.top import Top


class TopScreen(Screen):
    """The node's CPU, memory and accelerators, with the run on each device."""

    DEFAULT_CSS = "#top-view { padding: 0 1; }"

    def __init__(self, interval: float = 1.0, make_top: Callable[[], Top] | None = None) -> None:
        super().__init__()
        self.interval = interval
        self.make_top = make_top
        self.top: Top | None = None
        self._timer: Timer | None = None
        self._titles = {name: system.title for name, system in registry.systems().items()}

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="top-body"):
            yield Static("starting the samplers…", id="top-view")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "top: this node"

    def on_screen_resume(self) -> None:
        if self.top is None:
            self.run_worker(self._open, thread=True, group="top")

    def on_screen_suspend(self) -> None:
        self._close()

    def on_unmount(self) -> None:
        self._close()

    def _open(self) -> None:
        store = getattr(getattr(self.app, "runner", None), "store", None)
        top = (self.make_top or (lambda: Top(self.interval, store)))().start()
        self.app.call_from_thread(self._opened, top)

    def _opened(self, top: Top) -> None:
        if not self.is_current:  # left before the samplers started
            self.run_worker(top.close, thread=True, group="top")
            return
        self.top = top
        self._refresh()
        self._timer = self.set_interval(self.interval, self._refresh)

    def _refresh(self) -> None:
        if self.top is not None:
            width = self.query_one("#top-view", Static).content_region.width
            self.run_worker(lambda: self._sample(width), thread=True, exclusive=True,
                            group="top-sample")

    def _sample(self, width: int) -> None:
        top = self.top
        if top is None:
            return
        view = topview.render(top.sample(), width, self._titles, self.interval)
        self.app.call_from_thread(self._show, view)

    def _show(self, view: RenderableType) -> None:
        if self.is_attached:
            self.query_one("#top-view", Static).update(view)

    def _close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.top is not None:
            self.run_worker(self.top.close, thread=True, group="top")
            self.top = None
