"""``accelbench``: the command line. Headless commands over the engine's public API."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn, TextIO

from accelbench.engine import __version__
from accelbench.engine.core.errors import UserError, close_to
from accelbench.engine.core.events import FINAL_STATUSES
from accelbench.engine.core.summary import figures_help
from accelbench.engine.core.text import printable
from accelbench.engine.plugin import registry

FIGURES_HELP = f"figures (the same in every table, view and export): {figures_help()}."


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``accelbench`` console script; returns the exit code."""
    try:
        _NOTICES.show()  # (a plug-in left out is told as the systems load, for the help)
        args = _parser().parse_args(argv)  # the dialects in its help come from the systems
        if not args.command:
            return _open_tui(args)
        return args.func(args)
    except UserError as exc:
        _say(f"accelbench: error: {exc.message}", sys.stderr)
        if exc.hint:
            _say(f"hint: {exc.hint}", sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `accelbench runs | head`
        return 0


def _say(line: str, stream: TextIO | None = None) -> None:
    """A line of a report, an error, a hint or a notice: one line for scripts and logs; on a
    terminal, wrapped at its spaces to its width (a name or a path stays whole)."""
    stream = stream or sys.stdout
    line = printable(line)  # (a notice or an error may quote what a file or a job holds)
    if stream.isatty():
        from accelbench.cli.live import width, wrapped

        line = wrapped(line, width(stream), "  ")
    print(line, file=stream)


class _Notices(logging.Handler):
    """The engine's notices (its logged warnings) on stderr: one line each, each once."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.shown: set[str] = set()
        self.muted = False

    def show(self) -> None:
        """Show the notices of this command (and none of an earlier one's)."""
        engine = logging.getLogger("accelbench.engine")
        if self not in engine.handlers:
            engine.addHandler(self)
        self.shown.clear()
        self.muted = False

    def emit(self, record: logging.LogRecord) -> None:
        text = " ".join(record.getMessage().split())
        if not self.muted and text not in self.shown:
            self.shown.add(text)
            _say(f"accelbench: {text}", sys.stderr)


_NOTICES = _Notices()


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error for a mistyped command names the close one."""

    commands: Mapping[str, argparse.ArgumentParser]  # the top parser's (the commands' have none)

    def error(self, message: str) -> NoReturn:
        given = re.search(r"argument COMMAND: invalid choice: '([^']*)'", message)
        typed = given.group(1) if given else ""
        close = close_to(typed, getattr(self, "commands", ())) if typed else None
        if close is None:
            super().error(message)
        self.print_usage(sys.stderr)
        _say(f"{self.prog}: error: unknown command {typed!r} (did you mean {close!r}?)",
             sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="accelbench",
        description="Launch, watch and compare training and inference runs on AI accelerators.")
    parser.add_argument("--version", action="version", version=f"accelbench {__version__}")
    parser.add_argument("--preset", metavar="PRESET",
                        help="open the app with this preset (a file or a name) in the form")
    parser.add_argument("--start", action="store_true",
                        help="with --preset: start the run at once and show it live")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # (its error names the close one)

    run = sub.add_parser("run", help="start a run from a preset and follow it live")
    run.add_argument("preset", help="a preset file or the name of one (see `accelbench presets`)")
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a preset value: epochs=2, params.batch_size=64, env.X=1")
    run.add_argument("--json", action="store_true", help="print one JSON event per line")
    run.add_argument("--detach", action="store_true", help="start the run and return at once")
    run.set_defaults(func=_cmd_run)

    attach = sub.add_parser("attach", help="follow a run or an experiment (its history, then"
                            " live) until it ends")
    attach.add_argument("run", help="run id (or a unique prefix or suffix of it), or an"
                        " experiment's id or name")
    attach.add_argument("--json", action="store_true", help="print one JSON event per line")
    attach.set_defaults(func=_cmd_attach)

    runs = sub.add_parser("runs", help="list the runs, newest first", epilog=FIGURES_HELP)
    runs.add_argument("--limit", type=_positive, default=None, metavar="N",
                      help=f"show at most N runs (default: {PAGE} in a table, all in JSON)")
    runs.add_argument("--all", action="store_true", help="show every run")
    _json_option(runs, ("table",))
    runs.add_argument("--status", metavar="STATUS",
                      help="only runs with this status (comma-separated: done,failed)")
    runs.add_argument("--accelerator", metavar="NAME", help="only runs on this accelerator")
    runs.add_argument("--workload", metavar="NAME", help="only runs of this workload")
    runs.add_argument("--since", type=_age, metavar="AGE",
                      help="only runs started in the last AGE (30m, 2h, 3d, 1w)")
    runs.add_argument("--experiment", metavar="NAME", help="only the runs of this experiment")
    runs.add_argument("--experiments", action="store_true", help="list the experiments instead")
    runs.set_defaults(func=_cmd_runs)

    compare = sub.add_parser("compare", help="runs side by side: the knobs that differ, the"
                             " figures, the best marked", epilog=FIGURES_HELP)
    compare.add_argument("runs", nargs="*", metavar="RUN", help="run ids (or unique parts)")
    compare.add_argument("--experiment", metavar="NAME", help="every run of this experiment")
    _json_option(compare, ("table", "csv", "markdown"))
    compare.add_argument("--plot", action="store_true",
                         help="also plot throughput against the knobs, and the loss curves")
    compare.add_argument("--output", "-o", metavar="FILE", help="write the export to FILE")
    compare.set_defaults(func=_cmd_compare)

    rm = sub.add_parser("rm", help="delete runs (or an experiment and its runs) for good")
    rm.add_argument("runs", nargs="*", metavar="RUN", help="run ids (or unique parts)")
    rm.add_argument("--experiment", metavar="NAME", help="the experiment and all its runs")
    rm.add_argument("--force", action="store_true", help="cancel live runs first")
    rm.add_argument("--yes", "-y", action="store_true",
                    help="delete without asking (needed where there is no terminal to ask on)")
    rm.set_defaults(func=_cmd_rm)

    clean = sub.add_parser("clean", help="delete finished runs older than some days")
    clean.add_argument("--older-than", type=float, required=True, metavar="DAYS")
    clean.add_argument("--status", default=",".join(FINAL_STATUSES),
                       help="only runs that ended so (comma-separated; default: any end)")
    clean.add_argument("--dry-run", action="store_true", help="list what would go, delete nothing")
    _json_option(clean)
    clean.set_defaults(func=_cmd_clean)

    show = sub.add_parser("show", help="a run's spec, summary and metrics", epilog=FIGURES_HELP)
    show.add_argument("run", help="run id or a unique prefix or suffix of it")
    show.add_argument("--log", action="store_true",
                      help="print the whole job output byte for byte, as `cat` would: the one"
                      " place accelbench shows a job's output raw (terminal controls"
                      " included; pipe it to `less` or `cat -v` to see them); long lines"
                      " whole, wrapped by the terminal")
    show.add_argument("--cut", action="store_true",
                      help="with --log: each line cut to the width with … (one line each, its"
                      " controls shown, not raw)")
    _json_option(show)
    show.add_argument("--chart", metavar="GLOB", help="also chart the metrics whose names"
                      " match GLOB (loss*, '*acc* eval*'), one chart each")
    show.set_defaults(func=_cmd_show)

    cancel = sub.add_parser("cancel", help="stop a live run or experiment (SIGTERM, then SIGKILL)")
    cancel.add_argument("run", help="run id (or a unique prefix or suffix of it), or an"
                        " experiment's id or name")
    cancel.add_argument("--grace", type=float, default=10.0, help="seconds before SIGKILL")
    cancel.set_defaults(func=_cmd_cancel)

    parse = sub.add_parser("parse", help="print the events found in a log file you already have")
    parse.add_argument("logfile")
    _dialect_option(parse)
    parse.add_argument("--json", action="store_true", help="print one JSON event per line")
    parse.set_defaults(func=_cmd_parse)

    imp = sub.add_parser("import", help="keep a log you already have (or each run under a"
                         " directory) as finished runs")
    imp.add_argument("logfile", help="a log, a structured file (trainer_state.json,"
                     " trainer_log.jsonl, metrics.csv, an event file) or a directory")
    _dialect_option(imp)
    imp.add_argument("--accelerator", default=None,
                     help="the system it ran on (default: the one its dialect points to)")
    imp.add_argument("--again", action="store_true",
                     help="import a file imported before again (by default it is recognised"
                     " by its content and left as it was)")
    _json_option(imp)
    imp.set_defaults(func=_cmd_import)

    presets = sub.add_parser("presets", help="list the presets with their descriptions")
    _json_option(presets)
    presets.set_defaults(func=_cmd_presets)

    accelerators = sub.add_parser("accelerators", help="what is available here, and why not")
    _json_option(accelerators)
    accelerators.set_defaults(func=_cmd_accelerators)

    top = sub.add_parser("top", help="this node's devices live, and the run on each (q quits):"
                         " %(systems)s")
    # the systems are loaded only when the help is shown (argparse fills %(systems)s from
    # the attributes of the command's entry in the listing, the last one added)
    sub._choices_actions[-1].systems = _Later(registry.node_titles)  # type: ignore[attr-defined]
    top.add_argument("--once", action="store_true", help="print one sample and exit")
    top.add_argument("--json", action="store_true",
                     help="JSON lines, one per device and per source not present")
    top.add_argument("--interval", type=_interval, default=1.0, metavar="S",
                     help="seconds between samples (default 1)")
    top.add_argument("--per-core", action="store_true",
                     help="each CPU core too (in the live view, p toggles it)")
    top.set_defaults(func=_cmd_top)

    doctor = sub.add_parser("doctor", help="check the run store against its run directories"
                            " and repair it")
    doctor.add_argument("--dry-run", action="store_true", help="only report, change nothing")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.set_defaults(func=_cmd_doctor)
    return parser


class _Later:
    """Text made only when it is shown (a help text that needs the plug-ins loaded)."""

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()


def _json_option(command: argparse.ArgumentParser, formats: tuple[str, ...] = ()) -> None:
    """``--json`` (the one spelling, on every command that prints data) and, for a command
    with other forms, ``--format`` (``--format json``: the same as ``--json``)."""
    command.add_argument("--json", action="store_true", help="print JSON, for scripts")
    if formats:
        command.add_argument("--format", choices=(*formats, "json"), default=None,
                             help=f"what to print (default {formats[0]}; json: the same as"
                             " --json)")


def _form(args: argparse.Namespace) -> str:
    """The form ``runs`` or ``compare`` prints in: ``json`` for ``--json`` or ``--format
    json``, else the ``--format`` given, else a table."""
    if args.json and args.format not in (None, "json"):
        raise UserError(f"give --json or --format {args.format}, not both")
    return "json" if args.json else args.format or "table"


def _dialect_option(command: argparse.ArgumentParser) -> None:
    """``--dialect``, whose help lists the dialects of the installed systems (loaded only
    when the help is shown: argparse fills ``%(dialects)s`` from the option's attributes)."""
    option = command.add_argument("--dialect", default="auto", help="one of: %(dialects)s")
    option.dialects = _Later(registry.dialect_help)  # type: ignore[attr-defined]


PAGE = 50  # runs in a table unless --limit or --all says otherwise
LIVE_HZ = 2  # the live display's redraws a second at most: its run's files are read as often
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def _positive(text: str) -> int:
    """An argument that must be a whole number above 0."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return int(text)


def _age(text: str) -> float:
    """An age such as ``90s``, ``30m``, ``2h``, ``3d``, ``1w``, in seconds."""
    number, unit = text.strip()[:-1], text.strip()[-1:].lower()
    try:
        seconds = float(number) * _UNITS[unit]
    except (KeyError, ValueError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an age: give a number and a unit (s, m, h, d or w), e.g. 2h"
        ) from None
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not an age of 0 or more")
    return seconds


def _interval(text: str) -> float:
    """Seconds between samples: a number from 0.1 to 3600."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.1 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0.1 to 3600")
    return seconds


def _open_tui(args: argparse.Namespace) -> int:
    """The app (no command given); ``--preset`` fills its form, ``--start`` runs it."""
    spec = None
    if args.preset:
        from accelbench.engine.config.presets import find_preset
        from accelbench.engine.config.spec import load_preset

        spec = load_preset(find_preset(args.preset))
    elif args.start:
        raise UserError("--start needs --preset", hint="e.g. accelbench --preset cpu-mnist --start")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        if args.start:  # the job was asked for: run it as `accelbench run` would
            _say(f"accelbench: no terminal for the app: running {args.preset} as"
                 f" `accelbench run {args.preset}` does", sys.stderr)
            return main(["run", args.preset])
        _say("accelbench: the app needs a terminal (stdin and stdout are not one); the"
             " commands work without: accelbench --help lists them (runs, show, run ...)",
             sys.stderr)
        return 2
    from accelbench.tui.app import AccelbenchApp

    _NOTICES.muted = True  # the app tells its own (a line on its screen would break it)
    AccelbenchApp(_runner(), spec, start=args.start).run()
    return 0


def _runner():
    from accelbench.engine.run.runner import Runner

    return Runner()


def _cmd_run(args: argparse.Namespace) -> int:
    from accelbench.engine.config.presets import find_preset
    from accelbench.engine.config.spec import load_preset

    spec = load_preset(find_preset(args.preset), args.overrides)
    if spec.sweep:
        from accelbench.engine.run import experiment

        exp = experiment.start(_runner(), spec)
        if args.detach:
            print(exp.id)
            return 0
        return _follow_experiment(exp, args.json)
    handle = _runner().start(spec)
    if args.detach:
        print(handle.id)
        return 0
    return _follow(handle, spec.name, args.json)


def _open_any(ref: str):
    """The run ``ref`` names, else the experiment; a ``UserError`` if neither exists."""
    from accelbench.engine.run.experiment import Experiment

    runner = _runner()
    try:
        return runner.open(ref)
    except UserError as not_a_run:
        try:
            return Experiment.open(runner, ref)
        except UserError:
            raise not_a_run from None


def _cmd_attach(args: argparse.Namespace) -> int:
    target = _open_any(args.run)
    if hasattr(target, "entries"):
        return _follow_experiment(target, args.json)
    return _follow(target, target.info.name, args.json)


def _follow_experiment(exp, as_json: bool) -> int:
    """Show an experiment live (one row per variant) until it ends; Ctrl-C cancels it.
    Then its comparison. Exit 0 only if every run succeeded."""
    from accelbench.cli.live import comparison_table, console, render_experiment
    from accelbench.engine.run.state import RunState
    from accelbench.engine.store.compare import compare

    out = console(stderr=as_json)
    states: dict[str, RunState] = {}

    def fold(event) -> None:
        states.setdefault(event.run_id, RunState(event.run_id)).feed(event)

    interrupted = _watch(exp.batches(), fold, exp.cancel, f"experiment {exp.id}", as_json,
                         out, lambda: render_experiment(exp, states, out.width))
    if not as_json:
        out.print(comparison_table(compare(exp.runs()), exp.info.name, out.width))
    if interrupted:
        return 130
    status = exp.status()
    out.print(f"experiment {exp.id}: {status}")
    return 0 if status == "done" else 1


def _follow(handle, name: str, as_json: bool) -> int:
    """Show the run live until it ends; Ctrl-C cancels it. Exit 0 only if it succeeded."""
    from accelbench.cli.live import WRAP_KEY, console, render, summary_table
    from accelbench.engine.run.state import RunState

    out = console(stderr=as_json)
    state = RunState(handle.id)
    batches = handle.batches() if as_json else handle.batches(poll=1 / LIVE_HZ)
    keys = not as_json and _keys() is not None  # (the live view reads keys)
    whole = [False]  # the cut log lines shown whole (the key switches it)

    def switch() -> None:
        whole[0] = not whole[0]

    interrupted = _watch(batches, state.feed, handle.cancel, f"run {handle.id}",
                         as_json, out, lambda: render(state, name, out.width,
                                                      whole=whole[0] if keys else None),
                         {WRAP_KEY: switch} if keys else None)
    if not as_json:
        out.print(summary_table(state, name, out.width))
    if interrupted:
        return 130
    status = state.finished.status if state.finished else "lost"
    return 0 if status == "done" else 1


def _keys() -> int | None:
    """The terminal the live view reads keys from (its descriptor): stdin, where it is a
    terminal this process has in the foreground (a background job must not take it)."""
    import os

    try:
        fd = sys.stdin.fileno()
        return fd if sys.stdin.isatty() and os.tcgetpgrp(fd) == os.getpgrp() else None
    except (AttributeError, OSError, ValueError):  # (stdin closed or replaced)
        return None


@contextlib.contextmanager
def _keys_one_by_one(terminal: int) -> Iterator[None]:
    """The terminal gives each key as it is pressed, unechoed (Ctrl-C still a signal);
    as it was after."""
    import termios
    import tty

    saved = termios.tcgetattr(terminal)
    tty.setcbreak(terminal)
    try:
        yield
    finally:
        termios.tcsetattr(terminal, termios.TCSADRAIN, saved)


def _watch(batches, fold: Callable, cancel: Callable, what: str, as_json: bool, console,
           render: Callable, keys: dict[str, Callable[[], None]] | None = None) -> bool:
    """Fold every event of ``batches`` and show them (JSON lines on stdout, or ``render()``
    live: drawn again when a batch came, ``LIVE_HZ`` times a second at most, else once a
    second for its clock) until they end; Ctrl-C calls ``cancel`` once; a key of ``keys``
    pressed on the terminal calls its action and draws again. True if Ctrl-C was pressed."""
    import asyncio
    import os
    import signal
    import time

    from rich.live import Live

    from accelbench.engine.core.events import to_json

    interrupted: list[bool] = []

    def on_interrupt() -> None:
        if not interrupted:
            interrupted.append(True)
            console.print(f"Ctrl-C: cancelling {what} …", style="yellow")
            asyncio.get_running_loop().run_in_executor(None, cancel)

    async def consume(on_batch: Callable[[list], None], beside=None,
                      on_key: Callable[[str], None] | None = None, terminal: int = -1) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
        if on_key:
            loop.add_reader(terminal, lambda: on_key(os.read(terminal, 64).decode(
                errors="replace")))
        task = asyncio.create_task(beside()) if beside else None
        async for batch in batches:
            for event in batch:
                fold(event)
            on_batch(batch)
        if task:
            task.cancel()
        if on_key:
            loop.remove_reader(terminal)

    if as_json:
        def write(batch: list) -> None:
            sys.stdout.write("".join(to_json(e) + "\n" for e in batch))
            sys.stdout.flush()
        asyncio.run(consume(write))
    else:
        with Live(render(), console=console, auto_refresh=False) as live:
            gap = 0.9 / LIVE_HZ  # between two draws at least (a tick's jitter allowed)
            drawn, due = [time.monotonic()], [False]  # when drawn last; a batch came since

            def draw() -> None:
                live.update(render(), refresh=True)
                drawn[0], due[0] = time.monotonic(), False

            def came(_batch: list) -> None:
                due[0] = True
                if time.monotonic() - drawn[0] >= gap:
                    draw()

            async def ticks() -> None:  # a batch that came too soon; the clock of a quiet run
                while True:
                    await asyncio.sleep(1 / LIVE_HZ)
                    late = time.monotonic() - drawn[0]
                    if (due[0] and late >= gap) or late >= 1:
                        draw()

            def pressed(typed: str) -> None:
                for key, action in (keys or {}).items():
                    if key in typed:
                        action()
                        draw()

            terminal = _keys() if keys else None
            if terminal is None:
                asyncio.run(consume(came, ticks))
            else:
                with _keys_one_by_one(terminal):
                    asyncio.run(consume(came, ticks, pressed, terminal))
            live.update(render())  # the last frame (Live draws it as it stops)
        if not console.is_terminal:  # Live ends its last frame with a newline only on one
            console.line()
    if interrupted:
        console.print(f"{what} was cancelled (Ctrl-C)", style="yellow")
    return bool(interrupted)


def _cmd_runs(args: argparse.Namespace) -> int:
    import time

    from accelbench.engine.core.job import RunInfo
    from accelbench.engine.store.runs import RunQuery

    form = _form(args)
    if args.experiments:
        return _list_experiments(form)
    if args.all and args.limit:
        raise UserError("give --limit N or --all, not both")
    runner = _runner()
    query = RunQuery(
        status=tuple(s.strip() for s in (args.status or "").split(",") if s.strip()),
        accelerator=args.accelerator, workload=args.workload,
        experiment=runner.store.get_experiment(args.experiment).id if args.experiment else None,
        since=None if args.since is None else time.time() - args.since)
    limit = None if args.all else args.limit or (PAGE if form == "table" else None)
    infos: list[RunInfo] = runner.runs(limit, query)
    if form == "json":
        print(json.dumps([_run_record(i) for i in infos], indent=1))
        return 0
    from accelbench.cli.live import console, table
    from accelbench.engine.view import figures as fmt
    from accelbench.engine.view import layout
    from accelbench.engine.view import model as present

    out = console()
    heads, rows = present.run_heads(), [present.run_cells(present.run_values(i)) for i in infos]
    shape = layout.fit(heads, rows, out.width)
    shortened = shape.forms[shape.columns.index(present.RUN_COLUMNS.index("run"))]
    total = len(infos) if limit is None or len(infos) < limit else runner.store.count(query)
    ids = ("each run by an end of its id, which names it too" if shortened
           else "ids start with the date and time")
    title = (f"{fmt.counted(len(infos), 'run')} ({ids})" if total == len(infos)
             else f"{len(infos)} of {fmt.counted(total, 'run')}; --all for every one,"
             " --limit N for more")
    out.print(table(heads, rows, out.width, title=title, shape=shape))
    for i in infos:
        if i.reason:
            out.print(f"{i.id} is {i.status}: {i.reason}")
    return 0


def _run_record(info) -> dict[str, Any]:
    """A run as ``runs --json`` (and ``show --json``, ``import --json``) print it."""
    return {"id": info.id, "name": info.name, "workload": info.workload,
            "accelerator": info.accelerator, "launcher": info.launcher,
            "status": info.status, "created": info.created, "ended": info.ended,
            "experiment": info.experiment, "variant": info.variant,
            "params": info.params, "summary": info.summary.to_dict(),
            **({"reason": info.reason} if info.reason else {})}


def _list_experiments(form: str) -> int:
    from accelbench.engine.run.experiment import Experiment

    runner = _runner()
    exps = [Experiment(runner, info) for info in runner.store.experiments()]
    rows: list[dict[str, Any]] = [
        {"id": e.id, "name": e.info.name, "status": e.status(), "created": e.info.created,
         "ended": e.info.ended, "variants": e.info.total,
         "runs": [entry.run_id for entry in e.entries()]} for e in exps]
    if form == "json":
        print(json.dumps(rows, indent=1))
        return 0
    from accelbench.cli.live import console, table
    from accelbench.engine.view import figures as fmt
    from accelbench.engine.view.model import Cell, experiment_list_heads, id_cell, status_cell

    out = console()
    out.print(table(
        experiment_list_heads(),
        [[id_cell(row["id"]), Cell(row["name"]), status_cell(row["status"]),
          Cell(str(row["variants"]), justify="right"),
          Cell(str(sum(1 for r in row["runs"] if r)), justify="right"),
          Cell(fmt.when(row["created"]))] for row in rows],
        out.width, title=fmt.counted(len(rows), "experiment")))
    return 0


def _selected_runs(runner, refs: list[str], experiment: str | None) -> list:
    """The runs named on the command line, or those of ``--experiment``."""
    if experiment and refs:
        raise UserError("give run ids or --experiment, not both")
    if experiment:
        from accelbench.engine.run.experiment import Experiment

        runs = Experiment.open(runner, experiment).runs()
        if not runs:
            raise UserError(f"experiment {experiment!r} has no runs yet")
        return runs
    if not refs:
        raise UserError("no runs given", hint="give run ids, or --experiment NAME")
    return [runner.store.get(ref) for ref in refs]


def _cmd_compare(args: argparse.Namespace) -> int:
    from accelbench.engine.store.compare import compare

    runner = _runner()
    form = _form(args)
    cmp = compare(runner.refresh(_selected_runs(runner, args.runs, args.experiment)))
    if form == "table":
        from accelbench.cli.live import comparison_table, console

        out = console()
        out.print(comparison_table(cmp, args.experiment or "comparison", out.width))
        if args.plot:
            _print_plots(out, runner, cmp)
        return 0
    text = {"csv": cmp.to_csv, "markdown": cmp.to_markdown, "json": cmp.to_json}[form]()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as file:
            file.write(text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _print_plots(console, runner, cmp) -> None:
    from accelbench.engine.run import digest
    from accelbench.engine.store.compare import loss_curves, throughput
    from accelbench.engine.view import plot

    width = min(console.width, 100)
    console.rule("throughput (samples/s)")
    console.print(plot.bars(throughput(cmp), width=width, unit="samples/s"))
    states = [digest.read(info) or runner.open(info.id).state() for info in cmp.runs]
    histories = [state.metric_history if state else {} for state in states]
    curves = loss_curves(cmp, histories)
    if curves:
        console.rule("loss")
        console.print(plot.lines(curves, width=width, height=14, x_label="step"))


def _cmd_rm(args: argparse.Namespace) -> int:
    runner = _runner()
    runs = _selected_runs(runner, args.runs, args.experiment)
    live = [info.id for info in runs if _live(info)]
    if live and not args.force:
        raise UserError(f"run {live[0]} is live" + (f" (and {len(live) - 1} more)" if live[1:]
                                                     else ""),
                        hint="cancel it first, or use --force to cancel and delete")
    if not args.yes and not _confirm(
            f"delete {_listed([info.id for info in runs], 'run')}"
            + (f" and experiment {args.experiment}" if args.experiment else "")
            + (" (cancelling the live ones)" if live else "") + " for good?"):
        print("nothing deleted")
        return 1
    for info in runs:
        if info.id in live:
            runner.open(info.id).cancel()
        runner.store.remove(info.id)
        print(f"removed {info.id}")
    if args.experiment:
        exp = runner.store.get_experiment(args.experiment)
        runner.store.remove_experiment(exp.id)
        print(f"removed experiment {exp.id}")
    return 0


def _listed(ids: list[str], noun: str, shown: int = 3) -> str:
    """``run a, b, c`` or ``5 runs (a, b, c, ...)``."""
    from accelbench.engine.view import figures as fmt

    if len(ids) == 1:
        return f"{noun} {ids[0]}"
    more = ", …" if len(ids) > shown else ""
    return f"{fmt.counted(len(ids), noun)} ({', '.join(ids[:shown])}{more})"


def _confirm(question: str) -> bool:
    """Whether the user answers yes to ``question`` on the terminal (a ``UserError`` where
    there is none to ask on: ``--yes`` says it there)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError(f"{question.removesuffix('?')}: not without --yes (no terminal to ask"
                        " on)", hint="add --yes to delete without asking")
    _say(question)
    try:
        answer = input("[y/N] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def _live(info) -> bool:
    """The run's job may still run: it has not ended, even if the index lags (a job whose
    process vanished, on a full disk where that cannot be recorded, is not live)."""
    from accelbench.engine.plugin.launcher import job_gone
    from accelbench.engine.rundir.exitfile import recorded
    from accelbench.engine.rundir.files import EXIT_FILE

    return not info.final and not recorded(info.path(EXIT_FILE)) and not job_gone(info)


def _cmd_clean(args: argparse.Namespace) -> int:
    import time

    from accelbench.engine.view import figures as fmt

    runner = _runner()
    statuses = {s.strip() for s in args.status.split(",") if s.strip()}
    cutoff = time.time() - args.older_than * 86400
    old = [i for i in runner.runs() if i.final and i.status in statuses
           and (i.ended or i.created) < cutoff]
    for info in old:
        if not args.dry_run:
            runner.store.remove(info.id)
        if not args.json:
            print(f"{'would remove' if args.dry_run else 'removed'} {info.id} ({info.status})")
    if args.json:
        print(json.dumps({"dry_run": args.dry_run,
                          "runs": [{"id": i.id, "status": i.status} for i in old]}, indent=1))
    else:
        print(f"{fmt.counted(len(old), 'run')} {'to remove' if args.dry_run else 'removed'}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from rich.text import Text

    from accelbench.cli.live import console, summary_table
    from accelbench.engine.core import safefile
    from accelbench.engine.core.text import printable_lines
    from accelbench.engine.run import digest
    from accelbench.engine.rundir.files import LAUNCH_FILE, OUTPUT_FILE, SPEC_FILE, read_json
    from accelbench.engine.rundir.records import Launch
    from accelbench.engine.view import figures as fmt
    from accelbench.engine.view import model as present

    if args.cut and not args.log:
        raise UserError("--cut is for --log", hint="accelbench show RUN --log --cut")
    handle = _runner().open(args.run)
    if args.log:
        try:
            log = open(safefile.open_regular(handle.info.path(OUTPUT_FILE)), "rb")  # noqa: SIM115
        except (OSError, ValueError) as exc:
            raise UserError(f"{handle.id}: the log cannot be read ({exc})") from None
        with log:
            _print_log(log, args.cut)
        return 0
    # an ended run: its digest (no log read); else one streaming pass over the logs
    state = digest.read(handle.info) or handle.state()
    cwd = (read_json(handle.info.path(LAUNCH_FILE)) or {}).get("cwd")
    if args.json:
        print(json.dumps(_show_record(handle, state, cwd), indent=1))
        return 0
    out = console()
    status = handle.info.status
    out.print(Text.assemble((handle.id, "bold"), "  ", (status, present.phase_style(status)),
                            f"  started {fmt.when(handle.info.created)}  dir {handle.info.dir}"))
    launch = Launch.read(handle.info.dir)
    cwd = launch.cwd if launch else ""
    if cwd and cwd != str(handle.info.dir):  # (the run's dir: an old run)
        out.print(Text(f"ran in {printable(cwd)}"))
    if state is None:
        out.print(f"{handle.info.status}: {printable(handle.info.reason)}")
    out.rule("spec")
    try:
        spec = safefile.read_text(handle.info.path(SPEC_FILE), errors="replace")
    except (OSError, ValueError) as exc:
        spec = f"({SPEC_FILE} cannot be read: {getattr(exc, 'strerror', None) or exc})"
    out.print(printable_lines(spec), highlight=False)
    if state is None:
        return 0
    out.rule("summary")
    out.print(summary_table(state, handle.info.name, out.width))
    for diag in state.diagnoses:
        out.print(Text.assemble(f"! {present.diagnosis_code(diag)}: ",
                                present.diagnosis_line(diag), style="yellow"))
    out.rule("metrics (latest value, history)")
    for row in present.metric_rows(state, digits=6):
        out.print(Text.assemble(f"  {row.name:32} {row.latest:>12}  ", (row.spark, "cyan")))
    out.rule("log (last lines)")
    for line in present.log_lines(state, len(state.log_tail) + 1):
        out.print(line, highlight=False)
    if args.chart:
        _print_charts(out, state, args.chart)
    return 0


def _print_log(log, cut: bool) -> None:
    """A run's output: byte for byte (its long lines whole: the terminal wraps them), or
    with ``cut`` each line cut to the width with ``…``, through the output gate."""
    import shutil

    if not cut:
        shutil.copyfileobj(log, sys.stdout.buffer)
        return
    from rich.cells import cell_len, set_cell_size

    from accelbench.cli.console import width
    from accelbench.engine.core.text import printable

    columns = width()
    for raw in log:
        line = printable(raw.decode("utf-8", "replace").rstrip("\r\n").expandtabs())
        if cell_len(line) > columns:
            line = set_cell_size(line, columns - 1) + "…"
        sys.stdout.write(line + "\n")


def _show_record(handle, state, cwd: Any) -> dict[str, Any]:
    """What ``show`` prints, as ``show --json`` prints it: the run (as ``runs --json``), where
    it ran, its spec, its figures so far, its latest metrics, diagnoses and last lines."""
    import tomllib

    from accelbench.engine.core import safefile
    from accelbench.engine.rundir.files import SPEC_FILE
    from accelbench.engine.view import model as present

    try:
        spec = tomllib.loads(safefile.read_text(handle.info.path(SPEC_FILE)))
    except (OSError, ValueError):  # (TOMLDecodeError, UnicodeDecodeError are ValueErrors)
        spec = None
    record = {**_run_record(handle.info), "dir": str(handle.info.dir),
              "cwd": cwd if isinstance(cwd, str) and cwd else None, "spec": spec}
    if state is not None:
        record.update(phase=state.phase, summary=present.run_summary(state).to_dict(),
                      metrics=dict(state.metrics),
                      diagnoses=[{"code": d.code, "message": d.message, "hint": d.hint}
                                 for d in state.diagnoses],
                      log_tail=list(state.log_tail))
    return record


def _print_charts(console, state, pattern: str) -> None:
    from accelbench.engine.view import plot
    from accelbench.engine.view.model import metric_curves

    curves = [c for c in metric_curves(state, pattern) if len(c[1]) > 1]
    if not curves:
        raise UserError(f"no metric matching {pattern!r} was reported more than once",
                        hint="the run's metrics are listed above")
    for name, points, x_label in curves:
        console.rule(name)
        console.print(plot.lines([(name, points)], width=min(console.width, 100), height=10,
                                 x_label=x_label))


def _cmd_cancel(args: argparse.Namespace) -> int:
    handle = _open_any(args.run)
    if hasattr(handle, "entries"):
        if handle.status() != "running":
            raise UserError(f"experiment {handle.id} has already ended ({handle.status()})")
        handle.cancel()
        print(f"experiment {handle.id}: cancelled")
        return 0
    if handle.info.final:
        raise UserError(f"run {handle.id} has already ended ({handle.info.status})")
    handle.cancel(args.grace)
    state = handle.state()
    print(f"run {handle.id}: {state.phase if state else handle.info.status}")
    return 0


def _cmd_parse(args: argparse.Namespace) -> int:
    from accelbench.cli.parse import parse

    return parse(args.logfile, args.dialect, args.json)


def _cmd_import(args: argparse.Namespace) -> int:
    from accelbench.cli.live import width, wrapped
    from accelbench.engine.core.errors import shown_key
    from accelbench.engine.logs.importer import import_path
    from accelbench.engine.parsers.logclock import zone_file
    from accelbench.engine.view.model import figures_inline

    if args.accelerator:
        registry.get_accelerator(args.accelerator)
    columns = width()
    with zone_file():  # (local times read quicker: one thread here)
        done = import_path(_runner().store, args.logfile, args.dialect, args.accelerator,
                           again=args.again)
    if args.json:
        print(json.dumps({"runs": [_run_record(info) for info in done.runs],
                          "imported_before": [{"path": str(path), "runs": ids}
                                              for path, ids in done.before],
                          "skipped": [{"path": str(path), "reason": reason}
                                      for path, reason in done.skipped]}, indent=1))
    else:
        for info in done.runs:
            print(wrapped(f"{info.id}  {info.accelerator}  {figures_inline(info.summary)}",
                          columns, "  "))
        for path, ids in done.before:
            print(wrapped(f"{shown_key(path)}: imported before, as {', '.join(ids)}"
                          " (--again imports it again)", columns, "  "))
        for path, reason in done.skipped:
            print(f"skipped {shown_key(path)}: {shown_key(reason)}")
    if not done.runs and not done.before:
        raise UserError(f"{args.logfile}: no file under it holds a run accelbench can read")
    return 0


def _cmd_presets(args: argparse.Namespace) -> int:
    """Every preset, those for an accelerator not detected here too (marked: it may still
    run through Slurm, or be edited and saved), and those whose launcher can start no job
    here (marked too), with where to read why."""
    from accelbench.cli.live import console, table
    from accelbench.engine.config import sweep as sweeps
    from accelbench.engine.config.presets import detected_here, launchers_refused, list_presets
    from accelbench.engine.view import figures as fmt
    from accelbench.engine.view import model as present

    entries = list_presets()
    here, refused = detected_here(entries), launchers_refused(entries)

    def usable(spec) -> bool:
        return here[spec.accelerator] and not refused[spec.launcher]

    if args.json:
        print(json.dumps([{"name": e.name, "path": str(e.path), "origin": e.origin,
                           **({"accelerator": e.spec.accelerator, "workload": e.spec.workload,
                               "launcher": e.spec.launcher, "description": e.spec.description,
                               "here": usable(e.spec),
                               "launcher_refused": refused[e.spec.launcher] or None,
                               "variants": sweeps.count(e.spec.sweep) if e.spec.sweep else None}
                              if e.spec else {"error": e.error})} for e in entries], indent=1))
        return 0
    out = console()
    out.print(table(present.preset_heads(),
                    [present.preset_cells(e, bool(e.spec and usable(e.spec)))
                     for e in entries], out.width, title=fmt.counted(len(entries), "preset")))
    missing = sorted(name for name, found in here.items() if not found)
    if missing:
        out.print(f"here = no: {', '.join(missing)} not detected on this machine;"
                  " `accelbench accelerators` tells why")
    for why in dict.fromkeys(why for why in refused.values() if why):  # (srun's is sbatch's)
        names = [name for name, said in refused.items() if said == why]
        out.print(f"here = no: {'launchers' if names[1:] else 'launcher'} {', '.join(names)}:"
                  f" {why}", markup=False)  # (Slurm's words)
    return 0


def _cmd_accelerators(args: argparse.Namespace) -> int:
    from accelbench.cli.live import console, table
    from accelbench.engine.view.model import Cell, accelerator_heads, availability_cell

    rows = []
    detected = registry.detect_all()  # (a plug-in left out: its line is among the notices)
    if args.json:
        print(json.dumps([{"name": acc.name, "title": acc.title,
                           "available": detected[acc.name].available,
                           "detail": detected[acc.name].detail,
                           "reason": detected[acc.name].reason,
                           "workloads": [w.name for w in registry.workloads().values()
                                         if w.runs_on(acc.name)]}
                          for acc in registry.systems().values()], indent=1))
        return 0
    for acc in registry.systems().values():
        found = detected[acc.name]
        rows.append([Cell(acc.name), Cell(acc.title), availability_cell(found.available),
                     Cell(found.detail if found.available else found.reason),
                     Cell(", ".join(w.name for w in registry.workloads().values()
                                    if w.runs_on(acc.name)))])
    out = console()
    out.print(table(accelerator_heads(), rows, out.width, title="accelerators"))
    return 0


def _cmd_top(args: argparse.Namespace) -> int:
    from accelbench.cli.top import cmd_top

    return cmd_top(args)


def _cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when the store is healthy (or was repaired), 1 when problems remain."""
    from accelbench.engine.run.doctor import examine

    _NOTICES.muted = True  # the report tells what the notices would
    report = examine(dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1))
        return 0 if report.healthy else 1
    for finding in report.findings:
        _say(f"{'fixed' if finding.fixed else 'found'}: {finding.target}: {finding.detail}")
    fixed = sum(f.fixed for f in report.findings)
    if not report.findings:
        print(f"{report.home}: healthy")
    else:
        from accelbench.engine.view import figures as fmt

        print(f"{report.home}: {fmt.counted(len(report.findings), 'problem')} found, {fixed} fixed,"
              f" {len(report.findings) - fixed} remain" + (" (dry run)" if args.dry_run else ""))
    return 0 if report.healthy else 1


if __name__ == "__main__":
    sys.exit(main())
