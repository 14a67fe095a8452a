"""A run's ``exit.json``: how its job ended, recorded even on a full disk.

The wrapper reserves the file when it starts: a ``pending`` record padded to
``RESERVED`` bytes, which every reader treats as no record at all. The end is then
written atomically (a temporary file renamed over it); when the disk is full, it
is written over the reserved bytes instead, which needs no new space.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

from accelbench.engine import fs
from accelbench.engine.errors import shown
from accelbench.engine.events import FINAL_STATUSES, finite, loads
from accelbench.engine.store import read_json, write_json

RESERVED = 4096
PENDING = {"status": "pending", "note": "the run has not ended: this space is kept for its end"}
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
_CUT = 600  # a string field longer than this is shortened to fit the reserved space


def reserve(path: Path) -> None:
    """Keep ``RESERVED`` bytes for the record at ``path`` (unless something is there)."""
    try:
        with open(path, "xb") as f:
            f.write(json.dumps(PENDING).encode().ljust(RESERVED - 1) + b"\n")
    except FileExistsError:
        pass


def read_exit(path: Path) -> dict[str, Any] | None:
    """The exit record at ``path``; None while there is none (or only the reservation)."""
    record = read_json(path)
    if not isinstance(record, dict) or record.get("status") == PENDING["status"]:
        return None
    return record


def check_exit(path: Path) -> None:
    """``ValueError`` naming the damage if ``path`` holds something other than an exit
    record (none at all, or the reservation, is fine: the run has not ended)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return
    try:
        record = loads(text)
    except ValueError as exc:
        raise ValueError(f"exit.json: not JSON: {exc}") from None
    if isinstance(record, dict) and record.get("status") == PENDING["status"]:
        return
    ok = isinstance(record, dict) and record.get("status") in FINAL_STATUSES
    ended, rc = (record.get("ended", 0), record.get("returncode")) if ok else (0, None)
    if not (ok and finite(ended) and (rc is None or isinstance(rc, int))):
        raise ValueError(f"exit.json: not an exit record: {shown(record)}")


def write_exit(path: Path, record: dict[str, Any]) -> None:
    """Record the end; on a full disk, over the reserved bytes (noting ``disk_full``)."""
    try:
        write_json(path, record)
    except OSError as exc:
        if exc.errno not in _NO_SPACE:
            raise
        record = {**record, "disk_full": record.get("disk_full") or fs.filesystem(path.parent)}
        _overwrite(path, record, exc)


def _overwrite(path: Path, record: dict[str, Any], cause: OSError) -> None:
    data = json.dumps({k: v[:_CUT] + "…" if isinstance(v, str) and len(v) > _CUT else v
                       for k, v in record.items()}).encode()
    try:
        with open(path, "r+b") as f:
            size = os.fstat(f.fileno()).st_size
            if len(data) >= size:
                raise cause  # no room: the reservation is gone
            f.write(data.ljust(size - 1) + b"\n")
    except FileNotFoundError:
        raise cause from None
