"""The machine lines accelbench's own workloads print (``@@accelbench {...}``).

They come from user code, so every field is checked (``engine.core.events.build``): a
damaged line is refused with the reason, and the caller keeps it as a log line.

The lines a live run prints by the hundred a second (progress, throughput, loss, as
``emit.py`` writes them: compact, fields in its order, plain numbers and strings) take
a short cut: a regular expression for each type whose every match is a line the checks
accept, so the event is built at once (the same event: ``tests/reading/test_machine_lines.py``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from accelbench.engine.core.errors import shown
from accelbench.engine.core.events import (
    EVENT_TYPES,
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
from accelbench.engine.core.patterns import lazy
from accelbench.engine.workloads.emit import PREFIX

MAX_LINE = 64 * 1024  # characters; longer lines are refused, not parsed
_DECODER: Any = json.JSONDecoder()
_scan = _DECODER.scan_once  # the scanner json.loads uses (its C one)
_FROM_WORKLOAD = {k: v for k, v in EVENT_TYPES.items() if v not in (Log, Finished, Redraw)}

# Numbers the short cut takes are within the bounds ``build`` checks by their form alone:
# an integer of at most 18 digits is within 64 bits; a number without an exponent has at
# most 30 digits before its point; one with an exponent (as ``json`` writes a float beyond
# 1e16 or below 1e-4) a one-digit mantissa and a negative exponent, or one of 2 digits.
_INT = r"(-?(?:0|[1-9][0-9]{0,17}))"
_NUM = (r"(-?(?:(?>(?:0|[1-9][0-9]{0,29})(?:\.[0-9]{1,30})?)(?![eE])"  # (no backtracking)
        r"|[0-9](?:\.[0-9]{1,30})?[eE](?:-[0-9]{1,3}|\+?[0-9]{1,2})))")
_STR = r'"([^"\\\x00-\x1f]*)"'  # a JSON string without escapes: its text as it is
_STEP = r'(?:,"step":' + _INT + ")?"
_HEAD = PREFIX + '{"type":"'
_KIND = len(_HEAD)  # the index of the type's first letter
_PROGRESS = lazy(re.escape(_HEAD) + r'progress","t":' + _NUM + ',"step":' + _INT
                 + ',"total":' + _INT + ',"epoch":' + _NUM + ',"epochs":' + _NUM
                 + r"\}\Z")
_THROUGHPUT = lazy(re.escape(_HEAD) + r'throughput","t":' + _NUM + ',"samples_per_s":'
                   + _NUM + _STEP + r"\}\Z")
_METRIC = lazy(re.escape(_HEAD) + r'metric","t":' + _NUM + ',"name":' + _STR
               + ',"value":' + _NUM + _STEP + r"\}\Z")


def parse(run_id: str, line: str) -> Event:
    """The event of a machine line; ``ValueError`` (one line: what is wrong) if damaged."""
    if len(line) > MAX_LINE:
        raise ValueError(f"longer than {MAX_LINE} characters")
    event = _short(run_id, line)
    return event if event is not None else _from_json(run_id, line)


def progress_time(line: str) -> float | None:
    """The time of a progress line :func:`parse` accepts, told without building its event
    (for readers that keep only the latest progress); None if not one the short cut takes."""
    match = _PROGRESS.match(line)
    return None if match is None else _number(match[1])


def _short(run_id: str, line: str) -> Event | None:
    """The event of a line as ``emit.py`` writes the commonest ones (compact, fields in
    its order, plain numbers and strings), built at once; None for any other line."""
    kind = line[_KIND:_KIND + 1]
    if kind == "t":
        match = _THROUGHPUT.match(line)
        if match is not None:
            t, rate, step = match.groups()
            return Throughput(run_id, _number(t), _number(rate),
                              None if step is None else int(step))
    elif kind == "m":
        match = _METRIC.match(line)
        if match is not None:
            t, name, value, step = match.groups()
            return Metric(run_id, _number(t), name, _number(value),
                          None if step is None else int(step))
    elif kind == "p":
        match = _PROGRESS.match(line)
        if match is not None:
            t, step, total, epoch, epochs = match.groups()
            return Progress(run_id, _number(t), int(step), int(total), _number(epoch),
                            _number(epochs))
    return None


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


def _number(text: str) -> float:
    """A JSON number as ``json`` reads it: an int unless it has a fraction or an exponent."""
    return int(text) if text.lstrip("-").isdigit() else float(text)
