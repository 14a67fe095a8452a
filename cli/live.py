"""The live terminal view of one run (rich), and the summary table at its end."""

from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from engine import format as fmt
from engine.state import RunState

PHASE_STYLE = {"queued": "yellow", "starting": "yellow", "loading": "cyan", "compiling": "magenta",
               "running": "bold green", "evaluating": "bold cyan", "done": "bold green",
               "failed": "bold red", "cancelled": "bold yellow", "lost": "bold red"}


def render(state: RunState, name: str, log_lines: int = 5) -> RenderableType:
    """Phase, progress bar with step/epoch/samples/s/loss/ETA, engines, last log lines."""
    now = time.time()
    head = Text.assemble((f"● {state.phase}", PHASE_STYLE.get(state.phase, "bold")),
                         (f" {state.phase_detail}" if state.phase_detail else "", "dim"),
                         f"  {name}  ", (state.run_id, "dim"),
                         f"  elapsed {fmt.duration(state.elapsed(now))}",
                         f"  ETA {fmt.duration(state.eta())}")
    bar = Table.grid(padding=(0, 1))
    bar.add_row(ProgressBar(total=state.total or None, completed=state.step, width=40),
                Text(f"{state.step}/{state.total or '?'} steps"),
                Text(f"epoch {state.epoch:g}/{state.epochs:g}" if state.epochs else ""),
                Text(f"{fmt.number(state.samples_per_s())} samples/s", style="bold"),
                Text(f"loss {fmt.number(state.metrics.get('loss'))}"))
    parts: list[RenderableType] = [head, bar]
    engines = [u for u in state.utilization.values()]
    if engines:
        parts.append(Text("  ".join(
            f"{u.engine} {u.value:g} {u.unit}" if u.unit else f"{u.engine} {u.percent:.0f}%"
            for u in engines), style="dim", overflow="ellipsis", no_wrap=True))
    for diag in state.diagnoses:
        parts.append(Text(f"! {diag.message}" + (f" ({diag.hint})" if diag.hint else ""),
                          style="yellow"))
    for line in list(state.log_tail)[-log_lines:]:
        parts.append(Text(line, style="dim", overflow="ellipsis", no_wrap=True))
    return Group(*parts)


def summary_table(state: RunState, name: str) -> Table:
    """The figures of a finished run, as the seed notes tabulate them."""
    summary = state.finished.summary if state.finished else state.summary()
    table = Table(title=f"{name} ({state.run_id}): {state.phase}", title_justify="left")
    for column in ("samples/s", "train time", "final loss", "test accuracy", "steps", "duration"):
        table.add_column(column, justify="right")
    accuracy = summary.get("accuracy")
    table.add_row(fmt.number(summary.get("samples_per_s")),
                  fmt.duration(summary.get("train_time_s")),
                  fmt.number(summary.get("final_loss")),
                  "-" if accuracy is None else f"{accuracy:.2f}%",
                  f"{summary.get('steps', '-')}/{summary.get('total_steps', '-')}",
                  fmt.duration(summary.get("duration_s")))
    return table
