"""Incremental reading of a growing text file, whole lines at a time."""

from __future__ import annotations

from pathlib import Path

CHUNK = 4 * 1024 * 1024


class FileTail:
    """Reads the lines appended to ``path`` since the last call.

    A line is complete at ``\\n``; carriage returns (progress bars redrawing a
    line) split it into the successive states it showed. The unfinished end of
    the file is held back until it is completed or :meth:`rest` is asked for.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._pending = b""

    def read_lines(self, limit: int = CHUNK) -> list[str]:
        """Complete new lines, reading at most ``limit`` bytes."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read(limit)
        except FileNotFoundError:
            return []
        if not data:
            return []
        self.offset += len(data)
        data = self._pending + data
        cut = data.rfind(b"\n") + 1
        self._pending = data[cut:]
        return _split(data[:cut - 1]) if cut else []

    def more(self) -> bool:
        """True when the file holds bytes not read yet."""
        try:
            return self.path.stat().st_size > self.offset
        except FileNotFoundError:
            return False

    def rest(self) -> list[str]:
        """The held-back unfinished last line, for when the file is known complete."""
        rest, self._pending = self._pending, b""
        return _split(rest) if rest else []


def _split(data: bytes) -> list[str]:
    text = data.decode("utf-8", errors="replace")
    if "\r" not in text:
        return text.split("\n")
    lines = []
    for line in text.split("\n"):
        parts = [p for p in line.split("\r") if p]
        lines.extend(parts or [""])
    return lines
