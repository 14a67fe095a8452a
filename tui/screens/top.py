"""``accelbench top`` in the app (f4): this node's devices, redrawn every second (p shows
each CPU core or not).

Sampling never runs on the event loop: one worker thread starts the samplers, reads
and draws a sample every interval and stops them when the screen is left (``engine.run.top``;
each tool in a thread of its own, so a hung tool holds up only its own row).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Footer, Header

from accelbench.engine.plugin import registry
from accelbench.engine.run.top import Sample, Top
from accelbench.engine.view import topview
from accelbench.tui.nav import NavScreen


class TopLine(Widget):
    """One line of the view, redrawn alone when it changes (no new layout)."""

    DEFAULT_CSS = "TopLine { height: 1; }"

    def __init__(self, line: Text) -> None:
        super().__init__()
        self.line = line

    def render(self) -> Text:
        return self.line

    def show(self, line: Text) -> None:
        """Show ``line`` if it differs from the one shown."""
        if line != self.line:
            self.line = line
            self.refresh()


class TopScreen(NavScreen):
    """The node's CPU, memory and accelerators, with the run on each device."""

    crumb = "Top"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "toggle_per_core", "Per core", id="top.per_core",
                tooltip="Show each CPU core's figure, or only the CPU's mean")]

    DEFAULT_CSS = "#top-view { padding: 0 1; height: auto; }"

    def __init__(self, interval: float = 1.0, make_top: Callable[[], Top] | None = None) -> None:
        super().__init__()
        self.interval = interval
        self.make_top = make_top
        self.top: Top | None = None  # while the screen is shown
        self._stop = threading.Event()
        self._width = 78
        self.per_core = False
        self._sample: Sample | None = None  # the latest, drawn again when a key changes the view
        self._titles = {name: system.title for name, system in registry.systems().items()}

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="top-body"), Vertical(id="top-view"):
            yield TopLine(Text("starting the samplers…"))
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "this node"

    def on_resize(self, event: events.Resize) -> None:
        self._width = max(20, event.size.width - 2)  # the view's padding (until laid out)

    def on_screen_resume(self) -> None:
        self._stop = threading.Event()
        stop = self._stop
        self.run_worker(lambda: self._watch(stop), thread=True, group="top")

    def on_screen_suspend(self) -> None:
        self._stop.set()

    def action_toggle_per_core(self) -> None:
        """Each CPU core shown or not: the last sample drawn again at once."""
        self.per_core = not self.per_core
        if self._sample is not None:
            self._show(self._view(self._sample))

    def _view(self, sample: Sample) -> list[Text]:
        return topview.lines(sample, self._width, self._titles, self.interval, clock=False,
                             per_core=self.per_core)

    def on_unmount(self) -> None:
        """The app ends: stop the samplers' tools now (the worker thread may not get to)."""
        self._stop.set()
        if self.top is not None:
            self.top.close()

    def _watch(self, stop: threading.Event) -> None:
        """In a worker thread: start the samplers, draw a sample every interval until
        ``stop`` is set (the screen left), then stop them."""
        store = getattr(getattr(self.app, "runner", None), "store", None)
        top = (self.make_top or (lambda: Top(self.interval, store)))().start()
        self.top = top
        try:
            while not stop.is_set():
                self._sample = sample = top.sample()
                self.app.call_from_thread(self._show, self._view(sample))
                stop.wait(self.interval)
        except RuntimeError:  # the app has ended
            pass
        finally:
            top.close()
            self.top = None

    def _show(self, view: list[Text]) -> None:
        """Draw the lines that changed (a widget a line: a quiet device costs nothing)."""
        if not self.is_attached:
            return
        box = self.query_one("#top-view", Vertical)
        if box.size.width:  # the next sample at the view's own width (the help panel open)
            self._width = max(20, box.size.width)
        shown = list(box.query_children(TopLine))
        for line, widget in zip(view, shown, strict=False):
            widget.show(line)
        if len(view) > len(shown):
            box.mount_all(TopLine(line) for line in view[len(shown):])
        for widget in shown[len(view):]:
            widget.remove()
