"""The presentation model shared by the CLI and the app (engine/present.py)."""

import shlex
import sys
from pathlib import Path

from rich.console import Console
from textual.widgets import DataTable

from accelbench.cli.live import comparison_table, render_experiment, table
from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import (
    FINAL_STATUSES,
    PHASES,
    Metric,
    Phase,
    Progress,
    Utilization,
)
from accelbench.engine.core.job import RunInfo
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.run.experiment import Entry
from accelbench.engine.run.state import RunState
from accelbench.engine.store.compare import Column, Comparison
from accelbench.engine.view import model as present
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import wait_until


def info(run_id: str, status: str = "done", summary=None, **fields) -> RunInfo:
    if summary is not None:
        fields["summary"] = RunSummary.from_dict(summary)
    return RunInfo(run_id, Path("/nonexistent"), 0.0, "r", "mnist_cnn", "cpu", "local", status,
                   **fields)


def plain(renderable, width: int = 200) -> str:
    console = Console(width=width, record=True, markup=False, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_every_phase_and_status_has_its_own_style():
    for name in (*PHASES, *FINAL_STATUSES, "unreadable", "pending", "skipped"):
        assert present.phase_style(name) != present.UNKNOWN_STYLE, name
    assert present.phase_style("done") == "bold green"
    assert present.phase_style("failed") == "bold red"
    assert present.status_cell("lost") == present.Cell("lost", "bold red")


def test_key_params_are_abbreviated_in_a_fixed_order():
    params = {"epochs": 2, "other": 1, "learning_rate": 0.001, "batch_size": 64}
    assert present.key_params(params) == "bs=64 lr=0.001 ep=2"
    assert present.key_params({}) == ""


def test_run_cells_format_figures_and_style_the_status():
    run = info("20260101-000000-r-ab12", "failed", params={"batch_size": 8},
               summary={"samples_per_s": 1234.5678, "final_loss": 0.123456, "accuracy": 97.5})
    values = present.run_values(run)
    cells = present.run_cells(values, marked=True)
    assert [c.text for c in cells] == ["failed", "● 20260101-000000-r-ab12", "mnist_cnn", "cpu",
                                       "bs=8", "1235", "0.1235", "97.50", values[-1]]
    assert cells[0].style == "bold red"
    assert [c.justify for c in cells[5:8]] == ["right"] * 3
    live = present.run_values(run, present.Live("running", RunSummary(samples_per_s=5.0)))
    assert live[0] == "running" and live[5] == 5.0  # a followed run's figures win
    assert [h.title for h in present.run_heads()] == list(present.RUN_COLUMNS)


def test_the_cli_table_shows_the_model_cells_as_they_are():
    cells = [present.status_cell("cancelled"), present.Cell("[bold]x[/]"),
             present.Cell("1.5", justify="right")]
    shown = table(present.heads(("status", "name", "n"), ("n",)), [cells], 160)
    texts = [column._cells[0] for column in shown.columns]
    assert [(t.plain, str(t.style), t.justify) for t in texts] == [
        ("cancelled", "bold yellow", None), ("[bold]x[/]", "", None), ("1.5", "", "right")]
    assert shown.columns[2].justify == "right"
    assert "[bold]x[/]" in plain(shown)  # never read as markup


async def test_the_runs_screen_shows_the_same_status_cell_as_the_cli(runner):
    done = runner.start(spec_from_dict({"name": "a", "workload": "command",
                                        "telemetry_interval": 0, "params": {
                                            "command": shlex.join([sys.executable, "-c", "0"])}}))
    app = AccelbenchApp(runner)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_until(pilot, lambda: runner.store.get(done.id).status == "done", timeout=60)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 1
                         and str(app.screen.query_one(DataTable).get_row_at(0)[0]) == "done")
        table_ = app.screen.query_one(DataTable)
        shown = [cell for key, cell in zip(table_.columns, table_.get_row_at(0), strict=True)
                 if key.value != "progress"]  # the screen's own column
    expected = [c.rich() for c in present.run_cells(present.run_values(runner.store.get(done.id)))]
    cli = table(present.run_heads(), [present.run_cells(present.run_values(
        runner.store.get(done.id)))], 160)
    for tui_cell, cli_column, model in zip(shown, cli.columns, expected, strict=True):
        assert (tui_cell.plain, tui_cell.style) == (model.plain, model.style)
        assert (cli_column._cells[0].plain, cli_column._cells[0].style) == (
            model.plain, model.style)
    assert shown[0].style == "bold green"


def comparison() -> Comparison:
    runs = [info("20260101-000000-a-aa11"), info("20260101-000001-b-bb22", "failed")]
    return Comparison(runs, ["batch_size"],
                      [Column("samples_per_s", "samples/s", "max"),
                       Column("final_loss", "final loss", "min"), Column("util.cpu", "cpu util %")],
                      [{"batch_size": 8, "samples_per_s": 100.0, "final_loss": 0.5,
                        "util.cpu": 50.0},
                       {"batch_size": "[/]", "samples_per_s": 250.0, "final_loss": 0.7,
                        "util.cpu": 90.0}],
                      {"samples_per_s": {1}, "final_loss": {0}})


def test_comparison_rows_mark_the_best_and_number_the_runs():
    cmp = comparison()
    assert [(h.title, h.justify) for h in present.comparison_heads(cmp)] == [
        ("run", "left"), ("batch_size", "left"), ("samples/s", "right"),
        ("final loss", "right"), ("cpu util %", "right")]
    rows = present.comparison_rows(cmp)
    assert [[c.text for c in row] for row in rows] == [
        ["1 aa11", "8", "100", "0.5 ★", "50"], ["2 bb22", "[/]", "250 ★", "0.7", "90"]]
    assert [rows[0][0].style, rows[1][0].style] == ["dim", "red"]  # a failed run in red
    assert rows[1][2] == present.Cell("250 ★", "bold green", "right")
    assert rows[0][2] == present.Cell("100", justify="right")  # figures all right-justified
    assert rows[1][1].style == present.PARAM_STYLE
    text = plain(comparison_table(cmp, "grid", 200))
    assert "grid: 2 runs (★ best)" in text and "250 ★" in text and "[/]" in text


def test_experiment_rows_and_banner():
    state = RunState("r1")
    for event in (Phase("r1", 1.0, "running"), Progress("r1", 2.0, 5, 10),
                  Metric("r1", 2.0, "loss", 0.25), Metric("r1", 2.0, "accuracy", 91.234)):
        state.feed(event)
    entries = [Entry(0, "bs=8", {}, "r1"), Entry(1, "bs=16", {}, "r2"),
               Entry(2, "bs=32", {}, None, "skipped: earlier run failed"),
               Entry(3, "bs=64", {})]
    states = [state, None, None, None]
    statuses = [present.entry_status(e, s) for e, s in zip(entries, states, strict=True)]
    assert statuses == ["running", "starting", "skipped", "pending"]
    rows = [present.entry_cells(e, s) for e, s in zip(entries, states, strict=True)]
    assert [c.text for c in rows[0]] == ["1", "bs=8", "running", "5/10", "-", "0.25", "91.23",
                                         "r1"]
    assert [c.text for c in rows[1]][2:] == ["starting", "", "-", "-", "-", "r2"]
    assert rows[2][3].text == "skipped: earlier run failed" and rows[2][2].style == "dim"
    assert rows[0][2] == present.status_cell("running")
    banner = present.experiment_banner("[bold]x", "exp-1", "running", statuses)
    assert banner.plain == ("[bold]x  running  1/4 ended  (1 running, 1 starting, 1 skipped,"
                            " 1 pending)  exp-1")
    assert present.ended_count(["done", "failed", "skipped", "running"]) == 3
    ran = ["done", "failed", "lost", "cancelled", "skipped", "running"]
    assert present.progress_count(ran) == 2


def test_the_cli_experiment_view_uses_the_rows_and_banner(monkeypatch):
    entries = [Entry(0, "bs=8", {}, "r1"), Entry(1, "bs=16", {})]

    class Exp:
        id = "exp-1"
        info = type("Info", (), {"name": "grid"})()

        def entries(self):
            return entries

        def status(self):
            return "running"

    state = RunState("r1")
    state.feed(Phase("r1", 1.0, "failed"))
    text = plain(render_experiment(Exp(), {"r1": state}, 160))
    assert "grid  running  1/2 ended  (1 failed, 1 pending)  exp-1" in text
    assert "failed" in text and "pending" in text


def test_figures_and_clock():
    state = RunState("r")
    state.feed(Phase("r", 100.0, "running"))
    assert present.phase_clock(state, 104.7) == "elapsed 4s  ETA -"
    assert present.utilization_figure(Utilization("r", 0, "cpu0", 5.0)) == "5.0%"
    assert present.utilization_figure(Utilization("r", 0, "mem", 40.0, 1234.4, "MiB")) == (
        "1,234 MiB")
    assert present.availability_cell(False) == present.Cell("not detected", "red")


def test_a_one_line_table_keeps_its_columns_whole_and_its_sorted_column():
    from accelbench.engine.view import layout

    heads = present.run_heads()
    row = present.run_cells(("running", "20261123-174812-cpu-mnist-a1b2c3", "mnist_cnn", "cpu",
                             "bs=64 lr=0.01 epochs=10 opt=adam", 1027.3, 0.6792, 88.85,
                             "2026-11-23 17:48"))
    titles = [h.title for h in heads]
    started, params = titles.index("started"), titles.index("params")

    def whole(shape: layout.Layout) -> bool:  # every shown cell as wide as its text
        return all(width >= max(len(heads[i].title), len(layout.text_of(row[i], k)))
                   for i, width, k in zip(shape.columns, shape.widths, shape.forms, strict=True))

    assert layout.fit(heads, [row], 158, wrap=False).columns == tuple(range(len(heads)))
    wrapped = layout.fit(heads, [row], 100)
    assert params in wrapped.columns and not whole(wrapped)  # the knobs wrap in a CLI table
    for width in (40, 60, 80, 100):
        narrow = layout.fit(heads, [row], width, wrap=False)
        assert whole(narrow) and narrow.width <= width
        assert {"status", "run", "samples/s"} <= {titles[i] for i in narrow.columns}
    narrow = layout.fit(heads, [row], 60, wrap=False)
    assert started not in narrow.columns and "workload" in {titles[i] for i in narrow.columns}
    assert narrow.forms[narrow.columns.index(1)] == 2  # the id by its 6-hex suffix
    kept = layout.fit(heads, [row], 60, keep=[started], wrap=False)
    assert started in kept.columns and kept.width <= 60 and whole(kept)
    assert layout.padded(80) == 80 - layout.GAP  # a data table pads its two edges too
