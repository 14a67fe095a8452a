"""A run directory's small records, each a dataclass with one writer and one reader.

``launch.json`` (:class:`Launch`: what the wrapper starts), ``wrapper.json``
(:class:`Wrapper`: the wrapper's and the job's processes) and ``meta.json``
(:class:`RunMeta`: the run's creation). :meth:`Record.write` writes one atomically;
:meth:`Record.read` reads it back with every field checked (``events.build``): a record
that is missing is None, one that is damaged too, said in a notice naming the file and
the field (the ``damaged`` logger, which ``doctor`` reports). Fields a record does not
know (a later version's) are left aside. Cheap to import: the detached wrapper reads
``launch.json`` and writes ``wrapper.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from accelbench.engine.core.events import build
from accelbench.engine.rundir.files import (
    LAUNCH_FILE,
    META_FILE,
    WRAPPER_FILE,
    damaged,
    read_json,
    write_json,
)

R = TypeVar("R", bound="Record")


@dataclass(slots=True)
class Record:
    """What the records share: the file (``name`` in the run's directory) and how it is
    written and read."""

    name: ClassVar[str]  # the file's name in the run's directory
    kind: ClassVar[str]  # what a damage notice calls the record

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the fields that are set."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        """The record ``data`` holds (fields it does not know left aside); ``ValueError``
        naming the field if it is none."""
        known = {f.name for f in fields(cls)}
        return build(cls, {key: value for key, value in data.items() if key in known})

    def write(self, run_dir: Path) -> None:
        """Write the record into ``run_dir``, atomically."""
        write_json(run_dir / self.name, self.to_dict())

    @classmethod
    def read(cls: type[R], run_dir: Path) -> R | None:
        """The record in ``run_dir``; None while there is none, or if it is damaged (said
        in a notice naming the file)."""
        path = run_dir / cls.name
        data = read_json(path)  # (a file that is no JSON object: said there)
        if data is None:
            return None
        try:
            return cls.from_dict(data)
        except ValueError as exc:
            damaged.warning("%s: %s: ignored", path, exc)
            return None


@dataclass(slots=True)
class Launch(Record):
    """What the wrapper starts and how it watches it: ``launch.json``, written before the
    job is launched (an imported run's holds only its dialects)."""

    argv: list[str] = field(default_factory=list)  # the job's command line
    env: dict[str, str] = field(default_factory=dict)  # its environment (over the wrapper's)
    cwd: str = ""  # where it runs
    telemetry_interval: float = 0.0  # seconds between two samples (0: none)
    samplers: list[str] = field(default_factory=list)  # ``ToolSampler.ref`` of each sampler
    dialects: list[str] = field(default_factory=list)  # the dialects its output is read with
    sniff: list[str] = field(default_factory=list)  # those taken where its output shows them
    job_id_env: str = ""  # the variable through which a scheduler gives the job its id
    verdict: str = ""  # the launcher that settles how a signalled job ended (``Launcher.verdict``)
    name: ClassVar[str] = LAUNCH_FILE
    kind: ClassVar[str] = "launch"


@dataclass(slots=True)
class Wrapper(Record):
    """The wrapper's process and, once it has started it, the job's: ``wrapper.json``,
    written by the wrapper as it starts and again once the job is up."""

    pid: int
    host: str
    started: float  # when the wrapper started (the run is running from then)
    keeper_pid: int | None = None  # the job's parent (``jobwrap.Keeper``)
    keeper_started: float | None = None
    job_id: str | None = None  # the scheduler's id of the job (``Launch.job_id_env``)
    job_pid: int | None = None  # the job's process group, once it is up
    job_started: float | None = None
    name: ClassVar[str] = WRAPPER_FILE
    kind: ClassVar[str] = "wrapper"


@dataclass(slots=True)
class RunMeta(Record):
    """The run's creation: ``meta.json``, written with its directory."""

    id: str
    created: float
    experiment: str | None = None  # the experiment it is a variant of
    variant: dict[str, Any] = field(default_factory=dict)  # the knobs its variant sets
    name: ClassVar[str] = META_FILE
    kind: ClassVar[str] = "meta"
