"""Recognising, line by line, the dialects a live run's output is written in.

A run of the user's own command names no dialect; its output is sniffed as ``accelbench
parse`` sniffs a log, for the generic dialects (a tqdm bar, Keras, the Hugging Face
Trainer, Slurm's lines). Every dialect sniffed here recognises a single line, so a
dialect is taken at the first line it recognises, whatever the batches the output came
in: a run followed live and one read later take it at the same line. The last ``WINDOW``
lines before that one (``REPLAY`` characters at most) are fed to it first, those holding
what it reads, so that it knows what came just before (Keras' ``Epoch 1/10``).

A batch costs one search for what the dialects not yet found look for (their
``sniff_needs``, else ``needs``); a batch holding some is sniffed for each, over the lines
holding its texts at once, and looked at line by line only where one recognises them.
"""

from __future__ import annotations

import re
from collections import deque

from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import line_starts, nocase_of, sniff_texts

WINDOW = 1000  # lines before the one a dialect is found at, fed to it first
REPLAY = 256 * 1024  # ... at most this many characters of them
SHORT = 8192  # characters of a batch searched with one expression (a longer one: str.find)


def _holds(line: str, needs: tuple[str, ...] | None, nocase: tuple[str, ...]) -> bool:
    if needs is None:
        return True
    if any(text in line for text in needs):
        return True
    lowered = line.lower() if nocase else ""
    return any(text in lowered for text in nocase)


class Sniffer:
    """The dialects of ``candidates`` not yet recognised in the lines scanned so far."""

    def __init__(self, candidates: list[type[Dialect]]) -> None:
        self.candidates = list(candidates)
        self._texts = {cls: sniff_texts(cls) for cls in candidates}  # what their lines hold
        needs = tuple(sorted({t for needs, _ in self._texts.values() for t in needs}))
        nocase = tuple(sorted({t for _, nocase in self._texts.values() for t in nocase}))
        self._every = any(texts == ((), ()) for texts in self._texts.values())  # any line
        self._needs = needs, nocase
        self._any = re.compile("|".join([*map(re.escape, needs),
                                         *(f"(?i:{re.escape(t)})" for t in nocase)]))
        self.found: list[type[Dialect]] = []  # recognised at the line :meth:`scan` stopped at
        self._window: deque[str] = deque(maxlen=WINDOW)  # the last lines scanned
        self._gap = False  # lines went by before the window

    def scan(self, lines: list[str]) -> int | None:
        """The index in ``lines`` of the first line a candidate recognises (those are then
        ``found``, and no longer candidates), or None; the lines before it are kept."""
        if not self.candidates:
            return None
        text = "\n".join(lines)
        if not self._every and not (self._any.search(text) if len(text) < SHORT
                                    else line_starts(text, *self._needs)):
            # no line holds what any of them looks for: the usual case
            self._keep(lines)
            return None
        hits: dict[type[Dialect], int] = {}
        limit = len(lines)  # a later candidate is looked for up to the first line found
        for cls in self.candidates:
            if (at := _first_line(cls, self._texts[cls], lines, text, limit)) is not None:
                hits[cls], limit = at, at + 1
        first = min(hits.values(), default=None)
        self.found = [cls for cls, at in hits.items() if at == first]
        self.candidates = [cls for cls in self.candidates if cls not in self.found]
        self._keep(lines if first is None else lines[:first])
        return first

    def _keep(self, lines: list[str]) -> None:
        if len(lines) + len(self._window) > WINDOW:
            self._gap = True
        self._window.extend(lines[-WINDOW:])

    def replay(self, dialect: type[Dialect]) -> list[str | None]:
        """The kept lines ``dialect`` reads, in order, None where lines it does not read
        went by (before, between and after them)."""
        out: list[str | None] = []
        gap, size = self._gap, 0
        nocase = nocase_of([dialect])
        kept = []
        for line in reversed(self._window):
            size += len(line)
            if size > REPLAY:
                gap = True
                break
            kept.append(line)
        for line in reversed(kept):
            if _holds(line, dialect.needs, nocase):
                if gap:
                    out.append(None)
                out.append(line)
                gap = False
            else:
                gap = True
        if gap and out:
            out.append(None)
        return out


def _first_line(cls: type[Dialect], texts: tuple[tuple[str, ...], tuple[str, ...]],
                lines: list[str], text: str, before: int) -> int | None:
    """The index of the first of ``lines`` (``text`` joined) before index ``before`` that
    ``cls`` recognises: its sniff reads the lines holding its ``texts``
    (``prefilter.sniff_texts``), all at once, then one by one only where it recognises
    them."""
    needs, nocase = texts
    if not needs and not nocase:
        return next((i for i, line in enumerate(lines[:before]) if cls.sniff(line)), None)
    starts = line_starts(text, needs, nocase)
    if not starts:
        return None
    if not cls.sniff("\n".join(text[start:_end(text, start)] for start in starts)):
        return None
    index, previous = 0, 0
    for start in starts:
        index += text.count("\n", previous, start)
        previous = start
        if index >= before:
            return None
        if cls.sniff(lines[index]):
            return index
    return None


def _end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end
