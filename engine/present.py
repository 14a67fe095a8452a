"""How runs look: one presentation model for the CLI (Rich) and the app (Textual).

Plain data: a ``Cell`` is a text, a Rich style string ("bold green") and a justification;
a ``Head`` is a column's title and justification. The functions here turn runs, run
states, experiments and comparisons into rows of cells; the CLI prints them in Rich
tables, the app's screens put them in data tables, both through ``Cell.rich()``
(a ``rich.text.Text``: user values are never read as markup). Phase and status labels
and their styles, key parameters and the best marks live here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text

from accelbench.engine import format as fmt
from accelbench.engine.events import FINAL_STATUSES, Diagnosis, Utilization
from accelbench.engine.params import KEY_PARAMS
from accelbench.engine.state import RunState
from accelbench.engine.store import RunInfo
from accelbench.engine.summary import RunSummary

if TYPE_CHECKING:  # annotations only: a listing of runs needs neither (nor what they import)
    from accelbench.engine.compare import Comparison
    from accelbench.engine.experiment import Entry

Justify = Literal["left", "right"]


@dataclass(frozen=True)
class Cell:
    """One table cell: its text, a Rich style string, and how it sits in its column."""

    text: str
    style: str = ""
    justify: Justify | None = None

    def rich(self) -> Text:
        """The cell as Rich ``Text`` (never markup), for a Rich table or a Textual widget."""
        return Text(self.text, style=self.style, justify=self.justify)


@dataclass(frozen=True)
class Head:
    """A column's title and justification."""

    title: str
    justify: Justify = "left"

    def rich(self) -> Text:
        """The title as Rich ``Text`` (titles may be the runs' own knob names)."""
        return Text(self.title)


def heads(titles: Iterable[str], numeric: Iterable[str] = ()) -> list[Head]:
    """Column heads; those in ``numeric`` right-justified."""
    right = set(numeric)
    return [Head(t, "right" if t in right else "left") for t in titles]


# phases and statuses ---------------------------------------------------------
PHASE_STYLE = {"queued": "yellow", "starting": "yellow", "loading": "cyan",
               "compiling": "magenta", "running": "bold green", "evaluating": "bold cyan",
               "completing": "bold cyan", "done": "bold green", "failed": "bold red",
               "cancelled": "bold yellow", "ended": "bold yellow", "lost": "bold red",
               "unreadable": "bold red", "pending": "dim", "skipped": "dim"}
UNKNOWN_STYLE = "bold"


def phase_style(phase: str) -> str:
    """The style of a run's phase or status (an experiment variant's too)."""
    return PHASE_STYLE.get(phase, UNKNOWN_STYLE)


def status_cell(status: str) -> Cell:
    """A phase or status, styled."""
    return Cell(status, phase_style(status))


def availability_cell(available: bool) -> Cell:
    """Whether an accelerator is available here, styled."""
    return Cell("available", "green") if available else Cell("not detected", "red")


def phase_clock(state: RunState, now: float) -> str:
    """Elapsed time and ETA to the whole second."""
    eta = state.eta()
    return (f"elapsed {fmt.duration(int(state.elapsed(now)))}"
            f"  ETA {fmt.duration(None if eta is None else int(eta))}")


def utilization_figure(sample: Utilization) -> str:
    """An engine's newest reading: its absolute value where it has one, else its percent."""
    if sample.unit and sample.value is not None:
        return f"{sample.value:,.0f} {sample.unit}"
    return f"{sample.percent:.1f}%"


def diagnosis_line(diag: Diagnosis) -> Text:
    """A diagnosis in one line: its message in bold, then its hint."""
    return Text.assemble((diag.message, "bold"), f"  hint: {diag.hint}" if diag.hint else "")


# runs --------------------------------------------------------------------------
RUN_COLUMNS = ("status", "run", "workload", "accel", "params", "samples/s", "loss", "acc %",
               "started")
_NUMERIC = ("samples/s", "loss", "acc %")
# what each column is sorted by in the index (``store.SORTS``)
RUN_SORTS = dict(zip(RUN_COLUMNS, ("status", "id", "workload", "accelerator", "knobs",
                                   "samples_per_s", "final_loss", "accuracy", "created"),
                     strict=True))


def key_params(params: Mapping[str, Any]) -> str:
    """The knobs that tell runs apart at a glance, abbreviated: ``bs=64 lr=0.001``."""
    return " ".join(f"{short}={params[name]}" for name, short in KEY_PARAMS.items()
                    if name in params)


def short_id(run_id: str) -> str:
    """A run id's 6-hex suffix: unique, and every command takes it for the id."""
    return run_id.rsplit("-", 1)[-1]


def run_values(info: RunInfo, live: tuple[str, RunSummary] | None = None) -> tuple:
    """A run's row as raw values in ``RUN_COLUMNS`` order (for sorting); ``live``: the
    phase and figures of a followed run, newer than the index's."""
    status, s = live or (info.status, info.summary)
    return (status, info.id, info.workload, info.accelerator, key_params(info.params),
            s.samples_per_s, s.final_loss, s.accuracy, fmt.when(info.created))


def run_cells(values: tuple, marked: bool = False, short: bool = False) -> list[Cell]:
    """The cells of ``run_values``; a ``marked`` run's id is prefixed with ``●``; ``short``:
    the id's suffix only."""
    status, run_id, workload, accel, params, rate, loss, accuracy, started = values
    shown_id = short_id(run_id) if short else run_id
    return [status_cell(status), Cell(f"● {shown_id}" if marked else shown_id), Cell(workload),
            Cell(accel), Cell(params), Cell(fmt.number(rate), justify="right"),
            Cell(fmt.number(loss), justify="right"), Cell(fmt.fixed(accuracy), justify="right"),
            Cell(started)]


def run_heads() -> list[Head]:
    """The heads of ``run_cells``."""
    return heads(RUN_COLUMNS, _NUMERIC)


# experiments ------------------------------------------------------------------
EXPERIMENT_COLUMNS = ("#", "variant", "status", "progress", "samples/s", "loss", "acc %", "run")
ENDED = (*FINAL_STATUSES, "skipped")


def entry_status(entry: Entry, state: RunState | None) -> str:
    """A variant's status: its run's phase, ``starting`` before its run is read,
    ``skipped`` with a note on why, else ``pending``."""
    if state is not None:
        return state.phase
    if entry.run_id:
        return "starting"
    return "skipped" if entry.note else "pending"


def entry_cells(entry: Entry, state: RunState | None, short: bool = False) -> list[Cell]:
    """One variant's row: its label, status, progress (or note), figures and run id (its
    suffix if ``short``)."""
    progress = (f"{state.step}/{state.total}" if state and state.total
                else "" if entry.run_id else entry.note)
    figures = ((state.samples_per_s(), state.metrics.get("loss"), state.metrics.get("accuracy"))
               if state else (None, None, None))
    return [Cell(str(entry.index + 1), justify="right"), Cell(entry.label),
            status_cell(entry_status(entry, state)), Cell(progress),
            Cell(fmt.number(figures[0]), justify="right"),
            Cell(fmt.number(figures[1]), justify="right"),
            Cell(fmt.fixed(figures[2]), justify="right"),
            Cell(short_id(entry.run_id) if short and entry.run_id else entry.run_id or "")]


def experiment_heads() -> list[Head]:
    """The heads of ``entry_cells``."""
    return heads(EXPERIMENT_COLUMNS, ("#", *_NUMERIC))


def experiment_banner(name: str, exp_id: str, status: str, statuses: list[str]) -> Text:
    """An experiment's line: name, status, how many variants ended, the count per status."""
    ended = ended_count(statuses)
    counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
    return Text.assemble((name, "bold"), "  ", (status, phase_style(status)),
                         f"  {ended}/{len(statuses)} ended  (",
                         ", ".join(f"{n} {s}" for s, n in counts.items()), ")",
                         (f"  {exp_id}", "dim"))


def ended_count(statuses: Iterable[str]) -> int:
    """How many variants have ended (their run ended, or they were skipped)."""
    return sum(1 for s in statuses if s in ENDED)


def ran_count(statuses: Iterable[str]) -> int:
    """How many variants ran to their end (an experiment's progress: a cancelled or skipped
    variant ended without running its course)."""
    return sum(1 for s in statuses if s in ENDED and s not in ("cancelled", "skipped"))


# comparisons ------------------------------------------------------------------
BEST_MARK = "★"
BEST_STYLE = "bold green"
PARAM_STYLE = "cyan"


def comparison_heads(cmp: Comparison) -> list[Head]:
    """``run``, the knobs that differ, then the figures (right-justified)."""
    return [Head("run"), *(Head(p) for p in cmp.params),
            *(Head(c.title, "right") for c in cmp.columns)]


def comparison_rows(cmp: Comparison) -> list[list[Cell]]:
    """One row per run: its number and id suffix (red unless done), its knobs, its figures;
    the best value of a ranked column marked ``★``."""
    rows = []
    for i, run in enumerate(cmp.runs):
        values = cmp.values[i]
        cells = [Cell(f"{i + 1} {short_id(run.id)}", "dim" if run.status == "done" else "red")]
        cells += [Cell(str(values.get(p, "-")), PARAM_STYLE) for p in cmp.params]
        for column in cmp.columns:
            text = fmt.number(values.get(column.key))
            cells.append(Cell(f"{text} {BEST_MARK}", BEST_STYLE, "right")
                         if cmp.is_best(i, column.key) else Cell(text, justify="right"))
        rows.append(cells)
    return rows
