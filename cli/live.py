"""The live terminal view of one run (rich), and the summary table at its end."""

from __future__ import annotations

import textwrap
import time
from typing import TYPE_CHECKING

from rich import box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from accelbench.cli.console import console, width  # noqa: F401 (the commands import them here)
from accelbench.engine.core.text import printable
from accelbench.engine.run.state import RunState
from accelbench.engine.view import figures as fmt
from accelbench.engine.view import layout
from accelbench.engine.view import model as present
from accelbench.engine.view.model import Cell, Head

if TYPE_CHECKING:  # the listings need neither (nor what they import)
    from accelbench.engine.run.experiment import Experiment
    from accelbench.engine.store.compare import Comparison


def wrapped(text: str, columns: int, indent: str = "") -> str:
    """``text`` wrapped to ``columns`` at spaces only (names, ids and paths stay whole), each
    line after the first indented by ``indent``."""
    return textwrap.fill(text, columns, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


BAR_WIDTH = 40  # the progress bar's cells, where the width allows
MIN_BAR = 10  # narrower than this, the bar takes a line of its own above the figures


WRAP_KEY = "w"  # the live view's key that shows its cut log lines whole (and cuts them again)


def render(state: RunState, name: str, columns: int, log_lines: int = 5,
           whole: bool | None = None) -> RenderableType:
    """Phase, progress bar with step/epoch/samples/s/loss/ETA, engines, last log lines, in
    ``columns`` cells: the figures whole (on a line of their own when narrow). A log line
    wider than that is cut with ``…``, or wrapped when ``whole``; ``whole`` None: no key
    switches it (else a line says that ``WRAP_KEY`` does, where a line is that wide)."""
    now = time.time()
    head = Text.assemble((f"● {state.phase}", present.phase_style(state.phase)),
                         (present.phase_detail(state), "dim"),
                         f"  {printable(name)}  {present.phase_clock(state, now)}  ",
                         (state.run_id, "dim"))  # last: a narrow terminal wraps the id alone
    figures = [Text(f"{state.step}/{state.total or '?'} steps"),
               *([Text(f"epoch {state.epoch:g}/{state.epochs:g}")] if state.epochs else []),
               Text(present.last_rate(state), style="bold"),
               Text(f"{present.LOSS} {fmt.number(state.summary().final_loss)}")]
    room = columns - sum(figure.cell_len + 1 for figure in figures)
    bar = Table.grid(padding=(0, 1))
    if room >= MIN_BAR:
        bar.add_row(ProgressBar(total=state.total or None, completed=state.step,
                                width=min(BAR_WIDTH, room)), *figures)
        parts: list[RenderableType] = [head, bar]
    else:
        bar.add_row(ProgressBar(total=state.total or None, completed=state.step,
                                width=min(BAR_WIDTH, columns)))
        parts = [head, bar, Columns(figures, padding=(0, 1))]
    if state.utilization:
        parts.append(Columns([Text(f"{printable(u.engine)} {present.utilization_figure(u)}",
                                   style="dim")
                              for u in state.utilization.values()], padding=(0, 2)))
    for diag in state.diagnoses:
        parts.append(Text.assemble("! ", present.diagnosis_line(diag), style="yellow"))
    lines = [Text(line, style="dim", overflow="fold" if whole else "ellipsis", no_wrap=not whole)
             for line in present.log_lines(state, log_lines)]
    parts.extend(lines)
    if whole is not None and any(line.cell_len > columns for line in lines):
        what = "cut the long lines" if whole else "show the cut lines whole"
        parts.append(Text(f"{WRAP_KEY}: {what}", style="italic dim"))
    return Group(*parts)


SUMMARY_NARROW = {"from": {"priority": 50, "fit": "wrap"}}


def summary_table(state: RunState, name: str, columns: int) -> Group:
    """The figures of a run (``present.run_summary``), each with where it came from,
    then its steps and duration."""
    summary = present.run_summary(state)
    rows = [[Cell(label), Cell(value, justify="right"), Cell(source, "dim")]
            for label, value, source in present.figure_lines(summary)]
    rows.append([Cell("steps"), Cell("/".join("-" if n is None else str(n) for n in
                                              (summary.steps, summary.total_steps)),
                                     justify="right"), Cell("done, of the total reported", "dim")])
    rows.append([Cell("duration"), Cell(fmt.duration(summary.duration_s), justify="right"),
                 Cell("first event to last", "dim")])
    return Group(Text(f"{printable(name)} ({state.run_id}): {state.phase}", style="italic"),
                 table(present.heads(("figure", "value", "from"), ("value",), SUMMARY_NARROW),
                       rows, columns),
                 Text("what each figure is: accelbench show --help", style="dim"))


def table(heads: list[Head], rows: list[list[Cell]], columns: int, title: str = "",
          shape: layout.Layout | None = None) -> Table:
    """A Rich table of the presentation model's heads and cells in ``columns`` cells at most:
    the columns ``engine.view.layout`` chooses (or ``shape`` chose), none cut (``whole`` ones
    never wrap)."""
    shape = shape or layout.fit(heads, rows, columns)
    out = Table(title=Text(printable(title)) if title else None, title_justify="left",
                box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0),
                collapse_padding=True)
    for head, size in zip(shape.heads(heads), shape.widths, strict=True):
        out.add_column(head.rich(), justify=head.justify, width=size,
                       no_wrap=head.fit == "whole", overflow="fold")
    for row in rows:
        out.add_row(*(cell.rich() for cell in shape.row(row)))
    return out


def render_experiment(exp: Experiment, states: dict[str, RunState],
                      columns: int) -> RenderableType:
    """An experiment live: its progress as a whole, then one row per variant."""
    entries = exp.entries()
    found = [states.get(e.run_id) if e.run_id else None for e in entries]
    statuses = [present.entry_status(e, state) for e, state in zip(entries, found, strict=True)]
    head = present.experiment_banner(exp.info.name, exp.id, exp.status(), statuses)
    rows = [present.entry_cells(e, state) for e, state in zip(entries, found, strict=True)]
    bar = Table.grid()  # a line of its own: a bare ProgressBar ends with no newline
    bar.add_row(ProgressBar(total=len(entries), completed=present.progress_count(statuses),
                            width=min(40, columns)))
    return Group(head, bar, table(present.experiment_heads(), rows, columns))


def comparison_table(cmp: Comparison, title: str, columns: int) -> RenderableType:
    """A ``Comparison`` as the seed notes tabulate runs, the best value per column marked: a
    row per run, or where that is too wide, a column per run (in as many tables as needed)."""
    heads, rows = present.comparison_heads(cmp), present.comparison_rows(cmp)
    title = f"{title}: {fmt.counted(len(cmp.runs), 'run')} ({present.BEST_MARK} best)"
    if layout.fit(heads, rows, columns).width <= columns:
        return table(heads, rows, columns, title=title)
    heads, rows = layout.transpose(heads, rows)
    parts = layout.split(heads, rows, columns)
    return Group(*(table(part_heads, part_rows, columns, title=title if not i else "")
                   for i, (part_heads, part_rows) in enumerate(parts)))
