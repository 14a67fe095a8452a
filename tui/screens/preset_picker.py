"""A dialog listing the presets; picking one returns its spec."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from accelbench.engine.config.presets import PresetEntry
from accelbench.engine.core.job import JobSpec


class PresetPicker(ModalScreen[JobSpec | None]):
    """Built-in and user presets (``entries``, read by the caller off the UI thread); broken ones
    are listed with their error, not loadable."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close", id="presets.close",
                tooltip="Close without loading")]

    def __init__(self, entries: list[PresetEntry]) -> None:
        super().__init__()
        self.entries: dict[str, PresetEntry] = {e.name: e for e in entries}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Load a preset", classes="dialog-title")
            yield OptionList(*[self._option(e) for e in self.entries.values()], id="preset-list")
            yield Static(id="preset-detail")

    def _option(self, entry: PresetEntry) -> Option:
        """A preset's line (its name and description are the user's: Content, never markup)."""
        if entry.spec is None:
            return Option(Content.assemble((f"✗ {entry.name}", "red"), "  ",
                                           (entry.origin, "dim")), id=entry.name)
        about = f"{entry.origin} · {entry.spec.description}"
        return Option(Content.assemble(entry.name, "  ", (about, "dim")), id=entry.name)

    def _entry(self, option: Option) -> PresetEntry:
        """The preset an option shows (each option's id is its preset's name)."""
        assert option.id is not None
        return self.entries[option.id]

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        entry = self._entry(event.option)
        self.query_one("#preset-detail", Static).update(
            Content.styled(entry.error, "red") if entry.error
            else Content.styled(str(entry.path), "dim"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        entry = self._entry(event.option)
        if entry.spec is None:
            self.notify(entry.error, title="cannot load this preset", severity="error",
                        markup=False)
            return
        self.dismiss(entry.spec)
