"""Reading any log's step lines by their shape, with no dialect written for its format.

A training program prints the same line at every step with other numbers in it
(``iter 10: loss 3.2202, time 1389.25ms, mfu 10.73%``). With its numbers masked such a line
is a *template* that repeats; a template whose numbers change from line to line and are
named (``numbers.named_numbers``, ``numbers.counters``) is a step line, and its named
number slots are the figures (``vocabulary.canonical``: step, total, epoch, loss, lr,
samples/s as ``Throughput``, the rest as ``Metric`` s under canonical or their own names).
A number is a figure only with a name or a counter's place: nothing unnamed ever becomes a
metric.

Speed: no Python runs per line of a block. Per block (``logfile.BLOCK``, or a live batch):

- the templates are learnt from a sample of its lines (all of a small text; else its
  start, three slices of its middle and its end), numbers masked by one ``re.sub`` over the
  sample; a masked shape seen ``REPEAT`` times (over the blocks read so far) whose lines'
  named numbers change becomes a template, the lines it was seen on before read then;
- each template's lines are read with one compiled pattern (``findall``) over the whole
  block, found by the template's literal start (a lookbehind checks it starts a line: the
  engine's literal search, not a test at every character), and their numbers converted
  as columns into one ``Rows`` per template;
- one-off lines (``test accuracy: 0.98``, an eval line once an epoch) are the lines holding
  a vocabulary keyword (``KEYWORDS``, found in any case by ``prefilter.line_starts``, in C)
  that no template reads: looked for only where the block's lines are not all template
  lines, each distinct one read once, and what it is found once per shape (its digits all
  ``0``: every line of it has its numbers in the same places, and heads a table or not):
  its named numbers then read from those places; a line of a shape that names no figure,
  holding no counter, gives nothing whatever was read (a dict lookup: no dialect asked,
  nothing remembered); such a line that heads a table (``numbers.columns``: Ultralytics'
  epoch tables, fastai's results, a model card's) has the rows right after it read by its
  names (``numbers.table_row``), all in the same text (a header at the end of a live batch
  whose rows come in the next: not read).

Template mining: Drain (the ``drain3`` package) was measured against this masking on the 13
real framework logs under tests/fixtures/real/frameworks (``bench/template_mining.py``,
each log as it is and repeated to 20,000 lines). Both find the same step templates on 12 of
them (on timm's, Drain splits the Train lines in two clusters); Drain costs 5-30 us a line,
and must be called (in Python) on every line to tell which cluster it is of, where the
bare regex loop takes 0.3-0.9 us a line: Drain alone would be 0.03x of it. Masking costs
about as much a line, but the reader masks a sample of each block only (and of it only the
lines whose shape without digits is new), and a masked shape is itself the pattern that
reads its lines where they are, with their numbers' places: Drain's templates are token
lists with ``<*>``, no pattern. So the reader masks; drain3 is no dependency.

A dialect adds meaning on top and wins where it reads the same line: when a template is
learnt, or a one-off line that would give a figure met, a copy of the detected dialects
(``among``) is fed its line (those whose ``needs`` it holds; once a template, so cheap): a
line they give any event for is theirs, and that template's lines are read by them alone
(``Template.theirs``). It wins too where it reads the same figure from other lines:
``beside`` is told what the detected dialects gave, and the figures they give (by canonical
name; any ``Progress``, any ``Throughput``) are left to them. Beside a dialect that reads all
its output means (``Dialect.whole``: a tool's report) the reader is silent (``gives_way``).

Order: within the text it is given at once, its events are in the order of their lines
(a template's ``Rows`` at its last line), and a one-off line is read once, wherever the
text is cut; but they come after the detected dialects' events of the same text (and
before the failures dialect's: each ``always`` dialect's events of a text follow the one
before it's, none carries its line's place), and the
lines a template covers before it is learnt (its first ``REPEAT``, read in the text that
teaches it) come where it is learnt: so a log given in small pieces (live) and at once
(an import, ``attach``) interleave the reader's events with the others' differently
there. A known limit.
"""

from __future__ import annotations

import copy
import math
import operator
import re
from dataclasses import dataclass, field
from itertools import accumulate, compress
from typing import Any, ClassVar

from accelbench.engine.core.batches import Batch, Rows, expanded
from accelbench.engine.core.events import (
    MAX_INT,
    Diagnosis,
    Event,
    Metric,
    Progress,
    Throughput,
    finite,
)
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import line_starts, lowered_text, plain_lower
from accelbench.engine.reading.failures import LOSS_NOT_FINITE, diverged
from accelbench.engine.reading.numbers import (
    Counter,
    Named,
    columns,
    counters,
    named_numbers,
    rule,
    table_row,
)
from accelbench.engine.reading.vocabulary import Canon, canonical, metric_name, own

REPEAT = 3  # times a masked line is seen before it is a template
SAMPLE_ALL = 64 * 1024  # a text this short is its own sample
LEAD_SAMPLE, FEW = 8192, 4  # a template's lines are few where on at most 1 in FEW lines of
# a block's first LEAD_SAMPLE characters (``_maybe_its``)
HEAD, SLICE, TAIL = 32 * 1024, 8 * 1024, 16 * 1024  # a longer one's sample: start, 3 middle
# slices, end (characters)
MAX_SHAPES = 20000  # masked shapes counted at most (then the counts start again)
MAX_TEMPLATES = 64
MAX_ONE_OFFS = 10000  # distinct one-off lines remembered (read once each)
MAX_LINE = 4096  # a longer line is no template
RECENT = 16  # distinct lines a block's one-off search leaves, counted in the next block

KEYWORDS = ("loss", "acc", "perplexity", "ppl", "mfu", "tflop", "throughput", "samples",
            "persec", "per_sec", "per sec", "tokens/s", "learning rate", "lr:", "lr=", "f1",
            "bleu", "score", "top1", "top-1", "it/s", "tps", "memallocated", "memory",
            "iteration", "step", "batch=")
"""Texts (any case) a one-off line worth reading holds: the vocabulary's figures' names, and
a counter's word that is no figure's (Composer's ``[batch=1/300000000]:`` heading a block)."""
SETTINGS = frozenset({"lr"})  # figures that, printed on a line on its own, are settings
DONE_KEYS = ("final", "test")  # a one-off figure after the step lines, so named: a summary
DONE_LINES = ("exits successfully",)  # a launcher's line that the run ended well (DeepSpeed's)
STEP_WORDS = frozenset({"step", "steps", "iter", "iteration"})  # a key ending so: a step

# A number's text, as loosely as is quick to match (a date is one; its value is read only
# where a name is next to it, ``_floats``): the same in masking and in the templates.
_NUM = r"-?\d[\d.,eE+-]*"
_VALUE = lazy(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_MASK = lazy(f" *({_NUM})")
_RUN = _NUM + "+"  # a template's number slot: the whole run, as masking took it (possessive:
# no line is tried with its runs split otherwise, a timestamp's among the slots: 2x quicker
# on Cerebras's and torchtitan's timestamped lines)
_ASCII_RUN = r"-?[0-9][0-9.,eE+-]*+"  # the same in an ASCII text, where \d is [0-9] (a third
# quicker than \d's Unicode test)
_SLOT = "\x01"  # a number's place in a masked line (no log holds it)
_DIGITS = b"0123456789"
_ZEROS = str.maketrans("123456789", "000000000")  # a one-off line's shape: its digits all 0
_NO_DIGITS = str.maketrans("", "", "0123456789")
_ZERO_BYTES = bytes.maketrans(b"123456789", b"000000000")  # the same in UTF-8
_NONE, _HOLDS, _MAYBE, _ODD = range(4)  # a line shape: holds no keyword, one, maybe one
# (one with digits, ``f1``: the line itself tells), or lowers otherwise than char by char
_FIELDS = ("step", "total", "epoch", "epochs")


@dataclass
class _Slot:
    """What a template's number slot is: a Progress field, a Throughput, or a Metric."""

    kind: str  # step total epoch epochs throughput metric
    name: str = ""
    scale: float = 1.0


@dataclass
class Template:
    """A step line's shape: the pattern that reads its lines, what each captured number is."""

    shape: str
    pattern: re.Pattern[str]
    slots: list[_Slot]  # one per captured group, in order
    anchor: str  # its longest literal (where in a block its last line is)
    lead: str
    lowered: str  # its shape in lower case
    lines: re.Pattern[str]  # ``pattern`` capturing nothing: its lines, counted
    ascii: tuple[re.Pattern[str], re.Pattern[str]]  # the two reading an ASCII text
    rows: int = 0  # lines read in the current block
    theirs: bool = False  # a detected dialect reads its lines: no events from them here


@dataclass
class _Seen:
    """A masked shape seen but not yet a template: how often, and some lines of it."""

    count: int = 0
    lines: list[str] = field(default_factory=list)
    called: list[int] = field(default_factory=list)  # the read each line was seen in
    checks: int = 0  # times its lines were found named but unchanging


@dataclass
class _Shape:
    """What every one-off line of a shape (its digits all 0) is: its named numbers (key,
    unit, span of the number's text; None where other lines of it name theirs otherwise:
    read by ``named_numbers`` every time), whether none is a figure a line read on its own
    gives, and whether it heads a table (``numbers.columns``: its digits are no letters)."""

    named: list[tuple[str, str, int, int]] | None
    figureless: bool
    header: bool


class ShapeReader(Dialect):
    """The generic reader, read on every log (``always``): step lines by their shape, and
    one-off lines holding a vocabulary keyword."""

    name = "shapes"
    title = "step lines read by their shape"
    always = True
    gives_way = True
    needs: ClassVar[tuple[str, ...] | None] = None
    needs_nocase: ClassVar[tuple[str, ...]] = KEYWORDS
    warnings = frozenset({LOSS_NOT_FINITE})  # a loss that blew up: the run may go on

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self.templates: dict[str, Template] = {}
        self.rejected: set[str] = set()  # shapes that are no step lines (nothing named)
        self.seen: dict[str, _Seen] = {}
        self.known: set[bytes] = set()  # lines' shapes without digits, looked at for good
        self.recent: list[str] = []  # the one-off lines (and others) the last block held
        self.one_offs: dict[str, frozenset[str]] = {}  # line read on its own: what it gave
        self.shapes: dict[str, _Shape] = {}  # one-off lines' shapes (``_ZEROS``)
        self.keyworded: dict[tuple[str, ...], dict[bytes, int]] = {}  # keywords: line
        # shape (``_ZERO_BYTES``): whether its lines hold one (``_NONE``...)
        self.calls = 0
        self.taken: set[str] = set()  # figures a dialect gives (``_bare`` names): left to it
        self.progress_taken = self.throughput_taken = False
        self.stepped = False  # a step line was read
        self.last_step = self.total = 0
        self.others: list[Dialect] = []  # the run's detected dialects (``among``)
        self.diverged = False  # a loss that blew up was diagnosed (once a run)
        self.blown: list[tuple[str, Diagnosis]] = []  # found while learning: (line, it)

    def among(self, dialects: list[Dialect]) -> None:
        self.others = dialects

    def _dialects(self, line: str) -> bool:
        """Whether a detected dialect gives an event for ``line``: a copy of those whose
        ``needs`` it holds is fed it (they are left as they were)."""
        lowered = line.lower()
        fed = [d for d in self.others if d.needs is None or any(n in line for n in d.needs)
               or any(n.lower() in lowered for n in d.needs_nocase)]
        return bool(fed) and any(d.feed(line, 0.0) for d in copy.deepcopy(fed))

    def beside(self, given: Batch) -> None:
        kinds = set(map(type, given))
        for cls in kinds - {Rows, Metric}:
            self._take(cls, ())
        if Metric in kinds:  # (each name once)
            self._take(Metric, {item.name for item in given if type(item) is Metric})
        for item in given if Rows in kinds else ():
            if isinstance(item, Rows):
                for cls, columns in item.kinds:
                    self._take(cls, columns[0] if cls is Metric else ())

    def _take(self, cls: type[Event], names: Any) -> None:
        if cls is Progress:
            self.progress_taken = True
        elif cls is Throughput:
            self.throughput_taken = True
        elif cls is Metric:
            for name in set(names):
                canon = canonical(name, "")
                self.taken.update({_bare(metric_name(name)), _bare(canon.name) if canon else ""})

    def feed(self, line: str, ts: float) -> list[Event]:
        return expanded(self.read(line, KEYWORDS, ts))

    def feed_lines(self, lines: list[str], ts: float) -> list[Event | Rows]:
        return self.read("\n".join(lines), KEYWORDS, ts)

    def feed_text(self, text: str, needs: tuple[str, ...], nocase: tuple[str, ...], ts: float
                  ) -> list[Event | Rows] | None:
        return self.read(text, nocase, ts)

    @classmethod
    def sniff(cls, text: str) -> bool:
        return False  # (read on every log: never sniffed)

    def read(self, text: str, nocase: tuple[str, ...], ts: float) -> list[Event | Rows]:
        """The events of ``text`` (whole lines; ``nocase``: those of ``KEYWORDS`` its lines
        may hold)."""
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.calls += 1
        early = self._learn(_sample(text), ts)
        out: list[tuple[int, Event | Rows]] = [(max(text.find(line), 0), diagnosis)
                                               for line, diagnosis in self.blown]
        self.blown = []
        covered = 0
        ascii = text.isascii()
        for template in self.templates.values():
            template.rows = 0
            if template.anchor not in text:
                continue
            pattern, counted = template.ascii if ascii else (template.pattern, template.lines)
            its = _maybe_its(text, template)
            if template.theirs:  # (its lines only counted: no groups, half the time)
                template.rows = len(counted.findall(its))
                covered += template.rows
                continue
            found = pattern.findall(its)
            del its
            template.rows = len(found)
            covered += len(found)
            at = text.rfind(template.anchor)
            if early.get(template.shape):
                # the lines seen before it was known; one read on its own gave some figures
                # then (its metrics, and its progress where a counter gave it): the others now
                lines = early[template.shape]
                found = template.pattern.findall("\n".join(
                    line for line in lines if line not in self.one_offs)) + found
                for line in lines:
                    if (given := self.one_offs.get(line)) is not None:
                        out += [(at, rest) for rows in self._rows(
                            template, template.pattern.findall(line), ts)
                                if (rest := _without(rows, given)) is not None]
            if found:
                out += [(at, rows) for rows in self._rows(template, found, ts)]
        if covered <= text.count("\n") and not self._accounted(text, nocase):
            out += self._one_offs(text, nocase, ts)
        if self.status is None and any(done in text for done in DONE_LINES):
            self.status = "done"
        out.sort(key=lambda item: item[0])
        return [item for _, item in out]

    def _learn(self, sample: str, ts: float) -> dict[str, list[str]]:
        """Count the masked shapes of ``sample``'s lines; those seen ``REPEAT`` times whose
        named numbers change become templates: the lines of earlier reads they were seen on
        (by shape). Lines whose shape without digits is known (a template's, or no step
        line's) are not looked at: a bytes ``translate`` tells them, in C."""
        lines = sample.split("\n")
        digitless = sample.encode().translate(None, _DIGITS).split(b"\n")
        known = self.known
        if known.issuperset(digitless):
            return {}
        if len(known) > MAX_SHAPES:
            known.clear()
        picked = [(line, bare) for line, bare in zip(lines, digitless, strict=True)
                  if bare not in known]
        masked = _MASK.sub(_SLOT, "\n".join(line for line, _ in picked)).split("\n")
        if len(self.seen) > MAX_SHAPES:
            self.seen.clear()
        early: dict[str, list[str]] = {}
        fresh: dict[str, bytes] = {}
        for shape, (line, bare) in zip(masked, picked, strict=True):
            if _SLOT not in shape or shape in self.rejected or len(shape) > MAX_LINE:
                known.add(bare)  # (no number, or no step line)
                continue
            if shape in self.templates:
                known.add(bare)
                continue
            seen = self.seen.setdefault(shape, _Seen())
            seen.count += 1
            if len(seen.lines) < REPEAT:
                seen.lines.append(line)
                seen.called.append(self.calls)
            fresh[shape] = bare
        for shape, bare in fresh.items():
            seen = self.seen[shape]
            if seen.count < REPEAT or len(self.templates) >= MAX_TEMPLATES:
                continue
            template = _template(shape, seen.lines)
            if template is None:
                seen.checks += 1
                if seen.checks >= REPEAT or _named(seen.lines[0]) is None:
                    self.rejected.add(shape)  # (nothing named, or its numbers never change)
                    known.add(bare)
                    del self.seen[shape]
                else:
                    seen.count, seen.lines, seen.called = 0, [], []  # (look again later)
                continue
            template.theirs = self._dialects(seen.lines[-1])
            self.templates[shape] = template
            if not template.theirs and (blown := self._blew_up(seen.lines[0], ts)):
                self.blown.append((seen.lines[0], blown))  # (its loss is no slot: no number)
            known.add(bare)
            early[shape] = [line for line, call in zip(seen.lines, seen.called, strict=True)
                            if call < self.calls]
            del self.seen[shape]
        return early

    def _blew_up(self, line: str, ts: float, found: list[Named] | None = None
                 ) -> Diagnosis | None:
        """The diagnosis of a loss that ``line`` (its named numbers ``found``) shows blown
        up (nan, inf, a number no event holds): once a run, where no dialect reads its loss."""
        if self.diverged or _bare("loss") in self.taken:
            return None
        for named in named_numbers(line) if found is None else found:
            if not finite(named.value) and "loss" in _canon(named.key, named.unit)[0]:
                self.diverged = True
                return diverged(self.run_id, ts, named.key, line[named.start:named.end])
        return None

    def _rows(self, template: Template, found: list[Any], ts: float) -> list[Rows]:
        """The events of a template's lines (``found``: their captured numbers), as columns;
        none where a dialect gives one of its figures (the line is that dialect's). A metric
        whose number does not change over the lines (``global batch size``) is given at the
        first and the last of them only: its own ``Rows``."""
        if any(self._theirs(slot) for slot in template.slots):
            return []
        columns = list(zip(*found, strict=False)) if len(template.slots) > 1 else [found]
        n = len(found)
        fields: dict[str, list[Any]] = {}
        kinds: list[tuple[type[Event], tuple[list[Any], ...]]] = []
        metrics: list[tuple[str, list[float]]] = []
        constant: list[tuple[str, float]] = []
        rates: list[float] | None = None
        named: set[str] = set()
        for slot, column in zip(template.slots, columns, strict=True):
            same = column[0] == column[-1] and column.count(column[0]) == n
            if slot.kind in _FIELDS:
                if slot.kind not in fields:
                    convert = _ints if slot.kind in ("step", "total") else _floats
                    fields[slot.kind] = convert(column[:1]) * n if same else convert(column)
            elif slot.kind == "throughput":
                if rates is None:
                    rates = _floats(column, slot.scale)
            elif slot.name not in named:
                named.add(slot.name)
                if same and n > 2:
                    constant.append((slot.name, _floats(column[:1], slot.scale)[0]))
                else:
                    metrics.append((slot.name, _floats(column, slot.scale)))
        steps: list[Any] = fields.get("step") or [None] * n
        zeros = [0] * n
        if "step" in fields:
            self.stepped = True
            self.last_step = steps[-1]
            self.total = fields["total"][-1] if "total" in fields else self.total
            kinds.append((Progress, (steps, fields.get("total", zeros), fields.get("epoch", zeros),
                                     fields.get("epochs", zeros))))
        elif "epoch" in fields and any(fields["epoch"]) and not self.progress_taken and not any(
                slot.kind == "step" for other in self.templates.values() for slot in other.slots):
            # an epoch's line where no step line gives the steps: at the step read last (0)
            kinds.append((Progress, ([self.last_step] * n, [self.total] * n, fields["epoch"],
                                     fields.get("epochs", zeros))))
        for name, values in metrics:
            kinds.append((Metric, ([name] * n, values, steps)))
        if rates is not None:
            kinds.append((Throughput, (rates, steps)))
        out = [Rows(self.run_id, [ts] * n, kinds)] if kinds else []
        if constant:
            ends = [steps[0], steps[-1]]
            out.append(Rows(self.run_id, [ts, ts], [(Metric, ([name] * 2, [value] * 2, ends))
                                                    for name, value in constant]))
        return out

    def _accounted(self, text: str, nocase: tuple[str, ...]) -> bool:
        """Whether every keyword of ``nocase`` in ``text`` is on a template's line or on one
        of the lines the last block's one-off search left (then no one-off line is new): by
        counts, in C (those of the lines left only for a keyword off the templates' lines),
        in the text lower-cased as the one-off search finds its keywords (not where it
        cannot be)."""
        if not nocase or not self.recent:
            return not nocase
        lower = lowered_text(text)
        if lower is None:
            return False
        counts: dict[str, int] | None = None  # each line left's, once needed
        for word in nocase:
            found = lower.count(word)
            held = sum(template.rows * template.lowered.count(word)
                       for template in self.templates.values() if template.rows)
            if found == held:
                continue  # (on templates' lines only: no line left holds it here)
            if counts is None:
                counts = {line: text.count(line) for line in self.recent
                          if any(word in line.lower() for word in nocase)}
            held += sum(n * line.lower().count(word) for line, n in counts.items() if n)
            if found != held:
                return False
        return True

    def _theirs(self, slot: _Slot) -> bool:
        """Whether a dialect gives the figure ``slot`` is."""
        if slot.kind == "metric":
            return _bare(slot.name) in self.taken
        if slot.kind == "throughput":
            return self.throughput_taken
        return slot.kind == "step" and self.progress_taken

    def _one_offs(self, text: str, nocase: tuple[str, ...], ts: float
                  ) -> list[tuple[int, Event | Rows]]:
        """The events of the lines of ``text`` holding one of ``nocase`` (``KEYWORDS``) that
        no template reads, each distinct line once."""
        found = self._keyword_lines(text, nocase)
        if found is None:
            starts = line_starts(text, (), nocase)
            find = text.find
            found = [text[start:_end(find("\n", start), text)] for start in starts], starts
        lines, starts = found
        if not starts:
            return []
        rest = "\n".join(lines)
        for template in self.templates.values():
            if template.rows and template.anchor in rest:
                rest = template.lines.sub("", rest)
        left = list(dict.fromkeys(rest.split("\n")))
        self.recent = left[:RECENT]
        left = [line for line in left if 0 < len(line) <= MAX_LINE]
        shaped = list(zip(left, map(self._shape, left, _zeroed(left)), strict=True))
        out = self._tables(text, [line for line, shape in shaped if shape.header], ts)
        where: dict[str, int] = {}  # each line's first start (once one gives events)
        for line, shape in shaped:
            if line in self.one_offs or self._quiet(line, shape):
                continue  # (read once; or giving nothing, whatever was read: not remembered)
            events = [] if self._dialects(line) else self._line(line, ts)
            if len(self.one_offs) < MAX_ONE_OFFS:
                self.one_offs[line] = frozenset(
                    e.name if isinstance(e, Metric) else "samples_per_s"
                    if isinstance(e, Throughput) else "" for e in events)
            if events:
                where = where or dict(zip(reversed(lines), reversed(starts), strict=True))
                out += [(where[line], event) for event in events]
        return out

    def _keyword_lines(self, text: str, nocase: tuple[str, ...]
                       ) -> tuple[list[str], list[int]] | None:
        """The lines of ``text`` holding one of ``nocase`` in any case, and their offsets,
        found by their shapes (digits ``0``, in UTF-8: a log repeats a few), each tested once
        a run (a line of a shape that may hold a keyword with digits tested itself); None
        where the shapes are too many for that to pay, or one lowers otherwise than a
        character at a time (``prefilter.line_starts`` then finds them)."""
        shapes = text.encode(errors="surrogatepass").translate(_ZERO_BYTES).split(b"\n")
        memo = self.keyworded.setdefault(nocase, {})
        if len(memo) > MAX_SHAPES:
            memo.clear()
        distinct = set(shapes)
        new = distinct.difference(memo)
        if len(new) * 8 > len(shapes):
            return None
        for shape in new:
            memo[shape] = _holding(shape, nocase)
        if any(memo[shape] == _ODD for shape in distinct):
            return None
        maybe = any(memo[shape] == _MAYBE for shape in distinct)
        flags = list(map(memo.__getitem__, shapes))
        # each line's length: its shape's where the text is ASCII (no line split again)
        lengths = list(map(len, shapes)) if text.isascii() else []
        del shapes, distinct, new  # (a block's lines are not held twice: peak memory)
        lengths = lengths or list(map(len, text.split("\n")))
        offsets = list(accumulate(map((1).__add__, lengths), initial=0))
        if maybe:  # (it holds none of the others)
            digits = [word for word in nocase if word != word.translate(_NO_DIGITS)]
            for i in compress(range(len(flags)), map(_MAYBE.__eq__, flags)):
                lowered = text[offsets[i]:offsets[i] + lengths[i]].lower()
                flags[i] = any(word in lowered for word in digits)
        starts = list(compress(offsets, flags))
        ends = map(operator.add, starts, compress(lengths, flags))
        return list(map(text.__getitem__, map(slice, starts, ends))), starts

    def _tables(self, text: str, headers: list[str], ts: float
                ) -> list[tuple[int, Event | Rows]]:
        """The events of the rows of each table in ``text`` headed by one of ``headers``
        (distinct lines holding a keyword that no template reads, of a shape that heads a
        table): each row read as a line whose numbers its columns name
        (``numbers.table_row``), every one a figure; a header's rows are those right after
        it (a Markdown rule between), all in the same text."""
        out: list[tuple[int, Event | Rows]] = []
        for header in headers:
            if (names := columns(header)) is None:
                continue  # (never: its shape heads a table)
            start = text.find(header)
            while start >= 0:
                at = start + len(header) + 1
                if (start == 0 or text[start - 1] == "\n") and text[at - 1:at] in ("\n", ""):
                    while at < len(text):
                        end = _end(text.find("\n", at), text)
                        row = text[at:end]
                        found = table_row(names, header, row)
                        if found is None and not rule(row):
                            break
                        if found is not None:
                            out += [(at, event) for event in self._line(row, ts, found)]
                        at = end + 1
                start = text.find(header, start + 1)
        return out

    def _line(self, line: str, ts: float, row: list[Named] | None = None) -> list[Event]:
        """The figures of one line read on its own: its named numbers that are canonical
        figures or named with a keyword, as metrics (at the step it names, else the last step
        read), and the progress its step counter (or its epoch) gives; of a table's ``row``,
        its named numbers (its columns'), every one."""
        if row is None and self._quiet(line):
            return []
        found = self._numbers(line)[0] if row is None else row
        blown = self._blew_up(line, ts, found)
        step: int | None = None
        epoch: float | None = None
        metrics: list[tuple[str, float]] = []
        done = named_step = False
        for named in found:
            name, scale = _canon(named.key, named.unit)
            value = named.value * scale
            if not (finite(value) and finite(named.value)):  # (nan, 1e999, 1e200: no event's)
                continue
            if name == "step":
                if step is None and value.is_integer() and abs(value) < MAX_INT:
                    step, named_step = int(value), _current_step(named.key)
            elif name == "epoch":
                epoch = value if epoch is None else epoch
            elif name != "total_steps":
                if _bare(name) in self.taken:
                    return []  # (the line is a dialect's)
                if any(name == m for m, _ in metrics):  # (a second one: its own name)
                    name, scale = own(named.key, named.unit)
                    value = named.value * scale
                    if any(name == m for m, _ in metrics):
                        continue
                if row is None and _canonical(named.key, named.unit) is None and not _keyword(
                        name):
                    continue  # (a line read on its own: only the vocabulary's figures)
                metrics.append((name, value))
                done = done or any(word in named.key.lower() for word in DONE_KEYS)
        if (step is None and metrics and all(name in SETTINGS for name, _ in metrics)
                and not _counters(line)):
            return []  # (a setting printed once, a config file's ``lr: 0.1``: no figure)
        if done and self.stepped and self.status is None:
            self.status = "done"  # a final summary after the step lines
        events: list[Event] = []
        for counter in _counters(line)[:1]:
            if counter.what == "step":
                if self.progress_taken:
                    return []
                step = counter.n if step is None else step
                self.last_step, self.total = counter.n, counter.total
                events.append(Progress(self.run_id, ts, counter.n, counter.total, epoch or 0))
        if (named_step and not events and not self.progress_taken and step
                and not any(slot.kind == "step" for template in self.templates.values()
                            for slot in template.slots)):
            # a step named on a line read on its own (where no step line gives the steps,
            # and past 0: nanoGPT's eval at "step 0" comes before its iter 0): its progress
            self.stepped, self.last_step = True, step
            events.append(Progress(self.run_id, ts, step, self.total if step <= self.total
                                   else 0, epoch or 0))
        if epoch and not events and not self.progress_taken:  # (epoch 0: none known)
            events.append(Progress(self.run_id, ts, self.last_step, self.total, epoch))
        at = step if step is not None else (self.last_step if self.stepped else None)
        rate = next((value for name, value in metrics if name == "samples_per_s"), None)
        if rate is not None and not self.throughput_taken:
            events.append(Throughput(self.run_id, ts, rate, at))
        return ([blown] if blown else []) + events + [
            Metric(self.run_id, ts, name, value, at) for name, value in metrics
            if name != "samples_per_s"]

    def _shape(self, line: str, shape: str = "") -> _Shape:
        """What the one-off ``line`` is by its shape (``_ZEROS``; ``shape``, where known),
        found once per shape."""
        shape = shape or line.translate(_ZEROS)
        if (known := self.shapes.get(shape)) is None:
            known = _shape(line, named_numbers(line))
            if len(self.shapes) < MAX_ONE_OFFS:
                self.shapes[shape] = known
        return known

    def _numbers(self, line: str) -> tuple[list[Named], bool]:
        """``named_numbers(line)`` of a one-off line, found once per shape and then read from
        their places; and whether none is a figure ``_line`` gives."""
        shape = self._shape(line)
        if shape.named is None:
            return named_numbers(line), False
        return [Named(key, float(line[start:end].replace(",", "")), unit, start, end)
                for key, unit, start, end in shape.named], shape.figureless

    def _quiet(self, line: str, shape: _Shape | None = None) -> bool:
        """Whether ``line`` (of ``shape``, where known) read on its own gives nothing,
        whatever was read before: its shape names no figure (so no loss that blew up) and it
        holds no counter. Whether a dialect reads it does not matter then: none is asked."""
        return (shape or self._shape(line)).figureless and not _counters(line)

    def finish(self, ts: float) -> list[Event]:
        if self.total and self.last_step >= self.total and self.status is None:
            self.status = "done"  # the run reached its last step
        return []


def _maybe_its(text: str, template: Template) -> str:
    """The lines of ``text`` that may be ``template``'s: those holding its anchor, found by
    ``str.find``, where they are few and its pattern would be tried at most lines (its lead
    is on most, or it has none); else ``text``."""
    anchor, lead = template.anchor, template.lead
    lines = text.count("\n", 0, LEAD_SAMPLE) + 1
    anchors = text.count(anchor, 0, LEAD_SAMPLE)
    tried = text.count(lead, 0, LEAD_SAMPLE) if lead.strip() else lines
    if anchors * FEW > lines or tried <= 2 * anchors:
        return text
    out, find, rfind, size = [], text.find, text.rfind, len(anchor)
    i = find(anchor)
    while i >= 0:
        start = rfind("\n", 0, i) + 1
        end = find("\n", i + size)
        out.append(text[start:end if end >= 0 else len(text)])
        i = -1 if end < 0 else find(anchor, end + 1)
    return "\n".join(out)


def _zeroed(lines: list[str]) -> list[str]:
    """The shape (``_ZEROS``) of each of ``lines`` (none holding a ``\n``), in C."""
    return ("\n".join(lines).encode(errors="surrogatepass").translate(_ZERO_BYTES)
            .decode(errors="surrogatepass").split("\n"))


def _sample(text: str) -> str:
    """The lines of ``text`` the templates are learnt from (whole lines)."""
    if len(text) <= SAMPLE_ALL:
        return text
    parts = [text[:text.rfind("\n", 0, HEAD)]]
    size = len(text)
    for at in (size // 4, size // 2, 3 * size // 4):
        start = text.find("\n", at) + 1
        end = text.rfind("\n", start, start + SLICE)
        if 0 < start < end:
            parts.append(text[start:end])
    start = text.find("\n", size - TAIL) + 1
    if start > 0:
        parts.append(text[start:].rstrip("\n"))
    return "\n".join(parts)


def _shape(line: str, found: list[Named]) -> _Shape:
    """What every line of ``line``'s shape is (``found``: its named numbers); their places
    unknown (None) where their keys or units hold a digit (other lines of it name theirs
    otherwise) or a value is not its span's text."""
    header = columns(line) is not None
    if any(any(c.isdigit() for c in n.key + n.unit) or not _spanned(line, n) for n in found):
        return _Shape(None, False, header)
    named = [(n.key, n.unit, n.start, n.end) for n in found]
    figureless = True  # (a named step is a figure: read on its own, it gives progress)
    for n in found:
        name = _canon(n.key, n.unit)[0]
        if name not in ("total_steps", "epoch") and (
                _canonical(n.key, n.unit) is not None or _keyword(name)):
            figureless = False
    return _Shape(named, figureless, header)


def _spanned(line: str, named: Named) -> bool:
    """Whether the value of ``named`` is its span's text's (with no thousands separator)."""
    try:
        value = float(line[named.start:named.end].replace(",", ""))
    except ValueError:
        return False
    return value == named.value or (math.isnan(value) and math.isnan(named.value))


def _canon(key: str, unit: str) -> tuple[str, float]:
    """The name and scale a named number is kept under: its canonical figure's (a key whose
    last word names a step, ``completed step``, is one), else its own name."""
    canon = _canonical(key, unit)
    if canon is not None:
        return canon.name, canon.scale
    name, scale = own(key, unit)
    return ("step", 1.0) if name.rsplit("_", 1)[-1] in STEP_WORDS else (name, scale)


def _canonical(key: str, unit: str) -> Canon | None:
    """``vocabulary.canonical``, where a rate's unit names its figure whatever the key."""
    return canonical(key, unit) or (canonical("throughput", unit) if "/" in unit else None)


_NOT_CURRENT = frozenset({"max", "total", "warmup", "num", "n", "save", "eval", "log",
                          "logging", "print", "decay", "last", "start", "first", "next"})


def _current_step(key: str) -> bool:
    """Whether a named step's key names the step the run is at (``step``, ``completed
    step``, ``global_step``), not a setting (``max steps``, ``warmup_steps``)."""
    words = metric_name(key).split("_")
    return words[-1] in ("step", "iter", "iteration") and not _NOT_CURRENT & set(words)


def _counters(line: str) -> list[Counter]:
    """The ``N/M`` counters of ``line`` but a progress bar's (``n/total [elapsed<``: the
    bar's own dialect reads bars, and a system's dialect its own)."""
    return [counter for counter in counters(line)
            if not line.startswith(" [", counter.total_end)]


def _named(line: str) -> list[tuple[int, _Slot]] | None:
    """(slot index, what it is) of each named number slot of ``line``, None if none is."""
    spans = [(m.start(1), m.end(1)) for m in _MASK.finditer(line)]

    def slot_of(end: int) -> int | None:
        return next((i for i, (a, b) in enumerate(spans) if a < end <= b), None)

    found: list[tuple[int, _Slot]] = []
    for counter in _counters(line):
        what = "epoch" if counter.what == "epoch" else "step"
        for end, kind in ((counter.end, what), (counter.total_end, what + "s" if what ==
                                                 "epoch" else "total")):
            if (index := slot_of(end)) is not None:
                found.append((index, _Slot(kind)))
    taken = {index for index, _ in found}
    kinds = {slot.kind for _, slot in found}
    names: set[str] = set()
    for named in named_numbers(line):
        index = slot_of(named.end)
        if index is None or index in taken:
            continue
        taken.add(index)
        name, scale = _canon(named.key, named.unit)
        kind = {"step": "step", "epoch": "epoch", "total_steps": "total",
                "samples_per_s": "throughput"}.get(name, "metric")
        if (kind != "metric" and kind in kinds) or name in names:
            kind, (name, scale) = "metric", own(named.key, named.unit)  # (a second one)
            if name in names:
                continue
        kinds.add(kind)
        names.add(name)
        found.append((index, _Slot(kind, name, scale)))
    return sorted(found, key=lambda item: item[0]) or None


def _template(shape: str, lines: list[str]) -> Template | None:
    """The template of ``lines`` (of masked ``shape``), if their named numbers change; None
    where no number is named or none changes."""
    slots = _named(lines[0])
    if slots is None:
        return None
    values = [[m.group(1) for m in _MASK.finditer(line)] for line in lines]
    if not any(len({v[index] for v in values if index < len(v)}) > 1 for index, _ in slots):
        return None
    captured = dict(slots)
    parts = shape.split(_SLOT)
    anchor = max(parts, key=len)
    return Template(shape, _pattern(parts, captured), [captured[i] for i in sorted(captured)],
                    anchor, parts[0], shape.lower(), _pattern(parts, {}),
                    (_pattern(parts, captured, _ASCII_RUN), _pattern(parts, {}, _ASCII_RUN)))


def _pattern(parts: list[str], captured: dict[int, _Slot], run: str = _RUN
             ) -> re.Pattern[str]:
    """The pattern of the lines of a template (``parts``: its shape's texts around its number
    slots), capturing the numbers of the slots ``captured`` (``run``: a slot's)."""
    body = "".join(
        re.escape(part) + ("" if i == len(parts) - 1 else
                           f" *({run})" if i in captured else f" *{run}")
        for i, part in enumerate(parts))
    lead = parts[0]
    if lead.strip():
        rest = body[len(re.escape(lead)):]
        return re.compile(
            f"{re.escape(lead)}(?<=(?<![^\\n]){re.escape(lead)}){rest}(?![^\\n])")
    return re.compile(f"(?m)^{body}(?![^\\n])")


def _without(rows: Rows, given: frozenset[str]) -> Rows | None:
    """``rows`` without the metrics named in ``given`` (its throughput where that holds
    ``samples_per_s``, its progress where ``""``); None where nothing is left."""
    kinds = [(cls, columns) for cls, columns in rows.kinds
             if not ((cls is Metric and columns[0][0] in given)
                     or (cls is Progress and "" in given)
                     or (cls is Throughput and "samples_per_s" in given))]
    return Rows(rows.run_id, rows.stamps, kinds) if kinds else None


def _holding(shape: bytes, nocase: tuple[str, ...]) -> int:
    """Whether the lines of ``shape`` (``_ZERO_BYTES``) hold one of ``nocase`` in any case:
    ``_NONE``, ``_HOLDS``, ``_MAYBE`` (only one with digits, where each line tells) or
    ``_ODD`` (it lowers otherwise than a character at a time)."""
    lowered = plain_lower(shape.decode(errors="surrogatepass"))
    if lowered is None:
        return _ODD
    if any(word in lowered for word in nocase if word == word.translate(_NO_DIGITS)):
        return _HOLDS
    if any(word.translate(_ZEROS) in lowered for word in nocase):
        return _MAYBE
    return _NONE


def _bare(name: str) -> str:
    """A metric's name compared with a dialect's: without its ``_`` (``global_rate``)."""
    return name.replace("_", "")


_KEYWORDS = lazy("|".join(re.escape(word).replace("/", "_") for word in KEYWORDS))


def _keyword(name: str) -> bool:
    """Whether a metric's name holds one of ``KEYWORDS`` (a figure a one-off line gives)."""
    return _KEYWORDS.search(name.replace(" ", "_")) is not None


def _floats(column: Any, scale: float = 1.0) -> list[float]:
    """The values of a column of numbers' texts (``12,345``; a text with more after its
    number, ``5.2.``, is read as its number)."""
    try:
        values = list(map(float, column))
    except ValueError:  # (a thousands separator, a field's comma, or more after the number)
        joined = "\x00".join(column) + "\x00"
        for end in (",", ".", "-", "+"):
            joined = joined.replace(end + "\x00", "\x00")
        column = joined.replace(",", "").split("\x00")[:-1]
        try:
            values = list(map(float, column))
        except ValueError:
            values = [float(m[0]) if (m := _VALUE.match(text)) else math.nan
                      for text in column]
    return values if scale == 1.0 else list(map(scale.__mul__, values))


def _ints(column: Any) -> list[int]:
    try:
        return list(map(int, column))
    except ValueError:
        return [int(value) if math.isfinite(value) else 0 for value in _floats(column, 1.0)]


def _end(end: int, text: str) -> int:
    return len(text) if end < 0 else end
