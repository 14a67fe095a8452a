"""Parameter schemas: the typed knobs of a workload, and their checking."""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass
from typing import Any

from accelbench.engine.core.errors import UserError, shown

_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
# what ``--set`` takes for numbers: ASCII digits only (no ``1_000``, no other scripts' digits)
_NUMBER = {int: re.compile(r"[+-]?[0-9]+", re.ASCII),
           float: re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)}
INT64 = (-2**63, 2**63 - 1)  # what a TOML file and the job's libraries can hold
# the knobs that tell runs apart at a glance, and their short names (the runs listing's)
KEY_PARAMS = {"batch_size": "bs", "max_seq_length": "seq", "learning_rate": "lr",
              "epochs": "ep"}


@dataclass(frozen=True)
class Param:
    """One knob: its type, default, allowed range or choices, and a help line.

    ``words``: a string split like a shell would (a command line); it must split.
    """

    name: str
    type: type
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] = ()
    words: bool = False
    line: bool = False  # one line of printable text (a name, a description)

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
            raise self._error(value)
        if ((self.min is not None and value < self.min)
                or (self.max is not None and value > self.max)):
            raise self._error(value)
        if self.type is str:
            self._check_text(value)
        return value

    def parse(self, text: str) -> Any:
        """Parse a command-line string (``--set``) into a checked value."""
        if self.type is bool:
            low = text.strip().lower()
            if low in _TRUE | _FALSE:
                return self.check(low in _TRUE)
        elif self.type in (int, float):
            number = text.strip()
            if _NUMBER[self.type].fullmatch(number):
                if self.type is int and len(number.lstrip("+-0")) > 19:  # int() refuses 4300 digits
                    raise self._error(text, " (a 64-bit value)")
                return self.check(self.type(number))
        else:
            return self.check(text)
        raise self._error(text)

    def _error(self, value: Any, why: str = "") -> UserError:
        return UserError(f"expected {self.expected()}{why}, got {shown(value)}")

    def _coerce(self, value: Any) -> Any:
        if self.type in (int, float) and isinstance(value, int) and not isinstance(value, bool):
            if not INT64[0] <= value <= INT64[1]:
                raise self._error(value, " (a 64-bit value)")
            value = float(value) if self.type is float else value
        if not isinstance(value, self.type) or (self.type is not bool and isinstance(value, bool)):
            raise self._error(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise self._error(value, " (a finite number)")
        return value

    def _check_text(self, value: str) -> None:
        check_text(value)
        if self.line and not value.isprintable():
            raise UserError(f"expected one line of printable text, got {shown(value)}")
        if self.words:
            try:
                shlex.split(value)
            except ValueError as exc:
                raise UserError(f"cannot split {shown(value)} like a shell would: {exc}",
                                hint="quote it as a shell would, e.g. "
                                     "echo \"two words\"") from None


def check_text(value: str) -> None:
    """Refuse text that no file or environment can hold: NUL, or bytes that were not UTF-8
    (lone surrogates, as Python decodes such command-line arguments)."""
    if "\0" in value:
        raise UserError(f"a NUL character is not allowed, got {shown(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError(f"not UTF-8 text, got {shown(value)}") from None
