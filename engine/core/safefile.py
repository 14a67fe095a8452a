"""Reading a file accelbench did not just write itself: a regular file, bounded.

A run's files may be replaced by the job, or planted by another user of a shared store:
a FIFO would hang a reader, a link to ``/dev/zero`` would fill its memory, a symlink would
make it copy a private file. Every reader of such a file goes through :func:`open_regular`
(or :func:`read_bytes`, :func:`read_text` on top of it): never through a symlink (unless
``follow``), never blocking on open, a regular file only, and at most ``limit`` bytes.
A file that is none of these raises :class:`Unsafe`, a ``ValueError`` naming the file and
why: to callers it is a damaged file, like one holding bad JSON.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from accelbench.engine.core.errors import UserError

SMALL = 16 * 1024 * 1024  # bytes of a run's record (JSON, TOML) read at most
PIPE_WAIT = 30.0  # seconds a named pipe may keep a reader waiting for its first byte


class Unsafe(ValueError):
    """A file that is not one to read: not a regular file, a symlink, or too large."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path | str, follow: bool = False) -> int:
    """A descriptor open for reading on the regular file ``path``; ``FileNotFoundError``
    if there is none, :class:`Unsafe` if it is something else (a symlink, unless
    ``follow``). Nothing it opens can block: the kind is checked before and after."""
    mode = (os.stat if follow else os.lstat)(path).st_mode
    if not stat.S_ISREG(mode):
        raise Unsafe(f"{path}: {_kind(mode)}, not a regular file: not read")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            raise Unsafe(f"{path}: replaced while opened, not a regular file: not read") \
                from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # swapped between the check and the open
        os.close(fd)
        raise Unsafe(f"{path}: {_kind(mode)}, not a regular file: not read")
    return fd


def open_append(path: Path | str) -> int:
    """A descriptor open for reading and appending on the regular file ``path``, made
    (private) if missing; :class:`Unsafe` if it is anything else (a symlink included)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            raise Unsafe(f"{path}: a symlink or special file: not written") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Unsafe(f"{path}: {_kind(mode)}, not a regular file: not written")
    return fd


def read_bytes(path: Path | str, limit: int = SMALL, follow: bool = False) -> bytes:
    """The bytes of the regular file ``path``; :class:`Unsafe` if it holds more than
    ``limit`` (or is not one, see :func:`open_regular`)."""
    fd = open_regular(path, follow)
    try:
        chunks, size = [], 0
        while chunk := os.read(fd, min(limit + 1 - size, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise Unsafe(f"{path}: larger than {limit} bytes: not read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path | str, limit: int = SMALL, errors: str = "strict") -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bytes`); a decoding
    error is a ``ValueError`` unless ``errors`` says otherwise."""
    return read_bytes(path, limit).decode("utf-8", errors=errors)


def irregular(path: Path | str) -> str | None:
    """Why ``path`` is no regular file to read (through symlinks: ``a FIFO``, ``a character
    device``, ...), None where it is one; an ``OSError`` where it cannot be looked at."""
    mode = os.stat(path).st_mode
    return None if stat.S_ISREG(mode) else _kind(mode)


def opened(path: Path | str, mode: str = "rb", **kwargs: Any) -> Any:
    """The regular file ``path`` (through symlinks: a file the user named or keeps in a
    directory they import) open for reading in ``mode`` (``open``'s ``kwargs``); a
    ``UserError`` naming what it is instead (a FIFO, a device), never a read that blocks."""
    try:
        fd = open_regular(path, follow=True)
    except Unsafe as exc:
        raise UserError(str(exc)) from None
    return os.fdopen(fd, mode, **kwargs)


@contextlib.contextmanager
def named_log(path: Path | str, wait: float = PIPE_WAIT) -> Iterator[Path]:
    """A log the user named, as a regular file to read (as often as needed): a regular
    file as it is (through symlinks), a pipe or FIFO (``<(zcat x.gz)``, ``/dev/stdin``)
    copied to a temporary file first; a ``UserError`` for anything else (``/dev/zero``),
    or for a pipe with nothing written to it within ``wait`` seconds."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if stat.S_ISREG(mode):
        yield Path(path)
        return
    if not stat.S_ISFIFO(mode):
        raise UserError(f"{path}: {_kind(mode)}, not a log file or a pipe: not read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as pipe, tempfile.NamedTemporaryFile(prefix="accelbench-") as copy:
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        if not poll.poll(wait * 1000):
            raise UserError(f"{path}: a pipe nobody wrote to within {wait:g} s: not read",
                            hint="start the command that writes to it, or name a file")
        os.set_blocking(fd, True)  # a writer is there: the rest comes as it is written
        shutil.copyfileobj(pipe, copy, 1 << 20)
        copy.flush()
        yield Path(copy.name)


TOOL_OUTPUT = 16 * 1024 * 1024  # bytes of a one-shot tool's output read at most
TOOL_LINE = 1024 * 1024  # characters of one line of a streaming tool kept


class Overflow(Exception):
    """A tool printed more than it may (``run_bounded``)."""


def run_bounded(argv: list[str], timeout: float, limit: int = TOOL_OUTPUT,
                started: Callable[[Any], None] | None = None) -> tuple[int, str, str]:
    """Run ``argv`` to its end: its exit code, standard output and error (decoded, bad
    bytes replaced). ``subprocess.TimeoutExpired`` after ``timeout`` seconds and
    :class:`Overflow` past ``limit`` bytes of either, the tool killed then; ``OSError`` if
    it cannot start. ``started`` is given the process as it starts (a caller that may have
    to stop it sooner)."""
    import subprocess

    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if started is not None:
        started(proc)
    assert proc.stdout is not None and proc.stderr is not None  # started with PIPE
    out: dict[int, bytearray] = {proc.stdout.fileno(): bytearray(),
                                 proc.stderr.fileno(): bytearray()}
    deadline = time.monotonic() + timeout
    poll = select.poll()
    for fd in out:
        poll.register(fd, select.POLLIN)
    try:
        open_fds = set(out)
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(argv, timeout)
            for fd, _ in poll.poll(left * 1000):
                chunk = os.read(fd, 65536)
                if not chunk:
                    poll.unregister(fd)
                    open_fds.discard(fd)
                    continue
                out[fd] += chunk
                if len(out[fd]) > limit:
                    raise Overflow(f"{argv[0]} printed more than {limit} bytes")
        code = proc.wait(max(deadline - time.monotonic(), 0.01))
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        proc.stdout.close()
        proc.stderr.close()
    stdout, stderr = (bytes(data).decode("utf-8", errors="replace") for data in out.values())
    return code, stdout, stderr


def lines(stream: IO[str], limit: int = TOOL_LINE) -> Iterator[str]:
    """The lines of a tool's text ``stream`` without their ``\\n``, each cut at ``limit``
    characters (the rest of a longer line is read and dropped, never kept)."""
    cut = False
    while line := stream.readline(limit):
        ended = line.endswith("\n")
        if not cut:
            yield line[:-1] if ended else line
        cut = not ended
