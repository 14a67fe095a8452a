"""Which columns of a table fit a width: by priority, the names and ids kept whole.

A column is shown whole or not at all (a cut name or id cannot be typed back); the run
id gives way to its 6-hex suffix (unique, taken by every command) before the essential
columns would.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

from accelbench.engine.present import Cell, Head

GAP = 2  # columns of padding around a cell (a data table's one each side)
# the runs table's columns, most wanted first; the first ESSENTIAL ones are kept the longest
RUN_PRIORITY = ("run", "workload", "status", "samples/s", "loss", "accel", "acc %",
                "started", "params")
ESSENTIAL = 5


def fit(titles: Sequence[str], widths: Sequence[int], priority: Sequence[str],
        room: int, gap: int = GAP) -> list[str]:
    """The titles of the columns shown in ``room`` columns, in their table's order: taken
    in ``priority`` order while they fit (``widths[i]`` wide, plus ``gap``); the first
    always."""
    width = dict(zip(titles, widths, strict=True))
    shown: set[str] = set()
    used = 0
    for title in priority:
        need = width[title] + gap
        if shown and used + need > room:
            continue
        shown.add(title)
        used += need
    return [t for t in titles if t in shown]


def text_widths(titles: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """Each column's width: its widest cell, or its title."""
    return [max([cell_len(title), *(cell_len(row[i]) for row in rows)])
            for i, title in enumerate(titles)]


def fits(titles: Sequence[str], rows: Sequence[Sequence[str]], room: int,
         gap: int = GAP) -> bool:
    """Every column of ``rows`` fits in ``room`` columns."""
    return sum(width + gap for width in text_widths(titles, rows)) <= room


def transposed(heads: Sequence[Head], rows: Sequence[Sequence[Cell]]
               ) -> tuple[list[Head], list[list[Cell]]]:
    """The table turned: the first column's cells become the heads (a comparison's runs as
    columns), each other column a row led by its title."""
    new_heads = [Head(heads[0].title), *(Head(row[0].text, "right") for row in rows)]
    return new_heads, [[Cell(head.title, "bold"), *(row[i] for row in rows)]
                       for i, head in enumerate(heads) if i]


def run_columns(titles: Sequence[str], rows: Sequence[Sequence[str]], short_rows:
                Sequence[Sequence[str]], room: int, sorted_by: str = "") -> tuple[list[str], bool]:
    """The runs table's columns for ``room`` columns, and whether the ids are shown by
    their suffix (``short_rows``: the same rows so): whole ids unless that would leave out
    an essential column; the column ``sorted_by`` comes right after the id."""
    essential = RUN_PRIORITY[:ESSENTIAL]
    priority = [RUN_PRIORITY[0], *([sorted_by] if sorted_by in titles else []),
                *(title for title in RUN_PRIORITY[1:] if title != sorted_by)]
    whole = fit(titles, text_widths(titles, rows), priority, room)
    if all(title in whole for title in essential):
        return whole, False
    return fit(titles, text_widths(titles, short_rows), priority, room), True
