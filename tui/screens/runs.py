"""Every run in a sortable table, a page at a time; open one (live or finished), cancel a
live one.

The table holds one page of rows (50), read from the index in the order shown (the index
sorts by any column), so the screen costs the same with 100 runs or 100,000; moving past
the first or last row turns the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip
from textual.widgets import DataTable, Footer, Header
from textual.widgets.data_table import ColumnKey, RowKey

from accelbench.engine.core.job import RunInfo
from accelbench.engine.store.runs import RunOrder, RunQuery
from accelbench.engine.view import layout
from accelbench.engine.view import model as present
from accelbench.tui.messages import CancelRun, CompareRuns, OpenRun, RunsPage, RunsWanted
from accelbench.tui.nav import NavScreen

SegmentLines = list[list[Segment]]
COLUMNS = present.SCREEN_RUN_COLUMNS
SORTABLE = [column for column in COLUMNS if column in present.RUN_SORTS]  # (s's cycle)
REFRESH_S = 2.0
PAGE = 50  # rows in the table at a time (as `accelbench runs` prints)
DESCENDING = ("started", present.RATE, present.ACCURACY)  # the columns first sorted highest first
SORT_MARK = {True: "↓", False: "↑"}  # by descending or not
CELLS_KEPT = 10_000  # rendered cells (and lines) a table keeps: its page, in a few looks


def _width(cell: Text) -> int:
    """A cell's width as DataTable measures it (``Text.__rich_measure__``): its widest
    line's."""
    return max((cell_len(line) for line in cell.plain.splitlines()), default=0)


class RunsTable(DataTable[Text]):
    """A page of runs: moving on from its last row, or back from its first, asks for the
    next or previous page (``Turn``)."""

    class Turn(Message):
        """Show the page ``step`` pages on (negative: back); ``end``: the first or last."""

        def __init__(self, step: int, end: bool = False) -> None:
            super().__init__()
            self.step, self.end = step, end

    class Resized(Message):
        """The table's width changed (the screen's may not have: the help panel opened)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._cells: dict[tuple, tuple[object, SegmentLines]] = {}  # see _render_cell
        self._lines: dict[tuple, tuple[tuple, Strip]] = {}  # see _render_line
        super().__init__(*args, **kwargs)  # (which clears the caches)

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> SegmentLines:
        """A cell's lines (a head's too), rendered again only when its value or look changed
        (DataTable renders every cell again after any update: a live run's figures change
        often)."""
        row_key = self._row_locations.get_key(row_index)  # None: the header
        column_key = self._column_locations.get_key(column_index)  # None: a row label
        if column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        value = (self.columns[column_key].label if row_key is None
                 else self._data[row_key][column_key])
        key = (row_index, column_index, base_style, width, cursor, hover,
               self._show_hover_cursor, self.show_cursor, self._pseudo_class_state)
        kept = self._cells.get(key)
        if kept is None or kept[0] is not value:
            if len(self._cells) > CELLS_KEPT:
                self._cells.clear()
            kept = self._cells[key] = (value, super()._render_cell(
                row_index, column_index, base_style, width, cursor, hover))
        return kept[1]

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """A line of the table, rendered again only when its row's values or look changed
        (as :meth:`_render_cell`)."""
        try:
            row_key, line_no = self._get_offsets(y)
        except LookupError:
            return super()._render_line(y, x1, x2, base_style)
        if row_key == self._header_row_key:
            return super()._render_line(y, x1, x2, base_style)
        values = tuple(self._data[row_key].values())
        key = (y, x1, x2, self.size.width, row_key, line_no, self.cursor_coordinate,
               self.hover_coordinate, base_style, self.cursor_type, self.show_cursor,
               self._show_hover_cursor, self._pseudo_class_state,
               tuple(column.get_render_width(self) for column in self.ordered_columns))
        kept = self._lines.get(key)
        if kept is None or len(kept[0]) != len(values) or any(
                a is not b for a, b in zip(kept[0], values, strict=True)):
            if len(self._lines) > CELLS_KEPT:
                self._lines.clear()
            kept = self._lines[key] = (values, super()._render_line(y, x1, x2, base_style))
        return kept[1]

    def on_resize(self) -> None:
        self.post_message(self.Resized())

    def update_cells(self, cells: list[tuple[str, str, Text]]) -> None:
        """Update these cells (row key, column key, value), the columns' widths as
        ``update_cell(update_width=True)`` leaves them; a column is measured again only
        where its width changes (DataTable measures every cell of a column in which one
        got narrower, a live figure's at every refresh)."""
        known = not (self._updated_cells or self._require_update_dimensions)
        for row_key, column_key, value in cells:
            self.update_cell(row_key, column_key, value, update_width=not known)
        if known:
            resized = {key for key in {key for _, key, _ in cells}
                       if self.columns[ColumnKey(key)].content_width != self._widest(key)}
            for row_key, column_key, value in cells:
                if column_key in resized:
                    self.update_cell(row_key, column_key, value, update_width=True)

    def _widest(self, key: str) -> int:
        """The width DataTable would measure column ``key`` at: its widest cell or title."""
        column = self.columns[ColumnKey(key)]
        return max([_width(column.label), *(_width(row[column.key])
                                            for row in self._data.values())])

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """As DataTable's, then its rendered rows dropped when a column's width changed:
        DataTable keys them without the widths (a table wider than its view kept rows
        rendered at its titles' widths, cut)."""
        widths = [column.get_render_width(self) for column in self.ordered_columns]
        super()._update_dimensions(new_rows)
        if widths != [column.get_render_width(self) for column in self.ordered_columns]:
            self._update_count += 1
            self.refresh()

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._cells.clear()
        self._lines.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cells.clear()
        self._lines.clear()

    def _at(self, step: int) -> bool:
        """The cursor is on the page's last row (``step`` > 0) or its first."""
        return self.cursor_row >= self.row_count - 1 if step > 0 else self.cursor_row <= 0

    def action_cursor_down(self) -> None:
        if self._at(1):
            self.post_message(self.Turn(1))
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self._at(-1):
            self.post_message(self.Turn(-1))
        else:
            super().action_cursor_up()

    def action_page_down(self) -> None:
        if self._at(1):
            self.post_message(self.Turn(1))
        else:
            super().action_page_down()

    def action_page_up(self) -> None:
        if self._at(-1):
            self.post_message(self.Turn(-1))
        else:
            super().action_page_up()

    def action_scroll_top(self) -> None:
        self.post_message(self.Turn(-1, end=True))

    def action_scroll_bottom(self) -> None:
        self.post_message(self.Turn(1, end=True))


class RunsScreen(NavScreen):
    """The run history; live runs first on opening. Its columns are those that fit the
    width (``layout.fit``, by ``present.SCREEN_RUN_NARROW``), whatever the sort (the sorted one
    is marked, and named in the sub-title); live runs show their progress and ETA."""

    crumb = "Runs"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Open", id="runs.open",
                tooltip="Open the run in the run view"),
        Binding("c", "cancel_run", "Cancel", id="runs.cancel",
                tooltip="Stop the selected live run (asks first)"),
        Binding("s", "cycle_sort", "Sort", id="runs.sort",
                tooltip="Sort by the next column (click a header to sort by it)"),
        Binding("r", "reverse_sort", "Reverse", id="runs.reverse", show=False,
                tooltip="Reverse the order (the sub-title says it: ↓ highest first)"),
        Binding("space", "toggle_mark", "Mark", id="runs.mark",
                tooltip="Mark or unmark the selected run for a comparison"),
        Binding("v", "compare", "Compare", id="runs.compare",
                tooltip="Compare the marked runs (none marked: the selected run's experiment)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort_column = "started"
        self.sort_reverse = True
        self.first = 0  # the page's first row among every run
        self.total = 0
        self._raw: dict[str, tuple] = {}  # the page's rows (present.run_values), in order
        self._progress: dict[str, str] = {}  # the page's runs' progress (present.run_progress)
        self._rows: dict[str, list[Text]] = {}  # the cells the table shows, by run
        self._layout: tuple = ()  # the columns shown, their cells' forms, the sort marked
        self._shape = layout.Layout((), (), ())  # the columns shown and their forms
        self._infos: dict[str, RunInfo] = {}
        self._seen: object = None  # what the page shown is as of (see RunsWanted)
        self._cursor: tuple[str | None, int] | None = None  # the next page's cursor: on
        # the run with this id, else on this row
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield RunsTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self._lay_out()
        self.reload()
        self.set_interval(REFRESH_S, self.reload)

    def order(self) -> RunOrder:
        """The order shown: by the sort column, live runs first when by start time."""
        return RunOrder(present.RUN_SORTS[self.sort_column], self.sort_reverse,
                        live_first=self.sort_column == "started")

    def reload(self) -> None:
        """Ask for the page (the app reads the index off the UI thread), then redraw: only
        when the index or a followed run changed since the last time."""
        self.post_message(RunsWanted(self._show, self._seen, order=self.order(),
                                     offset=self.first, limit=PAGE, marked=self.marked))

    def _turn(self, offset: int, run_id: str | None, row: int) -> None:
        """Show the page from ``offset`` on, the cursor on run ``run_id`` if it is on it,
        else on ``row`` (-1: the last)."""
        self.first, self._cursor, self._seen = max(0, offset), (run_id, row), None
        self.reload()

    def _show(self, page: RunsPage | None, seen: object) -> None:
        if page is not None and (page.order, page.offset) != (self.order(), self.first):
            return  # an answer to an earlier question (another order or page)
        self._seen = seen
        if page is None:
            return
        if not page.runs and page.offset and page.total:  # runs went: show the last page
            self._turn((page.total - 1) // PAGE * PAGE, None, -1)
            return
        self.total = page.total
        self._raw = {info.id: present.run_values(info, live) for info, live in page.runs}
        self._progress = {info.id: present.run_progress(info, live) for info, live in page.runs}
        self._infos = {info.id: info for info, _ in page.runs}
        self.marked = list(page.marked)
        self._redraw_table()

    def _heads(self) -> list[present.Head]:
        """The columns' heads, the sorted one's title marked with its order."""
        mark = f" {SORT_MARK[self.sort_reverse]}"
        return [replace(head, title=head.title + mark) if head.title == self.sort_column
                else head for head in present.run_heads(progress=True)]

    def _wanted_layout(self) -> layout.Layout:
        """The columns that fit the table's width (the page's cells measured) and their
        cells' forms (a run id by a shorter suffix); the same whatever the sort (the
        sub-title names the order)."""
        rows = [self._cells(rid) for rid in self._raw]
        room = layout.padded((self.query_one(RunsTable).size.width or self.app.size.width)
                             - 2)  # its scroll bar
        # fitted unmarked, in the room left by the mark the sorted column's title takes
        return layout.fit(present.run_heads(progress=True), rows, room - len(SORT_MARK[True]) - 1,
                          wrap=False)

    def _cells(self, run_id: str) -> list[present.Cell]:
        """A run's cells, its progress among them."""
        return present.run_cells(self._raw[run_id], run_id in self.marked,
                                 self._progress[run_id])

    def _layout_key(self, shape: layout.Layout) -> tuple:
        """What the table's columns are set up for: shown, in which forms, sorted how."""
        return shape.columns, shape.forms, self.sort_column, self.sort_reverse

    def _lay_out(self) -> None:
        """Set the columns up as ``_wanted_layout`` says, when that changed; the rows are
        then written anew."""
        shape = self._wanted_layout()
        if self._layout_key(shape) == self._layout:
            return
        table = self.query_one(RunsTable)
        self._layout, self._shape = self._layout_key(shape), shape
        if self._cursor is None:
            self._cursor = (self._selected_id(), table.cursor_row)
        table.clear(columns=True)
        for i, head in zip(shape.columns, shape.heads(self._heads()), strict=True):
            table.add_column(Text(head.title), key=COLUMNS[i])
        self._rows = {}

    def on_runs_table_resized(self) -> None:
        if self._layout_key(self._wanted_layout()) != self._layout:
            self._redraw_table()

    def _redraw_table(self) -> None:
        """Write the page's rows, keeping the cursor on its run (or where it was asked);
        when the page holds the same runs in the same order, only the cells that changed."""
        self._lay_out()
        table = self.query_one(RunsTable)
        keys = [COLUMNS[i] for i in self._shape.columns]
        rows = {rid: [cell.rich() for cell in self._shape.row(self._cells(rid))]
                for rid in self._raw}
        if self._cursor is None and list(rows) == list(self._rows):
            table.update_cells([(rid, key, cell) for rid, cells in rows.items()
                                for key, cell, shown in zip(keys, cells, self._rows[rid],
                                                            strict=True) if cell != shown])
            self._rows = rows
            return
        run_id, row = self._cursor or (self._selected_id(), table.cursor_row)
        self._cursor = None
        table.clear()
        for rid, cells in rows.items():
            table.add_row(*cells, key=rid)
        self._rows = rows
        if run_id in self._raw:
            row = table.get_row_index(run_id)
        table.move_cursor(row=row % table.row_count if table.row_count else 0)
        self._show_position()

    def _show_position(self) -> None:
        """The sub-title: where the cursor is among every run, and the order."""
        table = self.query_one(RunsTable)
        where = (f"run {self.first + table.cursor_row + 1:,} of {self.total:,}"
                 if table.row_count else "no runs")
        self.sub_title = (f"{where}, sorted by {self.sort_column}"
                          f" {SORT_MARK[self.sort_reverse]} (s: next, r: reverse)")

    def on_data_table_row_highlighted(self) -> None:
        self._show_position()

    def on_runs_table_turn(self, event: RunsTable.Turn) -> None:
        pages = max(0, (self.total - 1) // PAGE)
        page = self.first // PAGE
        to = (pages if event.step > 0 else 0) if event.end else page + event.step
        if 0 <= to <= pages and to != page:
            # back a page, or on to the last: on its last row; else on its first
            self._turn(to * PAGE, None, -1 if (event.step > 0) == event.end else 0)
        elif event.end:
            self.query_one(RunsTable).move_cursor(row=-1 if event.step > 0 else 0)

    def _selected_id(self) -> str | None:
        table = self.query_one(RunsTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _sort(self, column: str, reverse: bool) -> None:
        """Sort by ``column``, from the first page (the selected run stays selected if
        it is on it)."""
        self.sort_column, self.sort_reverse = column, reverse
        self._turn(0, self._selected_id(), 0)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        column = str(event.column_key.value)
        if column not in SORTABLE:
            self.notify(f"runs cannot be sorted by {column}", severity="warning")
            return
        self._sort(column, not self.sort_reverse if column == self.sort_column
                   else column in DESCENDING)

    def action_cycle_sort(self) -> None:
        column = SORTABLE[(SORTABLE.index(self.sort_column) + 1) % len(SORTABLE)]
        self._sort(column, column in DESCENDING)
        self.notify(f"sorted by {column}")

    def action_reverse_sort(self) -> None:
        self._sort(self.sort_column, not self.sort_reverse)
        self.notify(f"sorted by {self.sort_column} {SORT_MARK[self.sort_reverse]}")

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
            self.query_one(RunsTable).action_cursor_down()

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
        self.post_message(RunsWanted(self._compare_experiment, query=RunQuery(
            experiment=exp_id), order=RunOrder(descending=False)))

    def _compare_experiment(self, page: RunsPage | None, seen: object) -> None:
        if page is not None:
            self.post_message(CompareRuns([info.id for info, _ in page.runs], "experiment"))

    def action_cancel_run(self) -> None:
        run_id = self._selected_id()
        if run_id:
            self.post_message(CancelRun(run_id))
