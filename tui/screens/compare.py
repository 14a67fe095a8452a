"""Runs side by side, in one scroll: their figures first (best marked), the plots of their
throughput and their loss curves overlaid, then the settings that differ between them;
laid out again to its width when that changes (the terminal's, or the help panel opened
beside it)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Label, Static

from accelbench.engine.core.summary import figures_help
from accelbench.engine.store.compare import Comparison, loss_curves, throughput
from accelbench.engine.view import layout, plot
from accelbench.engine.view import model as present
from accelbench.tui.messages import ComparisonWanted
from accelbench.tui.nav import NavScreen


class CompareBody(VerticalScroll):
    """The comparison's tables and plots; it says when its width changed (``Resized``)."""

    class Resized(Message):
        """The body's width changed (the screen's may not have: the help panel opened)."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class CompareScreen(NavScreen):
    """A comparison of the given runs, computed off the UI thread."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="compare.back",
                tooltip="Close the comparison")]

    crumb = "compare"

    def __init__(self, run_ids: list[str], title: str) -> None:
        super().__init__()
        self.run_ids = run_ids
        self.compare_title = title
        self._read: tuple[Comparison, list[dict]] | None = None  # as the app answered
        self._drawn_at = 0  # the body's width drawn at

    def compose(self) -> ComposeResult:
        yield Header()
        with CompareBody(id="compare-body"):
            table: DataTable = DataTable(id="compare-table", cursor_type="row",
                                         zebra_stripes=True)
            table.tooltip = figures_help("\n")  # what each figure is
            yield table
            yield Static("reading the runs…", id="compare-plots")
            yield Label("settings that differ", id="compare-settings-title", classes="section")
            yield DataTable(id="compare-settings", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.compare_title
        self.load()

    def load(self) -> None:
        """Ask for the comparison (computed off the UI thread), then show it."""
        self.post_message(ComparisonWanted(self.run_ids, self._show))

    def _show(self, cmp: Comparison, histories: list[dict]) -> None:
        self._read = cmp, histories
        self._draw()

    def on_compare_body_resized(self) -> None:
        if self.query_one(CompareBody).size.width != self._drawn_at:
            self._draw()

    def _draw(self) -> None:
        """The figures, the plots and the settings, at the body's width."""
        if self._read is None:
            return
        cmp, histories = self._read
        body_width = self._drawn_at = self.query_one(CompareBody).size.width
        room = layout.padded(body_width - 2)
        fill(self.query_one("#compare-table", DataTable), cmp, room, settings=False)
        fill(self.query_one("#compare-settings", DataTable), cmp, room, figures=False)
        self.query_one("#compare-settings-title").display = bool(cmp.params)
        self.query_one("#compare-settings").display = bool(cmp.params)
        width = max(20, body_width - 4)
        labels = present.comparison_labels(cmp)
        parts: list[RenderableType] = [Rule("throughput (samples/s)"),
                                       plot.bars(throughput(cmp, labels), width=width)]
        curves = loss_curves(cmp, histories, labels)
        if curves:
            parts += [Rule("loss"), plot.lines(curves, width=width, height=12, x_label="step")]
        self.query_one("#compare-plots", Static).update(Group(*parts))


def fill(table: DataTable, cmp: Comparison, room: int, settings: bool = True,
         figures: bool = True) -> None:
    """Write the comparison's ``settings`` or ``figures`` in ``table``: a row per run where
    that fits ``room``, else a column per run (in parts, one under the other, if need be)."""
    table.clear(columns=True)
    heads = present.comparison_heads(cmp, settings, figures)
    rows = present.comparison_rows(cmp, settings, figures)
    keys: list[str | None] = [run.id for run in cmp.runs]
    if not fits(heads, rows, room):  # the runs as columns; in parts if need be
        turned = layout.transpose(heads, rows)
        heads, rows = turned if fits(*turned, room) else stacked(*turned, room)
        keys = [None] * len(rows)
    for head in heads:  # knob names are the runs' own: Text
        table.add_column(head.rich())
    for key, cells in zip(keys, rows, strict=True):
        table.add_row(*(cell.rich() for cell in cells), key=key)


def fits(heads: list[present.Head], rows: list[list[present.Cell]], room: int) -> bool:
    """The table of ``heads`` and ``rows`` (its columns never dropped) fits in ``room``."""
    return layout.fit(heads, rows, room, keep=range(len(heads)), wrap=False).width <= room


def stacked(heads: list[present.Head], rows: list[list[present.Cell]],
            room: int) -> tuple[list[present.Head], list[list[present.Cell]]]:
    """A comparison with its runs as columns (``heads``, ``rows``: ``layout.transpose``'s)
    too wide for ``room``, in parts of as many runs as fit, one under the other in one
    table: each part after the first led by a row of its runs' heads."""
    def natural(j: int) -> int:
        return max([layout.text_width(heads[j].title)]
                   + [layout.text_width(row[j].text) for row in rows])

    run_width = max(natural(j) for j in range(1, len(heads)))
    per_part = max(1, (room - natural(0)) // (run_width + layout.GAP))
    starts = range(1, len(heads), per_part)

    def part(cells: list, start: int, blank) -> list:
        shown = cells[start:start + per_part]
        return [cells[0], *shown, *[blank] * (per_part - len(shown))]

    blank = present.Cell("")
    part_heads = [present.Cell(heads[0].title, "bold"),
                  *(present.Cell(h.title, f"bold {h.style}", "right") for h in heads[1:])]
    out_rows: list[list[present.Cell]] = []
    for start in starts:
        if start > 1:
            out_rows.append(part(part_heads, start, blank))
        out_rows += [part(row, start, blank) for row in rows]
    return part(heads, 1, present.Head("")), out_rows
