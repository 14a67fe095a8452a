"""The failures of the PyTorch and HPC world (engine/reading/failures.py), read off real logs
(tests/fixtures/real/failures, their figures in bench/real_figures_failures.py): each gives
one diagnosis naming its figures through ``parse``, imports as ``failed`` with its cause,
and shows as it happens in a live run; what only looks like a failure does not fail."""

from __future__ import annotations

import argparse
import json
import sys

import pytest
from real_logs import REAL, body

from accelbench.engine.core.events import Diagnosis
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.run.runner import Deriver
from tests.helpers import ROOT, accelbench

sys.path.insert(0, str(ROOT / "bench"))

from real_figures import Fixture
from real_figures_failures import listed

FAILED = [f for f in listed() if f.failed_run]
HANDLED = [f for f in listed() if not f.failed_run]


def _figures(fixture: Fixture, kind: str) -> list:
    return [fig.value for fig in fixture.figures if fig.kind == kind]


def _log(tmp_path, fixture: Fixture):
    log = tmp_path / fixture.path.split("/")[1]
    log.write_text(body("failures", log.name), encoding="utf-8")
    return log


def _diagnoses(events: list) -> list[Diagnosis]:
    return [e for e in events if isinstance(e, Diagnosis)]


@pytest.mark.parametrize("fixture", FAILED, ids=lambda f: f.path)
def test_a_failure_is_one_diagnosis_naming_its_figures(fixture, tmp_path):
    """One diagnosis however many lines, ranks or tracebacks say it, with the sizes, rank,
    signal, port or limit it names; the exit code the log reports."""
    [section] = parse_file(_log(tmp_path, fixture))
    [diagnosis] = _diagnoses(section.events)
    assert [diagnosis.code] == _figures(fixture, "diag")
    for said in _figures(fixture, "cause"):
        assert said in diagnosis.message
    assert diagnosis.hint
    assert section.status == "failed" and section.outcome.failure == diagnosis
    assert [section.exit_code] == (_figures(fixture, "exit") or [None])


@pytest.mark.parametrize("fixture", FAILED, ids=lambda f: f.path)
def test_a_failed_log_imports_as_failed_with_its_cause(fixture, store, tmp_path):
    log = _log(tmp_path, fixture)
    [section] = parse_file(log)
    [info] = import_file(store, log)
    assert info.status == "failed"
    record = json.loads(info.path("exit.json").read_text())
    assert record["detail"] == section.outcome.failure.message
    assert [record["returncode"]] == (_figures(fixture, "exit") or [None])


@pytest.mark.parametrize("fixture", HANDLED, ids=lambda f: f.path)
def test_an_exception_python_ignores_is_no_failure(fixture, tmp_path):
    """``Exception ignored in: ...`` and its traceback (a worker shutting down, two of them
    written into each other) while training goes on: no diagnosis."""
    [section] = parse_file(_log(tmp_path, fixture))
    assert not _diagnoses(section.events) and section.status == "ended"


def test_a_mention_of_out_of_memory_or_a_port_warning_is_no_failure(tmp_path):
    """A help text that speaks of CUDA out-of-memory (transformers' TrainingArguments help,
    as argparse prints it), and the warnings c10d prints where one address of the port is
    taken, before it listens on another (the first lines of a real log): no failure."""
    parser = argparse.ArgumentParser(prog="run_clm.py")
    parser.add_argument(  # (help: huggingface/transformers src/transformers/training_args.py)
        "--auto_find_batch_size", action="store_true",
        help="Whether to automatically decrease the batch size in half and rerun the training"
             " loop again each time a CUDA Out-of-Memory was reached")
    warnings = body("failures", "address_in_use_fastvideo_575.log").split("\n")[:3]
    log = tmp_path / "help.log"
    log.write_text(parser.format_help() + "\n".join(warnings) + "\n", encoding="utf-8")
    [section] = parse_file(log)
    assert "CUDA Out-of-Memory" in section.text and "errno: 98" in section.text
    assert not _diagnoses(section.events) and section.status != "failed"


def test_the_root_cause_is_what_torchrun_observed_first(tmp_path):
    """Of the failures torchrun's table lists, the root cause is reported (rank 0, not the
    rank 1 listed before it); cut before its root cause, the first one listed."""
    fixture = next(f for f in FAILED if "minigpt4" in f.path)
    [section] = parse_file(_log(tmp_path, fixture))
    [diagnosis] = _diagnoses(section.events)
    assert "rank 0" in diagnosis.message and "rank 1" not in diagnosis.message
    fixture = next(f for f in FAILED if "llamafactory_701" in f.path)
    [section] = parse_file(_log(tmp_path, fixture))
    [diagnosis] = _diagnoses(section.events)
    assert "rank 1" in diagnosis.message and "rank 2" not in diagnosis.message


def test_a_live_run_shows_the_failure_as_it_happens():
    """The NCCL watchdog's timeout, on the line that says it (not at the run's end), once for
    all the ranks that say it."""
    lines = body("failures", "nccl_watchdog_ranks_llamafactory_7396.log").strip().split("\n")
    deriver = Deriver("r1", 100.0)
    first = _diagnoses(deriver.output(lines[:1]))
    assert [d.code for d in first] == ["nccl_timeout"]
    assert "ALLREDUCE" in first[0].message and "600000 ms" in first[0].message
    assert not _diagnoses(deriver.output(lines[1:]))
    assert [d.code for d in deriver.state.diagnoses] == ["nccl_timeout"]


def test_a_detected_dialects_diagnosis_wins_over_the_traceback(tmp_path):
    """SambaNova's own dialect diagnoses the assertion its run ends with: the traceback's
    final exception (``python_exception``) gives way to it, imported and live."""
    text = (REAL / "sambanova" / "bert_large_min_throughput_assertion.log").read_text(
        encoding="utf-8").split("\n", 1)[1]
    log = tmp_path / "bert.log"
    log.write_text(text, encoding="utf-8")
    [section] = parse_file(log)
    codes = [d.code for d in _diagnoses(section.events)]
    assert "sambanova_min_throughput" in codes and "python_exception" not in codes
    assert section.outcome.failure is not None
    assert section.outcome.failure.code == "sambanova_min_throughput"
    deriver = Deriver("r1", 100.0, dialects=["sambanova"])
    live = [d.code for d in _diagnoses(deriver.output(text.split("\n")))]
    assert "sambanova_min_throughput" in live and "python_exception" not in live


def test_a_traceback_alone_is_its_final_exception(tmp_path):
    """With no dialect to say it, a traceback's final exception is the run's failure."""
    fixture = next(f for f in FAILED if "d2t" in f.path)
    log = _log(tmp_path, fixture)
    [section] = parse_file(log)
    assert section.dialects == []
    assert section.outcome.failure is not None
    assert section.outcome.failure.message.startswith("FileNotFoundError: [Errno 2]")


def test_accelbench_parse_prints_the_diagnosis(tmp_path):
    fixture = next(f for f in FAILED if "pytorch_16417" in f.path)
    log = _log(tmp_path, fixture)
    result = accelbench("parse", str(log), "--json")
    assert result.returncode == 0, result.stderr
    [event] = [json.loads(line) for line in result.stdout.splitlines()
               if json.loads(line).get("type") == "diagnosis"]
    assert event["code"] == "cuda_oom"
    assert "tried to allocate 22.00 MiB" in event["message"]
    assert "expandable_segments:True" in event["hint"]


def test_a_traceback_quoted_indented_is_read_where_its_lines_start(tmp_path):
    """A log quoted with its lines indented (Megatron-DeepSpeed's README at ALCF: two ranks'
    ``Traceback`` at six spaces, their frames deeper): the exception line that starts where
    ``Traceback`` does is the run's failure."""
    text = (REAL / "frameworks" / "megatron_deepspeed_alcf_checkpoint_crash.log").read_text(
        encoding="utf-8").split("\n", 1)[1]
    log = tmp_path / "alcf.log"
    log.write_text(text, encoding="utf-8")
    [section] = parse_file(log)
    [diagnosis] = _diagnoses(section.events)
    assert diagnosis.code == "python_exception" and section.status == "failed"
    assert diagnosis.message == ("AttributeError: 'GPTModel' object has no attribute"
                                 " '_get_tp_replicated_param_patterns'")


def test_a_text_read_at_once_gives_what_its_lines_give_one_by_one():
    """The failures dialect reading a text at once (``feed_text``: lines holding only a rule,
    ``=====``, passed over while nothing is open) gives what ``feed`` gives each line of it
    holding one of its needs, and is left as ``feed`` leaves it: on every failure fixture,
    and on each of them with a Keras log's bars (drawn in ``=``) between its lines."""
    from accelbench.engine.reading.failures import Failures
    from tests.helpers import FIXTURES

    keras = (FIXTURES / "real/generic/keras_16906.txt").read_text().split("\n")[1:]
    texts = 0
    for path in sorted((FIXTURES / "real" / "failures").glob("*.log")):
        lines = path.read_text(errors="replace").split("\n")[1:]
        mixed = [line for i, line in enumerate(lines) for line in (line, keras[i % len(keras)])]
        for text in ("\n".join(lines), "\n".join(mixed)):
            one, many = Failures("r"), Failures("r")
            needs = tuple(need for need in Failures.needs or () if need in text)
            each = [event for line in text.split("\n") if any(n in line for n in needs)
                    for part in line.split("\r") if part for event in one.feed(part, 0.0)]
            at_once = many.feed_text(text, needs, (), 0.0)
            if at_once is None:
                continue
            texts += 1
            assert (repr(at_once), repr(vars(many))) == (repr(each), repr(vars(one))), path
    assert texts > 10
