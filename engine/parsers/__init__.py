"""Log dialects: turning the lines of a job's output into events.

accelbench's own workloads print machine lines (``machine.py``). Programs that
accelbench drives unchanged print their own dialects: each is a ``Dialect`` subclass
that a system declares (``engine/systems``), but for the formats of programs that run on
any system (``generic.py``: the Hugging Face Trainer's, tqdm bars, Keras, MLPerf's; and
those a package adds to every log: ``reading.formats``, Slurm's lines).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, ClassVar

from accelbench.engine.core.batches import Batch, Rows
from accelbench.engine.core.events import Diagnosis, Event

if TYPE_CHECKING:
    from accelbench.engine.parsers.steps import StepLines


class Dialect:
    """One log dialect. Stateful: feed it a log's lines in order.

    ``feed`` returns the events a line completes (Phase, Progress, Metric,
    Throughput, Utilization, Diagnosis; never Log: the caller makes those), each
    with this dialect's ``run_id`` and the timestamp it is given unless the line
    carries its own; ``feed_lines`` (optional) does the same for many lines at once, and
    may give the events of a run of lines alike as one ``Rows`` (columns: ``engine.core.batches``);
    ``feed_text`` reads the lines it needs straight from a block of text, where the
    dialect declares its ``step_lines`` (``parsers.steps``: the literal each holds, the
    pattern that reads it, the conversion of each group) and gives their events from the
    converted columns (``step_rows``).
    ``finish`` flushes what a block left pending at the end.

    ``needs`` (literal texts, matched with case) lets a reader skip lines: a line
    holding none of them (nor one of ``needs_nocase``, literal texts matched in any
    case) may not be fed; ``None`` feeds every line. Where lines went
    by unfed, ``skipped`` is called before the next ``feed`` (or ``finish``): a dialect
    whose state any other line changes (a block ending at the first other line) acts
    on it there, as ``feed`` would have on such a line. ``sniff_needs`` (literal texts,
    matched in any case, or with case where ``sniff_cased``), where given, are what a line
    ``sniff`` recognises holds: the middle of a long log is sniffed on those lines only
    (else on the lines of ``needs``).

    A log shows its run succeeded when one of the metrics in ``run_end`` or ``success``
    comes, and failed when a dialect gives a ``Diagnosis`` (but those whose codes are in
    its ``warnings``); ``exit_code`` is the exit code the log itself reports, if any,
    ``status`` the run status it reports (a table of jobs: ``done``, ``failed``,
    ``cancelled``, ``queued``, ``running``), overriding those, and ``elapsed`` the seconds
    it reports the run took, where its lines' timestamps do not span them.

    ``fallback``: a generic format that a system's own dialect may also read (progress
    bars); a log is read with it only where no system's dialect recognises the log.

    ``always``: read on every log, live and imported, whatever dialects are detected (it
    is never sniffed): a reader of what any program may print (failures, step lines). Its
    ``needs`` make it cost nothing on text holding none of them; it is given each piece of
    text on its own (``prefilter.read_text``), its events after those of the detected
    dialects', and its diagnoses fail a run as theirs do. Those whose codes are in its
    ``defers`` (a generic cause: a Python traceback's exception) give way where a detected
    dialect diagnosed the run, before or in the same piece (``deferred``): that one says
    what failed in its own terms.

    ``whole``: the dialect reads all that its output means (a tool's report read whole:
    ``nvidia-smi``'s, ``sntilestat``'s tables, records); where it is detected for a run or a
    section, the ``always`` dialects that ``give_way`` (the generic reader of step lines,
    which would read a report's numbers as figures) are silent. accelbench's own machine
    lines (``machine.py``) are read whole too: from a run's first one on, the same.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    run_end: ClassVar[frozenset[str]] = frozenset()  # metrics a run's log ends with
    success: ClassVar[frozenset[str]] = frozenset()  # more metrics only a finished run gives
    needs: ClassVar[tuple[str, ...] | None] = None  # a line it reads holds one; None: any
    warnings: ClassVar[frozenset[str]] = frozenset()  # its diagnoses of a job that went on
    fallback: ClassVar[bool] = False
    needs_nocase: ClassVar[tuple[str, ...]] = ()  # ... or one of these, in any case
    sniff_needs: ClassVar[tuple[str, ...] | None] = None  # a line sniff reads holds one
    sniff_cased: ClassVar[bool] = False  # its sniff_needs are matched with case
    step_lines: ClassVar[StepLines | None] = None  # its step line, read at once (feed_text)
    always: ClassVar[bool] = False  # read on every log, whatever is detected
    defers: ClassVar[frozenset[str]] = frozenset()  # its diagnoses giving way to another's
    whole: ClassVar[bool] = False  # it reads all its output means: no generic reading beside
    gives_way: ClassVar[bool] = False  # (``always``) silent beside a ``whole`` dialect

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("feed", "skipped", "finish"):
            if name in cls.__dict__:
                setattr(cls, name, _tolerant(cls.__dict__[name]))

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.exit_code: int | None = None
        self.status: str | None = None
        self.elapsed: float | None = None

    def feed(self, line: str, ts: float) -> list[Event]:
        """Events recognised in ``line`` (seen at ``ts``)."""
        raise NotImplementedError

    def feed_lines(self, lines: list[str], ts: float) -> list[Event | Rows]:
        """The events of ``lines`` fed in order (each seen at ``ts``), as ``feed`` gives
        them (some maybe as ``Rows``): a dialect may offer a quicker way through many lines
        at once."""
        feed = self.feed
        return [event for line in lines for event in feed(line, ts)]

    def feed_text(self, text: str, needs: tuple[str, ...], nocase: tuple[str, ...], ts: float
                  ) -> list[Event | Rows] | None:
        """The events of the lines of ``text`` holding one of ``needs`` (or of ``nocase``, in
        any case) fed in order, as ``feed_lines`` gives them, where the dialect reads those
        lines quicker from the whole text: ``needs`` and ``nocase`` are those of its own that
        the text may hold (a line that holds none of its own is on no line). None where it
        has no quicker way for this text; the dialect is then as it was. An ``always``
        dialect that needs any line (``needs`` None) is given every line, with ``()`` and
        those of its ``needs_nocase`` the text may hold; an ``always`` dialect's text may
        hold carriage returns (a redrawn line's states).
        By default, its ``step_lines`` read as columns (``parsers.steps.read_text``)."""
        from accelbench.engine.parsers.steps import read_text  # (steps reads with prefilter)

        return read_text(self, text, needs, nocase, ts)

    def step_rows(self, columns: list[list[Any]], ts: float) -> list[Event | Rows] | None:
        """The events of step lines (one or more, in order, the lines between them holding
        none of ``needs``) whose ``step_lines`` groups, converted, are ``columns`` (a list
        per group), as ``feed`` gives them line by line, and the dialect left as ``feed``
        leaves it; None where not as columns (before changing anything)."""
        return None

    def beside(self, given: Batch) -> None:
        """The events the run's detected dialects gave for the text an ``always`` dialect
        is about to read (told before it reads it): one that reads figures they may also
        read notes which, to leave those to them."""

    def among(self, dialects: list[Dialect]) -> None:
        """The run's detected dialects, told an ``always`` dialect before it reads a piece
        of text: one that reads lines they may read tries a line on a copy of them."""

    def skipped(self, ts: float) -> list[Event]:
        """Events that lines without any of ``needs`` (not fed, seen at ``ts``) complete."""
        return []

    def finish(self, ts: float) -> list[Event]:
        """Events of a block still open at the end of the log."""
        return []

    @classmethod
    def sniff(cls, text: str) -> bool:
        """True when a log's ``text`` looks written in this dialect."""
        raise NotImplementedError



def _tolerant(read: Callable[..., list[Event]]) -> Callable[..., list[Event]]:
    """``read`` (``feed``, ``skipped``, ``finish``), where the text it reads breaks the
    dialect's reading of it (a number that is none: ``Loss=abc``, ``1.2.3``, 400 digits)
    giving no events rather than stopping the log's reading (the line itself is kept with
    the run's output)."""
    @wraps(read)
    def tolerant(self: Dialect, *args: object) -> list[Event]:
        try:
            return read(self, *args)
        except (ValueError, ArithmeticError, IndexError):
            return []
    return tolerant


def deferred(events: list[Event | Rows], dialect: Dialect, diagnosed: bool
             ) -> list[Event | Rows]:
    """``events`` of an ``always`` ``dialect``, less the diagnoses it defers (``defers``)
    where another dialect diagnosed the run (``diagnosed``)."""
    if not diagnosed or not dialect.defers:
        return events
    return [event for event in events
            if not (type(event) is Diagnosis and event.code in dialect.defers)]


class OncePerCause(Dialect):
    """A dialect that gives one diagnosis per cause, however many ranks, steps or jobs print
    it (``_say``); it sets ``self._said = set()`` when it starts."""

    _said: set[str]

    def _say(self, ts: float, code: str, message: str, hint: str) -> list[Event]:
        if code in self._said:
            return []
        self._said.add(code)
        return [Diagnosis(self.run_id, ts, code, message, hint)]
