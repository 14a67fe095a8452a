"""The one exception type for a user's mistake: shown as one line, never a traceback."""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

V = TypeVar("V")


class UserError(Exception):
    """A problem the user can fix: a clear message and, where it helps, a hint."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def prefixed(self, where: str) -> UserError:
        """The same error with ``where`` (a file, a key) put in front."""
        return UserError(f"{where}: {self.message}", self.hint)

    def __str__(self) -> str:
        return self.message


def lookup(table: Mapping[str, V], name: str, what: str) -> V:
    """``table[name]``, or a ``UserError`` naming the unknown ``what`` and the known ones."""
    try:
        return table[name]
    except KeyError:
        raise UserError(f"unknown {what} {shown(name)}",
                        hint=known_hint(name, table, f"{what}s")) from None


def close_to(name: str, known: Iterable[str]) -> str | None:
    """The one of ``known`` that ``name`` is most likely a typo of, if any is close."""
    import difflib  # (only here: where a name is unknown)

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def known_hint(name: str, known: Iterable[str], what: str) -> str:
    """The hint for an unknown ``name``: the close one first (``did you mean 'epochs'?``),
    then every known one (``what``: their kind, plural)."""
    known = list(known)
    close = close_to(name, known)
    listing = f"known {what}: {', '.join(known)}"
    return f"did you mean {close!r}? {listing}" if close else listing


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlevel, _REPR.fillvalue = 3, "…"
SHOWN_MAX = 160  # characters of a value shown in a message, whatever its shape


def shown(value: Any) -> str:
    """A user's value for a one-line message: its repr (newlines, NUL... escaped), long
    strings and deep or long lists cut with an ellipsis."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an integer too long to print
        return f"an integer of {value.bit_length()} bits"
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX - 1] + "…"


def shown_key(key: Any) -> str:
    """A key or a path as typed when it is printable and short (not empty), else as
    :func:`shown`."""
    text = str(key)
    return text if text and text.isprintable() and len(text) <= 300 else shown(text)
