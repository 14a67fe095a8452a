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
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from accelbench.engine.core import fs, safefile
from accelbench.engine.core.errors import shown
from accelbench.engine.core.events import FINAL_STATUSES, build, loads
from accelbench.engine.rundir.files import write_json

RESERVED = 4096
PENDING = {"status": "pending", "note": "the run has not ended: this space is kept for its end"}
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
_CUT = 600  # a string field longer than this is shortened to fit the reserved space


@dataclass(slots=True)
class ExitRecord:
    """How a run's job ended: what ``exit.json`` holds (written by :func:`write_exit`,
    read by :func:`read_exit`, every field checked)."""

    status: str = field(metadata={"choices": FINAL_STATUSES})
    returncode: int | None = None
    started: float | None = None  # when the wrapper started the job
    ended: float | None = None
    signal: str | None = None  # the signal that killed the job (SIGTERM, ...)
    detail: str | None = None  # how it ended, in words
    error: str | None = None  # why the job could not start
    verdict: str | None = None  # who settles how it ended ("slurm": its final state)
    disk_full: dict[str, Any] | None = None  # ``engine.core.fs.filesystem`` of a full disk
    kind: ClassVar[str] = "exit"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``status`` and ``returncode``, then the fields that are set."""
        return {"status": self.status, "returncode": self.returncode,
                **{f.name: getattr(self, f.name) for f in fields(self)[2:]
                   if getattr(self, f.name) is not None}}

    @classmethod
    def from_dict(cls, data: Any) -> ExitRecord:
        """The record ``data`` holds; ``ValueError`` naming the damage if it is none."""
        try:
            if isinstance(data, dict):
                return build(cls, data)
            why = "not an object"
        except ValueError as exc:
            why = str(exc)
        raise ValueError(f"exit.json: not an exit record: {shown(data)} ({why})")



def reserve(path: Path) -> None:
    """Keep ``RESERVED`` bytes for the record at ``path`` (unless something is there).

    Written beside it, then linked into place: a reader never sees the file empty."""
    spare = path.with_name(f".{path.name}.{os.getpid()}.reserve")
    try:
        spare.write_bytes(json.dumps(PENDING).encode().ljust(RESERVED - 1) + b"\n")
        os.link(spare, path)
    except FileExistsError:
        pass
    finally:
        spare.unlink(missing_ok=True)


def read_exit(path: Path) -> ExitRecord | None:
    """The exit record at ``path``; None while there is none (or only the reservation).
    ``ValueError`` naming the damage if ``path`` holds something else."""
    try:
        text = safefile.read_text(path, errors="replace")
    except FileNotFoundError:
        return None
    try:
        data = loads(text)
    except ValueError as exc:
        raise ValueError(f"exit.json: not JSON: {exc}") from None
    if isinstance(data, dict) and data.get("status") == PENDING["status"]:
        return None
    return ExitRecord.from_dict(data)


def recorded(path: Path) -> bool:
    """True once the job's end is recorded at ``path`` (a damaged record counts: what is
    there is never written over)."""
    try:
        return read_exit(path) is not None
    except ValueError:
        return True


def write_exit(path: Path, record: ExitRecord) -> None:
    """Record the end; on a full disk, over the reserved bytes (noting ``disk_full``)."""
    try:
        write_json(path, record.to_dict())
    except OSError as exc:
        if exc.errno not in _NO_SPACE:
            raise
        full = replace(record, disk_full=record.disk_full or fs.filesystem(path.parent))
        _overwrite(path, full.to_dict(), exc)


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
