"""How runs look: one presentation model for the CLI (Rich) and the app (Textual).

Plain data: a ``Cell`` is a text, a Rich style string ("bold green") and a justification;
a ``Head`` is a column's title and justification. Text from outside enters the views here,
through the output gate (``engine.core.text``): every cell, title, diagnosis, metric name and
log line the functions below give is safe for a terminal. The functions here turn runs, run
states, experiments and comparisons into rows of cells; the CLI prints them in Rich
tables, the app's screens put them in data tables, both through ``Cell.rich()``
(a ``rich.text.Text``: user values are never read as markup). Phase and status labels
and their styles, key parameters and the best marks live here and nowhere else.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text

from accelbench.engine.core.events import FINAL_STATUSES, Diagnosis, Utilization
from accelbench.engine.core.params import KEY_PARAMS
from accelbench.engine.core.summary import (
    FIGURES,
    LAST_RATE,
    MEAN_THROUGHPUT,
    RunSummary,
    canonical,
)
from accelbench.engine.core.text import printable, printable_lines
from accelbench.engine.plugin.registry import metric_aliases
from accelbench.engine.run.state import RunState
from accelbench.engine.view import figures as fmt
from accelbench.engine.view import plot

if TYPE_CHECKING:  # annotations only: a listing of runs needs neither (nor what they import)
    from accelbench.engine.config.presets import PresetEntry
    from accelbench.engine.core.job import RunInfo  # (nor does accelbench parse's table)
    from accelbench.engine.run.experiment import Entry
    from accelbench.engine.store.compare import Comparison

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

    def __post_init__(self) -> None:  # what every table shows passes the gate, laid out so
        object.__setattr__(self, "text", printable_lines(self.text))
        if self.shorter:
            object.__setattr__(self, "shorter", tuple(map(printable_lines, self.shorter)))

    def rich(self) -> Text:
        """The cell as Rich ``Text`` (never markup), for a Rich table or a Textual widget."""
        return Text(self.text, style=self.style, justify=self.justify)


@dataclass(frozen=True)
class Head:
    """A column's title, justification and style, and how a narrow table treats it
    (``engine.view.layout``): ``priority`` 0 never dropped, higher dropped sooner; ``shorten`` the
    priority of each shorter form of its cells; ``fit`` whether its cells stay ``whole`` or
    may ``wrap``."""

    title: str
    justify: Justify = "left"
    priority: int = 0
    fit: Fit = "whole"
    shorten: tuple[int, ...] = ()
    style: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", printable(self.title))

    def rich(self) -> Text:
        """The title as Rich ``Text`` (titles may be the runs' own knob names)."""
        return Text(self.title, style=self.style)


def heads(titles: Iterable[str], numeric: Iterable[str] = (),
          narrow: Mapping[str, Mapping[str, Any]] | None = None) -> list[Head]:
    """Column heads; those in ``numeric`` right-justified; ``narrow``: by title, the
    ``priority``, ``shorten`` and ``fit`` a narrow table uses (``engine.view.layout``)."""
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
    """Elapsed time and ETA to the whole second; ``-`` for the elapsed time of a run that
    ended at the instant it began (an imported log without timestamps: not known)."""
    eta = state.eta()
    elapsed = state.elapsed(now)
    unknown = state.finished is not None and elapsed == 0
    return (f"elapsed {fmt.duration(None if unknown else int(elapsed))}"
            f"  ETA {fmt.duration(None if eta is None else int(eta))}")


def utilization_figure(sample: Utilization) -> str:
    """An engine's newest reading: its absolute value where it has one, else its percent."""
    if sample.unit and sample.value is not None:
        return f"{sample.value:,.0f} {sample.unit}"
    return f"{sample.percent:.1f}%"


def diagnosis_line(diag: Diagnosis) -> Text:
    """A diagnosis in one line: its message in bold, then its hint."""
    return Text.assemble((printable(diag.message), "bold"),
                         f"  hint: {printable(diag.hint)}" if diag.hint else "")


def diagnosis_code(diag: Diagnosis) -> str:
    """A diagnosis' code, as shown."""
    return printable(diag.code)


def log_lines(state: RunState, count: int) -> list[str]:
    """The run's last ``count`` output lines (the one being redrawn last), as shown."""
    lines = [*state.log_tail, state.redraw] if state.redraw else list(state.log_tail)
    return [printable(line) for line in lines[-count:]] if count > 0 else []


def phase_detail(state: RunState) -> str:
    """What the run's phase is doing, if its dialect said (`` compiling graph``), as shown."""
    return f" {printable(state.phase_detail)}" if state.phase_detail else ""


# figures -----------------------------------------------------------------------
RATE, LOSS, ACCURACY = (FIGURES[key].label for key in ("samples_per_s", "final_loss",
                                                       "accuracy"))
"""The labels of the figures the tables show (each means what ``summary.FIGURES`` says)."""


def run_summary(state: RunState) -> RunSummary:
    """A run's figures: those recorded at its end once it ended, else those so far (the
    same definitions: ``RunState.summary``)."""
    if state.finished is not None and state.finished.summary:
        return RunSummary.from_dict(state.finished.summary)
    return state.summary()


def figure_text(key: str, value: float | None) -> str:
    """A summary figure's value as every view prints it."""
    return fmt.fixed(value) if key == "accuracy" else fmt.number(value)


def figure_source(summary: RunSummary, key: str) -> str:
    """Where a summary figure was taken from: the run's metric, or how it was measured."""
    if key == "samples_per_s" and summary.samples_per_s_source:
        return summary.samples_per_s_source
    found = canonical(summary.metrics or {}, metric_aliases()).get(key)
    return found[1] if found and found[0] == getattr(summary, key) else ""


LIVE_LABELS = {"final_loss": "latest loss"}
"""The labels of the figures that mean something else while the run goes on (no loss is
final before the end)."""


def figure_lines(summary: RunSummary, live: bool = False) -> list[tuple[str, str, str]]:
    """(label, value, where it came from) of each figure the run has (what each label
    means: ``summary.FIGURES``); ``live``: of a run still going (``LIVE_LABELS``)."""
    out = []
    for key, figure in FIGURES.items():
        value = getattr(summary, key)
        if value is not None:
            source = figure_source(summary, key)
            label = LIVE_LABELS.get(key, figure.label) if live else figure.label
            out.append((label, figure_text(key, value),
                        source if source == MEAN_THROUGHPUT
                        else f"metric {source}" if source else ""))
    return out


def figures_inline(summary: RunSummary, keys: Iterable[str] = ("samples_per_s", "final_loss",
                                                                 "accuracy")) -> str:
    """The figures ``keys`` of a summary in one line: ``samples/s 1,027  final loss ...``."""
    return "  ".join(f"{FIGURES[key].label} {figure_text(key, getattr(summary, key))}"
                     for key in keys)


def last_rate(state: RunState) -> str:
    """The newest throughput interval, labelled as such (a live run's current speed)."""
    return f"{LAST_RATE.label} {fmt.number(state.samples_per_s())}"


def progress_text(state: RunState) -> str:
    """Steps done (of how many), the epoch; else the last step its metrics name; else
    why there is none (a run that ended without reporting steps is not waiting)."""
    epoch = f" · epoch {state.epoch:g}/{state.epochs:g}" if state.epochs else ""
    if state.total:
        return f"{state.step:,}/{state.total:,} steps{epoch}"
    step = max((p[-1][0] for p in state.metric_history.values() if p and p[-1][0] is not None),
               default=state.step or None)
    if step is not None:
        return f"step {step:,} (total not reported){epoch}"
    return "no steps reported" if state.finished else "no progress yet"


@dataclass(frozen=True)
class MetricRow:
    """One metric a run reports: its newest value and a sparkline of its history."""

    name: str
    latest: str
    spark: str
    points: int


def metric_row(state: RunState, name: str, width: int = 20, digits: int = 4) -> MetricRow:
    """Metric ``name`` of the run: its latest value to ``digits`` significant digits, and
    a sparkline ``width`` wide if it was reported more than once."""
    history = state.metric_history.get(name, ())
    stride = max(1, len(history) // (8 * width))  # enough points for ``width`` means
    values = [v for _, v in history[::stride]] if len(history) > 1 else []
    return MetricRow(printable(name), fmt.number(state.metrics[name], digits),
                     plot.spark(values, width), len(history))


def metric_rows(state: RunState, pattern: str = "*", width: int = 20, digits: int = 4
                ) -> list[MetricRow]:
    """Every metric the run reports whose name matches the glob ``pattern`` (any case),
    in the order first reported (``metric_row``)."""
    return [metric_row(state, name, width, digits) for name in state.metrics
            if matches(name, pattern)]


def matches(name: str, pattern: str) -> bool:
    """``name`` matches one of the globs of ``pattern`` (separated by spaces or commas;
    any case; none: every name)."""
    globs = pattern.replace(",", " ").split() or ["*"]
    return any(fnmatch.fnmatchcase(name.lower(), g.lower()) for g in globs)


def metric_curves(state: RunState, pattern: str
                  ) -> list[tuple[str, list[tuple[float, float]], str]]:
    """(name, [(x, value), ...], what x is) of each metric matching ``pattern``: x is the
    step each value was reported at ("step"), else its order ("report")."""
    out = []
    for name in state.metrics:
        if matches(name, pattern):
            history = state.metric_history.get(name, ())
            by_step = all(step is not None for step, _ in history)
            out.append((name, [(float(step if by_step else n), value)
                               for n, (step, value) in enumerate(history)],
                        "step" if by_step else "report"))
    return out


# runs --------------------------------------------------------------------------
RUN_COLUMNS = ("status", "run", "workload", "accel", "params", RATE, LOSS, ACCURACY,
               "started")
_NUMERIC = (RATE, LOSS, ACCURACY)
# narrower: the id without its date and time (the started column's) first, then the least
# telling columns, then the id's random end alone, then the workload and the last figures;
# status, id and samples/s always stay
RUN_NARROW: dict[str, dict[str, Any]] = {
    "run": {"shorten": (70, 20)}, "started": {"priority": 60}, "workload": {"priority": 18},
    "accel": {"priority": 40}, "params": {"priority": 30, "fit": "wrap"},
    ACCURACY: {"priority": 15}, LOSS: {"priority": 10}}
# what each column is sorted by in the index (``store.SORTS``)
RUN_SORTS = dict(zip(RUN_COLUMNS, ("status", "id", "workload", "accelerator", "knobs",
                                   "samples_per_s", "final_loss", "accuracy", "created"),
                     strict=True))
# the app's runs screen: the progress of live runs too, before the figures; narrower, the
# run's name (its id without date and time) and workload stay longer than the last figures
# and the progress, the id's random end alone last
SCREEN_RUN_COLUMNS = (*RUN_COLUMNS[:5], "progress", *RUN_COLUMNS[5:])
SCREEN_RUN_NARROW: dict[str, dict[str, Any]] = {
    **RUN_NARROW, "run": {"shorten": (70, 8)}, "workload": {"priority": 10},
    LOSS: {"priority": 12}, "progress": {"priority": 11}}


@dataclass(frozen=True)
class Live:
    """A followed run as of now (newer than the index while it runs): its phase, its
    figures so far, and the seconds it has left (``RunState.eta``)."""

    phase: str
    summary: RunSummary
    eta: float | None = None

    @classmethod
    def of(cls, state: RunState) -> Live:
        """The run ``state`` is of, as of now."""
        return cls(state.phase, state.summary(), state.eta())


def key_params(params: Mapping[str, Any]) -> str:
    """The knobs that tell runs apart at a glance, abbreviated: ``bs=64 lr=0.001``."""
    return " ".join(f"{short}={params[name]}" for name, short in KEY_PARAMS.items()
                    if name in params)


def short_id(run_id: str) -> str:
    """A run id's 6-hex suffix: unique, and every command takes it for the id."""
    return run_id.rsplit("-", 1)[-1]


def run_values(info: RunInfo, live: Live | None = None) -> tuple:
    """A run's row as raw values in ``RUN_COLUMNS`` order; ``live``: the phase and figures
    of a followed run, newer than the index's."""
    status, s = (live.phase, live.summary) if live else (info.status, info.summary)
    return (status, info.id, info.workload, info.accelerator, key_params(info.params),
            s.samples_per_s, s.final_loss, s.accuracy, fmt.when(info.created))


def run_progress(info: RunInfo, live: Live | None = None) -> str:
    """How far a run got of the steps it reported a total of (``32%``), and for a live
    one the time it has left (``32% ETA 1:20``); ``-`` without a total."""
    summary, eta = (live.summary, live.eta) if live else (info.summary, None)
    if not summary.total_steps or summary.steps is None:
        return "-"
    done = f"{min(summary.steps / summary.total_steps, 1.0):.0%}"
    return done if eta is None else f"{done} ETA {fmt.duration(int(eta))}"


def run_cells(values: tuple, marked: bool = False, progress: str | None = None) -> list[Cell]:
    """The cells of ``run_values``; a ``marked`` run's id is prefixed with ``●``; with its
    ``progress`` (``run_progress``) before the figures, the runs screen's
    (``SCREEN_RUN_COLUMNS``)."""
    status, run_id, workload, accel, params, rate, loss, accuracy, started = values
    shown = id_cell(run_id, "● " if marked else "")
    return [status_cell(status), shown, Cell(workload), Cell(accel), Cell(params),
            *([] if progress is None else [Cell(progress, justify="right")]),
            Cell(fmt.number(rate), justify="right"), Cell(fmt.number(loss), justify="right"),
            Cell(fmt.fixed(accuracy), justify="right"), Cell(started)]


def run_heads(progress: bool = False) -> list[Head]:
    """The heads of ``run_cells`` (with ``progress``: the runs screen's)."""
    if progress:
        return heads(SCREEN_RUN_COLUMNS, ("progress", *_NUMERIC), SCREEN_RUN_NARROW)
    return heads(RUN_COLUMNS, _NUMERIC, RUN_NARROW)


# experiments ------------------------------------------------------------------
EXPERIMENT_COLUMNS = ("#", "variant", "status", "progress", RATE, LOSS, ACCURACY, "run")
EXPERIMENT_NARROW: dict[str, dict[str, Any]] = {
    "variant": {"fit": "wrap"}, "run": {"shorten": (60, 45)},
    "progress": {"priority": 50, "fit": "wrap"}, ACCURACY: {"priority": 30},
    LOSS: {"priority": 20}}
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
    """One variant's row: its label, status, progress (or note), figures (those of
    ``run_summary``, as every view shows them) and run id."""
    progress = (f"{state.step}/{state.total}" if state and state.total
                else "" if entry.run_id else entry.note)
    s = run_summary(state) if state else RunSummary()
    figures = (s.samples_per_s, s.final_loss, s.accuracy)
    return [Cell(str(entry.index + 1), justify="right"), Cell(entry.label),
            status_cell(entry_status(entry, state)), Cell(progress),
            Cell(fmt.number(figures[0]), justify="right"),
            Cell(fmt.number(figures[1]), justify="right"),
            Cell(fmt.fixed(figures[2]), justify="right"),
            id_cell(entry.run_id or "")]


def experiment_heads() -> list[Head]:
    """The heads of ``entry_cells``."""
    return heads(EXPERIMENT_COLUMNS, ("#", *_NUMERIC), EXPERIMENT_NARROW)


def experiment_banner(name: str, exp_id: str, status: str, statuses: list[str]) -> Text:
    """An experiment's line: name, status, how many variants ended, the count per status."""
    ended = ended_count(statuses)
    counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
    return Text.assemble((printable(name), "bold"), "  ", (status, phase_style(status)),
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


def comparison_heads(cmp: Comparison, settings: bool = True, figures: bool = True
                     ) -> list[Head]:
    """``run``, the knobs that differ, then the figures (right-justified); without the
    ``settings`` or the ``figures`` if asked (the app shows the figures first)."""
    return [Head("run"), *(Head(p) for p in (cmp.params if settings else ())),
            *(Head(c.title, "right") for c in (cmp.columns if figures else ()))]


def comparison_rows(cmp: Comparison, settings: bool = True, figures: bool = True
                    ) -> list[list[Cell]]:
    """One row per run: its number and id suffix (red unless done), its knobs, its figures;
    the best value of a ranked column marked ``★`` (without the ``settings`` or ``figures``
    as ``comparison_heads``)."""
    rows = []
    for i, run in enumerate(cmp.runs):
        values = cmp.values[i]
        cells = [Cell(f"{i + 1} {short_id(run.id)}", "dim" if run.status == "done" else "red")]
        cells += [Cell("-" if values.get(p) is None else str(values[p]), PARAM_STYLE)
                  for p in (cmp.params if settings else ())]  # a knob a run lacks: "-"
        for column in cmp.columns if figures else ():
            text = figure_text(column.key, values.get(column.key))
            cells.append(Cell(f"{text} {BEST_MARK}", BEST_STYLE, "right")
                         if cmp.is_best(i, column.key) else Cell(text, justify="right"))
        rows.append(cells)
    return rows


SHORT_LABEL = 24  # the longest label of a run in a chart's legend (beyond: its name or id)


def comparison_labels(cmp: Comparison) -> list[str]:
    """A short label per run for charts, led by its number in the table (``1 a1b2c3``):
    the one knob that differs (``2 max_seq_length=32``) where that is short, else the
    run's name where the names tell the runs apart, else its id's suffix."""
    names = [run.name for run in cmp.runs]
    distinct = len(set(names)) == len(names)
    out = []
    for i, run in enumerate(cmp.runs):
        knob = ""
        if len(cmp.params) == 1:
            value = cmp.values[i].get(cmp.params[0])
            knob = f"{cmp.params[0]}={'-' if value is None else value}"
        what = (knob if knob and len(knob) <= SHORT_LABEL
                else run.name if distinct and len(run.name) <= SHORT_LABEL
                else short_id(run.id))
        out.append(printable(f"{i + 1} {what}"))
    return out


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


PARSE_COLUMNS = ("section", "dialects", "events", "status", RATE, LOSS, ACCURACY,
                 "diagnoses")
PARSE_NARROW: dict[str, dict[str, Any]] = {
    "section": {"fit": "wrap"}, "dialects": {"priority": 40, "fit": "wrap"},
    "events": {"priority": 50}, ACCURACY: {"priority": 30}, LOSS: {"priority": 20},
    "diagnoses": {"fit": "wrap"}}


def parse_heads() -> list[Head]:
    """The heads of ``accelbench parse``'s table of a log's sections."""
    return heads(PARSE_COLUMNS, ("events", RATE, LOSS, ACCURACY),
                 PARSE_NARROW)


EXPERIMENT_LIST_COLUMNS = ("id", "name", "status", "variants", "runs started", "started")
EXPERIMENT_LIST_NARROW: dict[str, dict[str, Any]] = {
    "id": {"shorten": (70, 40)}, "started": {"priority": 60},
    "runs started": {"priority": 50}, "variants": {"priority": 30}}


def experiment_list_heads() -> list[Head]:
    """The heads of ``accelbench runs --experiments``."""
    return heads(EXPERIMENT_LIST_COLUMNS, ("variants", "runs started"), EXPERIMENT_LIST_NARROW)
