"""Cerebras appliance launcher (``launcher = "appliance"``).

ModelZoo's ``run.py CSX`` is a client on the login node that drives compile and
execute jobs (``wsjob-...``) on the appliance. The client runs like a local job
(detached, under accelbench's wrapper); the appliance's own view of its jobs comes
from ``csctl get jobs`` (one call per poll interval for every run), and a cancel
also cancels the run's appliance jobs with ``csctl cancel job``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time

from accelbench.engine.core import safefile
from accelbench.engine.core.events import Phase
from accelbench.engine.core.job import RunInfo
from accelbench.engine.launchers.local import Local
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.files import OUTPUT_FILE

_JOB_ID = re.compile(rb"wsjob-[a-z0-9]+")
_PHASES = {"QUEUEING": "queued", "QUEUED": "queued", "SCHEDULED": "queued",
           "INITIALIZING": "loading", "RUNNING": "running"}
_FINAL = {"SUCCEEDED", "FAILED", "CANCELLED", "CANCELED"}


class ApplianceJobs:
    """The appliance's jobs, from one ``csctl get jobs`` call per interval."""

    def __init__(self, interval: float | None = None) -> None:
        self.interval = interval if interval is not None else float(
            os.environ.get("ACCELBENCH_CSCTL_POLL", "10"))
        self.calls = 0
        self._jobs: dict[str, str] = {}
        self._next = 0.0
        self._lock = threading.Lock()

    def phases(self) -> dict[str, str]:
        """``wsjob-... → PHASE`` as of the last call (refreshed when due)."""
        with self._lock:
            if time.monotonic() >= self._next and shutil.which("csctl"):
                self._next = time.monotonic() + self.interval
                self.calls += 1
                try:
                    out = subprocess.run(["csctl", "get", "jobs"], capture_output=True,
                                         text=True, timeout=30, check=False)
                except subprocess.TimeoutExpired:
                    return self._jobs
                if out.returncode == 0:
                    self._jobs = _parse_jobs(out.stdout)
            return self._jobs


def _parse_jobs(text: str) -> dict[str, str]:
    """The NAME and PHASE columns of ``csctl get jobs``."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or "NAME" not in lines[0] or "PHASE" not in lines[0]:
        return {}
    header = lines[0].split()
    name, phase = header.index("NAME"), header.index("PHASE")
    return {cells[name]: cells[phase] for cells in (line.split() for line in lines[1:])
            if len(cells) > max(name, phase)}


APPLIANCE = ApplianceJobs()
_seen: dict[str, tuple[int, list[str]]] = {}  # run id -> (bytes scanned, job ids in order)


def job_ids(run: RunInfo) -> list[str]:
    """The appliance jobs the run's client has started so far (read incrementally)."""
    offset, ids = _seen.get(run.id, (0, []))
    try:
        with open(safefile.open_regular(run.path(OUTPUT_FILE)), "rb") as f:
            f.seek(offset)
            data = f.read(safefile.SMALL)
    except (OSError, ValueError):  # missing yet, or not a log (``engine.core.safefile``)
        return ids
    cut = data.rfind(b"\n") + 1
    for found in _JOB_ID.findall(data[:cut]):
        if found.decode() not in ids:
            ids.append(found.decode())
    _seen[run.id] = (offset + cut, ids)
    return ids


class Appliance(Local):
    """The ModelZoo client, run like a local job; the appliance's jobs queue and are
    cancelled with ``csctl``."""

    name = "appliance"
    title = "the Cerebras appliance, through its client on the login node"
    queues = True

    def poll(self, run: RunInfo) -> str:
        """The client's state; the appliance's phase of its newest job is recorded as it
        changes."""
        status = super().poll(run)
        ids = job_ids(run)
        if ids and status == "running":
            phase = APPLIANCE.phases().get(ids[-1])
            if phase and phase not in _FINAL:
                journal.append(run.dir, Phase(run.id, time.time(),
                                              _PHASES.get(phase, "running"),
                                              f"csctl: {ids[-1]} {phase}"))
        return status

    def cancel(self, run: RunInfo, grace: float = 10.0) -> None:
        """``csctl cancel job`` for the run's appliance jobs, then stop the client."""
        phases = APPLIANCE.phases()
        for job in job_ids(run):
            if phases.get(job) not in _FINAL and shutil.which("csctl"):
                subprocess.run(["csctl", "cancel", "job", job], capture_output=True, timeout=60,
                               check=False)
        super().cancel(run, grace)


LAUNCHER = Appliance()
