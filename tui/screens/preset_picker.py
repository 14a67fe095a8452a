"""A dialog listing the presets, those that cannot run here marked with why; picking one
returns its spec."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from accelbench.engine.config.presets import PresetEntry, launchers_refused
from accelbench.engine.core.job import JobSpec
from accelbench.engine.plugin.system import Availability

NOT_HERE = "not usable here"


class PresetPicker(ModalScreen[JobSpec | None]):
    """Built-in and user presets (``entries``, read by the caller off the UI thread); broken ones
    are listed with their error, not loadable. A preset for an accelerator not detected here
    (``available``: the launch screen's detection, as far as it has come) or whose launcher
    can start no job here (asked off the UI thread once the dialog is up) is marked, still
    loadable: the form says why Run is refused."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close", id="presets.close",
                tooltip="Close without loading")]

    def __init__(self, entries: list[PresetEntry],
                 available: dict[str, Availability] | None = None) -> None:
        super().__init__()
        self.entries: dict[str, PresetEntry] = {e.name: e for e in entries}
        self.available = dict(available or {})
        self.refused: dict[str, str] = {}  # launcher: why it can start no job here

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Load a preset", classes="dialog-title")
            yield OptionList(*[Option(self._prompt(e), id=e.name) for e in self.entries.values()],
                             id="preset-list")
            yield Static(id="preset-detail")

    def on_mount(self) -> None:
        self._ask_launchers()

    @work(thread=True, exclusive=True, group="launchers")
    def _ask_launchers(self) -> None:
        """Ask the presets' launchers whether they can start a job here (Slurm's runs
        ``sbatch --test-only``: up to 10 s), then mark the presets they cannot."""
        refused = launchers_refused(list(self.entries.values()))
        self.app.call_from_thread(self._launchers_answered, refused)

    def _launchers_answered(self, refused: dict[str, str]) -> None:
        if not self.is_attached:  # (closed meanwhile)
            return
        self.refused = refused
        options = self.query_one("#preset-list", OptionList)
        for entry in self.entries.values():
            options.replace_option_prompt(entry.name, self._prompt(entry))
        if options.highlighted is not None:
            self._show_detail(self._entry(options.get_option_at_index(options.highlighted)))

    def why_not_here(self, entry: PresetEntry) -> str:
        """Why ``entry`` cannot run here, in one line ("" where it can, or not known yet)."""
        if entry.spec is None:
            return ""
        found = self.available.get(entry.spec.accelerator)
        if found is not None and not found.available:
            return f"{entry.spec.accelerator} not detected: {found.reason}"
        why = self.refused.get(entry.spec.launcher)
        return f"launcher {entry.spec.launcher}: {why}" if why else ""

    def _prompt(self, entry: PresetEntry) -> Content:
        """A preset's line (its name and description are the user's: Content, never markup)."""
        if entry.spec is None:
            return Content.assemble((f"✗ {entry.name}", "red"), "  ", (entry.origin, "dim"))
        about = f"{entry.origin} · {entry.spec.description}"
        if self.why_not_here(entry):
            return Content.assemble((f"○ {entry.name}", "red"), "  ", (NOT_HERE, "red"), " · ",
                                    (about, "dim"))
        return Content.assemble(entry.name, "  ", (about, "dim"))

    def _entry(self, option: Option) -> PresetEntry:
        """The preset an option shows (each option's id is its preset's name)."""
        assert option.id is not None
        return self.entries[option.id]

    def _show_detail(self, entry: PresetEntry) -> None:
        why = self.why_not_here(entry)
        self.query_one("#preset-detail", Static).update(
            Content.styled(entry.error, "red") if entry.error
            else Content.assemble((f"{NOT_HERE}: {why}\n", "red") if why else "",
                                  (str(entry.path), "dim")))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_detail(self._entry(event.option))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        entry = self._entry(event.option)
        if entry.spec is None:
            self.notify(entry.error, title="cannot load this preset", severity="error",
                        markup=False)
            return
        self.dismiss(entry.spec)
