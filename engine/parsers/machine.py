"""The machine lines accelbench's own workloads print (``@@accelbench {...}``).

They come from user code, so every field is checked (``engine.events.build``): a
damaged line is refused with the reason, and the caller keeps it as a log line.
"""

from __future__ import annotations

import json
from typing import Any

from accelbench.engine.errors import shown
from accelbench.engine.events import EVENT_TYPES, Event, Finished, Log, Redraw, build, loads
from accelbench.engine.workloads.emit import PREFIX

MAX_LINE = 64 * 1024  # characters; longer lines are refused, not parsed
_DECODER: Any = json.JSONDecoder()
_scan = _DECODER.scan_once  # the scanner json.loads uses (its C one)
_FROM_WORKLOAD = {k: v for k, v in EVENT_TYPES.items() if v not in (Log, Finished, Redraw)}


def parse(run_id: str, line: str) -> Event:
    """The event of a machine line; ``ValueError`` (one line: what is wrong) if damaged."""
    if len(line) > MAX_LINE:
        raise ValueError(f"longer than {MAX_LINE} characters")
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
