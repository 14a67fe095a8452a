"""Slurm's commands for its two launchers (``slurm``, ``srun``): the ``[slurm]`` knobs as
their flags, pre-flight checks, submission, and one shared queue poller.

Every live Slurm run of this process is served by one ``squeue`` call per poll
interval (``SlurmQueue``, a ``scheduler.JobPoller``): the controller is shared by everyone
on the login node. How a
job ended is ``sacct``'s word where the cluster keeps accounting (``slurm_accounting``).
"""

from __future__ import annotations

import functools
import json
import shlex
import shutil
import subprocess
from dataclasses import dataclass, replace
from typing import Any

from accelbench.engine.core.errors import UserError, shown
from accelbench.engine.core.params import Param
from accelbench.engine.core.text import printable
from accelbench.engine.launchers.scheduler import JobPoller, SchedulerDown
from accelbench.engine.launchers.slurm.accounting import Accounting, exit_status

SLURM_PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("partition", str, "", "partition (empty: the cluster's default)"),
    Param("nodes", int, 1, "nodes (--nodes)", min=1, max=100000),
    Param("ntasks", int, 1, "tasks (--ntasks)", min=1, max=10_000_000),
    Param("ntasks_per_node", int, 0, "tasks per node (--ntasks-per-node; 0: not set)", min=0),
    Param("cpus_per_task", int, 0, "CPUs per task (--cpus-per-task; 0: not set)", min=0),
    Param("gres", str, "", "generic resources, e.g. rdu:8, ipu:1, gpu:1 (--gres)"),
    Param("gpus", str, "", "GPUs for the job, e.g. 4 or h100:4 (--gpus; empty: not set)"),
    Param("time", str, "", "time limit, e.g. 30 or 1:00:00 (--time)"),
    Param("account", str, "", "account to charge (--account)"),
    Param("qos", str, "", "quality of service (--qos)"),
    Param("extra", str, "", "more sbatch/srun arguments, split like a shell would", words=True),
)}
_FLAGS = {"partition": "--partition", "nodes": "--nodes", "ntasks": "--ntasks",
          "ntasks_per_node": "--ntasks-per-node", "cpus_per_task": "--cpus-per-task",
          "gres": "--gres", "gpus": "--gpus", "time": "--time", "account": "--account",
          "qos": "--qos"}
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL",
                "PREEMPTED", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED"}
PENDING_STATES = {"PENDING", "CONFIGURING", "REQUEUED", "RESIZING", "SUSPENDED"}


def job_name(run_id: str) -> str:
    """The Slurm job name of a run (how an ``srun`` run is found in the queue)."""
    return f"ab-{run_id}"


def resource_args(slurm: dict[str, Any]) -> list[str]:
    """sbatch/srun options for the ``[slurm]`` values a spec sets (as argv items, no shell)."""
    args = [f"{flag}={slurm[name]}" for name, flag in _FLAGS.items()
            if slurm.get(name) not in (None, "", 0)]
    return args + shlex.split(slurm.get("extra", ""))


def tool(name: str) -> str:
    """The path of Slurm command ``name``, or a ``UserError`` if this is no Slurm node."""
    path = shutil.which(name)
    if path is None:
        raise UserError(f"{name} not found on PATH: is this a Slurm login node?",
                        hint="use launcher = \"local\" where there is no Slurm")
    return path


def _run(argv: list[str], timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def check(slurm: dict[str, Any]) -> None:
    """Refuse what sbatch refuses on any cluster (the seeds' ntasks 32 case): checked when a
    spec loads, whatever its launcher."""
    nodes = slurm.get("nodes", 1)
    ntasks, per_node = slurm.get("ntasks", 1), slurm.get("ntasks_per_node", 0)
    if per_node and ntasks > per_node * nodes:
        raise UserError(
            f"slurm.ntasks={ntasks} is more than slurm.ntasks_per_node={per_node} × "
            f"slurm.nodes={nodes}: Slurm rejects this as an invalid configuration",
            hint=f"lower ntasks to {per_node * nodes} or raise nodes to "
                 f"{-(-ntasks // per_node)}")


def preflight(slurm: dict[str, Any]) -> None:
    """Refuse what sbatch would refuse here, with a clear reason (asks ``sinfo``)."""
    check(slurm)
    try:
        out = _run([tool("sinfo"), "-h", "-o", "%R|%G"], timeout=15)
    except subprocess.TimeoutExpired:
        return  # the controller is slow: let sbatch decide
    if out.returncode != 0:
        return
    partitions: set[str] = set()
    gres: dict[str, int] = {}
    for line in out.stdout.split():
        part, _, node_gres = line.partition("|")
        partitions.add(part)
        for item in node_gres.split(","):
            name, _, count = item.partition(":")
            count = count.split("(")[0].rpartition(":")[2]
            if name and name != "(null)" and count.isdigit():
                gres[name] = max(gres.get(name, 0), int(count))
    partition = slurm.get("partition", "")
    if partition and partition not in partitions:
        raise UserError(f"slurm.partition={shown(partition)}: no such partition",
                        hint="partitions here: " + ", ".join(sorted(partitions)))
    for item in filter(None, slurm.get("gres", "").split(",")):
        name, _, count = item.partition(":")
        count = count.rpartition(":")[2] or "1"
        if name not in gres:
            raise UserError(f"slurm.gres={shown(item)}: no node here has GRES {shown(name)}",
                            hint="GRES here: " + (", ".join(f"{k}:{v}" for k, v in gres.items())
                                                  or "none"))
        if count.isdigit() and int(count) > gres[name]:
            raise UserError(f"slurm.gres={shown(item)}: nodes here have at most"
                            f" {name}:{gres[name]}")


def sbatch(script: str, options: list[str], cwd: str) -> tuple[int, list[str]]:
    """Submit ``script`` with ``options``; the job id and the argv used."""
    argv = [tool("sbatch"), "--parsable", *options, script]
    try:
        out = _run(argv, timeout=60)
    except subprocess.TimeoutExpired:
        raise UserError("sbatch did not answer in 60 s: the Slurm controller is unreachable",
                        hint="check `sinfo`; try again later") from None
    if out.returncode != 0:
        raise UserError(f"sbatch failed: {out.stderr.strip() or out.stdout.strip()}",
                        hint="the message is Slurm's own; see `man sbatch`")
    return int(out.stdout.strip().split(";")[0]), argv


PROBE_S = 10.0  # seconds ``sbatch --test-only`` is given to answer


@functools.cache
def submit_refused() -> str:
    """Why ``sbatch`` cannot submit here ("" where it can), by running it: ``sbatch
    --test-only --wrap=true`` asks the controller without queueing anything (``PROBE_S``
    at most; asked once a process). Its last line of error says why, as Slurm words it."""
    try:
        out = _run([tool("sbatch"), "--test-only", "--wrap=true"], timeout=PROBE_S)
    except UserError as exc:
        return exc.message
    except subprocess.TimeoutExpired:
        return f"sbatch --test-only did not answer in {PROBE_S:g} s (the controller?)"
    except OSError as exc:
        return f"sbatch cannot be run: {exc.strerror}"
    if out.returncode == 0:
        return ""
    said = [line.strip() for line in (out.stderr or out.stdout).splitlines() if line.strip()]
    return printable(f"sbatch --test-only failed: {said[-1] if said else f'exit {out.returncode}'}")


def scancel(job_id: int) -> None:
    """Ask Slurm to cancel ``job_id`` (an error for an ended job is no error)."""
    _run([tool("scancel"), str(job_id)])


@dataclass
class SlurmJob:
    """A job as the controller reports it."""

    job_id: int
    name: str
    state: str
    reason: str = ""
    nodes: str = ""
    exit_code: int | None = None
    signal: int | None = None

    @property
    def final(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def pending(self) -> bool:
        return self.state in PENDING_STATES


class SlurmQueue(JobPoller[int, SlurmJob]):
    """A snapshot of this user's jobs, refreshed by one ``squeue`` call per interval."""

    interval_env = "ACCELBENCH_SLURM_POLL"
    default_interval = 5.0

    def __init__(self, interval: float | None = None) -> None:
        super().__init__(interval)
        self._json: bool | None = None
        self._accounting: Accounting | None = None

    @property
    def accounting(self) -> Accounting | None:
        """``sacct``, where this node has it."""
        if self._accounting is None and (sacct := shutil.which("sacct")):
            self._accounting = Accounting(sacct)
        return self._accounting

    def accounted(self, job: SlurmJob) -> SlurmJob:
        """``job`` with the final state, exit code and signal that ``sacct`` records, where
        it has them (the controller's word otherwise)."""
        record = self.accounting.job(job.job_id) if self.accounting else None
        if record is None or record.state not in FINAL_STATES:
            return job
        return replace(job, state=record.state, reason=_reason(record.reason) or job.reason,
                       exit_code=record.exit_code, signal=record.signal)

    def find(self, job_id: int | None = None, name: str = "") -> SlurmJob | None:
        """A job by id or by name, from the snapshot; ``scontrol`` for one that left the queue."""
        jobs = self.snapshot()
        for job in jobs.values():
            if job.job_id == job_id or (name and job.name == name):
                return job
        if job_id is not None and not self.error:
            return scontrol_job(job_id) or self._from_accounting(job_id)
        return None

    def _from_accounting(self, job_id: int) -> SlurmJob | None:
        """A job the controller no longer knows (``MinJobAge``), as ``sacct`` recorded it."""
        record = self.accounting.job(job_id) if self.accounting else None
        if record is None:
            return None
        return SlurmJob(job_id, record.name, record.state, _reason(record.reason),
                        record.nodes, record.exit_code, record.signal)

    def query(self) -> dict[int, SlurmJob]:
        """This user's jobs from ``squeue`` (``--json`` where it has it)."""
        squeue = tool("squeue")
        if self._json is not False:
            out = self._call([squeue, "--me", "--json"])
            if out.returncode == 0:
                self._json = True
                return {j.job_id: j for j in map(squeue_job, json.loads(out.stdout)["jobs"])}
            if self._json is None and "unrecognized option" in out.stderr + out.stdout:
                self._json = False
            else:
                raise SchedulerDown(out.stderr.strip() or "squeue failed")
        out = self._call([squeue, "--me", "-t", "all", "-h", "-o", "%i|%j|%T|%r|%N"])
        if out.returncode != 0:
            raise SchedulerDown(out.stderr.strip() or "squeue failed")
        jobs = {}
        for line in out.stdout.splitlines():
            job_id, name, state, reason, nodes = (line.split("|") + [""] * 5)[:5]
            if job_id.isdigit():
                jobs[int(job_id)] = SlurmJob(int(job_id), name, state, _reason(reason), nodes)
        return jobs

    def _call(self, argv: list[str]) -> subprocess.CompletedProcess:
        try:
            return _run(argv, timeout=30)
        except subprocess.TimeoutExpired:
            raise SchedulerDown("squeue did not answer in 30 s") from None

    def cancel_argv(self, job: int) -> list[str]:
        return [tool("scancel"), str(job)]


def _reason(text: str) -> str:
    return "" if text in ("None", "(null)") else text


# squeue's compact state codes (its default output) → the states
SHORT_STATES = {"PD": "PENDING", "R": "RUNNING", "CG": "COMPLETING", "CD": "COMPLETED",
                 "CF": "CONFIGURING", "F": "FAILED", "TO": "TIMEOUT", "CA": "CANCELLED",
                 "NF": "NODE_FAIL", "OOM": "OUT_OF_MEMORY", "PR": "PREEMPTED",
                 "S": "SUSPENDED", "RQ": "REQUEUED", "BF": "BOOT_FAIL", "DL": "DEADLINE"}


def parse_squeue(text: str) -> list[SlurmJob]:
    """The jobs of ``squeue``'s default table (``JOBID PARTITION NAME USER ST TIME NODES
    NODELIST(REASON)``): a pending job's reason, a running job's nodes."""
    jobs = []
    for line in text.splitlines():
        cells = line.split()
        if len(cells) < 8 or not cells[0].split("_")[0].isdigit():
            continue
        where = " ".join(cells[7:])
        pending = where.startswith("(") and where.endswith(")")
        jobs.append(SlurmJob(int(cells[0].split("_")[0]), cells[2],
                             SHORT_STATES.get(cells[4], cells[4]),
                             _reason(where[1:-1]) if pending else "", "" if pending else where))
    return jobs


def squeue_job(data: dict[str, Any]) -> SlurmJob:
    """A job of ``squeue --json``."""
    state = data.get("job_state", "")
    if isinstance(state, list):  # newer Slurm: a list of flags
        state = state[0] if state else ""
    exit_code, signal = data.get("exit_code"), None
    if isinstance(exit_code, dict):  # newer Slurm: {"return_code": {"number": N}, ...}
        exit_code = exit_code.get("return_code", {})
        exit_code = exit_code.get("number") if isinstance(exit_code, dict) else exit_code
    elif isinstance(exit_code, int):  # 22.05: the wait status (768 for an exit code of 3)
        exit_code, signal = exit_code >> 8, (exit_code & 0x7F) or None
    return SlurmJob(int(data["job_id"]), data.get("name", ""), state,
                    _reason(data.get("state_reason", "")), data.get("nodes", ""), exit_code,
                    signal)


def scontrol_job(job_id: int) -> SlurmJob | None:
    """A job that left ``squeue`` but is still known to the controller, if any."""
    try:
        out = _run([tool("scontrol"), "show", "job", str(job_id)], timeout=30)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return None
    fields = dict(item.partition("=")[::2] for item in out.stdout.split() if "=" in item)
    exit_code, signal = exit_status(fields.get("ExitCode", "0:0"))
    return SlurmJob(job_id, fields.get("JobName", ""), fields.get("JobState", ""),
                    _reason(fields.get("Reason", "")), fields.get("NodeList", ""),
                    exit_code, signal)


QUEUE = SlurmQueue()
