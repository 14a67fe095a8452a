"""The machine lines accelbench's own workloads print (``@@accelbench {...}``).

They come from user code, so every field is checked (``engine.events.build``): a
damaged line is refused with the reason, and the caller keeps it as a log line.

The lines a live run prints by the hundred a second (progress, throughput, loss, as
``emit.py`` writes them: compact, fields in its order, plain numbers and strings) take
a short cut: one regular expression whose every match is a line the checks accept, so
the event is built at once (the same event: ``tests/test_machine_lines.py``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from accelbench.engine.errors import shown
from accelbench.engine.events import (
    EVENT_TYPES,
    MAX_INT,
    MAX_NUMBER,
    Event,
    Finished,
    Log,
    Metric,
    Progress,
    Redraw,
    Throughput,
    build,
    loads,
)
from accelbench.engine.workloads.emit import PREFIX

MAX_LINE = 64 * 1024  # characters; longer lines are refused, not parsed
_DECODER: Any = json.JSONDecoder()
_scan = _DECODER.scan_once  # the scanner json.loads uses (its C one)
_FROM_WORKLOAD = {k: v for k, v in EVENT_TYPES.items() if v not in (Log, Finished, Redraw)}

_INT = r"(-?(?:0|[1-9][0-9]{0,18}))"  # a JSON integer of at most 19 digits
_NUM = r"(-?(?:0|[1-9][0-9]{0,29})(?:\.[0-9]{1,30})?(?:[eE][-+]?[0-9]{1,3})?)"  # any number
_STR = r'"([^"\\\x00-\x1f]*)"'  # a JSON string without escapes: its text as it is
_STEP = r'(?:,"step":' + _INT + ")?"
_SHORT = re.compile(re.escape(PREFIX) + r'\{"type":"(?:'
                    + r'progress","t":' + _NUM + ',"step":' + _INT + ',"total":' + _INT
                    + ',"epoch":' + _NUM + ',"epochs":' + _NUM
                    + r'|throughput","t":' + _NUM + ',"samples_per_s":' + _NUM + _STEP
                    + r'|metric","t":' + _NUM + ',"name":' + _STR + ',"value":' + _NUM + _STEP
                    + r")\}\Z")


def parse(run_id: str, line: str) -> Event:
    """The event of a machine line; ``ValueError`` (one line: what is wrong) if damaged."""
    if len(line) > MAX_LINE:
        raise ValueError(f"longer than {MAX_LINE} characters")
    match = _SHORT.match(line)
    event = _short(run_id, match) if match is not None else None
    return event if event is not None else _from_json(run_id, line)


def progress_time(line: str) -> float | None:
    """The time of a progress line :func:`parse` accepts, told without building its event
    (for readers that keep only the latest progress); None if not one, or not surely."""
    match = _SHORT.match(line)
    if match is None or match[1] is None:
        return None
    t, step, total, epoch, epochs = match.group(1, 2, 3, 4, 5)
    if len(step) > 18 or len(total) > 18 or "e" in (t + epoch + epochs).lower():
        return None  # a number that may be out of bounds: parse says
    return _number(t)


def _from_json(run_id: str, line: str) -> Event:
    """:func:`parse` the long way: any machine line, every field checked."""
    body = line[len(PREFIX):]
    try:  # what json.loads does, without its layers: a line is one object, no blanks
        data, end = _scan(body, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end != len(body):  # damaged, or blanks around: json.loads says what is wrong
        try:
            data = loads(body)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"not a JSON object: {shown(data)}")
    kind = data.pop("type", None)
    cls = _FROM_WORKLOAD.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event type {shown(kind)}: expected one of "
                         + ", ".join(_FROM_WORKLOAD))
    if "run_id" in data or "ts" in data:
        raise ValueError(f"{kind}: unknown field(s) 'run_id' or 'ts' (the time is 't')")
    if "t" not in data:
        raise ValueError(f"{kind}: missing field 't' (the time, epoch seconds)")
    data["run_id"], data["ts"] = run_id, data.pop("t")
    return build(cls, data)


def _short(run_id: str, match: re.Match) -> Event | None:
    """The event of a line ``_SHORT`` matched; None if a number is out of the bounds
    ``build`` checks."""
    (t, step, total, epoch, epochs, rate_t, rate, rate_step, metric_t, name, value,
     value_step) = match.groups()
    event: Event
    numbers: tuple[float, ...]
    ints: tuple[int, ...]
    if t is not None:
        ts, numbers = _number(t), (_number(epoch), _number(epochs))
        ints = (int(step), int(total))
        event = Progress(run_id, ts, ints[0], ints[1], numbers[0], numbers[1])
    elif rate_t is not None:
        ts, numbers, ints = _number(rate_t), (_number(rate),), _step(rate_step)
        event = Throughput(run_id, ts, numbers[0], ints[0] if ints else None)
    else:
        ts, numbers, ints = _number(metric_t), (_number(value),), _step(value_step)
        event = Metric(run_id, ts, name, numbers[0], ints[0] if ints else None)
    if -MAX_NUMBER <= ts <= MAX_NUMBER and min(numbers) >= -MAX_NUMBER \
            and max(numbers) <= MAX_NUMBER and min(ints, default=0) > -MAX_INT \
            and max(ints, default=0) < MAX_INT:
        return event
    return None


def _step(text: str | None) -> tuple[int, ...]:
    return (int(text),) if text else ()


def _number(text: str) -> float:
    """A JSON number as ``json`` reads it: an int unless it has a fraction or an exponent."""
    return int(text) if text.lstrip("-").isdigit() else float(text)
