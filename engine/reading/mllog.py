"""MLPerf's ``:::MLLOG {...}`` lines (the ``mlperf_logging`` package), in any log.

Each line is a JSON object: ``time_ms``, ``key``, ``value``, ``metadata`` (``epoch_num``,
``samples_count``, ``step``, ``status``...), after a rank prefix or not (`` 0: ``,
``[1] ``). Read: each numeric point as a metric named by the vocabulary
(``eval_accuracy`` is the accuracy, ``train_loss`` the loss, with its ``lr``; the others,
``train_samples``, ``eval_samples``, ``global_batch_size``, ``opt_base_learning_rate``...,
under their keys), ``tracked_stats``' ``throughput`` (MLPerf's samples/s) as samples/s,
``epoch_num`` of an eval as a metric; ``run_stop`` ends the run: ``success`` is done, any
other status (``aborted``) a failure; from ``run_start`` to ``run_stop`` is the
run's time (MLPerf's time to train). A number no event holds (NaN, ``1e999``) is left out.
"""

from __future__ import annotations

import json

from accelbench.engine.core.events import Diagnosis, Event, Metric, Throughput
from accelbench.engine.parsers import Dialect
from accelbench.engine.reading.records import figure
from accelbench.engine.reading.vocabulary import named

MARK = ":::MLLOG"


class Mllog(Dialect):
    name = "mllog"
    title = "MLPerf :::MLLOG lines"
    needs = (MARK,)
    sniff_needs = (MARK,)

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._start: float | None = None

    def feed(self, line: str, ts: float) -> list[Event]:
        at = line.find(MARK)
        if at < 0:
            return []
        try:
            entry = json.loads(line[at + len(MARK):])
        except ValueError:
            return []
        if not isinstance(entry, dict):
            return []
        key, value = str(entry.get("key", "")), entry.get("value")
        meta = entry.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        when = figure(entry.get("time_ms"))
        events: list[Event] = []
        if key == "run_start" and when:
            self._start = when
        elif key == "run_stop":
            if when and self._start:
                self.elapsed = (when - self._start) / 1000
            state = str(meta.get("status", ""))
            if state == "success":
                self.status = "done"
            else:
                events.append(Diagnosis(self.run_id, ts, "mlperf_aborted",
                                        f"MLPerf run_stop status: {state or 'none given'}",
                                        "the run stopped before reaching its target"
                                        " accuracy (see the eval_accuracy figures)"))
        elif key == "tracked_stats" and isinstance(value, dict):
            rate = figure(value.get("throughput"))
            if rate is not None:
                events.append(Throughput(self.run_id, ts, rate))
        elif (v := figure(value)) is not None:
            name, scale = named(key)
            events.append(Metric(self.run_id, ts, name, v * scale))
            if (lr := figure(meta.get("lr"))) is not None:
                events.append(Metric(self.run_id, ts, "lr", lr))
            if key.startswith("eval") and (epoch := figure(meta.get("epoch_num"))) is not None:
                events.append(Metric(self.run_id, ts, "epoch_num", epoch))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return MARK + " {" in text
