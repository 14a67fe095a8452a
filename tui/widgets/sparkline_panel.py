"""A titled sparkline with a line of figures under it (throughput, loss, ...)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from accelbench.engine.view import plot

SPARK_STYLE = "green"


class Spark(Widget):
    """``(time, value)`` points as block columns across the widget, read against zero (a
    column a share of them, or a point a few columns); where nothing was reported for a
    while, a blank gap (``plot.gaps``)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.points: list[tuple[float, float]] = []

    def show(self, points: list[tuple[float, float]]) -> None:
        """Draw ``points`` from now on."""
        self.points = points
        self.refresh()

    def render(self) -> Text:
        width, height = self.size
        if not self.points or width < 1 or height < 1:
            return Text()
        values = plot.gaps(self.points)
        wide = max(1, width // len(values))  # a few points: each as wide as the room allows
        return Text(plot.spark([v for v in values for _ in range(wide)], width, height,
                               floor=0.0), style=SPARK_STYLE, no_wrap=True)


class SparklinePanel(Vertical):
    """A chart of a series over time (``Spark``), and its current/mean/peak figures."""

    def __init__(self, title: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = title
        self._key: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Spark(classes="spark")
        yield Static("waiting for data…", classes="figures")

    def show(self, points: list[tuple[float, float]], figures: str) -> None:
        """Plot ``(time, value)`` points and print ``figures``, if changed."""
        key = (len(points), points[-1] if points else None, figures)
        if key == self._key:
            return
        self._key = key
        self.query_one(Spark).show(points)
        self.query_one(".figures", Static).update(figures, layout=False)
