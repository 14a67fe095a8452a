"""Charts of a run's metrics, picked by a glob filter (``loss*``, ``*acc*``): one chart per
metric, by step, redrawn as the run reports more. Its header's breadcrumb names the run
(``Launch > run a1b2c3 > charts``)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, Static

from accelbench.engine.core.text import printable
from accelbench.engine.run.follow import Follower
from accelbench.engine.view import figures as fmt
from accelbench.engine.view import model as present
from accelbench.engine.view import plot
from accelbench.tui.nav import NavScreen

REFRESH_S = 1.0
MAX_CHARTS = 12  # charts drawn at once (a filter matching more names says so)


class ChartScreen(NavScreen):
    """The charts of the metrics of one run whose names match the filter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="chart.filter",
                tooltip="Pick the metrics to chart: a glob (loss*, *acc*), several with spaces"),
        Binding("escape", "back", "Back", id="chart.back",
                tooltip="Close the charts (back to the run view)"),
    ]

    crumb = "charts"

    def __init__(self, follower: Follower, pattern: str) -> None:
        super().__init__()
        self.follower = follower
        self.pattern = pattern
        self._drawn: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(self.pattern, placeholder="metrics to chart: loss*, *acc*, or a part of a"
                    " name", id="chart-filter")
        with VerticalScroll(id="chart-body"):
            yield Static(id="charts")
        yield Footer()

    def on_mount(self) -> None:
        self.draw()
        self.set_interval(REFRESH_S, self.draw)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.pattern = event.value
        self.draw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#chart-body").focus()

    def action_focus_filter(self) -> None:
        self.query_one(Input).focus()

    def draw(self) -> None:
        """Draw the charts again if the run, the filter or the width changed (the body's
        own: narrower beside the help panel)."""
        width = max(20, self.query_one("#chart-body").size.width - 4)
        key = (self.follower.version, self.pattern, width, self.size.height)
        if key == self._drawn:
            return
        self._drawn = key
        self.query_one("#charts", Static).update(self.charts(width))

    def charts(self, width: int) -> RenderableType:
        """One chart per matching metric; a note where none match, or too many do."""
        curves = present.metric_curves(self.follower.state, self.pattern)
        if not curves:
            names = printable(", ".join(self.follower.state.metrics)) or "none yet"
            return Text(f"no metric matches {self.pattern!r} (the run's metrics: {names})",
                        style="dim")
        height = max(4, (self.size.height - 9) // min(len(curves), 2) - 3)
        parts: list[RenderableType] = []
        for name, points, x_label in curves[:MAX_CHARTS]:
            values, label = [v for _, v in points], printable(name)
            if len(values) < 2:  # nothing to draw a line through
                value = fmt.number(self.follower.state.metrics[name])
                parts += [Rule(Text(f"{label}  latest {value}"), style="dim"),
                          Text("reported once: no curve", style="dim")]
                continue
            parts += [Rule(Text(f"{label}  latest {fmt.number(values[-1])}"  # a name: not markup
                                f"  min {fmt.number(min(values))}  max {fmt.number(max(values))}"),
                           style="dim"),
                      plot.lines([(label, points)], width=width, height=height, x_label=x_label)]
        if len(curves) > MAX_CHARTS:
            parts.append(Text(f"… and {len(curves) - MAX_CHARTS} more: narrow the filter",
                              style="dim"))
        return Group(*parts)
