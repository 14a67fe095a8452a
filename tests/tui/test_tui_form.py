"""Pilot tests of the launch form at 80x24: yes/no knobs say their state, the accelerator
panel follows a loaded preset, help wraps, and Run shows the knob it is refused for."""

from textual.widgets import Button, Input, Static

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import load_preset
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.widgets.param_form import ParamForm
from tests.helpers import launch, wait_until


async def loaded(pilot, app, preset: str):
    screen = launch(app)
    await wait_until(pilot, lambda: screen.availability and screen.base is not None)
    screen.load_spec(load_preset(find_preset(preset)))
    await pilot.pause()
    return screen


async def test_a_trainium_preset_shows_trainium_and_its_switches_state(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot, app, "trainium-bert-padding-32-profile")
        status = str(screen.query_one("#accelerator-status", Static).content)
        assert "Trainium" in status and "CPU" not in status
        profile, precompile = (screen.query_one(f"#param-{n}") for n in ("profile",
                                                                         "precompile"))
        assert (str(profile.label), str(precompile.label)) == ("on", "off")
        assert profile.size.height == 1  # one line, not a three-line switch cut to one
        precompile.focus()
        await pilot.press("space")
        await pilot.pause()
        assert str(precompile.label) == "on"
        assert screen.current_spec().params["precompile"] is True
        assert screen.query_one("#help-model").size.height >= 2  # wrapped, not cut


async def test_run_refused_shows_the_knob_it_is_refused_for(runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot, app, "cpu-bert-finetune-tiny")
        form = screen.query_one(ParamForm)
        seed = screen.query_one("#param-seed", Input)
        seed.value = "x"
        await pilot.pause()
        form.scroll_home(animate=False)
        await pilot.pause()
        assert not form.region.contains_region(seed.region)  # out of sight
        assert screen.query_one("#run", Button).disabled
        await pilot.press("ctrl+r")
        await pilot.pause(0.3)
        assert app.focused is seed
        assert form.region.contains_region(seed.region)
