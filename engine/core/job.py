"""The two records every floor passes around: ``JobSpec`` (what to run, as a preset says
it) and ``RunInfo`` (a run as the store lists it). Plain data: loading and checking a spec
is ``config.spec``'s, reading a run's directory ``store.runs``'; the launcher interface
(``plugin.launcher``) is typed on these two."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from accelbench.engine.core.events import FINAL_STATUSES
from accelbench.engine.core.summary import RunSummary


@dataclass
class JobSpec:
    """Everything needed to start a run; ``params`` is complete and checked."""

    name: str
    workload: str
    accelerator: str = "cpu"
    launcher: str = "local"
    description: str = ""
    python: str = ""
    telemetry_interval: float = 1.0
    params: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # launchers' tables given
    sweep: dict[str, Any] = field(default_factory=dict)  # checked [sweep] table: config.sweep

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain data, in the preset file's layout (a launcher table each)."""
        data = asdict(self)
        sweep = data.pop("sweep")
        data.update(data.pop("options"))
        if sweep:
            data["sweep"] = sweep
        return data

    def to_toml(self) -> str:
        """The spec as a preset file that loads back equal."""
        import tomli_w  # (only here: a run's start, not every command's)

        return tomli_w.dumps(self.to_dict())


@dataclass
class RunInfo:
    """One row of the index: a run's identity, status and summary figures."""

    id: str
    dir: Path
    created: float
    name: str
    workload: str
    accelerator: str
    launcher: str
    status: str
    ended: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    summary: RunSummary = field(default_factory=RunSummary)
    experiment: str | None = None  # the experiment (sweep) the run belongs to
    variant: dict[str, Any] = field(default_factory=dict)  # the values its sweep set
    reason: str = ""  # why a reader found the run ``unreadable`` (never recorded)

    @property
    def final(self) -> bool:
        """True once the run has ended, one way or another."""
        return self.status in FINAL_STATUSES

    def path(self, name: str) -> Path:
        """A file in the run's directory."""
        return self.dir / name
