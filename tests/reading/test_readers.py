"""Readers of the history: listing comes from the index without reading logs, the first
reader of an ended run finalizes it in one streaming pass of bounded memory, and a run
whose files cannot be read is listed ``unreadable`` with the reason, never a traceback."""

from __future__ import annotations

import json
import os
import socket
import time
import tracemalloc

import pytest

from accelbench.cli.main import main
from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.run.runner import Deriver, RunHandle
from accelbench.engine.run.state import SERIES
from accelbench.engine.rundir.files import (
    EXIT_FILE,
    META_FILE,
    OUTPUT_FILE,
    SPEC_FILE,
    WRAPPER_FILE,
    write_json,
)
from tests.helpers import accelbench

SPEC = spec_from_dict({"name": "r", "workload": "command", "params": {"command": "true"},
                       "telemetry_interval": 0})
LINES = 60_000  # of each kind: about 35 MB of output.log
TEXT = "as a training script prints it, " * 12


def _run(store, output: bytes = b"", ended: bool = True, **files: bytes):
    """A run made through the store, its files written directly (``exit_json=...``: the
    content of exit.json, ...)."""
    info = store.create(SPEC)
    info.path(OUTPUT_FILE).write_bytes(output)
    write_json(info.path(WRAPPER_FILE), {"host": socket.gethostname(), "pid": os.getpid(),
                                         "started": time.time(), "job_pid": os.getpid()})
    if ended:
        write_json(info.path(EXIT_FILE), {"status": "done", "returncode": 0,
                                          "ended": time.time()})
    for name, content in files.items():
        info.path(name.replace("_", ".")).write_bytes(content)
    return info


def _big_log(path) -> None:
    with open(path, "w") as f:
        f.writelines(f"plain output line {i} of a long run, {TEXT}\n"
                     '@@accelbench {"type":"metric","t":%d,"name":"loss","value":%r,"step":%d}\n'
                     '@@accelbench {"type":"throughput","t":%d,"samples_per_s":%d}\n'
                     % (1e9 + i, 1 / (i + 1), i, 1e9 + i, i % 1000) for i in range(LINES))


def test_listing_a_live_run_reads_no_log(store, runner, monkeypatch):
    info = _run(store, ended=False)
    _big_log(info.path(OUTPUT_FILE))

    def derive(*args, **kwargs):
        raise AssertionError("a live run's log was derived to list it")
    monkeypatch.setattr(Deriver, "output", derive)
    monkeypatch.setattr(RunHandle, "fold", derive)
    [listed] = runner.runs()
    assert (listed.id, listed.status) == (info.id, "running")
    assert store.get(info.id).status == "running"


def test_the_first_reader_finalizes_an_ended_run_in_bounded_memory(store, runner, monkeypatch):
    info = _run(store, ended=False)
    _big_log(info.path(OUTPUT_FILE))
    size = info.path(OUTPUT_FILE).stat().st_size
    write_json(info.path(EXIT_FILE), {"status": "done", "returncode": 0, "ended": time.time()})
    tracemalloc.start()
    try:
        [listed] = runner.runs()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size > 30e6 and peak < 16e6, (size, peak)  # before: the whole log's events, ~10x
    assert listed.status == "done" and store.get(info.id).status == "done"
    summary = store.get(info.id).summary
    assert summary.samples_per_s == pytest.approx(sum(i % 1000 for i in range(LINES)) / LINES)
    assert summary.final_loss == 1 / LINES
    assert summary.metrics == {"loss": 1 / LINES}

    monkeypatch.setattr(RunHandle, "fold", lambda *a, **k: pytest.fail("finalized twice"))
    assert runner.runs()[0].status == "done"  # recorded: later readers take the index's word


def test_show_streams_a_big_log(store, capsys):
    info = _run(store)
    _big_log(info.path(OUTPUT_FILE))
    tracemalloc.start()
    try:
        assert main(["show", info.id]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out = capsys.readouterr().out
    assert "done" in out and f"plain output line {LINES - 1} " in out
    assert peak < 16e6, peak


def test_state_histories_stay_bounded_and_means_exact(store):
    info = _run(store)
    _big_log(info.path(OUTPUT_FILE))
    state = RunHandle(store, info).fold()
    loss = state.metric_history["loss"]
    assert len(loss) <= SERIES + 1 and len(state.throughput) <= SERIES + 1
    assert loss[0] == (0, 1.0) and loss[-1] == (LINES - 1, 1 / LINES)  # the whole run, evenly
    assert state.samples_per_s() == (LINES - 1) % 1000


def test_a_run_whose_files_cannot_be_read_is_listed_unreadable_and_others_still_are(store):
    good = _run(store, b'@@accelbench {"type":"metric","t":1,"name":"accuracy","value":91.5}\n')
    good.path(SPEC_FILE).write_text("a = " + "[" * 50_000)  # compare falls back on the index
    broken = {
        "exit.json: not an exit record: 'hello'": _run(store, exit_json=b'"hello"'),
        "exit.json: not JSON: ": _run(store, exit_json=b"\x00\xff garbage"),
        "exit.json: not an exit record: {'status': 'exploded'}":
            _run(store, exit_json=b'{"status": "exploded"}'),
        "unknown dialect 'nope'": _run(store, launch_json=b'{"dialects": ["nope"]}'),
    }
    listless = _run(store, meta_json=b"[1]")  # its creation time is the index's then

    out = accelbench("runs", "--format", "json")
    assert out.returncode == 0, out.stderr
    listed = {r["id"]: r for r in json.loads(out.stdout)}
    assert listed[good.id]["status"] == "done" and "reason" not in listed[good.id]
    for reason, info in broken.items():
        assert listed[info.id]["status"] == "unreadable"
        assert listed[info.id]["reason"].startswith(reason), listed[info.id]["reason"]
        assert store.get(info.id).status == "queued"  # a reader's verdict, never recorded
    assert listed[listless.id]["status"] == "done"
    assert f"{listless.path(META_FILE)}: a JSON list, not an object: ignored" in out.stderr
    table = accelbench("runs")
    assert table.returncode == 0 and table.stdout.count("is unreadable: ") == len(broken)

    for reason, info in broken.items():
        shown = accelbench("show", info.id)
        assert shown.returncode == 0, shown.stderr
        assert "".join(f"unreadable: {reason}".split()) in "".join(shown.stdout.split())
        attached = accelbench("attach", info.id, "--json")
        assert attached.returncode == 2 and attached.stderr.startswith(
            f"accelbench: error: run {info.id} is unreadable: {reason}"), attached.stderr
        assert "Traceback" not in attached.stderr
    compared = accelbench("compare", good.id, *(info.id for info in broken.values()))
    assert compared.returncode == 0, compared.stderr
    assert "unreadable" in accelbench("compare", good.id, broken[next(iter(broken))].id,
                                      "--format", "csv").stdout
