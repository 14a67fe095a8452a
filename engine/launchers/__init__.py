"""Launchers: the doors a run goes through (a local process, ``sbatch``, ``srun``, or one
a system's package or a plug-in brings), registered under the ``accelbench.launchers``
entry-point group; the base class is ``engine.launchers.base.Launcher``.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from accelbench.engine import plugins
from accelbench.engine.core.errors import UserError, lookup
from accelbench.engine.launchers.base import Launcher

if TYPE_CHECKING:
    from accelbench.engine.store import RunInfo

GROUP = "accelbench.launchers"


@cache
def launchers() -> dict[str, Launcher]:
    """Every installed launcher by name; launchers sharing an option table must agree on it."""
    found: dict[str, Launcher] = plugins.load(GROUP, Launcher)
    owners: dict[str, Launcher] = {}
    ours_first = sorted(found.values(),
                        key=lambda launcher: not type(launcher).__module__.startswith(__name__))
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
