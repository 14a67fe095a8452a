"""Telemetry: samples taken next to the job, one JSON line per sample.

Every sampler writes the same record, so one reader serves them all::

    {"t": 1700000000.0,
     "engines": [{"engine": "cpu0", "percent": 93.5},
                 {"engine": "rss", "percent": 4.1, "value": 812.0, "unit": "MiB"}]}
"""

from __future__ import annotations

import json
from typing import Any

from accelbench.engine.core.events import Utilization, build, loads


def record_line(t: float, engines: list[dict[str, Any]]) -> str:
    """One telemetry line for readings taken at ``t``."""
    return json.dumps({"t": round(t, 3), "engines": engines}, separators=(",", ":"))


def events_from_line(run_id: str, line: str) -> list[Utilization]:
    """The utilization events of one telemetry line (a damaged reading gives none)."""
    try:
        record = loads(line)
        t, engines = record["t"], list(record["engines"])
    except (ValueError, KeyError, TypeError):
        return []
    events = []
    for reading in engines:
        try:
            events.append(build(Utilization, {**reading, "run_id": run_id, "ts": t}))
        except (ValueError, TypeError):
            continue
    return events
