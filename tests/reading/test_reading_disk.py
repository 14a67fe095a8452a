"""What GPU users have on disk: TensorBoard event files, trainer_state.json,
trainer_log.jsonl, Lightning's metrics.csv, MLPerf :::MLLOG logs, .gz logs, and
directories of them, through ``parse`` and ``import`` (tests/fixtures/real/ondisk)."""

from __future__ import annotations

import gzip
import struct
import sys
from pathlib import Path

import pytest

from accelbench.engine.core.errors import UserError
from accelbench.engine.logs.importer import import_file, import_path
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.reading import tfevents
from accelbench.engine.run.runner import RunHandle
from tests.helpers import ROOT, accelbench

sys.path.insert(0, str(ROOT / "bench"))
import real_figures  # (bench/: the fixtures as published)

T5_EVENTS = ("runs/Mar24_22-23-40_DESKTOP-41L2EO3/"
             "events.out.tfevents.1742826235.DESKTOP-41L2EO3.107869.0")


def materialise(name: str, dest: Path) -> Path:
    """The fixture ``ondisk/name`` under ``dest`` as its source has it."""
    return real_figures.materialise(f"ondisk/{name}", dest)


def figures(path: Path) -> dict:
    """The last value of each metric, the last progress, the throughputs, the diagnoses."""
    last: dict = {"metrics": {}, "rates": [], "diagnoses": []}
    for section in parse_file(path):
        for e in section.events:
            if e.kind == "metric":
                last["metrics"][e.name] = e.value
            elif e.kind == "progress":
                last["step"], last["total"] = e.step, e.total
            elif e.kind == "throughput":
                last["rates"].append(e.samples_per_s)
            elif e.kind == "diagnosis":
                last["diagnoses"].append(e.code)
    return last


# fixture: (status, step, total, metrics a user reads, samples/s read, duration s)
EXPECTED = {
    "hf_lora_imdb/trainer_state.json": (
        "done", 375, 375, {"loss": 0.349, "eval_loss": 0.3891691565513611,
                           "lr": 8.533333333333334e-06, "grad_norm": 1.1414326429367065}, [], None),
    "hf_tinyllama_checkpoint/trainer_state.json": (
        "ended", 2800, 2808, {"loss": 1.025, "eval_loss": 1.1219322681427002,
                              "best_metric": 1.1219322681427002,
                              "eval_mean_token_accuracy": 0.7508529225795264}, [], None),
    "hf_t5_summarization": (
        "done", 215337, 215337, {"loss": 1.7423, "lr": 7.824944157297631e-08,
                                 "train_loss": 1.8040490566820844,
                                 "eval_loss": 1.6339077, "eval_rouge1": 41.6324,
                                 "train_runtime": 54713.1806}, [15.743],
        1742884204.944011 - 1742826365.0545628),  # its event files' first and last times
    "llamafactory_sft_start/trainer_log.jsonl": (
        "ended", 200, 6566, {"loss": 0.6348, "lr": 9.977352721301929e-06}, [], 50 * 60 + 13),
    "llamafactory_progress_only/trainer_log.jsonl": ("ended", 510, 512, {}, [], 11 * 60 + 8),
    "lightning_glitch/metrics.csv": (
        "ended", 137, 0, {"loss": 0.19502906501293182, "eval_loss": 0.14366206526756287}, [], None),
    "lightning_mnist_epoch/metrics.csv": (
        "ended", 11, 0, {"acc_epoch": 0.53125, "train_loss_epoch": 1.4025089740753174}, [], None),
    "mlperf_dlrm_asus_result_1.txt": (
        "done", None, None, {"accuracy": 0.8029922246932983, "train_samples": 4195197692,
                             "epoch_num": 0.7498978502418643}, [14788774.206692437], 212.733),
    "mlperf_bert_lambda_aborted.log": (
        "failed", None, None, {"accuracy": 0.6973460912704468, "train_samples": 799502},
        [14214.65962521748, 12792.219630021962], None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_gives_the_figures_a_user_reads(name, home, tmp_path):
    from accelbench.engine.store.runs import Store

    status, step, total, metrics, rates, duration = EXPECTED[name]
    path = materialise(name, tmp_path / "in")
    got = figures(path)
    assert got.get("step") == step and got.get("total") == total
    for key, value in metrics.items():
        assert got["metrics"].get(key) == pytest.approx(value, rel=1e-12), key
    for rate in rates:
        assert rate in got["rates"]
    runs = import_file(Store(home), path)
    assert [info.status for info in runs] == [status]
    if duration is not None:
        assert runs[0].summary.duration_s == pytest.approx(duration, abs=1e-3)
    state = RunHandle(Store(home), runs[0]).state()  # derived again from the run's files
    assert state is not None
    for key, value in metrics.items():
        assert state.metrics[key] == pytest.approx(value, rel=1e-12), key


def test_mlperf_eval_accuracy_is_the_runs_accuracy(home, tmp_path):
    """MLPerf's ``eval_accuracy`` is the accuracy figure (the vocabulary's), so the run's
    summary shows the last one."""
    from accelbench.engine.store.runs import Store

    path = materialise("mlperf_dlrm_asus_result_1.txt", tmp_path)
    assert import_file(Store(home), path)[0].summary.accuracy == 0.8029922246932983


def test_the_aborted_mlperf_run_fails_with_its_cause(tmp_path):
    got = figures(materialise("mlperf_bert_lambda_aborted.log", tmp_path))
    assert got["diagnoses"] == ["mlperf_aborted"]


def test_a_gz_log_reads_as_the_plain_one(home, tmp_path):
    from accelbench.engine.store.runs import Store

    plain = materialise("mlperf_dlrm_asus_result_1.txt", tmp_path)
    packed = tmp_path / "result_1.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    events = [[(e.kind, getattr(e, "name", ""), getattr(e, "value", None)) for s in
               parse_file(p) for e in s.events] for p in (plain, packed)]
    assert events[0] == events[1] and len(events[0]) > 20
    runs = [import_file(Store(home), p)[0] for p in (plain, packed)]
    assert [r.status for r in runs] == ["done", "done"]
    assert runs[0].summary.to_dict() == runs[1].summary.to_dict()
    logs = [run.path("output.log").read_text() for run in runs]
    assert logs[0] == logs[1] and logs[0].startswith(plain.read_text())


def test_the_event_reader_checks_every_record(tmp_path):
    path = materialise("hf_t5_summarization", tmp_path) / T5_EVENTS
    scalars = list(tfevents.scalars(path))
    assert len(scalars) == 1726
    assert scalars[0] == tfevents.Scalar("train/loss", 1.9963, 500, scalars[0].wall_time)
    assert scalars[0].wall_time == pytest.approx(1742826365.0545628)
    data = path.read_bytes()
    for damage, cause in ((data[:-10], "cut off"),
                          (data[:100] + bytes([data[100] ^ 1]) + data[101:], "checksum"),
                          (struct.pack("<Q", 1 << 40) + data[8:], "length checksum")):
        path.write_bytes(damage)
        with pytest.raises(UserError, match=f"{path}: damaged event file: .*{cause}"):
            list(tfevents.scalars(path))


def test_an_over_long_record_is_damage_read_no_further(tmp_path):
    head = struct.pack("<Q", tfevents.MAX_RECORD + 1)
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(head + struct.pack("<I", tfevents.masked_crc(head)) + b"\0" * 64)
    with pytest.raises(UserError, match="more than"):
        list(tfevents.scalars(path))


@pytest.mark.parametrize("what", ["events", "state", "jsonl", "gz"])
def test_a_damaged_file_is_one_line_naming_it(what, home, tmp_path):
    if what == "events":
        path = materialise("hf_t5_summarization", tmp_path) / T5_EVENTS
        path.write_bytes(path.read_bytes()[:5000])
    elif what == "state":
        path = materialise("hf_lora_imdb/trainer_state.json", tmp_path)
        path.write_text(path.read_text()[:1000])
    elif what == "jsonl":
        path = materialise("llamafactory_sft_start/trainer_log.jsonl", tmp_path)
        path.write_text(path.read_text()[:700])
    else:
        plain = materialise("mlperf_dlrm_asus_result_1.txt", tmp_path)
        path = tmp_path / "result_1.txt.gz"
        packed = gzip.compress(plain.read_bytes())
        path.write_bytes(packed[:len(packed) // 2])
    for command in ("import", "parse"):
        result = accelbench(command, str(path))
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        errors = [line for line in result.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and str(path) in errors[0], result.stderr
    assert not list(home.glob(".import-*"))  # the run begun is dropped


def test_a_directory_imports_each_run_once_and_lists_what_it_skipped(home, tmp_path):
    top = tmp_path / "experiments"
    materialise("hf_t5_summarization", top)
    materialise("lightning_glitch/metrics.csv", top / "lightning_logs" / "version_0")
    materialise("mlperf_dlrm_asus_result_1.txt", top)
    (top / "notes.txt").write_text("nothing to read here\n")
    (top / "weights.bin").write_bytes(b"\0\1\2" * 100)
    (top / "logs.tar.gz").write_bytes(gzip.compress(b"logs/run.log" + b"\0" * 500))
    (top / "again.txt").symlink_to(top / "mlperf_dlrm_asus_result_1.txt")
    result = accelbench("import", str(top))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    taken = [line for line in lines if not line.startswith(("skipped", " "))]
    assert len(taken) == 3, result.stdout  # the T5 output_dir (state + 2 event files) is one
    assert sum("hf_t5_summarization" in line for line in taken) == 1
    assert f"skipped {top / 'notes.txt'}: no section holds a log accelbench can read" in lines
    assert f"skipped {top / 'weights.bin'}: binary, not a log" in lines
    assert f"skipped {top / 'logs.tar.gz'}: binary, not a log" in lines
    from accelbench.engine.store.runs import Store

    again = import_path(Store(home), top)  # (each run's files known by their content)
    assert (again.runs, len(again.before)) == ([], 3)
    assert len(import_path(Store(home), top, again=True).runs) == 3


def test_an_over_long_line_is_damage_not_read_whole(tmp_path):
    path = materialise("llamafactory_sft_start/trainer_log.jsonl", tmp_path)
    with path.open("a") as f:
        f.write('{"loss": "' + "9" * (2 << 20) + '"}\n')
    with pytest.raises(UserError, match=r"line 41 is longer than"):
        parse_file(path)


def test_a_directory_with_nothing_to_read_says_so_and_why(home, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "config.yaml").write_text("lr: 0.1\n")
    result = accelbench("import", str(tmp_path / "d"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stdout.splitlines() == [
        f"skipped {tmp_path / 'd' / 'config.yaml'}: no section holds a log accelbench can read"]
    assert "no file under it holds a run" in result.stderr


def test_a_gz_slurm_table_reads_as_the_plain_one(tmp_path):
    plain = real_figures.materialise("slurm/sacct_parsable2_cluster_utils.txt", tmp_path)
    packed = tmp_path / "sacct.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    runs = [[(s.title, s.status, s.dialects) for s in parse_file(p)] for p in (plain, packed)]
    assert runs[0] == runs[1] and runs[0][0][2] == ["slurm_table"]


def test_the_usual_scalar_event_read_at_once_is_what_its_fields_give(tmp_path, monkeypatch):
    path = materialise("hf_t5_summarization", tmp_path) / T5_EVENTS
    with open(path, "rb") as f:
        data = [record for _, record, _ in tfevents.records(f, str(path))]
    quick = [tfevents.event_scalars(record) for record in data]
    assert sum(tfevents._simple(record) is not None for record in data) == 1726
    monkeypatch.setattr(tfevents, "_simple", lambda record: None)
    assert [tfevents.event_scalars(record) for record in data] == quick


@pytest.mark.parametrize("name, content", [
    ("metrics.csv", "step,epoch,loss\n1e999,nan,0.5\n2,inf,0.4\n"),
    ("trainer_state.json", ('{"log_history": [{"step": 1e999, "epoch": 1e999, "loss": 0.5},'
                           ' {"step": NaN, "loss": 0.4}], "max_steps": 1e999}')),
    ("trainer_log.jsonl", '{"current_steps": 1e999, "total_steps": 1e300, "loss": 0.5}\n'
                          '{"current_steps": 1' + "0" * 400 + ', "epoch": NaN, "loss": 0.4}\n'),
])
def test_a_step_or_epoch_no_event_can_hold_is_left_out_not_a_crash(name, content, tmp_path):
    """(found by tests/reading/test_fuzz_readers.py: ``int(inf)`` raised OverflowError, an epoch of
    ``inf`` or a total of 1e300 made events that ``events.build`` refuses)"""
    from accelbench.engine.core import events

    path = tmp_path / name
    path.write_text(content)
    (section,) = parse_file(path)
    assert [round(e.value, 1) for e in section.events
            if e.kind == "metric" and e.name == "loss"] == [0.5, 0.4]
    for event in section.events:
        events.from_dict(events.to_dict(event))


def test_an_mllog_figure_no_event_can_hold_is_left_out():
    """(found by tests/reading/test_fuzz_readers.py: NaN and ``1e999`` became a Metric and a
    Throughput that ``events.build`` refuses, shown as ``inf`` and ``nan`` by ``parse``)"""
    from accelbench.engine.core import events
    from accelbench.engine.reading.mllog import Mllog

    lines = [':::MLLOG {"key": "eval_accuracy", "value": NaN, "metadata": {"epoch_num": 1e999}}',
             ':::MLLOG {"key": "tracked_stats", "value": {"throughput": 1e999}}',
             ':::MLLOG {"key": "train_loss", "value": 1e300}',
             ':::MLLOG {"key": "train_loss", "value": 0.5, "metadata": {"lr": Infinity}}']
    dialect = Mllog("r")
    found = [e for line in lines for e in dialect.feed(line, 1.0)]
    assert [(e.name, e.value) for e in found] == [("loss", 0.5)]
    for event in found:
        events.from_dict(events.to_dict(event))


@pytest.mark.parametrize("data", [  # (wall times 1.3e69 and 1.4e16, found by the reader fuzz)
    (b"\x16\x00\x00\x00\x00\x00\x00\x00Oa\xbe(\t0\x95\x8aoU\x18nC\x10\x00*\t\n\x07\n\x00\x15"
    b"\x00\x00\x00\x00\xb6|g\xd3"),
    (b"\x16\x00\x00\x00\x00\x00\x00\x00Oa\xbe(\t\xb0\x7f\xd1\xb0S\x18nC\x10\x00*\t\n\x07\n\x00"
    b"\x15\x00\x00\x00\x00\x98f\xf6\x9e")])
def test_an_event_whose_wall_time_no_clock_has_is_read_without_it(data, tmp_path):
    """``time.localtime`` raised OverflowError / OSError (EOVERFLOW): a traceback."""
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(data)
    (section,) = parse_file(path)
    assert [(e.name, e.step, e.value) for e in section.events if e.kind == "metric"][:1] == [
        ("", 0, 0.0)]


def test_a_records_figure_past_what_an_event_holds_is_no_metric():
    """``1.0000000000000002e+100`` is finite but past ``events.MAX_NUMBER``: it made a Metric
    that ``events.build`` refuses (found by the reader fuzz); a loss that large blew up."""
    from accelbench.engine.reading.records import Records

    dialect = Records("r")
    found = [e for line in (('{"step": 1, "metrics": {"loss": 1.0000000000000002e+100,'
                            ' "eval_loss": 1e101}}'), '{"step": 2, "metrics": {"loss": 0.5}}')
             for e in dialect.feed(line, 1.0)]
    assert [(e.name, e.value) for e in found if e.kind == "metric"] == [("loss", 0.5)]
    assert [d.code for d in found if d.kind == "diagnosis"] == ["loss_not_finite"]
