"""The digest of an ended run: what ``show`` and comparisons take from its logs (its
diagnoses with their hints, the last log lines, its metrics' curves), kept in ``digest.json``
when its end is recorded, so that no reader derives a whole log again once the summary
is current. A run without one (ended before digests were kept) is read the long way
once, and its digest kept then.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from typing import Any

from accelbench.engine.core.events import Diagnosis, Finished
from accelbench.engine.core.job import RunInfo
from accelbench.engine.run.state import RunState, Series
from accelbench.engine.rundir.files import read_json, write_json

DIGEST_FILE = "digest.json"
CURVES = 64  # metric histories kept (the first reported): show's sparklines, the curves
CURVE_POINTS = 200  # points kept of each (``Series``-thinned), but the loss curve's all


def write(info: RunInfo, state: RunState) -> None:
    """Keep the digest of ``state``, the final state of the run ``info`` (not on a disk
    that cannot be written: readers then derive the logs, as before)."""
    assert state.finished is not None
    digest = {"status": state.finished.status, "ended": state.finished.ts,
              "diagnoses": [[d.ts, d.code, d.message, d.hint] for d in state.diagnoses],
              "log_tail": list(state.log_tail), "log_lines": state.log_lines,
              "curves": {name: _thinned(points, name != "loss")
                         for name, points in list(state.metric_history.items())[:CURVES]}}
    with contextlib.suppress(OSError, ValueError):
        write_json(info.path(DIGEST_FILE), digest)


def _thinned(points: list, thin: bool) -> list:
    """At most ``CURVE_POINTS`` of ``points`` (evenly, the newest last) when ``thin``."""
    if not thin or len(points) <= CURVE_POINTS:
        return list(points)
    series = Series(CURVE_POINTS)
    for point in points:
        series.add(point)
    return list(series)


def kept(info: RunInfo) -> bool:
    """The run has a digest."""
    return info.path(DIGEST_FILE).exists()


def read(info: RunInfo) -> RunState | None:
    """The state of an ended run as ``show`` and comparisons see it, from its summary and
    digest: None unless the run has ended and its digest is of the end the index holds."""
    digest = read_json(info.path(DIGEST_FILE)) if info.final else None
    if not digest or (digest.get("status"), digest.get("ended")) != (info.status, info.ended):
        return None
    try:
        return _state(info, digest)
    except (TypeError, ValueError):  # a damaged digest: the logs say it all the same
        return None


def _state(info: RunInfo, digest: dict[str, Any]) -> RunState:
    state = RunState(info.id, phase=info.status, created=info.created, last_ts=info.ended,
                     metrics=_metrics(info.summary.metrics or {}, digest["curves"]),
                     log_lines=int(digest["log_lines"]),
                     log_tail=deque(map(str, digest["log_tail"]), maxlen=20),
                     diagnoses=[Diagnosis(info.id, float(ts), str(code), str(message),
                                          str(hint))
                                for ts, code, message, hint in digest["diagnoses"]],
                     finished=Finished(info.id, info.ended or info.created, info.status,
                                       info.summary.to_dict()))
    for name, points in digest["curves"].items():
        series = state.metric_history[str(name)] = Series()
        series.extend((step, float(value)) for step, value in points)
    return state


def _metrics(summary: dict[str, float | None], curves: dict[str, Any]) -> dict[str, float]:
    """The run's metrics by name: the summary's, but where it holds none (the job's value
    was NaN or infinite) the last of the metric's curve (the digest keeps those), else NaN."""
    last = {name: float((curves.get(name) or [(None, math.nan)])[-1][1])
            for name, value in summary.items() if value is None}
    return {name: last[name] if value is None else value for name, value in summary.items()}
