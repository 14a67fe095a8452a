"""The live terminal view of one run (rich), and the summary table at its end."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from accelbench.cli.console import console  # noqa: F401 (the commands import it here)
from accelbench.engine import format as fmt
from accelbench.engine import present
from accelbench.engine.present import Cell, Head
from accelbench.engine.state import RunState
from accelbench.engine.summary import RunSummary

if TYPE_CHECKING:  # the listings need neither (nor what they import)
    from accelbench.engine.compare import Comparison
    from accelbench.engine.experiment import Experiment


def render(state: RunState, name: str, log_lines: int = 5) -> RenderableType:
    """Phase, progress bar with step/epoch/samples/s/loss/ETA, engines, last log lines."""
    now = time.time()
    head = Text.assemble((f"● {state.phase}", present.phase_style(state.phase)),
                         (f" {state.phase_detail}" if state.phase_detail else "", "dim"),
                         f"  {name}  ", (state.run_id, "dim"),
                         f"  {present.phase_clock(state, now)}")
    bar = Table.grid(padding=(0, 1))
    bar.add_row(ProgressBar(total=state.total or None, completed=state.step, width=40),
                Text(f"{state.step}/{state.total or '?'} steps"),
                Text(f"epoch {state.epoch:g}/{state.epochs:g}" if state.epochs else ""),
                Text(f"{fmt.number(state.samples_per_s())} samples/s", style="bold"),
                Text(f"loss {fmt.number(state.metrics.get('loss'))}"))
    parts: list[RenderableType] = [head, bar]
    if state.utilization:
        parts.append(Text("  ".join(f"{u.engine} {present.utilization_figure(u)}"
                                    for u in state.utilization.values()),
                          style="dim", overflow="ellipsis", no_wrap=True))
    for diag in state.diagnoses:
        parts.append(Text.assemble("! ", present.diagnosis_line(diag), style="yellow"))
    lines = [*state.log_tail, state.redraw] if state.redraw else list(state.log_tail)
    for line in lines[-log_lines:]:
        parts.append(Text(line, style="dim", overflow="ellipsis", no_wrap=True))
    return Group(*parts)


def summary_table(state: RunState, name: str) -> Table:
    """The figures of a finished run, as the seed notes tabulate them."""
    summary = RunSummary.from_dict(state.finished.summary) if state.finished else state.summary()
    table = Table(title=f"{name} ({state.run_id}): {state.phase}", title_justify="left")
    for column in ("samples/s", "train time", "final loss", "test accuracy", "steps", "duration"):
        table.add_column(column, justify="right")
    accuracy = summary.accuracy
    table.add_row(fmt.number(summary.samples_per_s),
                  fmt.duration(summary.train_time_s),
                  fmt.number(summary.final_loss),
                  "-" if accuracy is None else f"{fmt.fixed(accuracy)}%",
                  "/".join("-" if n is None else str(n)
                           for n in (summary.steps, summary.total_steps)),
                  fmt.duration(summary.duration_s))
    return table


def table(heads: list[Head], rows: list[list[Cell]], **options) -> Table:
    """A Rich table of the presentation model's heads and cells."""
    out = Table(**options)
    for head in heads:
        out.add_column(head.rich(), justify=head.justify)
    for row in rows:
        out.add_row(*(cell.rich() for cell in row))
    return out


def render_experiment(exp: Experiment, states: dict[str, RunState]) -> RenderableType:
    """An experiment live: its progress as a whole, then one row per variant."""
    entries = exp.entries()
    found = [states.get(e.run_id) if e.run_id else None for e in entries]
    statuses = [present.entry_status(e, state) for e, state in zip(entries, found, strict=True)]
    head = present.experiment_banner(exp.info.name, exp.id, exp.status(), statuses)
    rows = [present.entry_cells(e, state) for e, state in zip(entries, found, strict=True)]
    grid = table(present.experiment_heads(), rows, box=None, pad_edge=False)
    for column in grid.columns:
        column.no_wrap = True
    return Group(head, ProgressBar(total=len(entries), completed=present.ended_count(statuses),
                                   width=40), grid)


def comparison_table(cmp: Comparison, title: str) -> Table:
    """A ``Comparison`` as the seed notes tabulate runs; the best value per column marked."""
    out = table(present.comparison_heads(cmp), present.comparison_rows(cmp),
                title=f"{title}: {len(cmp.runs)} runs ({present.BEST_MARK} best)",
                title_justify="left")
    out.columns[0].no_wrap = True
    return out
