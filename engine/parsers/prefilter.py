"""Finding the lines some dialects need (``Dialect.needs``) without looking at the others.

Each literal is searched over a whole block of text (in C), so a line holding none costs
nothing in Python; the few lines found are the ones given out. A literal is found by the
character of it the text holds least (its frequency guessed from the text's start): not
at all where the text lacks that character (one ``memchr``), by that character's few
places where it is rare (``memchr`` again, each place checked with ``startswith``), else
by ``str.find`` of the whole literal. A block searched by several dialects in turn is
lower-cased once (:func:`searching`).
"""

from __future__ import annotations

import contextlib
import functools
import operator
import re
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, repeat

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Event
from accelbench.engine.parsers import Dialect

# The characters that an ASCII letter matches in any case (re.IGNORECASE) but not lowered:
# a text holding one is searched by a pattern in any case.
_FOLDED = ("\u0131", "\u017f")  # dotless i, long s
SAMPLE = 8192  # characters of a text the frequency of its characters is guessed from
RARE = 4  # a character at most this often in the sample is rare: its places are looked at
DENSE = 16  # a literal on more than one in this many lines is dense (``_dense``)


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


def sniff_texts(dialect: type[Dialect]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The texts a line ``dialect``'s sniff recognises holds: with case, and in any case
    (lower case); a text without letters is the same in any case. Its ``sniff_needs``
    (with case where ``sniff_cased``), else its ``needs`` and ``needs_nocase``."""
    if dialect.sniff_needs is None:
        return dialect.needs or (), nocase_of([dialect])
    if dialect.sniff_cased:
        return tuple(sorted(set(dialect.sniff_needs))), ()
    texts = {text.lower() for text in dialect.sniff_needs}
    plain = tuple(sorted(t for t in texts if t == t.upper()))
    return plain, tuple(sorted(texts.difference(plain)))


def line_starts(text: str, needs: tuple[str, ...], nocase: tuple[str, ...] = (),
                lowered: str | None = None) -> list[int]:
    """The offsets, in order, of the lines (split at ``\\n``) of ``text`` that hold one of
    ``needs``, or one of ``nocase`` (lower-case) in any case (``lowered``: ``text.lower()``
    where the caller has it, for an ASCII text). A text being searched (:func:`searching`)
    is not learnt again."""
    known = _known(text)
    return (known or Searched(text, lowered)).line_starts(needs, nocase)


class Searched:
    """A text searched for the lines holding some literals, maybe many times over: what is
    learnt of its characters (and its lower-case text) is kept for the next search."""

    def __init__(self, text: str, lowered: str | None = None) -> None:
        self.text, self._lowered = text, lowered
        self._lower_tried = lowered is not None
        self._counts: dict[str, int] = {}
        self._lower_counts: dict[str, int] = {}

    def part(self, text: str) -> Searched:
        """The same for ``text``, the start of this text up to a line's end."""
        part = Searched(text)
        part._counts, part._lower_counts = self._counts, self._lower_counts
        if self._lower_tried:
            part._lower_tried = True
            part._lowered = None if self._lowered is None else self._lowered[:len(text)]
        return part

    def lowered(self) -> str | None:
        """The text lower-cased, where that keeps each character's offset (else None)."""
        if not self._lower_tried:
            self._lower_tried = True
            self._lowered = plain_lower(self.text)
        return self._lowered

    def line_starts(self, needs: tuple[str, ...], nocase: tuple[str, ...] = ()) -> list[int]:
        """What :func:`line_starts` gives for this text."""
        text = self.text
        starts: set[int] = set()
        _find(text, needs, starts, self._counts)
        if nocase:
            lowered = self.lowered()
            if lowered is not None:
                _find(lowered, nocase, starts, self._lower_counts)
            else:
                pattern = re.compile("|".join(map(re.escape, nocase)), re.IGNORECASE)
                for m in pattern.finditer(text):
                    starts.add(text.rfind("\n", 0, m.start()) + 1)
        return sorted(starts)


_SEARCHING: list[Searched] = []  # the texts being searched now, innermost last


@contextlib.contextmanager
def searching(searched: Searched) -> Iterator[Searched]:
    """Within it, :func:`line_starts` of ``searched.text`` (the same object) searches it as
    ``searched`` (a dialect handed a block of text need not learn it again)."""
    _SEARCHING.append(searched)
    try:
        yield searched
    finally:
        _SEARCHING.pop()


def lowered_text(text: str) -> str | None:
    """``text`` lower-cased as a search in any case finds its literals (:func:`plain_lower`;
    None where it cannot be): that of the text being searched where ``text`` is it (lowered
    once for all its searches)."""
    known = _known(text)
    return known.lowered() if known else plain_lower(text)


def _known(text: str) -> Searched | None:
    """The text being searched that ``text`` is, if any."""
    for searched in reversed(_SEARCHING):
        if searched.text is text:
            return searched
    return None


class Shapes:
    """The shapes of the lines of a text: each distinct line without its ASCII digits, in
    UTF-8 (a log repeats a few shapes, its numbers aside). A literal that no shape holds,
    without its digits too, is on no line of the text: a quick test of many literals."""

    def __init__(self, shapes: bytes) -> None:
        self.text = shapes
        self._lowered: bytes | None = None  # lower-cased (None: not yet, or not known)
        self._lower_tried = False

    @classmethod
    def of(cls, text: str) -> Shapes | None:
        """The shapes of ``text``'s lines; None where they are too many for the test to be
        quick."""
        shapes = b"\n".join(set(text.encode(errors="surrogatepass").translate(None, _DIGITS)
                                .split(b"\n")))
        return cls(shapes) if len(shapes) * 8 <= len(text) else None

    @classmethod
    def joined(cls, parts: list[Shapes | None]) -> Shapes | None:
        """The shapes of the lines of several texts (None where one's are not known)."""
        if any(part is None for part in parts):
            return None
        return cls(b"\n".join(part.text for part in parts if part is not None))

    def held(self, literals: Iterable[str], lowered: bool = False) -> tuple[str, ...]:
        """Those of ``literals`` a shape holds (``lowered``: lower-case ones, in any case, as
        :class:`Searched` finds them)."""
        text = self.text
        if lowered:
            if not self._lower_tried:
                self._lowered, self._lower_tried = _lowered_shapes(text), True
            if self._lowered is None:  # (each may be held)
                return tuple(literals)
            text = self._lowered
        return tuple(literal for literal in literals if _shape(literal) in text)


def _lowered_shapes(shapes: bytes) -> bytes | None:
    """``shapes`` lower-cased as ``str.lower`` does; None where a literal may be found in
    them other than in their lower-cased text (a character that lowers to more than one,
    or that a pattern in any case matches but not lowered: :class:`Searched` searches such
    a text so)."""
    if shapes.isascii():
        return shapes.lower()
    lowered = plain_lower(shapes.decode(errors="surrogatepass"))
    return None if lowered is None else lowered.encode(errors="surrogatepass")


def plain_lower(text: str) -> str | None:
    """``text`` lower-cased, where a literal in any case is found in it as a pattern in any
    case finds it in ``text``, at the same offset (else None: a character that lowers to
    more than one, or that an ASCII letter matches in any case but not lowered)."""
    if any(char in text for char in _FOLDED):
        return None
    lowered = text.lower()  # (it keeps the offsets where it keeps the length: it makes no
    # character shorter)
    return lowered if len(lowered) == len(text) else None


_DIGITS = b"0123456789"


@functools.lru_cache(maxsize=4096)
def _shape(literal: str) -> bytes:
    """``literal`` without its digits, as the shapes hold it."""
    return literal.encode().translate(None, _DIGITS)


def _find(text: str, literals: tuple[str, ...], starts: set[int], counts: dict[str, int]
          ) -> None:
    """Add to ``starts`` the start of each line of ``text`` holding one of ``literals``
    (``counts``: each character's count in the text's first ``SAMPLE`` characters, up to
    ``RARE`` + 1 (more is not rare), -1 where the text lacks it, as far as known; more are
    added)."""
    sample = text[:SAMPLE]
    for char in _characters(literals):
        if char not in counts:
            counts[char] = _count(sample, char) or (0 if char in text else -1)
    count = counts.__getitem__
    anchored: dict[str, list[tuple[str, int]]] = {}  # rare character: (literal, its offset)
    for literal in literals:
        rare = min(literal, key=count)
        n = counts[rare]
        if n < 0:
            continue  # the text lacks one of its characters
        if n > RARE or len(literal) == 1:
            _search(text, (literal,), starts)
        else:
            anchored.setdefault(rare, []).append((literal, literal.index(rare)))
    for rare, group in anchored.items():
        if not _anchored(text, rare, group, starts):
            _search(text, tuple(literal for literal, _ in group), starts)


def _count(sample: str, char: str) -> int:
    """How often ``char`` is in ``sample``, up to ``RARE`` + 1: found place by place
    (``memchr``), where ``str.count`` would read the whole sample a character at a time."""
    n, i, find = 0, sample.find(char), sample.find
    while i >= 0 and n <= RARE:
        n += 1
        i = find(char, i + 1)
    return n


@functools.lru_cache(maxsize=256)
def _characters(literals: tuple[str, ...]) -> str:
    """The characters ``literals`` hold, each once."""
    return "".join(dict.fromkeys("".join(literals)))


def _anchored(text: str, rare: str, group: list[tuple[str, int]], starts: set[int]) -> bool:
    """Add to ``starts`` the lines of ``text`` holding one of ``group``'s literals, each
    found by the places of ``rare`` (at its offset in it); False where ``rare`` proves too
    common for that (then ``str.find`` of the literals is quicker)."""
    find, rfind, startswith = text.find, text.rfind, text.startswith
    budget = len(text) >> 9  # places looked at, at most
    i = find(rare)
    while i >= 0:
        budget -= 1
        if budget < 0:
            return False
        for literal, offset in group:
            if i >= offset and startswith(literal, i - offset):
                starts.add(rfind("\n", 0, i - offset) + 1)
                end = find("\n", i)
                i = -1 if end < 0 else find(rare, end + 1)
                break
        else:
            i = find(rare, i + 1)
    return True


def _search(text: str, literals: tuple[str, ...], starts: set[int]) -> None:
    """Add to ``starts`` the start of each line of ``text`` holding one of ``literals``, each
    found by ``str.find``; a literal on many of the lines (``_dense``) by a test of every
    line, in C."""
    find, rfind = text.find, text.rfind
    dense = [literal for literal in literals if _dense(text, literal)]
    if dense:
        lines = text.split("\n")
        offsets = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
        for literal in dense:
            starts.update(compress(offsets, map(operator.contains, lines, repeat(literal))))
        literals = tuple(literal for literal in literals if literal not in dense)
    for literal in literals:
        i = find(literal)
        while i >= 0:
            starts.add(rfind("\n", 0, i) + 1)
            end = find("\n", i + len(literal))
            if end < 0:
                break
            i = find(literal, end + 1)


def _dense(text: str, literal: str) -> bool:
    """Whether ``literal`` is on so many lines of ``text`` (judged by its first ``SAMPLE``
    characters) that testing every line is quicker than finding each place."""
    if len(text) <= SAMPLE or "\n" in literal:
        return False
    return text.count(literal, 0, SAMPLE) * DENSE > text.count("\n", 0, SAMPLE)


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


def any_line(text: str, literals: tuple[str, ...], pattern: re.Pattern[str],
             also: str = "") -> bool:
    """True when a line of ``text`` holding one of ``literals`` matches ``pattern`` (a
    ``sniff`` that looks only at the lines it could match, not at every line); ``also``: a
    text every line ``pattern`` matches holds (the others are not searched)."""
    find = text.find
    lines = (text[start:end if (end := find("\n", start)) >= 0 else None]
             for start in line_starts(text, (also,) if also else literals))
    return any((not also or any(literal in line for literal in literals))
               and pattern.search(line) for line in lines)


def read_text(dialect: Dialect, text: str, ts: float,
              held: tuple[frozenset[str], frozenset[str]] | None = None) -> list[Event | Rows]:
    """The events of the lines of ``text`` (whole lines) ``dialect`` needs, fed to it on its
    own, as an ``always`` dialect is given each piece of a log: by its ``feed_text`` where it
    reads the text so, else by ``feed_lines`` (a redrawn line as its states), with its
    ``skipped`` between where it counts gaps; ``held``: which literals of ``needs`` and
    ``needs_nocase`` the text's line shapes hold, if known (the others are on no line)."""
    known = _known(text)
    if text.endswith("\n"):
        text = text[:-1]
    with searching(known.part(text) if known else Searched(text)):
        return _read_text(dialect, text, ts, held)


def _read_text(dialect: Dialect, text: str, ts: float,
               held: tuple[frozenset[str], frozenset[str]] | None) -> list[Event | Rows]:
    """:func:`read_text` of ``text``, being searched, without a final ``\\n``."""
    needs, nocase = dialect.needs, nocase_of([dialect])
    if held is not None:
        needs = None if needs is None else tuple(literal for literal in needs
                                                 if literal in held[0])
        nocase = tuple(literal for literal in nocase if literal in held[1])
    if needs is not None and not needs and not nocase:
        return []
    events = dialect.feed_text(text, needs or (), nocase, ts)
    if events is not None:
        return events
    gaps = type(dialect).skipped is not Dialect.skipped
    out: list[Event | Rows] = []
    lines: list[str] = []
    for _, line in wanted_lines(text, needs, nocase):
        if line is None:
            if gaps:
                out += dialect.feed_lines(lines, ts) if lines else []
                out += dialect.skipped(ts)
                lines = []
            continue
        lines += [part for part in line.split("\r") if part] if "\r" in line else [line]
    if lines:
        out += dialect.feed_lines(lines, ts)
    return out
