"""A dialect's step lines read from a whole block of text at once, as columns.

A training log prints one kind of line by the hundred thousand (a step's loss and rates).
A dialect declares that line (:class:`StepLines`: the literal each holds, the pattern that
reads it, the conversion of each group) and turns the converted columns into events
(``Dialect.step_rows``); :func:`read_text` does the rest for every dialect: the lines
holding the literal found in the block (``prefilter``, in C), one ``findall`` of the
pattern over them, the columns converted with ``map``, and the block's other lines the
dialect needs fed one by one in their places between them.
"""

from __future__ import annotations

import bisect
import copy
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Event
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import line_starts

Column = list[Any]


@dataclass(frozen=True)
class StepLines:
    """A dialect's step line: every line holding ``literal`` must be one, as the dialect's
    ``feed`` reads it, for a text to be read at once. ``pattern`` reads the lines holding
    ``literal``, joined: its ``findall`` gives one tuple of groups per line, in order (it
    matches at a line's start, ``(?m)^``, and within the line: ``[^\\n]``, not ``.``);
    ``columns`` converts each group (``int``, ``float``, :class:`optional`, :class:`whole`,
    ...; None: kept as text; a group that took no part is ``''``); ``without``: literals a
    step line may not hold (``feed`` reads such a line otherwise): a text where one does is
    not read at once; ``also``: more literals, a step line holding one of them or
    ``literal`` (a dialect whose pattern reads each of its lines, another line as text). A
    dialect with ``skipped`` is told of lines going by unfed before each other line it is
    fed, not before its step lines (which must read the same after such lines as without)."""

    literal: str
    pattern: re.Pattern[str]
    columns: tuple[Callable[[str], Any] | whole | None, ...]
    without: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    # (optional) the same groups read from a whole text, matching only in a step line as
    # printed, by its literal (a look-behind for what comes before it): tried first, and
    # used where each of the literal's places is a match (no line-by-line search then;
    # not with ``also``)
    text_pattern: re.Pattern[str] | None = None

    def read(self, rows: Sequence[tuple[str, ...]]) -> list[Column]:
        """The converted columns of ``rows`` (the groups ``findall`` gives)."""
        n = len(rows)
        return [list(column) if convert is None
                else convert.convert(list(column)) if isinstance(convert, whole)
                else _optional(convert, column, n) if isinstance(convert, optional)
                else list(map(convert, column))
                for convert, column in zip(self.columns, zip(*rows, strict=True),
                                           strict=True)]


class optional:  # (lower-case: a conversion, as ``int`` and ``float`` are)
    """The conversion of a group that may take no part (``''``: None)."""

    def __init__(self, convert: Callable[[str], Any]) -> None:
        self.convert = convert

    def __call__(self, text: str) -> Any:
        return self.convert(text) if text else None


def _optional(convert: optional, column: tuple[str, ...], n: int) -> list[Any]:
    """``convert`` of each of ``column``: at once where all or none took part."""
    if all(column):
        return list(map(convert.convert, column))
    return [None] * n if not any(column) else list(map(convert, column))


class whole:  # (lower-case: a conversion, as ``int`` and ``float`` are)
    """The conversion of a whole column at once (``convert``: its texts to its values)."""

    def __init__(self, convert: Callable[[list[str]], list[Any]]) -> None:
        self.convert = convert


def read_text(dialect: Dialect, text: str, needs: tuple[str, ...], nocase: tuple[str, ...],
              ts: float) -> list[Event | Rows] | None:
    """What ``dialect.feed_text`` gives (see there) through its ``step_lines``: None where
    it declares none, where ``text`` holds none, or where a line holding its literal is
    not a step line as its pattern reads it (the dialect is then as it was)."""
    steps = dialect.step_lines
    literals = () if steps is None else tuple(
        literal for literal in (steps.literal, *steps.also) if literal in needs)
    if steps is None or not literals:
        return None
    literal = steps.literal
    rows = None if steps.also else _text_rows(steps, text)
    at: list[int] | None = None  # the step lines' starts (None: counted by the literal)
    if rows is None:
        found = _line_rows(steps, text, literals)
        if found is None:
            return None
        at, rows = found
    try:
        columns = steps.read(rows)
    except (ValueError, ArithmeticError):
        return None
    given = len(rows)
    del rows  # (memory: its groups are in the columns)
    others = tuple(need for need in needs if need not in literals)
    other = line_starts(text, others, nocase) if others or nocase else []
    if not other:
        return dialect.step_rows(columns, ts)
    saved = copy.deepcopy(vars(dialect))
    events: list[Event | Rows] = []
    done, pos = 0, 0  # the rows given; where the text not yet counted for them starts
    find, count = text.find, text.count
    steps_at = set(at or ())
    # (a dialect that acts on lines going by unfed is told of those before a line it is fed)
    skips = type(dialect).skipped is not Dialect.skipped
    fed = steps_at.union(other) if skips else steps_at
    for start in other:
        end = find("\n", start)
        if at is None and literal in (text[start:] if end < 0 else text[start:end]):
            continue  # a step line: read by the pattern
        if start in steps_at:
            continue
        n = (done + count(literal, pos, start) if at is None
             else bisect.bisect_left(at, start, done))
        pos = start
        if n > done:
            got = dialect.step_rows([column[done:n] for column in columns], ts)
            if got is None:
                break
            events += got
            done = n
        if skips and start and (before := text.rfind("\n", 0, start - 1) + 1) not in fed and (
                at is not None or literal not in text[before:start]):
            events += dialect.skipped(ts)
        events += dialect.feed(text[start:] if end < 0 else text[start:end], ts)
    else:
        if done == given:
            return events
        got = dialect.step_rows([column[done:] for column in columns], ts)
        if got is not None:
            return events + got
    vars(dialect).clear()
    vars(dialect).update(saved)
    return None


def _line_rows(steps: StepLines, text: str, literals: tuple[str, ...]
               ) -> tuple[list[int], list[tuple[str, ...]]] | None:
    """The starts of the lines of ``text`` holding one of ``literals`` and the groups of
    each by ``pattern``; None where one is not a step line or holds one of ``without``."""
    at = line_starts(text, literals)
    if not at:
        return None
    find = text.find
    lines = [text[start:find("\n", start)] for start in at]
    if find("\n", at[-1]) < 0:
        lines[-1] = text[at[-1]:]  # the text's last line, without its \n
    joined = "\n".join(lines)
    if any(literal in joined for literal in steps.without):
        return None
    rows = _for(steps.pattern, joined).findall(joined)
    return (at, rows) if len(rows) == len(lines) else None


def _text_rows(steps: StepLines, text: str) -> list[tuple[str, ...]] | None:
    """The groups of the step lines of ``text`` by ``text_pattern``, where each of the
    literal's places is a match of it and no step line holds one of ``without``."""
    if steps.text_pattern is None:
        return None
    rows = _for(steps.text_pattern, text).findall(text)
    if not rows or len(rows) != text.count(steps.literal) or any(
            literal in text for literal in steps.without):
        return None
    return rows


def _for(pattern: re.Pattern[str], text: str) -> re.Pattern[str]:
    """``pattern``, or its ASCII twin (:func:`_ascii`) where it matches ``text`` alike."""
    if not text.isascii():
        return pattern
    twin, spaced = _ascii(pattern)
    return pattern if spaced and any(char in text for char in _UNICODE_SPACES) else twin


_UNICODE_SPACES = "\x1c\x1d\x1e\x1f"  # the ASCII characters a Unicode \s matches, no ASCII one


@functools.lru_cache(maxsize=256)
def _ascii(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], bool]:
    """``pattern`` compiled ASCII-only (``\\d`` a range test, not a Unicode category: a
    tenth to a third quicker), which matches an ASCII text as ``pattern`` does but where
    it holds ``\\s`` or ``\\S`` and the text ``_UNICODE_SPACES`` (the bool: whether it
    does); ``pattern`` itself where it may not (a non-ASCII literal matched in any case)."""
    source = pattern.pattern
    if not source.isascii() and (pattern.flags & re.IGNORECASE
                                 or re.search(r"\(\?[a-zA-Z]*i", source)):
        return pattern, False
    return (re.compile(source, (pattern.flags & ~re.UNICODE) | re.ASCII),
            re.search(r"\\[sS]", source) is not None)


def split_rows(run_id: str, stamps: list[float], kinds_of: list[Any],
               kinds: Callable[[slice], list[tuple[type[Event], tuple[Column, ...]]]]
               ) -> list[Rows]:
    """Rows of the lines ``0 .. len(stamps)``, one for each run of lines alike:
    ``kinds_of[i]`` says which kinds of event line ``i`` gives (lines alike give the same),
    ``kinds(s)`` gives the kinds and columns of the lines of slice ``s``."""
    if len(set(kinds_of)) == 1:
        return [Rows(run_id, stamps, kinds(slice(None)))]
    out: list[Rows] = []
    first = 0
    for i in range(1, len(stamps) + 1):
        if i == len(stamps) or kinds_of[i] != kinds_of[first]:
            out.append(Rows(run_id, stamps[first:i], kinds(slice(first, i))))
            first = i
    return out
