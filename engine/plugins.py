"""Plug-ins: objects that distributions register under an entry-point group.

accelbench registers its own systems and launchers in ``pyproject.toml`` exactly as
a third-party package would, so every registry is read from entry points and none
is kept by hand. A plug-in that does not load, is of the wrong kind, or takes a name
already taken is a ``UserError`` naming it and the distribution it came from.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar, overload

from accelbench.engine.errors import UserError

T = TypeVar("T")


def _origin(entry: EntryPoint) -> str:
    dist = entry.dist
    return f"{entry.group} entry point {entry.name!r} = {entry.value!r}" + (
        f" of {dist.name} {dist.version}" if dist is not None else "")


# A concrete kind types the result; an abstract one (which mypy refuses for ``type[T]``, as
# such a class could be called) takes the second form and its caller annotates the result,
# which the ``isinstance`` check below guarantees.
@overload
def load(group: str, kind: type[T]) -> dict[str, T]: ...
@overload
def load(group: str, kind: type) -> dict[str, Any]: ...


def load(group: str, kind: type) -> dict[str, Any]:
    """Every object registered under ``group``, by entry-point name, each checked to be a
    ``kind`` whose ``name`` is its entry point's."""
    found: dict[str, Any] = {}
    for entry in entry_points(group=group):
        try:
            obj = entry.load()
        except Exception as exc:  # noqa: BLE001 - a plug-in's own bug, reported as its
            raise UserError(f"{_origin(entry)}: cannot load: {type(exc).__name__}: {exc}",
                            hint="fix or uninstall that package") from None
        if not isinstance(obj, kind):
            raise UserError(f"{_origin(entry)}: expected a {kind.__name__},"
                            f" got {type(obj).__name__}")
        name = getattr(obj, "name", entry.name)
        if name != entry.name:
            raise UserError(f"{_origin(entry)}: names itself {name!r}",
                            hint="the entry point's name and the object's must agree")
        if entry.name in found:
            raise UserError(f"{_origin(entry)}: the name {entry.name!r} is taken twice",
                            hint="uninstall one of the two packages")
        found[entry.name] = obj
    return found
