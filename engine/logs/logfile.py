"""Reading logs people already have: split a file into sections, detect dialects, parse.

The seed notes mix several runs in one markdown file, each under a heading; a
section is the text from one heading to the next (the whole file if it has none),
and a section is cut after each run's end where another run's figures follow. Only
markdown notes have headings: a ``.md`` file, or one with fenced code blocks; in a plain
log a line starting with ``# `` is a line like any other.

A run failed where a dialect gives a diagnosis (not one of its ``warnings``), succeeded
where one of its ``run_end``/``success`` metrics comes, and otherwise its log does not say
(``ended``); its duration is the span of the log's own timestamps.

A file is streamed in blocks of ``BLOCK`` characters (memory stays a few blocks
whatever its size): a first pass finds the sections and detects each one's dialects
from its start and end, and from the lines of its middle its sniff reads; the second
feeds the dialects only the lines they need (``parsers.prefilter``) and hands each run's
text and events to a :class:`Reader` as they come.
"""

from __future__ import annotations

import copy
import gzip
import operator
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, chain, groupby, repeat
from pathlib import Path

from accelbench.engine.core import safefile
from accelbench.engine.core.batches import Batch, Rows, expanded
from accelbench.engine.core.errors import UserError, shown
from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase
from accelbench.engine.core.tail import CUT_MARK, MAX_LINE
from accelbench.engine.parsers import Dialect, deferred
from accelbench.engine.parsers.prefilter import (
    Searched,
    Shapes,
    needs_of,
    nocase_of,
    read_text,
    searching,
    sniff_texts,
)
from accelbench.engine.plugin import registry
from accelbench.engine.reading import ondisk, records, tools

BLOCK = 1024 * 1024  # characters read at a time
SNIFF = 1024 * 1024  # characters of a section's start, and of its end, its dialects are
# detected from (a smaller section: all of it; in between: the lines they need)
_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")
MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass
class Outcome:
    """How a run's log says it ended: ``failed`` (with the ``failure``), ``done`` or
    ``ended`` (neither shown), or the status a table of jobs gives (``Dialect.status``);
    the exit code it reports, and the seconds its own timestamps span (or it reports)."""

    status: str = "ended"
    exit_code: int | None = None
    failure: Diagnosis | None = None
    span: float = 0.0


@dataclass
class Section:
    """A part of a log file, the dialects found in it, and the events they give."""

    title: str
    text: str
    dialects: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    outcome: Outcome = field(default_factory=Outcome)

    @property
    def status(self) -> str:
        return self.outcome.status

    @property
    def exit_code(self) -> int | None:
        return self.outcome.exit_code


class Reader:
    """What a pass over a log does with each run found in it (override what you need)."""

    wants_text = False  # whether :meth:`text` is called

    def file(self, dialects: list[str]) -> None:
        """The dialects detected in the whole file (none unless ``auto``), before any run."""

    def begin(self, run_id: str, dialects: list[str]) -> None:
        """A run's text starts (its events have ``run_id``)."""

    def text(self, text: str) -> None:
        """More of the run's text: in all, its text and a final ``\\n``."""

    def events(self, events: list[Event]) -> None:
        """More of the run's events, in order."""

    def batch(self, batch: Batch) -> None:
        """More of the run's events, in order, some maybe as :class:`Rows` (columns): by
        default given to :meth:`events` as events."""
        self.events(expanded(batch))

    def end(self, title: str, outcome: Outcome) -> None:
        """The run's text and events are all given; ``title`` is its section's."""


def split_sections(text: str) -> list[Section]:
    """Sections of markdown notes at their headings (outside fenced code blocks)."""
    return [Section(span.title, text[span.start:span.end])
            for span in _scan(lambda: iter([text] if text else []), True)[0]]


def detect(text: str) -> list[str]:
    """The dialects whose sniff recognises ``text``."""
    return _detect([text])


def _detect(texts: list[str], found: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The dialects in ``found`` or whose sniff recognises one of ``texts``; a ``fallback``
    one only where no system's dialect is found (that one reads its own progress bars)."""
    dialects = registry.dialects()
    shapes = [Shapes.of(text) for text in texts]
    names = [name for name, dialect in dialects.items() if not dialect.always
             and (name in found or any(_sniffs(dialect, text, shape)
                                      for text, shape in zip(texts, shapes, strict=True)))]
    if any(name in registry.dialect_systems() for name in names):
        names = [name for name in names if not dialects[name].fallback]
    return names


def _blocks(path: Path, name: Path | None = None, size: int = -1) -> Iterator[str]:
    """The text of ``path`` (decoded as ``Path.read_text`` does; a ``.gz`` file
    decompressed as it is read) in blocks of whole lines; the last one lacks its ``\\n``
    where the file does. A line keeps ``MAX_LINE`` characters (cut with ``CUT_MARK``).
    A ``UserError`` (naming the file ``name``) if the file is found shorter than ``size``
    bytes once read: it was truncated meanwhile."""
    name = name or path
    try:
        with (gzip.open(path, "rt", encoding="utf-8", errors="replace")
              if path.suffix.lower() == ".gz"
              else open(path, encoding="utf-8", errors="replace")) as f:
            carry, cut = "", False
            while block := f.read(BLOCK):
                if cut:  # the rest of a line too long to keep
                    end = block.find("\n")
                    if end < 0:
                        continue
                    block, cut = block[end:], False
                at = block.rfind("\n") + 1
                if at:
                    yield carry + block[:at]
                    carry = block[at:]
                else:
                    carry += block  # a line longer than a block
                    if len(carry) > MAX_LINE:
                        carry, cut = carry[:MAX_LINE] + CUT_MARK, True
            now = os.fstat(f.fileno()).st_size
            if now < size:
                raise UserError(f"{name}: truncated while read ({size} bytes, then {now}):"
                                " not all of it was read", hint="read it again once it is"
                                " complete (or copy it first)")
            if carry:
                yield carry
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise UserError(f"{path}: damaged gzip file: {exc}") from None
    except OSError as exc:
        raise UserError(f"{name}: cannot read: {exc.strerror}") from None


class _Sample:
    """A text given in pieces, for detection: all of it up to ``2 * SNIFF`` characters,
    else its start and its end (whole lines) and the dialects found in its middle, each
    sniffed on the lines of the middle holding what it needs (:func:`_sniff_needed`)."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.size = 0
        self.tail = ""  # once too long: its last lines, SNIFF characters or a few more
        self.blank = True
        self.found: set[str] = set()  # dialects found in the middle
        # The line shapes of the blocks the text not yet middle is of, each with how many
        # characters of it are of that block (or more).
        self.shapes: list[tuple[Shapes | None, int]] = []

    def add(self, text: str, shapes: Shapes | None = None) -> None:
        """The next piece of the text (``shapes``: those of the block it is of, if known)."""
        if not text:
            return
        if self.blank and text and not text.isspace():
            self.blank = False
        if self.shapes and self.shapes[-1][0] is shapes:
            self.shapes[-1] = (shapes, self.shapes[-1][1] + len(text))
        else:
            self.shapes.append((shapes, len(text)))
        if self.tail:
            self._cut(self.tail + text, 0)
            return
        self.pieces.append(text)
        self.size += len(text)
        if self.size > 2 * SNIFF:
            whole = "".join(self.pieces)
            head = whole.rfind("\n", 0, SNIFF) + 1 or SNIFF
            self.pieces = [whole[:head]]
            # (what the start shows need not be looked for further)
            self.found = set(_detect(self.pieces))
            self._cut(whole, head)

    def _cut(self, text: str, start: int) -> None:
        """Keep the last lines of ``text`` as the tail; the rest from ``start`` on is
        middle."""
        cut = max(start, text.rfind("\n", start, len(text) - SNIFF) + 1
                  or len(text) - SNIFF)  # no line ends there: SNIFF characters all the same
        if cut > start:
            self.found = _sniff_needed(text[start:cut], self.found,
                                       Shapes.joined([shapes for shapes, _ in self.shapes]))
        self.tail = text[cut:]
        left, kept = len(self.tail), []  # the shapes of the blocks the tail is of
        for shapes, size in reversed(self.shapes):
            kept.append((shapes, min(size, left)))
            left -= size
            if left <= 0:
                break
        self.shapes = kept[::-1]

    def chop(self) -> None:
        """Drop the last character given (a heading's newline)."""
        if self.tail:
            self.tail = self.tail[:-1]
        elif self.pieces:
            self.pieces[-1] = self.pieces[-1][:-1]

    def texts(self) -> list[str]:
        if not self.tail:
            return ["".join(self.pieces)]
        return [self.pieces[0], self.tail]

    def unsniffed(self) -> list[str]:
        """The texts its dialects are yet to be detected from: its end where those of its
        start and middle are in ``found``, else :meth:`texts`."""
        return [self.tail] if self.tail else self.texts()


def _sniffs(dialect: type[Dialect], text: str, shapes: Shapes | None) -> bool:
    """Whether ``dialect`` recognises ``text``: not where no line of it (no line shape)
    holds one of its ``sniff_needs``, the lines its sniff reads."""
    if shapes is not None and dialect.sniff_needs is not None:
        needs, nocase = sniff_texts(dialect)
        if not shapes.held(needs) and not shapes.held(nocase, lowered=True):
            return False
    return dialect.sniff(text)


def _sniff_needed(text: str, found: set[str], shapes: Shapes | None) -> set[str]:
    """``found`` and the other dialects whose sniff recognises the lines of ``text``
    holding what it reads (``sniff_needs``, else ``needs``; all of ``text`` for a dialect
    that needs no text); ``shapes``: those of its lines (or more), where known."""
    found = set(found)
    if not text.endswith("\n"):
        text += "\n"  # each line found ends at a \n
    searched = Searched(text)
    for name, dialect in registry.dialects().items():
        if name in found or dialect.always:
            continue
        if dialect.sniff_needs is None and dialect.needs is None:
            if dialect.sniff(text):
                found.add(name)
            continue
        needs, nocase = sniff_texts(dialect)
        if shapes is not None:  # (the literals no line holds need not be looked for)
            needs, nocase = shapes.held(needs), shapes.held(nocase, lowered=True)
            if not needs and not nocase:
                continue
        starts = searched.line_starts(needs, nocase)
        if starts and dialect.sniff("\n".join(text[start:text.find("\n", start)]
                                              for start in starts)):
            found.add(name)
    return found


@dataclass
class _Span:
    """A section: its title, where its text starts and ends in the file, a sample."""

    title: str
    start: int
    end: int = 0
    sample: _Sample = field(default_factory=_Sample)


def _fences(block: str) -> Iterator[int]:
    """The starts of the lines of ``block`` that open or close a fenced code block
    (``\\`\\`\\``` after blanks), in order (found by ``memchr``: a pattern would try
    each place)."""
    i = block.find("```") if "`" in block else -1
    while i >= 0:
        start = block.rfind("\n", 0, i) + 1
        if start == i or block[start:i].isspace():
            yield start
        end = block.find("\n", i)
        i = -1 if end < 0 else block.find("```", end + 1)


def _marks(block: str) -> list[tuple[int, bool]]:
    """``(start, is_fence)`` of the lines of ``block`` that open or close a fenced code
    block (:func:`_fences`) or may be headings (``#`` first), in order (a block without a
    ``#`` is not searched: ``memchr`` is faster)."""
    marks = [(start, True) for start in _fences(block)]
    if block.startswith("#"):
        marks.append((0, False))
    i = block.find("\n#") if "#" in block else -1
    while i >= 0:
        marks.append((i + 1, False))
        i = block.find("\n#", i + 1)
    marks.sort()
    return marks


_Held = tuple[frozenset[str], frozenset[str]] | None  # see _scan and _Runs.piece


def _scan(blocks: Callable[[], Iterator[str]], markdown: bool | None
          ) -> tuple[list[_Span], list[str], bool, list[tuple[int, _Held]]]:
    """The non-blank sections of the text in ``blocks()`` (one unless ``markdown``), the
    texts that the whole file's dialects are detected from, and whether it is large: then
    those are its headings only, and its sections' dialects count too; and for each block,
    its length and which of the dialects' ``needs`` and ``needs_nocase`` its line shapes hold
    (None: not known). ``markdown`` None: markdown notes where the text holds a fenced code block
    (then it is read again)."""
    dialects = registry.dialects().values()
    needs = needs_of([d for d in dialects if d.needs is not None]) or ()
    nocase = nocase_of(dialects)
    held: list[tuple[int, _Held]] = []
    spans: list[_Span] = []
    headings: list[str] = []
    whole: list[str] = []  # the whole text, while no longer than 2 * SNIFF characters
    size = 0
    span, offset, fenced = _Span("", 0), 0, False
    for block in blocks():
        if markdown is None and next(_fences(block), None) is not None:
            return _scan(blocks, True)
        size += len(block)
        whole = [*whole, block] if size <= 2 * SNIFF else []
        shapes = Shapes.of(block)
        held.append((len(block), None if shapes is None else (
            frozenset(shapes.held(needs)), frozenset(shapes.held(nocase, lowered=True)))))
        pos = 0  # where the part of ``block`` not yet in a span starts
        for start, fence in _marks(block) if markdown else ():
            if fence:
                fenced = not fenced
                continue
            end = block.find("\n", start)
            end = len(block) if end < 0 else end
            heading = None if fenced else _HEADING.match(block[start:end])
            if heading is None:
                continue
            span.sample.add(block[pos:start], shapes)
            if offset + start:
                span.sample.chop()
            span.end = max(offset + start - 1, span.start)
            if not span.sample.blank:
                spans.append(span)
            if len(headings) < 1000:
                headings.append(block[start:end])
            span = _Span(heading.group(1).replace("*", "").strip(), offset + end + 1)
            pos = min(end + 1, len(block))
        span.sample.add(block[pos:], shapes)
        offset += len(block)
    span.end = max(offset, span.start)
    if not span.sample.blank:
        spans.append(span)
    if size > 2 * SNIFF:  # a large file: what its sections and headings show
        return spans, ["\n".join(headings)], True, held
    return spans, ["".join(whole)], False, held


def _deliver(parsers: list[Dialect], line: str | None, fed: list[bool] | None = None
             ) -> list[Event]:
    """The events of ``line`` (split at carriage returns as the tail does), or of the
    lines skipped where ``line`` is None; ``fed``: for each parser, whether the line holds
    one of its ``needs`` (None: each is fed it): one that is not is given what a line it
    does not need gives, its ``skipped`` (``Dialect.needs``), and not fed it."""
    if line is None:
        return [e for parser in parsers for e in parser.skipped(0.0)]
    if fed is not None and "\r" not in line:
        return [e for parser, feed in zip(parsers, fed, strict=True)
                for e in (parser.feed(line, 0.0) if feed else parser.skipped(0.0))]
    if "\r" in line:
        return [e for part in [p for p in line.split("\r") if p] or [""]
                for parser in parsers for e in parser.feed(part, 0.0)]
    if len(parsers) == 1:
        return parsers[0].feed(line, 0.0)
    return [e for parser in parsers for e in parser.feed(line, 0.0)]


def _held(dialect: Dialect, held: _Held) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``needs`` and ``needs_nocase`` (lower-cased) of ``dialect`` that ``held`` holds
    (all where not known)."""
    needs, nocase = type(dialect).needs or (), nocase_of([dialect])
    if held is None:
        return needs, nocase
    return (tuple(literal for literal in needs if literal in held[0]),
            tuple(literal for literal in nocase if literal in held[1]))


_TS = operator.attrgetter("ts")


def _metric_in(events: Batch, names: frozenset[str]) -> bool:
    """Whether one of ``events`` is a metric named in ``names`` (the names of all first,
    in C: most batches have none of them)."""
    if Rows in set(map(type, events)) and any(
            not names.isdisjoint(item.metric_names()) for item in events if type(item) is Rows):
        return True
    if names.isdisjoint(map(getattr, events, repeat("name"), repeat(None))):
        return False
    return any(type(event) is Metric and event.name in names for event in events)


def _stamps(batch: Batch) -> list[float]:
    """The times of the events of ``batch`` that have one (not 0), or as many as give the
    least and the greatest of them."""
    if Rows not in set(map(type, batch)):
        return list(filter(None, map(_TS, batch)))
    stamps: list[float] = []
    for item in batch:
        if not isinstance(item, Rows):
            stamps += filter(None, (item.ts,))
        elif some := list(filter(None, item.stamps)):
            stamps += (min(some), max(some))
    return stamps


def _closing(event: Event) -> bool:
    """True for an event that belongs to the run before it: its wind-down or the
    diagnosis of its failure (an app asserting on the figures it just printed)."""
    return isinstance(event, Diagnosis) or (isinstance(event, Phase)
                                            and event.name == "completing")


class _Runs:
    """One section's runs, parsed from its text given in order, piece by piece.

    A run ends after a line giving a dialect's ``run_end`` metric where a later line
    gives events other than the run's closing ones (``_closing``): from the first such
    end on, a copy of the dialects goes on through the whole section (``split``) to find
    where, while each run is parsed afresh. The dialects read on every log (``always``,
    those not detected; beside a ``whole`` one only those that do not ``give_way``) are
    given the text of each piece on their own, up to such an end or the piece's end, after
    the others.
    """

    def __init__(self, reader: Reader, names: list[str], title: str, run_ids: Iterator[str]
                 ) -> None:
        self.reader, self.names, self.title, self.run_ids = reader, names, title, run_ids
        classes = [registry.get_dialect(name) for name in names]
        self.needs, self.nocase = needs_of(classes), nocase_of(classes)
        whole = any(cls.whole for cls in classes)
        self.always = [cls for cls in registry.always_dialects()
                       if cls.name not in names and not (whole and cls.gives_way)]
        self.ends = frozenset(name for cls in classes for name in cls.run_end)
        self.success = self.ends | {name for cls in classes for name in cls.success}
        self.warnings = frozenset(code for cls in [*classes, *self.always]
                                  for code in cls.warnings)
        self.skips = any(cls.skipped is not Dialect.skipped for cls in classes)  # gaps count
        self.split: list[Dialect] | None = None
        self.ended = False  # a run's end was seen, and no event since
        self.gap = False  # the last thing given was a gap (lines without needs)
        self.runs = 0
        self.batch: list[Event | Rows] = []
        self.text, self.done = "", 0  # the current piece; where its text not yet given starts
        self.read = 0  # where its text the ``always`` dialects have not read yet starts
        self.held: _Held = None  # which literals its block's line shapes hold
        self._begin()

    def _begin(self) -> None:
        self.runs += 1
        run_id = next(self.run_ids)
        self.parsers = [registry.get_dialect(name)(run_id) for name in self.names]
        self.extras = [cls(run_id) for cls in self.always]
        self.diagnosed = False  # a detected dialect diagnosed the run (``Dialect.defers``)
        self.succeeded, self.first, self.last = False, 0.0, 0.0
        self.failure: Diagnosis | None = None
        self.reader.begin(run_id, self.names)

    def _give(self) -> None:
        """Hand the batch to the reader, noting what says how the run ended, and when."""
        batch = self.batch
        stamps = _stamps(batch)
        if stamps:
            first = min(stamps)
            self.first = min(self.first or first, first)
            self.last = max(self.last, *stamps)
        if not self.succeeded and _metric_in(batch, self.success):
            self.succeeded = True
        if self.failure is None and Diagnosis in set(map(type, batch)):
            self.failure = next((event for event in batch if type(event) is Diagnosis
                                 and event.code not in self.warnings), None)
        self.reader.batch(batch)
        self.batch = []

    def _end(self, title: str) -> None:
        parsers = [*self.parsers, *self.extras]
        self.batch += [e for parser in parsers for e in parser.finish(0.0)]
        self._give()
        status = next((p.status for p in self.parsers if p.status), None) or (
            "failed" if self.failure else "done" if self.succeeded else None) or next(
            (p.status for p in self.extras if p.status and not self.names), "ended")
        code = next((p.exit_code for p in parsers if p.exit_code is not None), None)
        span = next((p.elapsed for p in parsers if p.elapsed is not None),
                    self.last - self.first)
        self.reader.end(title, Outcome(status, code, self.failure, round(span, 3)))

    def _numbered(self) -> str:
        return f"{self.title} ({self.runs})" if self.title else f"({self.runs})"

    def piece(self, text: str, last: bool, held: _Held = None) -> None:
        """The next piece of the section's text (whole lines; ``last``: its end; ``held``:
        which literals its block's line shapes hold, if known: the others are on none of
        its lines)."""
        self.text, self.done, self.read, self.held = text, 0, 0, held
        self.own: list[set[int]] | None = None  # the lines each parser needs, if known
        with searching(Searched(text)) as searched:
            self._piece(searched, last)
        if self.reader.wants_text:
            self.reader.text(text[self.done:] + "\n" if last else text[self.done:])
        if last:
            self._end(self._numbered() if self.runs > 1 else self.title)
        else:
            self._give()

    def _piece(self, searched: Searched, last: bool) -> None:
        """Feed the dialects the piece's text (``searched``)."""
        text, held = self.text, self.held
        if self.needs is None:
            offset = 0
            lines = text.split("\n")
            if not last:
                lines.pop()  # the empty string after the piece's final newline
            for line in lines:
                self._item(offset, line)
                offset += len(line) + 1
        else:
            needs, nocase = self.needs, self.nocase
            if held is not None:
                needs = tuple(literal for literal in needs if literal in held[0])
                nocase = tuple(literal for literal in nocase if literal in held[1])
            at_once = self.split is None and "\r" not in text
            if at_once and self._text(searched, needs, nocase):
                if self.skips:  # the gap the piece ends with, as below
                    self.gap, after = False, text.rfind("\n", 0, len(text) - 1) + 1
                    if searched.line_starts(needs, nocase)[-1:] == [after]:
                        after = len(text)  # (its last line was fed)
                    if after < len(text) or (last and after == len(text)):
                        self._item(after, None)
                return self._extras(len(text))
            if len(self.parsers) > 1:  # (each parser fed the lines it needs only)
                self.own = [set(searched.line_starts(*_held(parser, held)))
                            for parser in self.parsers]
                starts = sorted(set().union(*self.own))
            else:
                starts = searched.line_starts(needs, nocase)
            if at_once and self._lines(text, starts, last):
                return self._extras(len(text))
            after = 0  # the offset just after the last line given
            for start in starts:
                if start > after and self.skips:  # (else a gap gives nothing)
                    self._item(after, None)
                end = text.find("\n", start)
                end = len(text) if end < 0 else end
                self._item(start, text[start:end])
                after = end + 1
            if after < len(text) or (last and after == len(text)):
                self._item(after, None)
        self._extras(len(text))

    def _extras(self, end: int) -> None:
        """Give the ``always`` dialects the current piece's text they have not read, up to
        ``end``."""
        if self.extras and end > self.read:
            text, given = self.text[self.read:end], list(self.batch)
            if not self.diagnosed and Diagnosis in set(map(type, given)):
                self.diagnosed = any(type(event) is Diagnosis and event.code not in
                                     self.warnings for event in given)
            for extra in self.extras:
                extra.among(self.parsers)
                extra.beside(given)
                self.batch += deferred(read_text(extra, text, 0.0, self.held), extra,
                                       self.diagnosed)
        self.read = max(self.read, end)

    def _text(self, searched: Searched, needs: tuple[str, ...], nocase: tuple[str, ...]
              ) -> bool:
        """Feed the one dialect whose literals the text holds (:meth:`_only`) the lines of
        ``text`` holding them all at once, where it reads them from the whole text
        (``Dialect.feed_text``) and no run ends on one of them; False where not (nothing is
        fed)."""
        if not (needs or nocase):
            return False
        text = searched.text
        only = self._only(searched, needs, nocase)
        if only is None:
            return False
        parser, own, own_nocase = only
        if self.skips and any(type(other).skipped is not Dialect.skipped
                              for other in self.parsers if other is not parser):
            return False  # (one counting gaps is told those within by its feed_text: the
            # others would be told none)
        saved = copy.deepcopy(self.parsers) if self.ends else None
        events = parser.feed_text(text, own, own_nocase, 0.0)
        if events is None:
            return False
        if saved is not None and _metric_in(events, self.ends):
            self.parsers = saved
            return False
        self.batch += events
        return True

    def _only(self, searched: Searched, needs: tuple[str, ...], nocase: tuple[str, ...]
              ) -> tuple[Dialect, tuple[str, ...], tuple[str, ...]] | None:
        """The one dialect a line of ``text`` holding ``needs``/``nocase`` may be for, with
        those of its own the text holds: where the other dialects' literals are on no line
        of it (a line holding none of a dialect's needs gives it nothing, so only that one
        reads the text's lines); None where there are more."""
        if len(self.parsers) == 1:
            return self.parsers[0], needs, nocase
        text = searched.text
        lowered = (searched.lowered() or text.lower()) if nocase else ""
        found = []
        for parser in self.parsers:
            cls = type(parser)
            own = tuple(n for n in needs if n in (cls.needs or ()) and n in text)
            own_nocase = tuple(n for n in nocase if n in nocase_of([cls]) and n in lowered)
            if own or own_nocase:
                found.append((parser, own, own_nocase))
        return found[0] if len(found) == 1 else None

    def _lines(self, text: str, starts: list[int], last: bool) -> bool:
        """Feed the lines of ``text`` at ``starts`` (and the gaps between, as :meth:`_item`
        does) all at once, where no line is redrawn and no run has ended yet: a row of lines
        that one parser only needs, no gap between, is given to it at once (``feed_lines``;
        the others' ``skipped`` once, before: a gap is one gap however many lines it holds).
        False where a run ends on one of them (then nothing is fed: they go one by one, to
        find where)."""
        find = text.find
        lines = [text[start:find("\n", start)] for start in starts]
        if starts and find("\n", starts[-1]) < 0:
            lines[-1] = text[starts[-1]:]  # the piece's last line, without its \n
        saved = copy.deepcopy(self.parsers) if self.ends else None
        gap = self.gap
        if not self.parsers:
            events = []
        elif self.own is None and not self.skips:
            events = self.parsers[0].feed_lines(lines, 0.0)
        else:
            events = self._rows_fed(starts, lines)
        after = starts[-1] + len(lines[-1]) + 1 if starts else 0  # (the end: a gap after)
        if after < len(text) or (last and after == len(text)):
            events += self._gap(after)
        if saved is not None and _metric_in(events, self.ends):
            self.parsers, self.gap = saved, gap
            return False
        self.batch += events
        return True

    def _rows_fed(self, starts: list[int], lines: list[str]) -> list[Event | Rows]:
        """The events of ``lines`` (at ``starts`` in the piece), each fed to the parsers
        that need it, with the gaps between where they count, a row of lines alike at once
        (see :meth:`_lines`)."""
        parsers, own = self.parsers, self.own
        fed: list[tuple[bool, ...]] = [(True,)] * len(starts)  # the parsers needing each
        if own is not None:
            fed = list(zip(*[map(o.__contains__, starts) for o in own], strict=True))
        gaps = [False] * len(starts)  # whether a gap comes before each line
        if self.skips:  # (the offset after each line: its start, its length and its \n)
            afters = map(operator.add, starts, map((1).__add__, map(len, lines)))
            gaps = list(map(operator.gt, starts, chain((0,), afters)))
        rows = zip(accumulate(gaps), fed, strict=True)  # (alike: no gap, the same parsers)
        events: list[Event | Rows] = []
        i = 0
        for (_, needed), row in groupby(rows):
            n = len(list(row))
            if gaps[i]:
                events += self._gap(starts[i - 1] + len(lines[i - 1]) + 1 if i else 0)
            self.gap = False
            events += _deliver(parsers, lines[i], None if own is None else list(needed))
            if n > 1:
                if sum(needed) == 1:
                    events += parsers[needed.index(True)].feed_lines(lines[i + 1:i + n], 0.0)
                else:
                    for line in lines[i + 1:i + n]:
                        events += _deliver(parsers, line, list(needed))
            i += n
        return events

    def _gap(self, offset: int) -> list[Event]:
        """The events of a gap (lines no parser needs) at ``offset`` of the piece, as
        :meth:`_item` gives them."""
        if (self.gap and offset == 0) or not self.skips:
            self.gap = True
            return []
        self.gap = True
        return _deliver(self.parsers, None)

    def _item(self, offset: int, line: str | None) -> None:
        if line is None and ((self.gap and offset == 0) or not self.skips):
            self.gap = True  # the gap the last piece ended with goes on, or none sees it
            return
        self.gap = line is None
        fed = None if self.own is None or line is None else [
            offset in own for own in self.own]
        if self.split is not None:
            split = _deliver(self.split, line, fed)
            if self.ended and split and not all(_closing(e) for e in split):
                self._cut(offset)
        events = _deliver(self.parsers, line, fed)
        self.batch += events
        if self.split is None:
            split = events
        if split and self.ends and not self.ended:
            for event in split:
                if type(event) is Metric and event.name in self.ends:
                    self.ended = True
                    if self.split is None:
                        self.split = copy.deepcopy(self.parsers)
                    break

    def _cut(self, offset: int) -> None:
        """End the run before ``offset`` of the current piece; the next one starts."""
        self._extras(offset)
        if self.reader.wants_text:
            self.reader.text(self.text[self.done:offset])
            self.done = offset
        self._end(self._numbered())
        self.ended = False
        self._begin()


def read_file(path: str | Path, reader: Reader, dialect: str = "auto") -> None:
    """Give ``reader`` each run of a log file, its events from its section's dialects
    (``auto``: detected per section)."""
    path = Path(path)
    if dialect != "auto" and dialect not in registry.dialects():
        raise UserError(f"unknown dialect {shown(dialect)}",
                        hint="known dialects: auto, " + ", ".join(registry.dialects()))
    if dialect in ("auto", records.NAME) and (files := ondisk.run_files(path)):
        _records(path, files, reader)
        return
    with safefile.named_log(path) as file:
        _read_file(path, file, reader, dialect)


def _read_file(path: Path, file: Path, reader: Reader, dialect: str) -> None:
    """:func:`read_file` of the log ``path`` (its name), whose text is in ``file``."""
    size = file.stat().st_size

    def blocks() -> Iterator[str]:
        return _blocks(file, path, size)

    name = path.name[:-3] if path.suffix.lower() == ".gz" else path.name
    notes = Path(name).suffix.lower() in MARKDOWN_SUFFIXES
    if not notes and _whole(path, reader, dialect, blocks):
        return
    spans, whole, large, held = _scan(blocks, True if notes else None)
    names = [_detect(span.sample.unsniffed(), span.sample.found) if dialect == "auto"
             else [dialect] for span in spans]
    seen = {name for found in names for name in found} if large else set()
    reader.file(_detect(whole, seen) if dialect == "auto" else [])
    bounds = [(span.title, span.start, span.end) for span in spans]
    del spans, whole  # (their texts are not kept while the file is read again)
    run_ids = (f"{path.stem}#{n}" for n in range(1, 1 << 62))
    offset, i = 0, 0
    runs: _Runs | None = None
    for block, (length, known) in zip(blocks(), chain(held, repeat((-1, None))),
                                    strict=False):
        stop = offset + len(block)
        shapes = known if length == len(block) else None  # (else the file changed since)
        while i < len(bounds) and bounds[i][1] < stop:
            title, start, end = bounds[i]
            if runs is None:
                runs = _Runs(reader, names[i], title, run_ids)
            last = end <= stop
            runs.piece(block[max(start - offset, 0):min(end, stop) - offset], last, shapes)
            if not last:
                break
            runs, i = None, i + 1
        offset = stop


def _text_within(blocks: Callable[[], Iterator[str]], limit: int) -> str | None:
    """The text ``blocks`` give if it holds at most ``limit`` characters (a ``.gz`` file's
    text may be larger than the file), else None."""
    kept, size = [], 0
    for block in blocks():
        size += len(block)
        if size > limit:
            return None
        kept.append(block)
    return "".join(kept)


def _whole(path: Path, reader: Reader, dialect: str, blocks: Callable[[], Iterator[str]]
           ) -> bool:
    """Give ``reader`` each run of a file of tool output read whole (``reading.tools``:
    a job of a Slurm or PBS table), read with its kind's dialect; False if the file is of
    no such kind (nothing is given)."""
    found = tools.runs(next(blocks(), ""), lambda: _text_within(blocks, tools.MAX_WHOLE),
                       registry.tables(), dialect)
    if found is None:
        return False
    name, runs = found
    reader.file([])
    run_ids = (f"{path.stem}#{n}" for n in range(1, len(runs) + 1))
    for title, text in runs:
        _Runs(reader, [name], title, run_ids).piece(text, True)
    return True


def _records(path: Path, files: list[Path], reader: Reader) -> None:
    """Give ``reader`` the run of a structured file or run directory (``reading.ondisk``):
    its records, read with the ``records`` dialect, titled by its directory."""
    reader.file([])
    title = path.name if path.is_dir() else path.resolve().parent.name
    runs = _Runs(reader, [records.NAME], title, iter([f"{path.stem}#1"]))
    pending: str | None = None
    for block in ondisk.blocks(files):
        if pending is not None:
            runs.piece(pending, False)
        pending = block
    runs.piece(pending or "", True)


class _Sections(Reader):
    """Collects the runs as :class:`Section` objects."""

    wants_text = True

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self._text: list[str] = []

    def begin(self, run_id: str, dialects: list[str]) -> None:
        self.sections.append(Section("", "", list(dialects)))
        self._text = []

    def text(self, text: str) -> None:
        self._text.append(text)

    def events(self, events: list[Event]) -> None:
        self.sections[-1].events += events

    def end(self, title: str, outcome: Outcome) -> None:
        section = self.sections[-1]
        section.title, section.text, section.outcome = title, "".join(self._text)[:-1], outcome


def parse_file(path: str | Path, dialect: str = "auto") -> list[Section]:
    """The sections of a log file with their events; ``auto`` detects dialects per section
    (all in memory: :func:`read_file` streams)."""
    sections = _Sections()
    read_file(path, sections, dialect)
    return sections.sections
