"""The run store: one private directory per run, and an SQLite index of runs.

The files in a run's directory are the truth (spec, raw output, telemetry, exit
status); the index (WAL mode, safe for several processes) is a fast catalogue
that any reader can bring up to date from those files.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import UserError
from engine.events import FINAL_STATUSES
from engine.spec import JobSpec, spec_from_dict

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

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    name TEXT NOT NULL,
    workload TEXT NOT NULL,
    accelerator TEXT NOT NULL,
    launcher TEXT NOT NULL,
    status TEXT NOT NULL,
    ended REAL,
    params TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '{}',
    experiment TEXT,
    variant TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS experiments (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    total INTEGER NOT NULL,
    ended REAL
);
"""
_ADDED_COLUMNS = {"experiment": "TEXT", "variant": "TEXT NOT NULL DEFAULT '{}'"}


def default_home() -> Path:
    """``$ACCELBENCH_HOME``, else the platform's per-user data directory."""
    env = os.environ.get("ACCELBENCH_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("accelbench", appauthor=False))


@dataclass
class RunInfo:
    """One row of the index: a run's identity, status and summary figures."""

    id: str
    dir: Path
    created: float
    name: str
    workload: str
    accelerator: str
    launcher: str
    status: str
    ended: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    experiment: str | None = None  # the experiment (sweep) the run belongs to
    variant: dict[str, Any] = field(default_factory=dict)  # the values its sweep set
    reason: str = ""  # why a reader found the run ``unreadable`` (never recorded)

    @property
    def final(self) -> bool:
        """True once the run has ended, one way or another."""
        return self.status in FINAL_STATUSES

    def path(self, name: str) -> Path:
        """A file in the run's directory."""
        return self.dir / name

    def spec(self) -> JobSpec:
        """The spec the run was started with."""
        import tomllib

        return spec_from_dict(tomllib.loads(self.path(SPEC_FILE).read_text()),
                              source=str(self.path(SPEC_FILE)))


def read_json(path: Path) -> dict[str, Any] | None:
    """A small JSON file's content, or None while it is missing or half-written."""
    try:
        return json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write a small JSON file atomically (readers never see half of it)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


class Store:
    """Runs under ``home``: ``home/runs/<id>/`` plus ``home/index.sqlite``."""

    def __init__(self, home: Path | str | None = None) -> None:
        self.home = Path(home) if home else default_home()
        self.runs_dir = self.home / "runs"
        try:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            os.chmod(self.home, 0o700)
            os.chmod(self.runs_dir, 0o700)
        except OSError as exc:
            raise UserError(f"cannot use run store {self.home}: {exc.strerror}",
                            hint="set ACCELBENCH_HOME to a writable directory") from None
        self.experiments_dir = self.home / "experiments"
        self._db = self.home / "index.sqlite"
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            have = {row["name"] for row in db.execute("PRAGMA table_info(runs)")}
            for column, kind in _ADDED_COLUMNS.items():  # an index made by an older version
                if column not in have:
                    db.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")
            db.commit()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self._db, timeout=30)
        db.row_factory = sqlite3.Row
        return db

    def create(self, spec: JobSpec, experiment: str | None = None,
               variant: dict[str, Any] | None = None) -> RunInfo:
        """Make a new run's directory and index row (status ``queued``)."""
        now = time.time()
        run_id, run_dir = _new_dir(self.runs_dir, spec.name, now)
        (run_dir / SPEC_FILE).write_text(spec.to_toml())
        (run_dir / OUTPUT_FILE).touch()
        info = RunInfo(id=run_id, dir=run_dir, created=now, name=spec.name,
                       workload=spec.workload, accelerator=spec.accelerator,
                       launcher=spec.launcher, status="queued", params=dict(spec.params),
                       experiment=experiment, variant=dict(variant or {}))
        write_json(run_dir / META_FILE, {"id": run_id, "created": now, "experiment": experiment,
                                         "variant": info.variant})
        with closing(self._connect()) as db:
            db.execute(
                "INSERT INTO runs (id, created, name, workload, accelerator, launcher, status,"
                " params, experiment, variant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, now, spec.name, spec.workload, spec.accelerator, spec.launcher,
                 "queued", json.dumps(info.params), experiment, json.dumps(info.variant)))
            db.commit()
        return info

    def create_experiment(self, name: str, total: int) -> ExperimentInfo:
        """Make a new experiment's directory and index row (status ``running``)."""
        now = time.time()
        self.experiments_dir.mkdir(mode=0o700, exist_ok=True)
        exp_id, exp_dir = _new_dir(self.experiments_dir, name, now)
        with closing(self._connect()) as db:
            db.execute("INSERT INTO experiments (id, created, name, status, total)"
                       " VALUES (?, ?, ?, ?, ?)", (exp_id, now, name, "running", total))
            db.commit()
        return ExperimentInfo(exp_id, exp_dir, now, name, "running", total)

    def update_experiment(self, exp_id: str, status: str, ended: float | None = None) -> None:
        """Record an experiment's new status."""
        with closing(self._connect()) as db:
            db.execute("UPDATE experiments SET status = ?, ended = COALESCE(?, ended)"
                       " WHERE id = ?", (status, ended, exp_id))
            db.commit()

    def experiments(self) -> list[ExperimentInfo]:
        """Experiments, newest first."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM experiments ORDER BY created DESC").fetchall()
        return [self._experiment(row) for row in rows]

    def get_experiment(self, ref: str) -> ExperimentInfo:
        """The experiment with id (or unique id prefix/suffix) ``ref``, else the newest one
        named ``ref``."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM experiments WHERE id = ? OR id LIKE ? ESCAPE '\\'"
                              " OR id LIKE ? ESCAPE '\\' OR name = ? ORDER BY created DESC",
                              (ref, _like(ref) + "%", "%" + _like(ref), ref)).fetchall()
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
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM runs WHERE experiment = ? ORDER BY created",
                              (exp_id,)).fetchall()
        return [self._info(row) for row in rows]

    def remove_experiment(self, exp_id: str) -> None:
        """Delete an experiment's record (its runs are removed one by one with ``remove``)."""
        shutil.rmtree(self.experiments_dir / exp_id, ignore_errors=True)
        with closing(self._connect()) as db:
            db.execute("DELETE FROM experiments WHERE id = ?", (exp_id,))
            db.commit()

    def update(self, run_id: str, status: str, summary: dict[str, Any] | None = None,
               ended: float | None = None) -> None:
        """Record a run's new status (and, when it ends, its summary)."""
        with closing(self._connect()) as db:
            db.execute("UPDATE runs SET status = ?, summary = COALESCE(?, summary),"
                       " ended = COALESCE(?, ended) WHERE id = ?",
                       (status, None if summary is None else json.dumps(summary), ended, run_id))
            db.commit()

    def remove(self, run_id: str) -> None:
        """Delete a run: its directory and its index row."""
        shutil.rmtree(self.runs_dir / run_id, ignore_errors=True)
        with closing(self._connect()) as db:
            db.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            db.commit()

    def list(self, limit: int | None = None) -> list[RunInfo]:
        """Runs, newest first."""
        sql = "SELECT * FROM runs ORDER BY created DESC" + (" LIMIT ?" if limit else "")
        with closing(self._connect()) as db:
            rows = db.execute(sql, (limit,) if limit else ()).fetchall()
        return [self._info(row) for row in rows]

    def get(self, ref: str) -> RunInfo:
        """The run whose id is ``ref``, or the one run whose id starts or ends with it."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\'"
                              " OR id LIKE ? ESCAPE '\\'",
                              (ref, _like(ref) + "%", "%" + _like(ref))).fetchall()
        exact = [r for r in rows if r["id"] == ref]
        if exact or len(rows) == 1:
            return self._info((exact or rows)[0])
        if not rows:
            raise UserError(f"no run {ref!r} in {self.home}", hint="run `accelbench runs` to list runs")
        raise UserError(f"run {ref!r} is ambiguous: {len(rows)} runs match",
                        hint="give more of the id: " + ", ".join(r["id"] for r in rows[:3]))

    def _info(self, row: sqlite3.Row) -> RunInfo:
        return RunInfo(id=row["id"], dir=self.runs_dir / row["id"], created=row["created"],
                       name=row["name"], workload=row["workload"],
                       accelerator=row["accelerator"], launcher=row["launcher"],
                       status=row["status"], ended=row["ended"],
                       params=json.loads(row["params"]), summary=json.loads(row["summary"]),
                       experiment=row["experiment"], variant=json.loads(row["variant"]))

    def _experiment(self, row: sqlite3.Row) -> ExperimentInfo:
        return ExperimentInfo(row["id"], self.experiments_dir / row["id"], row["created"],
                              row["name"], row["status"], row["total"], row["ended"])


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
