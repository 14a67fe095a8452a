"""Run a terminal program in a pseudo-terminal of a given size, reading its screen output."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
import time


class PtyProgram:
    """A program on a pty; its output is drained in a thread (so it never blocks on writes)."""

    def __init__(self, argv: list[str], cols: int = 120, rows: int = 40, env=None) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self.seen: dict[bytes, float] = {}
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output += data

    def wait_for(self, text: str, timeout: float = 30.0) -> float:
        """Seconds from the start until ``text`` appeared in the output."""
        needle = text.encode()
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if needle in self.output:
                return time.perf_counter() - self.started
            time.sleep(0.002)
        raise TimeoutError(f"{text!r} did not appear in {timeout} s")

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        """Ask politely (ctrl+q), then terminate."""
        try:
            self.send(b"\x11")
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.terminate()
            self.proc.wait(5)
        os.close(self.master)
