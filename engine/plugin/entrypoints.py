"""Plug-ins: objects that distributions register under an entry-point group.

accelbench registers its own systems and launchers in ``pyproject.toml`` exactly as
a third-party package would, so every registry is read from entry points and none
is kept by hand. A plug-in that does not load (whatever it raises, ``SystemExit`` and
``KeyboardInterrupt`` too, or when its import takes longer than ``IMPORT_S``), is of the
wrong kind, or takes a name already taken is left out: one line naming it and the
distribution it came from goes to :func:`faults` and to the log (the CLI's notices, the
app's notifications), and the others are loaded as if it were not there.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, overload

from accelbench.engine.core.text import printable

if TYPE_CHECKING:  # (importlib.metadata is imported only where a plug-in fails)
    from importlib.metadata import EntryPoint

T = TypeVar("T")
IMPORT_S = 5.0  # the longest a plug-in's import may take before it is left out
log = logging.getLogger(__name__)
_FAULTS: dict[str, list[str]] = {}  # group -> what was left out of it, and why
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


def _origin_of(group: str, entry: _Entry) -> str:
    """What :func:`_origin` says of a fast-path entry (its distribution, read only here:
    where a plug-in failed)."""
    from importlib.metadata import entry_points

    found = next((e for e in entry_points(group=group)
                  if (e.name, e.value) == (entry.name, entry.value)), None)
    return _origin(found) if found is not None else (
        f"{group} entry point {entry.name!r} = {entry.value!r}")


class Fault(Exception):
    """A plug-in's own failure, in words: what it raised (``ImportError: no SDK``), or that
    it took too long (``timed_out``)."""

    def __init__(self, message: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


def bounded(call: Callable[[], T], seconds: float, what: str) -> T:
    """``call()`` in a thread of its own, waited for ``seconds`` at most: whatever it
    raises (``SystemExit``, ``KeyboardInterrupt`` too) or a timeout is a :class:`Fault`
    saying so (``what``: what the call does, "import", "detection"). A call that does not
    end is left to itself in its daemon thread."""
    result: list[Any] = []

    def run() -> None:
        try:
            result.append((True, call()))
        except BaseException as exc:  # noqa: BLE001 - a plug-in's own: reported, never raised
            result.append((False, exc))

    thread = threading.Thread(target=run, name=f"accelbench {what}", daemon=True)
    thread.start()
    thread.join(seconds)
    if not result:
        raise Fault(f"{what} gave no answer in {seconds:g} s", timed_out=True)
    done, value = result[0]
    if not done:
        raise Fault(type(value).__name__ + (f": {value}" if str(value) else ""))
    return value


def faults(group: str | None = None) -> list[str]:
    """What was left out of ``group`` (of every group loaded so far when None), a line
    each, naming the plug-in and why."""
    return [line for name, lines in _FAULTS.items() if group in (None, name) for line in lines]


def left_out(group: str, line: str) -> None:
    """Record that a plug-in of ``group`` is left out, and why (one line, gated)."""
    line = printable(line)
    lines = _FAULTS.setdefault(group, [])
    if line not in lines:
        lines.append(line)
        log.warning("%s (left out)", line)


# A concrete kind types the result; an abstract one (which mypy refuses for ``type[T]``, as
# such a class could be called) takes the second form and its caller annotates the result,
# which the ``isinstance`` check below guarantees.
@overload
def load(group: str, kind: type[T]) -> dict[str, T]: ...
@overload
def load(group: str, kind: type) -> dict[str, Any]: ...


def load(group: str, kind: type) -> dict[str, Any]:
    """Every object registered under ``group``, by entry-point name, each checked to be a
    ``kind`` whose ``name`` is its entry point's; one that is not, or does not load, is
    left out (:func:`faults`)."""
    fast = _entries(group)
    if fast is None:
        from importlib.metadata import entry_points  # (only here: see _entries)

        listed: list[tuple[Any, Callable[[], str]]] = [
            (entry, functools.partial(_origin, entry)) for entry in entry_points(group=group)]
    else:
        listed = [(entry, functools.partial(_origin_of, group, entry)) for entry in fast]
    found: dict[str, Any] = {}
    for entry, origin in listed:
        try:
            obj = bounded(entry.load, IMPORT_S, "import")
        except Fault as fault:
            left_out(group, f"{origin()}: cannot load: {fault}")
            continue
        problem = (f"expected a {kind.__name__}, got {type(obj).__name__}"
                   if not isinstance(obj, kind) else
                   f"names itself {getattr(obj, 'name', entry.name)!r}"
                   if getattr(obj, "name", entry.name) != entry.name else
                   f"the name {entry.name!r} is taken twice" if entry.name in found else "")
        if problem:
            left_out(group, f"{origin()}: {problem}")
            continue
        found[entry.name] = obj
    return found

