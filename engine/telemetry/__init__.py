"""Telemetry: samples taken next to the job, one JSON line per sample.

Every sampler writes the same record, so one reader serves them all::

    {"t": 1700000000.0, "engines": [{"engine": "cpu0", "percent": 93.5},
                                    {"engine": "rss", "percent": 4.1, "value": 812.0, "unit": "MiB"}]}
"""

from __future__ import annotations

import json
from typing import Any

from engine.events import Utilization


def record_line(t: float, engines: list[dict[str, Any]]) -> str:
    """One telemetry line for readings taken at ``t``."""
    return json.dumps({"t": round(t, 3), "engines": engines}, separators=(",", ":"))


def events_from_line(run_id: str, line: str) -> list[Utilization]:
    """The utilization events of one telemetry line (none if the line is damaged)."""
    try:
        record = json.loads(line)
        t = float(record["t"])
        return [Utilization(run_id, t, e["engine"], float(e["percent"]), e.get("value"),
                            e.get("unit", "")) for e in record["engines"]]
    except (ValueError, KeyError, TypeError):
        return []
