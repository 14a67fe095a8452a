"""The rich console every command prints with, and the width it prints in (a module of its
own: ``accelbench parse`` prints a table without what the live view imports)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console

PIPED_WIDTH = 80  # the width of what is not printed to a terminal, unless COLUMNS says


def _given() -> int | None:
    """The width ``COLUMNS`` gives, if it gives one."""
    given = os.environ.get("COLUMNS", "").strip()
    return int(given) if given.isdigit() and int(given) > 0 else None


def width(stream: TextIO | None = None) -> int:
    """The width to print to ``stream`` (stdout) in: ``COLUMNS`` when set, else the terminal's
    when it is one, else ``PIPED_WIDTH``."""
    stream = stream or sys.stdout
    if given := _given():
        return given
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns or PIPED_WIDTH
    except (AttributeError, OSError, ValueError):  # a stream with no file behind it
        pass
    return PIPED_WIDTH


def console(stderr: bool = False) -> Console:
    """A console that never reads a string as markup or emoji codes: run names, metrics and
    log lines print as they are; styles come from ``Text`` and ``style=``. Its width is
    ``width()``'s: a terminal's is read again as it is resized, unless ``COLUMNS`` is set."""
    stream = sys.stderr if stderr else sys.stdout
    follows = stream.isatty() and _given() is None
    return Console(markup=False, emoji=False, stderr=stderr,
                   width=None if follows else width(stream))
