"""Runs side by side: the knobs that differ and the figures (best marked), then plots of
throughput against those knobs and the runs' loss curves overlaid."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from accelbench.engine import layout, plot, present
from accelbench.engine.compare import Comparison, loss_curves, throughput
from accelbench.engine.summary import figures_help
from accelbench.tui.messages import ComparisonWanted
from accelbench.tui.nav import NavScreen


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

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="compare-body"):
            table: DataTable = DataTable(id="compare-table", cursor_type="row",
                                         zebra_stripes=True)
            table.tooltip = figures_help("\n")  # what each figure is
            yield table
            yield Static("reading the runs…", id="compare-plots")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.compare_title
        self.load()

    def load(self) -> None:
        """Ask for the comparison (computed off the UI thread), then show it."""
        self.post_message(ComparisonWanted(self.run_ids, self._show))

    def _show(self, cmp: Comparison, histories: list[dict]) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        heads, rows = present.comparison_heads(cmp), present.comparison_rows(cmp)
        keys: list[str | None] = [run.id for run in cmp.runs]
        turned = layout.transpose(heads, rows)
        room = layout.padded(self.size.width - 2)
        if not fits(heads, rows, room) and fits(*turned, room):  # the runs as columns
            heads, rows = turned
            keys = [None] * len(rows)
        for head in heads:  # knob names are the runs' own: Text
            table.add_column(head.rich())
        for key, cells in zip(keys, rows, strict=True):
            table.add_row(*(cell.rich() for cell in cells), key=key)
        width = max(40, self.size.width - 4)
        parts: list[RenderableType] = [Rule("throughput (samples/s)"),
                                       plot.bars(throughput(cmp), width=width)]
        curves = loss_curves(cmp, histories)
        if curves:
            parts += [Rule("loss"), plot.lines(curves, width=width, height=12, x_label="step")]
        self.query_one("#compare-plots", Static).update(Group(*parts))


def fits(heads: list[present.Head], rows: list[list[present.Cell]], room: int) -> bool:
    """The table of ``heads`` and ``rows`` (its columns never dropped) fits in ``room``."""
    return layout.fit(heads, rows, room, keep=range(len(heads)), wrap=False).width <= room
