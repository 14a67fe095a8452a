"""An experiment (the runs of one sweep) live: its progress as a whole and per run.

Its journal, plan and index rows are read in worker threads, never on the UI thread.
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, ProgressBar, Static

from accelbench.engine.core.summary import figures_help
from accelbench.engine.run.experiment import Entry, Experiment
from accelbench.engine.run.follow import Follower
from accelbench.engine.view import layout
from accelbench.engine.view import model as present
from accelbench.tui.messages import CompareRuns, FollowersWanted, OpenRun
from accelbench.tui.nav import NavScreen
from accelbench.tui.screens.confirm import Confirm

REFRESH_S = 1.0


class ExperimentView(NavScreen):
    """One row per variant; its runs are followed live by the app."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Open run", id="experiment.open",
                tooltip="Open the selected variant's run in the run view"),
        Binding("v", "compare", "Compare", id="experiment.compare",
                tooltip="Compare the experiment's runs: figures, throughput, loss curves"),
        Binding("c", "cancel", "Cancel", id="experiment.cancel",
                tooltip="Start no more runs and cancel the live ones (asks first)"),
        Binding("escape", "back", "Back", id="experiment.back",
                tooltip="Close the experiment view (its runs go on)"),
    ]

    def __init__(self, experiment: Experiment) -> None:
        super().__init__()
        self.experiment = experiment
        self.crumb = f"experiment {experiment.info.name}"
        self.followers: dict[str, Follower] = {}  # of the variants' runs, from the app
        self.entries: list[Entry] = []  # as last read

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="experiment-banner")
        yield ProgressBar(total=self.experiment.info.total, show_eta=False, id="experiment-bar")
        table: DataTable[Text] = DataTable(id="experiment-table", cursor_type="row",
                                           zebra_stripes=True)
        table.tooltip = figures_help("\n")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(REFRESH_S, self.refresh_rows)

    @work(thread=True, exclusive=True, group="experiment-read")
    def refresh_rows(self) -> None:
        """Read the journal and the status off the UI thread, then redraw."""
        exp = self.experiment
        entries, status = exp.entries(), exp.status()
        self.app.call_from_thread(self._draw, entries, status)

    def _draw(self, entries: list[Entry], status: str) -> None:
        """Redraw from ``entries`` and the followers of the runs (asked of the app once)."""
        if not self.is_attached:  # closed while the worker read
            return
        self.entries = entries
        unfollowed = [e.run_id for e in entries if e.run_id and e.run_id not in self.followers]
        if unfollowed:
            self.post_message(FollowersWanted(unfollowed, self._followed))
        for follower in self.followers.values():
            follower.want(REFRESH_S)  # read as often as drawn
        states = [self.followers[e.run_id].state if e.run_id in self.followers else None
                  for e in entries]
        table = self.query_one(DataTable)
        rows = [present.entry_cells(e, state) for e, state in zip(entries, states, strict=True)]
        heads = present.experiment_heads()
        room = layout.padded((table.size.width or self.app.size.width) - 2)  # scroll bar
        shape = layout.fit(heads, rows, room, keep=range(len(heads)), wrap=False)
        if shape.width > room:  # narrower: long variants wrap, then the least telling
            shape = layout.fit(heads, rows, room)  # columns go (the help panel open)
        self._lay_out(shape)
        wraps = [heads[i].fit == "wrap" for i in shape.columns]
        cursor = table.cursor_row
        table.clear()
        for e, row in zip(entries, rows, strict=True):  # the ids shorter if need be
            table.add_row(*(wrapped(cell, width) if wrap else cell.rich() for cell, width, wrap
                            in zip(shape.row(row), shape.widths, wraps, strict=True)),
                          key=str(e.index), height=None)
        if entries:
            table.move_cursor(row=min(cursor, len(entries) - 1))
        statuses = [present.entry_status(e, state)
                    for e, state in zip(entries, states, strict=True)]
        self.query_one(ProgressBar).update(progress=present.progress_count(statuses))
        self.query_one("#experiment-banner", Static).update(
            present.experiment_banner(self.experiment.info.name, self.experiment.id, status,
                                      statuses))

    def _lay_out(self, shape: layout.Layout) -> None:
        """Set the table's columns up as ``shape`` says, when that changed."""
        table = self.query_one(DataTable)
        if [str(key.value) for key in table.columns] == [
                head.title for head in shape.heads(present.experiment_heads())]:
            return
        table.clear(columns=True)
        for head in shape.heads(present.experiment_heads()):
            table.add_column(head.rich(), key=head.title)

    def _followed(self, followers: dict[str, Follower]) -> None:
        self.followers.update(followers)
        self.refresh_rows()

    def _selected_run(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count or table.cursor_row >= len(self.entries):
            return None
        return self.entries[table.cursor_row].run_id

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_run()

    def action_open_run(self) -> None:
        run_id = self._selected_run()
        if run_id:
            self.post_message(OpenRun(run_id))
        else:
            self.notify("this variant has no run (yet)")

    @work(thread=True, group="experiment-compare")
    def action_compare(self) -> None:
        """Compare the runs started so far (read off the UI thread)."""
        run_ids = [info.id for info in self.experiment.runs()]
        self.post_message(CompareRuns(run_ids, self.experiment.info.name))

    @work(thread=True, group="experiment-cancel")
    def action_cancel(self) -> None:
        """Ask, then cancel, while the experiment runs (its status read off the UI thread)."""
        status = self.experiment.status()
        if status != "running":
            self.app.call_from_thread(self.notify, f"the experiment has already ended ({status})")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.notify(f"cancelling experiment {self.experiment.id} …")
                self.run_worker(self.experiment.cancel, thread=True, group="cancel")

        self.app.call_from_thread(
            self.app.push_screen, Confirm(f"Cancel experiment {self.experiment.info.name}?"),
            answered)


def wrapped(cell: present.Cell, width: int) -> Text:
    """A cell of a ``wrap`` column on lines of at most ``width`` cells (between words)."""
    text = "\n".join(textwrap.wrap(cell.text, width, break_long_words=False,
                                   break_on_hyphens=False)) or cell.text
    return present.Cell(text, cell.style, cell.justify).rich()
