"""Recognising, line by line, the dialects a live run's output is written in.

A run of the user's own command names no dialect; its output is sniffed as ``accelbench
parse`` sniffs a log, for the generic dialects (a tqdm bar, Keras, the Hugging Face
Trainer, Slurm's lines). Every dialect sniffed here recognises a single line, so a
dialect is taken at the first line it recognises, whatever the batches the output came
in: a run followed live and one read later take it at the same line. The lines before
that one holding what the dialect reads (the last ``REPLAY`` characters of them) are fed
to it first, so that it knows what came before (Keras' ``Epoch 1/10`` before its bars).
"""

from __future__ import annotations

from collections import deque

from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import line_starts, needs_of, nocase_of

REPLAY = 256 * 1024  # characters of earlier lines kept for a dialect found later


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
        self.found: list[type[Dialect]] = []  # recognised at the line :meth:`scan` stopped at
        self._seen = 0  # lines scanned before this batch
        self._kept: deque[tuple[int, str]] = deque()  # (index, line) of lines they may read
        self._size = 0
        self._update()

    def _update(self) -> None:
        classes = self.candidates
        self._needs, self._nocase = needs_of(classes), nocase_of(classes)
        self._sniffs = tuple(sorted({t.lower() for cls in classes
                                     for t in (cls.sniff_needs or cls.needs or ())}))

    def scan(self, lines: list[str]) -> int | None:
        """The index in ``lines`` of the first line a candidate recognises (those are then
        ``found``, and no longer candidates), or None; the lines before it are kept."""
        if not self.candidates:
            return None
        text = "\n".join(lines)
        sniffed = set(line_starts(text, (), self._sniffs))
        starts = sorted(sniffed.union(() if self._needs is None
                                      else line_starts(text, self._needs, self._nocase)))
        index, previous = 0, 0
        for i in starts if self._needs is not None else _all(text):
            index += text.count("\n", previous, i)
            previous = i
            line = lines[index]
            if i in sniffed or self._needs is None:
                self.found = [cls for cls in self.candidates if cls.sniff(line)]
                if self.found:
                    self.candidates = [c for c in self.candidates if c not in self.found]
                    self._update()
                    self._seen += index
                    return index
            self._keep(self._seen + index, line)
        self._seen += len(lines)
        return None

    def _keep(self, index: int, line: str) -> None:
        self._kept.append((index, line))
        self._size += len(line)
        while self._size > REPLAY:
            self._size -= len(self._kept.popleft()[1])

    def replay(self, dialect: type[Dialect]) -> list[str | None]:
        """The kept lines ``dialect`` reads, in order, None where lines it does not read
        went by (before, between and after them, up to the line scanning stopped at)."""
        out: list[str | None] = []
        after = 0  # the index after the last line given
        nocase = nocase_of([dialect])
        for index, line in self._kept:
            if _holds(line, dialect.needs, nocase):
                if index > after:
                    out.append(None)
                out.append(line)
                after = index + 1
        if after < self._seen:
            out.append(None)
        return out


def _all(text: str) -> list[int]:
    """The start of every line of ``text``."""
    starts, i = [0], text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts
