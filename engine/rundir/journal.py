"""A run's ``state.jsonl``: what its launcher and wrapper learn about it, as events.

Queue states (``Phase``) and trouble (``Diagnosis``: a Slurm controller that does not
answer, a wrapper that died) are appended here by whoever learns them, one event per
line in the form of ``engine.core.events``; every reader derives the same phases from them.
Lines written by earlier versions (``{"t": ..., "phase": ...}`` or ``{"t": ...,
"diagnosis": ...}``) read as the same events.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
from pathlib import Path
from typing import Any

from accelbench.engine.core import safefile
from accelbench.engine.core.events import (
    Diagnosis,
    Phase,
    build,
    from_dict,
    loads,
    to_dict,
    to_json,
)
from accelbench.engine.rundir.files import STATE_FILE

Entry = Phase | Diagnosis


def append(run_dir: Path, event: Entry, once: bool = False) -> None:
    """Append ``event`` to the run's journal unless it repeats the last entry (or, with
    ``once``, any entry) but for its time. A full disk loses the entry, never the caller.

    The check and the write hold the file's lock: the wrapper's keeper and a reader may
    learn the same thing at the same moment."""
    with contextlib.suppress(OSError, ValueError), \
            open(safefile.open_append(run_dir / STATE_FILE), "a+", errors="replace") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        entries = _events(run_dir.name, f.read(safefile.SMALL))
        if not any(_same(event, seen) for seen in (entries if once else entries[-1:])):
            f.write(to_json(event) + "\n")


def read(run_dir: Path) -> list[Entry]:
    """The journal's events, in order (damaged lines say nothing)."""
    try:
        return _events(run_dir.name, safefile.read_text(run_dir / STATE_FILE,
                                                        errors="replace"))
    except (OSError, ValueError):  # missing, or not a journal (``engine.core.safefile``)
        return []


def _events(run_id: str, text: str) -> list[Entry]:
    return [e for e in (parse(run_id, line) for line in text.splitlines()) if e]


def parse(run_id: str, line: str) -> Entry | None:
    """The event of one journal line, as run ``run_id``'s; None if the line is damaged."""
    try:
        data = loads(line)
        event = from_dict(data) if "type" in data else _old(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return dataclasses.replace(event, run_id=run_id) if isinstance(event, Entry) else None


def _old(entry: dict[str, Any]) -> Entry:
    """An event from a line in the earlier form (``t``, then ``phase`` or ``diagnosis``)."""
    base = {"run_id": "", "ts": entry["t"]}
    if "phase" in entry:
        return build(Phase, {**base, "name": entry["phase"], "detail": entry["detail"]})
    return build(Diagnosis, {**base, "code": entry["diagnosis"], "message": entry["message"],
                             "hint": entry.get("hint", "")})


def _same(a: Entry, b: Entry) -> bool:
    return {**to_dict(a), "ts": 0, "run_id": ""} == {**to_dict(b), "ts": 0, "run_id": ""}
