"""Launch: pick an accelerator and a workload, set the knobs, run (or load/save a preset)."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.markup import escape
from textual.widgets import Button, Footer, Header, Label, OptionList, Static
from textual.widgets.option_list import Option

from accelbench.engine.config import sweep as sweeps
from accelbench.engine.config.presets import (
    PresetEntry,
    find_preset,
    launcher_refused,
    list_presets,
)
from accelbench.engine.config.spec import load_preset, spec_from_dict
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.job import JobSpec
from accelbench.engine.core.params import Param
from accelbench.engine.plugin import registry
from accelbench.engine.plugin.launcher import get_launcher
from accelbench.engine.plugin.system import Availability
from accelbench.engine.view.model import availability_cell
from accelbench.tui.messages import SpecWanted, StartRun
from accelbench.tui.nav import NavScreen
from accelbench.tui.widgets.param_form import ParamForm

NAME = Param("name", str, "run", "a short name for the run (used in its id)")


def default_spec() -> JobSpec:
    """The built-in quick MNIST preset, or the MNIST defaults if it is missing."""
    try:
        return load_preset(find_preset("cpu-mnist"))
    except UserError:
        return spec_from_dict({"name": "run", "workload": "mnist_cnn"})


class LaunchScreen(NavScreen):
    """The accelerator and workload pickers and the parameter form."""

    crumb = "Launch"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run", "Run", id="launch.run", tooltip="Start a run with these settings"),
        Binding("ctrl+o", "load_preset", "Load", id="launch.load_preset",
                tooltip="Fill the form from a preset (built-in or yours)"),
        Binding("ctrl+s", "save_preset", "Save", id="launch.save_preset",
                tooltip="Save the form as a preset in your presets directory"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.availability: dict[str, Availability] = {}
        self.refused: dict[str, str | None] = {}  # launcher: why it can start no job here
        # ("": it can; None: being asked)
        self.accelerator = "cpu"
        self.workload = "mnist_cnn"
        self.base: JobSpec | None = None  # keeps launcher, python, env of a loaded preset
        self._picked = False  # whether the user picked an accelerator

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="launch"):
            with VerticalScroll(id="pickers", can_focus=False):  # help wraps: it may scroll
                yield Label("Accelerator", classes="section")
                yield OptionList(*[Option(f"… {name}", id=name) for name in registry.systems()],
                                 compact=True, id="accelerators")
                yield Static("detecting…", id="accelerator-status")
                yield Label("Workload", classes="section")
                yield OptionList(compact=True, id="workloads")
                yield Static(id="workload-help")
            with Vertical(id="form-column"):
                yield Static(id="form-sweep")
                yield ParamForm(id="form")
                yield Static(id="form-status")
                with Horizontal(id="actions"):
                    yield Button("Run ▶", id="run", variant="success", compact=True)
                    yield Button("Load preset", id="load", compact=True)
                    yield Button("Save preset", id="save", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.post_message(SpecWanted(self._load_first))
        self.detect()

    def _load_first(self, spec: JobSpec | None) -> None:
        """The form's first contents: the spec the app was opened with, else the default."""
        if spec is not None:
            self.load_spec(spec)
        else:
            self._load_default()

    @work(thread=True, exclusive=True, group="presets")
    def _load_default(self) -> None:
        """Read the default preset off the UI thread, then fill the form with it."""
        self.app.call_from_thread(self._default_came, default_spec())

    def _default_came(self, spec: JobSpec) -> None:
        """Fill the form with the default preset, keeping an accelerator the user picked
        while it was being read."""
        picked = self.accelerator if self.base is None and self._picked else None
        self.load_spec(spec)
        if picked is not None and picked != spec.accelerator:
            self.select_accelerator(picked)

    @work(thread=True, exclusive=True, group="detect")
    def detect(self) -> None:
        """Detect every accelerator off the UI thread (a driver probe may be slow)."""
        found = registry.detect_all()
        self.app.call_from_thread(self._show_detection, found)

    def _show_detection(self, found: dict[str, Availability]) -> None:
        self.availability = found
        options = self.query_one("#accelerators", OptionList)
        for name, avail in found.items():
            mark = "[green]●[/]" if avail.available else "[red]○[/]"
            options.replace_option_prompt(name, f"{mark} {name}")
        self._show_accelerator_status()
        self._update_run_button()

    @work(thread=True, group="launchers")
    def _ask_launcher(self, name: str) -> None:
        """Whether launcher ``name`` can start a job here, off the UI thread (Slurm's runs
        ``sbatch --test-only``: up to 10 s)."""
        self.app.call_from_thread(self._launcher_answered, name, launcher_refused(name))

    def _launcher_answered(self, name: str, why: str) -> None:
        self.refused[name] = why
        self._update_run_button()

    def load_spec(self, spec: JobSpec) -> None:
        """Fill pickers and form from ``spec``."""
        self.base = spec
        self.accelerator, self.workload = spec.accelerator, spec.workload
        if spec.launcher not in self.refused:
            self.refused[spec.launcher] = None
            self._ask_launcher(spec.launcher)
        options = self.query_one("#accelerators", OptionList)
        with self.prevent(OptionList.OptionHighlighted):
            options.highlighted = options.get_option_index(spec.accelerator)
        self._show_accelerator_status()
        self._fill_workloads()
        self._fill_form({"name": spec.name, **spec.params})

    def select_accelerator(self, name: str) -> None:
        """Pick accelerator ``name`` as if the user had."""
        options = self.query_one("#accelerators", OptionList)
        options.highlighted = options.get_option_index(name)
        options.focus()

    def _fill_workloads(self) -> None:
        workloads = self.query_one("#workloads", OptionList)
        catalog = registry.workloads()
        names = [w.name for w in catalog.values()
                 if w.launchable and w.runs_on(self.accelerator)]
        if self.workload not in names:
            self.workload = names[0]
        with self.prevent(OptionList.OptionHighlighted):
            workloads.clear_options()
            workloads.add_options([Option(f"{escape(catalog[n].title)} [dim]({n})[/]", id=n)
                                   for n in names])
            workloads.highlighted = names.index(self.workload)

    def _fill_form(self, values: dict) -> None:
        if self.base is None:  # no spec yet: load_spec fills the form when it comes
            return
        workload = registry.get_workload(self.workload)
        door = get_launcher(self.base.launcher).describe(self.base)
        # Content, not markup: the launcher's options and the [sweep] values are the user's
        help_text = Content.assemble(workload.description, "\n", ("launcher", "bold"), f": {door}")
        self.query_one("#workload-help", Static).update(help_text)
        swept = self._swept()
        note = self.query_one("#form-sweep", Static)
        note.display = self.base.sweep is not None and bool(swept)
        if self.base.sweep and swept:
            note.update(Content.assemble(
                ("sweep", "bold reverse"), f" {sweeps.count(self.base.sweep)} runs (an"
                " experiment), varying ", ("; ".join(f"{k} = {', '.join(map(str, v))}"
                                                     for k, v in swept.items()), "bold")))
        self.query_one(ParamForm).set_params([NAME, *workload.params], values,
                                             {k.removeprefix("params."): v
                                              for k, v in swept.items()})
        self._update_run_button()

    def _swept(self) -> dict[str, list]:
        """The knobs the loaded preset's sweep varies, each with its values, where the sweep
        applies (the preset's own workload): ``{"max_seq_length": [16, 32, 64, 128]}``."""
        if self.base is None or not self.base.sweep or self.base.workload != self.workload:
            return {}
        sweep = self.base.sweep
        out = {key: list(values) for key, values in sweeps.axes(sweep).items()}
        for variant in sweep["variants"]:
            for key, value in variant.items():
                out.setdefault(key, [])
                if value not in out[key]:
                    out[key].append(value)
        return out

    def _show_accelerator_status(self) -> None:
        avail = self.availability.get(self.accelerator)
        status = self.query_one("#accelerator-status", Static)
        if avail is None:
            status.update("detecting…")
        else:
            title = registry.get_accelerator(self.accelerator).title
            found = availability_cell(avail.available)
            why = avail.detail if avail.available else avail.reason
            status.update(Content.assemble((title, "bold"), "\n", (found.text, found.style),
                                           f": {why}"))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        choice = event.option.id
        assert choice is not None  # every option is keyed by its name
        if event.option_list.id == "accelerators" and choice != self.accelerator:
            self.accelerator, self._picked = choice, True
            self._show_accelerator_status()
            previous = self.workload
            self._fill_workloads()
            if self.workload != previous:
                self._fill_form({})
            self._update_run_button()
        elif event.option_list.id == "workloads" and choice != self.workload:
            self.workload = choice
            self._fill_form({})

    def on_param_form_validity_changed(self, event: ParamForm.ValidityChanged) -> None:
        self._update_run_button()

    def _update_run_button(self) -> None:
        form = self.query_one(ParamForm)
        avail = self.availability.get(self.accelerator)
        problem = ""
        if not form.valid:
            problem = f"fix {', '.join(form.errors)} to run"
        elif avail is not None and not avail.available:
            problem = f"{self.accelerator} is not available here: {avail.reason}"
        elif self.base is not None and (why := self.refused.get(self.base.launcher)):
            problem = f"launcher {self.base.launcher} cannot start a job here: {why}"
        self.query_one("#run", Button).disabled = bool(problem)
        self.query_one("#form-status", Static).update(Content.styled(problem, "red"))

    def current_spec(self) -> JobSpec:
        """The spec the form describes (``UserError`` if it does not validate)."""
        if self.base is None:
            raise UserError("the form is still loading", hint="try again in a moment")
        values = self.query_one(ParamForm).values()
        name = values.pop("name")
        data = {**self.base.to_dict(), "name": name, "accelerator": self.accelerator,
                "workload": self.workload, "params": {}}
        if not self._swept():
            data.pop("sweep", None)  # another workload: the preset's sweep does not apply
        return spec_from_dict(data, [f"params.{k}={v}" for k, v in values.items()],
                              source="form")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        assert event.button.id is not None  # every button has its action's id
        {"run": self.action_run, "load": self.action_load_preset,
         "save": self.action_save_preset}[event.button.id]()

    def action_run(self) -> None:
        if self.query_one("#run", Button).disabled:
            self.query_one(ParamForm).show_first_error()
            self.notify(str(self.query_one("#form-status", Static).content) or "cannot run yet",
                        severity="warning", markup=False)
            return
        try:
            spec = self.current_spec()
        except UserError as exc:
            self.notify(str(exc), title="cannot run", severity="error", markup=False)
            return
        self.post_message(StartRun(spec))

    def action_load_preset(self) -> None:
        self._read_presets()

    @work(thread=True, exclusive=True, group="presets")
    def _read_presets(self) -> None:
        """Read the presets off the UI thread, then show the picker."""
        self.app.call_from_thread(self._pick_preset, list_presets())

    def _pick_preset(self, entries: list[PresetEntry]) -> None:
        from accelbench.tui.screens.preset_picker import PresetPicker

        def loaded(spec: JobSpec | None) -> None:
            if spec is not None:
                self.load_spec(spec)
                self.notify(f"preset {spec.name} loaded", markup=False)

        self.app.push_screen(PresetPicker(entries, self.availability), loaded)

    def action_save_preset(self) -> None:
        from accelbench.tui.screens.save_preset import SavePreset

        try:
            spec = self.current_spec()
        except UserError as exc:
            self.notify(str(exc), title="cannot save", severity="error", markup=False)
            return
        self.app.push_screen(SavePreset(spec, self._changes(spec),
                                        self.base.name if self.base else ""))

    def _changes(self, spec: JobSpec) -> list[str]:
        """The keys ``spec`` (the form's) sets otherwise than the loaded preset, its knobs
        by their name (its name and description aside)."""
        if self.base is None:
            return []
        was, now = self.base.to_dict(), spec.to_dict()
        knobs_was, knobs_now = was.pop("params"), now.pop("params")
        for same in ("name", "description"):
            was.pop(same), now.pop(same)
        return [key for old, new in ((was, now), (knobs_was, knobs_now))
                for key in dict.fromkeys([*old, *new]) if old.get(key) != new.get(key)]
