"""Pilot tests of the screens at 80x24 as a newcomer meets them (issue 24): a comparison
shows its figures first, the runs table tells runs apart, ``/`` reaches a visible filter, log
lines wrap, the launch form shows a sweep, and the smaller points."""

import re

from textual.widgets import DataTable, Input, OptionList

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset, spec_from_dict
from accelbench.engine.run.follow import Follower
from accelbench.engine.view import figures as fmt
from accelbench.engine.view import model as present
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.launch import LaunchScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import wait_until
from tests.recorded_store import (
    RECORDED,
    SPEC,
    cut,
    ended_run,
    fixed_clock,
    three_runs,
    two_workloads,
)

SIZE = (80, 24)


def screen_text(app) -> list[str]:
    """The lines the terminal shows now."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def shown(app, selector: str) -> str:
    """The text the terminal shows where the widget ``selector`` is, its lines joined."""
    region = app.screen.query_one(selector).region
    lines = screen_text(app)[region.y:region.bottom]
    return " ".join(" ".join(line[region.x:region.right] for line in lines).split())


async def test_a_comparison_shows_its_figures_first_then_the_settings_in_one_scroll(
        runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = two_workloads(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "2 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen._read is not None)
        await pilot.pause(0.3)
        lines = screen_text(app)
        figures = [next((n for n, line in enumerate(lines) if line.lstrip().startswith(title)),
                        None) for title in ("samples/s", "final loss", "train time")]
        assert None not in figures, "\n".join(lines)  # seen without scrolling
        screen = app.screen
        settings = screen.query_one("#compare-settings", DataTable)
        assert settings.row_count >= 10  # two workloads: many knobs differ
        # the settings after the figures and the plots, in the body's scroll, never their own
        assert settings.region.y > screen.query_one("#compare-plots").region.y
        for table in screen.query(DataTable):
            assert table.max_scroll_y == 0 and table.outer_size.height >= table.row_count
        # each chart's label is a short line naming the run, not a list of its settings
        plots = screen.query_one("#compare-plots")
        bars = str(plots.content.renderables[1])
        assert "1 cpu-mnist" in bars and "2 cpu-bert-finetune-tiny" in bars
        assert "learning_rate" not in str(plots.content.renderables[-1])


async def test_a_charts_label_is_the_knob_a_sweep_varies_or_the_runs_id(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = three_runs(runner.store)  # one name twice, no knob differs
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        app.compare([info.id for info in runs], "3 runs")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen._read is not None)
        bars = str(app.screen.query_one("#compare-plots").content.renderables[1]).split("\n")
        assert [line.split()[:2] for line in bars if line.strip()] == [
            ["1", "a1b2c3"], ["2", "d4e5f6"], ["3", "0a1b2c"]]


async def on_runs(pilot, count: int) -> RunsScreen:
    """The runs screen, its table holding ``count`` rows."""
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RunsScreen)
                     and pilot.app.screen.query_one(DataTable).row_count == count)
    await pilot.pause(0.3)
    return pilot.app.screen


def columns(screen) -> list[str]:
    return [str(key.value) for key in screen.query_one(DataTable).columns]


async def test_the_runs_table_at_80x24_names_each_run_and_its_workload(runner, monkeypatch):
    fixed_clock(monkeypatch)
    two_workloads(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await on_runs(pilot, 2)
        rows = [line for line in screen_text(app) if "cancelled" in line or "done" in line]
        assert len(rows) == 2
        assert "cpu-bert-finetune-tiny-d4e5f6" in rows[0] and "bert_finetune" in rows[0]
        assert "cpu-mnist-a1b2c3" in rows[1] and "mnist_cnn" in rows[1]


async def test_the_runs_columns_stay_as_the_sort_changes_and_r_reverses_it(runner, monkeypatch):
    fixed_clock(monkeypatch)
    runs = two_workloads(runner.store)
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_runs(pilot, 2)
        shown = columns(screen)
        for _ in range(len(present.RUN_SORTS)):  # every sort, and back to the first
            await pilot.press("s")
            await pilot.pause(0.3)
            assert columns(screen) == shown, screen.sort_column
        assert screen.sort_column == "started"
        table = screen.query_one(DataTable)
        order = [key.value for key in table.rows]
        await pilot.press("r")
        await wait_until(pilot, lambda: [key.value for key in table.rows] == order[::-1])
        assert screen.sort_column == "started" and "↑" in screen.sub_title
        assert "r: reverse" in screen.sub_title
        assert order == [runs[1].id, runs[0].id]  # newest first, then reversed
        await pilot.press("f1")  # the help names the key
        await wait_until(pilot, lambda: screen.query("KeysHelp"))
        await pilot.pause(0.3)
        assert any("Reverse" in line for line in screen_text(app))


async def test_a_live_run_shows_its_progress_and_eta_at_80x24(runner, monkeypatch):
    fixed_clock(monkeypatch)
    done = ended_run(runner.store, RECORDED, "cpu-mnist")
    live = runner.store.create(spec_from_dict({**SPEC, "name": "cpu-mnist-live"}))
    follower = Follower.from_events(live.id, cut(300))
    app = AccelbenchApp(runner)
    app.followers[live.id] = follower  # followed: its state as the app reads it
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_runs(pilot, 2)
        assert "progress" in columns(screen)
        cells = {key.value: [str(c) for c in screen.query_one(DataTable).get_row(key)]
                 for key in screen.query_one(DataTable).rows}
        state = follower.state
        eta = int(state.eta())
        assert f"{state.step / state.total:.0%} ETA {fmt.duration(eta)}" in cells[live.id]
        assert "100%" in cells[done.id]


async def test_slash_at_80_columns_types_into_a_filter_that_shows(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = RunView(Follower.from_events("r1", RECORDED), "cpu-mnist · r1",
                       clock=lambda: RECORDED[-1].ts + 1)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.pause(0.2)
        await pilot.press("slash", *"Epoch")
        await pilot.pause(0.3)
        field = view.query_one("#log-filter", Input)
        assert app.focused is field and field.value == "Epoch"
        assert field.region.width > 0 and field.region.height > 0  # on screen
        log = [line for line in screen_text(app) if "Epoch" in line]
        assert any(line.lstrip().startswith("Epoch 1/3") for line in log)  # the lines it keeps


WARNING = ("WARNING: MNIST not available (train-images-idx3-ubyte.gz: <urlopen error [Errno -2]"
           " Name or service not known>); training on SYNTHETIC data")  # the recording's


async def test_log_lines_wrap_whole_and_w_cuts_them(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = RunView(Follower.from_events("r1", RECORDED), "cpu-mnist · r1",
                       clock=lambda: RECORDED[-1].ts + 1)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.press("t")  # the log pane (80 columns: one pane at a time)
        await wait_until(pilot, lambda: any("Epoch 1/3" in line for line in screen_text(app)))
        lines = screen_text(app)
        at = next(n for n, line in enumerate(lines) if line.lstrip().startswith("WARNING"))
        text = "".join("".join(lines[at:at + 3]).split())  # (cut at any character)
        assert "".join(WARNING.split()) in text and "…" not in text  # whole, over two lines
        assert lines[at + 1].lstrip().startswith("o -2]")  # the second piece
        log = view.query_one("#log")
        assert log.virtual_size.width <= log.scrollable_content_region.width  # no sideways
        await pilot.press("w")  # cut: one line a line, marked at the edge
        await pilot.pause(0.3)
        lines = screen_text(app)
        cut = next(line for line in lines if line.lstrip().startswith("WARNING")).rstrip()
        assert cut.endswith("…") and "training on SYNTHETIC" not in " ".join(lines)
        await pilot.press("w")
        await pilot.pause(0.3)
        assert "training on SYNTHETIC" in " ".join(screen_text(app))



async def test_the_launch_form_shows_a_sweep_and_the_values_it_sets(runner):
    spec = load_preset(find_preset("cpu-bert-padding-sweep"))
    app = AccelbenchApp(runner, spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen)
                         and app.screen.query("#param-max_seq_length"))
        await pilot.pause(0.3)
        assert shown(app, "#form-sweep") == (  # on screen, above the form
            "sweep 4 runs (an experiment), varying max_seq_length = 16, 32, 64, 128")
        field = app.screen.query_one("#param-max_seq_length", Input)
        assert field.value == "16, 32, 64, 128" and field.disabled  # not the default's 128
        assert shown(app, "#help-max_seq_length").startswith("swept: 4 values")
        assert not app.screen.query_one("#run").disabled
        started = app.screen.current_spec()
        assert started.sweep == spec.sweep  # the sweep sets it, one value a run
        await pilot.press("ctrl+o")  # another preset, no sweep: no note, the knob editable
        await wait_until(pilot, lambda: app.screen.query("#preset-list"))
        app.screen.dismiss(load_preset(find_preset("cpu-bert-finetune-tiny")))
        await wait_until(pilot, lambda: not app.screen.query_one("#form-sweep").display
                         and not app.screen.query_one("#param-max_seq_length").disabled)


def run_view_of(app, events) -> RunView:
    view = RunView(Follower.from_events("r1", events), "cpu-mnist · r1",
                   clock=lambda: events[-1].ts + 1)
    app.push_screen(view)
    return view


async def test_a_live_runs_loss_is_the_latest_not_the_final(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = run_view_of(app, cut(300))  # still running
        await wait_until(pilot, lambda: app.screen is view and view.query_one("#figures").display)
        figures = shown(app, "#figures")
        assert "latest loss" in figures and "final loss" not in figures
        app.pop_screen()
        done = run_view_of(app, RECORDED)  # ended: its loss is final
        await wait_until(pilot, lambda: app.screen is done and done.query_one("#figures").display)
        assert "final loss" in shown(app, "#figures")


async def test_throughput_is_drawn_from_zero_with_its_gaps_blank(runner):
    from accelbench.engine.core.events import Phase, Throughput

    t0 = RECORDED[0].ts
    rates = [Throughput("r1", t0 + t, 1000.0 + t, step=t) for t in (*range(10), *range(60, 70))]
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        view = run_view_of(app, [Phase("r1", t0, "running")])
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.pause(0.3)
        assert "▁" not in shown(app, "#throughput .spark")  # nothing reported: no bars at all
        app.pop_screen()
        view = run_view_of(app, [Phase("r1", t0, "running"), *rates])
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.pause(0.3)
        region = view.query_one("#throughput .spark").region
        bottom = screen_text(app)[region.bottom - 1][region.x:region.right]
        assert re.fullmatch(r" *█+ +█+ *", bottom)  # two runs of bars, a blank gap between
        assert "▁" not in bottom  # 1000 samples/s is no zero: full bars, read from zero


async def test_an_empty_command_leaves_run_disabled(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LaunchScreen)
                         and app.screen.query("#param-batch_size"))
        workloads = app.screen.query_one("#workloads", OptionList)
        workloads.highlighted = next(i for i in range(workloads.option_count)
                                     if workloads.get_option_at_index(i).id == "command")
        await wait_until(pilot, lambda: app.screen.query("#param-command"))
        await pilot.pause(0.3)
        run = app.screen.query_one("#run")
        assert app.screen.query_one("#param-command", Input).value == "" and run.disabled
        assert "command" in shown(app, "#form-status")  # what to fix
        app.screen.query_one("#param-command", Input).value = "  "
        await pilot.pause(0.2)
        assert run.disabled  # blanks split into no command
        app.screen.query_one("#param-command", Input).value = "true"
        await wait_until(pilot, lambda: not run.disabled)


async def test_quitting_with_a_live_run_says_how_to_come_back(runner):
    live = runner.store.create(spec_from_dict({**SPEC, "name": "cpu-mnist-live"}))
    app = AccelbenchApp(runner)
    app.followers[live.id] = Follower.from_events(live.id, cut(300))  # going on
    said = []
    exit_ = app.exit
    app.exit = lambda *args, **kwargs: (said.append(kwargs.get("message")),  # type: ignore
                                        exit_(*args, **kwargs))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+q")
    message = str(said[-1])
    assert f"accelbench attach {present.short_id(live.id)}" in message
    assert "1 run still live" in message and "runs screen (F3)" in message


async def test_quitting_with_no_live_run_says_nothing(runner):
    app = AccelbenchApp(runner)
    said = []
    exit_ = app.exit
    app.exit = lambda *args, **kwargs: (said.append(kwargs.get("message")),  # type: ignore
                                        exit_(*args, **kwargs))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
    assert said == [None]


def test_one_section_and_one_experiment_are_singular(runner, capsys, monkeypatch):
    from accelbench.cli.main import main
    from tests.helpers import FIXTURES
    from tests.recorded_store import live_experiment

    monkeypatch.setenv("COLUMNS", "200")
    log = FIXTURES / "real" / "ipu" / "gc_info_list_all_partitions_matilda.txt"
    assert main(["parse", str(log)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 section " in out and "sections" not in out
    live_experiment(runner.store)
    assert main(["runs", "--experiments"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("1 experiment ") and "experiments" not in out


async def test_a_finished_run_never_shows_queued_before_it_is_read(runner, monkeypatch):
    fixed_clock(monkeypatch)
    done = ended_run(runner.store, RECORDED, "cpu-mnist")
    app = AccelbenchApp(runner)
    app.followers[done.id] = Follower(done.id)  # followed, nothing read yet
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_runs(pilot, 1)
        assert str(screen.query_one(DataTable).get_row(done.id)[0]) == "done"  # the index's
        view = RunView(app.followers[done.id], "cpu-mnist", clock=lambda: RECORDED[-1].ts)
        app.push_screen(view)
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.pause(0.3)
        assert "QUEUED" not in shown(app, "#phase-banner")
        view.follower.feed(RECORDED)  # read: its own phase
        await wait_until(pilot, lambda: "DONE" in shown(app, "#phase-banner"))
