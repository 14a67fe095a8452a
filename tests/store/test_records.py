"""Typed records: exit.json (ExitRecord), state.jsonl (the journal), the run summary
(RunSummary); and a store written by the previous version, which reads the same."""

import json
import shutil

import pytest

from accelbench.engine.core.events import Diagnosis, Metric, Phase, Throughput
from accelbench.engine.core.summary import MEAN_THROUGHPUT, Ending, RunSummary, canonical
from accelbench.engine.plugin.registry import metric_aliases
from accelbench.engine.run.state import RunState
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.exitfile import ExitRecord, read_exit, recorded, reserve, write_exit
from accelbench.engine.rundir.files import EXIT_FILE, STATE_FILE
from tests.helpers import FIXTURES, accelbench

OLD = FIXTURES / "old_layout"
OLD_EXITS = json.loads((OLD / "exit_records.json").read_text())


@pytest.mark.parametrize("name", sorted(OLD_EXITS))
def test_every_exit_record_the_previous_version_wrote_reads_back_whole(tmp_path, name):
    old = OLD_EXITS[name]
    (tmp_path / EXIT_FILE).write_text(json.dumps(old))
    record = read_exit(tmp_path / EXIT_FILE)
    assert record.to_dict() == old
    write_exit(tmp_path / "again.json", record)
    assert json.loads((tmp_path / "again.json").read_text()) == old


def test_exit_record_round_trip_and_the_reservation_is_no_record(tmp_path):
    path = tmp_path / EXIT_FILE
    reserve(path)
    assert read_exit(path) is None and not recorded(path)
    record = ExitRecord("failed", -9, 1.0, 2.5, "SIGKILL", detail="killed")
    write_exit(path, record)
    assert read_exit(path) == record and recorded(path)
    assert json.loads(path.read_text()) == {"status": "failed", "returncode": -9, "started": 1.0,
                                            "ended": 2.5, "signal": "SIGKILL", "detail": "killed"}


@pytest.mark.parametrize(("content", "why"), [
    ('{"status": "done", "returncode": "0"}', "exit.returncode: expected an integer"),
    ('{"status": "done", "returncode": 0, "ended": "soon"}', "exit.ended: expected a finite"),
    ('{"status": "done", "returncode": 0, "ended": NaN}', "exit.ended: expected a finite"),
    ('{"status": "done", "returncode": 0, "signal": 9}', "exit.signal: expected a string"),
    ('{"status": "done", "returncode": 0, "disk_full": true}', "exit.disk_full: expected an"),
    ('{"status": "done", "returncode": 0, "colour": "red"}', "exit: unknown field(s) 'colour'"),
    ('{"returncode": 0}', "exit: missing field 'status'"),
    ('[1, 2]', "not an object"),
])
def test_a_damaged_exit_record_is_refused_naming_the_field(tmp_path, content, why):
    path = tmp_path / EXIT_FILE
    path.write_text(content)
    with pytest.raises(ValueError, match=r"^exit\.json: not an exit record: ") as caught:
        read_exit(path)
    assert why in str(caught.value)
    assert recorded(path)  # what is there is never written over by a launcher


def test_journal_appends_events_skipping_a_repeat_and_reads_old_lines_the_same(tmp_path):
    run = tmp_path / "20260101-000000-r-abc"
    run.mkdir()
    (run / STATE_FILE).write_text(  # as the previous version wrote them
        '{"t": 1.5, "phase": "queued", "detail": "PENDING (Priority)"}\n'
        '{"t": 2.0, "diagnosis": "slurm_unreachable", "message": "m", "hint": "h"}\n'
        "garbage\n")
    queued = Phase(run.name, 3.0, "queued", "PENDING (Priority)")
    journal.append(run, queued)  # not a repeat: the last entry is the diagnosis
    journal.append(run, Phase(run.name, 4.0, "queued", "PENDING (Priority)"))  # a repeat
    died = Diagnosis(run.name, 5.0, "wrapper_died", "w")
    journal.append(run, died, once=True)
    journal.append(run, Phase(run.name, 6.0, "running", "RUNNING on n1"))
    journal.append(run, Diagnosis(run.name, 7.0, "wrapper_died", "w"), once=True)  # noted once
    assert journal.read(run) == [
        Phase(run.name, 1.5, "queued", "PENDING (Priority)"),
        Diagnosis(run.name, 2.0, "slurm_unreachable", "m", "h"),
        queued, died, Phase(run.name, 6.0, "running", "RUNNING on n1")]
    assert json.loads((run / STATE_FILE).read_text().splitlines()[3])["type"] == "phase"
    assert journal.parse("other", '{"type": "log", "run_id": "x", "ts": 1, "stream": "stdout",'
                                   ' "text": "t"}') is None  # not a journal entry


def test_canonical_figures_come_from_one_alias_table_in_its_order():
    metrics = {"loss": 0.5, "train_loss": 0.7, "e2e_train_time": 9.0, "test_loss": 1.0}
    assert canonical(metrics, metric_aliases()) == {"train_time_s": (9.0, "e2e_train_time"),
                                  "final_loss": (0.7, "train_loss"),
                                  "eval_loss": (1.0, "test_loss")}
    assert canonical({"GlobalRate": 42.0}, {"GlobalRate": "samples_per_s"}) == {
        "samples_per_s": (42.0, "GlobalRate")}  # another table (a system's aliases)


def test_samples_per_s_says_how_it_was_measured():
    state = RunState("r")
    for ts, rate in ((1.0, 100.0), (2.0, 300.0)):
        state.feed(Throughput("r", ts, rate))
    summary = state.summary()
    assert (summary.samples_per_s, summary.samples_per_s_source) == (200.0, MEAN_THROUGHPUT)
    state.feed(Metric("r", 3.0, "training_samples_per_second", 55.5))
    summary = state.summary()
    assert (summary.samples_per_s, summary.samples_per_s_source) == (
        55.5, "training_samples_per_second")
    assert summary.to_dict()["samples_per_s_source"] == "training_samples_per_second"


def test_run_summary_round_trip_keeps_what_it_does_not_know_and_takes_no_bad_figure():
    summary = RunSummary(samples_per_s=1.5, steps=3, metrics={"loss": 0.1},
                         ending=Ending(None, log_tail=["boom"]))
    data = summary.to_dict()
    assert data == {"samples_per_s": 1.5, "steps": 3, "metrics": {"loss": 0.1},
                    "exit_code": None, "log_tail": ["boom"]}
    assert RunSummary.from_dict(data) == summary
    damaged = {"accuracy": "high", "steps": 2.5, "metrics": {"loss": "x"}, "note": 1}
    read = RunSummary.from_dict(damaged)
    assert (read.accuracy, read.steps, read.metrics) == (None, None, None)
    assert read.to_dict() == damaged  # nothing lost
    assert RunSummary.from_dict([1]) == RunSummary() and RunSummary().to_dict() == {}


def _old_store(tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(OLD / "home", home)
    monkeypatch.setenv("ACCELBENCH_HOME", str(home))
    return home, sorted(p.name for p in (home / "runs").iterdir())


def test_a_store_written_by_the_previous_version_reads_the_same(tmp_path, monkeypatch):
    home, ids = _old_store(tmp_path, monkeypatch)
    for summary in (home / "runs").glob("*/summary.json"):
        end = json.loads(summary.read_text())
        assert RunSummary.from_dict(end["summary"]).to_dict() == end["summary"]
    for name, args in (("runs.json", ("runs", "--format", "json")),
                       ("compare.json", ("compare", *ids, "--format", "json")),
                       ("compare.csv", ("compare", *ids, "--format", "csv"))):
        out = accelbench(*args)
        assert out.returncode == 0, out.stderr
        assert out.stdout == (OLD / "out" / name).read_text(), name
    (home / "index.sqlite").unlink()  # rebuilt from the run directories: the same
    assert accelbench("runs", "--format", "json").stdout == (OLD / "out" / "runs.json").read_text()


@pytest.mark.parametrize("run", [0, 1])
def test_an_old_runs_events_replay_the_same(tmp_path, monkeypatch, run):
    _, ids = _old_store(tmp_path, monkeypatch)
    out = accelbench("attach", ids[run], "--json")
    assert out.returncode == run, out.stderr  # the second run failed
    events = [json.loads(line) for line in out.stdout.splitlines()]
    old = [json.loads(line) for line in
           (OLD / "out" / f"attach-{ids[run].rsplit('-', 1)[1]}.jsonl").read_text().splitlines()]
    summary, before = events[-1]["summary"], old[-1]["summary"]
    assert summary.pop("samples_per_s_source") == (  # the one field added
        "groq.ips", "training_samples_per_second")[run]
    if run == 0:  # GroqFlow's IPS is a system's alias for samples/s now (the mean before)
        assert (before["samples_per_s"], summary["samples_per_s"]) == (200.0, 1234.5)
        summary["samples_per_s"] = before["samples_per_s"]
    assert events == old
