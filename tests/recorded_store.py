"""A run store made from the recorded MNIST run, the same on every machine (for snapshots).

Three runs of the recording: whole (done), cut at step 300 and cancelled there, cut at
step 100 and failed there; each with its summary and digest as a real end records them.
Ids and start times come from a fixed clock and fixed suffixes, dates print in UTC.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from types import SimpleNamespace

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Event, Finished, Phase, from_dict
from accelbench.engine.core.job import RunInfo
from accelbench.engine.run import digest
from accelbench.engine.run.experiment import DRIVER_FILE, JOURNAL_FILE
from accelbench.engine.run.follow import Follower
from accelbench.engine.rundir.files import PLAN_FILE, write_json
from accelbench.engine.store import runs as store_module
from accelbench.engine.store.runs import Store
from tests.helpers import FIXTURES

RECORDED = [from_dict(json.loads(line))
            for line in (FIXTURES / "mnist_run_events.jsonl").read_text().splitlines()]
START = RECORDED[0].ts
SPEC = {"name": "cpu-mnist", "workload": "mnist_cnn", "params": {"batch_size": 64}}
SUFFIXES = ("a1b2c3", "d4e5f6", "0a1b2c", "3d4e5f", "6a7b8c", "9d0e1f")


def cut(step: int, status: str | None = None) -> list[Event]:
    """The recording up to its first progress at ``step``; ended there with ``status``."""
    at = next(i for i, e in enumerate(RECORDED) if e.kind == "progress" and e.step >= step)
    events = RECORDED[:at + 1]
    if status is not None:
        last = events[-1]
        events += [Phase(last.run_id, last.ts, status), Finished(last.run_id, last.ts, status)]
    return events


def fixed_clock(monkeypatch) -> None:
    """Runs and experiments get ids and start times from a clock that ticks a minute a
    call from the recording's start, and fixed suffixes; dates print in UTC."""
    ticks = itertools.count()
    suffixes = iter(SUFFIXES)
    monkeypatch.setattr(store_module, "time", SimpleNamespace(
        time=lambda: START + 60 * next(ticks), time_ns=time.time_ns,
        strftime=time.strftime, localtime=time.localtime))
    monkeypatch.setattr(store_module, "secrets",
                        SimpleNamespace(token_hex=lambda n: next(suffixes)))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def ended_run(store: Store, events: list[Event], name: str, experiment: str | None = None,
              variant: dict | None = None, spec: dict | None = None) -> RunInfo:
    """A run of ``events`` (which end), recorded as its end is: summary, then digest
    (``spec``: the run's spec, else the recording's)."""
    info = store.create(spec_from_dict({**(spec or SPEC), "name": name}), experiment, variant)
    state = Follower.from_events(info.id, events).state
    assert state.finished is not None
    store.record_end(info.id, state.finished.status, state.summary(), state.finished.ts)
    info = dataclasses.replace(info, status=state.finished.status, summary=state.summary())
    digest.write(info, state)
    return info


def three_runs(store: Store) -> list[RunInfo]:
    """The recording whole, cut and cancelled, cut and failed (a long name: a long id)."""
    return [ended_run(store, RECORDED, "cpu-mnist"),
            ended_run(store, cut(300, "cancelled"), "cpu-mnist-learning-rate-warmup"),
            ended_run(store, cut(100, "failed"), "cpu-mnist")]


BERT = {"name": "cpu-bert-finetune-tiny", "workload": "bert_finetune",
        "params": {"model": "tiny", "batch_size": 16, "max_seq_length": 64}}


def two_workloads(store: Store) -> list[RunInfo]:
    """Two runs of different workloads (their settings differ in many knobs): the recording
    whole as MNIST, and cut and cancelled as a BERT fine-tuning."""
    return [ended_run(store, RECORDED, "cpu-mnist"),
            ended_run(store, cut(300, "cancelled"), "cpu-bert-finetune-tiny", spec=BERT)]


def live_experiment(store: Store) -> tuple[str, dict[str, Follower]]:
    """An experiment of three seeds: the first run done, the second running (the recording
    cut at step 300), the third pending; its driver on another host (so: live). Returns
    its id and its runs' followers, from the recording."""
    exp = store.create_experiment("cpu-mnist-seeds", 3)
    variants = [{"seed": seed} for seed in (1, 2, 3)]
    done = ended_run(store, RECORDED, "cpu-mnist-seeds", exp.id, variants[0])
    running = store.create(spec_from_dict({**SPEC, "name": "cpu-mnist-seeds"}), exp.id,
                           variants[1])
    write_json(exp.path(PLAN_FILE), {
        "spec": spec_from_dict(SPEC).to_dict(), "max_parallel": 1, "stop_on_failure": False,
        "variants": [{"label": f"seed={v['seed']}", "variant": v,
                      "spec": spec_from_dict({**SPEC, "params": {**SPEC["params"], **v}}
                                             ).to_dict()} for v in variants]})
    exp.path(JOURNAL_FILE).write_text("".join(
        json.dumps({"t": START, "index": i, "run": run_id}) + "\n"
        for i, run_id in enumerate((done.id, running.id))))
    write_json(exp.path(DRIVER_FILE), {"host": "recorded-elsewhere", "pid": 1, "started": 0})
    return exp.id, {done.id: Follower.from_events(done.id, RECORDED),
                    running.id: Follower.from_events(running.id, cut(300))}
