"""Events round-trip through JSON, and bad JSON or a bad value is refused with the reason."""

import pytest

from accelbench.engine.core.events import (
    EVENT_TYPES,
    Diagnosis,
    Finished,
    Log,
    Metric,
    Phase,
    Progress,
    Redraw,
    Throughput,
    Utilization,
    from_dict,
    from_json,
    to_dict,
    to_json,
)

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
    Redraw("r1", 3.1, " 40%|████      | 4/10"),
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


@pytest.mark.parametrize("data, message", [
    ({"type": "throughput", "run_id": "r", "ts": 1, "samples_per_s": "fast"},
     "throughput.samples_per_s: expected a finite number within ±1e+100, got 'fast'"),
    ({"type": "utilization", "run_id": "r", "ts": 1, "engine": "e", "percent": "abc"},
     "utilization.percent: expected a finite number within ±1e+100, got 'abc'"),
    ({"type": "metric", "run_id": "r", "ts": 1, "name": "loss", "value": "0.5"},
     "metric.value: expected a finite number within ±1e+100, got '0.5'"),
    ({"type": "metric", "run_id": "r", "ts": 1, "name": "loss", "value": float("nan")},
     "metric.value: expected a finite number within ±1e+100, got nan"),
    ({"type": "metric", "run_id": "r", "ts": float("inf"), "name": "loss", "value": 1},
     "metric.ts: expected a finite number"),
    ({"type": "progress", "run_id": "r", "ts": 1, "step": True, "total": 3},
     "progress.step: expected an integer within 64 bits, got True"),
    ({"type": "progress", "run_id": "r", "ts": 1, "step": 2 ** 70, "total": 3},
     "progress.step: expected an integer within 64 bits"),
    ({"type": "progress", "run_id": "r", "ts": 1, "step": 1.5, "total": 3},
     "progress.step: expected an integer within 64 bits, got 1.5"),
    ({"type": "progress", "run_id": "r", "ts": 1, "total": 3}, "progress: missing field 'step'"),
    ({"type": "phase", "run_id": "r", "ts": 1, "name": "[/]"},
     "phase.name: expected one of queued, starting"),
    ({"type": "finished", "run_id": "r", "ts": 1, "status": "done", "summary": []},
     "finished.summary: expected an object, got []"),
    ({"type": ["log"], "run_id": "r"}, "unknown event type ['log']"),
    ([1, 2], "an event is a JSON object, got [1, 2]"),
])
def test_every_field_is_checked_against_its_declared_type(data, message):
    with pytest.raises(ValueError) as caught:
        from_dict(data)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_integral_floats_are_integers_and_deep_nesting_is_a_value_error():
    event = from_dict({"type": "progress", "run_id": "r", "ts": 1, "step": 10.0, "total": 20})
    assert event.step == 10 and type(event.step) is int
    with pytest.raises(ValueError, match="JSON nested too deeply"):
        from_json("[" * 100_000)


def test_json_lines_are_the_lines_of_to_json() -> None:
    """The quick JSON lines (one template per event type) read as ``to_json``'s, whatever
    the values: NaN, None, words %r spells otherwise, a text field holding a number."""
    from accelbench.engine.core.events import Finished, Log, Metric, Throughput, to_json
    from accelbench.engine.logs.jsonlines import json_lines

    batches = [[Metric("r", 1.5, "loss", 2.25, 3), Throughput("r", 2.0, 10.0, None)],
               [Metric("r", 1.0, "loss", float("nan"), 1), Log("r", 1.0, "stdout", "None")],
               [Metric("r", 1.0, "é\"\\", 1e300, None), Finished("r", 3.0, "done", {"a": 1})],
               [Log("r", 1.0, "stdout", 5)]]  # type: ignore[arg-type]
    for events in batches:
        assert json_lines(events) == "".join(to_json(e) + "\n" for e in events)
    assert json_lines([]) == ""


def test_json_lines_of_rows_are_the_lines_of_their_events() -> None:
    """A ``Rows``' events are written from its columns: the text of ``to_json`` of each
    event in order, with events before, between and after, a NaN, a None step and a field
    left to its default."""
    from accelbench.engine.core.batches import Rows, expanded
    from accelbench.engine.core.events import Log, Metric, Progress, Throughput, to_json
    from accelbench.engine.logs.jsonlines import json_lines

    rows = Rows("r\"1", [1.5, 2.0, 2.5],
                [(Progress, ([1, 2, 3], [9, 9, 9])),  # (epoch, epochs: their defaults)
                 (Metric, (["loss", "loss", "lé"], [0.5, float("nan"), 1e300], [1, None, 3])),
                 (Throughput, ([10.0, 20.0, 30.0], [1, 2, 3]))])
    clean = Rows("r", [1.0], [(Metric, (["loss"], [0.25], [7]))])
    log = Log("r", 1.0, "stdout", "x")
    for batch in ([rows], [log, rows, log, clean], [clean, clean], [clean, log]):
        assert json_lines(batch) == "".join(to_json(e) + "\n" for e in expanded(batch))
