"""Every metric a run reports: its name, newest value and a sparkline of its history."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from accelbench.engine import present
from accelbench.engine.state import RunState

SPARK_WIDTH = 20  # characters of each metric's sparkline


class MetricsTable(DataTable):
    """One row per metric (keyed by its name), in the order the run first reported them."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._names: list[str] = []
        self._shown: dict[str, tuple[str, str]] = {}

    def on_mount(self) -> None:
        self.add_column("metric", key="metric")
        self.add_column(Text("latest", justify="right"), key="latest")
        self.add_column("history", key="history")

    def show(self, state: RunState) -> None:
        """Show the metrics of ``state``: new ones appended, changed values updated."""
        for row in present.metric_rows(state, width=SPARK_WIDTH):
            cells = (row.latest, row.spark)
            if row.name not in self._shown:
                self._names.append(row.name)
                self.add_row(Text(row.name), Text(row.latest, justify="right"),
                             Text(row.spark, style="cyan"), key=row.name)
            elif self._shown[row.name] != cells:
                self.update_cell(row.name, "latest", Text(row.latest, justify="right"))
                self.update_cell(row.name, "history", Text(row.spark, style="cyan"),
                                 update_width=True)
            self._shown[row.name] = cells

    def reset(self) -> None:
        """Forget the rows (another run is shown next)."""
        self.clear()
        self._names, self._shown = [], {}

    @property
    def selected(self) -> str | None:
        """The name of the metric under the cursor, if any."""
        if not self.row_count:
            return None
        return self._names[min(self.cursor_row, len(self._names) - 1)]
