"""Incremental reading of a growing text file, whole lines at a time, in bounded memory."""

from __future__ import annotations

import os
from pathlib import Path

from accelbench.engine.core import safefile

CHUNK = 4 * 1024 * 1024
MAX_LINE = 1024 * 1024  # bytes of one line kept; the rest is cut, with CUT_MARK
CUT_MARK = f" …[line cut at {MAX_LINE // 1024} KiB]"


class Redrawn(str):
    """A state of a line that a later state replaced (``\\r``): for parsers, not a log line."""

    __slots__ = ()


class FileTail:
    """Reads the lines appended to ``path`` since the last call.

    A line ends at ``\\n``. Carriage returns redraw it (progress bars): its final state
    is its last non-empty one, and only that is the line; the earlier states are given
    as :class:`Redrawn` items before it when ``redraws`` is set (for log parsers), else
    dropped. A line still unfinished is held back until it is completed or :meth:`rest`
    is asked for; while it is being redrawn, :meth:`redraw` gives its newest state.
    Memory stays bounded whatever the file holds: a call reads at most ``limit`` bytes,
    and a line keeps at most ``MAX_LINE`` bytes (cut with ``CUT_MARK``).
    """

    def __init__(self, path: Path, redraws: bool = False) -> None:
        self.path = path
        self._name = os.fspath(path)
        self._fd: int | None = None  # held open once the file exists: a read is one pread
        self.offset = 0
        self._full = False  # the last read stopped at its limit
        self.redraws = redraws
        self._pending = b""  # the unfinished state of the current line (after its last \r)
        self._latest: bytes | None = None  # the newest complete non-empty state, if redrawn
        self._redrawn = False  # the current line has met a \r
        self._shown: str | None = None  # the state :meth:`redraw` gave last
        self._unended = b""  # the unfinished state :meth:`redraw` found last
        self.refused = ""  # why the file is not read (not a regular file: engine.core.safefile)

    def read_lines(self, limit: int = CHUNK) -> list[str]:
        """Complete new lines (and their earlier states, see above), reading at most
        ``limit`` bytes. The file is kept open (see :meth:`close`): a file that has not
        grown costs one ``pread``. A file that is not a regular one (a FIFO, a symlink) is
        never read: :attr:`refused` says why."""
        if self._fd is None:
            try:
                self._fd = safefile.open_regular(self._name)
            except FileNotFoundError:
                return []
            except safefile.Unsafe as exc:
                self.refused = str(exc)
                return []
        data = os.pread(self._fd, limit, self.offset)
        self._full = len(data) == limit
        if not data:
            return []
        self.offset += len(data)
        out: list[str] = []
        head, nl, rest = data.rpartition(b"\n")
        if nl:
            first, nl, body = head.partition(b"\n")
            self._states(first, out)  # the end of the line the last call left unfinished
            self._end_line(out)
            if nl:
                parts = body.split(b"\n")
                if b"\r" in body or max(map(len, parts)) > MAX_LINE:
                    for part in parts:
                        self._states(part, out)
                        self._end_line(out)
                else:  # plain lines, the usual case: decoded at once
                    out += body.decode("utf-8", errors="replace").split("\n")
        self._states(rest, out)
        return out

    def more(self) -> bool:
        """True when the file holds bytes not read yet."""
        try:
            return not self.refused and self.path.lstat().st_size > self.offset
        except FileNotFoundError:
            return False

    @property
    def unread(self) -> bool:
        """True when the last read stopped at its limit (the file may hold more): what
        :meth:`more` says, without a system call."""
        return self._full

    def close(self) -> None:
        """Close the file (a later read opens it again)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def rest(self) -> list[str]:
        """The held-back unfinished last line, for when the file is known complete."""
        if not self._pending and not self._redrawn:
            return []
        out: list[str] = []
        self._end_line(out)
        return out

    def redraw(self) -> str | None:
        """The newest state of the unfinished line being redrawn, if it changed since the
        last call (None otherwise, or when no line is being redrawn). A state not yet ended
        by ``\\r`` may be half-written: it is taken only once a call finds it unchanged."""
        if not self._redrawn:
            return None
        stable, self._unended = self._pending == self._unended, self._pending
        state = _text(self._pending if stable and self._pending else self._latest or b"")
        if not state or state == self._shown:
            return None
        self._shown = state
        return state

    def _states(self, data: bytes, out: list[str]) -> None:
        """Take ``data``, bytes of the current line without ``\\n``."""
        head, cr, tail = data.rpartition(b"\r")
        if cr:  # every state in head is complete: a \r followed it
            self._redrawn = True
            first, _, others = head.partition(b"\r")
            first = self._pending + first[:MAX_LINE + 1 - len(self._pending)]
            if self.redraws:
                states = [first, *others.split(b"\r")]
            else:
                states = [_last_state(others) or first]
            for state in states:
                if state:
                    if self._latest is not None and self.redraws:
                        out.append(Redrawn(_text(self._latest)))
                    self._latest = state[:MAX_LINE + 1]
            self._pending = b""
        self._pending += tail[:MAX_LINE + 1 - len(self._pending)]

    def _end_line(self, out: list[str]) -> None:
        """The current line ended: give its final state."""
        if self._pending or self._latest is None:
            if self._latest is not None and self.redraws:
                out.append(Redrawn(_text(self._latest)))
            out.append(_text(self._pending))
        else:
            out.append(_text(self._latest))
        self._pending, self._latest, self._redrawn, self._shown = b"", None, False, None
        self._unended = b""


def _last_state(data: bytes) -> bytes:
    """The last non-empty ``\\r``-separated state in ``data`` (empty if none)."""
    data = data.rstrip(b"\r")
    return data[data.rfind(b"\r") + 1:]


def _text(data: bytes) -> str:
    """A line's bytes as text, cut at ``MAX_LINE``."""
    cut = len(data) > MAX_LINE
    text = data[:MAX_LINE].decode("utf-8", errors="replace")
    return text + CUT_MARK if cut else text
