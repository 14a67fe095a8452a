"""Cerebras appliance launcher (``launcher = "appliance"``).

ModelZoo's ``run.py CSX`` is a client on the login node that drives compile and
execute jobs (``wsjob-...``) on the appliance. The client runs like a local job
(detached, under accelbench's wrapper); the appliance's own view of its jobs comes
from ``csctl get jobs`` (one call per poll interval for every run: a
``scheduler.JobPoller``), and a cancel also cancels the run's appliance jobs with
``csctl cancel job``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time

from accelbench.engine.core import safefile
from accelbench.engine.core.events import Phase
from accelbench.engine.core.job import RunInfo
from accelbench.engine.launchers.local import Local
from accelbench.engine.launchers.scheduler import JobPoller, SchedulerDown
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.files import OUTPUT_FILE

_JOB_ID = re.compile(rb"wsjob-[a-z0-9]+")
_PHASES = {"QUEUEING": "queued", "QUEUED": "queued", "SCHEDULED": "queued",
           "INITIALIZING": "loading", "RUNNING": "running"}
_FINAL = {"SUCCEEDED", "FAILED", "CANCELLED", "CANCELED"}


class ApplianceJobs(JobPoller[str, str]):
    """The appliance's jobs (``wsjob-... → PHASE``), from one ``csctl get jobs`` call per
    interval."""

    interval_env = "ACCELBENCH_CSCTL_POLL"
    default_interval = 10.0

    def query(self) -> dict[str, str]:
        """The NAME and PHASE of each job ``csctl get jobs`` lists."""
        if shutil.which("csctl") is None:
            raise SchedulerDown("csctl not found on PATH")
        try:
            out = subprocess.run(["csctl", "get", "jobs"], capture_output=True, text=True,
                                 timeout=30, check=False)
        except subprocess.TimeoutExpired:
            raise SchedulerDown("csctl get jobs did not answer in 30 s") from None
        if out.returncode != 0:
            raise SchedulerDown(out.stderr.strip() or "csctl get jobs failed")
        return _parse_jobs(out.stdout)

    def cancel_argv(self, job: str) -> list[str]:
        return ["csctl", "cancel", "job", job]


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
            phase = APPLIANCE.snapshot().get(ids[-1])
            if phase and phase not in _FINAL:
                journal.append(run.dir, Phase(run.id, time.time(), _PHASES.get(phase, "running"),
                                              f"csctl: {ids[-1]} {phase}"))
        return status

    def stop(self, run: RunInfo, grace: float) -> None:
        """``csctl cancel job`` for the run's appliance jobs, then stop the client."""
        phases = APPLIANCE.snapshot()
        for job in job_ids(run):
            if phases.get(job) not in _FINAL and shutil.which("csctl"):
                APPLIANCE.cancel(job)
        super().stop(run, grace)


LAUNCHER = Appliance()
