"""Finding the lines some dialects need (``Dialect.needs``) without looking at the others."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from accelbench.engine.parsers import Dialect


def needs_of(dialects: Iterable[Dialect | type[Dialect]]) -> tuple[str, ...] | None:
    """The texts one of which a line must hold for any of ``dialects``; None: every line."""
    texts: set[str] = set()
    for dialect in dialects:
        if dialect.needs is None:
            return None
        texts.update(dialect.needs)
    return tuple(sorted(texts))


def wanted_lines(text: str, needs: tuple[str, ...] | None) -> Iterator[tuple[int, str | None]]:
    """``(offset, line)`` for each line of ``text`` (split at ``\\n``) holding one of
    ``needs`` (every line if None), and ``(offset, None)`` where lines without them start
    a gap; each literal is searched over the whole text, so other lines cost nothing."""
    if needs is None:
        offset = 0
        for line in text.split("\n"):
            yield offset, line
            offset += len(line) + 1
        return
    starts: set[int] = set()
    for literal in needs:
        i = text.find(literal)
        while i >= 0:
            starts.add(text.rfind("\n", 0, i) + 1)
            end = text.find("\n", i + len(literal))
            if end < 0:
                break
            i = text.find(literal, end + 1)
    after = 0  # the offset just after the last line given
    for start in sorted(starts):
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
