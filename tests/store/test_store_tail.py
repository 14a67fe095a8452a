"""The run store (private directories, SQLite index, id look-up) and the file tail."""

import multiprocessing
import stat

import pytest

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.core.tail import FileTail, Redrawn
from accelbench.engine.store.runs import Store, run_spec

SPEC = spec_from_dict({"name": "t", "workload": "command", "params": {"command": "true"}})


def test_run_dirs_are_private_and_indexed(store):
    info = store.create(SPEC)
    assert stat.S_IMODE(info.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.home.stat().st_mode) == 0o700
    assert (info.dir / "spec.toml").read_text() == SPEC.to_toml()
    assert run_spec(info) == SPEC
    assert [r.id for r in store.list()] == [info.id]
    store.record_end(info.id, "done", RunSummary(samples_per_s=12.5), ended=5.0)
    again = store.get(info.id)
    assert (again.status, again.summary, again.ended, again.final) == (
        "done", RunSummary(samples_per_s=12.5), 5.0, True)


def test_get_by_prefix_or_suffix(store):
    a, b = store.create(SPEC), store.create(SPEC)
    assert store.get(a.id[-4:]).id == a.id
    assert store.get(b.id).id == b.id
    with pytest.raises(UserError, match="ambiguous"):
        store.get(a.id[:8])
    with pytest.raises(UserError, match="no run 'zz'"):
        store.get("zz")


def _create_many(home, n):
    store = Store(home)
    for _ in range(n):
        store.create(SPEC)


def test_concurrent_writers_lose_no_run(home):
    Store(home)
    procs = [multiprocessing.Process(target=_create_many, args=(home, 25)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    runs = Store(home).list()
    assert len(runs) == 75 and len({r.id for r in runs}) == 75
    assert all(r.dir.is_dir() for r in runs)


def test_store_in_unwritable_place_is_a_user_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(UserError, match="cannot use run store"):
        Store(blocker / "home")


def test_tail_holds_partial_lines_and_keeps_a_redrawn_lines_final_state(tmp_path):
    path = tmp_path / "out.log"
    tail = FileTail(path)
    assert tail.read_lines() == [] and not tail.more()
    path.write_bytes(b"one\ntw")
    assert tail.read_lines() == ["one"]
    with open(path, "ab") as f:
        f.write(b"o\n\nbar 10%\rbar 50%\rbar 100%\r\nend")
    assert tail.more()
    assert tail.read_lines() == ["two", "", "bar 100%"]
    assert tail.rest() == ["end"] and tail.rest() == []


def test_tail_gives_the_earlier_states_of_a_redrawn_line_to_parsers_only(tmp_path):
    path = tmp_path / "out.log"
    path.write_bytes(b"a\rb\r\rc\nd\r")
    tail = FileTail(path, redraws=True)
    lines = tail.read_lines(limit=3) + tail.read_lines() + tail.rest()
    assert lines == ["a", "b", "c", "d"]
    assert [type(line) for line in lines] == [Redrawn, Redrawn, str, str]


def test_tail_reads_in_bounded_chunks(tmp_path):
    path = tmp_path / "big.log"
    path.write_text("".join(f"line {i}\n" for i in range(1000)))
    tail = FileTail(path)
    lines = []
    while tail.more():
        lines += tail.read_lines(limit=100)
    assert lines == [f"line {i}" for i in range(1000)]
