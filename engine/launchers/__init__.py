"""Launchers: the doors a run goes through: a local process, ``sbatch``, ``srun``, the
Cerebras appliance.

A launcher starts a run's job so that it outlives whoever started it, cancels
it, and tells the state of a run that has not recorded an exit status yet.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

from accelbench.engine.errors import UserError, lookup

if TYPE_CHECKING:
    from accelbench.engine.spec import JobSpec
    from accelbench.engine.store import RunInfo

LAUNCHERS = {"local": "accelbench.engine.launchers.local", "slurm": "accelbench.engine.launchers.slurm",
             "srun": "accelbench.engine.launchers.srun", "appliance": "accelbench.engine.launchers.appliance"}


class Launcher(Protocol):
    """What every launcher module provides."""

    def start(self, run: RunInfo, spec: JobSpec) -> None:
        """Start the job that the run's ``launch.json`` describes; return once it is on its way."""

    def cancel(self, run: RunInfo, grace: float) -> None:
        """Stop the job: politely, then by force after ``grace`` seconds."""

    def poll(self, run: RunInfo) -> str:
        """``queued``, ``running`` or ``lost`` for a run with no exit status yet.

        A launcher that learns how the job ended (Slurm's final state) writes
        ``exit.json`` itself; the caller reads it after polling.
        """


def get_launcher(name: str) -> Launcher:
    """The launcher module called ``name``."""
    return importlib.import_module(lookup(LAUNCHERS, name, "launcher"))


def job_gone(run: RunInfo) -> bool:
    """True when the run's launcher says its job is gone (``lost``); False while it may
    still run, or when the launcher cannot tell (a controller down, a file unreadable)."""
    try:
        return get_launcher(run.launcher).poll(run) == "lost"
    except (UserError, OSError):
        return False
