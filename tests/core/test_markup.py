"""Issue #10 item 8: user and job strings are never read as Rich or Textual markup."""

import json
import shlex
import sys

from textual.widgets import DataTable, Static

from accelbench.engine.config.spec import spec_from_dict
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.preset_picker import PresetPicker
from accelbench.tui.screens.run_view import RunView
from tests.helpers import accelbench, wait_until

NAMES = ("[/]", "[bold]x")


def echo(text: str) -> str:
    return shlex.join([sys.executable, "-c", f"print({text!r})"])


def test_cli_run_show_runs_compare_with_markup_in_names(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    ids = []
    for name in NAMES:
        out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                         f"command={echo(f'{name} [red]said[/red] [/]')}", "--set", f"name={name}")
        assert out.returncode == 0, out.stderr  # was MarkupError after the run had run
        assert f"{name} (" in out.stdout  # the summary's title, as typed
        ids.append(json.loads(accelbench("runs", "--format", "json").stdout)[0]["id"])
    for run_id, name in zip(ids, NAMES, strict=True):
        shown = accelbench("show", run_id)
        assert shown.returncode == 0, shown.stderr  # was MarkupError every time
        assert f"{name} ({run_id})" in shown.stdout
        assert f"{name} [red]said[/red] [/]" in shown.stdout.splitlines()  # the log line
    assert accelbench("runs").returncode == 0
    compared = accelbench("compare", *ids)
    assert compared.returncode == 0, compared.stderr
    assert "[bold]x [red]said[/red] [/]" in compared.stdout  # the knob that differs


def test_cli_presets_lists_a_user_preset_whose_error_holds_markup(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    presets = home.parent / "config" / "presets"
    presets.mkdir(parents=True)
    (presets / "bad.toml").write_text('workload = "mnist_cnn"\n[params]\nepochs = "[/]"\n')
    (presets / "odd.toml").write_text('workload = "mnist_cnn"\ndescription = "[bold]x[/] y"\n')
    out = accelbench("presets")
    assert out.returncode == 0, out.stderr  # was MarkupError: the listing died
    assert "params.epochs: expected an integer in [1, 1000], got '[/]'" in out.stdout
    assert "[bold]x[/] y" in out.stdout and "cpu-mnist" in out.stdout


async def test_tui_shows_markup_in_names_and_values_literally(runner):
    """An experiment named ``[bold]x`` whose variants run commands holding ``[/]``: its view,
    a run's view and the comparison show them as typed."""
    spec = spec_from_dict({"name": "[bold]x", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "true"},
                           "sweep": {"variants": [{"command": echo(n)} for n in NAMES]}})
    labels = [f"command={echo(n)}" for n in NAMES]
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ExperimentView))
        view = app.screen
        table = view.query_one(DataTable)
        await wait_until(pilot, lambda: view.experiment.status() == "done", timeout=60)
        await wait_until(pilot, lambda: [str(table.get_row_at(i)[2]) for i in (0, 1)]
                         == ["done"] * 2, timeout=10)
        assert [str(table.get_row_at(i)[1]) for i in (0, 1)] == labels
        assert str(view.query_one("#experiment-banner", Static).content).startswith("[bold]x ")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        run_view = app.screen
        await wait_until(pilot, lambda: "[/]" in run_view.query_one("#log").lines)
        assert run_view.sub_title.startswith("[bold]x command=")
        await pilot.press("escape", "v")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        compared = app.screen.query_one("#compare-settings", DataTable)  # the knobs
        await wait_until(pilot, lambda: compared.row_count == 2)
        assert [str(compared.get_row_at(i)[1]) for i in (0, 1)] == [echo(n) for n in NAMES]
        await pilot.press("escape", "escape", "f3")
        await wait_until(pilot, lambda: app.screen.query(DataTable)
                         and app.screen.query_one(DataTable).row_count == 2)
        await pilot.pause(0.3)
        assert app.is_running  # every screen drew: a MarkupError would have ended the app


async def test_tui_preset_picker_shows_a_preset_error_holding_markup(home, runner):
    presets = home.parent / "config" / "presets"
    presets.mkdir(parents=True)
    (presets / "bad.toml").write_text('workload = "mnist_cnn"\n[params]\nepochs = "[/]"\n')
    app = AccelbenchApp(runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PresetPicker))
        picker = app.screen
        options = picker.query_one("#preset-list")
        options.highlighted = list(picker.entries).index("bad")
        await pilot.pause(0.2)
        detail = str(picker.query_one("#preset-detail", Static).content)
        assert detail.endswith("params.epochs: expected an integer in [1, 1000], got '[/]'")
        await pilot.press("enter")  # a broken preset: its error as a notification
        await pilot.pause(0.2)
        assert app.is_running and isinstance(app.screen, PresetPicker)
