"""Logs people already have: `accelbench parse` and `accelbench import` on the seed notes."""

import json

import pytest

from accelbench.engine.core.errors import UserError
from accelbench.engine.logs.logfile import parse_file, split_sections
from tests.helpers import FIXTURES, accelbench, json_events

SEED_000 = FIXTURES / "seeds" / "000_6c710d153de2b2d9.txt"


def test_sections_split_at_headings_outside_code_blocks():
    text = "intro\n# One\na\n```\n# not a heading\n```\n## Two\nb\n"
    sections = split_sections(text)
    assert [(s.title, s.text.strip()) for s in sections] == [
        ("", "intro"), ("One", "a\n```\n# not a heading\n```"), ("Two", "b")]


def test_parse_finds_each_sections_dialects_and_figures():
    sections = {s.title: s for s in parse_file(SEED_000)}
    padding_32 = sections["Padding 32"]
    assert padding_32.dialects == ["hf_trainer", "neuron_profile"]
    metrics = {e.name: e.value for e in padding_32.events if e.kind == "metric"}
    assert metrics["train_samples_per_second"] == pytest.approx(194.87)
    assert metrics["accuracy"] == pytest.approx(94.30)
    engines = {e.engine: e.percent for e in padding_32.events if e.kind == "utilization"}
    assert engines == pytest.approx({"dma": 81.95, "tensor": 21.21, "vector": 40.17,
                                     "scalar": 32.9, "sync": 0.75, "gpsimd": 3.49, "cc": 26.81})
    assert sections["Padding 16"].dialects == ["hf_trainer"]


def test_cli_parse_json_and_errors(home, tmp_path):
    out = accelbench("parse", str(SEED_000), "--json")
    assert out.returncode == 0
    events = json_events(out.stdout)
    assert {"type": "metric", "name": "train_samples_per_second", "value": 194.87} in [
        {k: e[k] for k in ("type", "name", "value")} for e in events if e["type"] == "metric"]
    out = accelbench("parse", str(SEED_000), "--dialect", "klingon")
    assert out.returncode == 2 and out.stderr.startswith("accelbench: error: unknown dialect")
    empty = tmp_path / "notes.txt"
    empty.write_text("just prose\n")
    out = accelbench("import", str(empty))
    assert out.returncode == 2
    assert out.stderr.splitlines()[0] == (f"accelbench: error: {empty}: no section holds a log"
                                          " accelbench can read")


def test_import_makes_finished_runs_that_list_and_show(home):
    out = accelbench("import", str(SEED_000))
    assert out.returncode == 0, out.stderr
    runs = {r["params"]["section"]: r for r in json.loads(
        accelbench("runs", "--format", "json").stdout)}
    assert set(runs) == {"Padding 16", "Padding 32", "Padding 64", "Padding 128"}
    padding_32 = runs["Padding 32"]
    assert (padding_32["status"], padding_32["workload"], padding_32["accelerator"]) == (
        "done", "imported", "trainium")
    summary = padding_32["summary"]
    assert summary["samples_per_s"] == pytest.approx(194.87)
    assert summary["accuracy"] == pytest.approx(94.30)
    assert summary["final_loss"] == pytest.approx(0.2833)
    assert summary["utilization"]["tensor"] == pytest.approx(21.21)
    shown = accelbench("show", padding_32["id"])
    assert shown.returncode == 0 and "194.87" in shown.stdout
    assert accelbench("attach", padding_32["id"], "--json").returncode == 0


def test_imported_runs_cannot_be_started(runner):
    from accelbench.engine.config.spec import spec_from_dict

    spec = spec_from_dict({"name": "x", "workload": "imported"})
    with pytest.raises(UserError, match="imported run holds a log"):
        runner.start(spec)


def test_a_section_holding_two_runs_is_split_after_each_runs_end():
    seed_004 = {s.title: s for s in parse_file(FIXTURES / "seeds" / "004_fa457edab846a9b4.txt")}
    first, second = seed_004["1. Cerebras (1)"], seed_004["1. Cerebras (2)"]
    metrics = [{e.name: e.value for e in s.events if e.kind == "metric"} for s in (first, second)]
    assert (metrics[0]["samples_processed"], metrics[0]["train_runtime"]) == (512000, 175.070497198)
    assert (metrics[1]["samples_processed"], metrics[1]["train_runtime"]) == (
        2048000, 304.403202469)
    assert metrics[1]["final_loss"] == pytest.approx(7.14844)
    seed_003 = {s.title: s for s in parse_file(FIXTURES / "seeds" / "003_93166290ad7e1c99.txt")}
    rates = [next(e.value for e in seed_003[f"Sambanova ({i})"].events
                  if e.kind == "metric" and e.name == "training_samples_per_second")
             for i in (1, 2)]
    assert rates[0] == pytest.approx(4543.12670624255) and rates[1] != rates[0]


def test_a_state_only_fold_makes_no_log_events_and_the_same_state(store, tmp_path):
    from accelbench.engine.logs.importer import import_file
    from accelbench.engine.run.runner import RunHandle, StateOnly

    log = tmp_path / "mixed.log"  # dialect lines, gaps, a redrawn line and machine lines
    recordings = sorted((FIXTURES / "recordings").glob("*.log"))
    log.write_text("".join(p.read_text() for p in recordings) + "step 1\rstep 2\rdone\n"
                   '@@accelbench {"type": "progress", "t": 5.0, "step": 3}\nafter\n')
    for info in import_file(store, log, "auto"):
        handle = RunHandle(store, info)
        events, shown = handle.replay()
        logs = sum(e.kind == "log" for e in events)
        batches: list = []
        for chunk in (101, 4096, 1 << 20):  # gaps and lines across the steps of a pass
            quiet = handle.fold(chunk=chunk)
            assert (quiet.log_lines, list(quiet.log_tail), quiet.last_ts) == (
                logs, list(shown.log_tail), shown.last_ts)
            assert quiet.summary().to_dict() == shown.summary().to_dict()
        handle.fold(batches.extend, chunk=101)
        assert batches and sum(e.kind == "log" for e in batches) == logs
        for chunk in (101, 4096):  # the states of the job's output, step by step
            (quiet, out), (loud, tail) = handle._sources(StateOnly()), handle._sources()
            while out[2].more():
                assert not any(e.kind == "log" for e in quiet.output(out[2].read_lines(chunk)))
                loud.output(tail[2].read_lines(chunk))
                assert (quiet.state.log_lines, quiet.state.log_tail, quiet.state.last_ts,
                        quiet.state.metrics, quiet.state.phase) == (
                    loud.state.log_lines, loud.state.log_tail, loud.state.last_ts,
                    loud.state.metrics, loud.state.phase)


def test_a_dialect_marked_only_in_the_middle_of_a_large_section_is_detected(tmp_path):
    from accelbench.engine.logs import logfile

    log = tmp_path / "big.log"
    filler = "".join(f"2024-03-30 13:00:00,000 INFO:   Compiling kernels {i}\n"
                     for i in range(3 * logfile.SNIFF // 40))
    train = ("2024-03-30 13:00:01,000 INFO:   | Train Device=CSX, Step=7, Loss=6.5, "
             "Rate=10.0 samples/sec, GlobalRate=9.0 samples/sec\n")
    log.write_text(filler + train + filler)
    [section] = parse_file(log)
    assert section.dialects == ["cerebras"]
    assert {(e.name, e.value) for e in section.events if e.kind == "metric"} >= {("loss", 6.5)}

    class File(logfile.Reader):
        def file(self, dialects: list[str]) -> None:
            self.dialects = dialects

    whole = File()  # the whole file's dialects: its sections' (middles too) and headings'
    logfile.read_file(log, whole)
    assert whole.dialects == ["cerebras"]


def test_a_marker_holding_digits_is_found_in_the_middle_of_a_large_section(tmp_path):
    """The middle is searched by line shapes (digits taken out): a marker with digits of
    its own (SambaNova's ``e2e_train_time``) is still found there."""
    from accelbench.engine.logs import logfile

    log = tmp_path / "big.log"
    filler = "".join(f"step {i} of the warm-up\n" for i in range(3 * logfile.SNIFF // 24))
    log.write_text(filler + "e2e_train_time: 120.5\n" + filler)
    [section] = parse_file(log)
    assert "sambanova" in section.dialects


def test_each_dialect_of_a_section_is_fed_only_the_lines_it_needs_and_all_of_them(monkeypatch):
    """A section read by several dialects: each is fed the lines holding one of its needs
    (a line it does not need gives it nothing: feeding it costs time only), all of them."""
    from accelbench.engine.parsers import Dialect
    from accelbench.engine.parsers.prefilter import line_starts, nocase_of
    from accelbench.engine.plugin import registry

    path = FIXTURES / "real" / "sambanova" / "bert_large_min_throughput_assertion.log"
    fed: dict[str, list[str]] = {"slurm": [], "sambanova": []}
    for name in fed:
        cls = registry.get_dialect(name)

        def feed(self: Dialect, line: str, ts: float, _feed=cls.feed, _name=name) -> list:
            fed[_name].append(line)
            return _feed(self, line, ts)

        monkeypatch.setattr(cls, "feed", feed)
        monkeypatch.setattr(cls, "feed_text", lambda self, *args: None)  # (line by line)
    [section] = parse_file(path)
    assert section.dialects == ["slurm", "sambanova"]
    text = path.read_text()
    for name, lines in fed.items():
        cls = registry.get_dialect(name)
        needed = [text[start:text.find("\n", start)] for start in line_starts(
            text, cls.needs or (), nocase_of([cls]))]
        assert set(lines) == set(needed), name  # (a copy may read some again: a run's end)
