"""Pilot tests of the run view's metrics list and its charts: any metric, picked by glob."""

import io
import time

from rich.console import Console
from rich.rule import Rule
from textual.widgets import Input, Static

from accelbench.engine.core.events import Metric, Phase
from accelbench.engine.run.follow import Follower
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.chart import ChartScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.widgets.metrics_table import MetricsTable
from tests.helpers import wait_until


async def test_a_run_views_metrics_open_as_charts_picked_by_a_glob(runner):
    events = [Phase("r1", 1.0, "running"), Metric("r1", 2.0, "loss", 2.0, 1),
              Metric("r1", 3.0, "loss", 1.0, 2), Metric("r1", 3.0, "eval_loss", 1.5, 2),
              Metric("r1", 3.0, "accuracy", 90.0, 2), Metric("r1", 4.0, "loss_scale", 8.0, 2),
              Metric("r1", 4.0, "[b]x[/b]", 1.0, 1), Metric("r1", 4.0, "[b]x[/b]", 2.0, 2)]
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RunView(Follower.from_events("r1", events), "r1", clock=lambda: 5.0))
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and bool(app.screen.query(MetricsTable))
                         and app.screen.query_one(MetricsTable).row_count == 5)
        table = app.screen.query_one(MetricsTable)
        assert [str(table.get_row_at(i)[0]) for i in range(5)] == [
            "loss", "eval_loss", "accuracy", "loss_scale", "[b]x[/b]"]  # names: never markup
        assert str(table.get_row_at(0)[2]) == "█▁"  # loss's sparkline
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen)
                         and bool(app.screen.query(Input)))
        chart = app.screen

        def charted() -> list[str]:  # the metrics drawn: each chart's title starts so
            content = chart.query_one("#charts", Static).content
            return [str(part.title).split()[0] for part in getattr(content, "renderables", ())
                    if isinstance(part, Rule)]
        assert chart.query_one(Input).value == "loss" and charted() == ["loss"]
        await pilot.press("slash", "ctrl+u", *"loss*")
        assert charted() == ["loss", "loss_scale"]
        await pilot.press("ctrl+u", *"*LOSS acc*")  # any case; several globs
        assert charted() == ["loss", "eval_loss", "accuracy"]
        text = chart.query_one("#charts", Static).content
        assert "eval_loss  latest 1.5" in str(text.renderables[2])
        await pilot.press("ctrl+u", *"[[]b*")  # a glob's [ ] set: the name with brackets
        assert charted() == ["[b]x[/b]"]
        drawn = Console(width=80, record=True, file=io.StringIO())
        drawn.print(chart.query_one("#charts", Static).content)
        assert "[b]x[/b]  latest 2" in drawn.export_text()  # not read as markup
        await pilot.press("ctrl+u", *"nothing*")
        assert "no metric matches 'nothing*'" in str(chart.query_one("#charts", Static).content)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))


async def test_the_metrics_list_catches_up_with_a_run_reporting_fast(runner):
    follower = Follower.from_events("r1", [Phase("r1", 1.0, "running"),
                                           Metric("r1", 1.0, "loss", 2.0, 1)])
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RunView(follower, "r1", clock=time.time))
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and bool(app.screen.query(MetricsTable))
                         and app.screen.query_one(MetricsTable).row_count == 1)
        table = app.screen.query_one(MetricsTable)
        for step in range(2, 12):  # faster than the list redraws (once a second at most)
            follower.feed([Metric("r1", float(step), "loss", 1 / step, step),
                           Metric("r1", float(step), f"m{step}", 1.0, step)])
            await pilot.pause(0.05)
        await wait_until(pilot, lambda: table.row_count == 11, timeout=5)
        assert str(table.get_row_at(0)[1]) == "0.09091"  # the newest loss, once it stopped
