"""The one exception type for a user's mistake: shown as one line, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix: a clear message and, where it helps, a hint."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def prefixed(self, where: str) -> "UserError":
        """The same error with ``where`` (a file, a key) put in front."""
        return UserError(f"{where}: {self.message}", self.hint)

    def __str__(self) -> str:
        return self.message


def lookup(table: dict, name: str, what: str):
    """``table[name]``, or a ``UserError`` naming the unknown ``what`` and the known ones."""
    try:
        return table[name]
    except KeyError:
        raise UserError(f"unknown {what} {name!r}",
                        hint=f"known {what}s: " + ", ".join(table)) from None
