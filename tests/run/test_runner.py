"""Runs of plain commands through the engine: events, failures, cancel, lost runs."""

import asyncio
import os
import socket
import subprocess
import time

import psutil
import pytest

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Diagnosis, Finished, Log, Metric, Phase, Utilization
from accelbench.engine.run.reader import Hub
from accelbench.engine.rundir.files import WRAPPER_FILE, read_json, write_json
from tests.helpers import command_spec, follow, wait_for


def group_members(pgid):
    out = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(proc.pid)
        except OSError:
            pass
    return out


SUCCESS = """
import json, time
for i in range(1, 4):
    print(f"step {i}", flush=True)
    print("@@accelbench " + json.dumps({"type": "progress", "t": time.time(), "step": i,
          "total": 3, "epoch": 1, "epochs": 1}), flush=True)
    time.sleep(0.3)
print("@@accelbench " + json.dumps({"type": "metric", "t": time.time(), "name": "accuracy",
      "value": 97.5}), flush=True)
print("no newline at the end", end="")
"""


def test_success_live_equals_replay_and_store_is_updated(runner, store):
    handle = runner.start(command_spec(SUCCESS))
    live = follow(handle)
    kinds = [type(e).__name__ for e in live]
    assert kinds[0] == "Phase" and live[0].name == "queued"
    assert [e.text for e in live if isinstance(e, Log)] == [
        "step 1", "step 2", "step 3", "no newline at the end"]
    assert [e.step for e in live if e.kind == "progress"] == [1, 2, 3]
    assert any(isinstance(e, Utilization) and e.engine == "cpu0" for e in live)
    rss = [e for e in live if isinstance(e, Utilization) and e.engine == "job rss"]
    assert rss and all(e.unit == "MiB" and e.value > 0 for e in rss)
    assert [e.name for e in live if isinstance(e, Phase)] == ["queued", "running", "done"]
    finished = live[-1]
    assert isinstance(finished, Finished) and finished.status == "done"
    assert finished.summary["accuracy"] == 97.5 and finished.summary["exit_code"] == 0
    assert finished.summary["steps"] == 3 == finished.summary["total_steps"]

    replayed, state = runner.open(handle.id).replay()
    def not_telemetry(events):
        return [e for e in events if not isinstance(e, Utilization)]

    assert not_telemetry(replayed)[:-1] == not_telemetry(live)[:-1]
    assert replayed[-1].summary == {**finished.summary, "utilization": replayed[-1].summary[
        "utilization"]}
    assert state.phase == "done"
    row = store.get(handle.id)
    assert row.status == "done" and row.summary.accuracy == 97.5 and row.ended


def test_crash_gives_failed_with_exit_code_and_log_tail(runner):
    handle = runner.start(command_spec("print('working'); raise ValueError('bad batch')"))
    events = follow(handle)
    # (the traceback's final exception as the job prints it, then how the job ended)
    assert [(e.code, e.message) for e in events if isinstance(e, Diagnosis)] == [
        ("python_exception", "ValueError: bad batch"),
        ("job_failed", "the job exited with code 1: ValueError: bad batch")]
    finished = events[-1]
    assert finished.status == "failed" and finished.summary["exit_code"] == 1
    assert "Traceback (most recent call last):" in finished.summary["log_tail"]
    assert [e.name for e in events if isinstance(e, Phase)] == ["queued", "running", "failed"]


def test_missing_executable_is_start_failed(runner):
    spec = spec_from_dict({"name": "x", "workload": "command",
                           "params": {"command": "/no/such/program --flag"}})
    events = follow(runner.start(spec))
    diag = next(e for e in events if isinstance(e, Diagnosis))
    assert diag.code == "start_failed" and "/no/such/program" in diag.message
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == 127


def test_environment_and_working_directory(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command runs where it was launched (issue 22, class 3)
    code = "import os; print(os.environ['MY_KNOB'], os.environ['ACCELBENCH_RUN_ID'], os.getcwd())"
    handle = runner.start(command_spec(code, env={"MY_KNOB": "a b;$(rm -rf /)"}))
    logs = [e.text for e in follow(handle) if isinstance(e, Log)]
    assert logs == [f"a b;$(rm -rf /) {handle.id} {tmp_path}"]


JOB_WITH_CHILD = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
print("started", child.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("stubborn", [False, True], ids=["sigterm", "sigkill"])
def test_cancel_leaves_cancelled_and_no_orphans(runner, stubborn):
    code = JOB_WITH_CHILD
    if stubborn:
        code = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + code
    handle = runner.start(command_spec(code))
    assert wait_for(lambda: "started" in handle.info.path("output.log").read_text())
    pgid = read_json(handle.info.path(WRAPPER_FILE))["job_pid"]
    assert len(group_members(pgid)) == 2
    t0 = time.monotonic()
    handle.cancel(grace=1.0)
    assert time.monotonic() - t0 < 8
    events = follow(handle)
    assert events[-1].status == "cancelled"
    assert [e.name for e in events if isinstance(e, Phase)] == ["queued", "running", "cancelled"]
    assert wait_for(lambda: not group_members(pgid), timeout=5)


def test_wrapper_that_died_before_starting_its_job_is_lost_not_running(runner, store):
    info = store.create(command_spec("print(1)"))
    wrapper = subprocess.Popen(["true"])
    wrapper.wait()
    write_json(info.path(WRAPPER_FILE), {"pid": wrapper.pid, "host": socket.gethostname(),
                                         "started": time.time()})
    infos = runner.runs()
    assert infos[0].id == info.id and infos[0].status == "lost"
    events, state = runner.open(info.id).replay()
    assert state.phase == "lost" and events[-1].status == "lost"
    assert any(isinstance(e, Diagnosis) and e.code == "lost" for e in events)


def test_running_status_is_reported_while_live(runner, store):
    handle = runner.start(command_spec("import time; print('up', flush=True); time.sleep(3)"))
    assert wait_for(lambda: "up" in handle.info.path("output.log").read_text())
    assert [r.status for r in runner.runs()] == ["running"]
    handle.cancel(grace=1)
    # cancel records the end in the run's files only: the index says what a reader last
    # saw until one looks again, and then it says cancelled too
    assert store.get(handle.id).status == "running"
    assert runner.runs()[0].status == "cancelled"
    assert store.get(handle.id).status == "cancelled"


def test_machine_line_metrics_keep_their_own_timestamps(runner):
    code = ('print(\'@@accelbench {"type":"metric","t":123.5,"name":"loss","value":0.5,'
            '"step":7}\')\nprint("@@accelbench {broken")')
    events = follow(runner.start(command_spec(code)))
    metric = next(e for e in events if isinstance(e, Metric))
    assert (metric.ts, metric.value, metric.step) == (123.5, 0.5, 7)
    assert [e.text for e in events if isinstance(e, Log)] == ["@@accelbench {broken"]


MIXED = """
import sys, time
print("out 1", flush=True)
print("err 1", file=sys.stderr, flush=True)
time.sleep(0.2)
print("out 2", flush=True)
print("Traceback-like err 2", file=sys.stderr, flush=True)
"""


def test_stdout_and_stderr_are_told_apart_in_order(runner):
    handle = runner.start(command_spec(MIXED))
    live = [(e.stream, e.text) for e in follow(handle) if isinstance(e, Log)]
    assert live == [("stdout", "out 1"), ("stderr", "err 1"), ("stdout", "out 2"),
                    ("stderr", "Traceback-like err 2")]
    replayed, _ = runner.open(handle.id).replay()
    assert [(e.stream, e.text) for e in replayed if isinstance(e, Log)] == live
    assert (handle.info.path("output.log").read_text()
            == "out 1\nerr 1\nout 2\nTraceback-like err 2\n")


def test_a_hub_makes_items_in_its_thread_and_raises_their_error_in_the_taker():
    import threading

    class Source:
        def __init__(self) -> None:
            self.steps = 0

        def step(self):
            self.steps += 1
            if self.steps == 1:
                return [threading.current_thread().name, 42], False
            raise ValueError("damaged")

        def more(self) -> bool:
            return False

        def close(self) -> None:
            self.closed = True

    async def take() -> list:
        taken = []
        with pytest.raises(ValueError, match="damaged"):
            async for item in Hub(0.01, "test-hub").take(Source()):
                taken.append(item)
        return taken

    assert asyncio.run(take()) == ["test-hub", 42]


def test_a_hub_steps_every_source_in_one_thread_until_each_ends():
    import threading

    class Count:
        def __init__(self, name: str, n: int) -> None:
            self.name, self.n, self.threads, self.closed = name, n, set(), False

        def step(self):
            self.threads.add(threading.get_ident())
            self.n -= 1
            return [self.name], self.n == 0

        def more(self) -> bool:
            return False

        def close(self) -> None:
            self.closed = True

    async def take_all(hub: Hub, sources: list) -> list:
        async def take(source) -> list:
            return [item async for item in hub.take(source)]
        return await asyncio.gather(*(take(s) for s in sources))

    sources = [Count("a", 3), Count("b", 5)]
    assert asyncio.run(take_all(Hub(0.01, "test-hub"), sources)) == [["a"] * 3, ["b"] * 5]
    assert len(sources[0].threads | sources[1].threads) == 1
    assert wait_for(lambda: all(source.closed for source in sources), timeout=2)  # by the hub


def test_a_follower_takes_the_state_its_reader_folded_the_same_as_one_fed_the_events(runner):
    """Following folds each event once (in the reader): the follower's state equals that of
    one fed every event, and the states it took are copies later batches leave as they were."""
    from accelbench.engine.run.follow import Follower

    handle = runner.start(command_spec(SUCCESS))
    follower, taken, fed = Follower(handle.id), [], Follower(handle.id)

    async def follow_it():
        async for batch, state in handle.folds(poll=0.05):
            follower._take(batch, state)
            fed.feed(batch)
            taken.append((state, state.copy(), state.summary()))
    asyncio.run(follow_it())
    assert follower.ended and follower.state == fed.state
    assert [log.text for log in follower.logs] == [log.text for log in fed.logs]
    assert follower.log_seq == fed.log_seq == 4
    for state, copied, summary in taken:  # untouched by the batches that came after
        assert state == copied and state.summary() == summary
    assert len({id(state) for state, _, _ in taken}) == len(taken)


def test_a_state_copy_grows_on_its_own():
    from accelbench.engine.core.events import Throughput
    from accelbench.engine.run.state import RunState

    state = RunState("r")
    state.feed_all([Metric("r", 1.0, "loss", 0.5, 1), Throughput("r", 1.0, 10.0, 1),
                    Utilization("r", 1.0, "cpu0", 50.0), Log("r", 1.0, "stdout", "a"),
                    Diagnosis("r", 1.0, "x", "y")])
    copied = state.copy()
    before = copied.copy()
    state.feed_all([Metric("r", 2.0, "loss", 0.25, 2), Throughput("r", 2.0, 30.0, 2),
                    Utilization("r", 2.0, "cpu0", 70.0), Log("r", 2.0, "stdout", "b"),
                    Diagnosis("r", 2.0, "z", "w"), Metric("r", 2.0, "acc", 1.0)])
    assert copied == before and copied != state
    assert copied.summary().samples_per_s == 10.0 and state.summary().samples_per_s == 20.0
    copied.metric_history["loss"].add((3, 0.1))
    assert list(state.metric_history["loss"]) == [(1, 0.5), (2, 0.25)]


async def test_a_follower_is_read_as_often_as_its_views_want():
    """Watched (its log lines asked for): every poll; unwatched: every ``unwatched`` seconds,
    or as often as a view wants (``want``) while it keeps asking."""
    from accelbench.engine.run import follow

    class Handle:
        async def folds(self, poll, chunk, pace):
            paces.append(pace())
            follower.want(1.0)
            paces.append(pace())
            follower.logs_since(0)
            paces.append(pace())
            long_ago = time.monotonic() - follow.WATCHED_S - 1
            follower.looked, follower._wanted = long_ago, (long_ago, 1.0)  # neither asks now
            paces.append(pace())
            return
            yield

    paces: list[float] = []
    follower = follow.Follower("r")
    await follower.follow(Handle(), poll=0.25, unwatched=2.0)
    assert paces == [2.0, 1.0, 0.25, 2.0]
