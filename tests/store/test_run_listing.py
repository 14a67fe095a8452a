"""``accelbench runs`` at scale: a page of the newest runs with the total count, --all,
--limit, and filters by status, accelerator, workload, experiment and age, all answered by
the index (issue 12, target 2)."""

import json
import sqlite3
import time
from contextlib import closing

import pytest

from accelbench.cli.main import main
from accelbench.engine.store.runs import RunQuery, Store
from tests.helpers import accelbench

HOUR = 3600.0
COUNT = 60


def make_runs(home):
    """``COUNT`` finished runs, run ``i`` started ``i`` and a half hours ago: on cerebras
    when i is odd (else cpu), workload ``imported`` when i % 4 == 0 (else ``command``),
    failed when i % 3 == 0 (else done), the first six in experiment ``sweep-a``. Returns
    their ids, newest first (the index is built from the directories)."""
    now = time.time()
    exp_id = "20200101-000000-sweep-a-abcdef"
    exp_dir = home / "experiments" / exp_id
    exp_dir.mkdir(parents=True)
    (exp_dir / "meta.json").write_text(json.dumps(
        {"id": exp_id, "created": now - COUNT * HOUR, "name": "sweep-a", "total": 6}))
    ids = []
    for i in range(COUNT):
        created = now - (i + 0.5) * HOUR
        run_id = f"{time.strftime('%Y%m%d-%H%M%S', time.localtime(created))}-r{i:02d}-abcdef"
        run_dir = home / "runs" / run_id
        run_dir.mkdir(parents=True)
        (run_dir / "spec.toml").write_text(
            f'name = "r{i:02d}"\nworkload = "{"imported" if i % 4 == 0 else "command"}"\n'
            f'accelerator = "{"cerebras" if i % 2 else "cpu"}"\n')
        (run_dir / "meta.json").write_text(json.dumps(
            {"id": run_id, "created": created, "experiment": exp_id if i < 6 else None,
             "variant": {}}))
        (run_dir / "summary.json").write_text(json.dumps(
            {"status": "failed" if i % 3 == 0 else "done", "ended": created + 10,
             "summary": {"samples_per_s": float(i), "exit_code": 0}}))
        ids.append(run_id)
    return ids


@pytest.fixture
def runs(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # wide enough for the whole ids
    return make_runs(home)


def listed(capsys, *args):
    """The ids ``accelbench runs --format json ARGS`` lists, in its order."""
    assert main(["runs", "--format", "json", *args]) == 0
    return [row["id"] for row in json.loads(capsys.readouterr().out)]


def table(capsys, *args):
    assert main(["runs", *args]) == 0
    return capsys.readouterr().out


def test_the_table_shows_a_page_of_the_newest_runs_with_the_total(runs, capsys):
    out = table(capsys)
    assert "50 of 60 runs; --all for every one" in out
    assert [i for i in runs if i in out] == runs[:50]  # the newest 50, none older
    assert out.index(runs[0]) < out.index(runs[1]) < out.index(runs[49])  # newest first


def test_all_and_limit(runs, capsys):
    out = table(capsys, "--all")
    assert all(i in out for i in runs) and "60 runs (ids start" in out and " of " not in out
    out = table(capsys, "--limit", "3")
    assert [i for i in runs if i in out] == runs[:3] and "3 of 60 runs" in out
    assert listed(capsys, "--limit", "4") == runs[:4]
    assert listed(capsys) == runs  # JSON lists every run unless told otherwise
    with pytest.raises(SystemExit):
        main(["runs", "--limit", "0"])
    assert main(["runs", "--all", "--limit", "5"]) == 2
    assert "--limit N or --all, not both" in capsys.readouterr().err


def test_filters(runs, capsys):
    assert listed(capsys, "--status", "failed") == [r for n, r in enumerate(runs) if n % 3 == 0]
    assert listed(capsys, "--status", "failed,done") == runs
    assert listed(capsys, "--accelerator", "cerebras") == runs[1::2]
    assert listed(capsys, "--workload", "imported") == runs[::4]
    assert listed(capsys, "--experiment", "sweep-a") == runs[:6]
    assert listed(capsys, "--since", "5h") == runs[:5]
    assert listed(capsys, "--since", "2d") == runs[:48]
    assert listed(capsys, "--accelerator", "cpu", "--status", "done", "--since", "12h") == [
        runs[n] for n in (2, 4, 8, 10)]
    assert listed(capsys, "--accelerator", "groq") == []
    out = table(capsys, "--accelerator", "cerebras", "--limit", "2")
    assert "2 of 30 runs" in out and [i for i in runs if i in out] == [runs[1], runs[3]]


@pytest.mark.parametrize("age", ["2x", "h", "-3d", "soon", "nanh", "infd"])
def test_a_bad_age_is_a_clear_error(runs, age):
    out = accelbench("runs", f"--since={age}")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"argument --since: {age!r} is not an age" in out.stderr


def test_store_count_and_list_take_the_same_query(runs, home):
    store = Store(home)
    query = RunQuery(status=("failed",), accelerator="cpu")
    assert store.count() == COUNT and store.count(query) == 10
    assert [i.id for i in store.list(3, query)] == [runs[0], runs[6], runs[12]]


def test_the_listing_reads_the_index_by_its_time_index(runs, home):
    """The newest page comes from an index on the start time, not a scan and a sort."""
    store = Store(home)
    where, params = RunQuery(accelerator="cerebras").where()
    with closing(sqlite3.connect(store.home / "index.sqlite")) as db:
        for sql, args in (("SELECT * FROM runs ORDER BY created DESC LIMIT 50", ()),
                          (f"SELECT * FROM runs{where} ORDER BY created DESC LIMIT 50", params)):
            plan = " ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + sql, args))
            assert "USING INDEX" in plan and "TEMP B-TREE" not in plan, plan


def test_an_index_from_schema_1_is_rebuilt_with_its_indexes(runs, home, capsys):
    Store(home)
    path = home / "index.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP INDEX runs_by_created")
        db.execute("PRAGMA user_version = 1")
        db.commit()
    out = accelbench("runs", "--format", "json", "--limit", "2")
    assert [row["id"] for row in json.loads(out.stdout)] == runs[:2]
    assert "the run index was from an older version (schema 1): rebuilt it" in out.stderr
    with closing(sqlite3.connect(path)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "runs_by_created" in names and listed(capsys) == runs
