"""Imported runs are timed by their logs' own timestamps (elapsed, duration, the times of
their events), say how far they got without a total, get every metric's curve, and
compare with native runs without empty (None) cells."""

import io
import time

from rich.console import Console
from textual.widgets import Static

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.logs.importer import import_file
from accelbench.engine.parsers import logclock
from accelbench.engine.store.compare import compare
from accelbench.engine.view import model as present
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.chart import ChartScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.widgets.metrics_table import MetricsTable
from tests.helpers import FIXTURES, accelbench, wait_until

REAL = FIXTURES / "real"
GPTJ = REAL / "cerebras" / "csx_r25_gptj.log"  # 20:03:38,180 to 20:21:14,286, steps 50-200
GPTJ_SPAN = 1056.106


def local(*when: int) -> float:
    return time.mktime((*when, 0, 0, -1))


def test_a_line_is_timed_by_its_date_or_a_bracketed_time_of_day():
    assert logclock.stamp("2025-10-10 20:03:38,180 INFO:   Beginning") == (
        True, local(2025, 10, 10, 20, 3, 38) + 0.18)
    assert logclock.stamp("2021-6-10 14:54:47 : [INFO][SC]") == (
        True, local(2021, 6, 10, 14, 54, 47))
    bar = "Iteration:  20%|▉ | 500/2549 [07:29<29:04,  1.17it/s]2024-04-03T09:39:54.5Z - x"
    assert logclock.stamp(bar) == (True, local(2024, 4, 3, 9, 39, 54) + 0.5)
    assert logclock.stamp("  [17:47:29.814] [poptorch:cpp] [warning]") == (
        False, 17 * 3600 + 47 * 60 + 29.814)
    assert logclock.stamp("Epoch 1/10 [07:29<29:04]") is None  # a bar's own clock: not a time


def test_the_clock_never_goes_back_goes_past_midnight_and_keeps_one_kind():
    clock = logclock.LogClock(1000.0)
    assert clock.at("no time here") == 1000.0
    assert clock.at("[23:59:50] start") == 1000.0
    assert clock.at("[23:59:58] on") == 1008.0
    assert clock.at("[23:59:55] a late line") == 1008.0  # never back
    assert clock.at("2024-01-01 00:00:00 another kind of time: not this log's") == 1008.0
    assert clock.at("[00:00:10] past midnight") == 1020.0
    span = logclock.LogClock()
    for piece in ("x\n[23:59:50] a\n", "b\n", "[00:00:01] c\nd\n"):
        span.text(piece)
    assert span.span == 11.0


def test_an_imported_run_is_timed_by_its_log(store, runner):
    [info] = import_file(store, GPTJ)
    assert round(info.ended - info.created, 3) == GPTJ_SPAN
    assert info.summary.duration_s == GPTJ_SPAN
    state = runner.open(info.id).state()
    assert round(state.elapsed(time.time()), 3) == GPTJ_SPAN
    loss_times = [ts - info.created for ts, _ in state.throughput]
    assert [round(t, 3) for t in loss_times] == [134.296, 268.346, 402.262, 536.342]
    assert present.progress_text(state) == "200/200 steps"
    # a log whose dialects read no times (neuron_parallel_compile lines, then a Trainer's)
    [npc] = import_file(store, REAL / "trainium" / "optimum_tinyllama_npc_nan.log")
    assert npc.ended - npc.created == 81.0  # 16:02:55.000243 to 16:04:16.000245, rounded
    assert runner.open(npc.id).state().elapsed(time.time()) == 81.0


def test_an_imported_run_without_a_total_says_how_far_it_got(store, runner):
    [info] = import_file(store, REAL / "cerebras" / "xla_r17_bert.log")
    state = runner.open(info.id).state()
    assert state.total == 0 and state.elapsed(time.time()) > 500
    assert present.progress_text(state).endswith(" (total not reported)")
    assert present.progress_text(state).startswith("step ")
    [quiet] = import_file(store, REAL / "groq" / "minilm.log")  # nor any timestamp
    quiet_state = runner.open(quiet.id).state()
    assert present.progress_text(quiet_state) == "no steps reported"
    assert present.phase_clock(quiet_state, time.time()) == "elapsed -  ETA -"  # not 0s


def test_comparing_imported_and_native_runs_leaves_no_none(store, runner):
    [imported] = import_file(store, GPTJ)
    native = store.create(spec_from_dict({"name": "n", "workload": "command",
                                          "params": {"command": "true"}}))
    cmp = compare([imported, native])
    texts = [cell.text for row in present.comparison_rows(cmp) for cell in row]
    assert "None" not in texts and "-" in texts  # the knobs one run lacks
    assert "None" not in cmp.to_csv() and "None" not in cmp.to_markdown()


async def test_an_imported_run_in_the_app_has_its_elapsed_metrics_and_charts(store, runner):
    [info] = import_file(store, GPTJ)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_run(info.id)
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and app.screen.follower.ended)
        view = app.screen
        await pilot.pause(0.3)
        assert "elapsed 17:36" in str(view.query_one("#phase-banner", Static).content)
        assert str(view.query_one("#progress-text", Static).content) == "200/200 steps"
        assert "no telemetry recorded" in str(view.query_one("#engines").render())
        table = view.query_one(MetricsTable)
        await wait_until(pilot, lambda: table.row_count == 6)
        assert [str(table.get_row_at(i)[0]) for i in range(2)] == ["loss", "global_rate"]
        assert str(table.get_row_at(0)[2]) == "█▃▂▁"  # 9.446, 8.344, 8.211, 8.015
        table.focus()
        await pilot.press("down", "enter")  # global_rate's chart
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen))
        charts = app.screen.query_one("#charts", Static)
        await wait_until(pilot, lambda: "global_rate  latest 44.75" in plain(charts))
        assert "■ global_rate" in plain(charts) and "■ loss" not in plain(charts)


def plain(widget: Static) -> str:
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def test_show_lists_every_metric_with_its_history(store, monkeypatch):
    [info] = import_file(store, GPTJ)
    monkeypatch.setenv("COLUMNS", "80")
    shown = accelbench("show", info.id).stdout
    metrics = shown.split("metrics (latest value, history)")[1].split("log (last lines)")[0]
    rows = {line.split()[0]: line.split()[1:] for line in metrics.splitlines()[1:-1]}
    assert rows["loss"] == ["8.01509", "█▃▂▁"] and rows["global_rate"] == ["44.75", "▁▅██"]
    assert rows["final_loss"] == ["8.01509"]  # reported once: no sparkline


def test_show_charts_the_metrics_a_glob_picks(store, monkeypatch):
    [info] = import_file(store, GPTJ)
    monkeypatch.setenv("COLUMNS", "80")
    charted = accelbench("show", info.id, "--chart", "glob*  LOSS")
    assert charted.returncode == 0, charted.stderr
    charts = charted.stdout.split("log (last lines)")[1]
    assert "■ global_rate" in charts and "■ loss" in charts and "final_loss" not in charts
    assert " 50 " in charts and "step" in charts  # by the steps the log names
    none = accelbench("show", info.id, "--chart", "nope*")
    assert none.returncode != 0 and "no metric matching 'nope*'" in none.stderr


def test_an_imported_run_derives_its_alike_rows_as_their_lines_one_by_one(store, tmp_path,
                                                                          monkeypatch):
    """Deriving an imported run folds a chunk's alike rows (a dialect's ``Rows``) as
    columns at the times the log's clock gives their lines: the same state as the lines
    one by one, for every fixture log and long Cerebras logs, in large and small chunks."""
    from accelbench.engine.core.errors import UserError
    from accelbench.engine.run.runner import LogTimes, RunHandle
    from tests.core.test_rows import FILES, TRAIN_ONLY, _cerebras_log

    paths = [p for p in FILES if p.suffix in (".log", ".txt")]
    for name, text in {"planned": _cerebras_log(True), **TRAIN_ONLY}.items():
        paths.append(tmp_path / f"{name.strip('()')}.log")
        paths[-1].write_text(text * 20)
    quick = LogTimes.rows
    taken = []

    def counted(self, deriver, lines, wanted):
        last = quick(self, deriver, lines, wanted)
        taken.append(last is not None)
        return last

    for path in paths:
        try:
            infos = import_file(store, path)
        except UserError:
            continue  # (no run in it)
        for info in infos:
            for chunk in (256 * 1024, 700):
                monkeypatch.setattr(LogTimes, "rows", counted)
                fast = repr(RunHandle(store, info).fold(chunk=chunk))  # (repr: NaN)
                monkeypatch.setattr(LogTimes, "rows", lambda *args: None)
                same = fast == repr(RunHandle(store, info).fold(chunk=chunk))
                assert same, (path, chunk)  # (a bool: no diff of long texts)
    assert sum(taken) > 20  # (rows were folded as columns)


def test_the_clock_times_lines_at_once_as_one_by_one():
    """``LogClock.at_all`` gives what ``at`` gives each line and leaves the clock as it
    does: dated lines, times of day, a clock going back, lines without a time, in chunks."""
    import random

    chance = random.Random(5)
    kinds = ["2024-03-30 13:{:02d}:{:02d},{:03d} INFO: x", "[23:{:02d}:{:02d}.{:03d}] y",
             "no time here {} {} {}", "  2024/3/30 13:{:02d}:{:02d}.{:03d} z"]
    for _ in range(200):
        lines = [chance.choice(kinds[:chance.randint(1, 4)]).format(
            chance.randint(0, 59), chance.randint(0, 59), chance.randint(0, 999))
            for _ in range(chance.randint(1, 40))]
        one, many = logclock.LogClock(100.0), logclock.LogClock(100.0)
        each, at_once, i = [one.at(line) for line in lines], [], 0
        while i < len(lines):
            step = chance.randint(1, 12)
            at_once += many.at_all(lines[i:i + step])
            i += step
        assert (at_once, vars(many)) == (each, vars(one)), lines
