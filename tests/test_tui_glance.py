"""Pilot tests of the screens at 80x24 as a newcomer meets them (issue 24): a comparison
shows its figures first, the runs table tells runs apart, ``/`` reaches a visible filter, log
lines wrap, the launch form shows a sweep, and the smaller points."""

from textual.widgets import DataTable

from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from tests.helpers import wait_until
from tests.recorded_store import fixed_clock, three_runs, two_workloads

SIZE = (80, 24)


def screen_text(app) -> list[str]:
    """The lines the terminal shows now."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_a_comparison_shows_its_figures_first_then_the_settings_in_one_scroll(
        runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = two_workloads(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "2 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen._read is not None)
        await pilot.pause(0.3)
        lines = screen_text(app)
        figures = [next((n for n, line in enumerate(lines) if line.lstrip().startswith(title)),
                        None) for title in ("samples/s", "final loss", "train time")]
        assert None not in figures, "\n".join(lines)  # seen without scrolling
        screen = app.screen
        settings = screen.query_one("#compare-settings", DataTable)
        assert settings.row_count >= 10  # two workloads: many knobs differ
        # the settings after the figures and the plots, in the body's scroll, never their own
        assert settings.region.y > screen.query_one("#compare-plots").region.y
        for table in screen.query(DataTable):
            assert table.max_scroll_y == 0 and table.outer_size.height >= table.row_count
        # each chart's label is a short line naming the run, not a list of its settings
        plots = screen.query_one("#compare-plots")
        bars = str(plots.content.renderables[1])
        assert "1 cpu-mnist" in bars and "2 cpu-bert-finetune-tiny" in bars
        assert "learning_rate" not in str(plots.content.renderables[-1])


async def test_a_charts_label_is_the_knob_a_sweep_varies_or_the_runs_id(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)  # one name twice, no knob differs
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "3 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen._read is not None)
        bars = str(app.screen.query_one("#compare-plots").content.renderables[1]).split("\n")
        assert [line.split()[:2] for line in bars if line.strip()] == [
            ["1", "a1b2c3"], ["2", "d4e5f6"], ["3", "0a1b2c"]]
