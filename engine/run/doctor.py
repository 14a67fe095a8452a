"""``accelbench doctor``: check a store against its run directories, and repair it.

Opening a store already brings its index in line with the directories (rebuilt when
missing, unreadable or old; rows without a directory dropped, directories without a
row added). The doctor reports that, and looks further: damaged pages of the index,
statuses that disagree with ``exit.json``, runs whose processes vanished (brought up
to date the way any reader does), temporary files their writers left behind, and what
each system's own checks (``System.doctor``) find wrong on this machine.
A dry run writes nothing: the store is opened as a read-only copy, and only the
local launcher (which reads and writes nothing to tell) is asked about processes.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import FINAL_STATUSES
from accelbench.engine.core.job import RunInfo
from accelbench.engine.core.text import printable
from accelbench.engine.plugin import entrypoints as plugins
from accelbench.engine.plugin import registry
from accelbench.engine.plugin.launcher import job_gone
from accelbench.engine.run.runner import RunHandle
from accelbench.engine.rundir.exitfile import ExitRecord, read_exit
from accelbench.engine.rundir.files import END_FILE, EXIT_FILE, damaged
from accelbench.engine.store.index import Finding
from accelbench.engine.store.runs import YOUNG_S, Store

TEMP_FILE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.tmp$")  # what write_json leaves


@dataclass
class Report:
    """What the doctor found in the store at ``home``, and what it repaired."""

    home: str
    dry_run: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """True when no problem remains (none was found, or all were repaired)."""
        return all(f.fixed for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (``doctor --json``)."""
        return {"home": self.home, "dry_run": self.dry_run, "healthy": self.healthy,
                "findings": [asdict(f) for f in self.findings]}


class _Noticed(logging.Handler):
    """The run files the readers left aside as damaged while the doctor looks."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if (line := record.getMessage()) not in self.lines:
            self.lines.append(line)


def examine(home: Path | str | None = None, dry_run: bool = False) -> Report:
    """Check the store at ``home``; repair what can be unless ``dry_run``. What the readers
    left aside as they went (a damaged run file) is a finding too."""
    noticed = _Noticed()
    damaged.addHandler(noticed)
    try:
        report = _examine(home, dry_run)
    finally:
        damaged.removeHandler(noticed)
    for line in noticed.lines:
        target, _, detail = line.partition(": ")
        report.findings.append(Finding("damaged", target, detail))
    return report


def _examine(home: Path | str | None, dry_run: bool) -> Report:
    store = Store(home, writable=not dry_run)
    problem = store.check_index()  # a file found damaged now is rebuilt (and noted) at once
    report = Report(str(store.home), dry_run, list(store.findings))
    if store.readonly and not dry_run:
        report.findings.append(Finding("index", "index.sqlite", f"the index cannot be written"
                                       f" ({store.readonly}); {store.readonly_hint}"))
    dry_run = dry_run or bool(store.readonly)  # nothing can be repaired
    if problem:
        if not dry_run:
            store.repair_index(problem)
        report.findings.append(Finding("index", "index.sqlite", f"damaged: {problem}",
                                       not dry_run))
    report.findings += _runs(store, dry_run)
    report.findings += _temp_files(store, dry_run)
    report.findings += _system_checks()
    return report


def _system_checks() -> list[Finding]:
    """What each system's own checks find wrong here: each given ``registry.DETECT_S``, one
    that fails, hangs or answers other than a string saying so."""
    found = []
    for name, system in registry.systems().items():
        for check in system.doctor:
            try:
                answer = plugins.bounded(check, registry.DETECT_S, "check")
            except plugins.Fault as fault:
                answer = str(fault) if fault.timed_out else f"check failed: {fault}"
            if not isinstance(answer, str):  # (a plug-in's types are not enforced)
                answer = f"check answered a {type(answer).__name__}, not a str"  # type: ignore[unreachable]
            if answer:
                found.append(Finding("system", name, printable(answer)))
    return found


def _runs(store: Store, dry_run: bool) -> list[Finding]:
    """Statuses that disagree with ``exit.json``, and runs whose processes vanished."""
    found = []
    for info in store.list():
        try:
            read_exit(info.path(EXIT_FILE))
        except (OSError, ValueError) as exc:  # damaged, or not a file (``engine.core.safefile``)
            found.append(Finding("damaged", f"runs/{info.id}", f"{EXIT_FILE}: {exc}"))
            continue
        record = _exit_record(info)
        if record and record.status != info.status:
            detail = f"the index says {info.status}, {EXIT_FILE} says {record.status}"
            found.append(_bring_up_to_date(store, info, "status", detail, dry_run,
                                           (record.status,)))
        elif record is None and not info.final and _vanished(info, dry_run):
            detail = f"{info.status} in the index, but its process is gone"
            found.append(_bring_up_to_date(store, info, "vanished", detail, dry_run,
                                           FINAL_STATUSES))
    return found


def _exit_record(info: RunInfo) -> ExitRecord | None:
    """The run's final exit record (None while it has none, or awaits Slurm's verdict)."""
    try:
        record = read_exit(info.path(EXIT_FILE))
    except (OSError, ValueError):
        return None
    return None if record is None or record.verdict else record


def _vanished(info: RunInfo, dry_run: bool) -> bool:
    """The launcher says the job is gone (a dry run asks only the local one: Slurm's and the
    appliance's polls record what they learn)."""
    return (not dry_run or info.launcher == "local") and job_gone(info)


def _bring_up_to_date(store: Store, info: RunInfo, kind: str, detail: str, dry_run: bool,
                      expected: tuple[str, ...]) -> Finding:
    """A finding about a run, repaired by reading the run as any reader does (fixed once
    its status is one of ``expected``)."""
    finding = Finding(kind, f"runs/{info.id}", detail)
    if dry_run:
        return finding
    try:
        RunHandle(store, info).replay()
        now = store.get(info.id).status
    except (UserError, OSError, ValueError) as exc:
        finding.detail += f"; could not be read: {exc}"
        return finding
    finding.fixed = now in expected
    finding.detail += f"; now {now}"
    return finding


def _temp_files(store: Store, dry_run: bool) -> list[Finding]:
    """Temporary files whose writer is gone: its process is dead here, the run or
    experiment it belonged to has ended, and the file is not new."""
    ended = {info.id for info in store.list() if info.final or _exit_record(info)}
    found = []
    for parent, done in ((store.runs_dir, lambda d: d.name in ended),
                         (store.experiments_dir, lambda d: (d / END_FILE).exists())):
        for owner in _subdirs(parent):
            if not done(owner):
                continue
            for path in owner.glob(".*.tmp"):
                match = TEMP_FILE.match(path.name)
                if match and _stale(path, int(match["pid"])):
                    found.append(_remove(path, store.home, dry_run))
    return found


def _subdirs(parent: Path) -> list[Path]:
    try:
        return [p for p in parent.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []


def _stale(path: Path, pid: int) -> bool:
    try:
        old = time.time() - path.stat().st_mtime > YOUNG_S
    except FileNotFoundError:
        return False
    return old and not psutil.pid_exists(pid)


def _remove(path: Path, home: Path, dry_run: bool) -> Finding:
    finding = Finding("temp_file", str(path.relative_to(home)),
                      "a temporary file left by a process that is gone")
    if not dry_run:
        try:
            path.unlink(missing_ok=True)
            finding.fixed = True
        except OSError as exc:
            finding.detail += f"; cannot delete it: {exc.strerror}"
    return finding
