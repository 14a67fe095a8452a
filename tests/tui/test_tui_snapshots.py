"""Snapshots of every screen at 80x24 and 160x48, from a recorded event stream (the run
view) and a store made from it (runs, help, compare, experiment: tests/recorded_store.py).

Fixed terminal sizes, fixed clock, fixed accelerator detection, no cursor blink:
nothing here depends on timing or on the machine.
"""

import json

import pytest
from textual.widgets import DataTable, Input

from accelbench.engine.core.events import from_dict
from accelbench.engine.run.experiment import Experiment
from accelbench.engine.run.follow import Follower
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.launch import LaunchScreen, default_spec
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import FIXTURES, SIZES
from tests.recorded_store import fixed_clock, live_experiment, three_runs

RECORDED = [from_dict(json.loads(line))
            for line in (FIXTURES / "mnist_run_events.jsonl").read_text().splitlines()]


pytestmark = pytest.mark.usefixtures("fixed_detection")


async def settle(pilot):
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, LaunchScreen))
    while not screen.availability:
        await pilot.pause(0.05)
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


def run_view_before(events, now):
    async def run_before(pilot):
        await settle(pilot)
        follower = Follower.from_events(events[0].run_id, events)
        pilot.app.push_screen(RunView(follower, f"cpu-mnist · {events[0].run_id}",
                                      clock=lambda: now))
        await pilot.pause(0.3)
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False
        await pilot.pause()
    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen(snap_compare, runner, size):
    assert snap_compare(AccelbenchApp(runner), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_view_mid_run(snap_compare, runner, size):
    cut = next(i for i, e in enumerate(RECORDED) if e.kind == "progress" and e.step >= 300)
    events = RECORDED[:cut + 6]
    assert snap_compare(AccelbenchApp(runner), terminal_size=size,
                        run_before=run_view_before(events, events[-1].ts + 0.4))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_view_finished(snap_compare, runner, size):
    assert snap_compare(AccelbenchApp(runner), terminal_size=size,
                        run_before=run_view_before(RECORDED, RECORDED[-1].ts + 100))


def chart_before(pattern):
    async def chart(pilot):
        await run_view_before(RECORDED, RECORDED[-1].ts + 100)(pilot)
        await pilot.press("g")  # the selected metric (the first: loss)
        await pilot.pause(0.3)
        if pattern:
            await pilot.press("slash", "ctrl+u", *pattern)
            await pilot.press("enter")
            await pilot.pause(0.3)
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False
        await pilot.pause()
    return chart


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_chart_of_a_metric(snap_compare, runner, size):
    assert snap_compare(AccelbenchApp(runner), terminal_size=size, run_before=chart_before(""))


def test_charts_of_a_glob(snap_compare, runner):
    assert snap_compare(AccelbenchApp(runner), terminal_size=(80, 24),
                        run_before=chart_before("*loss*"))


def rows(screen) -> int:
    """The rows of the screen's table (0 before it is mounted)."""
    tables = screen.query(DataTable)
    return tables.first().row_count if tables else 0


async def wait_for(pilot, predicate, timeout=30.0):
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


def on_runs_screen(then=()):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunsScreen)
                       and rows(pilot.app.screen) == 3)
        await pilot.press(*then)
        await pilot.pause(0.3)
    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_runs_screen(snap_compare, runner, monkeypatch, size):
    fixed_clock(monkeypatch)
    three_runs(runner.store)
    assert snap_compare(AccelbenchApp(runner), terminal_size=size, run_before=on_runs_screen())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help(snap_compare, runner, monkeypatch, size):
    fixed_clock(monkeypatch)
    three_runs(runner.store)
    assert snap_compare(AccelbenchApp(runner), terminal_size=size,
                        run_before=on_runs_screen(then=("f1",)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare(snap_compare, runner, monkeypatch, size):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.compare([info.id for info in runs], "3 marked runs")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                       and rows(pilot.app.screen) > 0)  # a row a run, or a figure (80x24)
        await pilot.pause(0.3)

    assert snap_compare(AccelbenchApp(runner), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_experiment_live(snap_compare, runner, monkeypatch, size):
    fixed_clock(monkeypatch)
    exp_id, followers = live_experiment(runner.store)

    async def run_before(pilot):
        await settle(pilot)
        view = ExperimentView(Experiment.open(runner, exp_id))
        view.followers.update(followers)
        pilot.app.push_screen(view)
        await wait_for(pilot, lambda: rows(view) == 3)
        await pilot.pause(0.3)

    # opened with a spec: the experiment's live run is not followed from its (empty) files
    assert snap_compare(AccelbenchApp(runner, default_spec()), terminal_size=size,
                        run_before=run_before)
