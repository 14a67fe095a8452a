"""Sweeps: [sweep] tables checked at load, experiments run by their driver, comparisons."""

import csv
import io
import json
import shlex
import sys
import time

import pytest

from accelbench.engine.config.spec import load_preset, spec_from_dict, variants
from accelbench.engine.run.experiment import Experiment, start
from accelbench.engine.rundir.files import EXIT_FILE, read_json
from accelbench.engine.store.compare import compare
from tests.helpers import accelbench, json_events, parse_markdown


def write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


GRID = """name = "grid"
workload = "bert_finetune"
[params]
model = "tiny"
[sweep]
max_seq_length = [16, 32]
slurm.ntasks = [1, 2]
variants = [{batch_size = 4}, {batch_size = 8, env.X = "1"}]
max_parallel = 2
"""


def test_grid_times_variants_in_order_and_round_trip(tmp_path):
    spec = load_preset(write(tmp_path, GRID))
    got = [(s.params["max_seq_length"], s.options["slurm"]["ntasks"], s.params["batch_size"],
            s.env) for _, s in variants(spec)]
    assert got == [(16, 1, 4, {}), (16, 1, 8, {"X": "1"}), (16, 2, 4, {}), (16, 2, 8, {"X": "1"}),
                   (32, 1, 4, {}), (32, 1, 8, {"X": "1"}), (32, 2, 4, {}), (32, 2, 8, {"X": "1"})]
    assert (variants(spec)[1][1].name
            == "grid max_seq_length=16 slurm.ntasks=1 batch_size=8 env.X=1")
    assert all(not s.sweep for _, s in variants(spec))
    again = write(tmp_path, spec.to_toml(), "again.toml")
    assert load_preset(again) == spec
    assert load_preset(again, ["sweep.max_parallel=3"]).sweep["max_parallel"] == 3


@pytest.mark.parametrize("sweep, overrides, message", [
    ("max_seq_length = [16, \"abc\"]", [],
     ("{path} [sweep max_seq_length=abc]: params.max_seq_length: expected an integer in"
      " [8, 4096], got 'abc'")),
    ("max_seq_length = 16", [],
     "{path}:5: sweep.max_seq_length: expected a non-empty list of values, got 16"),
    ("name = [\"a\", \"b\"]", [], "{path}:5: sweep.name: name cannot be swept"),
    ("max_parallel = 0\nbatch_size = [1]", [],
     "{path}:5: sweep.max_parallel: expected an integer in [1, 256], got 0"),
    ("nosuch = [1, 2]", [],
     ("{path} [sweep nosuch=1]: params.nosuch: unknown parameter 'nosuch' for workload"
      " 'bert_finetune'")),
    ("max_parallel = 2", [], "{path}:4: sweep: nothing to sweep"),
    ("batch_size = [4, 8]", ["batch_size=16"], "--set batch_size: the preset sweeps this key"),
    ("batch_size = [4, 8]", ["sweep.colour=red"],
     "--set sweep.colour: unknown sweep option 'colour'"),
])
def test_bad_sweeps_are_one_line_errors(tmp_path, sweep, overrides, message):
    from accelbench.engine.core.errors import UserError

    path = write(tmp_path, f'name = "x"\nworkload = "bert_finetune"\n\n[sweep]\n{sweep}\n')
    with pytest.raises(UserError) as caught:
        load_preset(path, overrides)
    assert caught.value.message == message.format(path=path)


def command(code):
    return shlex.join([sys.executable, "-c", code])


def run_experiment(runner, variants, **options):
    spec = spec_from_dict({"name": "cmds", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": command("pass")},
                           "sweep": {"variants": variants, **options}})
    exp = start(runner, spec)
    deadline = time.monotonic() + 60
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    return exp


def test_a_failed_run_does_not_stop_the_sweep_unless_asked(runner):
    variants = [{"command": command("pass")}, {"command": command("raise SystemExit(3)")},
                {"command": command("print('third')")}]
    exp = run_experiment(runner, variants)
    assert exp.status() == "failed"
    assert [r.status for r in exp.runs()] == ["done", "failed", "done"]
    assert [r.experiment for r in exp.runs()] == [exp.id] * 3

    exp = run_experiment(runner, variants, stop_on_failure=True)
    assert exp.status() == "failed"
    assert [r.status for r in exp.runs()] == ["done", "failed"]
    assert exp.entries()[2].note == "skipped: an earlier run failed (stop_on_failure)"


def test_max_parallel_runs_that_many_at_once(runner):
    sleep = {"command": command("import time; time.sleep(1.5)")}
    for parallel, overlapping in ((1, False), (2, True)):
        exp = run_experiment(runner, [sleep, sleep], max_parallel=parallel)
        first, second = ([read_json(r.path("wrapper.json"))["started"], read_json(
            r.path(EXIT_FILE))["ended"]] for r in exp.runs())
        assert exp.status() == "done"
        assert (second[0] < first[1]) is overlapping


def test_cancel_stops_the_experiment_and_its_live_run(runner):
    sleep = {"command": command("import time; time.sleep(60)")}
    spec = spec_from_dict({"name": "long", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "true"}, "sweep": {"variants": [sleep, sleep]}})
    exp = start(runner, spec)
    deadline = time.monotonic() + 30
    while not exp.runs() and time.monotonic() < deadline:
        time.sleep(0.1)
    exp.cancel()
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert exp.status() == "cancelled"
    assert [r.status for r in Experiment.open(runner, "long").runs()] == ["cancelled"]
    assert exp.entries()[1].note == "skipped: the experiment was cancelled"


def number(text):
    return float(text.strip("*"))


@pytest.mark.slow
@pytest.mark.timeout(900)  # four BERT fine-tunes, the CLI given 600 s
def test_four_run_sweep_compares_and_exports_parse_back(home):
    out = accelbench("run", "cpu-bert-padding-sweep", "--set", "train_samples=64",
                     "--set", "eval_samples=32", "--set", "logging_steps=1", "--json",
                     timeout=600)
    assert out.returncode == 0, out.stderr
    finished = [e for e in json_events(out.stdout) if e["type"] == "finished"]
    assert len(finished) == 4 and {e["status"] for e in finished} == {"done"}
    summaries = {e["run_id"]: e["summary"] for e in finished}

    exported = {form: accelbench("compare", "--experiment", "cpu-bert-padding-sweep",
                                 "--format", form) for form in ("json", "csv", "markdown")}
    assert all(o.returncode == 0 for o in exported.values()), exported
    data = json.loads(exported["json"].stdout)
    assert data["params"] == ["max_seq_length"]
    runs = data["runs"]
    assert [r["params"]["max_seq_length"] for r in runs] == [16, 32, 64, 128]
    for run in runs:
        summary = summaries[run["id"]]
        for key in ("samples_per_s", "train_time_s", "final_loss", "accuracy", "eval_loss"):
            assert run["figures"][key] == summary[key]
    fastest = max(runs, key=lambda r: r["figures"]["samples_per_s"])
    assert "samples_per_s" in fastest["best"]

    rows = list(csv.DictReader(io.StringIO(exported["csv"].stdout)))
    table = parse_markdown(exported["markdown"].stdout)
    assert len(rows) == len(table) == 4
    for run, row, md in zip(runs, rows, table, strict=True):
        assert row["id"] == md["run"] == run["id"]
        assert int(row["max_seq_length"]) == int(md["max_seq_length"]) == run["params"][
            "max_seq_length"]
        for key, title in (("samples_per_s", "samples/s"), ("final_loss", "final loss"),
                           ("eval_loss", "eval loss"), ("train_time_s", "train time (s)")):
            value = round(run["figures"][key], 4)
            assert float(row[key]) == number(md[title]) == value
            assert md[title].startswith("**") == (key in run["best"])
        assert row["best"].split(";") == (run["best"] or [""])

    plotted = accelbench("compare", *[r["id"] for r in runs], "--plot")
    assert plotted.returncode == 0
    assert "max_seq_length=128" in plotted.stdout and "█" in plotted.stdout
    assert "loss" in plotted.stdout and "■ max_seq_length=16" in plotted.stdout


def test_compare_of_imported_seed_runs(store):
    from accelbench.engine.logs.importer import import_file
    from tests.helpers import FIXTURES

    infos = import_file(store, FIXTURES / "seeds" / "004_fa457edab846a9b4.txt", "auto", None)
    cerebras = [i for i in infos if i.accelerator == "cerebras"]
    cmp = compare(cerebras)  # batch 512, then batch 2048
    assert cmp.params == ["section"]
    assert [v["final_loss"] for v in cmp.values] == [7.125, 7.14844]
    assert [v["train_time_s"] for v in cmp.values] == [175.070497198, 304.403202469]
    assert cmp.best == {"samples_per_s": {1}, "train_time_s": {0}, "final_loss": {0}}


def test_rm_and_clean(home, runner):
    done = runner.start(spec_from_dict({"name": "a", "workload": "command",
                                        "params": {"command": command("pass")},
                                        "telemetry_interval": 0}))
    live = runner.start(spec_from_dict({
        "name": "b", "workload": "command",
        "params": {"command": command("import time; time.sleep(60)")}, "telemetry_interval": 0}))
    deadline = time.monotonic() + 20
    while runner.open(done.id).replay()[1].finished is None and time.monotonic() < deadline:
        time.sleep(0.1)
    out = accelbench("clean", "--older-than", "0", "--dry-run")
    assert out.returncode == 0 and f"would remove {done.id} (done)" in out.stdout
    assert live.id not in out.stdout and done.info.dir.exists()
    out = accelbench("rm", live.id)
    assert out.returncode == 2 and "is live" in out.stderr and "--force" in out.stderr
    out = accelbench("rm", live.id, "--force", "--yes")
    assert out.returncode == 0 and not live.info.dir.exists()
    out = accelbench("clean", "--older-than", "0")
    assert out.returncode == 0 and "1 run removed" in out.stdout
    assert runner.store.list() == []
