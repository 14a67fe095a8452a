"""The machine lines accelbench's own workloads print (``@@accelbench {...}``)."""

from __future__ import annotations

import json

from engine.events import EVENT_TYPES, Event, Finished, Log
from engine.workloads.emit import PREFIX

_FROM_WORKLOAD = {k: v for k, v in EVENT_TYPES.items() if v not in (Log, Finished)}


def parse(run_id: str, line: str) -> Event | None:
    """The event of a machine line, or None if it is not one (or is damaged)."""
    try:
        data = json.loads(line[len(PREFIX):])
        cls = _FROM_WORKLOAD[data.pop("type")]
        return cls(run_id=run_id, ts=data.pop("t"), **data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
