"""What every launcher whose jobs a scheduler runs shares (Slurm's two, the Cerebras
appliance's, a plug-in's): one poller of the scheduler's jobs for every run of the
process, and the cancel sequence.

``JobPoller`` asks the scheduler (``squeue``, ``csctl get jobs``, ...) once per
``interval`` seconds whatever the number of runs followed (the controller is shared by
everyone on the login node), backs off while it does not answer (``error`` says why), and
cancels a job with the scheduler's own command, bounded in time. ``cancel_run`` is the
sequence a launcher's ``cancel`` goes through: note the cancel, stop the job, wait for its
end to be recorded (recording it where the launcher says the job is gone).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from accelbench.engine.core.job import RunInfo

K = TypeVar("K")  # a job's id, as the scheduler lists it
J = TypeVar("J")  # what the poller knows of a job
MAX_BACKOFF = 60.0  # seconds between two queries at most while the scheduler does not answer
CANCEL_TIMEOUT = 60.0  # seconds the scheduler's cancel command is given


class SchedulerDown(Exception):
    """The scheduler did not answer (its message, in one line)."""


class JobPoller(ABC, Generic[K, J]):
    """This user's jobs as a scheduler lists them, shared by every run of the process:
    refreshed by one :meth:`query` per ``interval`` seconds (``interval_env`` names the
    variable that sets it, else ``default_interval``), retried with back-off while the
    scheduler is down; ``calls`` counts the queries."""

    interval_env: str = ""
    default_interval: float = 5.0

    def __init__(self, interval: float | None = None) -> None:
        self.interval = interval if interval is not None else float(
            os.environ.get(self.interval_env, self.default_interval) if self.interval_env
            else self.default_interval)
        self.calls = 0
        self.error = ""  # why the last query failed ("": it did not)
        self._jobs: dict[K, J] = {}
        self._next = 0.0
        self._backoff = 0.0
        self._lock = threading.Lock()

    @abstractmethod
    def query(self) -> dict[K, J]:
        """The scheduler's jobs now, by id; ``SchedulerDown`` if it does not answer."""

    def cancel_argv(self, job: K) -> list[str]:
        """The command that asks the scheduler to cancel ``job`` (``scancel ID``)."""
        raise NotImplementedError(f"{type(self).__name__} cannot cancel a job")

    def snapshot(self) -> dict[K, J]:
        """The jobs as of the last query that was answered (a new one when due)."""
        with self._lock:
            if time.monotonic() >= self._next:
                self.calls += 1
                try:
                    self._jobs = self.query()
                    self.error, self._backoff = "", 0.0
                    wait = self.interval
                except SchedulerDown as exc:
                    self.error = str(exc)
                    self._backoff = wait = min(max(2 * self._backoff, self.interval),
                                               MAX_BACKOFF)
                self._next = time.monotonic() + wait  # (from the answer: a slow one counts)
            return self._jobs

    def cancel(self, job: K) -> None:
        """Ask the scheduler to cancel ``job`` (an error, for one that has ended, or no
        answer in ``CANCEL_TIMEOUT`` seconds is no error: the run's end says what came of
        it)."""
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(self.cancel_argv(job), capture_output=True, timeout=CANCEL_TIMEOUT,
                           check=False)


def cancel_run(run: RunInfo, stop: Callable[[], None], poll: Callable[[RunInfo], str],
               wait: float, every: float = 0.2) -> None:
    """A launcher's cancel: note it (``CANCEL_FILE``: the end is then ``cancelled``), stop
    the job (``stop``: ask the scheduler, signal the process), then wait ``wait`` seconds
    at most until the end is recorded, polling the launcher every ``every`` seconds: where
    it says the job is gone (``lost``) with no end recorded, record it as cancelled."""
    # (here: the Slurm table dialect imports this module through its queue's states)
    from accelbench.engine.launchers import jobwrap
    from accelbench.engine.rundir.exitfile import recorded, write_exit
    from accelbench.engine.rundir.files import CANCEL_FILE, EXIT_FILE, write_json

    write_json(run.path(CANCEL_FILE), {"requested": time.time()})
    stop()
    deadline = time.monotonic() + wait
    while not recorded(run.path(EXIT_FILE)) and time.monotonic() < deadline:
        if poll(run) == "lost":
            write_exit(run.path(EXIT_FILE), jobwrap.exit_record(None, True, run.created))
            return
        time.sleep(every)
