"""Pilot tests of the app at 80x24: every screen's footer shows the keys to get around,
tables fit what is left beside the help panel, headers name where one is whole."""

import io

import pytest
from rich.console import Console
from textual.widgets import DataTable, Footer, Header
from textual.widgets._footer import FooterKey

from accelbench.engine.run.experiment import Experiment
from accelbench.engine.run.follow import Follower
from accelbench.engine.view import model as present
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.chart import ChartScreen
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.launch import LaunchScreen, default_spec
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import RunsScreen
from accelbench.tui.screens.top import TopScreen
from accelbench.tui.widgets.metrics_table import MetricsTable
from tests.helpers import wait_until
from tests.recorded_store import RECORDED, cut, fixed_clock, live_experiment, three_runs

SIZE = (80, 24)
EVERYWHERE = {"f2", "f3", "f4"}  # and the help's key: "?" or "f1"


def footer_keys(screen) -> list[str]:
    """The keys the footer shows, each whole: one hidden under the palette's key, or past
    the footer's end, fails."""
    footer = screen.query_one(Footer)
    palette = footer.query_one(".-command-palette", FooterKey)
    keys = [key for key in footer.query(FooterKey) if key is not palette]
    assert keys and palette.region.width
    for key in keys:
        assert key.region.width and key.region.right <= palette.region.x, (
            f"{type(screen).__name__}: {key.key_display} {key.description} is cut")
    return [key.key_display for key in keys]


def shown(screen, selector: str) -> str:
    """The text the screen shows where the widget ``selector`` is."""
    region = screen.query_one(selector).region
    strips = screen._compositor.render_strips()
    return "\n".join(strip.crop(region.x, region.right).text
                     for strip in strips[region.y:region.bottom])


async def assert_gets_around(pilot, screen, back: bool) -> None:
    """The footer shows f2, f3, f4, help, and esc where there is something to go back to."""
    await wait_until(pilot, lambda: screen.query_one(Footer).query(".-command-palette"))
    await pilot.pause(0.1)
    keys = footer_keys(screen)
    assert set(keys) >= EVERYWHERE and {"?", "f1"} & set(keys), (type(screen).__name__, keys)
    assert ("esc" in keys) == back, (type(screen).__name__, keys)


async def test_every_screens_footer_shows_the_keys_to_get_around(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        await pilot.pause(0.3)
        await assert_gets_around(pilot, app.screen, back=False)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count)
        await assert_gets_around(pilot, app.screen, back=False)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, TopScreen))
        await assert_gets_around(pilot, app.screen, back=False)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        for events in (cut(300), RECORDED):  # live, then done
            app.push_screen(RunView(Follower.from_events(runs[1].id, events),
                                    f"cpu-mnist · {runs[1].id}", clock=lambda: 0.0))
            await wait_until(pilot, lambda: isinstance(app.screen, RunView))
            await pilot.pause(0.3)
            await assert_gets_around(pilot, app.screen, back=True)
            await pilot.press("g")
            await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen))
            await assert_gets_around(pilot, app.screen, back=True)
            await pilot.press("escape", "escape")
            await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        exp_id, followers = live_experiment(runner.store)  # (now: the app opens on runs)
        view = ExperimentView(Experiment.open(runner, exp_id))
        view.followers.update(followers)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view
                         and view.query_one(DataTable).row_count == 3)
        await assert_gets_around(pilot, view, back=True)
        app.compare([info.id for info in runs], "3 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen.query_one(DataTable).row_count)
        await assert_gets_around(pilot, app.screen, back=True)


async def test_the_runs_table_fits_beside_the_help_panel(runner, monkeypatch):
    fixed_clock(monkeypatch)
    three_runs(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 3)
        table = app.screen.query_one(DataTable)
        wide = [str(column.label) for column in table.ordered_columns]
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen.query("HelpPanel")
                         and table.size.width < 60)
        await pilot.pause(0.3)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        heads = [str(column.label) for column in table.ordered_columns]
        assert heads[:2] == ["status", "run"]  # the ids a user types, whole
        assert {"f1", "?"} & set(footer_keys(app.screen))  # the footer under the panel too
        await pilot.press("f1")  # closed: the columns back
        await wait_until(pilot, lambda: [
            str(column.label) for column in table.ordered_columns] == wide)


@pytest.mark.parametrize("name", ["cpu-mnist", "cpu-mnist-learning-rate-warmup-and-more"])
async def test_the_chart_screens_header_is_the_breadcrumb(runner, name):
    run_id = f"20261122-021155-{name}-d4e5f6"
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        app.push_screen(RunView(Follower.from_events(run_id, RECORDED), f"{name} · {run_id}",
                                clock=lambda: 0.0))
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen))
        await pilot.pause(0.3)
        crumbs = f"Launch > run {present.short_id(run_id)} > charts"
        assert app.screen.title == crumbs
        header = app.screen.query_one(Header)
        line = "".join(s.text for s in app.screen._compositor.render_strips()[header.region.y])
        assert crumbs in line and "…" not in line


def fits_its_width(table: DataTable) -> bool:
    return table.virtual_size.width <= table.scrollable_content_region.width


async def test_a_comparison_fits_beside_the_help_panel_its_runs_in_parts(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "3 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen.query_one(DataTable).row_count)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 9 and fits_its_width(table)  # the runs as columns
        await pilot.press("f1")
        await wait_until(pilot, lambda: table.size.width < 60 and table.row_count > 9)
        await pilot.pause(0.3)
        assert fits_its_width(table)
        heads = [str(column.label) for column in table.ordered_columns]
        cells = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert heads == ["run", "1 a1b2c3", "2 d4e5f6"]
        assert cells[9] == ["run", "3 0a1b2c", ""]  # the next part's heads
        assert [row[0] for row in cells[10:]] == [row[0] for row in cells[:9]]
        assert cells[10][1] == "1839"  # run 3's samples/s
        plots = app.screen.query_one("#compare-plots")
        assert plots.virtual_size.width <= plots.outer_size.width
        await pilot.press("f1")  # closed: the runs side by side again
        await wait_until(pilot, lambda: table.row_count == 9 and len(table.columns) == 4)


async def test_the_experiment_table_fits_beside_the_help_panel(runner, monkeypatch):
    fixed_clock(monkeypatch)
    exp_id, followers = live_experiment(runner.store)
    app = AccelbenchApp(runner, default_spec())  # with a spec: not opened on the live runs
    async with app.run_test(size=SIZE) as pilot:
        view = ExperimentView(Experiment.open(runner, exp_id))
        view.followers.update(followers)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view
                         and view.query_one(DataTable).row_count == 3)
        table = view.query_one(DataTable)
        assert len(table.columns) == 8 and fits_its_width(table)
        await pilot.press("f1")
        await wait_until(pilot, lambda: table.size.width < 60 and len(table.columns) < 8)
        await pilot.pause(0.3)
        assert fits_its_width(table)
        heads = [str(column.label) for column in table.ordered_columns]
        assert {"#", "variant", "status", "run"} <= set(heads)
        assert [str(table.get_row_at(i)[heads.index("run")]) for i in range(2)] == [
            run_id.rsplit("-", 1)[1] for run_id in followers]
        banner = " ".join(shown(view, "#experiment-banner").split())
        assert banner.startswith("cpu-mnist-seeds") and banner.endswith(exp_id)  # wrapped


async def test_the_run_views_lines_beside_the_help_panel_are_whole_or_marked(runner):
    events = cut(300)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = RunView(Follower.from_events("r1", events), "cpu-mnist · r1",
                       clock=lambda: events[-1].ts + 1)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.press("f1")
        await wait_until(pilot, lambda: view.query("HelpPanel")
                         and view.query_one("#phase-banner").size.width < 60)
        await pilot.pause(0.3)
        banner = shown(view, "#phase-banner").strip()
        assert "RUNNING" in banner and banner.endswith("…")
        assert "52%" in shown(view, "#progress-row")
        assert "314/600 steps" in shown(view, "#progress-row")
        figures = shown(view, "SparklinePanel .figures").strip()
        assert figures.startswith("last samples/s") and figures.endswith("…")
        metrics = view.query_one(MetricsTable)  # its sparklines narrower
        assert fits_its_width(metrics)
        assert 4 <= len(str(metrics.get_row_at(0)[2])) < 20


async def test_a_question_names_the_whole_run_id(runner):
    from accelbench.tui.screens.confirm import Confirm

    run_id = "20261122-021155-cpu-mnist-learning-rate-warmup-d4e5f6"
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        app.push_screen(Confirm(f"Cancel run {run_id}?"))
        await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.pause(0.3)
        assert f"{run_id}?" in "".join(shown(app.screen, ".dialog-title").split())


async def test_top_fits_beside_the_help_panel(runner, monkeypatch):
    from rich.cells import cell_len

    from accelbench.tui.screens import top as top_screen
    from accelbench.tui.screens.top import TopLine
    from tests.tui.test_tui_top import RecordedTop

    monkeypatch.setattr(top_screen, "Top", RecordedTop)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, TopScreen)
                         and len(app.screen.query(TopLine)) > 10)
        view = app.screen.query_one("#top-view")

        def widest() -> int:
            return max(cell_len(line.line.plain) for line in view.query_children(TopLine))

        assert widest() <= view.size.width
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen.query("HelpPanel") and view.size.width < 60
                         and widest() <= view.size.width, timeout=5)


async def test_a_log_line_past_the_edge_is_marked_there(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = RunView(Follower.from_events("r1", RECORDED), "cpu-mnist · r1",
                       clock=lambda: RECORDED[-1].ts + 1)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.press("t", "w")  # the log pane, its lines cut (not wrapped)
        await wait_until(pilot, lambda: "Epoch 1/3" in shown(view, "#log"))
        lines = {line.split()[0]: line.rstrip() for line in shown(view, "#log").splitlines()
                 if line.strip()}
        assert lines["WARNING:"].endswith("…") and len(lines["WARNING:"]) == 78
        assert lines["Epoch"] == "Epoch 3/3: loss 0.1636, 2377.6 samples/s"  # whole: no mark
        view.query_one("#log").scroll_to(x=1000, animate=False)  # to the end of the longest
        await pilot.pause(0.3)
        assert not any(line.rstrip().endswith("…") for line in shown(view, "#log").splitlines())


async def test_charts_fit_beside_the_help_panel(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(RunView(Follower.from_events("r1", RECORDED), "cpu-mnist · r1",
                                clock=lambda: 0.0))
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen))
        charts = app.screen.query_one("#charts")

        def plot_lines() -> list[str]:  # the lines with braille dots: each on its axis
            return [line for line in shown(app.screen, "#charts").splitlines()
                    if any("\u2800" <= c <= "\u28ff" for c in line)]

        await pilot.pause(0.3)
        assert plot_lines() and all("┤" in line for line in plot_lines())
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen.query("HelpPanel")
                         and charts.outer_size.width < 60)
        await pilot.pause(1.5)  # the next redraw
        assert plot_lines() and all("┤" in line for line in plot_lines())  # none wrapped


async def test_the_launch_form_beside_the_help_panel_has_the_room(runner):
    from textual.widgets import Input

    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen)
                         and app.screen.query(".param-help"))
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen.query("HelpPanel"))
        await pilot.pause(0.3)
        name = app.screen.query(".param-row").first().query_one(Input)
        assert name.region.width >= 16
        help_text = " ".join(shown(app.screen, ".param-help").split())
        assert help_text == "a short name for the run (used in its id)"
        await pilot.press("f1")  # closed: the pickers back
        await wait_until(pilot, lambda: app.screen.query_one("#pickers").region.width)


async def test_a_legend_keeps_each_mark_with_its_run(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store) + three_runs(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "6 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen.query_one(DataTable).row_count)
        await pilot.pause(0.3)
        plots = app.screen.query_one("#compare-plots")
        console = Console(width=plots.content_size.width, record=True, file=io.StringIO())
        console.print(plots.content)
        legend = [line.strip() for line in console.export_text().splitlines() if "■" in line]
        assert not any(line.endswith("■") for line in legend)
        names = [name.strip() for line in legend for name in line.split("■") if name.strip()]
        assert names == [f"{i + 1} {present.short_id(info.id)}" for i, info in enumerate(runs)]


async def test_progress_without_a_total_is_whole(runner):
    from accelbench.engine.core.events import Finished, Phase

    events = [Phase("r1", 1.0, "running"), Phase("r1", 2.0, "failed"),
              Finished("r1", 2.0, "failed")]
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = RunView(Follower.from_events("r1", RECORDED[:1]), "r1", clock=lambda: 3.0)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view
                         and "no progress yet" in shown(view, "#progress-row"))
        view.show_follower(Follower.from_events("r1", events), "r1")  # its text grows
        await wait_until(pilot, lambda: "FAILED" in shown(view, "#phase-banner"))
        await pilot.pause(0.3)
        assert shown(view, "#progress-row").strip() == "no steps reported"


async def test_long_variants_wrap_in_the_experiment_table(runner, monkeypatch):
    import json

    from accelbench.engine.rundir.files import PLAN_FILE

    fixed_clock(monkeypatch)
    exp_id, followers = live_experiment(runner.store)
    plan = runner.store.experiments_dir / exp_id / PLAN_FILE
    data = json.loads(plan.read_text())
    long = "max_seq_length=128 batch_size=32 learning_rate=0.0001 {}"
    for variant in data["variants"]:
        variant["label"] = long.format(variant["label"])
    plan.write_text(json.dumps(data))
    app = AccelbenchApp(runner, default_spec())
    async with app.run_test(size=SIZE) as pilot:
        view = ExperimentView(Experiment.open(runner, exp_id))
        view.followers.update(followers)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view
                         and view.query_one(DataTable).row_count == 3)
        await pilot.pause(0.3)
        table = view.query_one(DataTable)
        assert fits_its_width(table)
        heads = [str(column.label) for column in table.ordered_columns]
        assert {"#", "variant", "status", "samples/s", "run"} <= set(heads)
        variant = str(table.get_row_at(0)[heads.index("variant")])
        assert "\n" in variant and variant.split() == long.format("seed=1").split()
