"""An experiment (the runs of one sweep) live: its progress as a whole and per run."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, ProgressBar, Static

from accelbench.engine import format as fmt
from accelbench.engine.events import FINAL_STATUSES
from accelbench.engine.experiment import Experiment
from accelbench.tui.screens.run_view import PHASE_STYLE

COLUMNS = ("#", "variant", "status", "progress", "samples/s", "loss", "acc %", "run")
REFRESH_S = 1.0
ENDED = (*FINAL_STATUSES, "skipped")


class ExperimentView(Screen):
    """One row per variant; its runs are followed live by the app."""

    BINDINGS = [
        Binding("enter", "open_run", "Open run", id="experiment.open",
                tooltip="Open the selected variant's run in the run view"),
        Binding("v", "compare", "Compare", id="experiment.compare",
                tooltip="Compare the experiment's runs: figures, throughput, loss curves"),
        Binding("c", "cancel", "Cancel", id="experiment.cancel",
                tooltip="Start no more runs and cancel the live ones (asks first)"),
        Binding("escape", "app.pop_screen", "Back", id="experiment.back", tooltip="Back"),
    ]

    def __init__(self, experiment: Experiment) -> None:
        super().__init__()
        self.experiment = experiment

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="experiment-banner")
        yield ProgressBar(total=self.experiment.info.total, show_eta=False, id="experiment-bar")
        table = DataTable(id="experiment-table", cursor_type="row", zebra_stripes=True)
        for column in COLUMNS:
            table.add_column(column, key=column)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"experiment {self.experiment.info.name}"
        self.refresh_rows()
        self.set_interval(REFRESH_S, self.refresh_rows)

    def refresh_rows(self) -> None:
        """Redraw from the journal and the followers of the runs."""
        exp, app = self.experiment, self.app
        entries = exp.entries()
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        statuses = []
        for e in entries:
            state = None
            if e.run_id:
                follower = app.followers.get(e.run_id) or app.follower(app.runner.open(e.run_id))
                state = follower.state
                status = state.phase
            else:
                status = "skipped" if e.note else "pending"
            statuses.append(status)
            accuracy = state.metrics.get("accuracy") if state else None
            table.add_row(str(e.index + 1), Text(e.label),
                          Text(status, style=PHASE_STYLE.get(status, "dim")),
                          f"{state.step}/{state.total}" if state and state.total else Text(e.note),
                          fmt.number(state.samples_per_s()) if state else "-",
                          fmt.number(state.metrics.get("loss")) if state else "-",
                          "-" if accuracy is None else f"{accuracy:.2f}", e.run_id or "",
                          key=str(e.index))
        if entries:
            table.move_cursor(row=min(cursor, len(entries) - 1))
        ended = sum(1 for s in statuses if s in ENDED)
        self.query_one(ProgressBar).update(progress=ended)
        counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
        self.query_one("#experiment-banner", Static).update(Text.assemble(
            (exp.info.name, "bold"), f"  {exp.status()}  {ended}/{len(entries)} ended  (",
            ", ".join(f"{n} {s}" for s, n in counts.items()), ")", (f"  {exp.id}", "dim")))

    def _selected_run(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return self.experiment.entries()[table.cursor_row].run_id

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_run()

    def action_open_run(self) -> None:
        run_id = self._selected_run()
        if run_id:
            self.app.open_run(run_id)
        else:
            self.notify("this variant has no run (yet)")

    def action_compare(self) -> None:
        self.app.compare([info.id for info in self.experiment.runs()], self.experiment.info.name)

    def action_cancel(self) -> None:
        from accelbench.tui.screens.confirm import Confirm

        if self.experiment.status() != "running":
            self.notify(f"the experiment has already ended ({self.experiment.status()})")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.notify(f"cancelling experiment {self.experiment.id} …")
                self.run_worker(self.experiment.cancel, thread=True, group="cancel")

        self.app.push_screen(Confirm(f"Cancel experiment {self.experiment.info.name}?"), answered)
