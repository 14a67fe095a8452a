"""The live terminal view of one run (rich), and the summary table at its end."""

from __future__ import annotations

import time

from rich.console import Console, Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from accelbench.engine import format as fmt
from accelbench.engine.events import FINAL_STATUSES
from accelbench.engine.state import RunState
from accelbench.engine.summary import RunSummary

PHASE_STYLE = {"queued": "yellow", "starting": "yellow", "loading": "cyan", "compiling": "magenta",
               "running": "bold green", "evaluating": "bold cyan", "done": "bold green",
               "failed": "bold red", "cancelled": "bold yellow", "ended": "bold yellow",
               "lost": "bold red"}


def console(**options) -> Console:
    """A console that never reads a string as markup or emoji codes: run names, metrics and
    log lines print as they are; styles come from ``Text`` and ``style=``."""
    return Console(markup=False, emoji=False, **options)


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
                  "-" if accuracy is None else f"{accuracy:.2f}%",
                  "/".join("-" if n is None else str(n)
                           for n in (summary.steps, summary.total_steps)),
                  fmt.duration(summary.duration_s))
    return table


def render_experiment(exp, states: dict[str, RunState]) -> RenderableType:
    """An experiment live: its progress as a whole, then one row per variant."""
    entries = exp.entries()
    status = {e.index: (states[e.run_id].phase if e.run_id in states else "starting")
              if e.run_id else ("skipped" if e.note else "pending") for e in entries}
    counts = {s: sum(1 for v in status.values() if v == s) for s in dict.fromkeys(status.values())}
    ended = sum(counts.get(s, 0) for s in (*FINAL_STATUSES, "skipped"))
    head = Text.assemble((f"experiment {exp.info.name}", "bold"), (f"  {exp.id}", "dim"),
                         f"  {ended}/{len(entries)} ended  ",
                         ", ".join(f"{n} {s}" for s, n in counts.items()))
    table = Table(box=None, pad_edge=False)
    for column in ("#", "variant", "status", "progress", "samples/s", "loss", "acc %", "run"):
        table.add_column(column, no_wrap=True,
                         justify="right" if column in ("#", "samples/s", "loss", "acc %") else "left")
    for e in entries:
        state = states.get(e.run_id) if e.run_id else None
        phase = status[e.index]
        progress = (f"{state.step}/{state.total or '?'}" if state and state.total else "")
        accuracy = state.metrics.get("accuracy") if state else None
        table.add_row(str(e.index + 1), e.label, Text(phase, PHASE_STYLE.get(phase, "dim")),
                      progress or (e.note if not e.run_id else ""),
                      fmt.number(state.samples_per_s()) if state else "-",
                      fmt.number(state.metrics.get("loss")) if state else "-",
                      "-" if accuracy is None else f"{accuracy:.2f}", e.run_id or "")
    return Group(head, ProgressBar(total=len(entries), completed=ended, width=40), table)


def comparison_table(cmp, title: str) -> Table:
    """A ``Comparison`` as the seed notes tabulate runs; the best value per column marked."""
    table = Table(title=f"{title}: {len(cmp.runs)} runs (* best)", title_justify="left")
    table.add_column("run", no_wrap=True)
    for param in cmp.params:
        table.add_column(param, style="cyan")
    for column in cmp.columns:
        table.add_column(column.title, justify="right")
    for i, run in enumerate(cmp.runs):
        values = cmp.values[i]
        short = run.id.rsplit("-", 1)[-1]  # ids resolve from a unique suffix
        cells: list[RenderableType] = [Text(f"{i + 1} {short}", style="dim" if run.status == "done"
                                            else "red")]
        cells += [str(values.get(p, "-")) for p in cmp.params]
        for column in cmp.columns:
            text = fmt.number(values.get(column.key))
            cells.append(Text(text + " *", style="bold green") if cmp.is_best(i, column.key)
                         else Text(text))
        table.add_row(*cells)
    return table
