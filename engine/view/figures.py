"""Human formatting of figures, shared by the CLI and the TUI."""

from __future__ import annotations

import math
import time


def duration(seconds: float | None) -> str:
    """``4.23`` → ``4.2s`` (``4`` → ``4s``), ``75.2`` → ``1:15``, hours when needed; ``-`` if
    unknown."""
    if seconds is None:
        return "-"
    if not math.isfinite(seconds):
        return str(seconds)  # (a job's own figure: nan, inf)
    if isinstance(seconds, int) and seconds < 60:
        return f"{seconds}s"
    if seconds < 59.95:
        return f"{seconds:.1f}s"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


HUGE = 1e15  # from this magnitude on a figure is shown with an exponent (``1e+300``)


def number(value: float | None, digits: int = 4) -> str:
    """A figure with ``digits`` significant digits, without exponent for usual sizes, below
    ``HUGE`` (``nan``, ``inf`` as such: a loss that blew up)."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    if abs(value) >= HUGE:
        return f"{value:.{digits}g}"
    if isinstance(value, int) or (abs(value) >= 10 ** digits and value == int(value)):
        return f"{int(value):,}"
    return f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:,.0f}"


def fixed(value: float | None, decimals: int = 2) -> str:
    """A figure with ``decimals`` decimals (an accuracy in percent); ``-`` if unknown (one
    of ``HUGE`` magnitude or more as ``number`` shows it)."""
    if value is not None and math.isfinite(value) and abs(value) >= HUGE:
        return number(value)
    return "-" if value is None else f"{value:.{decimals}f}"


def when(ts: float | None) -> str:
    """A timestamp as local ``YYYY-MM-DD HH:MM``."""
    return "-" if ts is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 run``, ``2 runs``, ``12,345 runs`` (``plural``: where it is not ``noun + s``)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
