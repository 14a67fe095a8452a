"""PBS job records read as runs (the ``pbs_table`` dialect): one run per job of
``qstat``, ``qstat -f`` or ``tracejob`` output (``reading.tools.pbs``).

A run ends as its job did: ``Exit_status`` 0 done; the walltime limit, a signal or
another status failed, with a diagnosis and a hint; ``qdel`` (signal 15) cancelled; its
walltime and CPU time used as ``elapsed_s`` and ``cpu_time_s``, its memory as
``max_rss_mib``. A queued or running job is shown, never imported.
"""

from __future__ import annotations

import time

from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase
from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.tools.pbs import WAITING, PbsJob, looks_like_pbs, read_jobs

MAX_RECORD = 64 * 1024 * 1024  # characters of a record kept to read at its end
_QDEL = 15  # the signal qdel sends


def status(job: PbsJob) -> str | None:
    """The run status of ``job`` (None: finished, how not shown)."""
    if not job.finished:
        return "queued" if job.state in WAITING else "running"
    if job.out_of_walltime or (job.exit_status is not None and job.exit_status != 0
                               and job.signal != _QDEL):
        return "failed"
    if job.signal == _QDEL:
        return "cancelled"
    return "done" if job.exit_status == 0 else None


def title(job: PbsJob) -> str:
    """What a user reads first of a job: ``job 522083.barnacle timeout.pbs: C, exit -11,
    00:00:14``."""
    parts = [job.state or "?"]
    if job.exit_status is not None:
        parts.append(f"exit {job.exit_status}")
    if job.walltime_s is not None:
        parts.append(_clock(job.walltime_s))
    return f"job {job.job_id}{' ' + job.name if job.name else ''}: {', '.join(parts)}"


def _clock(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours:02d}:{time.strftime('%M:%S', time.gmtime(rest))}"


def job_runs(text: str) -> list[tuple[str, str]] | None:
    """Each job of the PBS record ``text`` as (its title, its own text); None if none."""
    jobs = read_jobs(text)
    return None if jobs is None else [(title(job), own) for job, own in jobs]


class PbsTable(Dialect):
    """A PBS job's record (``qstat``, ``qstat -f``, ``tracejob``): its state, exit status,
    walltime, CPU time and memory used, and why it failed. Read at its end."""

    whole = True
    name = "pbs_table"
    title = "PBS job records (qstat, qstat -f, tracejob)"

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._lines: list[str] = []
        self._size = 0

    def feed(self, line: str, ts: float) -> list[Event]:
        if self._size < MAX_RECORD:
            self._lines.append(line)
            self._size += len(line)
        return []

    def finish(self, ts: float) -> list[Event]:
        jobs = read_jobs("\n".join(self._lines))
        self._lines = []
        if not jobs:
            return []
        job = jobs[0][0]
        self.status = status(job)
        if job.finished:
            self.exit_code = -job.signal if job.signal else job.exit_status
        self.elapsed = job.walltime_s
        where = f" in queue {job.queue}" if job.queue else ""
        where += f" on {job.nodes}" if job.nodes else ""
        events: list[Event] = [Phase(self.run_id, ts, self.status or "running",
                                     f"PBS: {job.state}{where}"
                                     + (f" ({job.comment})" if job.comment else ""))]
        figures = {"elapsed_s": job.walltime_s, "cpu_time_s": job.cput_s,
                   "max_rss_mib": None if job.mem_kib is None else round(job.mem_kib / 1024, 3),
                   "walltime_limit_s": job.walltime_limit_s}
        events += [Metric(self.run_id, ts, name, value) for name, value in figures.items()
                   if value is not None]
        if (diagnosis := self._diagnosis(job, ts)) is not None:
            events.append(diagnosis)
        return events

    def _diagnosis(self, job: PbsJob, ts: float) -> Diagnosis | None:
        named = f"PBS job {job.job_id}" + (f" ({job.name})" if job.name else "")
        if self.status == "cancelled":
            return Diagnosis(self.run_id, ts, "pbs_cancelled", f"{named} was deleted (qdel)",
                             "qdel (by its user or an administrator); its output says how"
                             " far it got")
        if self.status != "failed":
            return None
        if job.out_of_walltime:
            limit = f" ({_clock(job.walltime_limit_s)})" if job.walltime_limit_s else ""
            return Diagnosis(self.run_id, ts, "pbs_walltime",
                             f"{named} was killed at its walltime limit{limit}",
                             "ask for more time (qsub -l walltime=HH:MM:SS) or save"
                             " checkpoints and resubmit from the last one")
        code = job.exit_status
        how = (f"was killed by signal {job.signal}" if job.signal
               else f"could not be run by PBS (Exit_status {code})" if code is not None
               and code < 0 else f"exited with status {code}")
        return Diagnosis(self.run_id, ts, "pbs_job_failed", f"{named} {how}",
                         "see the end of its output (NAME.oJOBID, NAME.eJOBID), and"
                         " `qstat -xf JOBID` or `tracejob JOBID` for what PBS recorded")

    @classmethod
    def sniff(cls, text: str) -> bool:
        """Whether ``text`` starts as a PBS record that shows a job."""
        return looks_like_pbs(text) and read_jobs(text) is not None
