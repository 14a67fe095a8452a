"""Experiments: the runs of one sweep, started and watched as a whole.

``start`` records the experiment (``plan.json``: every variant and its spec) and
starts its driver, a detached process (``python -m accelbench.engine.run.experiment DIR``) that
starts the runs, at most ``max_parallel`` local runs at once (the runs of a launcher
whose scheduler queues them are all submitted), and writes what it did to
``journal.jsonl``. The driver outlives whoever started it, like every run does; the files
are the truth, and any reader (``Experiment``) can tell how far it got.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelbench.engine.config import sweep as sweeps
from accelbench.engine.config.spec import spec_from_dict, variants
from accelbench.engine.core import safefile
from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import Event
from accelbench.engine.core.job import JobSpec, RunInfo
from accelbench.engine.launchers.procs import alive
from accelbench.engine.plugin.launcher import get_launcher
from accelbench.engine.run.runner import RunHandle, Runner
from accelbench.engine.rundir.files import END_FILE, PLAN_FILE, read_json, write_json
from accelbench.engine.store.runs import ExperimentInfo, Store

JOURNAL_FILE = "journal.jsonl"
DRIVER_FILE = "driver.json"
CANCEL_FILE = "cancel.json"
POLL_S = 0.5


@dataclass
class Entry:
    """One variant of an experiment and what became of it so far."""

    index: int
    label: str
    variant: dict[str, Any]
    run_id: str | None = None
    note: str = ""  # why it has no run: "skipped: ...", "could not start: ..."


def start(runner: Runner, spec: JobSpec) -> Experiment:
    """Record the experiment of ``spec``'s sweep and start its driver; returns at once. Its
    name: the sweep's ``experiment``, else the spec's ``name`` (the one rule: the same name
    whether the CLI or the app's form starts it)."""
    expanded = variants(spec)
    info = runner.store.create_experiment(spec.sweep["experiment"] or spec.name, len(expanded))
    queues = get_launcher(spec.launcher).queues  # a scheduler queues them: submit them all
    parallel = len(expanded) if queues else spec.sweep["max_parallel"]
    write_json(info.path(PLAN_FILE), {
        "spec": spec.to_dict(), "max_parallel": parallel,
        "stop_on_failure": spec.sweep["stop_on_failure"],
        "variants": [{"label": sweeps.label(v), "variant": v, "spec": s.to_dict()}
                     for v, s in expanded]})
    with open(info.path("driver.log"), "ab") as log:
        subprocess.Popen([sys.executable, "-P", "-m", "accelbench.engine.run.experiment",
                          str(info.dir), str(runner.store.home)], cwd=info.dir,
                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True, close_fds=True)
    return Experiment(runner, info)


class Experiment:
    """An experiment started earlier (by any process): its variants, runs and status."""

    def __init__(self, runner: Runner, info: ExperimentInfo) -> None:
        self.runner = runner
        self.info = info

    @classmethod
    def open(cls, runner: Runner, ref: str) -> Experiment:
        """The experiment with id ``ref`` (or a unique part of it), or the newest so named."""
        return cls(runner, runner.store.get_experiment(ref))

    @property
    def id(self) -> str:
        """The experiment's id."""
        return self.info.id

    def plan(self) -> dict[str, Any]:
        """The recorded plan: the base spec, options and every variant's spec."""
        return _read_plan(self.info.dir)

    def entries(self) -> list[Entry]:
        """Every variant, with its run or the note on why it has none, from the journal."""
        variants = self.plan()["variants"]
        entries = [Entry(i, v["label"], v["variant"]) for i, v in enumerate(variants)]
        for record in _journal(self.info.path(JOURNAL_FILE)):
            entry = entries[record["index"]]
            entry.run_id = record.get("run", entry.run_id)
            entry.note = record.get("note", entry.note)
        return entries

    def runs(self) -> list[RunInfo]:
        """The runs started so far, in variant order."""
        by_id = {info.id: info for info in self.runner.store.experiment_runs(self.id)}
        return [by_id[e.run_id] for e in self.entries() if e.run_id in by_id]

    def status(self) -> str:
        """``running`` while its driver lives; then ``done`` (every run done), ``failed``,
        ``cancelled``, or ``lost`` (the driver vanished before the end; recorded then)."""
        end = read_json(self.info.path(END_FILE))
        if end is None:
            driver = read_json(self.info.path(DRIVER_FILE))
            young = time.time() - self.info.created < 30  # the driver is still starting
            if (driver is None and young) or (driver and _driver_alive(driver)):
                return "running"
            end = {"status": "lost", "ended": time.time()}
            write_json(self.info.path(END_FILE), end)
        if self.info.status != end["status"]:
            self.runner.store.update_experiment(self.id, end["status"], end["ended"])
            self.info.status, self.info.ended = end["status"], end["ended"]
        return end["status"]

    def cancel(self) -> None:
        """Start no more runs, and cancel the live ones."""
        write_json(self.info.path(CANCEL_FILE), {"requested": time.time()})
        for info in self.runs():
            handle = RunHandle(self.runner.store, info)
            if not handle.info.final:
                handle.cancel()

    async def batches(self, poll: float = POLL_S) -> AsyncIterator[list[Event]]:
        """The events of every run of the experiment, as its driver starts them, until it
        has ended and every run has ended (each event names its run). Its journal, plan
        and status are read in a worker thread, never on the event loop."""
        queue: asyncio.Queue[list[Event]] = asyncio.Queue()
        tasks: dict[str, asyncio.Task] = {}

        async def pump(handle: RunHandle) -> None:
            async for batch in handle.batches():
                await queue.put(batch)

        def look(known: set[str]) -> tuple[bool, list[RunHandle]]:  # files, index: off the loop
            ended = self.status() != "running"
            return ended, [self.runner.open(e.run_id) for e in self.entries()
                           if e.run_id and e.run_id not in known]

        try:
            while True:
                ended, started = await asyncio.to_thread(look, set(tasks))
                for handle in started:
                    tasks[handle.id] = asyncio.create_task(pump(handle))
                merged: list[Event] = []
                while not queue.empty():
                    merged += queue.get_nowait()
                if merged:
                    yield merged
                if ended and all(t.done() for t in tasks.values()) and queue.empty():
                    for task in tasks.values():
                        task.result()  # a reader's error is not swallowed
                    return
                await asyncio.sleep(poll)
        finally:
            for task in tasks.values():
                task.cancel()


def _journal(path: Path) -> list[dict[str, Any]]:
    try:
        lines = safefile.read_text(path, errors="replace").splitlines()
    except (OSError, ValueError):  # missing yet, or not a journal (``engine.core.safefile``)
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line being written
    return out


def _read_plan(exp_dir: Path) -> dict[str, Any]:
    plan = read_json(exp_dir / PLAN_FILE)
    if plan is None:
        raise UserError(f"experiment {exp_dir.name}: its plan ({PLAN_FILE}) is missing")
    return plan


def _driver_alive(driver: dict[str, Any]) -> bool:
    return driver["host"] != socket.gethostname() or alive(driver["pid"], driver["started"])


class _Driver:
    """The detached process that starts an experiment's runs and waits for them."""

    def __init__(self, exp_dir: Path, home: Path) -> None:
        self.dir = exp_dir
        self.runner = Runner(Store(home))
        self.plan = _read_plan(exp_dir)
        self.failed = False
        self.live: dict[str, RunHandle] = {}

    def note(self, **record: Any) -> None:
        with open(self.dir / JOURNAL_FILE, "a") as journal:
            journal.write(json.dumps({"t": time.time(), **record}) + "\n")

    def stopping(self) -> str:
        """Why no more runs may start ("" if they may)."""
        if (self.dir / CANCEL_FILE).exists():
            return "skipped: the experiment was cancelled"
        if self.failed and self.plan["stop_on_failure"]:
            return "skipped: an earlier run failed (stop_on_failure)"
        return ""

    async def one(self, index: int, slots: asyncio.Semaphore) -> None:
        variant = self.plan["variants"][index]
        async with slots:
            if why := self.stopping():
                self.note(index=index, note=why)
                return
            try:
                spec = spec_from_dict(variant["spec"])
                handle = await asyncio.to_thread(self.runner.start, spec, self.dir.name,
                                                 variant["variant"])
            except UserError as exc:
                self.failed = True
                self.note(index=index, note=f"could not start: {exc.message}")
                return
            self.note(index=index, run=handle.id)
            self.live[handle.id] = handle
            async for _ in handle.batches(poll=POLL_S):
                pass
            del self.live[handle.id]
            if handle.info.status != "done":
                self.failed = True
                if self.plan["stop_on_failure"]:  # queued runs would go on: stop them
                    for other in list(self.live.values()):
                        await asyncio.to_thread(other.cancel)

    async def run(self) -> str:
        slots = asyncio.Semaphore(self.plan["max_parallel"])
        await asyncio.gather(*(self.one(i, slots) for i in range(len(self.plan["variants"]))))
        if (self.dir / CANCEL_FILE).exists():
            return "cancelled"
        return "failed" if self.failed else "done"


def _drive(exp_dir: Path, home: Path) -> None:
    write_json(exp_dir / DRIVER_FILE, {"pid": os.getpid(), "host": socket.gethostname(),
                                       "started": time.time()})
    status = asyncio.run(_Driver(exp_dir, home).run())
    store = Store(home)
    ended = time.time()
    write_json(exp_dir / END_FILE, {"status": status, "ended": ended})
    store.update_experiment(exp_dir.name, status, ended)


if __name__ == "__main__":
    _drive(Path(sys.argv[1]), Path(sys.argv[2]))
