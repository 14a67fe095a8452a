"""Pilot tests of sweeps in the app: the experiment view, the compare screen, live runs
listed first when the app opens again."""

import shlex
import sys

from textual.widgets import DataTable, ProgressBar, Static

from accelbench.engine.config.spec import spec_from_dict
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import wait_until

REPORT = """
import json, time
def emit(**f):
    print("@@accelbench " + json.dumps({"t": time.time(), **f}), flush=True)
for step, loss in enumerate(LOSSES, 1):
    emit(type="metric", name="loss", value=loss, step=step)
emit(type="metric", name="train_samples_per_second", value=RATE)
"""


def reporting(rate, losses):
    code = REPORT.replace("RATE", repr(rate)).replace("LOSSES", repr(losses))
    return {"command": shlex.join([sys.executable, "-c", code])}


def sweep_spec():
    return spec_from_dict({"name": "fake-sweep", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "true"},
                           "sweep": {"variants": [reporting(100.0, [2.0, 1.5, 1.0]),
                                                  reporting(250.0, [2.0, 1.2, 0.8]),
                                                  reporting(180.0, [2.1, 1.9, 1.7])]}})


async def test_sweep_runs_as_an_experiment_then_compares(runner):
    app = AccelbenchApp(runner, sweep_spec(), start=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ExperimentView))
        view = app.screen
        table = view.query_one(DataTable)
        await wait_until(pilot, lambda: view.experiment.status() == "done", timeout=60)
        await wait_until(pilot, lambda: [str(table.get_row_at(i)[2]) for i in range(3)]
                         == ["done"] * 3, timeout=10)
        assert "3/3 ended" in str(view.query_one("#experiment-banner", Static).content)
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        screen = app.screen
        compared = screen.query_one(DataTable)
        await wait_until(pilot, lambda: compared.row_count == 3)
        columns = [str(c.label) for c in compared.columns.values()]
        assert columns == ["run", "samples/s", "final loss"]  # the figures first
        cells = [[str(c) for c in compared.get_row_at(i)[1:]] for i in range(3)]
        assert cells == [["100", "1"], ["250 ★", "0.8 ★"], ["180", "1.7"]]
        settings = screen.query_one("#compare-settings", DataTable)  # then what differs
        assert [str(c.label) for c in settings.columns.values()] == ["run", "command"]
        plots = str(screen.query_one("#compare-plots", Static).content.renderables[-1])
        assert "■" in plots  # the three loss curves have a legend
        await pilot.press("escape", "escape")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 3)
        await pilot.press("space", "space", "v")  # mark two runs, compare them
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen.query_one(DataTable).row_count == 2)


async def test_live_runs_are_listed_first_on_opening(runner):
    done = runner.start(spec_from_dict({"name": "old", "workload": "command",
                                        "telemetry_interval": 0, "params": {"command": "true"}}))
    sleeper = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])
    live = runner.start(spec_from_dict({"name": "live", "workload": "command",
                                        "telemetry_interval": 0,
                                        "params": {"command": sleeper}}))
    app = AccelbenchApp(runner)
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                             and bool(app.screen.query(DataTable)))  # composed, not only pushed
            table = app.screen.query_one(DataTable)
            await wait_until(pilot, lambda: table.row_count == 2)
            assert [str(table.get_row_at(i)[1]) for i in (0, 1)] == [live.id, done.id]
            assert live.id in app.followers  # followed live from the start
    finally:
        live.cancel()


async def test_a_cancelled_sweep_shows_the_share_that_ran(runner):
    """Cancelled after its first variant: the bar shows 1 of 3 (not 100%: the cancelled and
    skipped variants ended, but did not run their course)."""
    sleep = {"command": shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])}
    spec = spec_from_dict({"name": "cut-sweep", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "true"},
                           "sweep": {"variants": [{"command": "true"}, sleep, sleep]}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ExperimentView))
        view = app.screen
        table = view.query_one(DataTable)
        await wait_until(pilot, lambda: table.row_count == 3
                         and str(table.get_row_at(1)[2]) == "running", timeout=60)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.screen is not view)
        await pilot.press("y")
        await wait_until(pilot, lambda: view.experiment.status() == "cancelled", timeout=60)
        bar = view.query_one(ProgressBar)
        await wait_until(pilot, lambda: "3/3 ended" in str(
            view.query_one("#experiment-banner", Static).content), timeout=20)
        assert (bar.progress, bar.total) == (1, 3)


async def test_a_sweep_started_from_the_app_names_its_experiment_as_the_cli_does(runner):
    """The experiment of a sweep that names none is the spec's ``name`` wherever it starts
    (``experiment.start``: tests/cli/test_cli_first_hour.py starts one from the CLI)."""
    app = AccelbenchApp(runner, sweep_spec(), start=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ExperimentView))
        assert app.screen.experiment.info.name == "fake-sweep"
        app.screen.experiment.cancel()
