"""``accelbench import``: each run of a log people already have becomes a finished run.

The log is read in one streaming pass (``logfile.read_file``); each run's text is
written to its ``output.log`` as the pass goes, then its events are derived like any
run's. (Apart from ``logfile`` so that ``accelbench parse`` loads no store.)
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core import safefile
from accelbench.engine.core.batches import Batch, Rows
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import FINAL_STATUSES
from accelbench.engine.core.job import RunInfo
from accelbench.engine.logs.logfile import Outcome, Reader, read_file
from accelbench.engine.parsers.logclock import IMPORTED, LogClock
from accelbench.engine.plugin import registry
from accelbench.engine.reading import ondisk
from accelbench.engine.run.runner import RunHandle
from accelbench.engine.rundir.files import EXIT_FILE, OUTPUT_FILE, write_json
from accelbench.engine.rundir.records import Launch
from accelbench.engine.store.runs import RunQuery, Store, slug


def system_of(names: list[str]) -> str | None:
    """The accelerator a set of dialects points to, if any does (a system's own dialect)."""
    table = registry.dialect_systems()
    return next((table[name] for name in names if name in table), None)


class _Importer(Reader):
    """Makes each run that has events a finished run in the store, as the pass goes."""

    wants_text = True

    def __init__(self, store: Store, path: Path, accelerator: str | None,
                 content: str = "") -> None:
        self.store, self.path, self.accelerator = store, path, accelerator
        self.content = content  # the file's content hash (``content_hash``), recorded
        self.whole: str | None = None  # the accelerator the whole file points to
        self.runs: list = []
        self._file: tempfile._TemporaryFileWrapper | None = None
        self._dialects: list[str] = []
        self._events = False
        self._clock = LogClock()  # the run's own timestamps, for its duration

    def file(self, dialects: list[str]) -> None:
        self.whole = system_of(dialects)

    def begin(self, run_id: str, dialects: list[str]) -> None:
        self._dialects, self._events, self._clock = dialects, False, LogClock()
        self._file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in end()
            "w", encoding="utf-8", dir=self.store.home, prefix=".import-", delete=False)

    def text(self, text: str) -> None:
        assert self._file is not None
        self._file.write(text)
        self._clock.text(text)

    def batch(self, batch: Batch) -> None:
        """(Whether the run has events: its Rows need not be made events to say.)"""
        self._events = self._events or any(
            any(cls.kind != "log" for cls, _ in item.kinds) if isinstance(item, Rows)
            else item.kind != "log" for item in batch)

    def end(self, title: str, outcome: Outcome) -> None:
        assert self._file is not None
        self._file.close()
        try:
            if self._events and outcome.status in FINAL_STATUSES:  # (not a Slurm table's
                self._keep(title, outcome, Path(self._file.name))  # live job, nor partition)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._file.name)

    def _keep(self, title: str, outcome: Outcome, output: Path) -> None:
        path = self.path
        system = self.accelerator or system_of(self._dialects) or self.whole or "cpu"
        spec = spec_from_dict({"name": slug(title or path.stem), "workload": IMPORTED,
                               "accelerator": system, "telemetry_interval": 0,
                               "params": {"source": str(path.resolve()), "section": title,
                                          "dialects": ",".join(self._dialects),
                                          "sha256": self.content}},
                              source=str(path))
        info = self.store.create(spec)
        os.replace(output, info.path(OUTPUT_FILE))
        Launch(dialects=list(self._dialects)).write(info.dir)
        span = self._clock.span or outcome.span
        write_json(info.path(EXIT_FILE), _exit(outcome, span, info.created, path))
        handle = RunHandle(self.store, info)
        handle.fold()
        self.runs.append(handle.info)


def content_hash(path: Path) -> str:
    """The SHA-256 of what importing ``path`` reads: a file's bytes (as ``sha256sum`` gives
    it), or for a run directory that of its structured files' names and SHA-256s; "" for
    what has no fixed content (a pipe) or cannot be read (its reading says why)."""
    if not path.is_dir():
        return _sha256(path)
    sums = {file: _sha256(file) for file in ondisk.run_files(path) or ()}
    if not sums or "" in sums.values():
        return ""
    text = "".join(f"{file.relative_to(path)}\0{digest}\n" for file, digest in sums.items())
    return hashlib.sha256(text.encode(errors="surrogateescape")).hexdigest()


def _sha256(file: Path) -> str:
    """The SHA-256 of a regular file's bytes, "" for anything else or an unreadable one."""
    try:
        if safefile.irregular(file) is not None:
            return ""
        with safefile.opened(file) as data:
            return hashlib.file_digest(data, "sha256").hexdigest()
    except (OSError, UserError):
        return ""


def imported_before(store: Store, content: str) -> list[str]:
    """The ids of the runs imported from a file of hash ``content`` (none for "")."""
    if not content:
        return []
    return [info.id for info in store.list(query=RunQuery(workload=IMPORTED))
            if info.params.get("sha256") == content]


def import_file(store: Store, path: str | Path, dialect: str = "auto",
                accelerator: str | None = None, content: str = "") -> list[RunInfo]:
    """Each run of a log that holds figures becomes a finished run in ``store``.

    The run's text is its ``output.log`` and its dialects are recorded, so its events
    are derived like any run's; the accelerator is ``accelerator`` or the one the
    dialects point to (the file's, for a section that only has Trainer output); ``content``
    (the file's ``content_hash``) is recorded with each run, to know the file again.
    """
    path = Path(path)
    importer = _Importer(store, path, accelerator, content)
    try:
        read_file(path, importer, dialect)
    finally:  # (a file found damaged halfway: the run begun is dropped)
        if importer._file is not None and not importer._file.closed:
            importer._file.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(importer._file.name)
    if not importer.runs:
        raise UserError(f"{path}: no section holds a log accelbench can read",
                        hint="name the dialect with --dialect (accelbench parse --help)")
    return importer.runs


@dataclass
class Imported:
    """What importing a path did: the runs it made, and each file it could not read with
    the reason (one line each)."""

    runs: list = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    before: list[tuple[Path, list[str]]] = field(default_factory=list)  # (file, its runs)


def import_path(store: Store, path: str | Path, dialect: str = "auto",
                accelerator: str | None = None, again: bool = False) -> Imported:
    """``import_file`` of a file, or of each run under a directory (itself too): each run
    directory (``reading.ondisk.run_files``: its structured files, one run) and each other
    file, as a log; a file is read once however it is reached (links), and binary files
    that are not event files or ``.gz`` logs are passed over (listed in ``skipped``). A
    file whose content was imported before is left as it was (listed in ``before`` with its
    runs) unless ``again``."""
    path = Path(path)
    done = Imported()
    if not path.is_dir():
        _one(store, path, dialect, accelerator, done, again, whole=True)
        return done
    seen: set[tuple[int, int]] = set()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        here = Path(root)
        members = ondisk.run_files(here) or []
        if [member for member in members if _first(member, seen)]:
            _one(store, here, dialect, accelerator, done, again)  # (its runs/ folder: taken)
        for name in sorted(files):
            file = here / name
            if not _first(file, seen):
                continue
            try:
                kind = safefile.irregular(file)
            except OSError as exc:
                kind = f"cannot read: {exc.strerror}"
            if kind is not None:  # (a FIFO would hang, a device never end)
                done.skipped.append((file, f"{kind}, not a regular file"))
                continue
            if _binary(file):
                done.skipped.append((file, "binary, not a log"))
                continue
            _one(store, file, dialect, accelerator, done, again)
    return done


def _one(store: Store, path: Path, dialect: str, accelerator: str | None, done: Imported,
         again: bool, whole: bool = False) -> None:
    """Import the file or run directory ``path`` into ``done`` unless imported before (or
    ``again``); a file it cannot read is skipped with the reason, unless it is the ``whole``
    import (then its ``UserError`` is the command's)."""
    content = content_hash(path)
    known = [] if again else imported_before(store, content)
    if known:
        done.before.append((path, known))
        return
    try:
        done.runs += import_file(store, path, dialect, accelerator, content)
    except UserError as exc:
        if whole:
            raise
        reason = str(exc).removeprefix(f"{path}: ").removeprefix(f"{path.resolve()}: ")
        done.skipped.append((path, reason))


def _first(path: Path, seen: set[tuple[int, int]]) -> bool:
    """Whether ``path`` is a file not seen before (noting it: links to one file count once)."""
    try:
        st = path.stat()
    except OSError:
        return True  # (its reading says why)
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True


def _binary(path: Path) -> bool:
    """A file with a NUL in its first 8 KiB (a ``.gz`` file: of its text; a ``.tar.gz`` is
    binary), but an event file."""
    if ondisk.kind(path):
        return False
    try:
        with (gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")) as f:
            return b"\0" in f.read(8192)
    except (OSError, EOFError, zlib.error):
        return False  # (its reading says why)


def _exit(outcome: Outcome, span: float, created: float, path: Path) -> dict:
    """The exit record of an imported run: how its log says it ended, when (``span``,
    its own timestamps' span, after ``created``) and with which exit code."""
    if outcome.failure:
        detail = outcome.failure.message
    elif outcome.status == "done":
        detail = f"imported from {path.name}"
    else:
        detail = f"its log ({path.name}) shows neither success nor failure"
    code = 0 if outcome.status == "done" and outcome.exit_code is None else outcome.exit_code
    return {"status": outcome.status, "returncode": code, "started": created,
            "ended": created + span, "detail": detail}
