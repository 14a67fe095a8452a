"""Runs: start one, or open one started earlier, and follow its events.

Events are derived from the run's files (``output.log``, ``telemetry.jsonl``,
``exit.json``) by the same deterministic code whoever reads them and whenever:
a run watched live and one attached to later give the same events.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from engine import site
from engine.accelerators import get_accelerator, require_available
from engine.errors import UserError
from engine.events import Diagnosis, Event, Finished, Log, Phase
from engine.exitfile import read_exit, write_exit
from engine.launchers import get_launcher
from engine.parsers import get_dialect, machine
from engine.spec import JobSpec
from engine.state import RunState
from engine.store import (EXIT_FILE, LAUNCH_FILE, META_FILE, OUTPUT_FILE, STATE_FILE, STDERR_FILE,
                          TELEMETRY_FILE, WRAPPER_FILE, RunInfo, Store, read_json, write_json)
from engine.tail import CHUNK, FileTail
from engine.telemetry import events_from_line
from engine.workloads import Context, Plan, get_workload
from engine.workloads.emit import PREFIX

POLL_INTERVAL = 0.1
LIVENESS_EVERY = 2.0


class Deriver:
    """Turns a run's file contents into events, keeping the run's state."""

    def __init__(self, run_id: str, created: float, dialects: list[str] = ()) -> None:
        self.run_id = run_id
        self.ts = created
        self.state = RunState(run_id)
        self.started = False
        self.dialects = [get_dialect(name)(run_id) for name in dialects]
        self.stderr: deque[str] = deque()  # stderr lines not yet met in output.log

    def _keep(self, events: list[Event]) -> list[Event]:
        for event in events:
            self.state.feed(event)
        return events

    def opening(self) -> list[Event]:
        """The events every run starts with."""
        return self._keep([Phase(self.run_id, self.ts, "queued")])

    def job_started(self, wrapper: dict[str, Any]) -> list[Event]:
        """The job's process is up: the run is running (until the job reports finer phases)."""
        self.started, self.ts = True, wrapper["started"]
        return self._keep([Phase(self.run_id, self.ts, "running", f"on {wrapper['host']}")])

    def stderr_lines(self, lines: list[str]) -> None:
        """Note the job's stderr lines, read from ``stderr.log`` before ``output.log``."""
        self.stderr.extend(lines)

    def _stream(self, line: str) -> str:
        """``stderr`` if ``line`` is the next stderr line (a few may be skipped), else ``stdout``."""
        for i, pending in enumerate(itertools.islice(self.stderr, 4)):
            if pending == line:
                for _ in range(i + 1):
                    self.stderr.popleft()
                return "stderr"
        return "stdout"

    def output(self, lines: list[str]) -> list[Event]:
        """Events of job output lines: machine lines become their events, others logs."""
        run_id, events = self.run_id, []
        for line in lines:
            if line.startswith(PREFIX):
                event = machine.parse(run_id, line)
                if event is not None:
                    self.ts = event.ts
                    events.append(event)
                    continue
            events.append(Log(run_id, self.ts, self._stream(line) if self.stderr else "stdout",
                              line))
            for dialect in self.dialects:
                events += dialect.feed(line, self.ts)
        return self._keep(events)

    def dialects_done(self) -> list[Event]:
        """What the dialects held back until the end of the output."""
        return self._keep([e for d in self.dialects for e in d.finish(self.ts)])

    def launcher_states(self, lines: list[str]) -> list[Event]:
        """Events of the launcher's state file (queue states, controller trouble)."""
        events: list[Event] = []
        for line in lines:
            try:
                entry = json.loads(line)
                if "phase" in entry:
                    events.append(Phase(self.run_id, entry["t"], entry["phase"], entry["detail"]))
                else:
                    events.append(Diagnosis(self.run_id, entry["t"], entry["diagnosis"],
                                            entry["message"], entry.get("hint", "")))
            except (ValueError, KeyError, TypeError):
                continue
        return self._keep(events)

    def telemetry(self, lines: list[str]) -> list[Event]:
        """Utilization events of telemetry lines."""
        return self._keep([e for line in lines for e in events_from_line(self.run_id, line)])

    def ending(self, record: dict[str, Any]) -> list[Event]:
        """The closing events for an exit record (``status``, ``returncode``, ...)."""
        status, ts, run_id = record["status"], record.get("ended") or self.ts, self.run_id
        events: list[Event] = []
        rc = record.get("returncode")
        if record.get("disk_full"):
            events.append(_disk_full(run_id, ts, record["disk_full"]))
        if record.get("error"):
            events.append(Diagnosis(run_id, ts, "start_failed", record["error"],
                                    "check the command and the Python interpreter of the spec"))
        elif status == "failed":
            last = next((line for line in reversed(self.state.log_tail) if line.strip()), "")
            if record.get("detail"):
                how = f"ended: {record['detail']}"
            elif "signal" in record:
                how = f"was killed by {record['signal']}"
            else:
                how = f"exited with code {rc}"
            events.append(Diagnosis(run_id, ts, "job_failed", f"the job {how}" +
                                    (f": {last.strip()}" if last else ""),
                                    "see the end of the log (accelbench show RUN --log)"))
        elif status == "lost":
            events.append(Diagnosis(run_id, ts, "lost", record["detail"],
                                    "the machine may have rebooted or the process was killed"))
        elif status == "ended":
            events.append(Diagnosis(run_id, ts, "exit_unknown",
                                    f"the job ended, {record['detail']}",
                                    "its output and telemetry until then are kept"))
        events.append(Phase(run_id, ts, status, record.get("detail", "")))
        self._keep(events)
        summary = self.state.summary()
        summary["exit_code"] = rc
        if status != "done":
            summary["log_tail"] = list(self.state.log_tail)
        return [*events, *self._keep([Finished(run_id, ts, status, summary)])]


def _disk_full(run_id: str, ts: float, filesystem: dict[str, Any]) -> Diagnosis:
    """The diagnosis of a run that met a full disk (``filesystem``: ``engine.fs.filesystem``)."""
    mount = filesystem.get("mount", "?")
    kind = f" ({filesystem['fstype']})" if filesystem.get("fstype") else ""
    return Diagnosis(run_id, ts, "disk_full",
                     f"the filesystem of the run is full: {mount}{kind}, "
                     f"{filesystem.get('free', 0) // 1024} KiB free",
                     f"free space on {mount} (`accelbench rm RUN` deletes a run) or set "
                     "ACCELBENCH_HOME to a larger filesystem, then run it again")


class RunHandle:
    """One run: its index row and directory, and the ways to read it."""

    def __init__(self, store: Store, info: RunInfo) -> None:
        self.store = store
        self.info = info
        self.launcher = get_launcher(info.launcher)

    @property
    def id(self) -> str:
        """The run's id."""
        return self.info.id

    def _sources(self) -> tuple[Deriver, list[FileTail]]:
        meta = read_json(self.info.path(META_FILE)) or {"created": self.info.created}
        launch = read_json(self.info.path(LAUNCH_FILE)) or {}
        return Deriver(self.id, meta["created"], launch.get("dialects", [])), [
            FileTail(self.info.path(name))
            for name in (STATE_FILE, STDERR_FILE, OUTPUT_FILE, TELEMETRY_FILE)]

    def _step(self, deriver: Deriver, tails: list[FileTail], check_alive: bool,
              chunk: int = CHUNK) -> tuple[list[Event], bool]:
        """Read what is new; returns the events and whether the run has ended."""
        record = read_exit(self.info.path(EXIT_FILE))
        if record is not None and record.get("verdict") and check_alive:
            self.launcher.poll(self.info)  # the launcher settles how the job really ended
            record = read_exit(self.info.path(EXIT_FILE))
        if record is not None and record.get("verdict") and time.time() - record["ended"] < 180:
            record = None  # wait for the verdict (3 minutes at most), then take the record as is
        if record is None and check_alive:
            status = self.launcher.poll(self.info)  # may record the end itself
            record = read_exit(self.info.path(EXIT_FILE))
            if record is None and status == "lost":  # record it, so every later reader agrees
                record = {"status": "lost", "returncode": None, "ended": time.time(),
                          "detail": "the job's process vanished without recording an exit status"}
                with contextlib.suppress(OSError):  # a full disk: this reader says it all the same
                    write_exit(self.info.path(EXIT_FILE), record)
            elif record is None and status != self.info.status:
                self.store.update(self.id, status)
                self.info.status = status
        state, err, out, tel = tails
        events = []
        if not deriver.started:
            wrapper = read_json(self.info.path(WRAPPER_FILE))  # written as the job starts
            if wrapper:
                events = deriver.job_started(wrapper)
        events += deriver.launcher_states(state.read_lines(chunk))
        deriver.stderr_lines(err.read_lines(chunk))
        events += deriver.output(out.read_lines(chunk)) + deriver.telemetry(tel.read_lines(chunk))
        if record is None or any(t.more() for t in tails):
            return events, False
        events += deriver.launcher_states(state.rest())
        deriver.stderr_lines(err.rest())
        events += deriver.output(out.rest()) + deriver.telemetry(tel.rest())
        events += deriver.dialects_done()
        events += deriver.ending(record)
        self._record_end(deriver.state.finished)
        return events, True

    def _record_end(self, finished: Finished) -> None:
        if self.info.status != finished.status:
            self.store.record_end(self.id, finished.status, finished.summary, finished.ts)
            self.info.status, self.info.summary = finished.status, finished.summary

    def replay(self) -> tuple[list[Event], RunState]:
        """Every event the run's files hold now (the ending too, if it ended)."""
        deriver, tails = self._sources()
        events = deriver.opening()
        while True:
            batch, ended = self._step(deriver, tails, check_alive=not self.info.final)
            events += batch
            if ended or not any(t.more() for t in tails):
                return events, deriver.state

    async def batches(self, poll: float = POLL_INTERVAL, chunk: int = CHUNK
                      ) -> AsyncIterator[list[Event]]:
        """The run's events in batches: its history first, then live until it ends.

        Each batch comes from at most ``chunk`` bytes of each file, which bounds
        the time one step holds the event loop.
        """
        deriver, tails = self._sources()
        yield deriver.opening()
        loop = asyncio.get_running_loop()
        next_check = 0.0
        while True:
            check = loop.time() >= next_check
            if check:
                next_check = loop.time() + LIVENESS_EVERY
            batch, ended = self._step(deriver, tails, check, chunk)
            if batch:
                yield batch
            if ended:
                return
            if not any(t.more() for t in tails):
                await asyncio.sleep(poll)

    async def events(self, poll: float = POLL_INTERVAL) -> AsyncIterator[Event]:
        """The run's events one by one (see :meth:`batches`)."""
        async for batch in self.batches(poll):
            for event in batch:
                yield event

    def cancel(self, grace: float = 10.0) -> None:
        """Stop the run's job (SIGTERM, then SIGKILL after ``grace`` seconds)."""
        self.launcher.cancel(self.info, grace)


class Runner:
    """The engine's front door: start runs, open old ones, list them."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store or Store()

    def start(self, spec: JobSpec, experiment: str | None = None,
              variant: dict[str, Any] | None = None) -> RunHandle:
        """Check ``spec`` can run here, create its run and start the job.

        A spec that cannot start leaves no run behind: its directory is removed.
        A spec with a sweep is started with ``engine.experiment.start`` instead.
        """
        if spec.sweep:
            raise UserError(f"{spec.name}: a preset with a [sweep] starts an experiment",
                            hint="start it with engine.experiment.start (accelbench run does)")
        require_available(spec.accelerator)
        launcher = get_launcher(spec.launcher)
        info = self.store.create(spec, experiment, variant)
        try:
            plan = self.plan(spec, info.dir)
            for name, content in plan.files.items():
                info.path(name).write_text(content)
            env = {"PYTHONUNBUFFERED": "1", "ACCELBENCH_HOME": str(self.store.home),
                   "ACCELBENCH_RUN_ID": info.id, **plan.env, **spec.env}
            sampler = get_accelerator(spec.accelerator).sampler
            write_json(info.path(LAUNCH_FILE), {
                "argv": plan.argv, "env": env, "cwd": str(info.dir),
                "telemetry_interval": spec.telemetry_interval,
                "samplers": [sampler] if sampler else [], "dialects": plan.dialects})
            launcher.start(info, spec)
        except BaseException:
            self.store.remove(info.id)
            raise
        return RunHandle(self.store, info)

    @staticmethod
    def plan(spec: JobSpec, run_dir: Path) -> Plan:
        """The job's plan (argv, environment, files, dialects) for ``spec`` in ``run_dir``."""
        accelerator = get_accelerator(spec.accelerator)
        python = spec.python or site.value(spec.accelerator, "python") or sys.executable
        ctx = Context(python, accelerator.name, accelerator.device, run_dir)
        return get_workload(spec.workload).plan(spec.params, ctx)

    def open(self, ref: str) -> RunHandle:
        """A run started earlier (by this process or any other), by id or id prefix."""
        return RunHandle(self.store, self.store.get(ref))

    def runs(self, limit: int | None = None) -> list[RunInfo]:
        """Runs newest first, with the status of unfinished ones brought up to date."""
        infos = self.store.list(limit)
        for info in infos:
            if not info.final:
                RunHandle(self.store, info).replay()
        return infos
