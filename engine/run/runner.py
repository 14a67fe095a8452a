"""Runs: start one, or open one started earlier, and follow its events.

Events are derived from the run's files (``output.log``, ``telemetry.jsonl``,
``exit.json``) by the same deterministic code whoever reads them and whenever:
a run watched live and one attached to later give the same events (but for
``Redraw``, the live state of a line being redrawn). Nothing a job prints can
break a reader: damaged machine lines become log lines plus one diagnosis, and a
run whose files cannot be read is reported ``unreadable`` with the reason.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import os
import sys
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

from accelbench.engine.config import site
from accelbench.engine.core.batches import Rows, expanded
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import (
    UNREADABLE,
    Diagnosis,
    Event,
    Finished,
    Log,
    Phase,
    Progress,
    Redraw,
)
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.core.summary import Ending, RunSummary
from accelbench.engine.core.tail import CHUNK, FileTail, Redrawn
from accelbench.engine.parsers import Dialect, deferred, machine
from accelbench.engine.parsers.logclock import IMPORTED, LogClock
from accelbench.engine.parsers.prefilter import line_starts, needs_of, nocase_of, read_text
from accelbench.engine.parsers.sniffer import Sniffer
from accelbench.engine.plugin import registry
from accelbench.engine.plugin.launcher import get_launcher
from accelbench.engine.run import digest
from accelbench.engine.run.state import RunState
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.exitfile import ExitRecord, read_exit, write_exit
from accelbench.engine.rundir.files import (
    EXIT_FILE,
    OUTPUT_FILE,
    STATE_FILE,
    STDERR_FILE,
    TELEMETRY_FILE,
    WORK_DIR,
)
from accelbench.engine.rundir.records import Launch, RunMeta, Wrapper
from accelbench.engine.store.runs import RunQuery, Store
from accelbench.engine.telemetry import events_from_line
from accelbench.engine.workloads import Context, Plan
from accelbench.engine.workloads.emit import PREFIX

POLL_INTERVAL = 0.1
LIVENESS_EVERY = 2.0
FOLD_CHUNK = 256 * 1024  # bytes per file per step of a streaming pass: bounds its memory
MAX_STDERR_PENDING = 10_000  # stderr lines waiting to be met in output.log
BAD_LINE_SHOWN = 200  # characters of a damaged machine line quoted in its diagnosis
_PROGRESS = PREFIX + '{"type":"progress",'  # how emit.py's progress lines begin
REDRAW_EVERY = 0.25  # seconds between two Redraw events of a run



class Reader:
    """What a reader of a run keeps of its events: the ``Deriver``'s strategy for the job's
    output lines. ``EveryEvent`` (the default), ``StateOnly`` or ``StateAndLines``."""

    def stderr_lines(self, deriver: Deriver, lines: list[str]) -> None:
        """Note the job's stderr lines, to say which stream a ``Log`` event's line came
        from."""
        deriver.stderr.extend(lines)

    def output(self, deriver: Deriver, lines: list[str]) -> list[Event]:
        """:meth:`Deriver.output` of ``lines`` with the dialects taken so far."""
        text = "\n".join(lines) if deriver.dialects else ""
        wanted = deriver._wanted(text)
        return deriver._lines(lines, None if wanted is None else set(wanted))

    def always(self, deriver: Deriver, batch: list[Event | Rows]) -> list[Event]:
        """The ``always`` dialects' ``batch`` folded into the state; the events returned."""
        events = expanded(batch)
        deriver.state.feed_all(events)
        return events

    def given(self, events: list[Event]) -> list[Event]:
        """The events of a batch of lines that the reader is given."""
        return events

    def overridden(self, deriver: Deriver, lines: list[str]) -> int:
        """How many of ``lines`` come before the batch's last progress line (that makes
        an event): progress lines among them need make none (0: every one makes one)."""
        return 0


class EveryEvent(Reader):
    """Every event: a plain line makes a ``Log`` (the run view, ``replay``, ``show``)."""


class StateAndLines(Reader):
    """The state and the log lines, not every other event: a progress line that a later one
    of the same batch overrides makes no event (only its time is read: the state is the
    same). ``RunHandle.folds``: a view that shows the state after each batch."""

    def overridden(self, deriver: Deriver, lines: list[str]) -> int:
        if not deriver._progressed:
            return 0
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].startswith(_PROGRESS) and machine.progress_time(lines[i]) is not None:
                return i
        return 0


class StateOnly(Reader):
    """The state only (``RunHandle.fold`` without ``each``, ``state``): plain lines make
    no ``Log`` event, the state takes them in bulk, and the ``always`` dialects' alike
    lines that a dialect gives as a ``Rows`` go to the state as columns."""

    def stderr_lines(self, deriver: Deriver, lines: list[str]) -> None:
        pass  # only a Log event says which stream its line came from

    def output(self, deriver: Deriver, lines: list[str]) -> list[Event]:
        text = "\n".join(lines)
        wanted = deriver._wanted(text)
        if PREFIX in text or Redrawn in set(map(type, lines)):
            return deriver._lines(lines, None if wanted is None else set(wanted))
        deriver.state.plain_lines(lines, deriver.ts)  # plain lines only, the usual case
        events, last = deriver._dialect_lines(lines, wanted)
        deriver._keep(events)
        if not last:  # the last line's Log would have been the last event
            deriver.state.last_ts = deriver.ts
        return events

    def always(self, deriver: Deriver, batch: list[Event | Rows]) -> list[Event]:
        deriver.state.feed_all(batch)
        return [event for event in batch if not isinstance(event, Rows)]

    def given(self, events: list[Event]) -> list[Event]:
        return [event for event in events if type(event) is not Log]


class Timing:
    """When the events of the job's output lines happen: the ``Deriver``'s strategy for
    time. ``JobTimes`` (the default) or ``LogTimes``."""

    def batch(self, deriver: Deriver, lines: list[str]) -> None:
        """Move the time to that of a batch of lines the ``always`` dialects read."""

    def line(self, deriver: Deriver, line: str) -> None:
        """Move the time to that of a line the dialects are fed."""

    def feed(self, deriver: Deriver, line: str) -> list[Event]:
        """The dialects' events of ``line``."""
        if len(deriver.dialects) == 1:
            return deriver.dialects[0].feed(line, deriver.ts)
        return [e for d in deriver.dialects for e in d.feed(line, deriver.ts)]

    def rows(self, deriver: Deriver, lines: list[str], wanted: list[int]) -> int | None:
        """Fold the ``wanted`` of ``lines`` into the state at once where this timing can;
        how many events the batch's last line gave, else None (nothing was done)."""
        return None


class JobTimes(Timing):
    """At the times the job's machine lines give (a run started by accelbench)."""


class LogTimes(Timing):
    """At the times an imported log's own timestamps give (``logclock``), whatever time a
    dialect read."""

    def __init__(self, clock: LogClock) -> None:
        self.clock = clock

    def batch(self, deriver: Deriver, lines: list[str]) -> None:
        if not deriver.dialects:
            deriver.ts = self.clock.at(lines[-1])

    def line(self, deriver: Deriver, line: str) -> None:
        deriver.ts = self.clock.at(line)  # (as the dialects will see it: the same)

    def feed(self, deriver: Deriver, line: str) -> list[Event]:
        deriver.ts = self.clock.at(line)
        events = [e for d in deriver.dialects for e in d.feed(line, deriver.ts)]
        for event in events:
            event.ts = deriver.ts
        return events

    def rows(self, deriver: Deriver, lines: list[str], wanted: list[int]) -> int | None:
        """Where the one dialect gives the ``wanted`` lines as alike rows
        (``Dialect.feed_lines``: a ``Rows`` of a row a line, maybe a phase at the first), fold
        them into the state as columns at the times the log's clock gives them, as
        :meth:`feed` each would; how many events the batch's last line gave. None where
        not (the dialect is as it was)."""
        if len(deriver.dialects) != 1 or deriver._skips or len(wanted) < 2:
            return None
        picked = [lines[i] for i in wanted]
        dialect = deriver.dialects[0]
        saved = copy.deepcopy(dialect)
        batch = dialect.feed_lines(picked, deriver.ts)
        rows = batch[-1] if batch else None
        phases = [event for event in batch[:-1] if isinstance(event, Phase)]
        if not (isinstance(rows, Rows) and len(rows.stamps) == len(picked)
                and len(phases) == len(batch) - 1):
            deriver.dialects[0] = saved
            return None
        times = self.clock.at_all(picked)
        for phase in phases:
            phase.ts = times[0]
        deriver.ts, deriver._gap = times[-1], wanted[-1] < len(lines) - 1
        deriver._keep([*phases, Rows(rows.run_id, times, rows.kinds)])  # type: ignore[list-item]
        return 0 if deriver._gap else len(rows.kinds)


class Deriver:
    """Turns a run's file contents into events, keeping the run's state.

    The dialects are fed only the lines holding what they need (``parsers.prefilter``),
    whole: a line is at most ``tail.MAX_LINE`` bytes (the tail cuts longer ones, saying so
    in the line), and the dialects' expressions take time linear in a line's length. What
    the reader keeps of the events is its ``reader`` (``EveryEvent``, ``StateOnly``,
    ``StateAndLines``); the times of the output's events are its ``timing`` (``JobTimes``,
    an imported log's ``LogTimes``). The dialects read on every log (``Dialect.always``)
    are given each batch's text on their own, after the others (but those that
    ``give_way``, from a ``whole`` dialect's detection or the first machine line on).
    """

    def __init__(self, run_id: str, created: float, dialects: Iterable[str] = (),
                 sniff: Iterable[str] = (), reader: Reader | None = None,
                 timing: Timing | None = None) -> None:
        self.run_id = run_id
        self.ts = created
        self.reader = reader or EveryEvent()
        self.timing = timing or JobTimes()
        self.state = RunState(run_id)
        self.started = False
        classes = [registry.get_dialect(name) for name in dialects]
        self.dialects: list[Dialect] = []
        self._take(classes)
        self.extras = [cls(run_id) for cls in registry.always_dialects() if cls not in classes]
        self._whole = False  # a dialect reading all its output means was detected, or a
        # machine line came (``Dialect.whole``): the extras that give way are left out
        self._own: set[str] = set()  # the codes of the extras' diagnoses
        self._given: list[Event | Rows] = []  # what the others gave since the extras read
        self.sniffer = _sniffer(classes, sniff)
        self._progressed = False  # a Progress event was given
        self.stderr: deque[str] = deque(maxlen=MAX_STDERR_PENDING)  # not yet met in output.log
        self.bad_lines = 0  # machine lines that could not be read
        self._next_redraw = 0.0  # time.monotonic() before which no Redraw is given
        self._gap = False  # lines went by unfed since the dialects were last fed

    def _take(self, classes: list[type[Dialect]]) -> list[Dialect]:
        """Read the output with ``classes`` too, from now on; their new dialects."""
        taken = [cls(self.run_id) for cls in classes]
        self.dialects += taken
        if any(cls.whole for cls in classes):
            self._whole = True
        classes = [type(d) for d in self.dialects]
        self.needs, self.nocase = needs_of(classes), nocase_of(classes)
        self._skips = any(cls.skipped is not Dialect.skipped for cls in classes)  # gaps count
        return taken

    def _keep(self, events: list[Event]) -> list[Event]:
        self.state.feed_all(events)
        if self.extras:
            self._given += events
        return events

    def opening(self) -> list[Event]:
        """The events every run starts with."""
        return self._keep([Phase(self.run_id, self.ts, "queued")])

    def job_started(self, wrapper: Wrapper) -> list[Event]:
        """The job's process is up: the run is running (until the job reports finer phases)."""
        self.started, self.ts = True, wrapper.started
        return self._keep([Phase(self.run_id, self.ts, "running", f"on {wrapper.host}")])

    def stderr_lines(self, lines: list[str]) -> None:
        """Note the job's stderr lines, read from ``stderr.log`` before ``output.log``."""
        self.reader.stderr_lines(self, lines)

    def _stream(self, line: str) -> str:
        """``stderr`` if ``line`` is the next stderr line (a few may be skipped), else
        ``stdout``."""
        for i, pending in enumerate(itertools.islice(self.stderr, 4)):
            if pending == line:
                for _ in range(i + 1):
                    self.stderr.popleft()
                return "stderr"
        return "stdout"

    def output(self, lines: list[str]) -> list[Event]:
        """Events of job output lines: machine lines become their events, others logs
        (a damaged machine line too, with one ``bad_machine_line`` diagnosis per run);
        the states a line was redrawn through (``Redrawn``) go to the dialects only. A
        dialect sniffed (``sniff``) reads the output from the first line it recognises,
        after the earlier lines it reads (``parsers.sniffer``)."""
        if not lines:
            return []
        sniffer = self.sniffer
        at = sniffer.scan(lines) if sniffer else None
        if sniffer is None or at is None:
            return self._output(lines) + self._always(lines)
        events = self._output(lines[:at]) + self._always(lines[:at])
        for dialect in self._take(sniffer.found):
            for line in sniffer.replay(type(dialect)):
                events += self._keep(dialect.skipped(self.ts) if line is None
                                     else dialect.feed(line, self.ts))
        return events + self.output(lines[at:])

    def _always(self, lines: list[str]) -> list[Event]:
        """The events the ``always`` dialects give for ``lines``, folded into the state as
        the reader wants them (``Reader.always``). An imported log's are at the time of its
        batch's last line."""
        if not self.extras or not lines:
            return []
        self.timing.batch(self, lines)
        text = "\n".join(lines)
        extras = self.extras
        if PREFIX in text:  # (accelbench's own figures are its machine lines')
            text = "\n".join(line for line in lines if not line.startswith(PREFIX))
            first = next((i for i, line in enumerate(lines) if line.startswith(PREFIX)), None)
            if first is not None and not self._whole:  # (the lines before it: read as any)
                events = self._always(lines[:first]) if first else []
                self._whole = True
                return events + self._always(lines[first:])
        if self._whole:
            extras = [extra for extra in extras if not extra.gives_way]
        warnings = {code for dialect in self.dialects for code in dialect.warnings}
        diagnosed = any(d.code not in self._own and d.code not in warnings
                        for d in self.state.diagnoses)
        for extra in extras:
            extra.among(self.dialects)
            extra.beside(self._given)
        self._given = []
        batch = [event for extra in extras
                 for event in deferred(read_text(extra, text, self.ts), extra, diagnosed)]
        self._own.update(event.code for event in batch if type(event) is Diagnosis)
        return self.reader.always(self, batch) if batch else []

    def _output(self, lines: list[str]) -> list[Event]:
        """:meth:`output` with the dialects taken so far."""
        return self.reader.output(self, lines) if lines else []

    def _lines(self, lines: list[str], wanted: set[int] | None) -> list[Event]:
        """:meth:`output`, line by line."""
        run_id, events = self.run_id, []
        overridden = self.reader.overridden(self, lines)
        for i, line in enumerate(lines):
            if type(line) is Redrawn:
                events += self._dialect_line(line, wanted is None or i in wanted)
                continue
            bad = None
            if line.startswith(PREFIX):
                ts = (machine.progress_time(line) if i < overridden
                      and line.startswith(_PROGRESS) else None)
                if ts is not None:
                    self.ts = ts
                    continue
                try:
                    event = machine.parse(run_id, line)
                except ValueError as exc:
                    bad = str(exc)
                else:
                    self.ts = event.ts
                    events.append(event)
                    self._progressed = self._progressed or type(event) is Progress
                    continue
            if wanted is None or i in wanted:
                self.timing.line(self, line)
            events.append(Log(run_id, self.ts, self._stream(line) if self.stderr else "stdout",
                              line))
            if bad is not None:
                events += self._bad_line(line, bad)
            events += self._dialect_line(line, wanted is None or i in wanted)
        self._keep(events)
        return self.reader.given(events)

    def _wanted(self, text: str) -> list[int] | None:
        """The indices of the lines of ``text`` the dialects need (None: every line)."""
        if self.needs is None or not self.dialects:
            return None if self.dialects else []
        wanted, index, previous, count = [], 0, 0, text.count
        for start in line_starts(text, self.needs, self.nocase):
            index += count("\n", previous, start)
            previous = start
            wanted.append(index)
        return wanted

    def _dialect_lines(self, lines: list[str], wanted: list[int] | None
                       ) -> tuple[list[Event], int]:
        """The dialects' events of ``lines`` (``wanted``: the ones they are fed, the
        others are skipped), and how many of them the last line gave."""
        if not self.dialects:
            return [], 0
        if wanted is None:
            wanted = list(range(len(lines)))
        quick = self.timing.rows(self, lines, wanted)
        if quick is not None:
            return [], quick
        events: list[Event] = []
        last: int | None
        after, last = 0, 0  # the index after the last line fed; where the last line's
        # events start (None: it gave none)
        for i in wanted:
            if i > after and self._skips:  # (else a gap gives nothing)
                events += self._dialect_line(None, False)
            last = len(events)
            events += self._dialect_line(lines[i], True)
            after = i + 1
        if after < len(lines):  # a gap: the skipped lines' events come at its first line
            last = len(events) if after == len(lines) - 1 else None
            events += self._dialect_line(None, False)
        return events, 0 if last is None else len(events) - last

    def _dialect_line(self, line: str | None, wanted: bool) -> list[Event]:
        """The dialects' events of a line: fed if ``wanted``, else the first unfed line
        after a fed one has them told lines were skipped."""
        if wanted:
            self._gap = False
            assert line is not None
            return self.timing.feed(self, line)
        skipped = not self._gap and self._skips  # (else a gap gives nothing)
        self._gap = True
        return [e for d in self.dialects for e in d.skipped(self.ts)] if skipped else []

    def _bad_line(self, line: str, reason: str) -> list[Event]:
        """The diagnosis of the run's first damaged machine line (later ones are counted)."""
        self.bad_lines += 1
        if self.bad_lines > 1:
            return []
        quoted = line if len(line) <= BAD_LINE_SHOWN else line[:BAD_LINE_SHOWN - 1] + "…"
        return [Diagnosis(self.run_id, self.ts, "bad_machine_line",
                          f"a machine line could not be read ({reason}), so it is kept as a log"
                          f" line: {quoted}",
                          "machine lines are @@accelbench {\"type\": ..., \"t\": ..., ...}"
                          " with the fields of engine/events.py; later bad lines are counted in"
                          " the summary (bad_machine_lines)")]

    def redraw(self, output: FileTail) -> list[Event]:
        """The newest state of the output line being redrawn, if it changed: at most
        every ``REDRAW_EVERY`` seconds, however fast the job redraws it."""
        now = time.monotonic()
        if now < self._next_redraw:
            return []
        text = output.redraw()
        if text is None:
            return []
        self._next_redraw = now + REDRAW_EVERY
        return self._keep([Redraw(self.run_id, self.ts, text)])

    def dialects_done(self) -> list[Event]:
        """What the dialects held back until the end of the output."""
        return self._keep([e for d in self.dialects for e in d.finish(self.ts)])

    def launcher_states(self, lines: list[str]) -> list[Event]:
        """Events of the launcher's state file (queue states, controller trouble)."""
        entries = (journal.parse(self.run_id, line) for line in lines)
        return self._keep([e for e in entries if e is not None])  # a damaged entry says nothing

    def telemetry(self, lines: list[str]) -> list[Event]:
        """Utilization events of telemetry lines."""
        return self._keep([e for line in lines for e in events_from_line(self.run_id, line)])

    def ending(self, record: ExitRecord) -> list[Event]:
        """The closing events for an exit record."""
        status, ts, run_id = record.status, record.ended or self.ts, self.run_id
        events: list[Event] = []
        rc = record.returncode
        if record.disk_full:
            events.append(_disk_full(run_id, ts, record.disk_full))
        if record.error:
            events.append(Diagnosis(run_id, ts, "start_failed", record.error,
                                    "check the command and the Python interpreter of the spec"))
        elif status == "failed":
            last = next((line for line in reversed(self.state.log_tail) if line.strip()), "")
            if record.detail:
                how = f"ended: {record.detail}"
            elif record.signal is not None:
                how = f"was killed by {record.signal}"
            else:
                how = f"exited with code {rc}"
            events.append(Diagnosis(run_id, ts, "job_failed", f"the job {how}" +
                                    (f": {last.strip()}" if last else ""),
                                    "see the end of the log (accelbench show RUN --log)"))
        elif status == "lost":
            events.append(Diagnosis(run_id, ts, "lost", record.detail or "",
                                    "the machine may have rebooted or the process was killed"))
        elif status == "ended":
            events.append(Diagnosis(run_id, ts, "exit_unknown",
                                    f"the job ended, {record.detail}",
                                    "its output and telemetry until then are kept"))
        events.append(Phase(run_id, ts, status, record.detail or ""))
        self._keep(events)
        summary = self.state.summary()
        summary.ending = Ending(rc, self.bad_lines or None,
                                list(self.state.log_tail) if status != "done" else None)
        return [*events, *self._keep([Finished(run_id, ts, status, summary.to_dict())])]


def _sniffer(classes: list[type[Dialect]], names: Iterable[str]) -> Sniffer | None:
    """What sniffs the dialects called ``names`` that a run read with ``classes`` does not
    read yet: not a generic format's (``fallback``) where a system's own dialect reads it,
    as in ``accelbench parse``."""
    systems = registry.dialect_systems()
    own = any(cls.name in systems for cls in classes)
    candidates = [cls for cls in map(registry.get_dialect, names)
                  if cls not in classes and not cls.always and not (own and cls.fallback)]
    return Sniffer(candidates) if candidates else None


def _disk_full(run_id: str, ts: float, filesystem: dict[str, Any]) -> Diagnosis:
    """The diagnosis of a run that met a full disk (``filesystem``: ``core.fs.filesystem``)."""
    mount = filesystem.get("mount", "?")
    kind = f" ({filesystem['fstype']})" if filesystem.get("fstype") else ""
    return Diagnosis(run_id, ts, "disk_full",
                     f"the filesystem of the run is full: {mount}{kind}, "
                     f"{filesystem.get('free', 0) // 1024} KiB free",
                     f"free space on {mount} (`accelbench rm RUN` deletes a run) or set "
                     "ACCELBENCH_HOME to a larger filesystem, then run it again")


class RunHandle:
    """One run: its index row and directory, and the ways to read it."""

    def __init__(self, store: Store, info: RunInfo) -> None:
        self.store = store
        self.info = info
        self.launcher = get_launcher(info.launcher)
        self._status_lock = threading.Lock()  # a reader's status changes, one at a time
        self._reserved: tuple[int, ...] | None = None  # exit.json's stat while reserved

    @property
    def id(self) -> str:
        """The run's id."""
        return self.info.id

    def _sources(self, reader: Reader | None = None) -> tuple[Deriver, list[FileTail]]:
        """A deriver of the run's events for ``reader`` (``EveryEvent`` by default), and
        the tails of its files."""
        meta = RunMeta.read(self.info.dir)
        launch = Launch.read(self.info.dir) or Launch()
        dialects, sniff = launch.dialects, launch.sniff
        created = self.info.created if meta is None else meta.created
        timing = LogTimes(LogClock(created)) if self.info.workload == IMPORTED else None
        return Deriver(self.id, created, dialects, sniff, reader, timing), [
            FileTail(self.info.path(name),
                     redraws=name == OUTPUT_FILE and bool(dialects or sniff))
            for name in (STATE_FILE, STDERR_FILE, OUTPUT_FILE, TELEMETRY_FILE)]

    def _exit_record(self, check_alive: bool) -> ExitRecord | None:
        """The exit record once the run has ended, else None; when ``check_alive``, the
        launcher is asked (cheap: no log is read). ``ValueError`` if the record is damaged."""
        path = self.info.path(EXIT_FILE)
        record = self._read_exit(path)
        if record is None and check_alive:
            status = self.launcher.poll(self.info)  # may record the end itself
            with self._status_lock:
                record = self._read_exit(path)
                if record is None and status == "lost":  # recorded: every later reader agrees
                    record = ExitRecord("lost", None, ended=time.time(), detail="the job's"
                                        " process vanished without recording an exit status")
                    with contextlib.suppress(OSError):  # a full disk: this reader says it all
                        write_exit(path, record)
                elif record is None and status != self.info.status:
                    self.store.update(self.id, status)
                    self.info.status = status
        if record is not None and record.verdict:  # the launcher settles how it ended
            if check_alive:
                self.launcher.poll(self.info)
                record = self._read_exit(path) or record
            if record.verdict and time.time() - (record.ended or 0) < 180:
                return None  # wait for the verdict (3 minutes at most), then take it as is
        return record

    def _read_exit(self, path: Path) -> ExitRecord | None:
        """``read_exit(path)``; one ``stat`` only while the file is the reservation found
        last time (unchanged)."""
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        seen = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if seen == self._reserved:
            return None
        record = read_exit(path)
        self._reserved = seen if record is None else None
        return record

    def _step(self, deriver: Deriver, tails: list[FileTail], check_alive: bool,
              chunk: int = CHUNK, end: ExitRecord | None = None) -> tuple[list[Event], bool]:
        """Read what is new; returns the events and whether the run has ended (``end``: the
        exit record the launcher's thread found, if not in the file)."""
        record = self._exit_record(check_alive) or end
        state, err, out, tel = tails
        events = []
        if not deriver.started:
            wrapper = Wrapper.read(self.info.dir)  # written as the job starts
            if wrapper:
                events = deriver.job_started(wrapper)
        events += deriver.launcher_states(state.read_lines(chunk))
        deriver.stderr_lines(err.read_lines(chunk))
        events += deriver.output(out.read_lines(chunk)) + deriver.telemetry(tel.read_lines(chunk))
        if record is None or any(t.unread for t in tails):
            return events + deriver.redraw(out), False
        events += deriver.launcher_states(state.rest())
        deriver.stderr_lines(err.rest())
        events += deriver.output(out.rest()) + deriver.telemetry(tel.rest())
        events += deriver.dialects_done()
        events += deriver.ending(record)
        assert deriver.state.finished is not None  # ending() feeds the state its Finished
        self._record_end(deriver.state)
        return events, True

    def _record_end(self, state: RunState) -> None:
        """Record the run's end (once), and the digest of its logs (once)."""
        finished = state.finished
        assert finished is not None
        with self._status_lock:
            if self.info.status != finished.status:
                summary = RunSummary.from_dict(finished.summary)
                self.store.record_end(self.id, finished.status, summary, finished.ts)
                self.info.status, self.info.summary = finished.status, summary
                self.info.ended = finished.ts
            if not digest.kept(self.info):
                digest.write(self.info, state)

    def fold(self, each: Callable[[list[Event]], None] | None = None,
             chunk: int = FOLD_CHUNK) -> RunState:
        """The run's state from one streaming pass over its files as they are now (the
        ending too, recorded in the index, if it ended); ``each`` sees every batch of
        events (but for plain log lines when there is no ``each``: only the state sees
        them). Memory stays bounded whatever the size of the files: nothing keeps the
        events. Raises what damaged files raise (:meth:`state` reports it instead)."""
        deriver, tails = self._sources(EveryEvent() if each is not None else StateOnly())
        each = each or (lambda batch: None)
        each(deriver.opening())
        try:
            while True:
                batch, ended = self._step(deriver, tails, not self.info.final, chunk)
                each(batch)
                if ended or not any(t.unread for t in tails):
                    return deriver.state
        finally:
            for tail in tails:
                tail.close()

    def replay(self) -> tuple[list[Event], RunState]:
        """Every event the run's files hold now, in a list (tests and small runs: readers
        that need only the state use :meth:`fold` or :meth:`state`)."""
        events: list[Event] = []
        state = self.fold(events.extend)
        return events, state

    def state(self) -> RunState | None:
        """:meth:`fold`, or None when the run's files cannot be read: then the run's
        ``info`` says ``unreadable`` and why (a reader never fails because of one run)."""
        try:
            return self._readable(self.fold)
        except UserError:
            return None

    def refresh(self) -> None:
        """Bring the run's status up to date without reading its logs: the launcher's word
        while it runs; once it has ended, its summary from one streaming pass (recorded,
        so only the first reader pays for it)."""
        try:
            if self._readable(self._exit_record, True) is not None:
                self._readable(self.fold)
        except UserError:
            pass  # the run's info says unreadable, and why

    def _readable(self, read: Callable, *args: Any) -> Any:
        """``read(*args)``; what damaged files raise becomes a one-line ``UserError``."""
        try:
            return read(*args)
        except Exception as exc:  # noqa: BLE001 - whatever a damaged run raises
            self._unreadable(exc)
            raise UserError(f"run {self.id} is {UNREADABLE}: {self.info.reason}",
                            hint="accelbench show RUN --log shows what the job printed") from None

    def _unreadable(self, exc: Exception) -> None:
        """Mark the run ``unreadable`` (in this reader only), with the cause in one line."""
        lines = str(exc).strip().splitlines()
        reason = lines[0] if lines else ""
        if not isinstance(exc, ValueError | UserError):
            reason = f"{type(exc).__name__}: {reason}"
        self.info.status, self.info.reason = UNREADABLE, reason[:300]

    async def batches(self, poll: float = POLL_INTERVAL, chunk: int = CHUNK,
                      pace: Callable[[], float] | None = None) -> AsyncIterator[list[Event]]:
        """The run's events in batches: its history first, then live until it ends.

        Each batch comes from at most ``chunk`` bytes of each file. The files are read in
        the process's hub thread, every ``poll`` seconds (or every ``pace()`` seconds, as
        the reader wants now, in ticks of ``poll``; the history at once whatever the pace),
        with those of every other run followed (``lane.Hub``: the event loop wakes once a
        tick for all of them); the launcher is asked (``squeue``, ...) in a thread of this
        reader's own, so the event loop never waits on it and a slow controller delays no
        other run. Files that cannot be read end it with a ``UserError`` saying why (the
        run is ``unreadable``).
        """
        async for batch, _ in self._read(poll, chunk, pace, False):
            yield batch

    async def folds(self, poll: float = POLL_INTERVAL, chunk: int = CHUNK,
                    pace: Callable[[], float] | None = None
                    ) -> AsyncIterator[tuple[list[Event], RunState]]:
        """:meth:`batches`, each with the run's state after it: a copy of the state the
        reader folded the events into (once, in the hub's thread), the taker's to keep. The
        batches hold the log lines and some other events: not a progress event that a later
        one of its batch overrides (``StateAndLines``)."""
        async for batch, state in self._read(poll, chunk, pace, True):
            assert state is not None
            yield batch, state

    async def _read(self, poll: float, chunk: int, pace: Callable[[], float] | None,
                    states: bool) -> AsyncIterator[tuple[list[Event], RunState | None]]:
        from accelbench.engine.run.reader import hub  # asyncio: listings never need it

        reading = _Reading(self, chunk, pace, poll, states)
        try:
            async for item in hub(poll).take(reading):
                yield item
        finally:
            reading.stop.set()  # its launcher's thread ends now; the hub closes its files

    async def events(self, poll: float = POLL_INTERVAL) -> AsyncIterator[Event]:
        """The run's events one by one (see :meth:`batches`)."""
        async for batch in self.batches(poll):
            for event in batch:
                yield event

    def cancel(self, grace: float = 10.0) -> None:
        """Stop the run's job (SIGTERM, then SIGKILL after ``grace`` seconds)."""
        self.launcher.cancel(self.info, grace)


class _Reading:
    """A run followed live, for a ``lane.Hub``: its files read a step at a time (in the
    hub's thread; every ``pace()`` seconds if given, in the hub's ``tick``s), its launcher
    asked every ``LIVENESS_EVERY`` seconds in a thread of its own until ``stop`` is set or
    the run has ended. It makes (batch, copy of the state after it if ``states``)."""

    def __init__(self, handle: RunHandle, chunk: int,
                 pace: Callable[[], float] | None = None, tick: float = 0.0,
                 states: bool = False) -> None:
        self.handle = handle
        self.chunk = chunk
        self.pace, self.tick, self.states = pace, tick, states
        self.read = 0.0  # time.monotonic() of the last step that read the files
        self.stop = threading.Event()
        self.end: ExitRecord | None = None  # the exit record the launcher's thread found
        self.sources: tuple[Deriver, list[FileTail]] | None = None

    def step(self) -> tuple[list[tuple[list[Event], RunState | None]], bool]:
        """A batch of what is new (none if nothing is, or if it is not time to read),
        and whether the run has ended."""
        handle = self.handle
        if self.sources is None:
            self.sources = handle._readable(handle._sources,
                                            StateAndLines() if self.states else None)
            threading.Thread(target=self._ask_launcher, name=f"run-{handle.id}",
                             daemon=True).start()
            return [self._item(self.sources[0].opening())], False
        if self.pace is not None and not self.more():
            now = time.monotonic()
            if now < self.read + self.pace() - self.tick / 2:  # due at the nearest tick
                return [], False
            self.read = now
        batch, ended = handle._readable(handle._step, *self.sources, False, self.chunk,
                                        self.end)
        if ended:
            self.stop.set()
        return ([self._item(batch)] if batch else []), ended

    def _item(self, batch: list[Event]) -> tuple[list[Event], RunState | None]:
        assert self.sources is not None
        return batch, self.sources[0].state.copy() if self.states else None

    def more(self) -> bool:
        return self.sources is None or any(t.unread for t in self.sources[1])

    def close(self) -> None:
        self.stop.set()
        for tail in self.sources[1] if self.sources else ():
            tail.close()

    def _ask_launcher(self) -> None:
        while not self.stop.is_set():
            due = time.monotonic() + LIVENESS_EVERY  # every 2 s, however long it answers
            with contextlib.suppress(Exception):  # damaged files: the reader's step says why
                self.end = self.handle._exit_record(True)
            if self.end is not None or self.stop.wait(max(0.0, due - time.monotonic())):
                return


class Runner:
    """The engine's front door: start runs, open old ones, list them."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store or Store()

    def start(self, spec: JobSpec, experiment: str | None = None,
              variant: dict[str, Any] | None = None) -> RunHandle:
        """Check ``spec`` can run here, create its run and start the job.

        A spec that cannot start leaves no run behind: its directory is removed.
        A spec with a sweep is started with ``engine.run.experiment.start`` instead.
        """
        if spec.sweep:
            raise UserError(f"{spec.name}: a preset with a [sweep] starts an experiment",
                            hint="start it with engine.run.experiment.start (accelbench run does)")
        registry.require_available(spec.accelerator)
        launcher = get_launcher(spec.launcher)
        info = self.store.create(spec, experiment, variant)
        try:
            work = info.path(WORK_DIR)  # the job's own files: never one of the run's
            work.mkdir(mode=0o700)
            plan = self.plan(spec, work)
            for name, content in plan.files.items():
                (work / name).write_text(content)
            env = {"PYTHONUNBUFFERED": "1", "ACCELBENCH_HOME": str(self.store.home),
                   "ACCELBENCH_RUN_ID": info.id, **plan.env, **spec.env}
            sniff = list(dict.fromkeys([*plan.sniff, *registry.launcher_dialects(launcher.name)]))
            Launch(plan.argv, env, str(plan.cwd or work), spec.telemetry_interval,
                   registry.sampler_refs(spec.accelerator), plan.dialects, sniff,
                   launcher.job_id_env, launcher.name if launcher.verdict else "").write(info.dir)
            launcher.start(info, spec)
        except BaseException:
            self.store.remove(info.id)
            raise
        return RunHandle(self.store, info)

    @staticmethod
    def plan(spec: JobSpec, run_dir: Path) -> Plan:
        """The job's plan (argv, environment, files, dialects) for ``spec`` with its own
        files in ``run_dir`` (the run's ``work`` directory: ``rundir.files.WORK_DIR``)."""
        system = registry.get_accelerator(spec.accelerator)
        python = spec.python or site.value(spec.accelerator, "python") or sys.executable
        ctx = Context(python, system.name, system.device, run_dir, system.device_module,
                      tuple(dialect.name for dialect in registry.generic_dialects()))
        plan = registry.get_workload(spec.workload).plan(spec.params, ctx)
        for name in plan.dialects:  # a recipe's dialect that does not resolve: now, not later
            try:
                registry.get_dialect(name)
            except UserError as exc:
                raise exc.prefixed(f"workload {spec.workload!r} on {system.name!r}") from None
        return plan

    def open(self, ref: str) -> RunHandle:
        """A run started earlier (by this process or any other), by id or id prefix."""
        return RunHandle(self.store, self.store.get(ref))

    def runs(self, limit: int | None = None, query: RunQuery | None = None) -> list[RunInfo]:
        """The runs ``query`` selects (every one by default) newest first, with the status
        of unfinished ones brought up to date (every unfinished run's first, so that a
        filter by status sees where each run is now)."""
        if query and query.status:
            self.refresh(self.store.list(query=RunQuery(unfinished=True)))
        return self.refresh(self.store.list(limit, query))

    def refresh(self, infos: list[RunInfo]) -> list[RunInfo]:
        """``infos``, the unfinished ones brought up to date (:meth:`RunHandle.refresh`:
        no log is read while a run lives)."""
        for info in infos:
            if not info.final:
                RunHandle(self.store, info).refresh()
        return infos
