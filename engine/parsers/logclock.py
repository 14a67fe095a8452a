"""The clock of a log people already have: the timestamps its lines hold; and the one
reader of timestamps every dialect uses (:func:`local_time`, :func:`utc_time`,
:func:`stamp_seconds` for many alike stamps at once).

An imported run's events are placed in time by them (``LogClock``): the seconds since
the log's first timestamp, after the run's creation, so that its elapsed time, its
charts and its duration are the log's own. A line's timestamp is the first date and
time in it (``2024-03-05 10:00:00,123``, ``2021-6-10 14:54:47``, ``...T10:00:00.5Z``:
a progress bar may come first), else a time of day in brackets at its start
(``[17:47:29.814]``, poplar's); a log is timed by the kind its first timestamp is of.
Dates are read as local time, like the systems' dialects read theirs: only
differences matter.
"""

from __future__ import annotations

import calendar
import contextlib
import functools
import itertools
import operator
import os
import re
import time
from collections.abc import Iterator

from accelbench.engine.core.patterns import lazy

IMPORTED = "imported"  # the workload of an imported run: its events are placed so
DATED = lazy(r"(\d{4})[-/](\d\d?)[-/](\d\d?)[T ](\d\d?):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")
CLOCK = lazy(r"^\s{0,8}\[(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?\]", re.M)
DAY = 86400.0
ZONE_FILE = "/etc/localtime"  # the zone the C library reads local time by where TZ is unset
TAIL = 64 * 1024  # characters of a text's end looked at first for its last timestamp
# a whole timestamp: a date and a time (``2024-03-05 10:00:00,123``, ``2021-6-10 14:54:47``,
# ``2024/03/05 10:00:00.5``, ``2023-12-05T07:16:01``), or C's ctime (nvidia-smi's
# ``Tue Mar  5 10:00:00 2024``)
_WHOLE = lazy(r"\s*(\d{4})[-/](\d\d?)[-/](\d\d?)[T ](\d\d?):(\d\d?):(\d\d?)"
              r"(?:[.,](\d{1,9}))?Z?\s*")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_CTIME = lazy(r"\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (" + "|".join(_MONTHS)
              + r") +(\d\d?) (\d\d?):(\d\d):(\d\d) (\d{4})\s*")
_LIMITS = ((1, 12), (1, 31), (0, 23), (0, 59), (0, 61))  # month ... second


@functools.lru_cache(maxsize=256)
def local_time(text: str) -> float | None:
    """Epoch seconds of ``text``, a whole timestamp (see ``_WHOLE``, ``_CTIME``) read as
    local time, as the systems' dialects read their logs' (only differences matter);
    None if it is none, or no real date and time (month 13). Cached: a log gives many lines
    the same stamp."""
    fields = _fields(text)
    return None if fields is None else _local(*fields[:6]) + fields[6]


def utc_time(text: str) -> float | None:
    """:func:`local_time`, read as UTC (Slurm's tables: the cluster's local time, of which
    only the span between two matters)."""
    fields = _fields(text)
    if fields is None:
        return None
    return float(calendar.timegm((*map(int, fields[:6]), 0, 0, 0))) + fields[6]


def _fields(text: str) -> tuple[str, str, str, str, str, str, float] | None:
    """Year ... second of a whole timestamp, and its fraction of a second."""
    if m := _WHOLE.fullmatch(text):
        year, month, day, hour, minute, second, fraction = m.groups()
    elif m := _CTIME.fullmatch(text):
        name, day, hour, minute, second, year = m.groups()
        month, fraction = str(_MONTHS.index(name) + 1), None
    else:
        return None
    named = (month, day, hour, minute, second)
    if not all(low <= int(value) <= high for value, (low, high) in zip(named, _LIMITS,
                                                                       strict=True)):
        return None
    return year, *named, float(f"0.{fraction}") if fraction else 0.0


def _dated(m: re.Match[str]) -> float:
    return _local(*m.group(1, 2, 3, 4, 5, 6)) + (float(f"0.{m[7]}") if m[7] else 0.0)


@functools.lru_cache(maxsize=256)
def _local(*fields: str) -> float:
    """Epoch seconds of a date and time (year ... second) read as local time (cached: a log
    gives many lines the same second)."""
    year, month, day, hour, minute, second = map(int, fields)
    return time.mktime((year, month, day, hour, minute, second, 0, 0, -1))  # (strptime: slow)


@functools.lru_cache(maxsize=256)
def stamp_seconds(stamp: str) -> float:
    """Epoch seconds of a ``YYYY-MM-DD HH:MM:SS`` stamp read as local time (cached: a log
    gives many lines the same second): its hour's, where the clock keeps one offset from
    UTC all through that hour, plus its minutes and seconds."""
    hour = _hour(stamp[:13])
    if hour is None:
        return _mktime(stamp, int(stamp[14:16]), int(stamp[17:19]))
    return hour + int(stamp[14:16]) * 60 + int(stamp[17:19])


@functools.lru_cache(maxsize=64)
def _hour(stamp: str) -> float | None:
    """Epoch seconds of the start of an hour (``YYYY-MM-DD HH``); None where the local
    clock changes its offset within it (daylight saving time)."""
    start, end = _mktime(stamp, 0, 0), _mktime(stamp, 59, 59)
    return start if end - start == 3599 else None


def stamps_seconds(stamps: list[str]) -> dict[str, float]:
    """``stamp_seconds`` of each of ``stamps`` (each once; their hours' from the cache)."""
    unique = list(dict.fromkeys(stamps))
    hours = list(map(_hour, [stamp[:13] for stamp in unique]))
    if None in hours:  # (an hour the clock changes its offset in)
        return dict(zip(unique, map(stamp_seconds, unique), strict=True))
    minutes = map(int, [stamp[14:16] for stamp in unique])
    seconds = map(int, [stamp[17:19] for stamp in unique])
    return dict(zip(unique, map(operator.add, hours, map(operator.add, map(
        operator.mul, minutes, itertools.repeat(60)), seconds)), strict=True))


def stamps_times(stamps: list[str]) -> list[float]:
    """``stamp_seconds`` of each of ``stamps``, in order."""
    return list(map(stamps_seconds(stamps).__getitem__, stamps))


def _mktime(stamp: str, minute: int, second: int) -> float:
    """Epoch seconds of a local time: the date and hour of ``stamp``, ``minute``, ``second``
    (strptime: slow)."""
    return time.mktime((int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]), int(stamp[11:13]),
                        minute, second, 0, 0, -1))


@contextlib.contextmanager
def zone_file() -> Iterator[None]:
    """For a while, ``TZ`` names the zone file that local time is read by where it is unset
    (the same zone): with ``TZ`` unset, the C library reads that file again at every
    ``mktime``, ten times what the conversion itself costs. Nothing changes where ``TZ`` is
    set or the file is missing. For a command's one thread (``accelbench parse``, ``import``):
    the environment is not safe to change while another thread reads it."""
    if "TZ" in os.environ or not os.path.exists(ZONE_FILE):
        yield
        return
    os.environ["TZ"] = ":" + ZONE_FILE
    try:
        yield
    finally:
        os.environ.pop("TZ", None)


def _clock(m: re.Match[str]) -> float:
    return (int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])
            + (float(f"0.{m[4]}") if m[4] else 0.0))


def stamp(line: str) -> tuple[bool, float] | None:
    """(dated, seconds) of the timestamp ``line`` holds (a time of day when not dated),
    or None."""
    if m := DATED.search(line):
        return True, _dated(m)
    if m := CLOCK.match(line):
        return False, _clock(m)
    return None


class LogClock:
    """The times of the lines of an imported log, given in order, after ``start`` (the
    run's creation); ``span``: from the first timestamp to the last."""

    def __init__(self, start: float = 0.0) -> None:
        self.start = start
        self.dated: bool | None = None  # the kind of timestamps the log is timed by
        self.first = self.last = 0.0
        self.days = 0.0  # days a time-of-day clock went round
        self.now = start

    def at(self, line: str) -> float:
        """The time of ``line``: its own timestamp's, else that of the last line that had
        one (never going back)."""
        found = stamp(line)
        if found is not None:
            self._saw(*found)
        return self.now

    def at_all(self, lines: list[str]) -> list[float]:
        """:meth:`at` of each of ``lines`` in order (at once where each holds a date and the
        log is timed by dates)."""
        found = [m for m in map(DATED.search, lines) if m is not None]
        if not found or len(found) < len(lines) or self.dated is False:
            return list(map(self.at, lines))
        seconds = list(map(_dated, found))
        if self.dated is None:
            self._saw(True, seconds[0])
        start, first = self.start, self.first
        times = list(itertools.accumulate((start + second - first for second in seconds),
                                          max, initial=self.now))[1:]
        self.last, self.now = seconds[-1] + self.days, times[-1]
        return times

    def text(self, text: str) -> None:
        """Take a piece of the log (whole lines), for its ``span``: its first timestamp
        and its last (looked for in its end first)."""
        if self.dated is None:
            m_dated, m_clock = DATED.search(text), CLOCK.search(text)
            if m_dated and (not m_clock or m_dated.start() <= m_clock.start()):
                self._saw(True, _dated(m_dated))
            elif m_clock:
                self._saw(False, _clock(m_clock))
        if self.dated is not None:
            pattern, read = (DATED, _dated) if self.dated else (CLOCK, _clock)
            found = list(pattern.finditer(text[-TAIL:])) or (
                list(pattern.finditer(text)) if len(text) > TAIL else [])
            if found:
                self._saw(self.dated, read(found[-1]))

    @property
    def span(self) -> float:
        """Seconds from the first timestamp to the last seen (0 without one)."""
        return round(self.now - self.start, 3)

    def _saw(self, dated: bool, seconds: float) -> None:
        if self.dated is None:
            self.dated, self.first, self.last = dated, seconds, seconds
        elif dated != self.dated:
            return  # another kind of timestamp: not the log's clock
        if not dated and seconds + self.days < self.last - DAY / 2:
            self.days += DAY  # past midnight
        self.last = seconds + self.days
        self.now = max(self.now, self.start + self.last - self.first)
