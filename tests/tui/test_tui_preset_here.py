"""Pilot tests at 80x24 of the presets the app offers (issue 24, smaller points): a preset
whose launcher can start no job here (Slurm's, where ``sbatch --test-only`` fails) is marked
in the preset picker with why and its Run refused, asked off the UI thread; a saved preset
never keeps the description of a preset the form no longer is."""

import os

import pytest
from textual.widgets import Button, Input, OptionList

from accelbench.engine.config.presets import find_preset, user_dir
from accelbench.engine.config.spec import load_preset
from accelbench.engine.launchers.slurm import commands
from accelbench.engine.plugin import registry
from accelbench.engine.plugin.system import Availability
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.preset_picker import PresetPicker
from accelbench.tui.screens.save_preset import SavePreset
from tests.helpers import launch, wait_until

SIZE = (80, 24)
# what sbatch says where no controller can be found (as in tests/cli/test_cli_first_hour.py)
NO_CONTROLLER = ("echo 'sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown"
                 " host' >&2\necho 'sbatch: fatal: Could not establish a configuration source'"
                 " >&2\nexit 1\n")
SUBMITS = ("echo 'sbatch: Job 7 to start at 2026-01-01T00:00:00 using 1 processors on nodes n1"
           " in partition debug' >&2\n")
REFUSED = ("sbatch --test-only failed: sbatch: fatal: Could not establish a configuration"
           " source")


@pytest.fixture
def fake_sbatch(tmp_path, monkeypatch):
    """A stand-in ``sbatch`` first on PATH that answers once ``gate`` exists (never the
    machine's Slurm: detection is fixed, the probe's answer forgotten before and after)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    gate = tmp_path / "gate"

    def answering(script: str):
        (tools / "sbatch").write_text(
            f"#!/bin/sh\nfor i in $(seq 200); do [ -e {gate} ] && break; sleep 0.05; done\n"
            + script)
        (tools / "sbatch").chmod(0o755)
        return gate

    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(registry, "detect_all", lambda: {
        name: Availability(name == "cpu", detail="2 cores", reason=f"no {name} here")
        for name in registry.systems()})
    commands.submit_refused.cache_clear()
    yield answering
    commands.submit_refused.cache_clear()


def picker_line(picker: PresetPicker, name: str) -> str:
    options = picker.query_one("#preset-list", OptionList)
    return str(options.get_option(name).prompt)


async def test_a_slurm_preset_is_not_usable_where_sbatch_fails_asked_off_the_ui_thread(
        runner, fake_sbatch):
    gate = fake_sbatch(NO_CONTROLLER)
    app = AccelbenchApp(runner, load_preset(find_preset("slurm-cpu-mnist")))
    async with app.run_test(size=SIZE) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.base is not None and screen.availability)
        run = screen.query_one("#run", Button)
        assert not run.disabled  # sbatch is being asked; meanwhile the app answers:
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen is not screen)
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.screen is screen)
        gate.touch()
        await wait_until(pilot, lambda: run.disabled, timeout=20)
        status = " ".join(str(screen.query_one("#form-status").content).split())
        assert status == f"launcher slurm cannot start a job here: {REFUSED}"
        await pilot.press("ctrl+r")
        await pilot.pause(0.2)
        assert not runner.store.list()  # nothing started

        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PresetPicker)
                         and app.screen.refused)
        picker = app.screen
        assert picker_line(picker, "slurm-cpu-mnist").startswith(
            "○ slurm-cpu-mnist  not usable here · built-in · ")
        assert picker_line(picker, "cpu-mnist").startswith("cpu-mnist  built-in · ")
        assert picker_line(picker, "gpu-mnist").startswith("○ gpu-mnist  not usable here")
        options = picker.query_one("#preset-list", OptionList)
        options.highlighted = options.get_option_index("slurm-cpu-mnist")
        await pilot.pause()
        detail = picker.query_one("#preset-detail")
        assert str(detail.content).startswith(f"not usable here: launcher slurm: {REFUSED}\n")
        assert picker.query_one(".dialog").content_region.contains_region(detail.region)


async def test_a_slurm_preset_is_usable_where_sbatch_would_submit(runner, fake_sbatch):
    fake_sbatch(SUBMITS).touch()
    app = AccelbenchApp(runner, load_preset(find_preset("slurm-cpu-mnist")))
    async with app.run_test(size=SIZE) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.refused.get("slurm") == "")
        await pilot.pause()
        assert not screen.query_one("#run", Button).disabled
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PresetPicker)
                         and app.screen.refused)
        assert picker_line(app.screen, "slurm-cpu-mnist").startswith("slurm-cpu-mnist  built-in")


async def test_a_saved_preset_asks_for_a_description_once_the_form_is_another(runner, home):
    app = AccelbenchApp(runner, load_preset(find_preset("cpu-mnist")))
    async with app.run_test(size=SIZE) as pilot:
        screen = launch(app)
        await wait_until(pilot, lambda: screen.base is not None and screen.query("#param-epochs"))
        await pilot.press("ctrl+s")  # the form is the preset: its description is offered
        await wait_until(pilot, lambda: isinstance(app.screen, SavePreset))
        assert app.screen.query_one("#preset-description", Input).value == (
            "MNIST CNN on the CPU, 1 epoch on 12,800 images (quick check)")
        assert not app.screen.query("#save-note")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        screen.query_one("#param-epochs", Input).value = "3"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, SavePreset))
        dialog = app.screen
        description = dialog.query_one("#preset-description", Input)
        assert description.value == ""  # not "1 epoch": asked
        note = dialog.query_one("#save-note")
        assert dialog.query_one(".dialog").content_region.contains_region(note.region)
        assert " ".join(str(note.content).split()) == (
            "the form differs from preset cpu-mnist (epochs): its description is left for"
            " you to write")
        dialog.query_one("#preset-name", Input).value = "mnist-3"
        description.value = "MNIST CNN on the CPU, 3 epochs"
        await pilot.click("#save")
        saved = user_dir() / "mnist-3.toml"
        await wait_until(pilot, lambda: saved.is_file() and app.screen is screen)
        kept = load_preset(saved)
        assert (kept.description, kept.params["epochs"]) == ("MNIST CNN on the CPU, 3 epochs", 3)
