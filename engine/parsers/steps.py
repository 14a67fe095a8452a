"""A dialect's step lines read from a whole block of text at once, as columns.

A training log prints one kind of line by the hundred thousand (a step's loss and rates).
A dialect declares that line (:class:`StepLines`: the literal each holds, the pattern that
reads it, the conversion of each group) and turns the converted columns into events
(``Dialect.step_rows``); :func:`read_text` does the rest for every dialect: one
``findall`` of the pattern over the block (in C), the columns converted with ``map``, and
the block's other lines the dialect needs fed one by one in their places between them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelbench.engine.events import Event
from accelbench.engine.parsers.prefilter import line_starts
from accelbench.engine.rows import Rows

if TYPE_CHECKING:
    from accelbench.engine.parsers import Dialect

Column = list[Any]


@dataclass(frozen=True)
class StepLines:
    """A dialect's step line: every line holding ``literal`` must be one, as the dialect's
    ``feed`` reads it, for its text to be read at once. ``pattern``'s ``findall`` over a
    text gives one tuple of groups per step line, in order (a pattern that matches only
    at a line's start and within the line: ``(?m)^``, or its literal with what comes
    before it in a look-behind); ``columns`` converts each group (``int``, ``float``, ...;
    None: kept as text; a group that took no part is ``''``)."""

    literal: str
    pattern: re.Pattern[str]
    columns: tuple[Callable[[str], Any] | None, ...]

    def read(self, rows: Sequence[tuple[str, ...]]) -> list[Column]:
        """The converted columns of ``rows`` (the groups ``findall`` gives)."""
        return [list(column) if convert is None else list(map(convert, column))
                for convert, column in zip(self.columns, zip(*rows, strict=True),
                                           strict=True)]

    def rows(self, text: str) -> list[tuple[str, ...]]:
        """The groups of the step lines of ``text``."""
        return self.pattern.findall(text)


def optional(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """``convert`` of a group that may take no part (``''``: None)."""
    return lambda text: convert(text) if text else None


def read_text(dialect: Dialect, text: str, needs: tuple[str, ...], nocase: tuple[str, ...],
              ts: float) -> list[Event | Rows] | None:
    """What ``dialect.feed_text`` gives (see there) through its ``step_lines``: None where
    it declares none, where ``text`` holds none, or where a line holding its literal is
    not a step line as the pattern reads it (the dialect is then as it was)."""
    steps = dialect.step_lines
    if steps is None or steps.literal not in needs:
        return None
    rows = steps.rows(text)
    literal = steps.literal
    if not rows or len(rows) != text.count(literal):
        return None
    others = tuple(need for need in needs if need != literal)
    starts = line_starts(text, others, nocase) if others or nocase else []
    saved = copy.deepcopy(vars(dialect)) if starts else None
    events: list[Event | Rows] = []
    done, pos = 0, 0  # the rows given; where the text not yet counted for rows starts
    find, count = text.find, text.count
    try:
        for start in starts:
            end = find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            if literal in line:
                continue  # a step line: read by the pattern
            if n := count(literal, pos, start):
                events += _step_rows(dialect, steps, rows[done:done + n], ts)
                done += n
            pos = start
            events += dialect.feed(line, ts)
        if done < len(rows):
            events += _step_rows(dialect, steps, rows[done:], ts)
    except _NotAlike:
        if saved is not None:
            vars(dialect).clear()
            vars(dialect).update(saved)
        return None
    return events


class _NotAlike(Exception):
    """Step lines the dialect does not give as columns (it is as it was before them)."""


def _step_rows(dialect: Dialect, steps: StepLines, rows: list[tuple[str, ...]], ts: float
               ) -> list[Event | Rows]:
    """The events of step lines given as their groups."""
    try:
        columns = steps.read(rows)
    except (ValueError, ArithmeticError):
        raise _NotAlike from None
    events = dialect.step_rows(columns, ts)
    if events is None:
        raise _NotAlike
    return events


def split_rows(run_id: str, stamps: list[float], kinds_of: Callable[[int], object],
               kinds: Callable[[slice], list[tuple[type[Event], tuple[Column, ...]]]]
               ) -> list[Rows]:
    """Rows of the lines ``0 .. len(stamps)``, one for each run of lines alike:
    ``kinds_of(i)`` says which kinds of event line ``i`` gives (lines alike give the same),
    ``kinds(s)`` gives the kinds and columns of the lines of slice ``s``."""
    out: list[Rows] = []
    first = 0
    for i in range(1, len(stamps) + 1):
        if i == len(stamps) or kinds_of(i) != kinds_of(first):
            out.append(Rows(run_id, stamps[first:i], kinds(slice(first, i))))
            first = i
    return out
