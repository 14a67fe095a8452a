"""``accelbench doctor``: it finds what differs between the index and the run directories,
stale temporary files and runs whose processes vanished; ``--dry-run`` only reports."""

import json
import os
import shutil
import sqlite3
import time

from accelbench.engine.rundir.files import EXIT_FILE, WRAPPER_FILE, write_json
from accelbench.engine.store.runs import Store
from tests.helpers import SPEC, accelbench, real_runs

DEAD_PID = 4_000_000  # above pid_max: no process has it


def troubled_store(home):
    """A store with one problem of each kind the doctor repairs; returns the run ids."""
    store = Store(home)
    unindexed, orphan, stale, vanished = (store.create(SPEC) for _ in range(4))
    with sqlite3.connect(home / "index.sqlite") as db:
        db.execute("DELETE FROM runs WHERE id = ?", (unindexed.id,))
    os.utime(unindexed.dir, (1, 1))  # not a directory still being made
    shutil.rmtree(orphan.dir)
    write_json(stale.path(EXIT_FILE), {"status": "done", "returncode": 0, "ended": 5.0})
    temp = stale.path(f".{EXIT_FILE}.{DEAD_PID}.tmp")
    temp.write_text("")
    os.utime(temp, (time.time() - 3600,) * 2)
    write_json(vanished.path(WRAPPER_FILE), {"pid": DEAD_PID, "host": os.uname().nodename,
                                             "started": time.time() - 100})
    return {"unindexed": unindexed.id, "orphan": orphan.id, "stale": stale.id,
            "vanished": vanished.id, "temp": temp}


def test_dry_run_reports_every_problem_and_changes_nothing(home):
    ids = troubled_store(home)
    index = (home / "index.sqlite").read_bytes()
    out = accelbench("doctor", "--dry-run")
    assert out.returncode == 1 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert set(lines[:-1]) == {
        f"found: runs/{ids['orphan']}: an index row whose directory is gone",
        f"found: runs/{ids['unindexed']}: a directory missing from the index",
        f"found: runs/{ids['stale']}: the index says queued, exit.json says done",
        f"found: runs/{ids['vanished']}: queued in the index, but its process is gone",
        (f"found: runs/{ids['stale']}/.exit.json.{DEAD_PID}.tmp: a temporary file left by a"
         " process that is gone")}
    assert lines[-1] == f"{home}: 5 problems found, 0 fixed, 5 remain (dry run)"
    assert (home / "index.sqlite").read_bytes() == index and ids["temp"].exists()
    assert not (home / "runs" / ids["vanished"] / EXIT_FILE).exists()


def test_doctor_repairs_then_finds_the_store_healthy(home):
    ids = troubled_store(home)
    out = accelbench("doctor", "--json")
    assert out.returncode == 0 and out.stderr == ""
    report = json.loads(out.stdout)
    assert report["healthy"] and {f["kind"] for f in report["findings"]} == {
        "orphan_row", "missing_row", "status", "vanished", "temp_file"}
    assert all(f["fixed"] for f in report["findings"])
    assert not ids["temp"].exists()
    statuses = {r.id: r.status for r in Store(home).list()}
    assert statuses == {ids["unindexed"]: "queued", ids["stale"]: "done",
                        ids["vanished"]: "lost"}
    out = accelbench("doctor")
    assert (out.returncode, out.stdout) == (0, f"{home}: healthy\n")


def test_doctor_rebuilds_a_corrupt_index_and_keeps_it_aside(home):
    before = real_runs()
    (home / "index.sqlite").write_bytes(b"not a database" * 1000)
    out = accelbench("doctor")
    assert out.returncode == 0 and out.stdout.startswith(
        "fixed: index.sqlite: the run index was unreadable (file is not a database); kept as"
        " index.sqlite.corrupt-")
    assert json.loads(accelbench("runs", "--format", "json").stdout) == before


def test_what_doctor_cannot_repair_leaves_a_nonzero_exit(home):
    Store(home)
    broken = home / "runs" / "20200101-000000-broken-abcdef"
    broken.mkdir()
    os.utime(broken, (1, 1))
    out = accelbench("doctor")
    assert out.returncode == 1 and out.stdout.splitlines() == [
        f"found: runs/{broken.name}: meta.json is missing or unreadable",
        f"{home}: 1 problem found, 0 fixed, 1 remain"]
