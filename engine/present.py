"""How runs look: one presentation model for the CLI (Rich) and the app (Textual).

Plain data: a ``Cell`` is a text, a Rich style string ("bold green") and a justification;
a ``Head`` is a column's title and justification. The functions here turn runs, run
states, experiments and comparisons into rows of cells; the CLI prints them in Rich
tables, the app's screens put them in data tables, both through ``Cell.rich()``
(a ``rich.text.Text``: user values are never read as markup). Phase and status labels
and their styles, key parameters and the best marks live here and nowhere else.
"""

from __future__ import annotations

import re
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
    from accelbench.engine.presets import PresetEntry

Justify = Literal["left", "right"]
Fit = Literal["whole", "wrap"]


@dataclass(frozen=True)
class Cell:
    """One table cell: its text, a Rich style string, how it sits in its column, and the
    shorter forms of its text a narrow table may show instead (still whole for the user:
    a run id's unique suffixes)."""

    text: str
    style: str = ""
    justify: Justify | None = None
    shorter: tuple[str, ...] = ()

    def rich(self) -> Text:
        """The cell as Rich ``Text`` (never markup), for a Rich table or a Textual widget."""
        return Text(self.text, style=self.style, justify=self.justify)


@dataclass(frozen=True)
class Head:
    """A column's title, justification and style, and how a narrow table treats it
    (``engine.layout``): ``priority`` 0 never dropped, higher dropped sooner; ``shorten`` the
    priority of each shorter form of its cells; ``fit`` whether its cells stay ``whole`` or
    may ``wrap``."""

    title: str
    justify: Justify = "left"
    priority: int = 0
    fit: Fit = "whole"
    shorten: tuple[int, ...] = ()
    style: str = ""

    def rich(self) -> Text:
        """The title as Rich ``Text`` (titles may be the runs' own knob names)."""
        return Text(self.title, style=self.style)


def heads(titles: Iterable[str], numeric: Iterable[str] = (),
          narrow: Mapping[str, Mapping[str, Any]] | None = None) -> list[Head]:
    """Column heads; those in ``numeric`` right-justified; ``narrow``: by title, the
    ``priority``, ``shorten`` and ``fit`` a narrow table uses (``engine.layout``)."""
    titles, right, how = list(titles), set(numeric), narrow or {}
    if stray := set(how) - set(titles):  # a renamed column must keep how it narrows
        raise ValueError(f"narrowing given for no column: {sorted(stray)}")
    return [Head(t, "right" if t in right else "left", **how.get(t, {})) for t in titles]


_STAMPED = re.compile(r"\d{8}-\d{6}-(?P<rest>.+-(?P<random>[0-9a-f]{6}))")


def id_forms(ref: str) -> tuple[str, ...]:
    """The shorter suffixes of a run's or an experiment's id that still name it (the CLI and
    the app take any unique suffix): without its date and time, then its random end."""
    match = _STAMPED.fullmatch(ref)
    return (match["rest"], match["random"]) if match else ()


def id_cell(ref: str, prefix: str = "", style: str = "") -> Cell:
    """An id, with its shorter forms for a narrow table."""
    return Cell(prefix + ref, style, shorter=tuple(prefix + form for form in id_forms(ref)))


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
# narrower: the id without its date and time (the started column's) first, then the least
# telling columns, then the id's random end alone; status, id and samples/s always stay
RUN_NARROW: dict[str, dict[str, Any]] = {
    "run": {"shorten": (70, 20)}, "started": {"priority": 60}, "workload": {"priority": 50},
    "accel": {"priority": 40}, "params": {"priority": 30, "fit": "wrap"},
    "acc %": {"priority": 15}, "loss": {"priority": 10}}
# what each column is sorted by in the index (``store.SORTS``)
RUN_SORTS = dict(zip(RUN_COLUMNS, ("status", "id", "workload", "accelerator", "knobs",
                                   "samples_per_s", "final_loss", "accuracy", "created"),
                     strict=True))


def key_params(params: Mapping[str, Any]) -> str:
    """The knobs that tell runs apart at a glance, abbreviated: ``bs=64 lr=0.001``."""
    return " ".join(f"{short}={params[name]}" for name, short in KEY_PARAMS.items()
                    if name in params)


def run_values(info: RunInfo, live: tuple[str, RunSummary] | None = None) -> tuple:
    """A run's row as raw values in ``RUN_COLUMNS`` order (for sorting); ``live``: the
    phase and figures of a followed run, newer than the index's."""
    status, s = live or (info.status, info.summary)
    return (status, info.id, info.workload, info.accelerator, key_params(info.params),
            s.samples_per_s, s.final_loss, s.accuracy, fmt.when(info.created))


def run_cells(values: tuple, marked: bool = False) -> list[Cell]:
    """The cells of ``run_values``; a ``marked`` run's id is prefixed with ``●``."""
    status, run_id, workload, accel, params, rate, loss, accuracy, started = values
    return [status_cell(status), id_cell(run_id, "● " if marked else ""), Cell(workload),
            Cell(accel), Cell(params), Cell(fmt.number(rate), justify="right"),
            Cell(fmt.number(loss), justify="right"), Cell(fmt.fixed(accuracy), justify="right"),
            Cell(started)]


def run_heads() -> list[Head]:
    """The heads of ``run_cells``."""
    return heads(RUN_COLUMNS, _NUMERIC, RUN_NARROW)


# experiments ------------------------------------------------------------------
EXPERIMENT_COLUMNS = ("#", "variant", "status", "progress", "samples/s", "loss", "acc %", "run")
EXPERIMENT_NARROW: dict[str, dict[str, Any]] = {
    "variant": {"fit": "wrap"}, "run": {"shorten": (60, 45)},
    "progress": {"priority": 50, "fit": "wrap"}, "acc %": {"priority": 30},
    "loss": {"priority": 20}}
ENDED = (*FINAL_STATUSES, "skipped")


def entry_status(entry: Entry, state: RunState | None) -> str:
    """A variant's status: its run's phase, ``starting`` before its run is read,
    ``skipped`` with a note on why, else ``pending``."""
    if state is not None:
        return state.phase
    if entry.run_id:
        return "starting"
    return "skipped" if entry.note else "pending"


def entry_cells(entry: Entry, state: RunState | None) -> list[Cell]:
    """One variant's row: its label, status, progress (or note) and figures."""
    progress = (f"{state.step}/{state.total}" if state and state.total
                else "" if entry.run_id else entry.note)
    figures = ((state.samples_per_s(), state.metrics.get("loss"), state.metrics.get("accuracy"))
               if state else (None, None, None))
    return [Cell(str(entry.index + 1), justify="right"), Cell(entry.label),
            status_cell(entry_status(entry, state)), Cell(progress),
            Cell(fmt.number(figures[0]), justify="right"),
            Cell(fmt.number(figures[1]), justify="right"),
            Cell(fmt.fixed(figures[2]), justify="right"), id_cell(entry.run_id or "")]


def experiment_heads() -> list[Head]:
    """The heads of ``entry_cells``."""
    return heads(EXPERIMENT_COLUMNS, ("#", *_NUMERIC), EXPERIMENT_NARROW)


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


RAN = ("done", "failed", "ended")  # a variant whose run went to its end


def progress_count(statuses: Iterable[str]) -> int:
    """An experiment's progress: how many variants ran to their end (a cancelled or skipped
    one did not: a cancelled experiment never shows 100%)."""
    return sum(1 for s in statuses if s in RAN)


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
        short = run.id.rsplit("-", 1)[-1]  # ids resolve from a unique suffix
        cells = [Cell(f"{i + 1} {short}", "dim" if run.status == "done" else "red")]
        cells += [Cell(str(values.get(p, "-")), PARAM_STYLE) for p in cmp.params]
        for column in cmp.columns:
            text = fmt.number(values.get(column.key))
            cells.append(Cell(f"{text} {BEST_MARK}", BEST_STYLE, "right")
                         if cmp.is_best(i, column.key) else Cell(text, justify="right"))
        rows.append(cells)
    return rows


# presets, accelerators, parsed logs ---------------------------------------------
PRESET_COLUMNS = ("name", "accelerator", "here", "workload", "launcher", "description")
PRESET_NARROW: dict[str, dict[str, Any]] = {
    "launcher": {"priority": 60}, "workload": {"priority": 50},
    "description": {"priority": 30, "fit": "wrap"}}


def preset_cells(entry: PresetEntry, available: bool) -> list[Cell]:
    """A preset's row: its name (what ``accelbench run`` takes), its accelerator and whether
    that is detected here, then its workload, launcher and description (or why it cannot
    be read)."""
    if entry.spec is None:
        return [Cell(entry.name), Cell(""), Cell(""), Cell(""), Cell(""),
                Cell(entry.error, "red")]
    s = entry.spec
    return [Cell(entry.name), Cell(s.accelerator),
            Cell("yes", "green") if available else Cell("no", "yellow"),
            Cell(s.workload), Cell(s.launcher), Cell(s.description)]


def preset_heads() -> list[Head]:
    """The heads of ``preset_cells``."""
    return heads(PRESET_COLUMNS, (), PRESET_NARROW)


ACCELERATOR_COLUMNS = ("name", "system", "status", "details", "workloads")
ACCELERATOR_NARROW: dict[str, dict[str, Any]] = {
    "system": {"priority": 40, "fit": "wrap"}, "details": {"fit": "wrap"},
    "workloads": {"priority": 30, "fit": "wrap"}}


def accelerator_heads() -> list[Head]:
    """The heads of ``accelbench accelerators``: name, system, status, details, workloads."""
    return heads(ACCELERATOR_COLUMNS, (), ACCELERATOR_NARROW)


PARSE_COLUMNS = ("section", "dialects", "events", "status", "samples/s", "final loss",
                 "accuracy", "diagnoses")
PARSE_NARROW: dict[str, dict[str, Any]] = {
    "section": {"fit": "wrap"}, "dialects": {"priority": 40, "fit": "wrap"},
    "events": {"priority": 50}, "accuracy": {"priority": 30}, "final loss": {"priority": 20},
    "diagnoses": {"fit": "wrap"}}


def parse_heads() -> list[Head]:
    """The heads of ``accelbench parse``'s table of a log's sections."""
    return heads(PARSE_COLUMNS, ("events", "samples/s", "final loss", "accuracy"),
                 PARSE_NARROW)


EXPERIMENT_LIST_COLUMNS = ("id", "name", "status", "variants", "runs started", "started")
EXPERIMENT_LIST_NARROW: dict[str, dict[str, Any]] = {
    "id": {"shorten": (70, 40)}, "started": {"priority": 60},
    "runs started": {"priority": 50}, "variants": {"priority": 30}}


def experiment_list_heads() -> list[Head]:
    """The heads of ``accelbench runs --experiments``."""
    return heads(EXPERIMENT_LIST_COLUMNS, ("variants", "runs started"), EXPERIMENT_LIST_NARROW)
