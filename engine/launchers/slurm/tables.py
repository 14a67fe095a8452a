"""Reading Slurm's tables: ``sacct`` (its default table, with states and ids cut to ten
characters; ``--parsable2`` with or without its header; ``--json``), ``squeue`` (its
default table, ``--json``), ``sstat`` and ``sinfo`` (``sinfo``), each row as
the job (or partition) it shows, and ``scontrol show job`` (a ``JobId=`` block of
``Key=Value`` words per job, or one line each under ``-o``); :func:`job_tables` cuts a
table into one per job.

A table without a header (``--noheader``) is read by what its fields hold: the job id
first, then a state, an ``N:M`` exit code, times (``2024-01-02T03:04:05``) and an elapsed
time.
"""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accelbench.engine.core.patterns import lazy
from accelbench.engine.launchers.slurm.accounting import (
    exit_status,
    json_record,
    parsable_rows,
    row_record,
    state_name,
    table_rows,
)
from accelbench.engine.launchers.slurm.commands import (
    FINAL_STATES,
    PENDING_STATES,
    SHORT_STATES,
    squeue_job,
)
from accelbench.engine.launchers.slurm.sinfo import Partition, merged
from accelbench.engine.launchers.slurm.sinfo import row as sinfo_row
from accelbench.engine.parsers.logclock import utc_time
from accelbench.engine.reading.tools.durations import elapsed_seconds

_JOB_ID = lazy(r"^\d+(?:[_+]\d+)?(?:\.[\w-]+)?$")
_STAMP = lazy(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
_EXIT = lazy(r"^\d+:\d+$")
_RSS = lazy(r"^([\d.]+)([KMGT]?)$")
# The first line of a table, after comments: JSON, scontrol's JobId=, a --parsable2 header, a
# fixed-width header over its dashes, squeue's header, a --noheader row
_HEAD = lazy(r"(?:(?:#[^\n]*)?\n)* *(\{|JobId=\d|(?i:jobid(?:raw)?)\|"
             r"|(?i:jobid(?:raw)?) [^\n]*\n *----|JOBID [^\n]*\bST(?:ATE)?\b"
             r"|PARTITION +AVAIL +TIMELIMIT +NODES +STATE|\d+(?:[_+]\d+)?(?:\.[\w-]+)?\|)")
_STATES = (*FINAL_STATES, *PENDING_STATES, "RUNNING")
_WORD = lazy(r"(?:^|\s)([\w/:.-]+)=(\S*)")


@dataclass
class Job:
    """A job (or one of its steps) as a Slurm table shows it."""

    job_id: str
    state: str = ""
    name: str = ""
    reason: str = ""
    exit_code: int | None = None
    signal: int | None = None
    elapsed_s: float | None = None
    start: float | None = None
    end: float | None = None
    nodes: str = ""
    max_rss_mib: float | None = None
    by: str = ""  # who cancelled it (``CANCELLED by 1001``)
    cpu_s: float | None = None  # TotalCPU (sacct), AveCPU (sstat)
    tasks: int | None = None  # NTasks

    @property
    def base(self) -> str:
        """The job's id, for a step's record too (``123.batch``: ``123``)."""
        return self.job_id.split(".", 1)[0]


def _epoch(text: str) -> float | None:
    """A table's time (``2018-06-03T02:11:12``, read as UTC) as seconds, if it is one."""
    return utc_time(text) if _STAMP.match(text) else None


def _mib(text: str) -> float | None:
    """``MaxRSS`` (``3116K``, ``1.5G``) in MiB."""
    m = _RSS.match(text.strip())
    if m is None:
        return None
    return round(float(m[1]) * 1024 ** ("KMGT".find(m[2] or "K") - 1), 3)


def _row_job(row: dict[str, str]) -> Job | None:
    """A job of a ``sacct``/``sstat`` row (by field name)."""
    fields = {name.lower(): value for name, value in row.items()}
    record = row_record({**row, "State": fields.get("state", "RUNNING")})  # sstat: running
    if record is None:
        return None
    state = fields.get("state", "")
    return Job(record.job_id, full_state(record.state, state), record.name, record.reason,
               record.exit_code, record.signal, record.elapsed_s, _epoch(fields.get("start", "")),
               _epoch(fields.get("end", "")), record.nodes, _mib(fields.get("maxrss", "")),
               state.split(" by ", 1)[1] if " by " in state else "",
               elapsed_seconds(fields.get("totalcpu") or fields.get("avecpu") or ""),
               int(tasks) if (tasks := fields.get("ntasks", "")).isdigit() else None)


def full_state(name: str, shown: str) -> str:
    """The state ``name`` whose column (``shown``) a table cut to ten characters with a
    ``+`` (``OUT_OF_ME+``): the state that starts so (``CANCELLED+`` is CANCELLED)."""
    if name in _STATES or not shown.endswith("+"):
        return name
    return next((state for state in _STATES if state.startswith(name)), name)


def _guessed(line: str) -> Job | None:
    """A job of a ``--parsable2 --noheader`` row, by what its fields hold."""
    cells = line.split("|")
    if not _JOB_ID.match(cells[0]):
        return None
    job = Job(cells[0])
    stamps = []
    for cell in cells[1:]:
        if not job.state and state_name(cell) in _STATES:
            job.state, job.by = state_name(cell), cell.partition(" by ")[2]
        elif job.exit_code is None and _EXIT.match(cell):
            job.exit_code, job.signal = exit_status(cell)
        elif (stamp := _epoch(cell)) is not None:
            stamps.append(stamp)
        elif job.elapsed_s is None and ":" in cell:
            job.elapsed_s = elapsed_seconds(cell)
    if not job.state:
        return None
    if len(stamps) >= 2:  # Start, End (Submit, Eligible, Start, End: the last two)
        job.start, job.end = stamps[-2], stamps[-1]
    return job


def _squeue_row(header: list[str], line: str) -> Job | None:
    """A job of ``squeue``'s default table (``JOBID PARTITION NAME USER ST TIME NODES
    NODELIST(REASON)``)."""
    cells = line.split(None, len(header) - 1)
    if len(cells) < len(header) or not _JOB_ID.match(cells[0]):
        return None
    fields = dict(zip(header, cells, strict=True))
    where = fields.get("NODELIST(REASON)", "")
    pending = where.startswith("(") and where.endswith(")")
    state = fields.get("ST") or fields.get("STATE", "")
    return Job(cells[0], SHORT_STATES.get(state, state), fields.get("NAME", ""),
               where[1:-1] if pending else "",
               elapsed_s=elapsed_seconds(fields.get("TIME", "")),
               nodes="" if pending else where)


def _json_job(data: dict[str, Any]) -> Job:
    """A job of ``sacct --json`` or ``squeue --json``."""
    if "job_state" in data:  # squeue
        job = squeue_job(data)
        found = Job(str(job.job_id), job.state, job.name, job.reason, job.exit_code,
                    job.signal, nodes=job.nodes)
        start, end = data.get("start_time"), data.get("end_time")
        if job.state in FINAL_STATES and isinstance(start, int) and isinstance(end, int):
            found.start, found.end = float(start), float(end)
            found.elapsed_s = float(end - start)
        return found
    record = json_record(data, str(data["job_id"]))
    times = data.get("time", {})
    if record.state == "FAILED" and not record.exit_code and not record.signal:
        record.exit_code = None  # 22.05 says 0 where ExitCode says 3:0: not recorded
    return Job(record.job_id, record.state, record.name, record.reason, record.exit_code,
               record.signal, record.elapsed_s, _stamp(times.get("start")),
               _stamp(times.get("end")), record.nodes)


def _stamp(value: Any) -> float | None:
    """A time of ``sacct --json`` (a number, or ``{"set": ..., "number": N}``): None for 0."""
    if isinstance(value, dict):
        value = value.get("number") if value.get("set", True) else None
    return float(value) if isinstance(value, int) and value > 0 else None


@dataclass
class Table:
    """A Slurm table: its header's lines, and each row's job (or partition) with its text."""

    head: str
    rows: list[tuple[Job | Partition, str]]


def read_table(text: str) -> Table | None:
    """The table ``text`` holds (after ``#`` comment lines), or None if it holds none."""
    lines = text.split("\n")
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    lines = textwrap.dedent("\n".join(lines)).split("\n")  # a table quoted with a margin
    if not lines:
        return None
    first = lines[0]
    if first.startswith("{"):
        return _json_table("\n".join(lines))
    if first.startswith("JobId="):
        return _scontrol_table(lines)
    names = first.split("|")
    if len(names) > 1 and names[0].lower() in ("jobid", "jobidraw"):
        return _rows(first, lines[1:], [_row_job(row) for row in parsable_rows(
            "\n".join(lines))])
    if len(names) > 1:
        return _rows("", lines, [_guessed(line) for line in lines if line.strip()])
    if len(lines) > 1 and lines[1].startswith("----") and first.split()[0].lower() in (
            "jobid", "jobidraw"):
        return _rows("\n".join(lines[:2]), lines[2:],
                     [_row_job(row) for row in table_rows("\n".join(lines))])
    header = first.split()
    if header[:1] == ["JOBID"] and ("ST" in header or "STATE" in header):
        return _rows(first, lines[1:], [_squeue_row(header, line) for line in lines[1:]
                                         if line.strip()])
    if header[:1] == ["PARTITION"]:
        return _rows(first, lines[1:], [sinfo_row(header, line) for line in lines[1:]
                                         if line.strip()])
    return None


def _rows(head: str, lines: list[str], jobs: Sequence[Job | Partition | None]
          ) -> Table | None:
    """The table of ``jobs``, one per non-blank line of ``lines``; None if any is none."""
    lines = [line for line in lines if line.strip()]
    if not jobs or any(job is None for job in jobs) or len(jobs) != len(lines):
        return None
    return Table(head, [(job, line) for job, line in zip(jobs, lines, strict=True)
                        if job is not None])


def _scontrol_table(lines: list[str]) -> Table | None:
    """The jobs of ``scontrol show job``: a block from each ``JobId=`` line to the next."""
    blocks: list[list[str]] = []
    for line in lines:
        if line.startswith("JobId="):
            blocks.append([line])
        elif blocks and line.strip():
            blocks[-1].append(line)
    jobs = [_scontrol_job(" ".join(block)) for block in blocks]
    if not jobs or any(job is None for job in jobs):
        return None
    return Table("", [(job, "\n".join(block)) for job, block in zip(jobs, blocks, strict=True)
                      if job is not None])


def _scontrol_job(text: str) -> Job | None:
    """A job of its ``scontrol show job`` words (``JobState=TIMEOUT Reason=TimeLimit``)."""
    words = dict(_WORD.findall(text))
    state = state_name(words.get("JobState", ""))
    if not _JOB_ID.match(words.get("JobId", "")) or state not in _STATES:
        return None
    code, signal = exit_status(words.get("ExitCode", ""))
    reason = words.get("Reason", "")
    return Job(words["JobId"], state, words.get("JobName", ""),
               "" if reason == "None" else reason, code, signal,
               elapsed_seconds(words.get("RunTime", "")), _epoch(words.get("StartTime", "")),
               _epoch(words.get("EndTime", "")) if state in FINAL_STATES else None,
               words.get("NodeList", "").replace("(null)", ""))


def _json_table(text: str) -> Table | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    jobs = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(jobs, list) or not all(isinstance(j, dict) and "job_id" in j
                                             for j in jobs):
        return None
    return Table("", [(_json_job(job), json.dumps({"jobs": [job]}, indent=1))
                      for job in jobs])


def job_tables(text: str) -> list[tuple[str, str]] | None:
    """Each job of the Slurm table ``text`` holds as (its title, its own table: the
    header and the job's rows), or None if ``text`` is no Slurm table."""
    table = read_table(text)
    if table is None:
        return None
    groups: dict[str, list[tuple[Job | Partition, str]]] = {}
    for job, line in table.rows:
        groups.setdefault(job.base, []).append((job, line))
    return [(_title([job for job, _ in rows]), "\n".join(
        [table.head] * bool(table.head) + [line for _, line in rows]))
        for rows in groups.values()]


def _title(rows: list[Job | Partition]) -> str:
    """The title of a job's rows (its first), or of a partition's."""
    first = rows[0]
    if isinstance(first, Job):
        return title(first)
    return merged([row for row in rows if isinstance(row, Partition)]).title()


def title(job: Job) -> str:
    """What a user reads first of a job (its run's status gives its exit code): ``job 2
    fail3: FAILED, 00:00:01``, ``job 4 waits: PENDING (Resources)``."""
    parts = [job.state or "?"]
    if job.reason and job.state not in FINAL_STATES:
        parts[0] += f" ({job.reason})"
    if job.elapsed_s is not None and job.state not in PENDING_STATES:
        parts.append(_clock(job.elapsed_s))
    if job.max_rss_mib is not None:
        parts.append(f"MaxRSS {job.max_rss_mib:g} MiB")
    return f"job {job.job_id}{' ' + job.name if job.name else ''}: {', '.join(parts)}"


def _clock(seconds: float) -> str:
    days, rest = divmod(int(seconds), 86400)
    clock = time.strftime("%H:%M:%S", time.gmtime(rest))
    return f"{days}-{clock}" if days else clock



def looks_like_table(text: str) -> bool:
    """Whether ``text`` starts as a Slurm table (its first line after comments): only its
    start is looked at (:func:`read_table` reads it)."""
    m = _HEAD.match(text)
    if m is None:
        return False
    if m[1] == "{":
        return '"jobs"' in text[:65536]
    if m[1][-1] == "|" and not m[1].lower().startswith("jobid"):  # a --noheader row
        end = text.find("\n", m.start(1))
        return _guessed(text[m.start(1):None if end < 0 else end]) is not None
    return True
