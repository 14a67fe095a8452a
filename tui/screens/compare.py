"""Runs side by side: the knobs that differ and the figures (best marked), then plots of
throughput against those knobs and the runs' loss curves overlaid."""

from __future__ import annotations

from rich.console import Group
from rich.rule import Rule
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from accelbench.engine import format as fmt
from accelbench.engine import plot
from accelbench.engine.compare import Comparison, compare, loss_curves, throughput


class CompareScreen(Screen):
    """A comparison of the given runs, computed off the UI thread."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="compare.back", tooltip="Back")]

    def __init__(self, run_ids: list[str], title: str) -> None:
        super().__init__()
        self.run_ids = run_ids
        self.compare_title = title

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="compare-body"):
            yield DataTable(id="compare-table", cursor_type="row", zebra_stripes=True)
            yield Static("reading the runs…", id="compare-plots")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"compare: {self.compare_title}"
        self.load()

    @work(thread=True, exclusive=True, group="compare")
    def load(self) -> None:
        """Fold each run (for its loss curve) and build the comparison."""
        handles = [self.app.runner.open(run_id) for run_id in self.run_ids]
        states = [handle.state() for handle in handles]  # an unreadable run says so in info
        cmp = compare([handle.info for handle in handles])
        self.app.call_from_thread(self._show, cmp, [s.metric_history if s else {}
                                                    for s in states])

    def _show(self, cmp: Comparison, histories: list[dict]) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column("run")
        for param in cmp.params:  # keys and values are the runs' own: Text, never markup
            table.add_column(Text(param))
        for column in cmp.columns:
            table.add_column(Text(column.title))
        for i, run in enumerate(cmp.runs):
            cells: list = [run.id.rsplit("-", 1)[-1]]
            cells += [Text(str(cmp.values[i].get(p, "-"))) for p in cmp.params]
            for column in cmp.columns:
                text = fmt.number(cmp.values[i].get(column.key))
                cells.append(Text(f"{text} ★", style="bold green") if cmp.is_best(i, column.key)
                             else Text(text, justify="right"))
            table.add_row(*cells, key=run.id)
        width = max(40, self.size.width - 4)
        parts = [Rule("throughput (samples/s)"), plot.bars(throughput(cmp), width=width)]
        curves = loss_curves(cmp, histories)
        if curves:
            parts += [Rule("loss"), plot.lines(curves, width=width, height=12, x_label="step")]
        self.query_one("#compare-plots", Static).update(Group(*parts))
