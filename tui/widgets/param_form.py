"""A form generated from a parameter schema, checked as the user types."""

from __future__ import annotations

from typing import Any, Literal

from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.params import Param


class Toggle(Checkbox):
    """A yes/no knob in one line that says its state: ``▐X▌ on`` or ``▐ ▌ off``."""

    def __init__(self, value: bool, **kwargs) -> None:
        super().__init__("", value, compact=True, **kwargs)
        self.watch_value()

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        self.label = "on" if self.value else "off"


class ParamForm(VerticalScroll):
    """One row per knob: an input typed by the schema, its help, and its error if any; a
    knob a sweep sets shows the sweep's values instead, not to be edited."""

    class ValidityChanged(Message):
        """Posted when the form turns valid or invalid."""

        def __init__(self, valid: bool) -> None:
            super().__init__()
            self.valid = valid

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.params: list[Param] = []
        self.errors: dict[str, str] = {}
        self.swept: dict[str, list[Any]] = {}

    def set_params(self, params: list[Param], values: dict[str, Any],
                   swept: dict[str, list[Any]] | None = None) -> None:
        """Rebuild the form for ``params`` with initial ``values`` (defaults for the rest);
        ``swept``: the knobs a sweep sets, each with the values it takes."""
        self.params = list(params)
        self.errors = {}
        self.swept = {k: v for k, v in (swept or {}).items()
                      if any(p.name == k for p in self.params)}
        self.remove_children()
        initial = {p.name: values.get(p.name, p.default) for p in self.params}
        self.errors = {p.name: error for p in self.params if p.name not in self.swept
                       and (error := problem(p, _text(initial[p.name])))}
        self.mount_all([self._row(p, initial[p.name]) for p in self.params])
        self.post_message(self.ValidityChanged(self.valid))

    def _row(self, param: Param, value: Any) -> Horizontal:
        field: Widget
        if param.name in self.swept:  # the sweep's values, each run one: never edited
            values = self.swept[param.name]
            field = Input(", ".join(map(str, values)), compact=True, disabled=True,
                          id=f"param-{param.name}")
            field.tooltip = f"{param.help}\nset by the sweep: one value a run"
            return Horizontal(
                Label(param.name, classes="param-name"), field,
                Static(Content(f"swept: {len(values)} values, one a run (the preset's"
                               " [sweep])"),
                       classes="param-help -swept", id=f"help-{param.name}"),
                classes="param-row")
        if param.choices:
            field = Select([(str(c), c) for c in param.choices], value=value, allow_blank=False,
                           compact=True, id=f"param-{param.name}")
        elif param.type is bool:
            field = Toggle(bool(value), id=f"param-{param.name}")
        else:
            kind: Literal["integer", "number", "text"] = (
                "integer" if param.type is int else "number" if param.type is float else "text")
            field = Input(str(value), type=kind, compact=True, id=f"param-{param.name}")
        field.tooltip = f"{param.help}\nexpected: {param.expected()}"
        error = self.errors.get(param.name)
        help_line = Static(Content(f"✗ {error}") if error else Content(param.help),
                           classes="param-help", id=f"help-{param.name}")
        help_line.set_class(bool(error), "-invalid")
        return Horizontal(Label(param.name, classes="param-name"), field, help_line,
                          classes="param-row")

    def values(self) -> dict[str, str]:
        """Every knob's current value as text (what ``--set`` would take), but those the
        sweep sets."""
        out = {}
        for param in self.params:
            if param.name in self.swept:
                continue
            field = self.query_one(f"#param-{param.name}")
            if isinstance(field, Toggle):
                out[param.name] = "true" if field.value else "false"
            else:
                assert isinstance(field, Input | Select)  # the fields _row makes
                out[param.name] = str(field.value)
        return out

    def show_first_error(self) -> None:
        """Scroll to the first knob in error and focus it (Run names it: it must be seen)."""
        name = next((p.name for p in self.params if p.name in self.errors), None)
        if name is not None:
            field = self.query_one(f"#param-{name}")
            self.scroll_to_widget(field)
            field.focus()

    @property
    def valid(self) -> bool:
        """True when every knob holds a valid value."""
        return not self.errors

    def _check(self, name: str, text: str) -> None:
        param = next((p for p in self.params if p.name == name), None)
        if param is None or name in self.swept:  # a message from before the form changed
            return  # knobs; the sweep's values (checked when the preset loaded)
        was_valid = self.valid
        error = problem(param, text)
        if error is None:
            self.errors.pop(name, None)
            message, invalid = Content(param.help), False
        else:  # the message holds what the user typed: never markup
            self.errors[name] = error
            message, invalid = Content(f"✗ {error}"), True
        help_line = self.query_one(f"#help-{name}", Static)
        help_line.update(message)
        help_line.set_class(invalid, "-invalid")
        if was_valid != self.valid:
            self.post_message(self.ValidityChanged(self.valid))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check(_param_name(event.input), event.value)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._check(_param_name(event.select), str(event.value))


def problem(param: Param, text: str) -> str | None:
    """Why ``text`` cannot be knob ``param``'s value for a run, or None: it does not parse,
    or it is a command line with no command in it."""
    try:
        param.parse(text)
    except UserError as exc:
        return str(exc)
    if param.words and not text.strip():  # Run would start nothing
        return "expected a command to run, got ''"
    return None


def _text(value: Any) -> str:
    """A knob's value as its field holds it (a toggle's as ``--set`` takes it)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _param_name(field: Widget) -> str:
    """The knob a field edits (its id is ``param-<name>``)."""
    assert field.id is not None
    return field.id.removeprefix("param-")
