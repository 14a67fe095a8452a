"""The ``Launcher`` base class: what a door that runs go through declares and does.

A launcher is an object registered under the ``accelbench.launchers`` entry-point
group (``engine.launchers`` loads them). It declares its name, its option table in
presets (``[slurm]`` for Slurm's two launchers), whether a scheduler queues its jobs,
how the job learns its id, the dialects of what it adds to a job's output, how a system
is reached through it, and it starts, polls and cancels jobs (a scheduler's launcher with
``engine.launchers.scheduler``'s poller and cancel sequence).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelbench.engine.params import Param

if TYPE_CHECKING:
    from accelbench.engine.parsers import Dialect
    from accelbench.engine.spec import JobSpec
    from accelbench.engine.store import RunInfo
    from accelbench.engine.system import Availability, System


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
