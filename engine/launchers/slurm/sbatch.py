"""Slurm batch launcher (``launcher = "slurm"``): sbatch a script that runs the job's wrapper.

The run directory must be on a filesystem the compute nodes share (``$HOME`` on
testbeds): the wrapper writes the job's output, telemetry and exit status there,
on the compute node. State changes seen in the queue are recorded in the run's
``state.jsonl`` so every reader derives the same phases from them.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import replace
from typing import Any

from accelbench.engine.core.events import Diagnosis, Phase
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.launchers import jobwrap
from accelbench.engine.launchers.scheduler import cancel_run
from accelbench.engine.launchers.slurm import gres
from accelbench.engine.launchers.slurm.commands import (
    QUEUE,
    SLURM_PARAMS,
    SlurmJob,
    job_name,
    preflight,
    resource_args,
    sbatch,
    submit_refused,
)
from accelbench.engine.launchers.slurm.commands import check as check_slurm
from accelbench.engine.launchers.slurm.log_dialect import SlurmLog, state_diagnosis
from accelbench.engine.plugin.launcher import Launcher
from accelbench.engine.plugin.system import Availability, System
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.exitfile import ExitRecord, read_exit, write_exit
from accelbench.engine.rundir.files import (
    CANCEL_FILE,
    EXIT_FILE,
    WRAPPER_FILE,
    read_json,
    write_json,
)

SLURM_FILE = "slurm.json"
SUBMIT_TIMEOUT = 60.0  # a run with no job id after this long was never submitted
FINAL_GRACE = 10.0  # how long a finished job's wrapper gets to write exit.json (shared FS lag)
_FINAL_STATUS = {"COMPLETED": "done", "CANCELLED": "cancelled"}


def wrapper_argv(run: RunInfo) -> list[str]:
    """The command that runs on the compute node: accelbench's wrapper for this run."""
    return jobwrap.command(run.dir)


def find_job(run: RunInfo) -> SlurmJob | None:
    """The run's job in the shared queue snapshot (by id once known, else by name)."""
    info = read_json(run.path(SLURM_FILE)) or {}
    job = QUEUE.find(job_id=info.get("job_id"), name=job_name(run.id))
    if job is not None and "job_id" not in info:
        write_json(run.path(SLURM_FILE), {**info, "job_id": job.job_id})
    return job


def not_yet_listed(run: RunInfo, info: dict) -> bool:
    """A job may take a moment to show in the queue after it was submitted."""
    return time.time() - info.get("submitted", run.created) < 3 * max(QUEUE.interval, 2)


def exit_from_slurm(run: RunInfo, job: SlurmJob) -> ExitRecord:
    """An exit record from Slurm's final state, for a job whose wrapper did not write one."""
    status = _FINAL_STATUS.get(job.state, "failed")
    if run.path(CANCEL_FILE).exists() and status != "done":
        status = "cancelled"
    detail = f"Slurm: {job.state}" + (f" ({job.reason})" if job.reason else "")
    returncode = -job.signal if job.signal else job.exit_code  # 0:15 is a SIGTERM
    return replace(jobwrap.exit_record(returncode, status == "cancelled", run.created),
                   status=status, detail=detail)


class Slurm(Launcher):
    """Batch jobs through ``sbatch``, tracked in the shared queue snapshot."""

    name = "slurm"
    title = "a Slurm batch job (sbatch)"
    table = "slurm"
    options = SLURM_PARAMS
    queues = True
    job_id_env = "SLURM_JOB_ID"
    verdict = True  # scancel or a time limit? Slurm's final state tells
    dialects = (SlurmLog,)  # slurmstepd's and srun's lines in the job's output

    def availability(self, system: System) -> Availability | None:
        """Through the GRES the cluster's nodes have (``System.gres``), where the system
        names any."""
        return gres.reach(system)

    def check(self, options: dict[str, Any]) -> None:
        check_slurm(options)

    def unavailable(self) -> str:
        return submit_refused()

    def describe(self, spec: JobSpec) -> str:
        return " ".join([self.name, *resource_args(self.settings(spec))])

    def start(self, run: RunInfo, spec: JobSpec) -> None:
        """Write ``job.sbatch`` (every value quoted) and submit it with ``sbatch --parsable``."""
        preflight(self.settings(spec))
        script = run.path("job.sbatch")
        script.write_text("#!/bin/bash\n"
                          f"# accelbench run {run.id}: the job runs under accelbench's wrapper,\n"
                          "# which writes its output, telemetry and exit status"
                          " into this directory.\n"
                          f"exec {shlex.join(wrapper_argv(run))}\n")
        options = [f"--job-name={job_name(run.id)}", f"--output={run.dir}/slurm.out",
                   f"--chdir={run.dir}", *resource_args(self.settings(spec))]
        job_id, used = sbatch(str(script), options, str(run.dir))
        write_json(run.path(SLURM_FILE), {"job_id": job_id, "submitted": time.time(),
                                          "sbatch": used})

    def poll(self, run: RunInfo) -> str:
        """The run's state from the queue; records changes, and the end when the wrapper
        cannot."""
        info = read_json(run.path(SLURM_FILE))
        if info is None:
            return "lost" if time.time() - run.created > SUBMIT_TIMEOUT else "queued"
        job = find_job(run)
        if QUEUE.error:
            journal.append(run.dir, Diagnosis(run.id, time.time(), "slurm_unreachable",
                                  f"the Slurm controller did not answer: {QUEUE.error}",
                                  "accelbench retries with back-off;"
                                  " the job itself is not affected"))
            return run.status if run.status in ("queued", "running") else "queued"
        if job is None:
            return "queued" if not_yet_listed(run, info) else "lost"
        if job.pending:
            reason = f" ({job.reason})" if job.reason else ""
            journal.append(run.dir, Phase(run.id, time.time(), "queued", job.state + reason))
            return "queued"
        if not job.final:
            if job.state == "COMPLETING" or not run.path(WRAPPER_FILE).exists():
                # once the wrapper runs, the job's own phases (loading, ...) say more than RUNNING
                state = "completing" if job.state == "COMPLETING" else "running"
                journal.append(run.dir, Phase(run.id, time.time(), state,
                                              f"{job.state} on {job.nodes}"))
            return "running"
        job = QUEUE.accounted(job)  # sacct's word on how it ended, where accounting is kept
        if (cause := state_diagnosis(run.id, time.time(), job.state, job.job_id)) is not None:
            journal.append(run.dir, cause, once=True)
        ended_at = info.setdefault("final_seen", time.time())
        write_json(run.path(SLURM_FILE), info)
        started = run.path(WRAPPER_FILE).exists()
        try:
            written = read_exit(run.path(EXIT_FILE))
        except ValueError:
            return "running"  # a damaged record: its readers say so, it is never written over
        if written is not None and written.verdict:  # the wrapper was signalled
            write_exit(run.path(EXIT_FILE), replace(exit_from_slurm(run, job),
                                                    returncode=written.returncode))
        elif written is None and (not started or time.time() - ended_at > FINAL_GRACE):
            write_exit(run.path(EXIT_FILE), exit_from_slurm(run, job))
        return "running"

    def cancel(self, run: RunInfo, grace: float = 10.0) -> None:
        """``scancel`` the job; wait (a while) until its end is recorded."""
        cancel_run(run, lambda: self.stop(run), lambda run: Slurm.poll(self, run),
                   grace + 3 * QUEUE.interval)  # (Slurm's word, also for srun)

    def stop(self, run: RunInfo) -> None:
        """``scancel`` the job, once it is in the queue."""
        job = find_job(run)
        if job is not None:
            QUEUE.cancel(job.job_id)


LAUNCHER = Slurm()
