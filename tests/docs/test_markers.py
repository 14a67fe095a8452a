"""The ``slow`` and ``tui`` markers come from what a test calls (tests/conftest.py), so the
quick run (``-m "not slow and not tui"``) starts no process and no app."""

from __future__ import annotations

from tests.conftest import _marks_by_function

SHARED = '''
def cli_runs():
    return accelbench("runs")
'''

MODULE = '''
import subprocess
from experiment import start

def helper(runner):
    return runner.start(spec)

def test_plain():
    assert parse("x") == 1

def test_cli():
    accelbench("--help")

def test_through_a_shared_helper():
    cli_runs()

def test_through_a_module_helper(runner):
    helper(runner)

def test_a_subprocess():
    subprocess.run(["true"])

def test_a_sweep(runner):
    start(runner, spec)

async def test_the_app(runner):
    async with App(runner).run_test() as pilot:
        await pilot.pause()

def test_a_snapshot(snap_compare):
    assert snap_compare(App())

class TestGrouped:
    def test_method(self, runner):
        runner.start(spec)

def started(runner):
    return runner.start(spec)

def test_through_a_fixture(started):
    assert started
'''


def test_tests_are_marked_by_what_they_call(tmp_path):
    (tmp_path / "helpers.py").write_text(SHARED)
    (tmp_path / "test_x.py").write_text(MODULE)
    marks = _marks_by_function(tmp_path / "test_x.py")
    tests = {name: marks[name] for name in marks if name.startswith("test_")}
    assert tests == {"test_plain": set(), "test_cli": {"slow"},
                     "test_through_a_shared_helper": {"slow"},
                     "test_through_a_module_helper": {"slow"}, "test_a_subprocess": {"slow"},
                     "test_a_sweep": {"slow"}, "test_the_app": {"tui"},
                     "test_a_snapshot": {"tui"}, "test_method": {"slow"},
                     "test_through_a_fixture": set()}  # the fixture's marks: by the hook
    assert marks["started"] == {"slow"}
