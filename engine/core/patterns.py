"""Regular expressions compiled when first used.

Reading a log declares some three hundred patterns (each dialect's lines, each failure's
signature, each tool's output) and a file meets a fraction of them: compiled as their
modules load, they were a sixth of what ``accelbench parse`` of a small file costs.
:func:`lazy` is ``re.compile`` for a pattern declared in a module's or a class's body.
"""

from __future__ import annotations

import re
from typing import Any, cast

_KEPT = tuple(name for name in dir(re.Pattern) if not name.startswith("_"))  # match, ...


class _Lazy:
    """A pattern compiled on first use: ``pattern`` is known at once (another pattern may
    be built of it), any other attribute is the compiled one's, all of which it then keeps
    as its own (a method costs what the compiled pattern's does from then on)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern, self._flags = pattern, flags

    def __getattr__(self, name: str) -> Any:
        if "pattern" not in self.__dict__:  # (an instance that copy or pickle is making)
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        self.__dict__.update((kept, getattr(compiled, kept)) for kept in _KEPT)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when an attribute other than ``pattern`` is
    first read (an error in it is raised then). It reads as a ``re.Pattern`` in every
    attribute and method; it is not one to ``isinstance`` or as ``re.sub``'s first
    argument."""
    return cast(re.Pattern[str], _Lazy(pattern, flags))
