"""The SQLite index of a run store, opened so that no reader ever stops on it.

The run directories are the truth; the index is a catalogue of them, rebuilt when it
is missing, unreadable (kept aside as ``index.sqlite.corrupt-<time>``) or older than
``SCHEMA_VERSION``, and brought in line with the directories each time it is opened.
When it cannot be written (a full disk, a read-only file system, no permission), the
store works on an in-memory copy whose changes are not saved. Notices go to the
``accelbench.engine`` logger, one line each (the CLI shows them on stderr).
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelbench.engine.core import fs
from accelbench.engine.core.params import KEY_PARAMS

SCHEMA_VERSION = 3  # 2: indexes for listing runs by time, status, ...; the change counter
# 3: the columns the runs screen sorts by (figures, knobs), with their indexes; ``synced``
FIGURES = ("samples_per_s", "final_loss", "accuracy")  # summary figures runs are sorted by
LIVE = ("queued", "running")  # the statuses listed first by start time (live runs)


def _figure(name: str) -> str:
    """A column holding the summary's figure ``name`` (NULL when it has none)."""
    return (f"{name} REAL GENERATED ALWAYS AS (CASE WHEN json_type(summary, '$.{name}') IN"
            f" ('integer', 'real') THEN json_extract(summary, '$.{name}') END) STORED")


# the knobs that tell runs apart (``view.model.key_params``, as SQL makes the text of a value)
KNOBS = "rtrim(" + " || ".join(f"coalesce('{short}=' || json_extract(params, '$.{name}')"
                               " || ' ', '')" for name, short in KEY_PARAMS.items()) + ")"
SCHEMA = (
    f"""CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    name TEXT NOT NULL,
    workload TEXT NOT NULL,
    accelerator TEXT NOT NULL,
    launcher TEXT NOT NULL,
    status TEXT NOT NULL,
    ended REAL,
    params TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '{{}}',
    experiment TEXT,
    variant TEXT NOT NULL DEFAULT '{{}}',
    {', '.join(_figure(name) for name in FIGURES)},
    knobs TEXT GENERATED ALWAYS AS ({KNOBS}) STORED)""",
    """CREATE TABLE experiments (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    total INTEGER NOT NULL,
    ended REAL)""",
    "CREATE INDEX runs_by_created ON runs (created)",
    "CREATE INDEX runs_by_status ON runs (status, created)",
    "CREATE INDEX runs_by_accelerator ON runs (accelerator, created)",
    "CREATE INDEX runs_by_workload ON runs (workload, created)",
    "CREATE INDEX runs_by_experiment ON runs (experiment, created)",
    "CREATE INDEX runs_by_knobs ON runs (knobs, created)",
    *(f"CREATE INDEX runs_live_first{suffix} ON runs (status IN {LIVE} DESC, created{way})"
      for suffix, way in (("", " DESC"), ("_asc", ""))),
    # a figure's sort, either way, with runs that lack it last
    *(f"CREATE INDEX runs_by_{name}{suffix} ON runs ({name} IS NULL, {name}{way}, created{way})"
      for name in FIGURES for suffix, way in (("", ""), ("_desc", " DESC"))),
    # the change counter: bumped by every write to the tables (a reader polls it)
    "CREATE TABLE changes (n INTEGER NOT NULL)",
    "INSERT INTO changes VALUES (0)",
    # what each table was last brought in line with: its directory's mtime and row count
    "CREATE TABLE synced (name TEXT PRIMARY KEY, mtime INTEGER NOT NULL, rows INTEGER NOT NULL)",
    *(f"CREATE TRIGGER {table}_{op.lower()} AFTER {op} ON {table}"
      " BEGIN UPDATE changes SET n = n + 1; END"
      for table in ("runs", "experiments") for op in ("INSERT", "UPDATE", "DELETE")),
)
TABLES = ("runs", "experiments")
COUNTER = "changes"
SYNCED = "synced"
TIMEOUT_S = 30.0
log = logging.getLogger(__name__)


@dataclass
class Finding:
    """A problem found in the store, and whether it was repaired on disk."""

    kind: str  # index, orphan_row, missing_row, unindexable, status, vanished, temp_file,
    # damaged (a run file left aside), system (a system's own check, ``System.doctor``)
    target: str  # a run or experiment id, or a file
    detail: str
    fixed: bool = False


# ``sync(db, previous)`` brings the tables of ``db`` in line with the directories, inside
# the caller's transaction; ``previous`` maps table -> id -> row of an index being rebuilt
# (None when the tables are only caught up).
Rows = dict[str, dict[str, dict[str, Any]]]
Sync = Callable[[sqlite3.Connection, "Rows | None"], list[Finding]]


class _Rebuild(Exception):
    """The index file must be rebuilt (why: missing, corrupt, ...)."""


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    text = f"{getattr(exc, 'sqlite_errorname', '')} {exc}"
    return any(mark in text for mark in ("SQLITE_CORRUPT", "SQLITE_NOTADB", "not a database",
                                         "malformed"))


class Index:
    """The index at ``path``: read-write when it can be, else an in-memory copy."""

    def __init__(self, path: Path, sync: Sync, writable: bool = True,
                 mode: int = 0o600) -> None:
        self.path = path
        self.mode = mode  # of the index's files: the owner's only, or a team store's group's
        self._sync = sync
        self.readonly = ""  # why the index on disk is not written ("" while it is)
        self.hint = ""
        self.findings: list[Finding] = []  # what opening found (and repaired, if writable)
        self._memory: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        if not writable:
            self._open_copy("opened read-only", "")
            return
        try:
            self._open()
        except (sqlite3.Error, OSError) as exc:
            self._unavailable(exc)

    # -- opening --------------------------------------------------------------------------

    def _connect(self, uri: str = "") -> sqlite3.Connection:
        """A connection to the file (never creating it), or to ``uri``."""
        db = sqlite3.connect(uri or self.path.resolve().as_uri() + "?mode=rw", uri=True,
                             timeout=TIMEOUT_S, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    def _open(self) -> None:
        """Open the file read-write and reconcile it; rebuild it if need be."""
        try:
            self._check_file()
            self._reconcile()
            return
        except (_Rebuild, sqlite3.DatabaseError) as first:
            if isinstance(first, sqlite3.DatabaseError) and not _corrupt(first):
                raise
        with self._exclusive():  # one process rebuilds; the others find it done
            try:
                self._check_file()
                self._reconcile()
            except _Rebuild as why:
                self._rebuild(str(why))
            except sqlite3.DatabaseError as exc:
                if not _corrupt(exc):
                    raise
                self._rebuild(self._set_aside(exc))

    def _check_file(self) -> None:
        """Raise ``_Rebuild`` if the file is missing or old, a ``DatabaseError`` if corrupt."""
        if not _size(self.path):
            raise _Rebuild("was missing")
        _private_file(self.path, self.mode)
        with closing(self._connect()) as db:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # set once: changing it
                db.execute("PRAGMA journal_mode=WAL")  # takes a lock no busy timeout waits for
            if why := _outdated(db):
                raise _Rebuild(why)

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        fd = os.open(self.path.with_name(f".{self.path.name}.lock"),
                     os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, self.mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _set_aside(self, exc: sqlite3.DatabaseError) -> str:
        """Move the corrupt file (and its -wal, -shm) aside; say where."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        while aside.exists():
            aside = aside.with_name(aside.name + "-1")
        for suffix in ("-wal", "-shm", ""):
            with suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        return f"was unreadable ({exc}); kept as {aside.name}"

    def _rebuild(self, why: str) -> None:
        """Make the tables afresh from the directories (keeping what a readable old
        index knew that the directories do not: the summaries of old runs)."""
        if not self.path.exists():  # a WAL left beside a deleted file is not this file's
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        _private_file(self.path, self.mode)
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                previous = _rows_of(db)
            except sqlite3.DatabaseError:
                previous = {}
            found = self._fill(db, previous)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        self._note_rebuild(why, found, previous, fixed=True)

    def _fill(self, db: sqlite3.Connection, previous: Rows) -> list[Finding]:
        for table in (*TABLES, COUNTER, SYNCED):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in SCHEMA:
            db.execute(statement)
        return self._sync(db, previous)

    def _note_rebuild(self, why: str, found: list[Finding], previous: Rows,
                      fixed: bool) -> None:
        runs = sum(1 for f in found if f.kind == "missing_row" and f.target.startswith("runs/"))
        rest = [f for f in found if f.kind not in ("missing_row", "orphan_row")]
        self.findings += rest
        if why == "was missing" and len(found) == len(rest) and not previous:
            if rest:
                log.warning("%s", _unindexable(rest))
            return  # a new store
        self.findings.append(Finding("index", self.path.name, f"the run index {why}", fixed))
        log.warning("the run index %s: %s from %s%s", why,
                    "rebuilt it" if fixed else "read it afresh (in a copy, not saved)",
                    _count(runs, "run directory", "run directories"),
                    "; " + _unindexable(rest) if rest else "")

    def _reconcile(self) -> None:
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            found = self._sync(db, None)
            db.execute("COMMIT")
        self._note_sync(found, fixed=True)

    def _note_sync(self, found: list[Finding], fixed: bool) -> None:
        rest = [f for f in found if f.kind not in ("missing_row", "orphan_row")]
        for finding in found:
            finding.fixed = fixed and finding not in rest
        self.findings += found
        added = sum(1 for f in found if f.kind == "missing_row")
        dropped = sum(1 for f in found if f.kind == "orphan_row")
        done = [f"added {_count(added, 'directory', 'directories')} it lacked"] if added else []
        done += [f"dropped {_count(dropped, 'row')} whose directory is gone"] if dropped else []
        if done:
            log.warning("the run index was behind the directories: %s%s%s", " and ".join(done),
                        "" if fixed else " (in a copy, not saved)",
                        "; " + _unindexable(rest) if rest else "")
        elif rest:
            log.warning("%s", _unindexable(rest))

    def _unavailable(self, exc: BaseException) -> None:
        """The file cannot be used read-write: work on an in-memory copy."""
        reason, hint = fs.trouble(self.path.parent, exc)
        log.warning("the run index cannot be written (%s): using a read-only copy;"
                    " changes to it are not saved", reason)
        self._open_copy(reason, hint)

    def _open_copy(self, reason: str, hint: str) -> None:
        """An in-memory copy of what can be read of the file, in line with the directories."""
        self.readonly, self.hint = reason, hint
        memory, why = self._copy() if _size(self.path) else (None, "was missing")
        if memory is None:
            memory = _memory()
        self._memory = memory
        if not why:
            self._note_sync(self._sync(memory, None), fixed=False)
            return
        previous = _rows_of(memory)
        self._note_rebuild(why, self._fill(memory, previous), previous, fixed=False)

    def _copy(self) -> tuple[sqlite3.Connection | None, str]:
        """The file copied into memory, and why it needs rebuilding ("" if it does not)."""
        why = ""
        for mode in ("?mode=ro", "?immutable=1"):  # immutable: needs no -shm (a full disk)
            memory = _memory()
            try:
                with closing(self._connect(self.path.resolve().as_uri() + mode)) as source:
                    source.backup(memory)
                _rows_of(memory)  # every row can be read
                return memory, _outdated(memory)
            except sqlite3.Error as exc:
                why = f"was unreadable ({exc})"
        return None, why

    # -- use ------------------------------------------------------------------------------

    def rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        """The rows of a query; a file that fails now is rebuilt, or read as a copy."""
        for attempt in (1, 2):
            if self._memory is not None:
                with self._lock:
                    return self._memory.execute(sql, params).fetchall()
            try:
                with closing(self._connect()) as db:
                    return db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                if attempt == 2:
                    raise
                self._recover(exc, read=True)
        raise AssertionError("unreachable")

    def write(self, sql: str, params: tuple = (), quiet: bool = False) -> str:
        """Run one statement that writes; returns why it could not ("" once done).

        A failure is a notice (unless ``quiet``), never an exception: the run
        directories keep the truth, and the next open of the index catches up.
        """
        for attempt in (1, 2):
            if self._memory is not None:
                with self._lock:
                    self._memory.execute(sql, params)
                return ""
            try:
                with closing(self._connect()) as db:
                    db.execute(sql, params)
                return ""
            except sqlite3.DatabaseError as exc:
                if attempt == 1 and self._broken(exc):
                    self._recover(exc, read=False)
                    continue
                reason = fs.trouble(self.path.parent, exc).reason
                if not quiet:
                    log.warning("the run index could not be updated (%s): the run directories"
                                " keep the truth, and the index catches up once it can be"
                                " written", reason)
                return reason
        raise AssertionError("unreachable")

    def _broken(self, exc: sqlite3.DatabaseError) -> bool:
        """The file is corrupt, gone, or has lost its tables: it must be rebuilt."""
        return _corrupt(exc) or "no such table" in str(exc) or not self.path.exists()

    def _recover(self, exc: sqlite3.DatabaseError, read: bool) -> None:
        """After ``exc`` on the file: rebuild it, or (for a reader) use a copy."""
        failure: BaseException = exc
        if self._broken(exc):
            try:
                self._open()
                return
            except (sqlite3.Error, OSError) as again:
                failure = again
        if read:
            self._unavailable(failure)

    def changes(self) -> int:
        """The change counter: it differs from an earlier reading once the tables changed."""
        return int(self.rows(f"SELECT n FROM {COUNTER}")[0][0])

    def check(self) -> str:
        """``PRAGMA quick_check`` of the file (or of the copy, which has its pages):
        "" when sound, else what is wrong."""
        try:
            result = [r[0] for r in self.rows("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return "" if result == ["ok"] else "; ".join(result[:3])

    def repair(self, problem: str) -> None:
        """Set the file aside and rebuild it (after ``check`` found ``problem``)."""
        with self._exclusive():
            self._rebuild(self._set_aside(sqlite3.DatabaseError(problem)))


def _memory() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    return db


def _outdated(db: sqlite3.Connection) -> str:
    """Why the tables of ``db`` must be made afresh ("" if they need not)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < SCHEMA_VERSION:
        return f"was from an older version (schema {version})"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return "" if {*TABLES, COUNTER, SYNCED} <= tables else "had lost its tables"


def _rows_of(db: sqlite3.Connection) -> Rows:
    """Every row of the tables ``db`` has, by table and id."""
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {table: {row["id"]: dict(row) for row in db.execute(f"SELECT * FROM {table}")}
            for table in TABLES if table in have}


def _size(path: Path) -> int:
    """The file's size (0 when it is missing)."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _unindexable(found: list[Finding]) -> str:
    if not found:
        return ""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"{_count(len(found), 'directory', 'directories')} cannot be indexed"
            f" ({first.target}: {first.detail}{more}; see `accelbench doctor`)")


def _private_file(path: Path, mode: int = 0o600) -> None:
    """Create ``path`` with ``mode`` (its owner's only, or also a team store's group's);
    make it (and its -wal, -shm) no more open than that."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, mode))
    for name in (str(path), f"{path}-wal", f"{path}-shm"):
        try:
            st = os.lstat(name)
            if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) != mode:
                os.chmod(name, mode)  # whatever the umask
        except FileNotFoundError:
            pass
        except PermissionError:
            log.warning("%s is readable by others and is not ours to change", name)
