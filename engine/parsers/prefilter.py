"""Finding the lines some dialects need (``Dialect.needs``) without looking at the others.

Each literal is searched over a whole block of text (``str.find``, in C), so a line
holding none costs nothing in Python; the few lines found are the ones given out. A
literal is not searched where the block lacks one of its two rarest characters (each
looked for with ``memchr``: a few times faster than a search for a longer text).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from accelbench.engine.parsers import Dialect

# Characters by how often log text holds them, commonest first (any other: rarer still).
_RANK = {c: i for i, c in enumerate(" 0123456789:-,.etaoinsrlcdumphgfbyw_/=")}


def needs_of(dialects: Iterable[Dialect | type[Dialect]]) -> tuple[str, ...] | None:
    """The texts (with case) one of which a line must hold for any of ``dialects``
    (or one of :func:`nocase_of`); None: every line."""
    texts: set[str] = set()
    for dialect in dialects:
        if dialect.needs is None:
            return None
        texts.update(dialect.needs)
    return tuple(sorted(texts))


def nocase_of(dialects: Iterable[Dialect | type[Dialect]]) -> tuple[str, ...]:
    """The texts, lower-cased, a line may hold in any case for one of ``dialects``."""
    return tuple(sorted({text.lower() for d in dialects for text in d.needs_nocase}))


def line_starts(text: str, needs: tuple[str, ...], nocase: tuple[str, ...] = (),
                lowered: str | None = None) -> list[int]:
    """The offsets, in order, of the lines (split at ``\\n``) of ``text`` that hold one of
    ``needs``, or one of ``nocase`` (lower-case) in any case (``lowered``: ``text.lower()``
    where the caller has it, for an ASCII text)."""
    starts: set[int] = set()
    _find(text, needs, starts)
    if nocase:
        if lowered is not None or text.isascii():  # lower() keeps the offsets of ASCII
            _find(lowered if lowered is not None else text.lower(), nocase, starts)
        else:
            pattern = re.compile("|".join(map(re.escape, nocase)), re.IGNORECASE)
            for m in pattern.finditer(text):
                starts.add(text.rfind("\n", 0, m.start()) + 1)
    return sorted(starts)


@functools.lru_cache(maxsize=1024)
def _rarest(literal: str) -> str:
    """The two characters of ``literal`` least likely in a log (none for one character)."""
    if len(literal) < 2:
        return ""
    return "".join(sorted(dict.fromkeys(literal), key=lambda c: -_RANK.get(c, len(_RANK)))[:2])


def _find(text: str, literals: tuple[str, ...], starts: set[int]) -> None:
    """Add to ``starts`` the start of each line of ``text`` holding one of ``literals``."""
    find, rfind = text.find, text.rfind
    holds: dict[str, bool] = {}  # whether text holds a character
    for literal in literals:
        for rare in _rarest(literal):
            held = holds.get(rare)
            if held is None:
                held = holds[rare] = rare in text
            if not held:
                break
        else:
            i = find(literal)
            while i >= 0:
                starts.add(rfind("\n", 0, i) + 1)
                end = find("\n", i + len(literal))
                if end < 0:
                    break
                i = find(literal, end + 1)


def wanted_lines(text: str, needs: tuple[str, ...] | None, nocase: tuple[str, ...] = ()
                 ) -> Iterator[tuple[int, str | None]]:
    """``(offset, line)`` for each line of ``text`` (split at ``\\n``) holding one of
    ``needs`` or ``nocase`` (every line if ``needs`` is None), and ``(offset, None)`` where
    lines without them start a gap."""
    if needs is None:
        offset = 0
        for line in text.split("\n"):
            yield offset, line
            offset += len(line) + 1
        return
    after = 0  # the offset just after the last line given
    for start in line_starts(text, needs, nocase):
        if start > after:
            yield after, None
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield start, text[start:end]
        after = end + 1
    if after <= len(text):
        yield after, None


def any_line(text: str, literals: tuple[str, ...], pattern: re.Pattern[str]) -> bool:
    """True when a line of ``text`` holding one of ``literals`` matches ``pattern`` (a
    ``sniff`` that looks only at the lines it could match, not at every line)."""
    return any(line is not None and pattern.search(line)
               for _, line in wanted_lines(text, literals))
