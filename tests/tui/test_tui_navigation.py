"""Pilot tests of navigation: f2/f3 and the palette reach their screen whatever is open,
esc closes the innermost thing, the header says where one is, sorted columns are marked."""

from textual.widgets import DataTable, Input, Log

from accelbench.engine.config.spec import spec_from_dict
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.launch import LaunchScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import wait_until


def quick_spec(name="quick"):
    return spec_from_dict({"name": name, "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "echo hello"}})


async def started_and_done(pilot, app) -> RunView:
    """The app opened with ``--start``: its run view, once the run has ended."""
    await wait_until(pilot, lambda: isinstance(app.screen, RunView))
    view = app.screen
    await wait_until(pilot, lambda: view.follower.state.phase == "done")
    return view


async def test_f2_and_f3_reach_their_screen_from_a_finished_run(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await started_and_done(pilot, app)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        await pilot.press("f2", "f3")  # the runs screen, not the run view opened over it
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        assert len(app.screen_stack) == 1
        assert view.follower.run_id in app.followers


async def test_the_palette_loads_a_preset_into_the_launch_screen_from_a_run(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await started_and_done(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"preset: cpu-bert")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen)
                         and app.screen.workload == "bert_finetune")
        assert len(app.screen_stack) == 1


async def test_esc_clears_the_log_filter_then_leaves_the_run_view(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(160, 48)) as pilot:
        view = await started_and_done(pilot, app)
        await pilot.press("slash", *"zzz")
        log = view.query_one("#log", Log)
        await wait_until(pilot, lambda: log.line_count == 0)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is view  # the filter closed, not the view
        assert view.query_one("#log-filter", Input).value == ""
        assert app.focused is log
        await wait_until(pilot, lambda: "hello" in log.lines)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))


async def test_the_header_shows_the_breadcrumb(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await started_and_done(pilot, app)
        suffix = view.follower.run_id.rsplit("-", 1)[-1]
        assert view.title == f"Launch > run {suffix}"
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 1)
        assert app.screen.title == "Runs"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        assert app.screen.title == f"Runs > run {suffix}"


async def test_the_sorted_column_is_marked(runner):
    for n in range(3):
        runner.store.create(quick_spec(f"r{n}"))
    app = AccelbenchApp(runner)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 3)
        table = app.screen.query_one(DataTable)

        def labels():
            return [str(column.label) for column in table.ordered_columns]

        assert "started ↓" in labels() and "status" in labels()
        await pilot.press("s")
        await wait_until(pilot, lambda: "status ↑" in labels())
        assert "started" in labels()


async def test_the_palette_offers_an_exactly_named_run_before_presets(runner):
    """``cpu-mnist`` names a preset and a run: the run comes first (its id or suffix too)."""
    info = runner.store.create(quick_spec("cpu-mnist"))
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        for query in ("cpu-mnist", info.id.rsplit("-", 1)[-1]):
            await pilot.press("f2", "ctrl+p")
            await pilot.pause(0.3)
            await pilot.press(*query)
            await pilot.pause(0.5)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, RunView))
            assert app.screen.follower.run_id == info.id


def help_text(app) -> str:
    import io

    from rich.console import Console
    from textual.widgets._key_panel import BindingsTable

    console = Console(width=100, record=True, file=io.StringIO())
    console.print(app.screen.query_one(BindingsTable).render_bindings_table())
    return console.export_text()


async def test_help_lists_the_screens_own_keys_first(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(160, 48)) as pilot:
        view = await started_and_done(pilot, app)
        view.query_one("#log").focus()
        await pilot.press("f1")
        wanted = {"c", "esc", "^q", "pgup"}  # the screen's, the app's, the log's
        await wait_until(pilot, lambda: app.screen.query("BindingsTable") and wanted <= {
            line.split()[0] for line in help_text(app).splitlines() if line.strip()})
        text = help_text(app)
        lines = [line.split() for line in text.splitlines() if line.strip()]
        keys = [words[0] for words in lines]
        assert keys.index("c") < keys.index("^q") < keys.index("pgup")  # screen, app, generic
        assert keys.index("esc") < keys.index("^q")
        assert "Back Back" not in text
        assert "Back Close the run view" in " ".join(" ".join(w) for w in lines)


async def test_esc_closes_the_help_panel_before_the_screen(runner):
    app = AccelbenchApp(runner, quick_spec(), start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await started_and_done(pilot, app)
        await pilot.press("f1")
        await wait_until(pilot, lambda: view.query("HelpPanel"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not view.query("HelpPanel"))
        assert app.screen is view
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen.query("HelpPanel"))
        await pilot.press("escape")  # the launch screen: closes the help, stays
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        assert isinstance(app.screen, LaunchScreen)


async def test_a_comparison_too_wide_for_the_terminal_shows_the_runs_as_columns(runner,
                                                                                 monkeypatch):
    from accelbench.tui.screens.compare import CompareScreen
    from tests.recorded_store import fixed_clock, three_runs

    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)
    for size, transposed in (((80, 24), True), ((160, 48), False)):
        app = AccelbenchApp(runner, quick_spec())
        async with app.run_test(size=size) as pilot:
            app.compare([info.id for info in runs], "3 runs")
            await wait_until(pilot, lambda app=app: isinstance(app.screen, CompareScreen)
                             and app.screen.query(DataTable)
                             and app.screen.query_one(DataTable).row_count)
            table = app.screen.query_one(DataTable)
            heads = [str(column.label) for column in table.ordered_columns]
            suffixes = [f"{i} {info.id.rsplit('-', 1)[-1]}" for i, info in enumerate(runs, 1)]
            if transposed:
                assert heads == ["run", *suffixes]
                assert [str(table.get_row_at(0)[0]), str(table.get_row_at(0)[1])] == [
                    "samples/s", "2105 ★"]
                assert table.virtual_size.width <= 80
            else:
                assert heads[:2] == ["run", "samples/s"] and table.row_count == 3
