"""Parameter schemas: the typed knobs of a workload, and their checking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import UserError

_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class Param:
    """One knob: its type, default, allowed range or choices, and a help line."""

    name: str
    type: type
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] = ()

    @property
    def flag(self) -> str:
        """The command-line flag a workload script takes for this knob."""
        return "--" + self.name.replace("_", "-")

    def expected(self) -> str:
        """What a valid value looks like, for error messages and help."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        text = _TYPE_NAMES[self.type]
        if self.min is not None and self.max is not None:
            text += f" in [{self.min:g}, {self.max:g}]"
        elif self.min is not None:
            text += f" >= {self.min:g}"
        elif self.max is not None:
            text += f" <= {self.max:g}"
        return text

    def check(self, value: Any) -> Any:
        """Return ``value`` as this knob's type, or raise ``UserError``."""
        value = self._coerce(value)
        if self.choices and value not in self.choices:
            raise UserError(f"expected {self.expected()}, got {value!r}")
        if self.min is not None and value < self.min or self.max is not None and value > self.max:
            raise UserError(f"expected {self.expected()}, got {value!r}")
        return value

    def parse(self, text: str) -> Any:
        """Parse a command-line string (``--set``) into a checked value."""
        if self.type is bool:
            low = text.strip().lower()
            if low in _TRUE | _FALSE:
                return self.check(low in _TRUE)
        elif self.type in (int, float):
            try:
                return self.check(self.type(text))
            except ValueError:
                pass
        else:
            return self.check(text)
        raise UserError(f"expected {self.expected()}, got {text!r}")

    def _coerce(self, value: Any) -> Any:
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, self.type) or (self.type is not bool and isinstance(value, bool)):
            raise UserError(f"expected {self.expected()}, got {value!r}")
        return value
