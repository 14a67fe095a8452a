"""The index is a catalogue of the run directories: rebuilt when missing, corrupt or old,
read as a copy when it cannot be written (full disk, read-only file system), private
(0600), and never matched by an empty id. Issue #10, items 3 (index), 4 and 11."""

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import time
from contextlib import closing

import psutil
import pytest

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.summary import Ending, RunSummary
from accelbench.engine.run.runner import Runner
from accelbench.engine.rundir.files import (
    EXIT_FILE,
    SUMMARY_FILE,
    WRAPPER_FILE,
    read_json,
    write_json,
)
from accelbench.engine.store.index import SCHEMA_VERSION
from accelbench.engine.store.runs import Store
from tests.helpers import SPEC, accelbench, listing, real_runs


def one_line_notice(stderr, *parts):
    """``stderr`` is notices only, one of them naming all of ``parts``."""
    lines = stderr.splitlines()
    assert "Traceback" not in stderr and all(line.startswith("accelbench: ") for line in lines)
    assert any(all(part in line for part in parts) for line in lines), stderr


# -- item 4: the index is rebuilt from the run directories ---------------------------------

def test_deleted_index_is_rebuilt_with_every_run_and_summary(home):
    before = real_runs()
    assert [r["status"] for r in before] == ["failed", "done"]
    assert before[1]["summary"]["accuracy"] == 91.5
    (home / "index.sqlite").unlink()
    out = accelbench("runs", "--format", "json")
    assert json.loads(out.stdout) == before  # not "0 runs"
    one_line_notice(out.stderr, "the run index was missing", "rebuilt it from 2 run directories")
    assert accelbench("runs", "--format", "json").stderr == ""  # once only


def test_random_bytes_in_the_index_are_set_aside_and_rebuilt(home):
    before = real_runs()
    garbage = os.urandom(50_000)
    (home / "index.sqlite").write_bytes(garbage)
    for command in (["runs", "--format", "json"], ["show", before[0]["id"]]):
        out = accelbench(*command)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert listing() == before
    kept = list(home.glob("index.sqlite.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == garbage


def test_damaged_pages_found_by_a_query_are_rebuilt_at_once(store, caplog):
    for _ in range(40):
        info = store.create(SPEC)
        store.record_end(info.id, "done", RunSummary.from_dict({"note": "x" * 500}), 1.0)
    db = store.home / "index.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    data[4096 * 3:4096 * 5] = os.urandom(8192)  # pages of the runs table, not the header
    db.write_bytes(bytes(data))
    runs = Store(store.home).list()
    assert len(runs) == 40 and all(r.summary.to_dict() == {"note": "x" * 500} for r in runs)
    assert "was unreadable" in caplog.text and list(store.home.glob("index.sqlite.corrupt-*"))


def test_an_index_deleted_while_a_store_is_open_is_rebuilt_on_its_next_use(store):
    info = store.create(SPEC)
    (store.home / "index.sqlite").unlink()
    assert [r.id for r in store.list()] == [info.id]
    store.update(info.id, "running")
    assert Store(store.home).get(info.id).status == "running"


def test_old_schema_is_rebuilt_keeping_the_summaries_it_had(home):
    store = Store(home)
    done = store.create(SPEC)
    (home / "index.sqlite").unlink()
    with sqlite3.connect(home / "index.sqlite") as db:  # as made before experiments existed
        db.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, created REAL NOT NULL, name TEXT"
                   " NOT NULL, workload TEXT NOT NULL, accelerator TEXT NOT NULL, launcher TEXT"
                   " NOT NULL, status TEXT NOT NULL, ended REAL, params TEXT NOT NULL, summary"
                   " TEXT NOT NULL DEFAULT '{}')")
        db.execute("INSERT INTO runs VALUES (?, 1, 't', 'command', 'cpu', 'local', 'done', 7,"
                   " '{}', '{\"accuracy\": 90}')", (done.id,))
    again = Store(home).get(done.id)
    assert (again.status, again.summary, again.ended) == ("done", RunSummary(accuracy=90), 7)
    with sqlite3.connect(home / "index.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_experiments_are_rebuilt_from_their_directories(store):
    exp = store.create_experiment("lr-sweep", 2)
    write_json(exp.path("end.json"), {"status": "done", "ended": 9.0})
    legacy = store.experiments_dir / "20200101-000000-old-abcdef"  # made before meta.json
    legacy.mkdir()
    write_json(legacy / "plan.json", {"spec": {"name": "old", "sweep": {"experiment": "bs"}},
                                      "variants": [{}, {}, {}]})
    (store.home / "index.sqlite").unlink()
    found = {e.id: (e.name, e.status, e.total, e.ended) for e in Store(store.home).experiments()}
    assert found == {exp.id: ("lr-sweep", "done", 2, 9.0), legacy.name: ("bs", "running", 3, None)}


def test_runs_with_no_row_or_no_directory_are_caught_up_on_open(store, caplog):
    kept, gone = store.create(SPEC), store.create(SPEC)
    with sqlite3.connect(store.home / "index.sqlite") as db:
        db.execute("DELETE FROM runs WHERE id = ?", (kept.id,))
    os.utime(kept.dir, (1, 1))  # not a directory still being made
    shutil.rmtree(gone.dir)
    assert [r.id for r in Store(store.home).list()] == [kept.id]
    assert ("added 1 directory it lacked and dropped 1 row whose directory is gone"
            in caplog.text)


def test_a_directory_being_made_is_left_alone_and_an_old_broken_one_is_reported(store, caplog):
    making = store.create(SPEC)  # as if its row were not written yet: another process
    with sqlite3.connect(store.home / "index.sqlite") as db:  # is making it
        db.execute("DELETE FROM runs WHERE id = ?", (making.id,))
    broken = store.runs_dir / "20200101-000000-broken-abcdef"
    broken.mkdir()
    (broken / "spec.toml").write_text("not [ toml")
    os.utime(broken, (1, 1))
    assert Store(store.home).list() == []
    assert caplog.text.count("cannot be indexed") == 1
    assert "runs/20200101-000000-broken-abcdef: meta.json is missing or unreadable" in caplog.text


def test_concurrent_openers_of_a_deleted_index_rebuild_it_once(home):
    store = Store(home)
    ids = {store.create(SPEC).id for _ in range(20)}
    (home / "index.sqlite").unlink()
    code = ("import sys; from accelbench.engine.store.runs import Store;"
            " print(len(Store(sys.argv[1]).list()))")
    procs = [subprocess.Popen([os.sys.executable, "-c", code, str(home)], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
             for _ in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [out.strip() for out, _ in results] == ["20"] * 4
    assert all("Traceback" not in err for _, err in results)
    assert {r.id for r in Store(home).list()} == ids


def test_the_end_of_a_run_is_kept_in_its_directory(store):
    info = store.create(SPEC)
    store.record_end(info.id, "failed", RunSummary(ending=Ending(3)), 4.0)
    assert json.loads(info.path(SUMMARY_FILE).read_text()) == {
        "status": "failed", "ended": 4.0, "summary": {"exit_code": 3}}


# -- item 3: an index that cannot be written -----------------------------------------------

class _FullDisk:
    """A connection whose writes fail as on a full disk."""

    def __init__(self, db):
        object.__setattr__(self, "_db", db)

    def __setattr__(self, name, value):
        setattr(self._db, name, value)

    def execute(self, sql, params=()):
        if sql.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE", "BEGIN"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self._db, name)


def test_a_failed_status_update_does_not_stop_a_reader(store, monkeypatch, caplog):
    info = store.create(SPEC)
    write_json(info.path(EXIT_FILE), {"status": "done", "returncode": 0, "ended": 5.0})
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: _FullDisk(connect(*a, **k)))
    [listed] = Runner(store).runs()
    assert listed.status == "done"  # from the run's files, though the index kept "queued"
    assert "the run index could not be updated (no space left" in caplog.text
    assert json.loads(info.path(SUMMARY_FILE).read_text())["status"] == "done"
    monkeypatch.setattr(sqlite3, "connect", connect)
    (store.home / "index.sqlite").unlink()  # a rebuild finds the end in summary.json
    assert Store(store.home).get(info.id).status == "done"


def test_an_index_that_cannot_be_opened_for_writing_is_read_as_a_copy(store, monkeypatch,
                                                                      caplog):
    info = store.create(SPEC)
    store.record_end(info.id, "done", RunSummary(accuracy=1.0), 2.0)
    connect = sqlite3.connect

    def refuse(target, *args, **kwargs):
        if "mode=rw" in str(target):
            raise sqlite3.OperationalError("disk I/O error")
        return connect(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", refuse)
    copy = Store(store.home)
    assert copy.readonly and [r.summary for r in copy.list()] == [RunSummary(accuracy=1.0)]
    copy.remove(info.id)  # deleting the directory frees space: it must work
    assert not info.dir.exists() and copy.list() == []
    with pytest.raises(UserError, match=r"cannot start a run: the run store .* cannot be"):
        copy.create(SPEC)
    assert caplog.text.count("cannot be written") == 1
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert Store(store.home).list() == []  # the row goes once the index can be written


@pytest.fixture
def small_fs(tmp_path, monkeypatch):
    """A 4 MiB tmpfs as ACCELBENCH_HOME's file system (needs root and mount)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root")
    mnt = tmp_path / "fs"
    mnt.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {out.stderr.strip()}")
    monkeypatch.setenv("ACCELBENCH_HOME", str(mnt / "home"))
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=True)


def fill(mnt):
    """Fill the file system; returns the file that fills it."""
    path = mnt / "filler"
    with open(path, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
        except OSError:
            pass
    return path


def test_full_disk_keeps_runs_show_attach_and_rm_working(small_fs):
    before = real_runs()
    filler = fill(small_fs)
    assert shutil.disk_usage(small_fs).free == 0
    failed, done = before
    for command, shows in ((["runs"], "failed"), (["show", failed["id"]], "job_failed"),
                           (["attach", done["id"], "--json"], '"status":"done"')):
        out = accelbench(*command)
        assert out.returncode == 0 and shows in out.stdout
        one_line_notice(out.stderr, "cannot be written",
                        f"no space left on the file system at {small_fs}")
    assert listing() == before
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set", "command=true")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines()[-2:] == [
        (f"accelbench: error: cannot start a run: the run store {small_fs}/home cannot be"
         f" written (no space left on the file system at {small_fs})"),
        ("hint: free some space there (`accelbench rm RUN`, `accelbench clean --older-than"
         " DAYS`), or set ACCELBENCH_HOME to another file system")]
    out = accelbench("rm", "--yes", before[0]["id"])
    assert out.returncode == 0 and out.stdout == f"removed {before[0]['id']}\n"
    assert not (small_fs / "home" / "runs" / before[0]["id"]).exists()
    assert [r["id"] for r in listing()] == [before[1]["id"]]
    filler.unlink()
    out = accelbench("runs", "--format", "json")
    assert [r["id"] for r in json.loads(out.stdout)] == [before[1]["id"]]
    one_line_notice(out.stderr, "dropped 1 row whose directory is gone")
    assert accelbench("runs").stderr == ""


def test_rm_frees_the_space_a_run_filled_although_its_end_could_not_be_recorded(small_fs):
    out = accelbench("run", "cpu-mnist", "--detach", "--set", "workload=command", "--set",
                     "command=python3 -c \"import os; open(os.path.join(os.environ["
                     "'ACCELBENCH_HOME'], 'runs', os.environ['ACCELBENCH_RUN_ID'], 'big'), 'wb')"
                     ".write(b'0' * 10**8)\"")
    run_id = out.stdout.strip()
    run_dir = small_fs / "home" / "runs" / run_id
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the job fills the disk, then it and its wrapper end
        wrapper = read_json(run_dir / WRAPPER_FILE)
        if wrapper and not psutil.pid_exists(wrapper["pid"]):
            break
        time.sleep(0.2)
    assert shutil.disk_usage(small_fs).free == 0
    out = accelbench("rm", "--yes", run_id)
    assert (out.returncode, out.stdout) == (0, f"removed {run_id}\n"), out.stderr
    one_line_notice(out.stderr, "no space left on the file system at")
    assert shutil.disk_usage(small_fs).free > 3_000_000 and not run_dir.exists()
    assert listing() == []


def test_full_disk_with_the_index_deleted_still_lists_every_run(small_fs):
    before = real_runs()
    (small_fs / "home" / "index.sqlite").unlink()
    fill(small_fs)
    out = accelbench("runs", "--format", "json")
    assert json.loads(out.stdout) == before
    one_line_notice(out.stderr, "the run index was missing", "not saved")


def test_read_only_file_system_lists_and_refuses_changes_in_one_line(small_fs):
    before = real_runs()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    out = accelbench("runs", "--format", "json")
    assert json.loads(out.stdout) == before
    one_line_notice(out.stderr, f"the file system at {small_fs} is read-only")
    assert accelbench("show", before[0]["id"]).returncode == 0
    out = accelbench("rm", "--yes", before[0]["id"])
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (f"error: cannot delete {small_fs}/home/runs/{before[0]['id']}: the file system at"
            f" {small_fs} is read-only") in out.stderr


# -- item 11: modes, and ids that match everything ------------------------------------------

def test_an_existing_home_others_can_write_is_refused(tmp_path, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # anyone may plant an index or a runs directory there (issue 22)
    with pytest.raises(UserError, match=r"shared can be written by every user \(mode 1777\):"
                                        " refused"):
        Store(shared)
    assert not (shared / "runs").exists() and not (shared / "index.sqlite").exists()
    shared.chmod(0o755)  # readable by others: used as is, with a warning
    Store(shared).create(SPEC)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert stat.S_IMODE((shared / "runs").stat().st_mode) == 0o700
    assert "can be read by other users (mode 755): it is used as is" in caplog.text
    caplog.clear()
    Store(tmp_path / "new" / "home")
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new" / "home").stat().st_mode) == 0o700
    assert caplog.text == ""


def test_index_files_are_private(store):
    index = store.home / "index.sqlite"
    names = [index, index.with_name("index.sqlite-wal"), index.with_name("index.sqlite-shm")]
    with closing(sqlite3.connect(index)) as reader:  # keeps the -wal and -shm while looking
        reader.execute("SELECT count(*) FROM runs").fetchone()
        store.create(SPEC)
        assert [stat.S_IMODE(p.stat().st_mode) for p in names] == [0o600] * 3
    index.chmod(0o644)  # as made by an older version
    Store(store.home)
    assert stat.S_IMODE(index.stat().st_mode) == 0o600


@pytest.mark.parametrize("ref", ["", " ", "\t"])
def test_an_empty_id_matches_nothing(store, ref):
    store.create(SPEC)
    store.create_experiment("e", 1)
    with pytest.raises(UserError, match="no run id given"):
        store.get(ref)
    with pytest.raises(UserError, match="no experiment id given"):
        store.get_experiment(ref)


def test_rm_of_an_empty_id_deletes_nothing(home):
    [run] = real_runs(codes=(0,))
    for ref in ("", "  "):
        out = accelbench("rm", ref)
        assert out.returncode == 2 and out.stderr.startswith(
            "accelbench: error: no run id given: an empty id would match every run\n")
    assert listing() == [run]



def test_the_change_counter_moves_with_every_write_and_only_then(store):
    """What the app's runs screen polls to know whether to reload."""
    info = store.create(SPEC)
    exp = store.create_experiment("e", 1)
    writes = [lambda: store.update(info.id, "running"),
              lambda: store.record_end(info.id, "done", RunSummary(accuracy=1.0), time.time()),
              lambda: store.update_experiment(exp.id, "done"),
              lambda: store.remove(info.id)]
    for write in writes:
        before = store.changes()
        store.list(), store.get(info.id), store.count(), store.experiments()
        assert store.changes() == before  # reads change nothing
        write()
        assert store.changes() > before
    assert Store(store.home).changes() == store.changes()  # opening in line changes nothing


def test_opening_lists_the_run_directories_only_when_they_or_the_index_changed(home,
                                                                                monkeypatch):
    """A store opened again, with nothing added or removed, costs no listing of its
    directories (however many runs it holds); a new directory, or a row gone from the
    index, is seen at the next open."""
    from accelbench.engine.store import runs as store_module

    settled = time.time() - 100  # as if made a while ago (a fresh mtime is not trusted)
    store = Store(home)
    old = store.create(SPEC)
    for path in (store.runs_dir, store.experiments_dir):
        path.mkdir(exist_ok=True)
        os.utime(path, (settled, settled))
    listed: list[str] = []
    names = store_module._dir_names
    monkeypatch.setattr(store_module, "_dir_names",
                        lambda parent: listed.append(parent.name) or names(parent))
    Store(home)
    assert listed == ["runs", "experiments"]  # the first time since the change: listed
    listed.clear()
    assert [i.id for i in Store(home).list()] == [old.id]
    assert listed == []
    made = store.runs_dir / "20200101-000000-made-by-hand"  # an old run copied in by hand
    shutil.copytree(old.dir, made)
    os.utime(made, (settled, settled))
    os.utime(store.runs_dir, (settled + 1, settled + 1))
    assert {i.id for i in Store(home).list()} == {old.id, made.name}
    assert listed == ["runs"]
    with closing(sqlite3.connect(home / "index.sqlite")) as db, db:
        db.execute("DELETE FROM runs WHERE id = ?", (made.name,))
    assert {i.id for i in Store(home).list()} == {old.id, made.name}  # the row counted


def test_a_run_whose_figures_are_nan_is_indexed(tmp_path, caplog):
    """SQLite's JSON functions reject NaN: the index stores it as null (no warning, the run
    listed); the run's own summary keeps it."""
    from accelbench.engine.logs.importer import import_file

    log = tmp_path / "nan.log"
    log.write_text("2024-03-30 13:00:00,000 INFO:   | Train Device=CSX, Step=1, Loss=nan,"
                   " Rate=1.0 samples/sec, GlobalRate=1.0 samples/sec\n")
    store = Store(tmp_path / "home")
    with caplog.at_level("WARNING"):
        [info] = import_file(store, log)
    assert not [r for r in caplog.records if "index" in r.getMessage()]
    assert [run.id for run in store.list()] == [info.id]
    assert "NaN" in info.path("summary.json").read_text()
