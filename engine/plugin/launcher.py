"""The ``Launcher`` base class: what a door that runs go through declares and does, and
the installed launchers (``launchers``, ``get_launcher``).

A launcher is an object registered under the ``accelbench.launchers`` entry-point
group (a local process, ``sbatch``, ``srun``, or one a system's package or a plug-in
brings; accelbench's own are under ``engine/launchers/``). It declares its name, its option table in
presets (``[slurm]`` for Slurm's two launchers), whether a scheduler queues its jobs,
how the job learns its id, the dialects of what it adds to a job's output, how a system
is reached through it, and it starts, polls and cancels jobs (a scheduler's launcher with
``engine.launchers.scheduler``'s poller and cancel sequence).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import cache
from typing import Any

from accelbench.engine.core.errors import UserError, lookup
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.core.params import Param
from accelbench.engine.parsers import Dialect
from accelbench.engine.plugin import entrypoints as plugins
from accelbench.engine.plugin.system import Availability, System


class Launcher(ABC):
    """A door a run goes through; subclasses set the attributes and the three actions."""

    name: str = ""
    title: str = ""  # one line: where and how the job runs
    table: str = ""  # its option table in presets ("": none); launchers may share one
    options: Mapping[str, Param] = {}  # the table's keys
    queues: bool = False  # a scheduler queues the jobs: an experiment submits them all at once
    job_id_env: str = ""  # the variable through which the scheduler gives the job its id
    verdict: bool = False  # a signalled job awaits the launcher's word on how it ended
    dialects: tuple[type[Dialect], ...] = ()  # read on the output of its runs, from the first
    # line each recognises (what the launcher's own tools print there: ``slurmstepd: ...``)

    def availability(self, system: System) -> Availability | None:
        """Whether ``system`` can be reached through this launcher where this machine has
        none of its devices (a scheduler's nodes): available saying how, unavailable saying
        what was looked for, or None where the launcher has no way to tell (the default)."""
        return None

    def check(self, options: dict[str, Any]) -> None:  # noqa: B027 - optional, default: no limit
        """Refuse values of the option table that no site accepts (``UserError``); called
        whenever a spec with the table loads, whatever launcher it names."""

    def settings(self, spec: JobSpec) -> dict[str, Any]:
        """The values ``spec`` sets in this launcher's option table."""
        return spec.options.get(self.table, {}) if self.table else {}

    def describe(self, spec: JobSpec) -> str:
        """The door ``spec`` goes through, in one line (the launch screen shows it)."""
        return self.name

    def unavailable(self) -> str:
        """Why no job can go through this door here, in one line ("" where one can: the
        default). Bounded in time: ``accelbench presets`` asks every launcher it lists."""
        return ""

    @abstractmethod
    def start(self, run: RunInfo, spec: JobSpec) -> None:
        """Start the job that the run's ``launch.json`` describes; return once it is on its way."""

    @abstractmethod
    def poll(self, run: RunInfo) -> str:
        """``queued``, ``running`` or ``lost`` for a run with no exit status yet.

        A launcher that learns how the job ended (a scheduler's final state) writes
        ``exit.json`` itself; the caller reads it after polling.
        """

    @abstractmethod
    def cancel(self, run: RunInfo, grace: float = 10.0) -> None:
        """Stop the job: politely, then by force after ``grace`` seconds."""


GROUP = "accelbench.launchers"
OURS = "accelbench.engine.launchers."  # the modules of accelbench's own launchers


@cache
def launchers() -> dict[str, Launcher]:
    """Every installed launcher by name; launchers sharing an option table must agree on it."""
    found: dict[str, Launcher] = plugins.load(GROUP, Launcher)
    owners: dict[str, Launcher] = {}
    ours_first = sorted(found.values(),
                        key=lambda launcher: not type(launcher).__module__.startswith(OURS))
    for launcher in ours_first:  # (a plug-in's table disagrees with accelbench's, not back)
        first = owners.setdefault(launcher.table, launcher)
        if launcher.table and dict(launcher.options) != dict(first.options):
            raise UserError(f"{GROUP}: launchers {first.name!r} and {launcher.name!r} declare"
                            f" different keys for the [{launcher.table}] table",
                            hint="launchers that share a table must declare the same keys")
    return found


def option_tables() -> dict[str, Launcher]:
    """The launchers' option tables, each with the first launcher that declares it."""
    tables: dict[str, Launcher] = {}
    for launcher in launchers().values():
        if launcher.table:
            tables.setdefault(launcher.table, launcher)
    return tables


def get_launcher(name: str) -> Launcher:
    """The launcher called ``name``."""
    return lookup(launchers(), name, "launcher")


def job_gone(run: RunInfo) -> bool:
    """True when the run's launcher says its job is gone (``lost``); False while it may
    still run, or when the launcher cannot tell (a controller down, a file unreadable)."""
    try:
        return get_launcher(run.launcher).poll(run) == "lost"
    except (UserError, OSError):
        return False
