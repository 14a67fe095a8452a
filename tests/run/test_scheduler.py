"""What a scheduler's launcher builds on (``engine.launchers.scheduler``, public through
``accelbench.api``): one poller query per interval for every run, back-off while the
scheduler is down, a bounded cancel command, the cancel sequence; and what a launcher
declares: its dialects and how a system is reached through it."""

from __future__ import annotations

import sys
import time

import pytest

from accelbench import api
from accelbench.engine.launchers import scheduler
from accelbench.engine.launchers.local import Local
from accelbench.engine.parsers import Dialect
from accelbench.engine.plugin import registry
from accelbench.engine.rundir.exitfile import read_exit
from accelbench.engine.rundir.files import CANCEL_FILE, EXIT_FILE, read_json
from tests.helpers import SPEC


class Board(api.JobPoller):
    """A scheduler whose answers the test sets: a dict of jobs, or an exception."""

    interval_env = "TEST_BOARD_POLL"

    def __init__(self, interval=None):
        super().__init__(interval)
        self.answer: dict | Exception = {}

    def query(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return dict(self.answer)

    def cancel_argv(self, job):
        return [sys.executable, "-c", f"import time; time.sleep({job})"]


def test_one_query_per_interval_serves_every_reader():
    board = Board(interval=30)
    board.answer = {1: "RUNNING"}
    assert [board.snapshot() for _ in range(50)] == [{1: "RUNNING"}] * 50
    assert board.calls == 1 and board.error == ""


def test_the_interval_comes_from_the_pollers_variable(monkeypatch):
    monkeypatch.setenv("TEST_BOARD_POLL", "7.5")
    assert Board().interval == 7.5
    monkeypatch.delenv("TEST_BOARD_POLL")
    assert Board().interval == Board.default_interval


def test_a_scheduler_down_keeps_the_last_jobs_and_backs_off_until_it_answers():
    board = Board(interval=0.05)
    board.answer = {1: "RUNNING"}
    board.snapshot()
    board.answer = api.SchedulerDown("controller unreachable")
    time.sleep(0.06)
    assert board.snapshot() == {1: "RUNNING"} and board.error == "controller unreachable"
    time.sleep(0.06)
    board.snapshot()  # due again: another query, the back-off doubled
    assert board.calls == 3 and board._backoff == pytest.approx(0.1)
    board.snapshot()
    assert board.calls == 3  # backing off: no query right away
    board.answer = {2: "PENDING"}
    time.sleep(0.11)
    assert board.snapshot() == {2: "PENDING"} and board.error == "" and board._backoff == 0


def test_a_cancel_command_that_hangs_is_given_up_on(monkeypatch):
    monkeypatch.setattr(scheduler, "CANCEL_TIMEOUT", 0.5)
    started = time.monotonic()
    Board().cancel(60)  # its command sleeps a minute
    assert time.monotonic() - started < 5


def test_the_cancel_sequence_notes_the_cancel_and_records_a_vanished_job(store):
    info = store.create(SPEC)
    stopped, polls = [], iter(["running", "running", "lost"])
    api.cancel_run(info, lambda: stopped.append(read_json(info.path(CANCEL_FILE))),
                   lambda run: next(polls), 10, every=0.01)
    assert stopped and "requested" in stopped[0]  # noted before the job is stopped
    record = read_exit(info.path(EXIT_FILE))
    assert record is not None and record.status == "cancelled"


def test_the_cancel_sequence_waits_for_the_end_no_longer_than_told(store):
    info = store.create(SPEC)
    started = time.monotonic()
    api.cancel_run(info, lambda: None, lambda run: "running", 0.3, every=0.01)
    assert 0.3 <= time.monotonic() - started < 3
    assert read_exit(info.path(EXIT_FILE)) is None  # the job may still end: nothing invented


class Beacon(Dialect):
    name = "beacon"


class Far(Local):
    """A launcher that reaches some systems elsewhere and prints its own lines."""

    name = "far"
    dialects = (Beacon,)

    def availability(self, system):
        if system.name == "groq":
            return api.Availability(True, detail="through the far cluster")
        if system.name == "ipu":
            raise RuntimeError("far's inventory is down")
        return api.Availability(False, reason="the far cluster has none")


@pytest.fixture
def far(monkeypatch):
    found = {"local": Local(), "far": Far()}
    monkeypatch.setattr(registry, "launchers", lambda: found)
    monkeypatch.setattr(registry, "get_launcher", found.__getitem__)
    registry.dialects.cache_clear()
    yield
    registry.dialects.cache_clear()


def test_a_system_absent_here_is_reached_through_a_launcher(far, monkeypatch):
    absent = api.Availability(False, reason="no devices here")
    monkeypatch.setattr(registry.plugins, "bounded", lambda *args: absent)
    assert registry.detect(registry.get_accelerator("groq")) == api.Availability(
        True, detail="through the far cluster")
    assert registry.detect(registry.get_accelerator("cuda")).reason == (
        "no devices here; the far cluster has none")
    assert registry.detect(registry.get_accelerator("ipu")).reason == (
        "no devices here; launcher 'far' failed: far's inventory is down")


def test_a_launchers_dialects_are_known_and_read_on_its_runs(far):
    assert registry.get_dialect("beacon") is Beacon
    assert registry.launcher_dialects("far") == ["beacon"]
    assert registry.launcher_dialects("local") == []
