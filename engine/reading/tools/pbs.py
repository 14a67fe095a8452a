"""PBS (PBS Pro, OpenPBS, Torque) job records: ``qstat`` (its default table, ``-a``,
``-u``, ``-s``, ``-x``), ``qstat -f`` (``Job Id:`` blocks of ``key = value``) and
``tracejob`` (the server's log lines of one job), each read as the jobs it shows.

A job's one-letter state (``Q`` queued, ``H`` held, ``W`` waiting, ``T`` moving, ``R``
running, ``E`` exiting, ``B`` an array begun, ``S`` suspended, ``F``/``C``/``X``
finished) gives its run status; a finished job's ``Exit_status`` (Torque:
``exit_status``) says how: 0 done; above 256 killed by signal ``N - 256`` (``qdel``:
271); below 0 PBS's own failure, ``-11`` (Torque) and ``-29`` (PBS Pro) the walltime
limit; a comment or log line ``walltime ... exceeded limit`` says so too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelbench.engine.core.patterns import lazy
from accelbench.engine.reading.tools import columns, keyvalue
from accelbench.engine.reading.tools.durations import elapsed_seconds

_JOB_ID = lazy(r"^\d+(?:\[\d*\])?(?:\.[\w.*-]*)?\*?$")
_FULL = lazy(r"^Job Id:\s*(\S+)\s*$")
_TRACE_JOB = lazy(r"^Job:\s*(\S+)\s*$")
_TRACE_LINE = lazy(r"^(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d)  ([A-Z])    (.*)$")
_TRACE_MORE = lazy(r"^ {20,}(\S.*)$")
_WALLTIME_KILL = lazy(r"walltime \S+ exceeded limit|exceeded.*walltime", re.I)
_WALLTIME_EXITS = (-11, -29)  # Torque JOB_EXEC_OVERLIMIT_WT, PBS Pro JOB_EXEC_KILL_WALLTIME
FINISHED = frozenset("FCX")
WAITING = frozenset("QHWTM")
# The start of a PBS record, after blank lines: a qstat -f block, tracejob's "Job:" line,
# a qstat table's header (its own or -a's "Req'd" line or server line above it)
_HEAD = lazy(r"(?:[^\n]*\n){0,5}?\s*(?:Job Id: \S|Job: \S"
             r"|Job id +Name +User +Time Use +S +Queue"
             r"|Job ID +Username +Queue +Jobname +SessID)")


@dataclass
class PbsJob:
    """A job as a PBS record shows it (a figure it does not show is None)."""

    job_id: str
    state: str = ""  # one letter
    name: str = ""
    queue: str = ""
    exit_status: int | None = None
    walltime_s: float | None = None  # used
    walltime_limit_s: float | None = None
    cput_s: float | None = None
    mem_kib: float | None = None  # resources_used.mem
    nodes: str = ""
    comment: str = ""
    walltime_killed: bool = False  # a record says the walltime limit ended it

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def signal(self) -> int | None:
        """The signal that killed it (an exit status above 256), else None."""
        code = self.exit_status
        return code - 256 if code is not None and code > 256 else None

    @property
    def out_of_walltime(self) -> bool:
        return self.walltime_killed or self.exit_status in _WALLTIME_EXITS or bool(
            _WALLTIME_KILL.search(self.comment))


def looks_like_pbs(text: str) -> bool:
    """Whether ``text`` starts as a PBS record (only its first lines are looked at)."""
    return _HEAD.match(text) is not None


def read_jobs(text: str) -> list[tuple[PbsJob, str]] | None:
    """Each job ``text`` shows with its own text (a table's header and its row, its
    ``qstat -f`` block, its ``tracejob`` lines); None if ``text`` is no PBS record."""
    lines = text.split("\n")
    found: list[tuple[PbsJob, str]] = []
    if any(_FULL.match(line) for line in lines[:50]):
        for job_id, body in keyvalue.records(lines, _FULL):
            job = _full_job(job_id, keyvalue.fields(body, " = "))
            if job.state:  # (a block cut before its job_state says nothing)
                found.append((job, "\n".join([f"Job Id: {job_id}", *body]).rstrip()))
    elif any(_TRACE_JOB.match(line) for line in lines[:50]):
        for job_id, body in keyvalue.records(lines, _TRACE_JOB):
            if any(_TRACE_LINE.match(line) for line in body):  # (else no tracejob's)
                found.append((_trace_job(job_id, body),
                              "\n".join([f"Job: {job_id}", *body]).rstrip()))
    else:
        found = _table_jobs(lines)
    return found or None


def _number(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _kib(text: str) -> float | None:
    """``13378420kb``, ``1gb``, ``640mb`` in KiB."""
    m = re.match(r"^(\d+(?:\.\d+)?)([kmgt]?)b?$", text.strip().lower())
    return float(m[1]) * 1024 ** "kmgt".index(m[2] or "k") if m else None


def _full_job(job_id: str, fields: dict[str, str]) -> PbsJob:
    """A job of its ``qstat -f`` fields."""
    get = {key.lower(): value for key, value in fields.items()}.get
    return PbsJob(job_id, get("job_state", ""), get("job_name", ""), get("queue", ""),
                  _number(get("exit_status", "")),
                  elapsed_seconds(get("resources_used.walltime", "")),
                  elapsed_seconds(get("resource_list.walltime", "")),
                  elapsed_seconds(get("resources_used.cput", "")),
                  _kib(get("resources_used.mem", "")), get("exec_host", ""),
                  get("comment", ""))


def _trace_job(job_id: str, lines: list[str]) -> PbsJob:
    """A job of its ``tracejob`` lines: its queue, exit status, resources used, and
    whether it ended (``dequeuing ... state COMPLETE`` or ``state 5``, an exit status)."""
    job = PbsJob(job_id, "Q")
    messages: list[str] = []
    for line in lines:
        if m := _TRACE_LINE.match(line.strip("\r")):
            messages.append(m[3])
        elif (more := _TRACE_MORE.match(line)) and messages:
            messages[-1] += " " + more[1]
    for message in messages:
        pairs = dict(p.split("=", 1) for p in message.split() if "=" in p)
        if message.startswith("Job Run"):
            job.state = "R"
        elif message.startswith("enqueuing into "):
            job.queue = message.removeprefix("enqueuing into ").split(",", 1)[0]
        elif message.startswith("dequeuing from ") or "Exit_status" in pairs:
            job.state = "F"
        if "job name =" in message:
            job.name = message.split("job name =", 1)[1].split(",", 1)[0].strip()
        if "Exit_status" in pairs:
            job.exit_status = _number(pairs["Exit_status"])
            job.walltime_s = elapsed_seconds(pairs.get("resources_used.walltime", ""))
            job.cput_s = elapsed_seconds(pairs.get("resources_used.cput", ""))
            job.mem_kib = _kib(pairs.get("resources_used.mem", ""))
        if "Resource_List.walltime" in pairs:
            job.walltime_limit_s = elapsed_seconds(pairs["Resource_List.walltime"])
        if _WALLTIME_KILL.search(message):
            job.walltime_killed = True
        if message.startswith("Job deleted") and job.state != "F":
            job.state, job.comment = "F", message
    return job


def _table_jobs(lines: list[str]) -> list[tuple[PbsJob, str]]:
    """The jobs of ``qstat``'s tables (the default's, ``-a``'s): a row each, under a
    header underlined with dashes; a ``-s`` comment line (indented) is its job's."""
    found: list[tuple[PbsJob, str]] = []
    cols: list[tuple[str, int, int]] = []
    head = ""
    for i, line in enumerate(lines):
        if columns.is_rule(line) and i > 0:
            above = lines[i - 2:i] if i > 1 and "Req'd" in lines[i - 2] else lines[i - 1:i]
            cols = columns.header(above, line)
            head = "\n".join([*above, line])
            continue
        if not cols or not line.strip():
            continue
        if line.startswith(" ") and found:  # qstat -s: the job's comment
            last, text = found[-1]
            last.comment = (last.comment + " " + line.strip()).strip()
            found[-1] = (last, text + "\n" + line)
            continue
        if (job := _table_job(columns.row(line, cols), cols)) is not None:
            found.append((job, head + "\n" + line))
    return found


def _table_job(cells: list[str], cols: list[tuple[str, int, int]]) -> PbsJob | None:
    """A job of a table row (None if the row is no job's)."""
    named = {name.lower(): cell for (name, _, _), cell in zip(cols, cells, strict=False)}
    job_id = named.get("job id", "")
    state = named.get("s", "")
    if not _JOB_ID.match(job_id) or len(state) != 1 or not state.isalpha():
        return None
    return PbsJob(job_id, state, named.get("name") or named.get("jobname", ""),
                  named.get("queue", ""), walltime_s=_hours(named.get("elap time", "")),
                  walltime_limit_s=_hours(named.get("req'd time", "")),
                  cput_s=elapsed_seconds(named.get("time use", "")))


def _hours(text: str) -> float | None:
    """``-a``'s times (``96:00``, ``00:01``: hours and minutes) as seconds."""
    return elapsed_seconds(text + ":00") if re.match(r"^\d+:\d\d$", text) else None
