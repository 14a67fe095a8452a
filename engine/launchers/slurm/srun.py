"""Interactive Slurm launcher (``launcher = "srun"``): the seeds' ``srun --ipus=1 python ...``.

``srun`` runs on the login node, detached like a local job (its own session, its
messages in ``srun.log``), and holds the allocation while the job's wrapper runs
in it on the compute node. The job is found in the queue by its name; the rest of
the tracking is the batch launcher's. If the ``srun`` process is killed, Slurm
ends the job step: that is how srun works.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import psutil

from accelbench.engine.core import safefile
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.launchers.slurm import sbatch as slurm
from accelbench.engine.launchers.slurm.commands import (
    QUEUE,
    job_name,
    preflight,
    resource_args,
    tool,
)
from accelbench.engine.rundir.exitfile import ExitRecord, recorded, write_exit
from accelbench.engine.rundir.files import EXIT_FILE, read_json, write_json

SRUN_LOG = "srun.log"


class Srun(slurm.Slurm):
    """An ``srun`` on the login node holding the allocation; tracked as a batch job."""

    name = "srun"
    title = "an interactive Slurm job step (srun), held from the login node"

    def start(self, run: RunInfo, spec: JobSpec) -> None:
        """Start ``srun <options> <wrapper>`` detached, its messages going to ``srun.log``."""
        options = self.settings(spec)
        preflight(options)
        command = [tool("srun"), f"--job-name={job_name(run.id)}", f"--chdir={run.dir}",
                   *resource_args(options), *slurm.wrapper_argv(run)]
        with open(run.path(SRUN_LOG), "ab") as log:
            proc = subprocess.Popen(command, cwd=run.dir, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        write_json(run.path(slurm.SLURM_FILE), {"srun_pid": proc.pid, "submitted": time.time(),
                                                "srun": command})

    def poll(self, run: RunInfo) -> str:
        """As the batch launcher; an ``srun`` that died before its job showed up failed to
        start."""
        info = read_json(run.path(slurm.SLURM_FILE)) or {}
        if "job_id" in info or QUEUE.find(name=job_name(run.id)) is not None \
                or _srun_alive(info):
            return super().poll(run)
        if not recorded(run.path(EXIT_FILE)):
            lines = [line for line in _srun_log(run).splitlines() if line.strip()]
            write_exit(run.path(EXIT_FILE), ExitRecord(
                "failed", None, ended=time.time(),
                error=lines[-1] if lines else "srun ended before its job started"))
        return "running"

    def stop(self, run: RunInfo) -> None:
        """``scancel`` the job (or stop ``srun`` if the job is not in the queue yet)."""
        info = read_json(run.path(slurm.SLURM_FILE)) or {}
        if slurm.find_job(run) is None and _srun_alive(info):
            os.killpg(info["srun_pid"], signal.SIGINT)
        super().stop(run)


def _srun_alive(info: dict) -> bool:
    try:
        proc = psutil.Process(info["srun_pid"])
        return proc.status() != psutil.STATUS_ZOMBIE
    except (KeyError, psutil.Error):
        return False


def _srun_log(run: RunInfo) -> str:
    try:
        return safefile.read_text(run.path(SRUN_LOG), errors="replace")
    except (OSError, ValueError):  # missing yet, or not a log (``engine.core.safefile``)
        return ""


LAUNCHER = Srun()
