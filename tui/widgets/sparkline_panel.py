"""A titled sparkline with a line of figures under it (throughput, loss, ...)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static


def downsample(values: list[float], width: int) -> list[float]:
    """At most ``2 * width`` points, each the mean of its bucket (the chart's resolution)."""
    limit = max(2 * width, 2)
    if len(values) <= limit:
        return list(values)
    step = len(values) / limit
    out = []
    for i in range(limit):
        chunk = values[int(i * step):int((i + 1) * step)]
        out.append(sum(chunk) / len(chunk))
    return out


class SparklinePanel(Vertical):
    """A chart of a series over time, and its current/mean/peak figures."""

    def __init__(self, title: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = title
        self._key: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Sparkline([], summary_function=max)
        yield Static("waiting for data…", classes="figures")

    def show(self, values: list[float], figures: str) -> None:
        """Plot ``values`` (downsampled to the panel's width) and print ``figures``, if changed."""
        key = (len(values), values[-1] if values else None, self.size.width, figures)
        if key == self._key:
            return
        self._key = key
        self.query_one(Sparkline).data = downsample(values, self.size.width or 40)
        self.query_one(".figures", Static).update(figures, layout=False)
