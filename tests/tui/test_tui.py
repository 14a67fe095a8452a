"""Pilot tests of the app: pickers, the form, presets, real runs, cancel, the runs table."""

import time

from textual.widgets import Button, DataTable, Input, OptionList, ProgressBar

from accelbench.engine.config.presets import user_dir
from accelbench.engine.config.spec import load_preset, spec_from_dict
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.launch import LaunchScreen
from accelbench.tui.screens.preset_picker import PresetPicker
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.widgets.param_form import ParamForm
from tests.helpers import launch, wait_until

TINY_MNIST = ["data=synthetic", "batch_size=64", "train_samples=640", "test_samples=200",
              "epochs=1", "threads=1", "telemetry_interval=0.5"]


async def test_pick_accelerator_and_workload(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.availability and screen.base is not None)
        assert screen.workload == "mnist_cnn"
        names = [p.name for p in screen.query_one(ParamForm).params]
        assert "test_batch_size" in names and "max_seq_length" not in names
        screen.query_one("#workloads", OptionList).focus()
        await pilot.press("down")
        await pilot.pause()
        assert screen.workload == "bert_finetune"
        names = [p.name for p in screen.query_one(ParamForm).params]
        assert "max_seq_length" in names and "test_batch_size" not in names
        assert not screen.query_one("#run", Button).disabled
        screen.query_one("#accelerators", OptionList).focus()
        await pilot.press("down")  # cuda: not on this machine
        await pilot.pause()
        assert screen.accelerator == "cuda"
        assert "not detected" in str(screen.query_one("#accelerator-status").content)
        assert screen.query_one("#run", Button).disabled
        assert "cuda is not available here" in str(screen.query_one("#form-status").content)


async def test_an_accelerator_picked_before_the_default_preset_is_read_stays(runner,
                                                                              monkeypatch):
    """The default preset is read in a worker: a pick made meanwhile is kept when it comes,
    and the old form's late messages are ignored."""
    import threading

    from accelbench.tui.screens import launch as launch_screen

    release = threading.Event()
    default = launch_screen.default_spec

    def slow_default():
        release.wait(10)
        return default()

    monkeypatch.setattr(launch_screen, "default_spec", slow_default)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = launch(app)
        await pilot.pause()
        assert screen.base is None
        screen.select_accelerator("cuda")
        await pilot.pause()
        release.set()
        await wait_until(pilot, lambda: screen.base is not None)
        await pilot.pause()
        assert screen.accelerator == "cuda" and screen.base.accelerator == "cpu"
        assert screen.query_one("#accelerators", OptionList).highlighted == (
            screen.query_one("#accelerators", OptionList).get_option_index("cuda"))


async def test_edit_parameter_valid_and_invalid(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.availability and screen.base is not None)
        epochs = screen.query_one("#param-epochs", Input)
        epochs.focus()
        epochs.value = ""
        await pilot.press("0")
        await pilot.pause()
        assert screen.query_one("#run", Button).disabled
        assert "✗ expected an integer in [1, 1000], got 0" in str(
            screen.query_one("#help-epochs").content)
        await pilot.press("backspace", "3")
        await pilot.pause()
        assert not screen.query_one("#run", Button).disabled
        assert screen.current_spec().params["epochs"] == 3
        data = screen.query_one("#param-learning_rate", Input)
        data.value = "-1"
        await pilot.pause()
        assert screen.query_one("#run", Button).disabled


async def test_load_and_save_preset(runner, home):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.availability and screen.base is not None)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PresetPicker))
        picker = app.screen
        options = picker.query_one(OptionList)
        index = next(i for i in range(options.option_count)
                     if options.get_option_at_index(i).id == "cpu-bert-finetune-tiny")
        options.highlighted = index
        await pilot.press("enter")
        await pilot.pause()
        assert screen.workload == "bert_finetune"
        assert screen.query_one("#param-max_seq_length", Input).value == "32"
        screen.query_one("#param-batch_size", Input).value = "8"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        name = app.screen.query_one("#preset-name", Input)
        name.value = "my-bert"
        await pilot.press("enter")
        saved = user_dir() / "my-bert.toml"
        await wait_until(pilot, lambda: saved.is_file() and app.screen is screen)
        expected = screen.current_spec()
        expected.name = "my-bert"
        expected.description = ""  # batch_size changed: the preset's description not kept
        assert load_preset(saved) == expected
        assert expected.params["batch_size"] == 8 and expected.workload == "bert_finetune"


async def test_real_run_reaches_done_and_shows_in_runs(runner):
    spec = spec_from_dict({"name": "tui-mnist", "workload": "mnist_cnn"}, TINY_MNIST)
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        await wait_until(pilot, lambda: view.follower.ended, timeout=120)
        await pilot.pause(0.3)
        state = view.follower.state
        assert state.phase == "done" and state.step == state.total == 10
        bar = view.query_one(ProgressBar)
        assert bar.total == 10 and bar.progress == 10
        assert "DONE" in str(view.query_one("#phase-banner").content)
        assert "10/10 steps" in str(view.query_one("#progress-text").content)
        assert "Accuracy on test set" in "\n".join(view.query_one("#log").lines)
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen.query(DataTable)
                         and app.screen.query_one(DataTable).row_count == 1)
        row = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert row[0] == "done" and row[2] == "mnist_cnn"


async def test_cancel_a_live_run(runner):
    spec = spec_from_dict({"name": "long", "workload": "mnist_cnn"},
                          ["data=synthetic", "epochs=100", "threads=1"])
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        await wait_until(pilot, lambda: view.follower.state.step > 0, timeout=60)
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("n")  # the question is asked first
        await pilot.pause(0.5)
        assert not view.follower.ended
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("y")
        await wait_until(pilot, lambda: view.follower.ended, timeout=30)
        assert view.follower.state.phase == "cancelled"


FLOOD = ("import sys, time\nw = sys.stdout.write\nfor i in range(200_000):\n"
         "    w(f'flood line {i:06d} ' + 'x' * 60 + '\\n')\nsys.stdout.flush()\ntime.sleep(5)\n")


async def test_log_flood_stays_responsive_and_bounded(runner):
    import shlex
    import sys

    from accelbench.tui.widgets.log_pane import MAX_LINES

    command = shlex.join([sys.executable, "-c", FLOOD])
    spec = spec_from_dict({"name": "flood", "workload": "command", "params": {"command": command},
                           "telemetry_interval": 0})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        follower = view.follower
        await wait_until(pilot, lambda: follower.log_seq > 0, timeout=30, step=0.005)
        follow = view.query_one("#log-follow")
        pressed_at = follower.log_seq
        await pilot.press("f")  # handled in the middle of the flood, not after the run
        assert follow.value is False
        assert pressed_at < 200_000 and not follower.ended  # (latency: bench/tui_log_flood.py)
        await wait_until(pilot, lambda: follower.ended, timeout=120)
        await pilot.pause(0.3)
        assert follower.log_seq == 200_000  # every line was counted ...
        assert len(follower.logs) <= follower.logs.maxlen  # ... but memory stays bounded
        log = view.query_one("#log")
        assert log.line_count <= MAX_LINES
        assert log.lines[-1].startswith("flood line 199999")
        assert follower.state.phase == "done"


async def test_palette_and_help(runner, home):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.availability and screen.base is not None)
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"preset: cpu-bert")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.workload == "bert_finetune")
        assert screen.query_one("#param-max_seq_length", Input).value == "32"
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"accelerator: cuda")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.accelerator == "cuda")
        app.set_focus(None)
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen.query("HelpPanel")
        await pilot.press("question_mark")
        await pilot.pause()
        assert not app.screen.query("HelpPanel")


def test_every_binding_has_an_id_and_a_tooltip():
    from accelbench.tui.screens.confirm import Confirm
    from accelbench.tui.screens.runs import RunsScreen
    from accelbench.tui.screens.save_preset import SavePreset

    for owner in (AccelbenchApp, LaunchScreen, RunView, RunsScreen, Confirm, PresetPicker,
                  SavePreset):
        for binding in owner.BINDINGS:
            assert binding.id and binding.tooltip, (owner.__name__, binding.key)


async def test_log_pane_marks_stderr_lines(runner):
    import shlex
    import sys

    code = "import sys; print('to stdout', flush=True); print('to stderr', file=sys.stderr)"
    spec = spec_from_dict({"name": "streams", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": shlex.join([sys.executable, "-c", code])}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        await wait_until(pilot, lambda: view.follower.ended, timeout=30)
        await pilot.pause(1.2)
        assert view.query_one("#log").lines == ["to stdout", "▌to stderr"]


async def test_log_pane_shows_a_line_being_redrawn_live(runner):
    import shlex
    import sys

    code = ("import sys, time\n"
            "for i in range(400):\n"
            "    sys.stdout.write(f'\\r[/]bar {i}/400'); sys.stdout.flush(); time.sleep(0.05)\n")
    spec = spec_from_dict({"name": "bar", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": shlex.join([sys.executable, "-c", code])}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and bool(app.screen.query("#log-redraw")))
        view = app.screen
        line = view.query_one("#log-redraw")
        await wait_until(pilot, lambda: line.display and "[/]bar " in str(line.render()),
                         timeout=20)
        assert not view.follower.ended  # shown while the job still redraws its line
        runner.open(view.follower.run_id).cancel(grace=1)


async def test_the_runs_screen_redraws_only_when_the_index_changes(runner, monkeypatch):
    """Idle, the 2 s refresh reads one counter and redraws nothing; a new run shows."""
    from accelbench.tui.screens import runs as runs_screen
    from accelbench.tui.screens.runs import RunsScreen

    monkeypatch.setattr(runs_screen, "REFRESH_S", 0.1)
    redraws = []
    redraw = RunsScreen._redraw_table

    def counted(self):
        redraws.append(1)
        redraw(self)

    monkeypatch.setattr(RunsScreen, "_redraw_table", counted)
    spec = spec_from_dict({"name": "old", "workload": "command", "params": {"command": "true"}})
    runner.store.create(spec)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("f3")

        def table():
            return app.screen.query_one(DataTable)

        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and table().row_count == 1)
        shown = len(redraws)
        await pilot.pause(1.0)  # ten refreshes, nothing changed
        assert len(redraws) == shown
        new = runner.store.create(spec_from_dict({"name": "new", "workload": "command",
                                                  "params": {"command": "true"}}))
        await wait_until(pilot, lambda: table().row_count == 2, timeout=10)
        assert len(redraws) == shown + 1
        runner.store.update(new.id, "running")
        await wait_until(pilot, lambda: str(table().get_row(new.id)[0]) == "running",
                         timeout=10)


async def test_the_runs_table_renders_again_only_the_rows_that_changed(runner, monkeypatch):
    """A run's new status is drawn; the other rows' lines are not rendered again."""
    from accelbench.tui.screens import runs as runs_screen
    from accelbench.tui.screens.runs import RunsScreen

    monkeypatch.setattr(runs_screen, "REFRESH_S", 0.1)
    rendered: list[int] = []
    render_line = DataTable._render_line

    def counted(self, y, x1, x2, base_style):
        rendered.append(y)
        return render_line(self, y, x1, x2, base_style)

    monkeypatch.setattr(DataTable, "_render_line", counted)
    spec = spec_from_dict({"name": "two", "workload": "command", "params": {"command": "true"}})
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("f3")

        def table():
            return app.screen.query_one(DataTable)

        def line_of(run_id):
            y = table().get_row_index(run_id) + 1  # under the header
            return y, "".join(segment.text for segment in table().render_line(y))

        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        runs = [runner.store.create(spec) for _ in range(2)]  # after the start: not followed
        await wait_until(pilot, lambda: table().row_count == 2)
        await pilot.pause(0.3)
        changed, other = runs[1].id, runs[0].id  # the newest: first whatever its status
        runner.store.update(changed, "running")  # the status column as wide as it gets
        await wait_until(pilot, lambda: "running" in line_of(changed)[1], timeout=10)
        await pilot.pause(0.3)
        rendered.clear()
        runner.store.update(changed, "queued")
        await wait_until(pilot, lambda: "queued" in line_of(changed)[1], timeout=10)
        assert line_of(changed)[0] in rendered
        assert line_of(other)[0] not in rendered


async def test_a_slow_launcher_poll_never_blocks_the_app(runner, monkeypatch):
    """The launcher's poll (squeue, csctl: seconds on a slow controller) runs off the event
    loop: while every poll of a followed run takes 1 s, a 10 ms timer on the app's loop keeps
    firing."""
    import asyncio
    import gc
    import shlex
    import sys

    from accelbench.engine.launchers.local import Local

    polls: list[float] = []
    poll = Local.poll

    def slow_poll(self, run):
        time.sleep(1.0)
        polls.append(time.monotonic())
        return poll(self, run)

    monkeypatch.setattr(Local, "poll", slow_poll)
    job = "import time\nfor i in range(100):\n    print(i, flush=True)\n    time.sleep(0.1)\n"
    ticks = shlex.join([sys.executable, "-c", job])
    handle = runner.start(spec_from_dict({"name": "ticks", "workload": "command",
                                          "telemetry_interval": 0,
                                          "params": {"command": ticks}}))
    app = AccelbenchApp(runner)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            app.open_run(handle.id)
            await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                             and app.screen.follower.log_seq > 0)
            # A full collection over the whole suite's heap stalls any loop: not this test's
            gc.collect()
            gc.disable()
            try:
                start, worst, last = time.monotonic(), 0.0, time.monotonic()
                while last - start < 4.5:  # the follower polls every 2 s: two polls at least
                    await asyncio.sleep(0.01)
                    now = time.monotonic()
                    worst, last = max(worst, now - last), now
            finally:
                gc.enable()
            assert len([t for t in polls if t > start]) >= 2
            assert worst < 0.5, f"the event loop stalled {worst:.2f} s"
    finally:
        handle.cancel(grace=1)


async def test_the_runs_screen_pages_and_sorts_through_the_index(runner):
    """A page of 50 runs at a time, in the order the index gives for the column sorted
    by (runs without a figure last, either way); moving past a page's edge turns it, and
    the sub-title says where the cursor is among every run; marks outlive the page."""
    from accelbench.engine.core.summary import RunSummary
    from accelbench.tui.screens.runs import RunsScreen

    store = runner.store
    infos = []
    for n in range(230):
        info = store.create(spec_from_dict({"name": f"r{n}", "workload": "command",
                                            "params": {"command": "true"}}))
        info.status = ("cancelled", "failed", "done")[n % 3]
        info.summary = RunSummary(samples_per_s=float(n % 7) if n % 5 else None)
        store.record_end(info.id, info.status, info.summary, info.created + 1)
        infos.append(info)
    newest = sorted(infos, key=lambda i: i.created, reverse=True)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 50)
        screen, table = app.screen, app.screen.query_one(DataTable)

        def ids():
            return [str(table.get_row_at(i)[1]).removeprefix("● ")
                    for i in range(table.row_count)]

        assert ids() == [i.id for i in newest[:50]]
        assert "run 1 of 230, sorted by started ↓" in screen.sub_title
        await pilot.press("space")  # marks the newest run, and moves down
        await pilot.press("ctrl+end")  # the last page, on its last row
        await wait_until(pilot, lambda: table.row_count == 30)
        assert ids() == [i.id for i in newest[200:]]
        assert "run 230 of 230" in screen.sub_title
        await pilot.press("pageup")  # the page's first row
        await wait_until(pilot, lambda: "run 201 of 230" in screen.sub_title)
        await pilot.press("up")  # back a page, on its last row
        await wait_until(pilot, lambda: table.row_count == 50 and ids()[0] == newest[150].id)
        assert "run 200 of 230" in screen.sub_title
        await pilot.press("down")  # on to the last page again, its first row
        await wait_until(pilot, lambda: table.row_count == 30)
        assert "run 201 of 230" in screen.sub_title
        await pilot.press("space")
        assert screen.marked == [newest[0].id, newest[200].id]
        await pilot.press("s")  # by status, a..z; ties by start time the same way
        by_status = sorted(infos, key=lambda i: (i.status, i.created))
        await wait_until(pilot, lambda: ids() == [i.id for i in by_status[:50]])
        for _ in range(5):  # run, workload, accel, params, samples/s (highest first)
            await pilot.press("s")
        rated = [i for i in infos if i.summary.samples_per_s is not None]
        by_rate = sorted(rated, key=lambda i: (i.summary.samples_per_s, i.created),
                         reverse=True) + sorted((i for i in infos if i not in rated),
                                                key=lambda i: i.created, reverse=True)
        await wait_until(pilot, lambda: screen.sort_column == "samples/s"
                         and ids() == [i.id for i in by_rate[:50]])
        shown = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert [cell for cell in shown if cell.startswith("● ")] == [
            f"● {i.id}" for i in by_rate[:50] if i.id in screen.marked] != []
        assert screen.marked == [newest[0].id, newest[200].id]


async def test_the_run_view_shows_a_commands_real_step_lines_live(runner):
    """A command printing Megatron-DeepSpeed's and nanoGPT's real lines, a few a second, with
    no dialect for either: while it runs, the run view shows the progress of its steps, their
    samples/s in the throughput panel and its loss, TFLOP/s and MFU in the metrics table."""
    import shlex
    import sys

    from tests.helpers import FIXTURES

    replay = FIXTURES.parent / "standins" / "replay_lines.py"
    frameworks = FIXTURES / "real" / "frameworks"
    logs = [frameworks / "megatron_deepspeed_alcf_checkpoint_crash.log",
            frameworks / "nanogpt_shakespeare_char_v100.log"]
    command = shlex.join([sys.executable, str(replay), "0.15", *map(str, logs)])
    spec = spec_from_dict({"name": "replay", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": command}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        metrics = view.query_one("#metrics", DataTable)

        def shown(name: str) -> str | None:
            return str(metrics.get_row(name)[1]) if name in metrics.rows else None

        await wait_until(pilot, lambda: "200" in str(view.query_one("#progress-text").render())
                         and shown("loss") is not None, timeout=60)
        assert not view.follower.ended  # while the job still prints
        assert "200/317,892 steps" in str(view.query_one("#progress-text").render())
        figures = str(view.query_one("#throughput .figures").render())
        assert "52.8" in figures or "53.8" in figures, figures  # its samples per second
        assert shown("loss") in ("5.905", "5.897"), shown("loss")
        assert shown("tflops") is not None
        await wait_until(pilot, lambda: shown("mfu_percent") is not None, timeout=60)
        assert not view.follower.ended  # nanoGPT's mfu arrives while it runs too
        runner.open(view.follower.run_id).cancel(grace=1)


async def test_saving_over_an_existing_preset_asks_first(runner, home):
    """A preset of that name exists (with its comments): Save asks; No keeps it as it was,
    Yes replaces it."""
    from accelbench.tui.screens.confirm import Confirm

    existing = user_dir() / "mine.toml"
    existing.parent.mkdir(parents=True, exist_ok=True)
    kept = '# tuned by hand: do not lose this\nname = "mine"\nworkload = "mnist_cnn"\n'
    existing.write_text(kept)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.availability and screen.base is not None)
        for answer in ("n", "y"):
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: bool(app.screen.query("#preset-name")))
            app.screen.query_one("#preset-name", Input).value = "mine"
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, Confirm))
            assert "mine.toml exists" in str(app.screen.question)
            await pilot.press(answer)
            if answer == "n":
                await pilot.pause()
                assert existing.read_text() == kept
                await pilot.press("escape")  # the save dialog
                await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(pilot, lambda: app.screen is screen and existing.read_text() != kept)
        assert "do not lose this" not in existing.read_text()
        assert load_preset(existing).name == "mine"
