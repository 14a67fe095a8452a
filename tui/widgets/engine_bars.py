"""Per-engine utilization: one bar per engine with a short history, newest sample only."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from accelbench.engine.core.text import printable
from accelbench.engine.run.state import RunState
from accelbench.engine.view.model import utilization_figure

_BLOCKS = " ▁▂▃▄▅▆▇█"


def history_line(values: list[float], width: int) -> str:
    """The last ``width`` percentages as block characters."""
    return "".join(_BLOCKS[min(8, max(0, round(v / 12.5)))] for v in values[-width:])


def bar(percent: float, width: int) -> Text:
    """A horizontal bar filled to ``percent``."""
    filled = round(max(0.0, min(percent, 100.0)) / 100 * width)
    style = "red" if percent >= 90 else "yellow" if percent >= 60 else "green"
    return Text.assemble(("█" * filled, style), ("░" * (width - filled), "dim"))


class EngineBars(Static):
    """Redrawn from the run's latest utilization samples (never a backlog)."""

    _state: RunState | None = None
    _engines = 0

    def on_resize(self) -> None:
        if self._state is not None:
            self.show(self._state)

    def show(self, state: RunState) -> None:
        """Draw the newest reading of every engine the telemetry reports."""
        self._state = state
        if not state.utilization:
            self.update(Text("no telemetry recorded" if state.finished else "no telemetry yet",
                             style="dim"))
            return
        relayout = len(state.utilization) != self._engines  # the height follows the engine count
        self._engines = len(state.utilization)
        width = max(self.size.width, 40)
        bar_width = max(6, min(30, (width - 30) // 2))
        hist_width = max(4, width - bar_width - 30)
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True, min_width=9)
        table.add_column(no_wrap=True)
        table.add_column(justify="right", no_wrap=True, min_width=10)
        table.add_column(no_wrap=True, style="cyan")
        for name, sample in state.utilization.items():
            figure = utilization_figure(sample)
            history = list(state.util_history.get(name, ()))
            table.add_row(Text(printable(name)), bar(sample.percent, bar_width), Text(figure),
                          history_line(history, hist_width))
        self.update(table, layout=relayout)
