"""Snapshots of the main screen and the run view, from a recorded event stream.

Fixed terminal sizes, fixed clock, fixed accelerator detection, no cursor blink:
nothing here depends on timing or on the machine.
"""

import dataclasses
import json

import pytest
from textual.widgets import Input

from accelbench.engine import registry
from accelbench.engine.events import from_dict
from accelbench.engine.follow import Follower
from accelbench.engine.system import Availability
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.launch import LaunchScreen
from accelbench.tui.screens.run_view import RunView
from tests.conftest import FIXTURES

SIZES = [(80, 24), (160, 48)]
RECORDED = [from_dict(json.loads(line))
            for line in (FIXTURES / "mnist_run_events.jsonl").read_text().splitlines()]


@pytest.fixture(autouse=True)
def fixed_detection(monkeypatch):
    found = {"cpu": Availability(True, detail="2 cores, x86_64"),
             "cuda": Availability(False, reason="no NVIDIA driver (NVML: NVML Shared Library"
                                                " Not Found)")}
    for name, acc in registry.systems().items():
        avail = found.get(name, Availability(False, reason=f"no {name} here"))
        monkeypatch.setitem(registry.systems(), name,
                            dataclasses.replace(acc, detect=lambda a=avail: a))


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
