"""The live view of one run: phase, progress, throughput, figures, every metric (each
can be opened as a chart), engines, log."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Footer, Header, ProgressBar, Static, Tab, Tabs

from accelbench.engine.core.summary import figures_help
from accelbench.engine.run.follow import Follower
from accelbench.engine.run.state import RunState
from accelbench.engine.view import figures as fmt
from accelbench.engine.view import model as present
from accelbench.tui.messages import CancelRun
from accelbench.tui.nav import NavScreen
from accelbench.tui.screens.chart import ChartScreen
from accelbench.tui.widgets.engine_bars import EngineBars
from accelbench.tui.widgets.log_pane import LogPane
from accelbench.tui.widgets.metrics_table import MetricsTable
from accelbench.tui.widgets.sparkline_panel import SparklinePanel

TICK_S = 0.1  # how often the view looks at its follower
BUSY_REDRAW_S = 0.25  # while lines pour in: logs every tick, figures this often
QUIET_REDRAW_S = 1.0  # otherwise everything at once, once a second (one frame, not three)
BUSY_LINES = 20  # pending log lines that make the run "busy"


class RunView(NavScreen):
    """Follows one run; reads its Follower on a timer, so bursts never queue up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "cancel_run", "Cancel", id="run.cancel",
                tooltip="Stop this run (asks first): SIGTERM, then SIGKILL"),
        Binding("f", "toggle_follow", "Follow", id="run.follow", show=False,
                tooltip="Keep the log scrolled to its newest line, or not"),
        Binding("w", "toggle_wrap", "Wrap", id="run.wrap", show=False,
                tooltip="Wrap long log lines, or cut them (then scroll sideways to read them)"),
        Binding("slash", "focus_filter", "Filter", id="run.filter", show=False,
                tooltip="Show only the log lines containing a text"),
        Binding("g", "chart", "Chart", id="run.chart",
                tooltip="Chart the selected metric (then filter: loss*, *acc*, ...)"),
        Binding("t", "switch_pane", "Log", id="run.switch_pane",
                tooltip="On a narrow terminal: switch between the overview and the log"),
        Binding("escape", "back", "Back", id="run.back",
                tooltip="Close the run view (the run goes on)"),
    ]

    def __init__(self, follower: Follower, title: str, clock=time.time) -> None:
        super().__init__()
        self.follower = follower
        self.run_title = title
        self.crumb = f"run {present.short_id(follower.run_id)}"
        self.clock = clock
        self._drawn_version = -1
        self._last_chart = 0.0
        self._phase = ""
        self._shown: dict[str, str] = {}
        self._diagnoses_shown = -1
        self._metrics_version, self._metrics_at = -1, 0.0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="phase-banner")
        with Horizontal(id="progress-row"):
            yield ProgressBar(total=1, show_eta=False, id="progress")
            yield Static(id="progress-text")
        yield Static(id="diagnosis-banner")
        yield Tabs(Tab("Overview", id="tab-overview"), Tab("Log", id="tab-log"), id="pane-tabs")
        with Horizontal(id="body"):
            with VerticalScroll(id="overview"):
                yield SparklinePanel("throughput (samples/s)", id="throughput")
                yield Static(id="figures")  # what each is: its tooltip
                with Vertical(id="metrics-box") as box:
                    box.border_title = "metrics (enter: chart)"
                    yield MetricsTable(id="metrics")
                with Vertical(id="engines-box") as box:
                    box.border_title = "engines"
                    yield EngineBars(id="engines")
            yield LogPane(id="log-pane")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.run_title
        for selector in ("#throughput", "#figures"):
            self.query_one(selector).tooltip = figures_help("\n")
        self.query_one(LogPane).show(self.follower)
        self.refresh_view(force=True)
        self.set_interval(TICK_S, self.refresh_view)

    def show_follower(self, follower: Follower, title: str) -> None:
        """Switch the view to another run (its follower keeps running either way)."""
        self.follower, self.run_title, self.sub_title = follower, title, title
        self.crumb = f"run {present.short_id(follower.run_id)}"
        self.show_breadcrumb()
        self._diagnoses_shown = -1
        self.query_one(LogPane).show(follower)
        self.query_one(MetricsTable).reset()
        self.refresh_view(force=True)

    def refresh_view(self, force: bool = False) -> None:
        """Draw what changed, coalesced so that a quiet run costs one frame a second.

        A busy run (a burst of log lines) gets its log pulled every tick and its
        figures redrawn a few times a second; a phase change shows at once.
        """
        follower, state, now = self.follower, self.follower.state, self.clock()
        log_pane = self.query_one(LogPane)
        busy = follower.log_seq - log_pane.seq >= BUSY_LINES
        since = now - self._last_chart
        due = since >= (BUSY_REDRAW_S if busy else QUIET_REDRAW_S) or state.phase != self._phase
        if busy or due or force:
            log_pane.pull()
        if not (due or force):
            return
        self._last_chart, self._phase = now, state.phase if follower.version else ""
        self._draw_banner(state, now)
        self._draw_metrics(state, force)
        if follower.version == self._drawn_version and not force:
            return
        self._drawn_version = follower.version
        self._draw_progress(state)
        self._draw_charts(state)
        self.query_one(EngineBars).show(state)

    def _draw_banner(self, state: RunState, now: float) -> None:
        """Phase, elapsed and ETA to the second: redrawn only when its text changes."""
        if not self.follower.version:  # nothing read yet: no phase to say (not "queued")
            self._set("#phase-banner", Text(" reading the run…", "dim"), "reading")
            return
        style = present.phase_style(state.phase)
        banner = Text.assemble((f" ● {state.phase.upper()} ", f"bold reverse {style}"),
                               (present.phase_detail(state), "dim"),
                               f"  {present.phase_clock(state, now)}")
        self._set("#phase-banner", banner, banner.plain)
        if len(state.diagnoses) == self._diagnoses_shown:
            return
        self._diagnoses_shown = len(state.diagnoses)
        diag = self.query_one("#diagnosis-banner", Static)
        diag.display = bool(state.diagnoses)
        if state.diagnoses:
            d = state.diagnoses[-1]
            more = f" (+{len(state.diagnoses) - 1} more)" if len(state.diagnoses) > 1 else ""
            diag.update(Text.assemble(("⚠ ", "bold"), present.diagnosis_line(d), more))

    def _set(self, selector: str, content, plain: str, layout: bool = False) -> None:
        """Update a one-line widget only when its text changed (no relayout: its size is fixed)."""
        if self._shown.get(selector) != plain:
            self._shown[selector] = plain
            self.query_one(selector, Static).update(content, layout=layout)

    def _draw_progress(self, state: RunState) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = bool(state.total)  # an indeterminate bar animates: costly, and says nothing
        if state.total:
            bar.update(total=state.total, progress=state.step)
        text = present.progress_text(state)
        self._set("#progress-text", text, text)

    def _draw_charts(self, state: RunState) -> None:
        points = list(state.throughput)
        summary = present.run_summary(state)
        figures = (f"{present.last_rate(state)} · {present.RATE}"
                   f" {fmt.number(summary.samples_per_s)}"
                   f" · peak {fmt.number(max(v for _, v in points))}"
                   if points else "none reported" if state.finished else "waiting for data…")
        self.query_one("#throughput", SparklinePanel).show(points, figures)
        line = " · ".join(f"{label} {value}" for label, value, _ in
                          present.figure_lines(summary, live=state.finished is None))
        self.query_one("#figures", Static).display = bool(line)
        self._set("#figures", line, line, layout=True)

    def _draw_metrics(self, state: RunState, force: bool) -> None:
        """The metrics list, once a second at most (a run may report hundreds a step),
        until it shows the follower's newest state."""
        wall = time.monotonic()
        if not force and (self.follower.version == self._metrics_version
                          or wall - self._metrics_at < QUIET_REDRAW_S):
            return
        self._metrics_version, self._metrics_at = self.follower.version, wall
        self.query_one(MetricsTable).show(state)
        self.query_one("#metrics-box").display = bool(state.metrics)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """The pane switch exists on narrow terminals only (wide ones show both panes)."""
        if action == "switch_pane":
            return self.has_class("-narrow")
        return super().check_action(action, parameters)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        self.query_one("#body").set_class(event.tab.id == "tab-log", "-show-log")

    def action_switch_pane(self) -> None:
        tabs = self.query_one(Tabs)
        tabs.active = "tab-overview" if tabs.active == "tab-log" else "tab-log"

    def action_toggle_follow(self) -> None:
        follow = self.query_one("#log-follow", Checkbox)
        follow.value = not follow.value

    def action_toggle_wrap(self) -> None:
        pane = self.query_one(LogPane)
        pane.set_wrap(not pane.wrap)

    def action_focus_filter(self) -> None:
        """Focus the log's filter, the log pane shown first where it is hidden (narrow)."""
        if self.has_class("-narrow"):
            self.query_one(Tabs).active = "tab-log"
            self.query_one("#body").add_class("-show-log")  # now, not when the tab says so
        self.query_one("#log-filter").focus()

    def on_data_table_row_selected(self, event: MetricsTable.RowSelected) -> None:
        event.stop()
        self.action_chart()

    def action_chart(self) -> None:
        """Open the chart of the selected metric (every metric when none is selected)."""
        name = self.query_one(MetricsTable).selected
        self.app.push_screen(ChartScreen(self.follower, name or "*"))

    def action_cancel_run(self) -> None:
        self.post_message(CancelRun(self.follower.run_id))
