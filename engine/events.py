"""The typed events every reader of a run sees, and their JSON form.

Events are derived from a run's files by deterministic parsers, so the TUI, the
CLI and ``attach`` after a disconnect all see the same sequence. Every event
carries the run id and a timestamp (seconds since the epoch) and round-trips
through :func:`to_json` / :func:`from_json`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

PHASES = ("queued", "starting", "compiling", "loading", "running", "evaluating", "completing",
          "done", "failed", "cancelled", "ended", "lost")
FINAL_STATUSES = ("done", "failed", "cancelled", "ended", "lost")  # ended: exit status unknown


@dataclass(slots=True)
class Event:
    """Base of all events: which run, and when (epoch seconds)."""

    run_id: str
    ts: float
    kind: ClassVar[str] = "event"


@dataclass(slots=True)
class Phase(Event):
    """The run entered a phase (``PHASES``); ``detail`` says more (queue reason, ...)."""

    name: str
    detail: str = ""
    kind: ClassVar[str] = "phase"


@dataclass(slots=True)
class Progress(Event):
    """Steps done out of ``total``; epochs are 1-based, 0 when unknown."""

    step: int
    total: int
    epoch: float = 0
    epochs: float = 0
    kind: ClassVar[str] = "progress"


@dataclass(slots=True)
class Metric(Event):
    """A named scalar (loss, accuracy, learning rate, eval figures, ...)."""

    name: str
    value: float
    step: int | None = None
    kind: ClassVar[str] = "metric"


@dataclass(slots=True)
class Throughput(Event):
    """Samples per second over the last reporting interval."""

    samples_per_s: float
    step: int | None = None
    kind: ClassVar[str] = "throughput"


@dataclass(slots=True)
class Utilization(Event):
    """Busy share of one engine (a CPU core, a GPU, a NeuronCore, ...).

    ``value``/``unit`` carry an absolute reading where one exists (memory in MiB).
    """

    engine: str
    percent: float
    value: float | None = None
    unit: str = ""
    kind: ClassVar[str] = "utilization"


@dataclass(slots=True)
class Log(Event):
    """One line of the job's output (``stream``: ``stdout`` or ``stderr``)."""

    stream: str
    text: str
    kind: ClassVar[str] = "log"


@dataclass(slots=True)
class Diagnosis(Event):
    """A recognised problem, with a hint for the user."""

    code: str
    message: str
    hint: str = ""
    kind: ClassVar[str] = "diagnosis"


@dataclass(slots=True)
class Finished(Event):
    """The run ended with ``status`` (``FINAL_STATUSES``) and summary figures."""

    status: str
    summary: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "finished"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Phase, Progress, Metric, Throughput, Utilization, Log, Diagnosis, Finished)
}


def to_dict(event: Event) -> dict[str, Any]:
    """The JSON-ready form of ``event``: its fields plus ``type``."""
    return {"type": event.kind, **asdict(event)}


def from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`to_dict` output; unknown keys are an error."""
    data = dict(data)
    cls = EVENT_TYPES.get(data.pop("type", None))
    if cls is None:
        raise ValueError(f"unknown event type in {data!r}")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names
    if extra:
        raise ValueError(f"unknown field(s) {sorted(extra)} for {cls.kind} event")
    return cls(**data)


def to_json(event: Event) -> str:
    """One compact JSON line for ``event``."""
    return json.dumps(to_dict(event), separators=(",", ":"))


def from_json(text: str) -> Event:
    """Parse a line written by :func:`to_json`."""
    return from_dict(json.loads(text))
