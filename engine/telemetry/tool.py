"""Tool samplers: a system's monitoring tool run beside the job, its output read as engines.

Each sampler starts its tool (an argument list, never a shell), reads the tool's
output in a thread of its own and keeps the latest readings; ``sample()`` returns
them for the wrapper's next telemetry line. A tool that is missing or dies costs the
job nothing: the sampler writes one line to the wrapper's log and reports nothing.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from accelbench.engine.core import safefile

Readings = list[dict[str, Any]]


class ToolSampler:
    """Runs ``tool`` and turns its output lines into readings (subclasses say how)."""

    name = ""  # unique among the systems' samplers
    tool = ""  # the executable, looked up on PATH
    repeat = False  # a one-shot tool: run it again every interval

    def __init__(self, interval: float, run_dir: Path) -> None:
        self.interval = interval
        self.run_dir = run_dir
        self._latest: Readings = []
        self._proc: subprocess.Popen | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # no tool starts once close() has begun
        self._said_unreadable = False  # a line that cannot be read has been reported

    @classmethod
    def ref(cls) -> str:
        """``module:Class``: what the wrapper starts it by (``start_samplers``)."""
        return f"{cls.__module__}:{cls.__qualname__}"

    def argv(self) -> list[str]:
        """The tool's command line."""
        return [self.tool]

    def feed(self, line: str) -> Readings | None:
        """The readings that replace the latest ones, if ``line`` completes some.

        A line out of the expected form may raise ``ValueError``, ``KeyError``,
        ``TypeError`` or ``IndexError``: it is skipped.
        """
        raise NotImplementedError

    def start(self) -> ToolSampler:
        """Start the tool and its reader thread."""
        threading.Thread(target=self._read, daemon=True, name=f"{self.name} sampler").start()
        return self

    def sample(self) -> Readings:
        """The latest readings (none before the tool's first, or once it is gone)."""
        return list(self._latest)

    def close(self, grace: float = 2.0) -> None:
        """Stop the tool: SIGTERM, then SIGKILL after ``grace`` seconds."""
        with self._lock:
            self._stop.set()
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _read(self) -> None:
        while True:
            with self._lock:
                if self._stop.is_set():
                    return
                try:
                    self._proc = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL,
                                                  stdout=subprocess.PIPE,
                                                  stderr=subprocess.DEVNULL, text=True,
                                                  errors="replace")
                except OSError as exc:
                    return self._gone(f"cannot start {self.tool}: {exc.strerror}")
            assert self._proc.stdout is not None  # started with stdout=PIPE
            for line in safefile.lines(self._proc.stdout):
                try:
                    readings = self.feed(line)
                except (ValueError, KeyError, TypeError, IndexError):
                    self._unreadable(line)  # a line out of the expected form: skipped
                    continue
                if readings is not None:
                    self._latest = readings
            code = self._proc.wait()
            if self._stop.is_set():
                return
            if code != 0 or not self.repeat:
                return self._gone(f"{self.tool} exited with code {code}")
            if self._stop.wait(self.interval):
                return

    def _unreadable(self, line: str) -> None:
        """Say (once a run) that the tool printed a line that cannot be read."""
        if not self._said_unreadable:
            self._said_unreadable = True
            print(f"accelbench telemetry: {self.tool} printed a line that cannot be read"
                  f" (skipped, and any more like it): {ascii(line.strip())[1:-1][:120]}",
                  file=sys.stderr, flush=True)

    def _gone(self, why: str) -> None:
        self._latest = []
        print(f"accelbench telemetry: {why}; no {self.name} readings", file=sys.stderr,
              flush=True)


def start_samplers(refs: list[str], interval: float, run_dir: Path) -> list[ToolSampler]:
    """The samplers ``refs`` name (``ToolSampler.ref()``, checked when the run started), started."""
    started = []
    for ref in refs:
        module, _, name = ref.partition(":")
        cls = getattr(importlib.import_module(module), name)
        started.append(cls(interval, run_dir).start())
    return started
