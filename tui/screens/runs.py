"""Every run in a sortable table; open one (live or finished), cancel a live one."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header

from accelbench.engine import present
from accelbench.engine.store import RunInfo
from accelbench.tui.messages import CancelRun, CompareRuns, OpenRun, Runs, RunsWanted

COLUMNS = present.RUN_COLUMNS
REFRESH_S = 2.0


def _sort_key(value):
    return (value is None, value if value is not None else 0)


class RunsScreen(Screen):
    """The run history; live runs first on opening."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Open", id="runs.open",
                tooltip="Open the run in the run view"),
        Binding("c", "cancel_run", "Cancel run", id="runs.cancel",
                tooltip="Stop the selected live run (asks first)"),
        Binding("s", "cycle_sort", "Sort", id="runs.sort",
                tooltip="Sort by the next column (click a header to sort by it)"),
        Binding("space", "toggle_mark", "Mark", id="runs.mark",
                tooltip="Mark or unmark the selected run for a comparison"),
        Binding("v", "compare", "Compare", id="runs.compare",
                tooltip="Compare the marked runs (none marked: the selected run's experiment)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort_column = "started"
        self.sort_reverse = True
        self._raw: dict[str, tuple] = {}
        self._infos: dict[str, RunInfo] = {}
        self._seen: object = None  # what the runs shown are as of (see RunsWanted)
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable[Text] = DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        for head in present.run_heads():
            table.add_column(head.rich(), key=head.title)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "runs"
        self.reload()
        self.set_interval(REFRESH_S, self.reload)

    def reload(self) -> None:
        """Ask for the runs (the app reads the index off the UI thread), then redraw: only
        when the index or a followed run changed since the last time."""
        self.post_message(RunsWanted(self._show, self._seen))

    def _show(self, runs: Runs | None, seen: object) -> None:
        self._seen = seen
        if runs is None:
            return
        self._raw = {info.id: present.run_values(info, live) for info, live in runs}
        self._infos = {info.id: info for info, _ in runs}
        self.marked = [rid for rid in self.marked if rid in self._raw]
        self._redraw_table()

    def _redraw_table(self) -> None:
        """Write the rows sorted by the chosen column (live runs first when by start time)."""
        table, raw = self.query_one(DataTable), self._raw
        selected = self._selected_id()
        index = COLUMNS.index(self.sort_column)
        order = sorted(raw, key=lambda rid: _sort_key(raw[rid][index]), reverse=self.sort_reverse)
        if self.sort_column == "started":
            order.sort(key=lambda rid: raw[rid][0] not in ("running", "queued"))
        table.clear()
        for rid in order:
            cells = present.run_cells(raw[rid], marked=rid in self.marked)
            table.add_row(*(cell.rich() for cell in cells), key=rid)
        if selected in raw:
            table.move_cursor(row=table.get_row_index(selected))

    def _selected_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        column = str(event.column_key.value)
        self.sort_reverse = not self.sort_reverse if column == self.sort_column else column in (
            "started", "samples/s", "acc %")
        self.sort_column = column
        self._redraw_table()

    def action_cycle_sort(self) -> None:
        self.sort_column = COLUMNS[(COLUMNS.index(self.sort_column) + 1) % len(COLUMNS)]
        self.sort_reverse = self.sort_column in ("started", "samples/s", "acc %")
        self._redraw_table()
        self.notify(f"sorted by {self.sort_column}")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        assert event.row_key.value is not None  # every row is keyed by its run's id
        self.post_message(OpenRun(event.row_key.value))

    def action_open_run(self) -> None:
        run_id = self._selected_id()
        if run_id:
            self.post_message(OpenRun(run_id))

    def action_toggle_mark(self) -> None:
        run_id = self._selected_id()
        if run_id:
            if run_id in self.marked:
                self.marked.remove(run_id)
            else:
                self.marked.append(run_id)
            self._redraw_table()
            self.query_one(DataTable).action_cursor_down()

    def action_compare(self) -> None:
        if self.marked:
            self.post_message(CompareRuns(list(self.marked), f"{len(self.marked)} marked runs"))
            return
        run_id = self._selected_id()
        exp_id = self._infos[run_id].experiment if run_id else None
        if exp_id is None:
            self.notify("mark runs with space first (or select a run of an experiment)",
                        severity="warning")
            return
        runs = sorted((i for i in self._infos.values() if i.experiment == exp_id),
                      key=lambda i: i.created)
        self.post_message(CompareRuns([i.id for i in runs], "experiment"))

    def action_cancel_run(self) -> None:
        run_id = self._selected_id()
        if run_id:
            self.post_message(CancelRun(run_id))
