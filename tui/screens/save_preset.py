"""A dialog that saves the form's spec as a preset in the user's presets directory."""

from __future__ import annotations

import re
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from accelbench.engine.config.presets import user_dir
from accelbench.engine.config.spec import save_preset
from accelbench.engine.core.job import JobSpec
from accelbench.tui.screens.confirm import Confirm

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class SavePreset(ModalScreen[str | None]):
    """Asks for a file name and a description, then writes the preset. The description
    offered is the loaded preset's only while the form is that preset (``changed``: the
    keys the form sets otherwise, ``loaded``: the preset's name): else it is asked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="save.cancel",
                tooltip="Close without saving")]

    def __init__(self, spec: JobSpec, changed: list[str] | None = None, loaded: str = "") -> None:
        super().__init__()
        self.spec = spec
        self.changed = changed or []
        self.loaded = loaded

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Content(f"Save as a preset in {user_dir()}"), classes="dialog-title")
            yield Input(self.spec.name, placeholder="preset name", id="preset-name")
            yield Input("" if self.changed else self.spec.description,
                        placeholder="description (one line)", id="preset-description")
            if self.changed:
                keys = ", ".join(self.changed[:3]) + (", …" if self.changed[3:] else "")
                yield Static(Content(f"the form differs from preset {self.loaded} ({keys}):"
                                     " its description is left for you to write"),
                             id="save-note")
            yield Static(id="save-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._save()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._save()

    def _save(self) -> None:
        name = self.query_one("#preset-name", Input).value.strip()
        if not _NAME.match(name):
            self.query_one("#save-error", Static).update(
                "[red]a name of letters, digits, '.', '_' or '-'[/]")
            return
        description = self.query_one("#preset-description", Input).value.strip()
        path = user_dir() / f"{name}.toml"
        if path.exists():  # (the form's TOML would replace it: its comments are lost)
            def answered(replace: bool | None) -> None:
                if replace:
                    self._keep(name, description)
            self.app.push_screen(Confirm(f"{path} exists: replace it (its comments are"
                                         " lost)?"), answered)
            return
        self._keep(name, description)

    def _keep(self, name: str, description: str) -> None:
        self.spec.name, self.spec.description = name, description
        self._write(name)

    @work(thread=True, exclusive=True, group="save")
    def _write(self, name: str) -> None:
        """Write the preset off the UI thread, then close."""
        path = save_preset(self.spec, user_dir() / f"{name}.toml")
        self.app.call_from_thread(self._saved, str(path))

    def _saved(self, path: str) -> None:
        self.notify(f"saved {path}", markup=False)
        self.dismiss(path)
