"""The Hugging Face Trainer's ``trainer_state.json`` and LLaMA-Factory's
``trainer_log.jsonl`` as records (``engine.reading.records``).

``trainer_state.json``: each ``log_history`` entry is a record at its ``step`` of
``max_steps``; the run is done where ``global_step`` reached ``max_steps``; ``best_metric``
is a metric of the last record and the final summary's ``train_runtime`` its elapsed time.
Its mean ``train_loss`` keeps that name (it is not the last step's loss).
``trainer_log.jsonl`` (one object per line, written as the run goes): ``current_steps`` of
``total_steps``, ``loss``, ``lr``/``learning_rate``, ``epoch``, ``elapsed_time``
(``1 day, 2:33:53``), LLaMA-Factory's ``throughput`` (tokens/s); done where the last line
reaches ``total_steps``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from accelbench.engine.core import safefile
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.patterns import lazy
from accelbench.engine.reading.records import Record, figure, lines, number, place
from accelbench.engine.reading.vocabulary import named

STATE = "trainer_state.json"
LOG = "trainer_log.jsonl"
MAX_STATE = 64 * 1024 * 1024  # bytes of a trainer_state.json read at most (then parsed)
_PLACES = {"step", "epoch", "current_steps", "total_steps", "percentage", "elapsed_time",
           "remaining_time"}
_DURATION = lazy(r"^(?:(\d+) days?, )?(\d+):(\d\d):(\d\d)$")
_LOG_UNITS = {"throughput": "tokens/s"}  # LLaMA-Factory's throughput: tokens a second


def _metrics(entry: dict[str, Any], keep: frozenset[str] = frozenset(),
             units: dict[str, str] | None = None) -> dict[str, float]:
    """The figures of ``entry`` by name (``vocabulary.named``; those in ``keep`` under their
    own), each key's number in its unit in ``units`` where the file says no unit."""
    out = {}
    for key, given in entry.items():
        value = number(given)
        if key in _PLACES or value is None:
            continue
        if key in keep:
            out[key] = value
            continue
        name, scale = named(key, (units or {}).get(key, ""))
        out[name] = value * scale
    return out


def state_records(path: Path) -> Iterator[Record]:
    """The records of a ``trainer_state.json``."""
    try:
        with safefile.opened(path, "rb") as f:
            data = f.read(MAX_STATE + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_STATE:
        raise UserError(f"{path}: larger than {MAX_STATE >> 20} MiB: not read")
    try:
        state = json.loads(data)
    except ValueError as exc:
        raise UserError(f"{path}: damaged {STATE}: {exc}") from None
    history = state.get("log_history") if isinstance(state, dict) else None
    if not isinstance(history, list):
        raise UserError(f"{path}: not a {STATE}: no log_history list")
    total = place(state.get("max_steps"))
    elapsed = None
    for entry in history:
        if not isinstance(entry, dict):
            continue
        if "train_runtime" in entry:
            elapsed = figure(entry["train_runtime"])
        yield Record(step=place(entry.get("step")), total=total or None,
                     epoch=figure(entry.get("epoch")),
                     metrics=_metrics(entry, frozenset({"train_loss"})))
    done_step, best = number(state.get("global_step")), number(state.get("best_metric"))
    done = bool(total) and done_step is not None and done_step >= (total or 0)
    yield Record(metrics={"best_metric": best} if best is not None else {},
                 status="done" if done else None, elapsed=elapsed,
                 detail=f"global_step {done_step:g} of max_steps {total:g}"
                 if done_step is not None and total else None)


def duration(text: Any) -> float | None:
    """Seconds of a ``[D day[s], ]H:MM:SS`` duration, else None."""
    m = _DURATION.match(text) if isinstance(text, str) else None
    if m is None:
        return None
    days, hours, minutes, seconds = (int(g or 0) for g in m.groups())
    return float(((days * 24 + hours) * 60 + minutes) * 60 + seconds)


def log_records(path: Path) -> Iterator[Record]:
    """The records of a ``trainer_log.jsonl``, streamed."""
    last: Record | None = None
    try:
        with safefile.opened(path, "r", encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(lines(f, path), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError as exc:
                    raise UserError(f"{path}: line {n} is not JSON: {exc}") from None
                if not isinstance(entry, dict):
                    raise UserError(f"{path}: line {n} is not a JSON object")
                metrics = _metrics(entry, units=_LOG_UNITS)
                last = Record(step=place(entry.get("current_steps")),
                              total=place(entry.get("total_steps")) or None,
                              epoch=figure(entry.get("epoch")), metrics=metrics,
                              elapsed=duration(entry.get("elapsed_time")))
                yield last
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if last is not None and last.total and last.step is not None and last.step >= last.total:
        yield Record(status="done", detail=f"step {last.step} of {last.total}")
