"""Slurm's accounting (``sacct``): how a job ended, after it left the controller.

``sacct`` answers where the cluster keeps accounting (``slurmdbd``); its records give
the final state (``CANCELLED by 1001`` and ``CANCELLED+`` are ``CANCELLED``), the exit
code and signal (``ExitCode`` ``2:0``, ``0:15``) and the elapsed time
(``[DD-[HH:]]MM:SS[.mmm]``). Read here in its three forms: ``--parsable2`` (``|``
separated, with or without its header), the default fixed-width table, and ``--json``.
The live path asks for ``--parsable2``: Slurm 22.05's ``--json`` gives ``return_code`` 0
for a job that exited 3 (seen on the private test cluster; ``ExitCode`` says ``3:0``).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from typing import Any

from accelbench.engine.reading.tools.durations import elapsed_seconds

SACCT_FIELDS = ("JobIDRaw", "JobName", "State", "ExitCode", "Elapsed", "NodeList", "Reason")


@dataclass
class AccountedJob:
    """One ``sacct`` record: a job (``123``) or one of its steps (``123.batch``, ``123.0``)."""

    job_id: str
    state: str
    exit_code: int | None = None
    signal: int | None = None
    elapsed_s: float | None = None
    name: str = ""
    nodes: str = ""
    reason: str = ""

    @property
    def step(self) -> bool:
        """A job step's record rather than the job's own."""
        return "." in self.job_id


def state_name(text: str) -> str:
    """The state without what ``sacct`` adds: ``CANCELLED by 1001`` and ``CANCELLED+`` are
    ``CANCELLED``."""
    return text.split(" ", 1)[0].rstrip("+")


def exit_status(text: str) -> tuple[int | None, int | None]:
    """``ExitCode`` ``2:0`` as (exit code 2, signal 0)."""
    code, _, signal = text.strip().partition(":")
    return (int(code) if code.isdigit() else None, int(signal) if signal.isdigit() else None)


def row_record(row: dict[str, str]) -> AccountedJob | None:
    """A record of a row by field name (any case: ``--format=JobIdRaw`` works too)."""
    fields = {name.lower(): value for name, value in row.items()}
    job_id = fields.get("jobidraw") or fields.get("jobid") or ""
    if not job_id or "state" not in fields:
        return None
    code, signal = exit_status(fields.get("exitcode", ""))
    return AccountedJob(job_id, state_name(fields["state"]), code, signal,
                        elapsed_seconds(fields.get("elapsed", "")), fields.get("jobname", ""),
                        fields.get("nodelist", ""), _reason(fields.get("reason", "")))


def _reason(text: str) -> str:
    return "" if text == "None" else text


def parsable_rows(text: str, names: tuple[str, ...] | None = None) -> list[dict[str, str]]:
    """The rows of ``--parsable2`` output (``sacct``, ``sstat``) by field: its header names
    the fields, else ``names`` does (the ``--format`` of a ``--noheader`` call)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if names is None:
        if not lines:
            return []
        names, lines = tuple(lines[0].split("|")), lines[1:]
    return [dict(zip(names, line.split("|"), strict=False)) for line in lines]


def table_rows(text: str) -> list[dict[str, str]]:
    """The rows of a fixed-width table with a row of dashes under its header (``sacct``,
    ``sstat``) by column."""
    lines = text.splitlines()
    rule = next((i for i, line in enumerate(lines) if line.startswith("----")), None)
    if rule is None or rule == 0:
        return []
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    names = [lines[rule - 1][a:b].strip() for a, b in spans]
    return [dict(zip(names, (line[a:b + 1].strip() for a, b in spans), strict=True))
            for line in lines[rule + 1:] if line.strip()]


def parse_parsable(text: str, names: tuple[str, ...] | None = None) -> list[AccountedJob]:
    """Records of ``sacct --parsable2`` output (``names``: see :func:`parsable_rows`)."""
    return [r for r in map(row_record, parsable_rows(text, names)) if r is not None]


def parse_table(text: str) -> list[AccountedJob]:
    """Records of ``sacct``'s default fixed-width table."""
    return [r for r in map(row_record, table_rows(text)) if r is not None]


def _number(value: Any) -> int | None:
    """A number of ``sacct --json`` (plain, or ``{"set": ..., "number": N}`` since 23.02)."""
    if isinstance(value, dict):
        return value.get("number") if value.get("set", True) else None
    return value if isinstance(value, int) else None


def _first(value: Any) -> str:
    """A state field: a string, or a list of flags (newer Slurm) whose first is the state."""
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value or "")


def json_record(data: dict[str, Any], job_id: str) -> AccountedJob:
    """The record of a job or step of ``sacct --json``."""
    state = data.get("state", {})
    if not isinstance(state, dict):  # a step's (22.05): the state alone
        state = {"current": state}
    exit_code = data.get("exit_code", {})
    signal = exit_code.get("signal", {})
    nodes = data.get("nodes", "")
    return AccountedJob(
        job_id, state_name(_first(state.get("current"))), _number(exit_code.get("return_code")),
        _number(signal.get("id") if isinstance(signal, dict) else signal),
        None if (elapsed := _number(data.get("time", {}).get("elapsed"))) is None
        else float(elapsed), data.get("name", ""),
        nodes.get("range", "") if isinstance(nodes, dict) else nodes,
        _reason(_first(state.get("reason"))))


def parse_json(text: str) -> list[AccountedJob]:
    """Records of ``sacct --json``: each job, then its steps."""
    records = []
    for job in json.loads(text).get("jobs", []):
        records.append(json_record(job, str(job["job_id"])))
        for step in job.get("steps", []):
            step_id = step.get("step", {}).get("id", "")  # 22.05: "batch", 0
            records.append(json_record(step, f"{job['job_id']}.{step_id}"))
    return records


class Accounting:
    """``sacct`` for this user's jobs, or nothing where the cluster keeps no accounting
    (asked once: then never again)."""

    def __init__(self, sacct: str) -> None:
        self.sacct = sacct
        self.enabled: bool | None = None

    def job(self, job_id: int) -> AccountedJob | None:
        """The accounting record of job ``job_id`` (the job's own, not its steps'), if any."""
        if self.enabled is False:
            return None
        try:
            out = subprocess.run([self.sacct, "-j", str(job_id), "-X", "--parsable2",
                                  "--noheader", "-o", ",".join(SACCT_FIELDS)],
                                 capture_output=True, text=True, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            return None
        if out.returncode != 0:
            if "disabled" in out.stderr or "not running a supported" in out.stderr:
                self.enabled = False  # accounting_storage/none: sacct never answers here
            return None
        self.enabled = True
        records = [r for r in parse_parsable(out.stdout, SACCT_FIELDS)
                   if r.job_id == str(job_id)]
        return records[0] if records else None
