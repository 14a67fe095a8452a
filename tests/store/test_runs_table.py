"""The runs table's cell updates: the columns' widths end as DataTable's own measuring
(``update_cell(update_width=True)``) leaves them, whichever cells narrow, widen or stay."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from accelbench.tui.screens.runs import RunsTable

STEPS = [  # (row, new loss) updates, one refresh each, and the loss column's width after
    ([("a", "0.25"), ("b", "0.125")], 5),  # wider
    ([("a", "0.35")], 5),  # the same width: not measured again
    ([("b", "0.0625")], 6),
    ([("b", "0.5")], 4),  # narrower: the column narrows to its widest cell
    ([("a", "1"), ("b", "2"), ("c", "3")], 4),  # narrower than the title: not measured
    ([("c", "0.03125")], 7),
]


class Tables(App):
    def compose(self) -> ComposeResult:
        yield RunsTable(id="ours")
        yield RunsTable(id="datatable")


async def test_updated_cells_leave_the_widths_datatable_measures():
    app = Tables()
    async with app.run_test(size=(80, 24)) as pilot:
        ours, theirs = app.query_one("#ours", RunsTable), app.query_one("#datatable", RunsTable)
        for table in (ours, theirs):
            table.add_column(Text("loss"), key="loss")
            table.add_column(Text("run"), key="run")
            for row, loss in (("a", "0.5"), ("b", "0.25"), ("c", "0.0001234")):
                table.add_row(Text(loss), Text(f"run {row}"), key=row)
        await pilot.pause()
        for table in (ours, theirs):  # another page
            table.clear()
            for row, loss in (("a", "0.5"), ("b", "0.25"), ("c", "0.75")):
                table.add_row(Text(loss), Text(f"run {row}"), key=row)
        await pilot.pause()
        measured = {ours: 0, theirs: 0}
        for table in (ours, theirs):
            def counted(cells, table=table, measure=table._update_column_widths):
                measured[table] += 1
                measure(cells)
            table._update_column_widths = counted  # type: ignore[method-assign]
        for step, width in STEPS:
            ours.update_cells([(row, "loss", Text(loss)) for row, loss in step])
            for row, loss in step:
                theirs.update_cell(row, "loss", Text(loss), update_width=True)
            await pilot.pause()
            assert ours.columns["loss"].content_width == width  # type: ignore[index]
            assert theirs.columns["loss"].content_width == width  # type: ignore[index]
            assert [str(v) for v in ours.get_column("loss")] == [
                str(v) for v in theirs.get_column("loss")]
        assert measured == {ours: 4, theirs: len(STEPS)}
