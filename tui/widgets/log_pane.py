"""The log pane: bounded, batched, filterable, with follow on/off and long lines wrapped
(or cut, marked at the edge, and scrolled sideways)."""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Checkbox, Input, Log, Static

from accelbench.engine.core.events import Log as LogEvent
from accelbench.engine.core.text import printable
from accelbench.engine.run.follow import Follower

MAX_LINES = 5_000
STDERR_MARK = "▌"  # in front of the job's stderr lines
CUT_MARK = "…"  # at the right edge of a line that goes on past it
CACHED_LINES = 200  # rendered lines kept: a tall screenful (each is ~16 objects the GC walks)
INDENT = "  "  # in front of a wrapped line's continuations
MAX_PIECES = 100  # screen lines one log line wraps onto at most (the rest: cut, marked)


def wrapped(line: str, width: int) -> list[str]:
    """``line`` in pieces of ``width`` cells at most, the continuations indented; at most
    ``MAX_PIECES``, the last marked ``CUT_MARK`` where the line goes on."""
    if len(line) <= width and cell_len(line) <= width:
        return [line]
    room = max(1, width - len(INDENT))
    text = line[:width + room * (MAX_PIECES - 1)]  # enough for MAX_PIECES, not a megabyte
    head = chop_cells(text[:width], width)[0]
    rest = chop_cells(text[len(head):], room)[:MAX_PIECES - 1] if text[len(head):] else []
    pieces = [head, *(INDENT + part for part in rest)]
    if len(head) + sum(map(len, rest)) < len(line):
        pieces[-1] = pieces[-1][:-1] + CUT_MARK
    return pieces


class GrowingLog(Log):
    """A Log whose growth costs a repaint of its new lines, not a layout of the whole screen.

    Log's scrollable size is a layout reactive, so each batch of lines made Textual lay out
    the run view again (20-30 ms on the event loop). Only the log's scroll range depends on
    it: that is updated here, and a layout happens only when a scrollbar comes or goes.
    Log also renders every visible line again at each scroll (its line cache is filled only
    while text is selected) and works out its style for each line: here a line is
    rendered once per style (the last ``CACHED_LINES`` kept), and the style once per frame.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
    _strips_style: Style | None = None
    _frame_style: Style | None = None

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._render_line_cache.maxsize = CACHED_LINES

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None

    @property
    def rich_style(self) -> Style:
        return super().rich_style if self._frame_style is None else self._frame_style

    def watch_virtual_size(self, size: Size) -> None:
        if self.is_mounted:
            self._scroll_update(size)  # a scrollbar shown or hidden: that one lays out

    def _render_line_strip(self, y: int, rich_style: Style) -> Strip:
        if self.text_selection is not None:
            return super()._render_line_strip(y, rich_style)
        if rich_style != self._strips_style:  # the cache holds lines of one style only
            self._render_line_cache.clear()
            self._strips_style = rich_style
        strip = self._render_line_cache.get(y)
        if strip is None:
            strip = self._render_line_cache[y] = super()._render_line_strip(y, rich_style)
        return strip


class MarkedLog(GrowingLog):
    """The log pane's log: long lines wrapped by the pane, or cut (one line a line,
    scrolled sideways to read a long one), a line that goes on past the right edge
    marked there (``CUT_MARK``). It says when its width changed (``Resized``)."""

    class Resized(Message):
        """The log's width changed: wrapped lines are wrapped again."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())

    @property
    def wrap_width(self) -> int:
        """The width lines wrap at: the log's, less its vertical scroll bar's room (kept
        whether it shows or not: lines wrapped before it came would go past the edge)."""
        return self.size.width - self.styles.scrollbar_size_vertical

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width  # less its scroll bar
        if width > 1 and scroll_y + y < len(self.lines) and self._goes_on(
                self.lines[scroll_y + y], scroll_x + width):
            mark = Strip([Segment(CUT_MARK, self.rich_style + Style(dim=True))], 1)
            strip = Strip.join([strip.crop(0, width - 1), mark, strip.crop(width)])
        return strip

    @staticmethod
    def _goes_on(line: str, edge: int) -> bool:
        """``line`` is wider than ``edge`` cells (measured on a prefix: a line may be a
        megabyte long, and this is asked at every redraw)."""
        head = line[:4 * edge + 8]
        return len(head) < len(line) or cell_len(head.expandtabs()) > edge


class FilterInput(Input):
    """The log filter: esc clears it and leaves it (the next esc leaves the screen)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Clear filter", id="log.clear_filter",
                tooltip="Clear the filter and go back to the log")]

    def action_leave(self) -> None:
        self.clear()
        self.screen.set_focus(self.screen.query_one(Log))


class LogPane(Vertical):
    """Shows a follower's log lines; written in batches, at most ``MAX_LINES`` kept;
    long lines wrapped (``wrap``) or cut."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.follower: Follower | None = None
        self.seq = 0
        self.filter = ""
        self.redraw = ""  # the line the job is redrawing (a progress bar), as shown
        self.wrap = True
        self.kept: deque[str] = deque(maxlen=MAX_LINES)  # the lines shown, as shown, unwrapped
        self._wrapped_at = 0  # the width the log's lines are wrapped at (0: not wrapped)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="log-controls"):
            yield FilterInput(placeholder="filter (/)", compact=True, id="log-filter")
            yield Checkbox("follow", value=True, compact=True, id="log-follow")
            yield Checkbox("wrap", value=True, compact=True, id="log-wrap")
        yield MarkedLog(max_lines=MAX_LINES, highlight=False, auto_scroll=True, id="log")
        redraw = Static(id="log-redraw")
        redraw.display = False
        yield redraw

    def show(self, follower: Follower) -> None:
        """Show ``follower``'s run: its kept lines now, new ones at each :meth:`pull`."""
        self.follower = follower
        self.seq = follower.log_seq
        self.kept.clear()
        self.kept.extend(self._shown(list(follower.logs)[-MAX_LINES:]))
        self._write_again()

    def pull(self) -> int:
        """Write the lines fed since the last pull, in one batch; returns how many."""
        if self.follower is None:
            return 0
        self._show_redraw(self.follower.state.redraw)
        lines, self.seq = self.follower.logs_since(self.seq)
        if not lines:
            return 0
        shown = self._shown(lines[-MAX_LINES:])
        self.kept.extend(shown)
        if len(lines) >= MAX_LINES:  # a flood: only the last screenful of history survives anyway
            self._write_again()
        else:
            self._write(shown)
        return len(lines)

    def _write(self, lines: list[str]) -> None:
        """Write ``lines`` under the log's, wrapped at its width if ``wrap``."""
        log = self.query_one(MarkedLog)
        width = self._wrapped_at = log.wrap_width if self.wrap else 0
        log.write_lines([piece for line in lines for piece in wrapped(line, width)]
                        if width > 0 else lines)

    def _write_again(self) -> None:
        """Write every kept line anew (the filter, the wrap or the width changed)."""
        self.query_one(MarkedLog).clear()
        self._write(list(self.kept))

    def set_wrap(self, wrap: bool) -> None:
        """Wrap long lines, or cut them (marked at the edge, scrolled sideways)."""
        self.query_one("#log-wrap", Checkbox).value = wrap

    def on_marked_log_resized(self, event: MarkedLog.Resized) -> None:
        event.stop()
        if self.wrap and self.query_one(MarkedLog).wrap_width != self._wrapped_at:
            self._write_again()

    def _show_redraw(self, text: str) -> None:
        """The newest state of the line being redrawn, under the log, until it ends."""
        if text == self.redraw:
            return
        self.redraw = text
        line = self.query_one("#log-redraw", Static)
        line.display = bool(text)
        line.update(Text(printable(text), no_wrap=True, overflow="ellipsis"))

    def _shown(self, lines: list[LogEvent]) -> list[str]:
        needle = self.filter.lower()
        texts = [printable(e.text) if e.stream == "stdout" else f"{STDERR_MARK}{printable(e.text)}"
                 for e in lines]  # the job's output enters the app here: through the gate
        return [t for t in texts if needle in t.lower()] if needle else texts

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter = event.value
        if self.follower is not None:
            self.show(self.follower)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        if event.checkbox.id == "log-wrap":
            self.wrap = event.value
            self._write_again()
            return
        self.query_one(Log).auto_scroll = event.value
        if event.value:
            self.query_one(Log).scroll_end(animate=False)
