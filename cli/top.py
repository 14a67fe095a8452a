"""``accelbench top``: the live view of this node's devices, full screen like top (q or
ctrl-c leaves, p shows each CPU core or not), one view (``--once``), or JSON lines for
scripts (``--json``; fields: ``engine.run.top.FIELDS``); ``--per-core`` adds each core."""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import sys
import termios
import time
import tty
from collections.abc import Iterator

from rich.live import Live

from accelbench.cli.live import console
from accelbench.engine.plugin import registry
from accelbench.engine.run.top import FIRST_READING_S, Top, json_lines
from accelbench.engine.store.runs import Store
from accelbench.engine.view import topview

LIVE_FIRST_S = 1.0  # how long the live view waits for the sources' first readings


def cmd_top(args: argparse.Namespace) -> int:
    """Sample until q or ctrl-c (or once); exit code 0 either way."""
    with contextlib.suppress(KeyboardInterrupt):
        return _top(args)
    return 0


def _top(args: argparse.Namespace) -> int:
    titles = {name: system.title for name, system in registry.systems().items()}
    with Top(args.interval, Store()) as top:
        watched = not (args.once or args.json) and sys.stdout.isatty()
        top.wait_first(LIVE_FIRST_S if watched else FIRST_READING_S)  # then as they come
        if args.json:
            while True:
                print("\n".join(json_lines(top.sample(), args.per_core)), flush=True)
                if args.once:
                    return 0
                time.sleep(args.interval)
        out = console()
        if args.once or not out.is_terminal:
            out.print(topview.render(top.sample(), out.width, titles, args.interval,
                                     per_core=args.per_core))
            return 0
        keys, per_core = "q quits, p per core", args.per_core
        with _keys() as fd, Live(console=out, auto_refresh=False, screen=True) as live:
            while True:
                live.update(topview.render(top.sample(), out.width, titles, args.interval,
                                           keys, per_core), refresh=True)
                key = _wait_key(args.interval, fd)
                if key in ("q", "Q"):
                    return 0
                if key in ("p", "P"):
                    per_core = not per_core


@contextlib.contextmanager
def _keys() -> Iterator[int | None]:
    """Standard input's descriptor with keys read one at a time, unechoed (None when it is
    not a terminal); the terminal is set back after."""
    fd = sys.stdin.fileno() if sys.stdin.isatty() else None
    if fd is None:
        yield None
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _wait_key(timeout: float, fd: int | None) -> str:
    """A key pressed within ``timeout`` seconds ("" if none, or no terminal to read)."""
    if fd is None:
        select.select([], [], [], timeout)
        return ""
    ready, _, _ = select.select([fd], [], [], timeout)
    return os.read(fd, 1).decode(errors="replace") if ready else ""
