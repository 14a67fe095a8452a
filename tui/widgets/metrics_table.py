"""Every metric a run reports: its name, newest value and a sparkline of its history."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from accelbench.engine.run.state import RunState
from accelbench.engine.view import model as present

SPARK_WIDTH = 20  # characters of each metric's sparkline (fewer where the table is narrow)
SPARK_MIN = 4


class MetricsTable(DataTable):
    """One row per metric (keyed by its name), in the order the run first reported them."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._names: list[str] = []
        self._seen: dict[str, tuple] = {}  # per metric: its history's length and last value
        self._latest_width = 0  # the widest latest value shown (its column grows to it)
        self._spark_width = SPARK_WIDTH
        self._state: RunState | None = None  # as last shown

    def on_mount(self) -> None:
        self.add_column("metric", key="metric")
        self.add_column(Text("latest", justify="right"), key="latest")
        self.add_column("history", key="history", width=self._spark_width)

    def show(self, state: RunState) -> None:
        """Show the metrics of ``state``: new ones appended, those reported since updated
        (the others cost nothing: a run may report hundreds)."""
        self._state, history = state, state.metric_history
        for name, value in state.metrics.items():
            points = history.get(name)
            seen = (getattr(points, "added", 0), value)
            if self._seen.get(name) == seen:
                continue
            row = present.metric_row(state, name, self._spark_width)
            latest, spark = Text(row.latest, justify="right"), Text(row.spark, style="cyan")
            if name not in self.rows:
                self._names.append(name)
                self.add_row(Text(row.name), latest, spark, key=name)
            else:
                self.update_cell(name, "latest", latest,
                                 update_width=len(row.latest) > self._latest_width)
                self.update_cell(name, "history", spark)
            self._latest_width = max(self._latest_width, len(row.latest))
            self._seen[name] = seen

    def on_resize(self) -> None:
        """The sparklines as wide as the other columns leave room for (narrower beside the
        help panel, so that the table does not scroll sideways for them)."""
        others = sum(column.get_render_width(self) for key, column in self.columns.items()
                     if key != "history")
        room = self.scrollable_content_region.width - others - 2 * self.cell_padding
        width = max(SPARK_MIN, min(SPARK_WIDTH, room))
        if width != self._spark_width and "history" in self.columns:
            self._spark_width, self._seen = width, {}
            self.remove_column(ColumnKey("history"))
            self.add_column("history", key="history", width=width)
            if self._state is not None:
                self.show(self._state)

    def reset(self) -> None:
        """Forget the rows (another run is shown next)."""
        self.clear()
        self._names, self._seen, self._latest_width, self._state = [], {}, 0, None

    @property
    def selected(self) -> str | None:
        """The name of the metric under the cursor, if any."""
        if not self.row_count:
            return None
        return self._names[min(self.cursor_row, len(self._names) - 1)]
