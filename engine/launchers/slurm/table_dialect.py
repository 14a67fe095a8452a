"""Slurm's tables read as runs (the ``slurm_table`` dialect): one run per job of ``sacct``,
``squeue`` or ``sstat``, one per partition of ``sinfo``.

``accelbench parse`` and ``import`` cut such a file into one run per job
(``tables.job_tables``): each run's text is the table's header and the job's own
rows (its record in JSON), which this dialect reads. A run ends as its job did
(``COMPLETED``: done; ``CANCELLED``: cancelled; ``FAILED``, ``TIMEOUT``,
``OUT_OF_MEMORY``, ``NODE_FAIL``, ...: failed, with a diagnosis and a hint), with the exit
code and the elapsed time Slurm recorded; a pending or running job (``squeue``,
``sstat``) is shown, its pending reason in its title, and never imported.
"""

from __future__ import annotations

from accelbench.engine.core.events import Diagnosis, Event, Metric, Phase
from accelbench.engine.launchers.slurm.commands import FINAL_STATES, PENDING_STATES
from accelbench.engine.launchers.slurm.log_dialect import state_diagnosis
from accelbench.engine.launchers.slurm.sinfo import Partition, merged
from accelbench.engine.launchers.slurm.tables import Job, looks_like_table, read_table
from accelbench.engine.parsers import Dialect

_STATUS = {"COMPLETED": "done", "CANCELLED": "cancelled"}  # other final states: failed
MAX_TABLE = 64 * 1024 * 1024  # characters of a table kept to read at its end (one job's)


def status(state: str) -> str:
    """The run status of a job in Slurm ``state``."""
    if state in FINAL_STATES:
        return _STATUS.get(state, "failed")
    return "queued" if state in PENDING_STATES else "running"


class SlurmTable(Dialect):
    """A Slurm table of one job (``sacct``, ``squeue``, ``sstat``: its state, exit code,
    elapsed time, memory, CPU time and why it failed) or of one partition (``sinfo``).
    Read at its end (a JSON record spans lines)."""

    whole = True
    name = "slurm_table"
    title = "Slurm tables (sacct, squeue, sstat, sinfo)"

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._lines: list[str] = []
        self._size = 0

    def feed(self, line: str, ts: float) -> list[Event]:
        if self._size < MAX_TABLE:
            self._lines.append(line)
            self._size += len(line)
        return []

    def finish(self, ts: float) -> list[Event]:
        table = read_table("\n".join(self._lines))
        self._lines = []
        if table is None or not table.rows:
            return []
        partitions = [p for p, _ in table.rows if isinstance(p, Partition)]
        if partitions:
            partition = merged(partitions)
            self.status = partition.avail
            return partition.events(self.run_id, ts)
        jobs = [job for job, _ in table.rows if isinstance(job, Job)]
        job = next((j for j in jobs if j.job_id == j.base), jobs[0])
        return self._events(job, ts, jobs)

    def _events(self, job: Job, ts: float, rows: list[Job]) -> list[Event]:
        """The events of ``job``, its figures its own row's, else its steps' (``rows``):
        the largest MaxRSS, the first CPU time and task count shown."""
        self.status = status(job.state)
        if job.state in FINAL_STATES:  # (a live job's exit code is no exit code yet)
            self.exit_code = -job.signal if job.signal and not job.exit_code else job.exit_code
        self.elapsed = job.elapsed_s if job.elapsed_s is not None else (
            job.end - job.start if job.start and job.end else None)
        start = job.start or ts
        end = job.end or start
        detail = f"Slurm: {job.state}" + (f" ({job.reason})" if job.reason else "") + (
            f" on {job.nodes}" if job.nodes and job.nodes != "None assigned" else "")
        events: list[Event] = [Phase(self.run_id, start, self.status, detail)]
        if job.elapsed_s is not None and self.status != "queued":
            events.append(Metric(self.run_id, end, "elapsed_s", job.elapsed_s))
        figures = {"max_rss_mib": max((r.max_rss_mib for r in rows
                                       if r.max_rss_mib is not None), default=None),
                   "cpu_time_s": next((r.cpu_s for r in [job, *rows] if r.cpu_s is not None),
                                      None),
                   "tasks": next((r.tasks for r in [job, *rows] if r.tasks is not None), None)}
        events += [Metric(self.run_id, end, name, value) for name, value in figures.items()
                   if value is not None]
        if (diagnosis := self._diagnosis(job, end)) is not None:
            events.append(diagnosis)
        return events

    def _diagnosis(self, job: Job, ts: float) -> Diagnosis | None:
        if self.status not in ("failed", "cancelled"):
            return None
        named = f"Slurm job {job.job_id}" + (f" ({job.name})" if job.name else "")
        if found := state_diagnosis(self.run_id, ts, job.state, job.job_id):
            return found
        if job.state == "CANCELLED":
            return Diagnosis(self.run_id, ts, "slurm_cancelled", f"{named} was cancelled"
                             + (f" by user {job.by}" if job.by else ""),
                             "scancel (by its user or an administrator); its output says"
                             " how far it got")
        how = (f"failed with exit code {job.exit_code}" if job.exit_code
               else f"was killed by signal {job.signal}" if job.signal
               else f"ended {job.state}")
        return Diagnosis(self.run_id, ts, "slurm_job_failed", f"{named} {how}",
                         "the program failed: see the end of its output (slurm-JOBID.out),"
                         " and `sacct -j JOBID` for its steps")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return looks_like_table(text)
