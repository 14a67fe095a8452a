"""Tables whose header is underlined by runs of dashes (``qstat``'s, ``qstat -a``'s):
each run of dashes is a column, the header words above it its name.

A row is split on whitespace when it gives one cell per column (names hold no spaces in
such tables); otherwise it is cut at the columns' places.
"""

from __future__ import annotations

from accelbench.engine.core.patterns import lazy

_DASHES = lazy(r"-+")


def is_rule(line: str) -> bool:
    """Whether ``line`` is a header's underline: runs of dashes and spaces only."""
    stripped = line.strip()
    return bool(stripped) and set(stripped) <= {"-", " "} and "--" in stripped


def header(above: list[str], rule: str) -> list[tuple[str, int, int]]:
    """The columns a ``rule`` line underlines: (name, start, end), the name the words of
    the lines ``above`` it hold over the column, joined by spaces."""
    columns = []
    for m in _DASHES.finditer(rule):
        words = [line[m.start():m.end() + 1].strip() for line in above]
        columns.append((" ".join(w for w in words if w), m.start(), m.end()))
    return columns


def row(line: str, columns: list[tuple[str, int, int]]) -> list[str]:
    """The cells of ``line`` under ``columns``."""
    cells = line.split()
    if len(cells) == len(columns):
        return cells
    starts = [start for _, start, _ in columns[1:]]
    bounds = zip([0, *starts], [*starts, len(line) + 1], strict=True)
    return [line[a:b].strip() for a, b in bounds]
