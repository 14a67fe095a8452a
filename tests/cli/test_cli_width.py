"""Every CLI table fits the width (80 columns, 160, COLUMNS, the terminal's, 80 when piped)
with the names and ids a user types whole and no figure elided (issue 14)."""

from __future__ import annotations

import fcntl
import json
import os
import struct
import termios
import time

import pytest
from rich.cells import cell_len
from rich.console import Console

from accelbench.cli.live import comparison_table, render_experiment, width
from accelbench.cli.main import main
from accelbench.engine.config.presets import list_presets
from accelbench.engine.core.events import Phase
from accelbench.engine.plugin.system import Availability
from accelbench.engine.run.experiment import Entry
from accelbench.engine.run.state import RunState
from accelbench.engine.store.compare import compare
from accelbench.engine.store.runs import Store
from accelbench.engine.view import layout
from accelbench.engine.view import model as present
from tests.helpers import FIXTURES, accelbench

SEED_000 = FIXTURES / "seeds" / "000_6c710d153de2b2d9.txt"
EXP_ID = "20260101-000000-bert-padding-sweep-on-trainium-1a2b3c"
NAME = "bert-large-padding-sweep-max_seq_length"  # runs named as long as a slug may be


def make_store(home) -> list[str]:
    """Four finished runs of one experiment with long names, knobs that differ and figures;
    their ids, newest first."""
    now = time.time()
    exp_dir = home / "experiments" / EXP_ID
    exp_dir.mkdir(parents=True)
    (exp_dir / "meta.json").write_text(json.dumps(
        {"id": EXP_ID, "created": now - 3600, "name": "bert-padding-sweep-on-trainium",
         "total": 4}))
    ids = []
    for i, length in enumerate((16, 32, 64, 128)):
        created = now - 60 * (4 - i)
        run_id = (f"{time.strftime('%Y%m%d-%H%M%S', time.localtime(created))}-{NAME}-{length}"
                  f"-{i:02d}ab{i:02d}")
        run_dir = home / "runs" / run_id
        run_dir.mkdir(parents=True)
        (run_dir / "spec.toml").write_text(
            f'name = "{NAME} {length}"\nworkload = "command"\naccelerator = "cpu"\n'
            f'[params]\ncommand = "true"\nmax_seq_length = {length}\n'
            f'batch_size = {8 * (i + 1)}\nlearning_rate = {i + 1}e-5\n')
        (run_dir / "meta.json").write_text(json.dumps(
            {"id": run_id, "created": created, "experiment": EXP_ID,
             "variant": {"max_seq_length": length, "batch_size": 8 * (i + 1),
                         "learning_rate": 1e-5 * (i + 1)}}))
        (run_dir / "summary.json").write_text(json.dumps(
            {"status": "done" if i else "failed", "ended": created + 30, "summary": {
                "samples_per_s": 1234.5678 / (i + 1), "final_loss": 0.123456 * (i + 1),
                "accuracy": 91.2345 + i, "train_time_s": 123.4 * (i + 1), "exit_code": 0,
                "utilization": {"tensor": 21.21 + i, "vector": 40.17, "dma": 81.95}}}))
        ids.append(run_id)
    labels = [f"max_seq_length={n}" for n in (16, 32, 64, 128)]
    (exp_dir / "plan.json").write_text(json.dumps(
        {"variants": [{"label": label, "variant": {}} for label in labels]}))
    (exp_dir / "journal.jsonl").write_text("".join(
        json.dumps({"index": i, "run": run_id}) + "\n" for i, run_id in enumerate(ids)))
    (exp_dir / "end.json").write_text(json.dumps({"status": "failed", "ended": now}))
    return ids[::-1]


@pytest.fixture
def ids(home):
    return make_store(home)


def shown(capsys, columns: int, *args: str, monkeypatch) -> str:
    """What ``accelbench ARGS`` prints to a pipe with ``COLUMNS=columns``."""
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(list(args)) == 0
    return capsys.readouterr().out


def assert_fits(text: str, columns: int) -> None:
    too_wide = [line for line in text.splitlines() if cell_len(line) > columns]
    assert not too_wide, too_wide
    assert "…" not in text  # nothing elided


def words(text: str) -> set[str]:
    return {word for line in text.splitlines() for word in line.split()}


def named(ref: str, text: str) -> bool:
    """A unique suffix of ``ref`` (its random end at least) stands whole in ``text``."""
    return any(ref.endswith(word) and len(word) >= 6 for word in words(text))


@pytest.mark.parametrize("columns", [80, 160])
def test_runs_and_experiments_fit_with_ids_and_figures_whole(ids, capsys, monkeypatch, columns):
    out = shown(capsys, columns, "runs", monkeypatch=monkeypatch)
    assert_fits(out, columns)
    assert all(named(i, out) for i in ids)
    assert {"1235", "617.3", "0.1235", "0.4938"} <= words(out)  # figures whole
    if columns == 160:
        assert all(i in words(out) for i in ids)  # the whole ids where they fit
    out = shown(capsys, columns, "runs", "--experiments", monkeypatch=monkeypatch)
    assert_fits(out, columns)
    assert named(EXP_ID, out) and "bert-padding-sweep-on-trainium" in words(out)


def test_a_shown_suffix_names_its_run(ids, capsys, monkeypatch):
    out = shown(capsys, 80, "runs", monkeypatch=monkeypatch)
    suffix = next(w for w in words(out) if ids[0].endswith(w) and len(w) >= 6)
    assert Store().get(suffix).id == ids[0]


@pytest.mark.parametrize("columns", [80, 160])
def test_compare_fits_and_turns_runs_into_columns_when_narrow(ids, capsys, monkeypatch,
                                                              columns):
    out = shown(capsys, columns, "compare", "--experiment", "bert-padding-sweep-on-trainium",
                "--plot", monkeypatch=monkeypatch)
    assert_fits(out, columns)
    assert {"1235", "308.6", "0.4938", "91.23", "94.23"} <= words(out)
    assert {"max_seq_length", "batch_size", "learning_rate"} <= words(out)
    # the bars' labels: the knobs as set, whole
    assert {"max_seq_length=128", "batch_size=32", "learning_rate=4e-05"} <= words(out)
    heading = next(line for line in out.splitlines() if line.startswith("run"))
    transposed = "2" in heading.split()  # the runs' numbers head the columns
    assert transposed == (columns == 80)


def test_a_transposed_comparison_keeps_each_runs_style():
    heads = [present.Head("run"), present.Head("samples/s", "right")]
    rows = [[present.Cell("1 aa11", "dim"), present.Cell("100 ★", "bold green", "right")],
            [present.Cell("2 bb22", "red"), present.Cell("50", justify="right")]]
    new_heads, new_rows = layout.transpose(heads, rows)
    assert [(h.title, h.style) for h in new_heads] == [("run", ""), ("1 aa11", "dim"),
                                                       ("2 bb22", "red")]
    assert new_rows == [[present.Cell("samples/s", "bold"), rows[0][1], rows[1][1]]]


def test_a_comparison_too_wide_for_its_runs_side_by_side_comes_in_parts(ids):
    cmp = compare(Store().list())
    console = Console(width=40, record=True, color_system=None)
    console.print(comparison_table(cmp, "grid", 40))
    text = console.export_text()
    assert_fits(text, 40)
    assert text.count("samples/s") >= 2  # each part names its rows
    assert all(f"{n} " in text for n in "1234")


@pytest.mark.parametrize("columns", [80, 160])
def test_presets_fit_with_every_name_whole(home, capsys, monkeypatch, columns):
    out = shown(capsys, columns, "presets", monkeypatch=monkeypatch)
    assert_fits(out, columns)
    assert {entry.name for entry in list_presets()} <= words(out)


@pytest.mark.parametrize("columns", [80, 160])
def test_show_parse_accelerators_and_import_fit(ids, capsys, monkeypatch, columns):
    for args in (("show", ids[0]), ("parse", str(SEED_000)), ("accelerators",),
                 ("import", str(SEED_000))):
        out = shown(capsys, columns, *args, monkeypatch=monkeypatch)
        assert_fits(out, columns)
    assert all(f"Padding-{n}" in out for n in (16, 32, 64, 128))


def test_piped_output_is_80_columns_unless_columns_says(ids, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = accelbench("runs")
    assert out.returncode == 0
    assert_fits(out.stdout, 80)
    assert ids[0] not in out.stdout  # the whole ids do not fit: their suffixes stand in
    monkeypatch.setenv("COLUMNS", "160")
    assert ids[0] in accelbench("runs").stdout


def test_the_width_of_a_terminal_is_its_own(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with os.fdopen(follower, "w") as terminal:
        assert width(terminal) == 100
        monkeypatch.setenv("COLUMNS", "70")
        assert width(terminal) == 70
    os.close(leader)


def test_the_live_sweep_table_fits_with_labels_and_ids_whole():
    run_ids = [f"20260101-00000{i}-{NAME}-{n}-abcde{i}" for i, n in enumerate((16, 32))]
    entries = [Entry(0, "max_seq_length=16 batch_size=8", {}, run_ids[0]),
               Entry(1, "max_seq_length=32 batch_size=8", {}, run_ids[1]),
               Entry(2, "max_seq_length=64 batch_size=8", {})]

    class Exp:
        id = EXP_ID
        info = type("Info", (), {"name": "bert-padding-sweep-on-trainium"})()

        def entries(self):
            return entries

        def status(self):
            return "running"

    states = {rid: RunState(rid) for rid in run_ids}
    for rid, state in states.items():
        state.feed(Phase(rid, 1.0, "running" if rid == run_ids[1] else "done"))
    for columns in (80, 160):
        console = Console(width=columns, record=True, color_system=None)
        console.print(render_experiment(Exp(), states, columns))
        text = console.export_text()
        assert_fits(text, columns)
        assert {"max_seq_length=16", "max_seq_length=64", "batch_size=8"} <= words(text)
        heads = next(line for line in text.splitlines() if line.startswith("#"))
        assert heads.split()[:3] == ["#", "variant", "status"]  # not on the bar's line
        assert all(named(rid, text) for rid in run_ids)


def test_a_cancelled_sweep_is_not_shown_complete():
    entries = [Entry(0, "a", {}, "r1"), Entry(1, "b", {}, note="skipped: cancelled")]

    class Exp:
        id = "exp"
        info = type("Info", (), {"name": "grid"})()

        def entries(self):
            return entries

        def status(self):
            return "cancelled"

    state = RunState("r1")
    state.feed(Phase("r1", 1.0, "cancelled"))
    [bar] = render_experiment(Exp(), {"r1": state}, 80).renderables[1].columns[0].cells
    assert (bar.completed, bar.total) == (0, 2)
    assert present.progress_count(["done", "failed", "cancelled", "skipped", "lost"]) == 2


def test_layout_drops_the_least_important_column_and_shortens_ids_first():
    heads = [present.Head("id", shorten=(50,)), present.Head("a", priority=10),
             present.Head("b", priority=60), present.Head("note", priority=20, fit="wrap")]
    row = [present.Cell("20260101-000000-long-name-abcdef", shorter=("abcdef",)),
           present.Cell("1.2345"), present.Cell("x" * 10), present.Cell("some words " * 4)]
    full = layout.fit(heads, [row], 200)
    assert full.columns == (0, 1, 2, 3) and full.forms == (0, 0, 0, 0)
    narrow = layout.fit(heads, [row], 40)
    assert narrow.columns == (0, 1, 3)  # b (60) goes first, then the id shortens (50)
    assert narrow.row(row)[0].text == "abcdef" and narrow.width <= 40
    back = layout.fit(heads, [row], 46)  # the shorter id made room for b again
    assert back.columns == (0, 1, 2, 3) and back.forms[0] == 1 and back.width <= 46
    assert layout.fit(heads, [row], 10).columns == (0,)  # priority 0 stays, however wide


def test_presets_for_an_accelerator_not_here_are_listed_and_marked(home, capsys,
                                                                    monkeypatch):
    from accelbench.engine.plugin import registry

    out = shown(capsys, 160, "presets", monkeypatch=monkeypatch)
    gpu = next(line for line in out.splitlines() if line.startswith("gpu-mnist "))
    assert gpu.split()[1:3] == ["cuda", "no"]
    assert "cuda" in out.split("here = no:")[1]
    found = registry.detect
    monkeypatch.setattr(registry, "detect", lambda system: Availability(True, "1 GPU")
                        if system.name == "cuda" else found(system))
    out = shown(capsys, 160, "presets", monkeypatch=monkeypatch)
    gpu = next(line for line in out.splitlines() if line.startswith("gpu-mnist "))
    assert gpu.split()[1:3] == ["cuda", "yes"]
    assert "cuda" not in out.split("here = no:")[-1]


def test_a_runs_output_piped_ends_its_lines(home):
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     "command=python3 -c \"print('Accuracy on test set: 88.85%')\"")
    assert out.returncode == 0, out.stderr
    assert "Accuracy on test set: 88.85%\n" in out.stdout
    assert any(line.startswith("cpu-mnist (") for line in out.stdout.splitlines())
    assert_fits(out.stdout, 80)


def test_a_sweep_presets_experiment_is_its_name_or_the_one_it_names(home, capsys, monkeypatch):
    """The experiment is the preset's ``name`` (as from the app's form: one rule), or the
    sweep's own ``experiment``; not the file's name."""
    presets = home.parent / "config" / "presets"
    presets.mkdir(parents=True)
    sweep = ('name = "short"\nworkload = "command"\ntelemetry_interval = 0\n'
             '[params]\ncommand = "true"\n[sweep]\nenv.X = ["1", "2"]\n')
    (presets / "my-sweep.toml").write_text(sweep)
    (presets / "named.toml").write_text(sweep + 'experiment = "chosen"\n')
    for preset, expected in (("my-sweep", "short"), ("named", "chosen")):
        assert main(["run", preset, "--detach"]) == 0
        assert Store().get_experiment(capsys.readouterr().out.strip()).name == expected


def test_workload_hints_name_what_accelbench_takes():
    """A hint says ``set KEY=VALUE`` (a preset key, ``--set`` on the command line), never
    the workload script's own ``--flag``, and the key is one of its workload's knobs."""
    import re

    from accelbench.engine.plugin.registry import get_workload
    from accelbench.engine.workloads import SCRIPTS_DIR

    for script, workload in (("bert_finetune.py", "bert_finetune"),
                             ("mnist_cnn.py", "mnist_cnn")):
        source = (SCRIPTS_DIR / script).read_text()
        hints = re.findall(r'hint=f?"([^"]*)"', source)
        assert hints and not [h for h in hints if re.search(r"(^|\s)--[a-z]", h)], hints
        for key in re.findall(r"\bset (\w+)=", " ".join(hints)):
            get_workload(workload).param(key)


def test_errors_and_hints_wrap_on_a_terminal_and_stay_one_line_in_a_pipe(home, monkeypatch):
    import subprocess
    import sys

    from tests.helpers import ROOT

    monkeypatch.delenv("COLUMNS", raising=False)
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    name = "no-such-preset-named-at-some-length"
    # os.environ, not the process's own environment, which readline may have given COLUMNS
    proc = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "run", name],
                          stdout=subprocess.PIPE, stderr=follower, cwd=ROOT, check=False,
                          env=os.environ.copy())
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    lines = shown.decode().replace("\r\n", "\n").splitlines()
    assert proc.returncode == 2 and len(lines) > 2
    assert all(len(line) <= 40 for line in lines if " " in line.strip()), lines
    assert " ".join(shown.decode().split()) == (
        f"accelbench: error: {name}: no such preset file or preset name"
        " hint: run `accelbench presets` to list the presets")
    assert name in shown.decode()  # whole
    assert len(accelbench("run", name).stderr.splitlines()) == 2  # piped: a line each


def test_how_a_column_narrows_is_given_for_its_title_only():
    from accelbench.cli.live import SUMMARY_NARROW

    for heads in (present.run_heads(), present.experiment_heads(), present.preset_heads(),
                  present.accelerator_heads(), present.parse_heads(),
                  present.experiment_list_heads(),
                  present.heads(("figure", "value", "from"), ("value",), SUMMARY_NARROW)):
        assert any(h.priority or h.shorten for h in heads)
    with pytest.raises(ValueError, match="final_loss"):  # a renamed column: caught at once
        present.heads(("final loss",), (), {"final_loss": {"priority": 10}})


@pytest.mark.parametrize("columns", [40, 80, 160])
def test_the_live_run_view_keeps_its_figures_whole(columns):
    from accelbench.cli.live import render
    from accelbench.engine.core.events import Metric, Progress, Utilization

    state = RunState(f"20260101-000000-{NAME}-abcdef")
    state.feed(Phase(state.run_id, 1.0, "running"))
    state.feed(Progress(state.run_id, 2.0, 1234, 18750, 1.5, 10))
    state.feed(Metric(state.run_id, 2.0, "loss", 0.123456))
    for engine in ("tensor", "vector", "scalar", "gpsimd", "dma", "sync", "collectives"):
        state.feed(Utilization(state.run_id, 2.0, engine, 21.25))
    console = Console(width=columns, record=True, color_system=None)
    console.print(render(state, NAME, columns))
    text = console.export_text()
    assert_fits(text, columns)
    assert {"1234/18750", "1.5/10", "0.1235", "collectives", "21.2%"} <= words(text)


def test_knob_values_are_never_rounded_in_exports(ids, capsys, monkeypatch):
    """A learning rate of 1e-05 is no 0.0 (the bars' labels: the compare test above)."""
    for form in ("csv", "markdown"):
        out = shown(capsys, 160, "compare", "--experiment", "bert-padding-sweep-on-trainium",
                    "--format", form, monkeypatch=monkeypatch)
        assert {"1e-05", "4e-05"} <= set(out.replace(",", " ").replace("|", " ").split()), out
