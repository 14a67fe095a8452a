"""Issue 22 class 6: a run's ``wrapper.json`` that is not UTF-8 or is a JSON list, a
``digest.json`` that is a JSON list: ``top``, the app's Top screen, ``doctor --dry-run`` and
``show`` go on, saying in one line which file they left aside."""

from __future__ import annotations

import time

import pytest

from accelbench.engine.core.summary import RunSummary
from accelbench.engine.run.digest import DIGEST_FILE
from accelbench.engine.rundir.files import WRAPPER_FILE
from accelbench.engine.store.runs import Store
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.top import TopScreen
from tests.helpers import SPEC, accelbench, wait_until

DAMAGE = {"not UTF-8": b'{"pid": 1, "host": "\xff\xfe"}', "a JSON list": b"[1, 2]"}


def live_run(home, wrapper: bytes) -> str:
    """A running run whose wrapper.json holds ``wrapper``."""
    store = Store(home)
    info = store.create(SPEC)
    store.update(info.id, "running")
    info.path(WRAPPER_FILE).write_bytes(wrapper)
    return info.id


def told_once(said: str, run_id: str, name: str) -> None:
    """``said`` (a notice, or doctor's finding) names the file, once, and no traceback."""
    assert "Traceback" not in said, said
    lines = [line for line in said.splitlines() if name in line]
    assert len(lines) == 1 and run_id in lines[0] and "ignored" in lines[0], said


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("command", [("top", "--once"), ("doctor", "--dry-run"), ("show",)])
def test_a_damaged_wrapper_record_is_left_aside(home, damage, command):
    run_id = live_run(home, DAMAGE[damage])
    done = accelbench(*command, *([run_id] if command == ("show",) else []), timeout=120)
    assert done.returncode == (1 if command[0] == "doctor" else 0), done.stderr
    told_once(done.stdout if command[0] == "doctor" else done.stderr, run_id, WRAPPER_FILE)
    if command[0] == "show":
        assert run_id in done.stdout


def test_a_digest_that_is_a_list_is_left_aside(home):
    store = Store(home)
    info = store.create(SPEC)
    store.record_end(info.id, "done", RunSummary(final_loss=0.5), time.time())
    info.path(DIGEST_FILE).write_text("[]")
    done = accelbench("show", info.id)
    assert done.returncode == 0, done.stderr
    told_once(done.stderr, info.id, DIGEST_FILE)
    assert "summary" in done.stdout


async def test_the_app_top_screen_goes_on_past_a_wrapper_not_utf8(home, runner):
    live_run(home, DAMAGE["not UTF-8"])
    app = AccelbenchApp(runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, TopScreen))
        await pilot.pause(2.5)  # a few samples, each matching the live runs to processes
        assert app.is_running and isinstance(app.screen, TopScreen)
