"""Machine lines: how a workload script reports events to accelbench.

Standalone on purpose: a workload script imports this module from its own
directory, under whatever Python runs the job (a vendor's virtualenv included),
so it needs nothing but the standard library.

Each event is one line on stdout: ``@@accelbench {"type": ..., "t": ..., ...}``.
Everything else the script prints is ordinary human output.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

PREFIX = "@@accelbench "


_RANK0 = os.environ.get("RANK", "0") == "0"  # under torchrun, only rank 0 reports


def emit(type: str, **fields: Any) -> None:
    """Print one machine line for an event of ``type`` with ``fields`` (rank 0 only)."""
    if not _RANK0:
        return
    fields = {"type": type, "t": round(time.time(), 6), **fields}
    sys.stdout.write(PREFIX + json.dumps(fields, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def say(text: str) -> None:
    """Print a line of human output (rank 0 only, as ``emit``)."""
    if _RANK0:
        print(text, flush=True)


def fail(code: str, message: str, hint: str = "") -> NoReturn:
    """Report a problem the user must fix (a diagnosis and one line on stderr), then exit 2."""
    emit("diagnosis", code=code, message=message, hint=hint)
    print(f"{Path(sys.argv[0]).stem}: error: {message}" + (f"; hint: {hint}" if hint else ""),
          file=sys.stderr, flush=True)
    sys.exit(2)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message, for one-line diagnoses."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


class StopFlag:
    """Set by SIGTERM so a training loop can finish its step and stop cleanly."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True

    def exit_if_requested(self, where: str) -> None:
        """Exit with 128+SIGTERM after saying where the job stopped."""
        if self.requested:
            print(f"Stopped by SIGTERM {where}.", flush=True)
            sys.exit(128 + signal.SIGTERM)


class Reporter:
    """Time-throttled progress/throughput/loss reporting for a training loop.

    Reports at most every ``interval`` seconds (and always on the last step), so
    the log stays small and the loop pays almost nothing for being watched.
    """

    def __init__(self, total_steps: int, epochs: int, interval: float = 0.5) -> None:
        self.total = total_steps
        self.epochs = epochs
        self.interval = interval
        self._last_t = time.perf_counter()
        self._last_samples = 0
        self.samples = 0

    def step(self, step: int, epoch: int, batch_samples: int,
             loss_fn: Callable[[], float]) -> None:
        """Count a finished step; ``loss_fn()`` is called only when reporting."""
        self.samples += batch_samples
        now = time.perf_counter()
        if now - self._last_t < self.interval and step != self.total:
            return
        rate = (self.samples - self._last_samples) / max(now - self._last_t, 1e-9)
        self._last_t, self._last_samples = now, self.samples
        emit("progress", step=step, total=self.total, epoch=epoch, epochs=self.epochs)
        emit("throughput", samples_per_s=round(rate, 3), step=step)
        emit("metric", name="loss", value=float(loss_fn()), step=step)
