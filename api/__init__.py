"""accelbench's public plug-in API: everything a system or launcher package imports.

A plug-in imports from ``accelbench.api`` alone (``docs/plugins.md``); the modules the
names come from are accelbench's own and may move. Each name is listed in ``__all__``.
The classes and functions carry their own docstrings; the constants are:

- ``EXIT_FILE``: the run directory's file of how its job ended (``read_exit`` reads it);
- ``CANCEL_FILE``: the run directory's file that marks a cancel as asked for (a
  launcher's ``cancel`` writes it before it stops the job: the wrapper then records the
  end as cancelled).

A system package exports one ``System``; a launcher package one ``Launcher`` instance.
"""

from accelbench.engine.config.site import required as site_required
from accelbench.engine.config.site import value as site_value
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import (
    Diagnosis,
    Event,
    Log,
    Metric,
    Phase,
    Progress,
    Throughput,
    Utilization,
)
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.core.params import Param
from accelbench.engine.launchers.jobwrap import command as wrapper_command
from accelbench.engine.launchers.procs import alive as process_alive
from accelbench.engine.launchers.scheduler import JobPoller, SchedulerDown, cancel_run
from accelbench.engine.parsers import Dialect
from accelbench.engine.plugin.detect import finder
from accelbench.engine.plugin.launcher import Launcher
from accelbench.engine.plugin.system import Alias, Availability, Column, System
from accelbench.engine.reading.formats import Formats
from accelbench.engine.reading.tools import ToolOutput
from accelbench.engine.rundir.exitfile import ExitRecord, read_exit
from accelbench.engine.rundir.files import CANCEL_FILE, EXIT_FILE, read_json, write_json
from accelbench.engine.telemetry.node import (
    Absent,
    Device,
    NodeSampler,
    PolledSampler,
    Reading,
    StreamSampler,
)
from accelbench.engine.telemetry.tool import ToolSampler
from accelbench.engine.workloads import Context, Extension, Plan, Workload

__all__ = [
    "CANCEL_FILE",
    "EXIT_FILE",
    "Absent",
    "Alias",
    "Availability",
    "Column",
    "Context",
    "Device",
    "Diagnosis",
    "Dialect",
    "Event",
    "ExitRecord",
    "Extension",
    "Formats",
    "JobPoller",
    "JobSpec",
    "Launcher",
    "Log",
    "Metric",
    "NodeSampler",
    "Param",
    "Phase",
    "Plan",
    "PolledSampler",
    "Progress",
    "Reading",
    "RunInfo",
    "SchedulerDown",
    "StreamSampler",
    "System",
    "Throughput",
    "ToolOutput",
    "ToolSampler",
    "UserError",
    "Utilization",
    "Workload",
    "cancel_run",
    "finder",
    "process_alive",
    "read_exit",
    "read_json",
    "site_required",
    "site_value",
    "wrapper_command",
    "write_json",
]
