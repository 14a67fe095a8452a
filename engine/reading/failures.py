"""The failures of the PyTorch and HPC world, whatever printed them: each one signature,
one ``Diagnosis`` with the figures it names and what to do.

- ``cuda_oom``: the caching allocator's ``CUDA out of memory. Tried to allocate 20.00 MiB
  (GPU 0; 15.78 GiB total capacity; ...)`` and its newer wording (``... GPU 0 has a total
  capacity of 79.15 GiB of which 161.62 MiB is free ...``), ``CUDA error: out of memory``,
  cuBLAS failing to allocate its handle (``CUBLAS_STATUS_ALLOC_FAILED``);
- ``nccl_timeout``: the NCCL watchdog's ``Watchdog caught collective operation timeout:
  WorkNCCL(SeqNum=5, OpType=ALLREDUCE, ..., Timeout(ms)=600000) ran for 600013 milliseconds``;
- ``nccl_error``: ``NCCL error in: FILE:LINE, unhandled system error, NCCL version X`` and the
  ``ncclSystemError``/``ncclRemoteError``/... line that says why;
- ``torchrun_failed``: torchrun's (torch elastic's) ``ChildFailedError`` table: the root
  cause's rank, exit code, signal (``Signal 9 (SIGKILL) received by PID``) and error file;
  or, where the table is cut off, its ``failed (exitcode: N) local_rank: R`` line;
- ``address_in_use``: the rendezvous store that cannot listen on its port (``The server
  socket has failed to listen on any local network address ... port: 29500``), Python's
  ``[Errno 98] Address already in use``;
- ``kernel_oom``: the kernel's out-of-memory killer (``Out of memory: Killed process 1234
  (python)``, ``oom-kill:constraint=...``);
- ``pbs_walltime`` (and ``pbs_memory``, ``pbs_killed``): ``=>> PBS: job killed: walltime
  3630 exceeded limit 3600``; ``moab_walltime``: Moab's (under Torque) ``MOAB_INFO:  job
  exceeded wallclock limit``; ``lsf_walltime``: LSF's ``TERM_RUNLIMIT: job killed after
  reaching LSF run time limit.`` (its ``Exited with exit code 140.`` is the exit code);
- ``killed``: the shell's word for a child that died of SIGKILL, a line ``Killed`` alone or
  bash's ``run.sh: line 66: 777016 Killed   python train.py``, where nothing was
  diagnosed before it (the kernel's killer, a scheduler's limit say more);
- ``python_exception``: the final ``SomeError: message`` line of a Python traceback, where
  no signature above names it and nothing was diagnosed before it (a later traceback is
  that failure's echo: other ranks, the launcher re-raising it).

Slurm's own lines (time limit, ``oom_kill`` events, a task's exit code) are
``launchers.slurm.log_dialect``'s. Each code is diagnosed once per run: the same error from eight
ranks, or a traceback on every rank, is one diagnosis.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from accelbench.engine.core.batches import Rows
from accelbench.engine.core.events import Diagnosis, Event
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import OncePerCause
from accelbench.engine.parsers.prefilter import line_starts

_SIZE = r"\d+(?:\.\d+)? ?(?:bytes|[KMGT]iB|[KMGT]?B)"
_OOM = "CUDA out of memory. Tried to allocate "
# The figures the allocator's message names, in its wordings before and since PyTorch 2.1
# (``(GPU 0; 15.78 GiB total capacity; ...)``, ``GPU 0 has a total capacity of ... of which
# ... is free``), each found on its own: a message wrapped onto more lines (rich's box) is
# read whole, its lines joined until it ends (``_OOM_END``), two more lines at most.
_OOM_FIGURES = (
    ("gpu", lazy(r"\(GPU (\d+);|GPU (\d+) has a total")),
    ("total", lazy(rf"({_SIZE}) total capacity|total capac\w* of ({_SIZE})")),
    ("free", lazy(rf"({_SIZE}) free;|of which ({_SIZE}) is free")),
    ("in use by this process", lazy(rf"this process has ({_SIZE}) memory in use")),
    ("allocated by PyTorch", lazy(rf"({_SIZE}) already allocated|"
                                  rf"allocated memory ({_SIZE}) is allocated by PyTorch")),
    ("reserved by PyTorch", lazy(rf"({_SIZE}) reserved in total by PyTorch")),
    ("reserved but unallocated", lazy(rf"({_SIZE}) is reserved by PyTorch but unalloc")),
    ("cached", lazy(rf"({_SIZE}) cached\)")),
)
_TRIED = lazy(rf"{re.escape(_OOM)}({_SIZE})")
_OOM_END = lazy(r"\(GPU \d+;[^)]*\)|PYTORCH_CUDA_ALLOC_CONF|Memory Management")
_OOM_WRAPPED = 2  # lines a wrapped message may go on for
# Words one of its lines holds: a line with none of them ends the message (it is another's).
_OOM_PARTS = ("allocated", "free", "reserved", "capacity", "capacty", "cached",
              "Memory Management", "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb")
_OOM_PART = lazy("|".join(map(re.escape, _OOM_PARTS)))
_OOM_OTHER = lazy(r"(?:Error|Exception): (CUDA out of memory|CUDA error: out of memory)"
                  r"|(CUBLAS_STATUS_ALLOC_FAILED) when calling"
                  r"|failed to create cublas handle: (CUBLAS_STATUS_ALLOC_FAILED)")
_WATCHDOG = lazy(r"(?:\[Rank (\d+)\] )?Watchdog caught collective operation timeout: "
                 r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)[^)]*?, Timeout\(ms\)=(\d+)\) "
                 r"ran for (\d+) milliseconds")
_NCCL_ERROR = lazy(r"NCCL error(?: in: \S+?,|:) (.+?)(?:, NCCL version ([\w.+-]+))?"
                   r"(?:\s+(nccl\w+): .*)?$")
_NCCL_KIND = lazy(r"\b(nccl(?:System|Remote|Internal|UnhandledCuda|InvalidUsage|"
                  r"InvalidArgument)Error): (.+)")
_CHILD_FAILED = lazy(r"\bChildFailedError:")
# (the table's lines may carry a prefix: ``stderr: ``, ``[default0]:``)
_TABLE_SCRIPT = lazy(r"(?:^|\s)(\S+) FAILED\s*$")
_TABLE_RANK = lazy(r"(?:^|\s)rank\s*: (\d+) \(local_rank: (\d+)\)")
_TABLE_EXIT = lazy(r"(?:^|\s)exitcode\s*: (-?\d+) \(pid: (\d+)\)")
_TABLE_FILE = lazy(r"(?:^|\s)error_file\s*: (.+?)\s*$")
_TABLE_SIGNAL = lazy(r"(?:^|\s)traceback\s*: Signal (\d+) \((SIG\w+)\)")
_RULE = "====="  # (the literal of the table's end, which a Keras bar holds too)
_TABLE_END = lazy(r"(?:^|\s)={20,}\s*$")
_AGENT_FAILED = lazy(r"failed \(exitcode: (-?\d+)\) (?:local_rank: (\d+) \(pid: (\d+)\)|"
                     r"for binary located at .*? with local_rank: (\d+))")
_BIND = lazy(r"failed to bind to (?:\[[^\]]*\]|[\w.?]+):(\d+) \(errno: 98")
_LISTEN = lazy(r"The server socket has failed to listen on any local network address"
               r"(?:.*?\bport: (\d+))?|\[Errno 98\] Address already in use")
_KILLED = lazy(r"[Oo]ut of memory: Killed process (\d+) \(([^)]*)\)"
               r"(?: total-vm:([\d,]+)kB, anon-rss:([\d,]+)kB)?")
_OOM_KILL = lazy(r"oom-kill:constraint=\w+,.*?task=([^,]+),pid=(\d+)")
_PBS = lazy(r"PBS: job killed: (\w+) (\S+) exceeded limit (\S+)")
_MOAB = "MOAB_INFO:  job exceeded wallclock limit"
_LSF_RUNLIMIT = "TERM_RUNLIMIT: job killed after reaching LSF run time limit"
_LSF_EXIT = lazy(r"Exited with exit code (\d+)\.")
_SHELL_KILLED = lazy(r"(?:(\S+): line (\d+): +(\d+) )?Killed(?:\s+(.*))?")
_TRACEBACK = "Traceback (most recent call last)"
_EXCEPTION = lazy(r"((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|"
                  r"Failure|Warning|Iteration))(?:: ?(.*))?")
_IGNORED = "Exception ignored in"

_OOM_HINT = ("lower the batch size (gradient accumulation keeps the global batch) or the"
             " sequence length, use activation checkpointing or shard the model and optimizer"
             " (FSDP, ZeRO); where much memory is reserved but unallocated, set"
             " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
_NCCL_DEBUG = ("run with NCCL_DEBUG=INFO and TORCH_NCCL_ASYNC_ERROR_HANDLING=1"
               " (NCCL_ASYNC_ERROR_HANDLING=1 before PyTorch 2.2)")
_TIMEOUT_HINT = ("a rank stopped joining the collectives (it crashed, hung, or is far slower:"
                 " look for its own error above); " + _NCCL_DEBUG + " to see which; raise the"
                 " timeout (init_process_group(timeout=...)) only where a step is slow by"
                 " design (a long evaluation or checkpoint on one rank)")
_NCCL_HINTS = {
    "system": ("a system call under NCCL failed (sockets, shared memory: /dev/shm is small in"
               " containers, the network interface): " + _NCCL_DEBUG + " to see which; set"
               " NCCL_SOCKET_IFNAME to the nodes' interface (NCCL_IB_DISABLE=1 rules out"
               " InfiniBand)"),
    "remote": ("another rank exited or the network between nodes failed: find the first"
               " rank's own error above; " + _NCCL_DEBUG + " names the peer"),
    "": _NCCL_DEBUG + " to see where NCCL failed",
}
_SIGKILL_HINT = ("SIGKILL comes from outside the process: most often the host's out-of-memory"
                 " killer (`dmesg`, or MaxRSS in `sacct`): fewer dataloader workers, less CPU"
                 " offload, or more host memory (--mem)")
_SIGNAL_HINT = ("the rank died of a signal: see its output above (CUDA_LAUNCH_BLOCKING=1"
                " for a CUDA error, a core dump for a segmentation fault)")
_EXIT_HINT = ("the rank's own error is above this table (its traceback); decorate the script's"
              " entry point with @record (torch.distributed.elastic.multiprocessing.errors)"
              " to have it in error_file")
_PORT_HINT = ("another job on this node holds the port (a second torchrun, or one still"
              " ending): give each job its own MASTER_PORT (torchrun --master-port, or"
              " --rdzv-endpoint=localhost:0 for a free one)")
_KERNEL_OOM_HINT = ("the node ran out of host memory: fewer dataloader workers, less CPU"
                    " offload, smaller in-memory datasets, or ask for more memory (--mem)")
_WALLTIME_HINT = ("ask for more walltime (#PBS -l walltime=HH:MM:SS, bsub -W), or save"
                  " checkpoints and resume")
_PBS_MEMORY_HINT = "ask for more memory (#PBS -l mem=...) or lower the batch size"
_PBS_CODES = {
    "walltime": ("pbs_walltime", _WALLTIME_HINT),
    "mem": ("pbs_memory", _PBS_MEMORY_HINT),
    "vmem": ("pbs_memory", _PBS_MEMORY_HINT),
}
_PBS_OTHER = ("pbs_killed", "PBS killed the job for going over what it asked for: ask for more")
_MESSAGE = 300  # characters of an exception's message kept


LOSS_NOT_FINITE = "loss_not_finite"  # a warning: a run whose loss blew up may go on to its end


def diverged(run_id: str, ts: float, key: str, raw: object, step: int | None = None
             ) -> Diagnosis:
    """The diagnosis of a training loss that blew up (``key`` printed ``raw``: nan, inf, a
    number no event holds), whatever printed it: one place for its words and its hint."""
    at = "" if step is None else f" at step {step}"
    return Diagnosis(run_id, ts, LOSS_NOT_FINITE, f"the training's {key} is {raw}{at}",
                     "the run diverged: lower the learning rate, or check the data, the"
                     " checkpoint it loaded and the precision (bf16, loss scaling)")


def _signal_name(code: int) -> str | None:
    """The name of the signal a negative exit code (Python's convention) stands for."""
    try:
        return signal.Signals(-code).name if code < 0 else None
    except ValueError:
        return None


def _shape(prefix: str) -> re.Pattern[str] | None:
    """A pattern for the text a traceback's lines start with (``[rank3]: ``, a time stamp:
    its digits may change from line to line); None where there is none, or it is the top of
    a box (rich's tracebacks: their exception line stands outside it). Spaces alone are a
    prefix too (a log quoted indented): the exception line starts where ``Traceback`` does."""
    if not prefix or "╭" in prefix:
        return None
    return re.compile("".join(r"\d+" if part.isdigit() else re.escape(part)
                              for part in re.split(r"(\d+)", prefix)))


@dataclass
class _ChildFailed:
    """What torch elastic said of the failed workers: its ``failed (exitcode: ...)`` line,
    then the ``ChildFailedError`` table, whose root cause is the failure to report (a
    dataclass: a dialect's state is compared, as read at once and line by line)."""

    script: str = ""
    rank: str | None = None
    local_rank: str | None = None
    exit: int | None = None
    signal: str | None = None
    error_file: str | None = None
    table: bool = False  # within the table
    root: bool = False  # within its root cause
    kept: bool = False  # the entry being read is the one kept
    seen: bool = False  # anything said of a failure

    def entry(self, rank: str, local_rank: str) -> None:
        """A failure's entry starts: the first one, or the root cause, is kept."""
        self.kept = self.root or self.rank is None
        if self.kept:
            self.rank, self.local_rank = rank, local_rank
            self.exit = self.signal = self.error_file = None
        self.seen = True

    def diagnosis(self, run_id: str, ts: float) -> Diagnosis:
        what = f"{self.script} failed under torchrun" if self.script else \
            "a worker of torchrun failed"
        where = []
        if self.rank is not None:
            where.append(f"rank {self.rank}")
        if self.local_rank is not None:
            where.append(f"local_rank {self.local_rank}")
        message = what + (": " + ", ".join(where) if where else "")
        if self.exit is not None:
            message += f" exited with code {self.exit}"
        name = self.signal or (None if self.exit is None else _signal_name(self.exit))
        if name:
            message += f" ({name})"
        if self.error_file and self.error_file != "<N/A>":
            message += f"; error file {self.error_file}"
        hint = (_SIGKILL_HINT if name == "SIGKILL" else _SIGNAL_HINT if name else _EXIT_HINT)
        return Diagnosis(run_id, ts, "torchrun_failed", message, hint)


class Failures(OncePerCause):
    """Failure signatures read on every log: out of memory (CUDA, the kernel's killer), NCCL
    errors and timeouts, torchrun's failed workers, a port in use, a process the shell saw
    killed, PBS, Moab and LSF limits, and the final exception of a Python traceback."""

    name = "failures"
    title = "failures (CUDA, NCCL, torchrun, Python, kernel, shell, PBS, Moab, LSF)"
    always = True
    defers = frozenset({"python_exception"})  # a system's dialect says it in its own terms
    needs = (_TRACEBACK, "Error", "Exception", "Interrupt", "Exit", "CUDA out of memory",
             "CUDA error: out of memory", "CUBLAS_STATUS_ALLOC_FAILED",
             "Watchdog caught collective operation timeout", "NCCL error", "Root Cause",
             "local_rank", "exitcode", "error_file", "traceback", _RULE, " FAILED",
             "failed to bind to", "failed to listen on any local network address",
             "Address already in use", "Killed", "oom-kill:", "PBS: job killed:", _MOAB,
             _LSF_RUNLIMIT, "Exited with exit code ", *_OOM_PARTS)

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._said: set[str] = set()
        self._child = _ChildFailed()
        self._port: str | None = None
        self._open = 0  # tracebacks begun whose exception is yet to come
        self._shape: re.Pattern[str] | None = None  # the prefix of the last one's lines
        self._ignored = 0  # exceptions to come that Python ignores (``_IGNORED``)
        self._oom_kill: tuple[str, str] | None = None  # (pid, name) of an oom-kill line
        self._wrapped: list[str] = []  # a CUDA out-of-memory message read so far, cut short
        self._tried = ""  # the size it tried to allocate

    def feed(self, line: str, ts: float) -> list[Event]:
        line = line.rstrip()
        said = self._cuda_oom(ts) if self._wrapped and not _OOM_PART.search(line) else []
        for read in self._readers:
            events = read(self, line, ts)
            if events is not None:
                if self._open and ("Error:" in line or "Exception:" in line):
                    self._open -= 1  # the exception of a traceback: it says no more
                return said + events
        return said + self._python(line, ts)

    def feed_text(self, text: str, needs: tuple[str, ...], nocase: tuple[str, ...], ts: float
                  ) -> list[Event | Rows] | None:
        """The lines holding one of ``needs`` fed in order, as ``feed_lines`` gives them,
        but those holding a rule (``=====``; a Keras bar is drawn in ``=``) and no other of
        ``needs`` only while one may matter: a torchrun table, a traceback or a cut-short
        message open (no reader acts on such a line else, each one's literals being
        ``needs``). None where the text holds no rule (read line by line)."""
        if _RULE not in needs:
            return None
        others = tuple(need for need in needs if need != _RULE)
        own = set(line_starts(text, others, nocase)) if others or nocase else set()
        feed, child, find = self.feed, self._child, text.find
        events: list[Event | Rows] = []
        for start in line_starts(text, needs, nocase):
            if start not in own and not (self._wrapped or child.table or self._open
                                         or self._ignored):
                continue
            end = find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            for part in [part for part in line.split("\r") if part] if "\r" in line else [line]:
                events += feed(part, ts)
        return events

    def finish(self, ts: float) -> list[Event]:
        events = self._cuda_oom(ts) if self._wrapped else []
        events += self._torchrun(ts) if self._child.seen else []
        if self._oom_kill is not None:
            events += self._killed(ts, *self._oom_kill)
        return events

    def _oom(self, line: str, ts: float) -> list[Event] | None:
        if self._wrapped:  # the next line of a message cut short
            self._wrapped.append(line.strip())
            text = " ".join(self._wrapped)
            return (self._cuda_oom(ts) if _OOM_END.search(text)
                    or len(self._wrapped) > _OOM_WRAPPED else [])
        if "CUDA" not in line and "CUBLAS_STATUS_ALLOC_FAILED" not in line:  # (in each)
            return None
        if m := _TRIED.search(line):
            self._wrapped, self._tried = [line[m.start():]], m[1]
            return self._cuda_oom(ts) if _OOM_END.search(line) else []
        if m := _OOM_OTHER.search(line):
            what = next(group for group in m.groups() if group)
            message = ("CUDA out of memory: cuBLAS could not allocate its handle"
                       " (CUBLAS_STATUS_ALLOC_FAILED)" if what.startswith("CUBLAS") else
                       f"CUDA out of memory ({what})")
        else:
            return None
        return self._say(ts, "cuda_oom", message, _OOM_HINT)

    def _cuda_oom(self, ts: float) -> list[Event]:
        """The diagnosis of the allocator's message read (``_wrapped``), with its figures."""
        text = " ".join(self._wrapped)
        self._wrapped = []
        found = {name: next(group for group in f.groups() if group)
                 for name, pattern in _OOM_FIGURES if (f := pattern.search(text))}
        on = f" on GPU {found.pop('gpu')}" if "gpu" in found else ""
        message = f"CUDA out of memory{on}: tried to allocate {self._tried}" + (
            " (" + ", ".join(f"{size} {name}" for name, size in found.items()) + ")"
            if found else "")
        return self._say(ts, "cuda_oom", message, _OOM_HINT)

    def _nccl(self, line: str, ts: float) -> list[Event] | None:
        if "NCCL" not in line and "nccl" not in line:  # (in each pattern)
            return None
        if m := _WATCHDOG.search(line):
            rank, seq, op, timeout, ran = m.groups()
            on = f" on rank {rank}" if rank else ""
            return self._say(ts, "nccl_timeout",
                             f"NCCL {op} (collective {seq}) timed out{on}: ran {ran} ms,"
                             f" timeout {timeout} ms", _TIMEOUT_HINT)
        if (m := _NCCL_ERROR.search(line)) or (m := _NCCL_KIND.search(line)):
            text = line[m.start():]
            kind = ("system" if "system error" in text or "ncclSystemError" in text else
                    "remote" if "remote process" in text or "ncclRemoteError" in text else "")
            if m.re is _NCCL_KIND:
                message = f"NCCL error: {m[1]}: {m[2]}"
            else:
                message = f"NCCL error: {m[1]}" + (f" (NCCL {m[2]})" if m[2] else "")
            return self._say(ts, "nccl_error", message, _NCCL_HINTS[kind])
        return None

    def _torchrun_lines(self, line: str, ts: float) -> list[Event] | None:
        child = self._child
        if "failed (exitcode: " in line and (m := _AGENT_FAILED.search(line)):
            if not child.table and child.rank is None:
                child.exit, child.local_rank = int(m[1]), m[2] or m[4]
            child.seen = True
            return []
        if "ChildFailedError:" in line and _CHILD_FAILED.search(line):
            child.table = child.seen = True
            return []
        if not child.table:
            return None
        if m := _TABLE_SCRIPT.search(line):
            child.script = m[1]
        elif "Root Cause (first observed failure)" in line:
            child.root = True
        elif m := _TABLE_RANK.search(line):
            child.entry(m[1], m[2])
        elif m := _TABLE_EXIT.search(line):
            if child.kept:
                child.exit = int(m[1])
        elif m := _TABLE_FILE.search(line):
            if child.kept:
                child.error_file = m[1]
        elif m := _TABLE_SIGNAL.search(line):
            if child.kept:
                child.signal = m[2]
        elif _TABLE_END.search(line) and child.root and child.rank is not None:
            child.table = False
            return self._torchrun(ts)
        else:
            return None
        return []

    def _torchrun(self, ts: float) -> list[Event]:
        if self._child.exit is not None and self.exit_code is None:
            self.exit_code = self._child.exit
        return self._said_once(self._child.diagnosis(self.run_id, ts))

    def _said_once(self, diagnosis: Diagnosis) -> list[Event]:
        return self._say(diagnosis.ts, diagnosis.code, diagnosis.message, diagnosis.hint)

    def _address(self, line: str, ts: float) -> list[Event] | None:
        if "failed to " not in line and "Address already in use" not in line:  # (in each)
            return None
        if m := _LISTEN.search(line):
            port = m[1] or self._port
            if m := _BIND.search(line):
                port = port or m[1]
            where = f"port {port}" if port else "its port"
            return self._say(ts, "address_in_use",
                             f"the rendezvous (MASTER_PORT) could not listen on {where}:"
                             " address already in use", _PORT_HINT)
        if m := _BIND.search(line):
            self._port = m[1]  # a warning: it may yet listen on another address
            return []
        return None

    def _kernel(self, line: str, ts: float) -> list[Event] | None:
        if "Killed process " in line and (m := _KILLED.search(line)):
            pid, name, _vm, rss = m.groups()
            return self._killed(ts, pid, name, rss)
        if "oom-kill:" in line and (m := _OOM_KILL.search(line)):
            self._oom_kill = (m[2], m[1])  # the line naming what it killed comes next
            return []
        return None

    def _killed(self, ts: float, pid: str, name: str, rss: str | None = None) -> list[Event]:
        held = f", which held {rss} kB" if rss else ""
        return self._say(ts, "kernel_oom", f"the kernel's out-of-memory killer killed"
                         f" process {pid} ({name}){held}", _KERNEL_OOM_HINT)

    def _shell(self, line: str, ts: float) -> list[Event] | None:
        if "Killed" not in line or not (m := _SHELL_KILLED.fullmatch(line.strip())):
            return None
        if self._said:  # the echo of a failure said before (the kernel's killer, a limit)
            return []
        script, at, pid, command = m.groups()
        where = f" (pid {pid}, {script} line {at})" if pid else ""
        return self._say(ts, "killed", f"{command or 'the process'}{where} was killed"
                         " (SIGKILL: the shell says Killed)",
                         _SIGKILL_HINT + "; or a limit of the scheduler, where it says so")

    def _scheduler(self, line: str, ts: float) -> list[Event] | None:
        if "PBS: job killed: " in line and (m := _PBS.search(line)):
            code, hint = _PBS_CODES.get(m[1], _PBS_OTHER)
            return self._say(ts, code, f"PBS killed the job: {m[1]} {m[2]} exceeded its"
                             f" limit {m[3]}", hint)
        if _MOAB in line:
            return self._say(ts, "moab_walltime", "Moab killed the job: it exceeded its"
                             " wallclock limit", _WALLTIME_HINT)
        if _LSF_RUNLIMIT in line:
            return self._say(ts, "lsf_walltime", "LSF killed the job: it reached its run"
                             " time limit (TERM_RUNLIMIT)", _WALLTIME_HINT)
        if "Exited with exit code " in line and (m := _LSF_EXIT.fullmatch(line.strip())):
            self.exit_code = int(m[1])  # LSF's summary of the job: its exit code
            return []
        return None

    _readers: ClassVar[tuple[Callable[..., list[Event] | None], ...]] = (
        _oom, _nccl, _torchrun_lines, _address, _kernel, _shell, _scheduler)

    def _python(self, line: str, ts: float) -> list[Event]:
        """A traceback's start, or its final exception: the root cause where nothing was
        said before it. Those Python prints and goes on after (``Exception ignored in``: a
        destructor's, as workers shut down) are no failure; several may be written into
        each other (one per process), so each such line stands for the next exception."""
        at = line.find(_TRACEBACK)
        if at >= 0:
            self._open += 1
            self._shape = _shape(line[:at])
            return []
        if _IGNORED in line:
            self._ignored += 1
            return []
        if not self._open and not self._ignored:
            return []
        text = line
        if self._shape is not None and (m := self._shape.match(line)):
            text = line[m.end():]
        if not (m := _EXCEPTION.fullmatch(text)):
            return []
        self._open = max(self._open - 1, 0)
        if self._ignored:
            self._ignored -= 1
            return []
        if self._said:
            return []
        message = m[1] + (f": {m[2][:_MESSAGE]}" if m[2] else "")
        return self._say(ts, "python_exception", message,
                         "the program stopped on this exception: the traceback above shows"
                         " where it was raised")
