"""Node samplers: what ``accelbench top`` reads of this machine's devices, whatever runs.

A system declares its node samplers (``System.node``); each reads one source (a
library, a vendor tool) in a thread of its own and keeps its latest ``Reading``: the
devices it saw, or why it sees none ("not present (why)"). Asking for the latest never
waits, so a tool that hangs holds up only its own thread. Two kinds:

- ``PolledSampler``: ``read()`` once every interval (a library call, a one-shot tool
  run through ``run_tool`` with a time limit, stopped by ``close``);
- ``StreamSampler``: a tool that prints a report every interval until stopped, each line
  passed to ``feed()``.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from accelbench.engine.core import safefile

TOOL_TIMEOUT_S = 5.0  # a one-shot tool that has not answered by then is reported hung
WAITING = "no reading yet"  # the why of a source that has not answered once


@dataclass(frozen=True)
class Device:
    """One device as a sampler saw it; a figure the source lacks is None.

    ``id`` is short and unique within its system (``gpu0``, ``nc3``, ``ipu12``,
    ``rdu1``, ``cpu``, ``cpu7``, ``mem``); ``pids`` are the processes the source says use
    it (``runs``, the accelbench runs they belong to, are filled in by ``top``); ``core``
    marks one core of the device before it (``cpu7`` of ``cpu``), shown on request."""

    id: str
    name: str = ""
    util_percent: float | None = None
    mem_used_mib: float | None = None
    mem_total_mib: float | None = None
    power_w: float | None = None
    temp_c: float | None = None
    pids: tuple[int, ...] = ()
    runs: tuple[str, ...] = ()
    core: bool = False


@dataclass(frozen=True)
class Reading:
    """What one source gave at ``t``: its devices, or ``why`` it gives none."""

    system: str
    source: str
    t: float
    devices: tuple[Device, ...] = ()
    why: str = ""  # "" while present

    @property
    def present(self) -> bool:
        return not self.why


class Absent(Exception):
    """Raised by ``read`` and ``run_tool``: the source is not here, and why (one line)."""


class NodeSampler:
    """One source of a system's devices, sampled in a thread of its own."""

    name = ""  # the source as shown: the library or tool read
    system = ""  # set by ``top`` from the registry: the system that declares it
    host_device = ""  # the device every local job runs on (``cpu``): ``top`` puts the
    # processes of this host's live runs on it

    def __init__(self, interval: float, workdir: Path) -> None:
        self.interval = interval
        self.workdir = workdir  # a private directory for the tool's files
        self._latest: Reading | None = None
        self._stop = threading.Event()
        self.answered = threading.Event()  # set on the first reading (or absence)
        self._child: subprocess.Popen | None = None  # the tool running for it

    def start(self) -> NodeSampler:
        """Start sampling in a thread of its own."""
        threading.Thread(target=self._run, daemon=True, name=f"top {self.name}").start()
        return self

    def latest(self) -> Reading:
        """The latest reading; never waits. One older than ``TOOL_TIMEOUT_S`` and two
        intervals (a tool or library that hangs) says so instead."""
        now, reading = time.time(), self._latest
        if reading is None:
            return Reading(self.system, self.name, now, why=WAITING)
        if now - reading.t > TOOL_TIMEOUT_S + 2 * self.interval:
            return Reading(self.system, self.name, now,
                           why=f"no answer for {now - reading.t:.0f} s")
        return reading

    def close(self) -> None:
        """Stop sampling, and the tool running for it if any."""
        self._stop.set()
        proc = self._child
        if proc is not None and proc.poll() is None:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)
            if proc.poll() is None:
                proc.kill()

    def run_tool(self, argv: list[str]) -> str:
        """The standard output of a one-shot tool, or ``Absent`` saying why there is none
        (not on PATH, no answer in ``TOOL_TIMEOUT_S``, an exit code other than 0)."""
        if shutil.which(argv[0]) is None:
            raise Absent(f"{argv[0]} not on PATH")
        if self._stop.is_set():
            raise Absent("stopped")
        timeout = TOOL_TIMEOUT_S
        try:
            code, out, err = safefile.run_bounded(argv, timeout,
                                                  started=functools.partial(setattr, self,
                                                                            "_child"))
        except OSError as exc:
            raise Absent(f"cannot start {argv[0]}: {exc.strerror}") from None
        except subprocess.TimeoutExpired:
            raise Absent(f"{argv[0]} gave no answer in {timeout:g} s") from None
        except safefile.Overflow as exc:
            raise Absent(f"{exc}: cut off") from None
        if code != 0 and not self._stop.is_set():
            last = (err.strip().splitlines() or [""])[-1][:80]
            raise Absent(f"{argv[0]} exited with code {code}" + (f": {last}" if last else ""))
        return out

    def _keep(self, devices: list[Device] | None = None, why: str = "") -> None:
        self._latest = Reading(self.system, self.name, time.time(), tuple(devices or ()), why)
        self.answered.set()

    def _run(self) -> None:
        raise NotImplementedError


class PolledSampler(NodeSampler):
    """A source read by ``read()`` every interval."""

    def read(self) -> list[Device]:
        """The devices now; ``Absent`` when the source is not here."""
        raise NotImplementedError

    def _run(self) -> None:
        while True:
            try:
                self._keep(self.read())
            except Absent as exc:
                self._keep(why=str(exc))
            if self._stop.wait(self.interval):
                return


class StreamSampler(NodeSampler):
    """A tool that prints a report every interval; its lines go to ``feed()``."""

    def argv(self) -> list[str]:
        """The tool's command line."""
        raise NotImplementedError

    def feed(self, line: str) -> list[Device] | None:
        """The devices once ``line`` completes a report. A line out of the expected form
        may raise ``ValueError``, ``KeyError``, ``TypeError`` or ``IndexError``: skipped."""
        raise NotImplementedError

    def _run(self) -> None:
        """Run the tool; while it is not there (not installed yet, or it ended), say why
        every interval and start it again: an absent tool is never taken for a hung one."""
        while not self._stop.is_set():
            why = self._stream()
            if self._stop.is_set():
                return
            self._keep(why=why)
            if self._stop.wait(self.interval):
                return

    def _stream(self) -> str:
        """Start the tool and keep its reports until it ends; why it gave none (more)."""
        try:
            argv = self.argv()
        except OSError as exc:
            return f"cannot prepare {self.name}: {exc}"
        if shutil.which(argv[0]) is None:
            return f"{argv[0]} not on PATH"
        try:
            self._child = proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                                 stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL, text=True,
                                                 errors="replace")
        except OSError as exc:
            return f"cannot start {argv[0]}: {exc.strerror}"
        if self._stop.is_set():  # closed while starting
            self.close()
            return "stopped"
        assert proc.stdout is not None  # started with stdout=PIPE
        for line in safefile.lines(proc.stdout):
            try:
                devices = self.feed(line)
            except (ValueError, KeyError, TypeError, IndexError):
                continue
            if devices is not None:
                self._keep(devices)
        return f"{argv[0]} exited with code {proc.wait()}"

