"""A run directory's files: their names, and the small JSON files read and written whole.

The files in a run's directory are the truth about the run (``engine.store.runs`` lists
them, the wrapper and the launchers write them); this module holds what every one of
their writers needs and nothing more, so that the detached wrapper loads no store.
"""

from __future__ import annotations

import errno
import json
import logging
import os
from pathlib import Path
from typing import Any

from accelbench.engine.core import safefile

SPEC_FILE = "spec.toml"
META_FILE = "meta.json"
LAUNCH_FILE = "launch.json"
OUTPUT_FILE = "output.log"
TELEMETRY_FILE = "telemetry.jsonl"
WRAPPER_FILE = "wrapper.json"
EXIT_FILE = "exit.json"
CANCEL_FILE = "cancel.json"
STATE_FILE = "state.jsonl"
STDERR_FILE = "stderr.log"  # the job's stderr again, to tell its lines in output.log apart
SUMMARY_FILE = "summary.json"  # how the run ended and its summary (what a rebuilt index reads)
PLAN_FILE = "plan.json"  # an experiment's variants (written by engine.run.experiment)
END_FILE = "end.json"  # how an experiment ended (written by engine.run.experiment)
WORK_DIR = "work"  # the job's own directory (where it runs, unless it is a command)
damaged = logging.getLogger(f"{__name__}.damaged")  # run files read as damaged (doctor's too)


def read_json(path: Path) -> dict[str, Any] | None:
    """A small JSON object file's content, or None while it is missing or half-written; a
    damaged one (not UTF-8, not an object, not a regular file: ``engine.core.safefile``) is None
    too, said in a notice naming it."""
    try:
        data = json.loads(safefile.read_text(path))
    except FileNotFoundError:
        return None
    except json.JSONDecodeError:
        return None
    except (UnicodeDecodeError, RecursionError) as exc:
        damaged.warning("%s: not a JSON object (%s): ignored", path,
                        "not UTF-8" if isinstance(exc, UnicodeDecodeError) else "nested too deep")
        return None
    except (OSError, ValueError) as exc:  # not a regular file, or too large: never read
        damaged.warning("%s", exc)
        return None
    if not isinstance(data, dict):
        damaged.warning("%s: a JSON %s, not an object: ignored", path, type(data).__name__)
        return None
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write a small JSON file atomically (readers never see half of it); on failure
    (a full disk) nothing is left behind. A ``PermissionError`` in a directory another
    user owns (a shared store: see ``_store_mode``)."""
    owner = os.lstat(path.parent).st_uid
    if owner != os.geteuid():
        raise PermissionError(errno.EPERM, f"{path.parent} belongs to another user (uid"
                              f" {owner}): not written", str(path))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=1))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
