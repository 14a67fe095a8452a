"""Terminal plots for comparisons, as rich ``Text`` (the CLI prints them, the TUI shows them).

``bars``: one horizontal bar per labelled value (throughput against the swept
parameter). ``lines``: several series overlaid on a braille canvas, one colour
each, with their axes' ranges and a legend (the loss curves of several runs).
``spark``: a sparkline of a series (a metric's history, a run's throughput), its gaps blank.
"""

from __future__ import annotations

import itertools
import math

from rich.cells import cell_len
from rich.text import Text

from accelbench.engine.view import figures as fmt

COLOURS = ("cyan", "magenta", "yellow", "green", "red", "blue", "bright_white", "bright_red")
_EIGHTHS = " ▏▎▍▌▋▊▉"
MIN_BAR = 8  # the fewest cells the longest bar takes
_BLOCKS = "▁▂▃▄▅▆▇█"
_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # braille dot of (row, col)


def bars(items: list[tuple[str, float | None]], width: int = 60, unit: str = "") -> Text:
    """One bar per ``(label, value)`` in ``width`` cells; the longest bar is the largest
    value. Labels are never cut: too long to share a line with a bar, each goes above its own."""
    known = [v for _, v in items if v is not None]
    if not known:
        return Text("(no values to plot)", style="dim")
    top = max(known) or 1.0
    tails = [f" {fmt.number(value)}{' ' + unit if unit else ''}" for _, value in items]
    tail_w = max(len(tail) for tail, (_, value) in zip(tails, items, strict=True)
                 if value is not None)
    label_w = max(len(label) for label, _ in items)
    above = label_w + 1 + MIN_BAR + tail_w > width
    bar_w = max(MIN_BAR, width - tail_w - (0 if above else label_w + 1))
    out = Text()
    for i, ((label, value), tail) in enumerate(zip(items, tails, strict=True)):
        out.append(f"{label}\n" if above else f"{label:>{label_w}} ", style="bold")
        if value is None:
            out.append("-\n", style="dim")
            continue
        eighths = round(max(0.0, value) / top * bar_w * 8)
        full, part = divmod(eighths, 8)
        out.append("█" * full + (_EIGHTHS[part] if part else ""), style=COLOURS[i % len(COLOURS)])
        out.append(f"{tail}\n")
    return out


def spark(values: list[float], width: int = 20, height: int = 1,
          floor: float | None = None) -> str:
    """``values`` as at most ``width`` columns of block characters ``height`` lines high
    (lines joined by newlines), each the mean of its share, from the lowest (▁) to the
    highest (█): the lowest value, or ``floor`` where given (a throughput read against
    zero); a flat series is a flat line; a NaN or infinite value is a gap (blank)."""
    if not values:
        return ""
    if len(values) > width:
        step = len(values) / width
        values = [sum(chunk) / len(chunk) for i in range(width)
                  if (chunk := values[int(i * step):int((i + 1) * step)])]
    drawn = [v for v in values if math.isfinite(v)]
    if not drawn:
        return "\n".join([" " * len(values)] * height)
    low = min(drawn) if floor is None else min(floor, *drawn)
    high = max(drawn)
    top = len(_BLOCKS) * height - 1  # eighths of the column, less one: ▁ is the lowest
    levels = [None if not math.isfinite(v) else
              round((v - low) / (high - low) * top) if high > low else 0 for v in values]
    rows = []
    for row in reversed(range(height)):  # the top line first: its eighths of each column
        fills = [0 if level is None else min(max(level + 1 - row * len(_BLOCKS), 0),
                                             len(_BLOCKS)) for level in levels]
        rows.append("".join(_BLOCKS[fill - 1] if fill else " " for fill in fills))
    return "\n".join(rows)


def gaps(points: list[tuple[float, float]], factor: float = 4.0) -> list[float]:
    """The values of ``(time, value)`` points with a NaN (a gap, ``spark`` leaves it
    blank) where the time between two points is over ``factor`` times their usual (median)
    interval: nothing was reported there, which no bar may read as a value."""
    if len(points) < 3:
        return [v for _, v in points]
    steps = sorted(b[0] - a[0] for a, b in itertools.pairwise(points))
    usual = steps[len(steps) // 2]
    out = [points[0][1]]
    for (t0, _), (t1, value) in itertools.pairwise(points):
        if usual > 0 and t1 - t0 > factor * usual:
            out.append(math.nan)
        out.append(value)
    return out


def lines(series: list[tuple[str, list[tuple[float, float]]]], width: int = 60,
          height: int = 12, x_label: str = "", y_label: str = "") -> Text:
    """``series`` of ``(name, [(x, y), ...])`` overlaid; ``width`` x ``height`` cells, then
    the legend (each name on the line of its colour's mark); a NaN or infinite value has
    no place on it."""
    series = [(name, [(x, y) for x, y in pts if math.isfinite(x) and math.isfinite(y)])
              for name, pts in series]
    points = [p for _, pts in series for p in pts]
    if not points:
        return Text("(no values to plot)", style="dim")
    x0, x1 = min(x for x, _ in points), max(x for x, _ in points)
    y0, y1 = min(y for _, y in points), max(y for _, y in points)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    axis_w = max(len(fmt.number(y0)), len(fmt.number(y1))) + 1
    cols = max(4, width - axis_w - 1)
    dots_w, dots_h = cols * 2, height * 4
    cells = [[0] * cols for _ in range(height)]
    colour = [[""] * cols for _ in range(height)]

    def dot(dx: int, dy: int, style: str) -> None:
        row, col = (dots_h - 1 - dy) // 4, dx // 2
        cells[row][col] |= _DOTS[(dots_h - 1 - dy) % 4][dx % 2]
        colour[row][col] = style

    for i, (_, pts) in enumerate(series):
        style = COLOURS[i % len(COLOURS)]
        scaled = [(round((x - x0) / (x1 - x0) * (dots_w - 1)),
                   round((y - y0) / (y1 - y0) * (dots_h - 1))) for x, y in sorted(pts)]
        # each point with the next one (a lone point with itself)
        for (ax, ay), (bx, by) in zip(scaled, scaled[1:] or scaled, strict=False):
            steps = max(abs(bx - ax), abs(by - ay), 1)
            for s in range(steps + 1):
                dot(ax + (bx - ax) * s // steps, ay + (by - ay) * s // steps, style)
    out = Text()
    if y_label:
        out.append(f"{y_label}\n", style="dim")
    for r in range(height):
        tick = fmt.number(y1) if r == 0 else fmt.number(y0) if r == height - 1 else ""
        out.append(f"{tick:>{axis_w}}┤")
        for c in range(cols):
            out.append(chr(0x2800 + cells[r][c]), style=colour[r][c] or None)
        out.append("\n")
    left, right = fmt.number(x0), fmt.number(x1)
    out.append(" " * (axis_w + 1) + left + right.rjust(cols - len(left)) + "\n", style="dim")
    if x_label:
        out.append(" " * (axis_w + 1) + x_label.center(cols) + "\n", style="dim")
    used = 0  # cells of the legend's line so far
    for i, (name, _) in enumerate(series):
        item = 2 + cell_len(name)
        if used:
            fits = used + 2 + item <= width
            out.append("  " if fits else "\n")
            used = used + 2 if fits else 0
        out.append("■ ", style=COLOURS[i % len(COLOURS)])
        out.append(name)
        used += item
    out.append("\n")
    return out
