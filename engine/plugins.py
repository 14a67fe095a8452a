"""Plug-ins: objects that distributions register under an entry-point group.

accelbench registers its own systems and launchers in ``pyproject.toml`` exactly as
a third-party package would, so every registry is read from entry points and none
is kept by hand. A plug-in that does not load, is of the wrong kind, or takes a name
already taken is a ``UserError`` naming it and the distribution it came from.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import re
import sys
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, overload

from accelbench.engine.errors import UserError

if TYPE_CHECKING:  # (importlib.metadata is imported only where a plug-in fails)
    from importlib.metadata import EntryPoint

T = TypeVar("T")
_SUFFIXES = (".dist-info", ".egg-info")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


class _Entry(NamedTuple):
    """An entry point as :func:`_entries` finds it."""

    name: str
    value: str

    def load(self) -> Any:
        """The object it names (as ``EntryPoint.load``)."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"not an object reference: {self.value!r}")
        module = importlib.import_module(match["module"])
        return functools.reduce(getattr, filter(None, (match["attr"] or "").split(".")), module)


def _normalized(name: str) -> str:
    """A distribution's name as ``importlib.metadata`` compares them."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _entries(group: str) -> list[_Entry] | None:
    """The entry points of ``group``, found as ``importlib.metadata.entry_points`` finds
    them (the distributions on ``sys.path``, in order, the first of each name) without
    importing it (a tenth of a command's start); None where it may find others (a zip or an
    egg on the path, another finder of distributions, an entry it would refuse)."""
    if any(hasattr(finder, "find_distributions")
           and finder is not importlib.machinery.PathFinder for finder in sys.meta_path):
        return None
    found: list[_Entry] = []
    seen: set[str] = set()
    for root in sys.path:
        if not isinstance(root, str):  # (typed str, but anything can be put there)
            return None  # type: ignore[unreachable]
        try:
            children = os.listdir(root or ".")
        except OSError:
            if os.path.exists(root):
                return None  # a zip
            continue
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        infos: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith(_SUFFIXES):
                infos.setdefault(_normalized(low.rpartition(".")[0].partition("-")[0]),
                                 []).append(child)
        for child in (child for same in infos.values() for child in same):
            stem, ext = os.path.splitext(child)
            if ext not in _SUFFIXES:
                return None  # (named by its metadata: read by importlib.metadata)
            name = _normalized(stem.partition("-")[0])
            if name in seen:
                continue
            seen.add(name)
            try:
                with open(os.path.join(root, child, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            entries = _section_pairs(text, group)
            if entries is None:
                return None
            found += entries
    return found


def _section_pairs(text: str, group: str) -> list[_Entry] | None:
    """The entries of ``group`` in an ``entry_points.txt`` (None: a line without ``=``)."""
    entries, section = [], None
    for line in filter(None, map(str.strip, text.splitlines())):
        if line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            return None
        name, _, value = line.partition("=")
        if section == group:
            entries.append(_Entry(name.strip(), value.strip()))
    return entries


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
    entries = _entries(group)
    if entries is not None:
        try:
            found = {entry.name: entry.load() for entry in entries}
        except Exception:  # noqa: BLE001 - told by the long way, naming the distribution
            found = {}
        if len(found) == len(entries) and all(
                isinstance(obj, kind) and getattr(obj, "name", name) == name
                for name, obj in found.items()):
            return found
    return _load(group, kind)  # (a plug-in's fault: said as _load says it)


def _load(group: str, kind: type) -> dict[str, Any]:
    """:func:`load` by ``importlib.metadata``: a fault is a ``UserError`` naming the entry
    point and its distribution."""
    from importlib.metadata import entry_points  # (only here: see _entries)

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
