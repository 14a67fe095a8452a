"""The accelbench TUI: launch runs, watch them live, browse and compare the history.

Talks to the engine's public API only: ``Runner`` to start and open runs,
``Follower`` to fold a run's events, presets and the catalogues for the pickers.
The UI thread never waits on I/O: the index and run files are read in worker threads,
and each followed run is read (and its launcher asked) in a thread of its own.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import ClassVar, TypeVar

from rich.text import Text
from textual import on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.job import JobSpec
from accelbench.engine.core.text import printable, printable_lines
from accelbench.engine.plugin import entrypoints as plugins
from accelbench.engine.plugin import registry
from accelbench.engine.run import digest, experiment
from accelbench.engine.run.follow import Follower
from accelbench.engine.run.runner import RunHandle, Runner
from accelbench.engine.store.compare import compare
from accelbench.engine.store.runs import RunQuery
from accelbench.engine.view.figures import counted
from accelbench.engine.view.model import Live, short_id
from accelbench.tui import messages
from accelbench.tui.commands import AccelbenchCommands
from accelbench.tui.screens.compare import CompareScreen
from accelbench.tui.screens.confirm import Confirm
from accelbench.tui.screens.experiment_view import ExperimentView
from accelbench.tui.screens.launch import LaunchScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import REFRESH_S as RUNS_REFRESH_S
from accelbench.tui.screens.runs import RunsScreen
from accelbench.tui.screens.top import TopScreen
from accelbench.tui.widgets.keys_help import KeysHelp

T = TypeVar("T")
FOLLOW_S = 0.25  # how often a followed run is read: as often as the run view redraws it
UNWATCHED_S = RUNS_REFRESH_S  # how often while no run view shows it: as the runs screen
# redraws (the experiment view, which redraws more often, wants its runs read so)
FULL_GC_S = 10.0  # a full garbage collection this often, on its own timer
FAULT_S = 30.0  # how long a broken plug-in's notification stays
MAX_FAULTS = 5  # broken plug-ins told (the CLI's `accelbench accelerators` tells them all)
NO_FULL_GC = 1 << 30  # gen-1 collections before the collector would do a full one itself


def comeback(live: list[str]) -> str:
    """What quitting leaves on the terminal while runs ``live`` go on: how to see them
    again."""
    them = "it" if len(live) == 1 else "them"
    return (f"{counted(len(live), 'run')} still live (the jobs go on): follow"
            f" {'it' if len(live) == 1 else 'one'} with `accelbench attach"
            f" {short_id(live[0])}`, or see {them} in `accelbench`'s runs screen (F3)")


class AccelbenchApp(App):
    """The application: a launch screen, a runs screen, and one run view at a time."""

    TITLE = "accelbench"
    CSS_PATH = "styles/app.tcss"
    # Textual's App declares this one an instance variable: a ClassVar here would clash.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012
    COMMANDS = App.COMMANDS | {AccelbenchCommands}
    MODES: ClassVar[dict[str, str | Callable[[], Screen]]] = {
        "launch": LaunchScreen, "runs": RunsScreen, "top": TopScreen}
    DEFAULT_MODE = "launch"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "go('launch')", "Launch", id="app.launch",
                tooltip="Pick an accelerator and a workload, set the knobs, run"),
        Binding("f3", "go('runs')", "Runs", id="app.runs",
                tooltip="Every run: open, compare figures, cancel live ones"),
        Binding("f4", "go('top')", "Top", id="app.top",
                tooltip="This node's devices and the run on each, live"),
        Binding("question_mark,f1", "toggle_help", "Help", id="app.help",
                tooltip="Show or hide the keys of the current screen"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", show=False,
                tooltip="Quit; running jobs go on and can be attached to later"),
    ]

    def __init__(self, runner: Runner | None = None, spec: JobSpec | None = None,
                 start: bool = False, clock=time.time) -> None:
        super().__init__()
        self.runner = runner or Runner()
        self.initial_spec = spec
        self.start_on_mount = start and spec is not None
        self.clock = clock
        self.followers: dict[str, Follower] = {}
        self._titles: dict[str, str] = {}
        self._gc_threshold = gc.get_threshold()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notification (a screen's goes through here): its text may quote a file, a
        run or a plug-in, so it passes the output gate."""
        super().notify(printable_lines(message), title=printable(title), severity=severity,
                       timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        registry.systems()  # (loaded: what was left out of it is known)
        for line in plugins.faults()[:MAX_FAULTS]:  # told as the CLI tells them
            self.notify(line, title="plug-in left out", severity="error", timeout=FAULT_S,
                        markup=False)
        if self.start_on_mount and self.initial_spec is not None:
            self.start_run(self.initial_spec)
        elif self.initial_spec is None:
            self.run_worker(self._live_runs_first, thread=True, group="start")

    def on_ready(self) -> None:
        """Keep full garbage collections short and out of the frames.

        What import and the first screen made is long-lived: frozen, no full collection walks it
        again (one took 40-120 ms of the event loop while a run was shown). The collector's own
        full collections come during whatever allocates, mostly a frame: here they come on a
        timer of their own instead."""
        gc.freeze()
        gc.set_threshold(*self._gc_threshold[:2], NO_FULL_GC)
        self.set_interval(FULL_GC_S, self._collect)

    def _collect(self) -> None:
        gc.collect()

    async def action_quit(self) -> None:
        """Quit; a run still live goes on, and the message left says how to come back."""
        live = [run_id for run_id, f in self.followers.items() if f.state.finished is None]
        self.exit(message=Text(comeback(live)) if live else None)

    def on_unmount(self) -> None:
        """The collector as it was (many apps run in one test process)."""
        gc.set_threshold(*self._gc_threshold)
        gc.unfreeze()

    def _live_runs_first(self) -> None:
        """With runs still live (started by an earlier session), open on them, followed."""
        live = self.runner.store.list(query=RunQuery(unfinished=True))
        if live:
            self.call_from_thread(self._follow_live, live)

    def _follow_live(self, live: list) -> None:
        for info in live:
            self.follower(RunHandle(self.runner.store, info))
        self.switch_mode("runs")
        self.notify(f"{counted(len(live), 'run')} still live: listed first", title="welcome back")

    # runs ------------------------------------------------------------------
    def follower(self, handle: RunHandle) -> Follower:
        """The follower of ``handle``'s run, started on first use; it feeds until the run ends."""
        if handle.id not in self.followers:
            follower = self.followers[handle.id] = Follower(handle.id)
            self._titles[handle.id] = f"{printable(handle.info.name)} · {handle.id}"
            self.run_worker(follower.follow(handle, poll=FOLLOW_S, unwatched=UNWATCHED_S),
                            group="follow", exit_on_error=False)
        return self.followers[handle.id]

    def live(self, run_id: str) -> Live | None:
        """A followed run's phase, figures and time left as of now (newer than the index
        while it runs); None before its follower read anything (its state's ``queued``
        would stand in for a run that may have ended long ago)."""
        follower = self.followers.get(run_id)
        return None if follower is None or not follower.version else Live.of(follower.state)

    def start_run(self, spec: JobSpec) -> None:
        """Start a run of ``spec`` (off the UI thread) and open its run view; a spec with
        a sweep starts an experiment (named as ``experiment.start`` says) and opens the
        experiment view."""
        def start() -> None:
            try:
                if spec.sweep:
                    exp = experiment.start(self.runner, spec)
                    self.call_from_thread(self.push_screen, ExperimentView(exp))
                    return
                handle = self.runner.start(spec)
            except UserError as exc:
                message = exc.message + (f"\n{exc.hint}" if exc.hint else "")
                self.call_from_thread(self.notify, message, title="cannot start the run",
                                      severity="error", markup=False)
                return
            self.call_from_thread(self._show, handle)

        self.run_worker(start, thread=True, group="start")

    def open_experiment(self, ref: str) -> None:
        """Show an experiment (live or finished) in the experiment view."""
        self._off_loop(lambda: experiment.Experiment.open(self.runner, ref),
                       lambda exp: self.push_screen(ExperimentView(exp)))

    def compare(self, run_ids: list[str], title: str) -> None:
        """Show the runs side by side, with their plots."""
        if len(run_ids) < 2:
            self.notify("pick at least two runs to compare (space marks a run)",
                        severity="warning")
            return
        self.push_screen(CompareScreen(run_ids, title))

    def _off_loop(self, read: Callable[[], T], then: Callable[[T], object]) -> None:
        """``then(read())``: ``read`` (the index, files) in a worker thread, ``then`` on the UI
        thread; a ``UserError`` from ``read`` is told to the user instead."""
        def work() -> None:
            try:
                found = read()
            except UserError as exc:
                self.call_from_thread(self.notify, exc.message, severity="error", markup=False)
                return
            self.call_from_thread(then, found)

        self.run_worker(work, thread=True, group="read")

    def open_run(self, run_id: str) -> None:
        """Show a run (live or finished) in the run view."""
        self._off_loop(lambda: self.runner.open(run_id), self._show)

    def _show(self, handle: RunHandle) -> None:
        follower = self.follower(handle)
        title = self._titles[handle.id]
        if isinstance(self.screen, RunView):
            self.screen.show_follower(follower, title)
        else:
            self.push_screen(RunView(follower, title, clock=self.clock))

    def confirm_cancel(self, run_id: str) -> None:
        """Ask, then cancel the run (SIGTERM, then SIGKILL) off the UI thread."""
        self._off_loop(lambda: self.runner.open(run_id), self._ask_cancel)

    def _ask_cancel(self, handle: RunHandle) -> None:
        run_id = handle.id
        if handle.info.final:
            self.notify(f"run {run_id} has already ended ({handle.info.status})")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.notify(f"cancelling {run_id} …")
                self.run_worker(handle.cancel, thread=True, group="cancel")

        self.push_screen(Confirm(f"Cancel run {run_id}?"), answered)

    # what screens ask -------------------------------------------------------
    def _answer(self, reply: Callable[..., None], *answer) -> None:
        """Call ``reply`` (on the UI thread) unless the screen that asked is gone."""
        asker = getattr(reply, "__self__", None)
        if asker is None or asker.is_attached:
            reply(*answer)

    @on(messages.OpenRun)
    def _on_open_run(self, message: messages.OpenRun) -> None:
        self.open_run(message.run_id)

    @on(messages.CompareRuns)
    def _on_compare_runs(self, message: messages.CompareRuns) -> None:
        self.compare(message.run_ids, message.title)

    @on(messages.CancelRun)
    def _on_cancel_run(self, message: messages.CancelRun) -> None:
        self.confirm_cancel(message.run_id)

    @on(messages.StartRun)
    def _on_start_run(self, message: messages.StartRun) -> None:
        self.start_run(message.spec)

    @on(messages.SpecWanted)
    def _on_spec_wanted(self, message: messages.SpecWanted) -> None:
        self._answer(message.reply, self.initial_spec)

    @on(messages.FollowersWanted)
    def _on_followers_wanted(self, message: messages.FollowersWanted) -> None:
        unfollowed = [run_id for run_id in message.run_ids if run_id not in self.followers]

        def answer(handles: list[RunHandle]) -> None:
            for handle in handles:
                self.follower(handle)
            self._answer(message.reply, {run_id: self.followers[run_id]
                                         for run_id in message.run_ids})

        self._off_loop(lambda: [self.runner.open(run_id) for run_id in unfollowed], answer)

    @on(messages.RunsWanted)
    def _on_runs_wanted(self, message: messages.RunsWanted) -> None:
        followed = sorted((run_id, f.version) for run_id, f in self.followers.items())
        store = self.runner.store

        def read() -> None:
            seen = (store.changes(), followed)
            if seen == message.seen:  # nothing changed: no query, no redraw
                self.call_from_thread(self._answer, message.reply, None, seen)
                return
            infos = store.list(message.limit, message.query, message.order, message.offset)
            whole = message.limit is None or (not message.offset and len(infos) < message.limit)
            total = len(infos) if whole else store.count(message.query)
            marked = [info.id for info in store.list(query=RunQuery(ids=message.marked))
                      ] if message.marked else []
            self.call_from_thread(lambda: self._answer(message.reply, messages.RunsPage(
                [(info, self.live(info.id)) for info in infos], message.order,
                message.offset, total,
                [run_id for run_id in message.marked if run_id in marked]), seen))

        self.run_worker(read, thread=True, exclusive=True, group="runs")

    @on(messages.ComparisonWanted)
    def _on_comparison_wanted(self, message: messages.ComparisonWanted) -> None:
        def read() -> None:  # fold each run (for its loss curve), then compare
            handles = [self.runner.open(run_id) for run_id in message.run_ids]
            states = [digest.read(handle.info) or handle.state()  # unreadable: see its info
                      for handle in handles]
            cmp = compare([handle.info for handle in handles])
            self.call_from_thread(self._answer, message.reply, cmp,
                                  [s.metric_history if s else {} for s in states])

        self.run_worker(read, thread=True, exclusive=True, group="compare")

    # navigation and commands -------------------------------------------------
    def action_go(self, mode: str) -> None:
        """Show ``mode``'s own screen (launch, runs), closing what was opened over it (run
        views, dialogs): the key or command that names a screen always reaches it."""
        self.switch_mode(mode)
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def load_spec(self, spec: JobSpec) -> None:
        """Show the launch screen filled from ``spec``."""
        self.action_go("launch")
        self.call_after_refresh(lambda: self._launch_screen().load_spec(spec))

    def use_accelerator(self, name: str) -> None:
        """Show the launch screen with accelerator ``name`` picked."""
        self.action_go("launch")
        self.call_after_refresh(lambda: self._launch_screen().select_accelerator(name))

    def _launch_screen(self) -> LaunchScreen:
        return next(s for s in self.screen_stack if isinstance(s, LaunchScreen))

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_help_panel(self) -> None:
        """Show the keys panel: the screen's own keys first (see ``KeysHelp``); the screen
        is ``-help-open`` meanwhile (its stylesheet may make room)."""
        if not self.screen.query("HelpPanel"):
            self.screen.mount(KeysHelp())
            self.screen.add_class("-help-open")
            self.screen.refresh_bindings()  # esc now closes it

    def action_hide_help_panel(self) -> None:
        super().action_hide_help_panel()
        self.screen.remove_class("-help-open")
        self.screen.refresh_bindings()
