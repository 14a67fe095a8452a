"""One set of figures: the same runs give the same figure under the same label in the CLI
(``runs``, ``show``, ``compare``), the exports, and the app's experiment view, compare
screen and run view; what each label means is said once (``summary.FIGURES``)."""

import csv
import io
import json
import re
import shlex
import sys
import time

from textual.widgets import DataTable, Static

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.summary import FIGURES
from accelbench.engine.run import experiment
from accelbench.engine.view import model as present
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.run_view import RunView
from tests.helpers import accelbench, wait_until

# a trainer's figures that differ by definition: the newest throughput interval (300) is
# not the run's (its trainer says 180, the samples' mean is 200); its last logged loss
# (1.0) is not the loss it reports for the training (train_loss)
REPORT = """
import json, time
def emit(**f):
    print("@@accelbench " + json.dumps({"t": time.time(), **f}), flush=True)
for step, (rate, loss) in enumerate(zip((100.0, 300.0, 300.0), (2.0, 1.5, 1.0)), 1):
    emit(type="throughput", samples_per_s=rate, step=step)
    emit(type="metric", name="loss", value=loss, step=step)
emit(type="metric", name="train_samples_per_second", value=RATE)
emit(type="metric", name="train_loss", value=TRAIN_LOSS)
emit(type="metric", name="accuracy", value=91.5)
"""
LABELS = [FIGURES[key].label for key in ("samples_per_s", "final_loss", "accuracy")]
EXPECTED = [{"samples/s": "180", "final loss": "1.45", "acc %": "91.50"},
            {"samples/s": "250", "final loss": "1.25", "acc %": "91.50"}]


def variant(rate, train_loss):
    code = REPORT.replace("TRAIN_LOSS", repr(train_loss)).replace("RATE", repr(rate))
    return {"command": shlex.join([sys.executable, "-c", code])}


def finished_experiment(runner):
    spec = spec_from_dict({"name": "figures", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": "true"},
                           "sweep": {"variants": [variant(180.0, 1.45), variant(250.0, 1.25)]}})
    exp = experiment.start(runner, spec)
    deadline = time.monotonic() + 60
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert exp.status() == "done"
    return exp, [info.id for info in exp.runs()]


def figure_rows(text):
    """(figure, value) of ``show``'s summary table (columns figure, value, from)."""
    lines = text.splitlines()
    head_at = next(i for i, line in enumerate(lines) if line.split()[:2] == ["figure", "value"])
    for line in lines[head_at + 2:]:
        if not line.strip() or line.startswith("what each figure"):
            return
        yield tuple(re.split(r"\s{2,}", line.strip())[:2])


def plain_rows(text, titles):
    """The values of the (right-justified) columns ``titles`` of a table without borders,
    as dicts: each value ends where its title ends and starts after the title before."""
    lines = text.splitlines()
    head_at = next(i for i, line in enumerate(lines) if all(t in line for t in titles))
    head = lines[head_at]
    ends = [head.index(t) + len(t) for t in titles]
    starts = [len(head[:head.index(t)].rstrip()) for t in titles]
    return [{t: line[a:b].strip() for t, a, b in zip(titles, starts, ends, strict=True)}
            for line in lines[head_at + 2:] if line.strip()]


def shown(row):
    return {label: row[label] for label in LABELS if label in row}


def table_rows(table: DataTable):
    titles = [str(c.label) for c in table.columns.values()]
    return [dict(zip(titles, (str(c).removesuffix("★").strip() for c in table.get_row_at(i)),
                     strict=True)) for i in range(table.row_count)]


async def test_the_same_figures_under_the_same_labels_everywhere(runner, monkeypatch):
    exp, ids = finished_experiment(runner)
    monkeypatch.setenv("COLUMNS", "200")

    titles = LABELS
    listed = [shown(row) for row in plain_rows(accelbench("runs").stdout, titles)]
    assert listed == EXPECTED[::-1]  # newest first

    for run_id, expected in zip(ids, EXPECTED, strict=True):
        show = accelbench("show", run_id).stdout
        figures = dict(figure_rows(show))
        assert shown(figures) == expected
    assert "final_loss" not in show and "metric train_loss" in show  # where each came from

    table = plain_rows(accelbench("compare", *ids).stdout, titles)
    assert [{k: v.removesuffix("★").split()[-1] for k, v in shown(row).items()} for row in table
            if row[LABELS[-1]]] == EXPECTED  # (a wrapped command's next lines have no figures)

    export = json.loads(accelbench("compare", *ids, "--format", "json").stdout)
    titles = {c["key"]: c["title"] for c in export["columns"]}
    assert all(titles[key] == FIGURES[key].label for key in titles if key in FIGURES)
    assert [{titles[k]: present.figure_text(k, v) for k, v in run["figures"].items()}
            for run in export["runs"]] == EXPECTED
    exported = csv.DictReader(io.StringIO(accelbench("compare", *ids, "--format", "csv").stdout))
    assert [[row[k] for k in ("samples_per_s", "final_loss", "accuracy")] for row in exported
            ] == [["180", "1.45", "91.5"], ["250", "1.25", "91.5"]]  # as they parse back

    app = AccelbenchApp(runner)
    async with app.run_test(size=(160, 48)) as pilot:
        app.push_screen(ExperimentView(exp))
        await wait_until(pilot, lambda: isinstance(app.screen, ExperimentView)
                         and bool(app.screen.query(DataTable)))  # composed, not only pushed
        view = app.screen
        grid = view.query_one(DataTable)
        await wait_until(pilot, lambda: [r["status"] for r in table_rows(grid)] == ["done"] * 2)
        await wait_until(pilot, lambda: [shown(r) for r in table_rows(grid)] == EXPECTED)
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen)
                         and app.screen.query_one(DataTable).row_count == 2)
        assert [shown(r) for r in table_rows(app.screen.query_one(DataTable))] == EXPECTED
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is view)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and bool(app.screen.query("#figures")))
        line = app.screen.query_one("#figures", Static)
        await wait_until(pilot, lambda: str(line.content).startswith("samples/s"))
        assert str(line.content) == "samples/s 180 · final loss 1.45 · acc % 91.50"
        assert f"final loss = {FIGURES['final_loss'].meaning}" in str(line.tooltip)
        panel = str(app.screen.query_one("#throughput .figures", Static).content)
        assert panel == "last samples/s 300 · samples/s 180 · peak 300"


async def test_a_run_that_ended_without_throughput_says_none_reported(runner):
    """The throughput panel of a run that ended with no rate says so ("waiting for data…"
    stayed: the panel skipped a redraw whose values were the same, its text not)."""
    spec = spec_from_dict({"name": "quiet", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": shlex.join(
                               [sys.executable, "-c", "import time; time.sleep(1.5)"])}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView)
                         and bool(app.screen.query("#throughput")))
        panel = app.screen.query_one("#throughput .figures", Static)
        await wait_until(pilot, lambda: str(panel.content) == "waiting for data…")
        await wait_until(pilot, lambda: str(panel.content) == "none reported", timeout=30)
