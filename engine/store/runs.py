"""The run store: one private directory per run, and an SQLite index of runs.

The files in a run's directory are the truth (spec, raw output, telemetry, exit
status, and ``summary.json`` once it has ended); the index (``engine.store.index``) is a
fast catalogue rebuilt from those files whenever it is missing, unreadable or old.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import secrets
import shutil
import sqlite3
import stat
import time
import tomllib
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core import fs, safefile
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import FINAL_STATUSES
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.plugin.launcher import launchers
from accelbench.engine.rundir.files import (
    END_FILE,
    META_FILE,
    OUTPUT_FILE,
    PLAN_FILE,
    SPEC_FILE,
    SUMMARY_FILE,
    write_json,
)
from accelbench.engine.store.index import FIGURES, LIVE, SYNCED, Finding, Index, Rows

YOUNG_S = 60.0  # a directory younger than this without its files is still being made
SETTLED_NS = 2_000_000_000  # a directory's mtime this old is not that of a change going on
log = logging.getLogger(__name__)


def default_home() -> Path:
    """``$ACCELBENCH_HOME``, else the platform's per-user data directory."""
    env = os.environ.get("ACCELBENCH_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("accelbench", appauthor=False))


def run_spec(run: RunInfo) -> JobSpec:
    """The spec ``run`` was started with (its ``spec.toml``)."""
    return spec_from_dict(tomllib.loads(safefile.read_text(run.path(SPEC_FILE))),
                          source=str(run.path(SPEC_FILE)))


class Store:
    """Runs under ``home``: ``home/runs/<id>/`` plus ``home/index.sqlite``.

    ``writable=False`` opens the index as a read-only copy (what ``doctor --dry-run``
    looks at); a store whose index cannot be written is opened so anyway.
    """

    def __init__(self, home: Path | str | None = None, writable: bool = True) -> None:
        self.home = Path(home) if home else default_home()
        self.runs_dir = self.home / "runs"
        self.experiments_dir = self.home / "experiments"
        self.team = False  # a team store: see ``_store_mode``
        if writable:
            self.team = _private_dirs(self.home, self.runs_dir)
        elif self.home.is_dir():
            self.team = _store_mode(self.home, self.runs_dir, self.home / "index.sqlite")
        self._index = Index(self.home / "index.sqlite", self._sync, writable,
                            0o660 if self.team else 0o600)

    @property
    def readonly(self) -> str:
        """Why the index is not written ("" while it is)."""
        return self._index.readonly

    @property
    def readonly_hint(self) -> str:
        """What to do about the index not being written."""
        return self._index.hint

    @property
    def findings(self) -> list[Finding]:
        """What opening the index found (and repaired, if it is written)."""
        return self._index.findings

    def changes(self) -> int:
        """A number that changes whenever a run or experiment is added, updated or removed
        in the index (a reader that polls reloads only when it differs)."""
        return self._index.changes()

    def _rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        """The index's rows ``sql`` selects, but those whose id is not one (``valid_id``):
        an index others can write may hold ``../../x``."""
        rows = self._index.rows(sql, params)
        bad = [row["id"] for row in rows if not valid_id(row["id"])]
        if bad:
            log.warning("the index of %s holds %d row(s) whose id is not a run id (%r):"
                        " left out", self.home, len(bad), bad[0])
        return [row for row in rows if valid_id(row["id"])]

    def check_index(self) -> str:
        """What is wrong inside the index file ("" when it is sound)."""
        return self._index.check()

    def repair_index(self, problem: str) -> None:
        """Set the index file aside and rebuild it from the directories."""
        self._index.repair(problem)

    def _sync(self, db: sqlite3.Connection, previous: Rows | None) -> list[Finding]:
        """Bring the index's rows in line with the run and experiment directories."""
        return (_sync_table(db, "runs", self.runs_dir, _run_row, previous)
                + _sync_table(db, "experiments", self.experiments_dir, _experiment_row,
                              previous))

    def create(self, spec: JobSpec, experiment: str | None = None,
               variant: dict[str, Any] | None = None) -> RunInfo:
        """Make a new run's directory and index row (status ``queued``)."""
        from accelbench.engine.rundir.records import RunMeta  # (it reads through this module)

        self._writable("start a run")
        now = time.time()
        run_id, run_dir = self._make_dir(self.runs_dir, spec.name, now, "start a run")
        info = RunInfo(id=run_id, dir=run_dir, created=now, name=spec.name,
                       workload=spec.workload, accelerator=spec.accelerator,
                       launcher=spec.launcher, status="queued", params=dict(spec.params),
                       experiment=experiment, variant=dict(variant or {}))
        try:
            (run_dir / SPEC_FILE).write_text(spec.to_toml())
            (run_dir / OUTPUT_FILE).touch()
            RunMeta(run_id, now, experiment, info.variant).write(run_dir)
        except OSError as exc:
            self._abandon(run_dir, "start a run", exc)
        self._insert(run_dir, "start a run", "INSERT OR REPLACE INTO runs (id, created, name,"
                     " workload, accelerator, launcher, status, params, experiment, variant)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (run_id, now, spec.name, spec.workload, spec.accelerator, spec.launcher,
                      "queued", _dumps(info.params), experiment, _dumps(info.variant)))
        return info

    def create_experiment(self, name: str, total: int) -> ExperimentInfo:
        """Make a new experiment's directory and index row (status ``running``)."""
        self._writable("start an experiment")
        now = time.time()
        exp_id, exp_dir = self._make_dir(self.experiments_dir, name, now, "start an experiment")
        try:
            write_json(exp_dir / META_FILE, {"id": exp_id, "created": now, "name": name,
                                             "total": total})
        except OSError as exc:
            self._abandon(exp_dir, "start an experiment", exc)
        self._insert(exp_dir, "start an experiment", "INSERT OR REPLACE INTO experiments"
                     " (id, created, name, status, total) VALUES (?, ?, ?, ?, ?)",
                     (exp_id, now, name, "running", total))
        return ExperimentInfo(exp_id, exp_dir, now, name, "running", total)

    def _writable(self, what: str) -> None:
        if self.readonly:
            raise UserError(f"cannot {what}: the run store {self.home} cannot be written"
                            f" ({self.readonly})", hint=self.readonly_hint)

    def _make_dir(self, parent: Path, name: str, now: float, what: str) -> tuple[str, Path]:
        try:
            _make_dirs(parent, 0o2770 if self.team else 0o700)
            return _new_dir(parent, name, now)
        except OSError as exc:
            raise _write_error(parent, f"cannot {what}", exc) from None

    def _abandon(self, made: Path, what: str, exc: OSError) -> None:
        """Remove a directory being made, and raise why it could not be."""
        shutil.rmtree(made, ignore_errors=True)
        raise _write_error(made, f"cannot {what}", exc) from None

    def _insert(self, made: Path, what: str, sql: str, params: tuple) -> None:
        if why := self._index.write(sql, params, quiet=True):
            shutil.rmtree(made, ignore_errors=True)
            raise UserError(f"cannot {what}: the run index cannot be written ({why})",
                            hint=fs.trouble(made.parent).hint)

    def update_experiment(self, exp_id: str, status: str, ended: float | None = None) -> None:
        """Record an experiment's new status."""
        self._index.write("UPDATE experiments SET status = ?, ended = COALESCE(?, ended)"
                          " WHERE id = ?", (status, ended, exp_id))

    def experiments(self) -> list[ExperimentInfo]:
        """Experiments, newest first."""
        rows = self._rows("SELECT * FROM experiments ORDER BY created DESC")
        return [self._experiment(row) for row in rows]

    def get_experiment(self, ref: str) -> ExperimentInfo:
        """The experiment with id (or unique id prefix/suffix) ``ref``, else the newest one
        named ``ref``."""
        _require_ref(ref, "experiment")
        rows = self._rows("SELECT * FROM experiments WHERE id = ? OR id LIKE ? ESCAPE"
                                " '\\' OR id LIKE ? ESCAPE '\\' OR name = ? ORDER BY created"
                                " DESC", (ref, _like(ref) + "%", "%" + _like(ref), ref))
        exact = [r for r in rows if r["id"] == ref] or [r for r in rows if r["name"] == ref]
        if exact or len(rows) == 1:
            return self._experiment((exact or rows)[0])
        if not rows:
            raise UserError(f"no experiment {ref!r} in {self.home}",
                            hint="run `accelbench runs --experiments` to list them")
        raise UserError(f"experiment {ref!r} is ambiguous: {len(rows)} match",
                        hint="give more of the id: " + ", ".join(r["id"] for r in rows[:3]))

    def experiment_runs(self, exp_id: str) -> list[RunInfo]:
        """An experiment's runs, in the order they were started."""
        rows = self._rows("SELECT * FROM runs WHERE experiment = ? ORDER BY created",
                                (exp_id,))
        return [self._info(row) for row in rows]

    def remove_experiment(self, exp_id: str) -> None:
        """Delete an experiment's record (its runs are removed one by one with ``remove``)."""
        _delete_dir(_dir_of(self.experiments_dir, exp_id))
        self._index.write("DELETE FROM experiments WHERE id = ?", (exp_id,))

    def update(self, run_id: str, status: str) -> None:
        """Record a run's new status in the index (its end: :meth:`record_end`)."""
        self._index.write("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))

    def record_end(self, run_id: str, status: str, summary: RunSummary,
                   ended: float | None) -> None:
        """Record how a run ended: ``summary.json`` in its directory (which a rebuilt index
        reads), then its index row."""
        path = _dir_of(self.runs_dir, run_id) / SUMMARY_FILE
        data = summary.to_dict()
        try:
            write_json(path, {"status": status, "ended": ended, "summary": data})
        except (OSError, ValueError) as exc:
            log.warning("cannot write %s (%s)", path, getattr(exc, "strerror", None) or exc)
        self._index.write("UPDATE runs SET status = ?, summary = ?, ended = COALESCE(?, ended)"
                          " WHERE id = ?", (status, _dumps(data), ended, run_id))

    def remove(self, run_id: str) -> None:
        """Delete a run: its directory, then its index row (a row that cannot be deleted
        now, on a full disk, goes when the index is next brought in line)."""
        _delete_dir(_dir_of(self.runs_dir, run_id))
        self._index.write("DELETE FROM runs WHERE id = ?", (run_id,))

    def list(self, limit: int | None = None, query: RunQuery | None = None,
             order: RunOrder | None = None, offset: int = 0) -> list[RunInfo]:
        """The runs ``query`` selects (every one by default) in ``order`` (newest first by
        default): ``limit`` of them from the ``offset``-th on (every one when no limit)."""
        where, params = (query or RunQuery()).where()
        sql = f"SELECT * FROM runs{where} ORDER BY {(order or RunOrder()).sql()}"
        if limit or offset:
            sql += " LIMIT ? OFFSET ?"
            params += (limit or -1, offset)
        return [self._info(row) for row in self._rows(sql, params)]

    def count(self, query: RunQuery | None = None) -> int:
        """How many runs ``query`` selects (every one by default)."""
        where, params = (query or RunQuery()).where()
        return int(self._index.rows(f"SELECT COUNT(*) FROM runs{where}", params)[0][0])

    def get(self, ref: str) -> RunInfo:
        """The run whose id is ``ref``, or the one run whose id starts or ends with it."""
        _require_ref(ref, "run")
        exact = self._rows("SELECT * FROM runs WHERE id = ?", (ref,))
        if exact:  # the primary key: no scan of the index
            return self._info(exact[0])
        rows = self._rows("SELECT * FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\'"
                                " OR id LIKE ? ESCAPE '\\'",
                                (ref, _like(ref) + "%", "%" + _like(ref)))
        exact = [r for r in rows if r["id"] == ref]
        if exact or len(rows) == 1:
            return self._info((exact or rows)[0])
        if not rows:
            raise UserError(f"no run {ref!r} in {self.home}",
                            hint="run `accelbench runs` to list runs")
        raise UserError(f"run {ref!r} is ambiguous: {len(rows)} runs match",
                        hint="give more of the id: " + ", ".join(r["id"] for r in rows[:3]))

    def _info(self, row: sqlite3.Row) -> RunInfo:
        return RunInfo(id=row["id"], dir=_dir_of(self.runs_dir, row["id"]), created=row["created"],
                       name=row["name"], workload=row["workload"],
                       accelerator=row["accelerator"], launcher=row["launcher"],
                       status=row["status"], ended=row["ended"],
                       params=json.loads(row["params"]),
                       summary=RunSummary.from_dict(json.loads(row["summary"])),
                       experiment=row["experiment"], variant=json.loads(row["variant"]))

    def _experiment(self, row: sqlite3.Row) -> ExperimentInfo:
        return ExperimentInfo(row["id"], _dir_of(self.experiments_dir, row["id"]), row["created"],
                              row["name"], row["status"], row["total"], row["ended"])


@dataclass(frozen=True)
class RunQuery:
    """Which runs a listing holds: those matching every field that is set."""

    status: tuple[str, ...] = ()  # any of these statuses
    accelerator: str | None = None
    workload: str | None = None
    experiment: str | None = None  # an experiment's id
    since: float | None = None  # started at or after this time (seconds since the epoch)
    unfinished: bool = False  # only runs whose end the index has not recorded
    ids: tuple[str, ...] | None = None  # only these runs

    def where(self) -> tuple[str, tuple]:
        """The SQL ``WHERE`` clause (with its leading space; "" for every run) and its
        parameters."""
        terms: list[str] = []
        params: list[Any] = []
        for column in ("accelerator", "workload", "experiment"):
            if (value := getattr(self, column)) is not None:
                terms.append(f"{column} = ?")
                params.append(value)
        if self.status:
            terms.append(f"status IN ({', '.join('?' * len(self.status))})")
            params += self.status
        if self.unfinished:
            terms.append(f"status NOT IN ({', '.join('?' * len(FINAL_STATUSES))})")
            params += FINAL_STATUSES
        if self.since is not None:
            terms.append("created >= ?")
            params.append(self.since)
        if self.ids is not None:
            terms.append(f"id IN ({', '.join('?' * len(self.ids))})")
            params += self.ids
        return (" WHERE " + " AND ".join(terms) if terms else ""), tuple(params)


SORTS = ("created", "status", "id", "workload", "accelerator", "knobs", *FIGURES)
"""What runs can be sorted by: columns of the index (``knobs``: ``view.model.key_params``)."""


@dataclass(frozen=True)
class RunOrder:
    """The order of a listing: by one of ``SORTS`` either way (ties: by start time the
    same way; runs that lack a figure last), live runs first if ``live_first``. Every
    order is read through an index of its own, however many runs there are."""

    by: str = "created"
    descending: bool = True
    live_first: bool = False

    def __post_init__(self) -> None:
        if self.by not in SORTS:
            raise ValueError(f"runs cannot be sorted by {self.by!r}")

    def sql(self) -> str:
        """The SQL ``ORDER BY`` terms."""
        way = " DESC" if self.descending else ""
        terms = [f"status IN {LIVE} DESC"] if self.live_first else []
        terms += [f"{self.by} IS NULL"] if self.by in FIGURES else []
        terms.append(f"{self.by}{way}")
        unique = self.by in ("created", "id")  # else ties: by start time
        return ", ".join(terms + ([] if unique else [f"created{way}"]))


@dataclass
class ExperimentInfo:
    """One experiment (the runs of one sweep): identity, status, number of variants."""

    id: str
    dir: Path
    created: float
    name: str
    status: str
    total: int
    ended: float | None = None

    @property
    def final(self) -> bool:
        """True once the experiment has ended."""
        return self.status in FINAL_STATUSES

    def path(self, name: str) -> Path:
        """A file in the experiment's directory."""
        return self.dir / name


def _private_dirs(home: Path, runs_dir: Path) -> bool:
    """Make the store's directories, private (0700; a team store's: its group's too), and
    say whether it is a team store (``_store_mode``, which refuses a store others could
    turn against its user); an existing home is used as is, with a warning when others
    can read it."""
    try:
        made = _make_dirs(home)
    except OSError as exc:
        raise UserError(f"cannot use run store {home}: {exc.strerror}",
                        hint="set ACCELBENCH_HOME to a writable directory") from None
    if not home.is_dir():
        raise UserError(f"cannot use run store {home}: not a directory",
                        hint="set ACCELBENCH_HOME to a directory")
    team = _store_mode(home, runs_dir, home / "index.sqlite")
    mode = stat.S_IMODE(home.stat().st_mode)
    if not made and not team and mode & 0o044:
        log.warning("the run store %s can be read by other users (mode %o): it is used as is;"
                    " the runs in it stay private", home, mode)
    with suppress(OSError):  # a store that cannot be written: opening its index tells why
        _make_dirs(runs_dir, 0o2770 if team else 0o700)
    return team


TEAM_HINT = ("keep the store to yourself (chmod go-w DIR), or make it a team store:"
             " chgrp TEAM HOME && chmod 2770 HOME (group-writable, setgid, nobody else)")


def _store_mode(home: Path, runs_dir: Path, index: Path) -> bool:
    """Whether ``home`` is a team store, shared by the Unix users of one group: writable
    by its group, with the setgid bit (what it holds stays the group's), by no one else.

    A ``UserError`` says why a store is refused: writable by every user, or by a group
    without being a team store; its runs directory or index a symlink, or (but in a team
    store) another user's. A team store is safe by construction against its other
    members: ids are checked (``valid_id``), run files are read as regular files only
    (``engine.core.safefile``), and no one writes in a directory another user owns."""
    top = home.stat()
    team = bool(top.st_mode & stat.S_ISGID and top.st_mode & 0o020)
    me = os.geteuid()
    for path in (home, runs_dir, index):
        try:
            st = top if path == home else path.lstat()
        except FileNotFoundError:
            continue
        mode, why = stat.S_IMODE(st.st_mode), ""
        if stat.S_ISLNK(st.st_mode):
            why = "is a symlink"
        elif mode & 0o002:
            why = f"can be written by every user (mode {mode:o})"
        elif mode & 0o020 and not team:
            why = f"can be written by its group without being a team store (mode {mode:o})"
        elif st.st_uid != me and not team:
            why = f"belongs to another user (uid {st.st_uid})"
        elif team and st.st_gid != top.st_gid:
            why = f"belongs to another group (gid {st.st_gid}) than the team store's"
        if why:
            raise UserError(f"cannot use run store {home}: {path} {why}: refused, as others"
                            " could turn it against you", hint=TEAM_HINT)
    return team


def _make_dirs(path: Path, mode: int = 0o700) -> bool:
    """Make ``path`` and its missing parents with ``mode``; True if it was missing."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for new in reversed(missing):
        try:
            new.mkdir(mode=mode)
        except FileExistsError:
            continue  # made by another process meanwhile
        new.chmod(mode)  # whatever the umask
    return bool(missing)


ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def valid_id(text: Any) -> bool:
    """``text`` is a run (or experiment) id: a name in its store's directory, never a path
    out of it (what every id read from an index or a directory is checked to be)."""
    return isinstance(text, str) and ID.fullmatch(text) is not None


def _dir_of(parent: Path, run_id: str) -> Path:
    """The directory of the run (or experiment) ``run_id`` under ``parent``; a
    ``UserError`` if ``run_id`` is no id (``valid_id``)."""
    if not valid_id(run_id):
        raise UserError(f"{run_id!r} is not a run id: refused",
                        hint="only letters, digits, '.', '_' and '-'; see `accelbench doctor`")
    return parent / run_id


def _require_ref(ref: str, what: str) -> None:
    if not ref.strip():  # '' is a prefix of every id
        raise UserError(f"no {what} id given: an empty id would match every {what}",
                        hint=f"give the id of one {what} (see `accelbench runs"
                             f"{' --experiments' if what == 'experiment' else ''}`)")


def _delete_dir(path: Path) -> None:
    """Delete a directory tree; a ``UserError`` if it stays."""
    try:
        shutil.rmtree(path)
    except OSError as exc:
        if path.exists():
            raise _write_error(path, f"cannot delete {path}", exc) from None


def _write_error(path: Path, what: str, exc: BaseException) -> UserError:
    reason, hint = fs.trouble(path, exc)
    return UserError(f"{what}: {reason}", hint=hint)


def _dumps(value: Any) -> str:
    """``value`` as the index's JSON: NaN and infinities as null (SQLite's JSON functions
    reject them; the run's own files keep them)."""
    return json.dumps(_finite(value), default=str)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


Reader = Callable[[Path, "dict[str, Any] | None"], "dict[str, Any] | str | None"]


def _sync_table(db: sqlite3.Connection, table: str, parent: Path, reader: Reader,
                previous: Rows | None) -> list[Finding]:
    """Delete the rows of ``table`` whose directory under ``parent`` is gone, and add the
    rows (read by ``reader``) of the directories it lacks: every one when the table is
    being rebuilt (``previous``: its old rows), else those old enough not to be still
    in the making (their row follows within moments). Nothing is listed when neither
    ``parent`` (its mtime) nor the table (its row count) changed since the last time."""
    mtime = _mtime(parent)
    rows = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    if previous is None and mtime is not None and db.execute(
            f"SELECT 1 FROM {SYNCED} WHERE name = ? AND mtime = ? AND rows = ?",
            (table, mtime, rows)).fetchone():
        return []
    dirs = _dir_names(parent)
    if dirs is None:
        return []
    have = {row[0] for row in db.execute(f"SELECT id FROM {table}")}
    found = []
    for gone in sorted(have - dirs):
        db.execute(f"DELETE FROM {table} WHERE id = ?", (gone,))
        found.append(Finding("orphan_row", f"{parent.name}/{gone}",
                             "an index row whose directory is gone"))
    making = False  # a directory left out while it is being made
    for new in sorted(dirs - have):
        if previous is None and _young(parent / new):
            making = True
            continue
        row = reader(parent / new, previous.get(table, {}).get(new) if previous else None)
        if isinstance(row, dict):
            db.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(row)}) VALUES"
                       f" ({', '.join('?' * len(row))})", tuple(row.values()))
            found.append(Finding("missing_row", f"{parent.name}/{new}",
                                 "a directory missing from the index"))
        elif row:
            found.append(Finding("unindexable", f"{parent.name}/{new}", row))
            making = True  # looked at again next time (it may be repaired)
    # an mtime of the last moments may not change again for an entry added within them
    if mtime is not None and not making and time.time_ns() - mtime > SETTLED_NS:
        db.execute(f"INSERT OR REPLACE INTO {SYNCED} VALUES (?, ?, ?)", (
            table, mtime, db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]))
    return found


def _mtime(path: Path) -> int | None:
    """``path``'s modification time in nanoseconds (None if it cannot be read)."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _dir_names(parent: Path) -> set[str] | None:
    """The directories in ``parent`` (none if it is missing; None if it cannot be read)."""
    try:
        with os.scandir(parent) as entries:
            return {e.name for e in entries
                    if valid_id(e.name) and e.is_dir(follow_symlinks=False)}
    except FileNotFoundError:
        return set()
    except OSError:
        return None


def _run_row(run_dir: Path, previous: dict[str, Any] | None) -> dict[str, Any] | str | None:
    """A run's index row, read from its directory (``previous``: its row in an index being
    rebuilt, for the end of a run that has no ``summary.json``); else why it cannot be
    read, or None while the directory is being made."""
    from accelbench.engine.rundir.records import RunMeta  # (it reads through this module)

    data = _read(run_dir / META_FILE, json.loads)
    spec = _read(run_dir / SPEC_FILE, tomllib.loads)
    for name, content in ((META_FILE, data), (SPEC_FILE, spec)):
        if not isinstance(content, dict):
            return None if _young(run_dir) else f"{name} is missing or unreadable"
    try:
        meta = RunMeta.from_dict(data)
    except ValueError as exc:
        return f"{META_FILE}: {exc}"
    row = {"id": run_dir.name, "created": meta.created,
           "name": _text(spec.get("name"), run_dir.name),
           "workload": _text(spec.get("workload"), ""),
           "accelerator": _text(spec.get("accelerator"), JobSpec.accelerator),
           "launcher": _text(spec.get("launcher"), JobSpec.launcher),
           "status": "queued",  # until a reader brings it up to date from the run's files
           "ended": None, "params": _dumps(_mapping(spec.get("params"))), "summary": "{}",
           "experiment": meta.experiment, "variant": _dumps(meta.variant)}
    if row["launcher"] not in launchers():
        return f"{SPEC_FILE} names an unknown launcher {row['launcher']!r}"
    end = _read(run_dir / SUMMARY_FILE, json.loads)
    if isinstance(end, dict) and end.get("status") in FINAL_STATUSES:
        row.update(status=end["status"],
                   summary=_dumps(RunSummary.from_dict(end.get("summary")).to_dict()),
                   ended=end["ended"] if _number(end.get("ended")) else None)
    elif previous and previous.get("status") in FINAL_STATUSES:
        row.update({key: previous.get(key) for key in ("status", "summary", "ended")})
    return row


def _experiment_row(exp_dir: Path, previous: dict[str, Any] | None
                    ) -> dict[str, Any] | str | None:
    """An experiment's index row, read from its directory (see ``_run_row``)."""
    meta, plan = _read(exp_dir / META_FILE, json.loads), _read(exp_dir / PLAN_FILE, json.loads)
    if isinstance(meta, dict) and _number(meta.get("created")):
        created, name, total = meta["created"], meta.get("name"), meta.get("total")
    elif isinstance(plan, dict) and isinstance(plan.get("spec"), dict):
        spec = plan["spec"]  # an experiment made before meta.json: its plan says as much
        sweep = _mapping(spec.get("sweep"))
        created = (exp_dir / PLAN_FILE).stat().st_mtime
        name = sweep.get("experiment") or spec.get("name")
        total = len(plan["variants"]) if isinstance(plan.get("variants"), list) else 0
    else:
        return None if _young(exp_dir) else f"{META_FILE} and {PLAN_FILE} are missing or unreadable"
    row = {"id": exp_dir.name, "created": created, "name": _text(name, exp_dir.name),
           "status": "running",  # until a reader looks at its driver
           "total": total if isinstance(total, int) else 0, "ended": None}
    end = _read(exp_dir / END_FILE, json.loads)
    if isinstance(end, dict) and end.get("status") in FINAL_STATUSES:
        row.update(status=end["status"], ended=end["ended"] if _number(end.get("ended")) else None)
    elif previous and previous.get("status") in FINAL_STATUSES:
        row.update(status=previous["status"], ended=previous.get("ended"))
    return row


def _read(path: Path, parse: Callable[[str], Any]) -> Any:
    """A small file parsed, or None if it cannot be read or parsed."""
    try:
        return parse(safefile.read_text(path))
    except (OSError, ValueError, RecursionError):
        return None


def _young(path: Path) -> bool:
    """``path`` is being made (or is already gone)."""
    try:
        return time.time() - path.stat().st_mtime < YOUNG_S
    except FileNotFoundError:
        return True


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) else default


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _new_dir(parent: Path, name: str, now: float) -> tuple[str, Path]:
    """A fresh private directory ``<date-time>-<name>-<random>`` under ``parent``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    while True:  # the directory is the lock: another process may pick the same id
        new_id = f"{stamp}-{slug(name)}-{secrets.token_hex(3)}"
        try:
            (parent / new_id).mkdir(mode=0o700)
            return new_id, parent / new_id
        except FileExistsError:
            continue


def slug(text: str, limit: int = 40) -> str:
    """``text`` made safe for a run id: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:limit].rstrip("-.") or "run"


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
