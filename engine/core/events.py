"""The typed events every reader of a run sees, and their JSON form.

Events are derived from a run's files by deterministic parsers, so the TUI, the
CLI and ``attach`` after a disconnect all see the same sequence. Every event
carries the run id and a timestamp (seconds since the epoch) and round-trips
through :func:`to_json` / :func:`from_json`.

Events built from what a job or a file says go through :func:`build`, which checks
every field against the type the dataclass declares (finite numbers within
``MAX_NUMBER``, integers within 64 bits, strings, ``PHASES`` for a phase's name, ...),
so a damaged value is refused where it enters, never met later in arithmetic.
"""

from __future__ import annotations

import copy
import functools
import json
import types
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, NamedTuple, TypeVar

from accelbench.engine.core.errors import shown

PHASES = ("queued", "starting", "compiling", "loading", "running", "evaluating", "completing",
          "done", "failed", "cancelled", "ended", "lost")
FINAL_STATUSES = ("done", "failed", "cancelled", "ended", "lost")  # ended: exit status unknown
UNREADABLE = "unreadable"  # a reader's verdict on a run whose files it cannot read; never recorded
MAX_NUMBER = 1e100  # larger figures would overflow the sums and rates folded from them
MAX_INT = 2 ** 63
T = TypeVar("T")


@dataclass(slots=True)
class Event:
    """Base of all events: which run, and when (epoch seconds)."""

    run_id: str
    ts: float
    kind: ClassVar[str] = "event"


@dataclass(slots=True)
class Phase(Event):
    """The run entered a phase (``PHASES``); ``detail`` says more (queue reason, ...)."""

    name: str = field(metadata={"choices": PHASES})
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
    """Busy share of one engine (a CPU core, an accelerator core, ...).

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

    status: str = field(metadata={"choices": FINAL_STATUSES})
    summary: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "finished"


@dataclass(slots=True)
class Redraw(Event):
    """The newest state of a line the job keeps redrawing (a progress bar on ``\\r``).

    Live only: a reader sees one when it reads while the line is unfinished, and the
    next replaces it; the line's final state comes as a :class:`Log` for every reader.
    """

    text: str
    kind: ClassVar[str] = "redraw"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Phase, Progress, Metric, Throughput, Utilization, Log, Diagnosis, Finished,
                Redraw)
}


def to_dict(event: Event) -> dict[str, Any]:
    """The JSON-ready form of ``event``: its fields plus ``type`` (containers copied)."""
    data: dict[str, Any] = {"type": event.kind}
    cls = type(event)
    names = _NAMES.get(cls) or _NAMES.setdefault(cls, tuple(f.name for f in fields(cls)))
    for name in names:
        value = getattr(event, name)
        data[name] = value if type(value) in _SCALARS else copy.deepcopy(value)
    return data


_SCALARS = (str, int, float, bool, type(None))
_NAMES: dict[type, tuple[str, ...]] = {}  # an event type's field names



def finite(value: Any) -> bool:
    """True for a number (not a bool) within ±``MAX_NUMBER`` (so not NaN or infinite)."""
    return type(value) in (int, float) and -MAX_NUMBER <= value <= MAX_NUMBER  # exact for ints


class _Field(NamedTuple):
    """What one field accepts, derived from its declared type."""

    kinds: tuple[type, ...]  # the types taken as they are (NoneType where optional)
    bound: float | None  # a number's magnitude may not exceed it
    choices: tuple[str, ...]  # the values allowed, where only some are
    expected: str  # what a refusal says was expected
    items: tuple[type, ...] = ()  # the types a list's items or an object's values may be of


_BASE: dict[type, tuple[tuple[type, ...], float | None, str]] = {
    str: ((str,), None, "a string"),
    float: ((int, float), MAX_NUMBER, f"a finite number within ±{MAX_NUMBER:g}"),
    int: ((int,), MAX_INT - 1, "an integer within 64 bits"),
    dict: ((dict,), None, "an object"),
    list: ((list,), None, "a list"),
}


def _field(hint: Any, metadata: typing.Mapping[str, Any]) -> _Field:
    """The rule of a field declared ``hint`` (``T`` or ``T | None``)."""
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) else ()
    base = next(a for a in args if a is not type(None)) if args else hint
    kinds, bound, expected = _BASE[typing.get_origin(base) or base]
    items: tuple[type, ...] = ()
    inner = typing.get_args(base)[-1:]  # list[T]'s T, dict[str, T]'s T
    if inner and inner[0] is not Any:
        items, _, what = _BASE[inner[0]]
        expected = f"{expected} of {what.removeprefix('a ').removeprefix('an ')}s"
    choices = tuple(metadata.get("choices", ()))
    if choices:
        expected = "one of " + ", ".join(choices)
    if type(None) in args:
        kinds += (type(None),)
    return _Field(kinds, bound, choices, expected, items)


def _refused(schema: dict[str, _Field], data: dict[str, Any]) -> str | None:
    """The first field of ``data`` its rule refuses, None if none is (``KeyError`` for
    a field ``schema`` has not)."""
    for name, value in data.items():
        kinds, bound, choices, _, items = schema[name]
        if (type(value) not in kinds
                or (bound is not None and value is not None and not -bound <= value <= bound)
                or (choices and value not in choices)
                or (items and value and any(type(item) not in items for item in (
                    value.values() if type(value) is dict else value)))):
            return name
    return None


@functools.cache
def _schema(cls: type) -> dict[str, _Field]:
    """The rules of the fields of dataclass ``cls``."""
    hints = typing.get_type_hints(cls)
    return {f.name: _field(hints[f.name], f.metadata) for f in fields(cls)}


def build(cls: type[T], data: dict[str, Any]) -> T:
    """An event of ``cls`` from ``data``, each field checked against its declared type
    (an integral float is taken for an integer). Raises ``ValueError`` with a one-line
    message naming the event type (``cls.kind``) and the field. Other records (a
    dataclass with a ``kind``, such as an exit record) are built the same way."""
    # A class is hashable, but mypy does not see it of a type[T] (a mypy limitation).
    schema = _schema(cls)  # type: ignore[arg-type]
    for _ in range(2):  # again with integral floats made integers
        try:
            if _refused(schema, data) is None:
                return cls(**data)
        except (KeyError, TypeError):  # an unknown field, a missing one: said below
            break
        data = {name: int(value) if type(value) is float and value.is_integer()
                and name in schema and int in schema[name].kinds else value
                for name, value in data.items()}
    raise ValueError(_fault(cls, data))


def _fault(cls: Any, data: dict[str, Any]) -> str:
    """What is wrong with ``data`` for an event of ``cls``, in one line."""
    schema = _schema(cls)
    extra = [name for name in data if name not in schema]
    if extra:
        return f"{cls.kind}: unknown field(s) {', '.join(map(shown, extra[:5]))}"
    name = _refused(schema, data)
    if name is not None:
        return f"{cls.kind}.{name}: expected {schema[name].expected}, got {shown(data[name])}"
    missing = [f.name for f in fields(cls) if f.name not in data
               and f.default is MISSING and f.default_factory is MISSING]
    return f"{cls.kind}: missing field {', '.join(map(repr, missing))}"


def from_dict(data: Any) -> Event:
    """Rebuild an event from :func:`to_dict` output; a wrong type, key or value is a
    ``ValueError`` (see :func:`build`)."""
    if not isinstance(data, dict):
        raise ValueError(f"an event is a JSON object, got {shown(data)}")
    data = dict(data)
    kind = data.pop("type", None)
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event type {shown(kind)}")
    return build(cls, data)


def to_json(event: Event) -> str:
    """One compact JSON line for ``event``."""
    return json.dumps(to_dict(event), separators=(",", ":"))


def loads(text: str) -> Any:
    """``json.loads``, with nesting too deep for it a ``ValueError`` like any damage."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def from_json(text: str) -> Event:
    """Parse a line written by :func:`to_json` (``ValueError`` if it is damaged)."""
    return from_dict(loads(text))

