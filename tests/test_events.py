"""Events round-trip through JSON, and bad JSON is refused."""

import pytest

from engine.events import (EVENT_TYPES, Diagnosis, Finished, Log, Metric, Phase, Progress,
                           Throughput, Utilization, from_dict, from_json, to_dict, to_json)

SAMPLES = [
    Phase("r1", 1.5, "compiling", "graph 40%"),
    Progress("r1", 2.0, 10, 100, 1, 3),
    Metric("r1", 2.1, "loss", 0.25, 10),
    Metric("r1", 2.1, "accuracy", 98.58),
    Throughput("r1", 2.2, 1543.5, 10),
    Utilization("r1", 2.3, "cpu0", 97.5),
    Utilization("r1", 2.3, "job rss", 3.2, 812.5, "MiB"),
    Log("r1", 2.4, "stdout", "Accuracy on test set: 98.58% \u2713"),
    Diagnosis("r1", 2.5, "synthetic_data", "MNIST not found", "put it in ~/mnist"),
    Finished("r1", 3.0, "done", {"samples_per_s": 1543.5, "utilization": {"cpu0": 97.5}}),
]


def test_every_event_type_has_a_sample():
    assert {type(e) for e in SAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.kind)
def test_round_trip(event):
    line = to_json(event)
    assert "\n" not in line
    back = from_json(line)
    assert back == event and type(back) is type(event)
    assert to_dict(event)["type"] == event.kind
    assert to_dict(event)["run_id"] == "r1" and to_dict(event)["ts"] == event.ts


def test_unknown_type_and_field_are_refused():
    with pytest.raises(ValueError, match="unknown event type"):
        from_dict({"type": "nope", "run_id": "r", "ts": 0})
    with pytest.raises(ValueError, match="unknown field"):
        from_dict({"type": "log", "run_id": "r", "ts": 0, "stream": "o", "text": "", "x": 1})
