"""What Slurm writes into a job's output, on any system: why the job ended.

``srun: error: NODE: task(s) N: Exited with exit code N`` (or ``Out Of Memory``, or a
signal such as ``Bus error``), ``slurmstepd: error: *** STEP|JOB ID ON NODE CANCELLED AT
TIME [DUE TO TIME LIMIT|NODE FAILURE|JOB REQUEUE|PREEMPTION] ***`` (older Slurm: ``slurmstepd:
*** JOB ID CANCELLED AT TIME DUE TO TIME LIMIT on NODE ***``; ``slurmstepd-NODE:`` where the
node runs several slurmd), ``slurmstepd: error:
Detected N oom-kill event(s) in step ...`` (``oom_kill event(s) in StepId=...`` since
Slurm 21), ``sbatch: error: Batch job submission failed: ...``, ``srun: error: Unable to
allocate resources: ...`` and ``srun: error: Node failure on NODE``. Each cause becomes
one ``Diagnosis`` with a hint; the exit code a task reports is kept (``exit_code``).
"""

from __future__ import annotations

from accelbench.engine.core.events import Diagnosis, Event
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import OncePerCause
from accelbench.engine.parsers.logclock import utc_time

_TASKS = r"(?:srun|salloc): error: (\S+): (tasks? [\d,\-]+): "
_EXITED = lazy(_TASKS + r"Exited with exit code (\d+)")
_TASK_OOM = lazy(_TASKS + r"Out Of Memory")
_TASK_SIGNAL = lazy(_TASKS + r"(Segmentation fault|Bus error|Killed|Aborted)\b")
# slurmstepd names itself with its node where slurmd runs several (``slurmstepd-NODE:``).
_STEPD = r"slurmstepd(?:-[\w.-]+)?: "
_OOM = lazy(_STEPD + r"error: Detected (\d+) oom[-_]kill events?(?:\(s\))? in "
            r"(?:step |StepId=)(\S+?)\.?(?: cgroup|\s|$)")
_CANCELLED = lazy(_STEPD + r"(?:error: )?\*\*\* (JOB|STEP) (\S+) (?:ON (\S+) )?"
                  r"CANCELLED AT (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)"
                  r"(?: DUE TO ([A-Z ]+?))?(?: on (\S+))? \*\*\*")
_SUBMIT = lazy(r"(?:sbatch|srun|salloc): error: (?:Batch job submission failed|"
               r"Unable to allocate resources): (.+)")
_NODE_FAIL = lazy(r"(?:srun|salloc): error: Node failure on (\S+)")
_SNIFF = lazy(_STEPD + r"(?:error: |\*\*\* )|(?:srun|salloc|sbatch): error: ")

# Why Slurm cancelled a job (the DUE TO part; none: scancel or a failed step) → diagnosis.
_CAUSES = {
    "TIME LIMIT": ("slurm_timeout", "the job reached its time limit",
                   "raise slurm.time (--time), or save checkpoints and resume"),
    "NODE FAILURE": ("slurm_node_fail", "a node of the job failed",
                     "run it again (sbatch --requeue does that); tell the site if it repeats"),
    "JOB REQUEUE": ("slurm_requeued", "Slurm requeued the job",
                    "it starts again from the beginning: resume from a checkpoint"),
    "PREEMPTION": ("slurm_preempted", "a job of higher priority preempted the job",
                   "use a QOS or partition without preemption, or resume from a checkpoint"),
}
_OOM_HINT = ("ask for more memory (slurm.extra = \"--mem=...\") or lower the batch size;"
             " `sstat`/`sacct -o MaxRSS` show what the job used")
# A job's final state (squeue, sacct) → the same diagnoses, for a live run.
_STATES = {"TIMEOUT": _CAUSES["TIME LIMIT"], "NODE_FAIL": _CAUSES["NODE FAILURE"],
           "PREEMPTED": _CAUSES["PREEMPTION"],
           "OUT_OF_MEMORY": ("slurm_oom", "the job ran out of memory", _OOM_HINT)}


def state_diagnosis(run_id: str, ts: float, state: str, job_id: int | str
                    ) -> Diagnosis | None:
    """The diagnosis of a job that Slurm ended in ``state``, if the state says why."""
    if state not in _STATES:
        return None
    code, what, hint = _STATES[state]
    return Diagnosis(run_id, ts, code, f"{what} (Slurm job {job_id}: {state})", hint)


class SlurmLog(OncePerCause):
    """Slurm's own lines in a job's output: out of memory, time limit, cancellation, node
    failure, a task's exit code, a refused submission."""

    name = "slurm"
    title = "Slurm job output"
    needs = ("slurmstepd: error: ", "slurmstepd: *** ", "slurmstepd-", "srun: error: ",
             "salloc: error: ", "sbatch: error: ")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._said: set[str] = set()  # one diagnosis per cause (a JOB and its STEP both say it)

    def feed(self, line: str, ts: float) -> list[Event]:
        if "error: " not in line and "slurmstepd" not in line:  # (in each pattern)
            return []
        line = line.strip()
        if "Exited with exit code " in line and (m := _EXITED.search(line)):
            if self.exit_code is None or self.exit_code == 0:
                self.exit_code = int(m[3])
            return self._say(ts, "slurm_task_exit",
                             f"{m[2]} on {m[1]} exited with code {m[3]}",
                             "the program failed: see the lines before this one")
        if "Out Of Memory" in line and (m := _TASK_OOM.search(line)):
            return self._say(ts, "slurm_oom", f"{m[2]} on {m[1]} ran out of memory",
                             _OOM_HINT)
        if m := _TASK_SIGNAL.search(line):
            return self._say(ts, "slurm_task_signal", f"{m[2]} on {m[1]}: {m[3]}",
                             "the program crashed: see the lines before this one")
        if "kill event" in line and (m := _OOM.search(line)):
            return self._say(ts, "slurm_oom",
                             f"{m[1]} out-of-memory kill(s) in step {m[2]}", _OOM_HINT)
        if " CANCELLED AT " in line and (m := _CANCELLED.search(line)):
            at, node = utc_time(m[4]), m[3] or m[6]  # (UTC: only the span between matters)
            at = ts if at is None else at
            if m[5] in _CAUSES:
                code, what, hint = _CAUSES[m[5]]
                return self._say(at, code, f"{what}: {m[1]} {m[2]} on {node} cancelled at"
                                 f" {m[4]}", hint)
            if self._said:  # the step Slurm ends after a task failed or ran out of memory
                return []
            return self._say(at, "slurm_cancelled",
                             f"{m[1]} {m[2]} on {node} cancelled at {m[4]}"
                             + (f" due to {m[5].lower()}" if m[5] else ""),
                             "scancel, or Slurm ending a step whose task failed:"
                             " see the lines before this one")
        if m := _SUBMIT.search(line):
            return self._say(ts, "slurm_submit_failed",
                             f"Slurm refused the job: {m[1]}",
                             "the message is Slurm's own: check the partition, account,"
                             " time limit and resources asked for (`sinfo`, `sacctmgr show"
                             " assoc user=$USER`)")
        if "Node failure on " in line and (m := _NODE_FAIL.search(line)):
            code, what, hint = _CAUSES["NODE FAILURE"]
            return self._say(ts, code, f"{what}: {m[1]}", hint)
        return []

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
