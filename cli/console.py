"""The rich console every command prints with, and the width it prints in (a module of its
own: ``accelbench parse`` prints a table without what the live view imports)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from accelbench.engine.core.text import printable_lines

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


class GatedConsole(Console):
    """A console whose every printed text passes the output gate (``engine.core.text``): no
    control character a job, a log or a plug-in put in a name, a line or a message reaches
    the terminal, whatever view prints it. Its own segments that are terminal controls
    (``Live``'s cursor moves) and the styles' escapes are its own, and pass."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None):
        for segment in super().render(renderable, options):
            if segment.control or segment.text.isprintable() or segment.text == "\n":
                yield segment
            else:
                yield Segment(printable_lines(segment.text), segment.style)


def console(stderr: bool = False) -> Console:
    """A console that never reads a string as markup or emoji codes: run names, metrics and
    log lines print as they are; styles come from ``Text`` and ``style=``. Its width is
    ``width()``'s: a terminal's is read again as it is resized, unless ``COLUMNS`` is set.
    What it prints passes the output gate (:class:`GatedConsole`)."""
    stream = sys.stderr if stderr else sys.stdout
    follows = stream.isatty() and _given() is None
    return GatedConsole(markup=False, emoji=False, stderr=stderr,
                   width=None if follows else width(stream))
