"""Tables that fit a width: columns chosen by width and priority, nothing cut that a user types.

Plain data for the CLI and the app alike. Each way a table can narrow is a step with a
priority, and the least important steps are taken first until the table fits:

* dropping a column: its ``Head.priority`` (0: never dropped);
* showing a column's cells in a shorter form (a run id's unique suffix instead of the whole
  id): ``Head.shorten``, one priority per shorter form, taken in order.

Columns never lose characters: ``whole`` columns (names, ids, figures) keep their widest
cell; ``wrap`` columns (descriptions, knobs) may wrap onto more lines, down to their
longest word. A table whose ``whole`` columns alone are wider than the width stays wider.
A table of one-line rows (Textual's ``DataTable``) fits with ``wrap=False`` in ``padded``
room; a column it must show (the one it is sorted by) is ``keep``.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rich.cells import cell_len

from accelbench.engine.view.model import Cell, Head

GAP = 2  # columns apart
WRAP_MIN = 16  # a wrapping column narrows to this (or to its longest word, if longer)


@dataclass(frozen=True)
class Layout:
    """The columns shown (indices into the heads), their widths and their cells' forms."""

    columns: tuple[int, ...]
    widths: tuple[int, ...]
    forms: tuple[int, ...]  # per shown column: 0 its full cells, k its k-th shorter form

    def heads(self, heads: Sequence[Head]) -> list[Head]:
        """The shown columns' heads."""
        return [heads[i] for i in self.columns]

    def row(self, row: Sequence[Cell]) -> list[Cell]:
        """A row's shown cells, each in its column's form."""
        return [form_of(row[i], k) for i, k in zip(self.columns, self.forms, strict=True)]

    @property
    def width(self) -> int:
        """The table's width in cells."""
        return sum(self.widths) + GAP * max(len(self.widths) - 1, 0)


def form_of(cell: Cell, k: int) -> Cell:
    """``cell`` in its ``k``-th shorter form (its last one if it has fewer; 0: as it is)."""
    if k == 0 or not cell.shorter:
        return cell
    return Cell(text_of(cell, k), cell.style, cell.justify)


def text_of(cell: Cell, k: int) -> str:
    """The text of ``cell``'s ``k``-th shorter form."""
    return cell.shorter[min(k, len(cell.shorter)) - 1] if k and cell.shorter else cell.text


def text_width(text: str) -> int:
    """The widest line of ``text``, in terminal cells."""
    if "\n" not in text:
        return cell_len(text)
    return max(cell_len(line) for line in text.split("\n"))


def longest_word(text: str) -> int:
    """The widest word of ``text``: the narrowest a wrapping column can be."""
    return max((cell_len(word) for word in text.split()), default=0)


def padded(width: int) -> int:
    """The room ``fit`` has in a table ``width`` cells wide that pads each cell by half a
    ``GAP`` on both sides (Textual's ``DataTable``): ``fit`` counts the gaps between
    columns, not the halves at the table's two edges."""
    return width - GAP


def fit(heads: Sequence[Head], rows: Sequence[Sequence[Cell]], width: int,
        keep: Collection[int] = (), wrap: bool = True) -> Layout:
    """The columns of ``heads``/``rows`` to show in ``width`` cells, and how wide; the
    columns ``keep`` (indices) are never dropped, whatever their priority (they may still
    take a shorter form); ``wrap=False``: rows one line high, ``wrap`` columns kept whole
    as the others."""
    @functools.cache  # each column's widths are read once, however many steps it takes
    def natural(i: int, k: int) -> int:
        return max([text_width(heads[i].title)]
                   + [text_width(text_of(row[i], k)) for row in rows])

    @functools.cache
    def narrowest(i: int, k: int) -> int:
        if not wrap or heads[i].fit != "wrap":
            return natural(i, k)
        words = max([longest_word(heads[i].title)]
                    + [longest_word(text_of(row[i], k)) for row in rows])
        return max(words, min(natural(i, k), WRAP_MIN))

    shown = list(range(len(heads)))
    forms = [0] * len(heads)
    steps = sorted([(head.priority, i, None) for i, head in enumerate(heads)
                    if head.priority and i not in keep]
                   + [(p, i, k + 1) for i, head in enumerate(heads)
                      for k, p in enumerate(head.shorten)],
                   key=lambda step: (-step[0], step[2] is None, -step[1]))

    def need() -> int:
        return sum(narrowest(i, forms[i]) for i in shown) + GAP * (len(shown) - 1)

    dropped = []
    for priority, column, form in steps:
        if need() <= width:
            break
        if form is None:
            shown.remove(column)
            dropped.append((priority, column))
        elif column in shown:
            forms[column] = max(forms[column], form)  # never back to a longer form
    for _, column in sorted(dropped):  # a later step may have made room for an earlier drop
        shown.append(column)
        shown.sort()
        if need() > width:
            shown.remove(column)
    extra = max(width - need(), 0)
    widths = []
    for i in shown:
        low = narrowest(i, forms[i])
        grow = min(natural(i, forms[i]) - low, extra)
        extra -= grow
        widths.append(low + grow)
    return Layout(tuple(shown), tuple(widths), tuple(forms[i] for i in shown))


def transpose(heads: Sequence[Head], rows: Sequence[Sequence[Cell]]) -> tuple[list[Head],
                                                                             list[list[Cell]]]:
    """Rows as columns: the first column's cells become the heads, each other column a row
    led by its title (a comparison with its runs as columns)."""
    new_heads = [Head(heads[0].title),
                 *(Head(row[0].text, "right", style=row[0].style) for row in rows)]
    new_rows = [[Cell(head.title, "bold"), *(row[j] for row in rows)]
                for j, head in enumerate(heads) if j]
    return new_heads, new_rows


def split(heads: Sequence[Head], rows: Sequence[Sequence[Cell]],
          width: int) -> list[tuple[list[Head], list[list[Cell]]]]:
    """The table in parts of as many columns as fit ``width``, each led by the first column
    (a transposed comparison of more runs than fit side by side)."""
    def natural(i: int) -> int:
        return max([text_width(heads[i].title)] + [text_width(row[i].text) for row in rows])

    groups: list[list[int]] = [[]]
    used = natural(0)
    for i in range(1, len(heads)):
        if groups[-1] and used + GAP + natural(i) > width:
            groups.append([])
            used = natural(0)
        groups[-1].append(i)
        used += GAP + natural(i)
    return [([heads[0], *(heads[i] for i in group)],
             [[row[0], *(row[i] for i in group)] for row in rows]) for group in groups]
