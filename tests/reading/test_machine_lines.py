"""Machine lines come from user code: nothing a job prints may raise out of the parser, the
Deriver or the state fold (fuzzed), and a damaged line is a log line plus one diagnosis."""

from __future__ import annotations

import json
import shlex
import sys
import typing
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelbench.engine.core.events import Diagnosis, Log, from_json, to_json
from accelbench.engine.parsers.machine import _FROM_WORKLOAD, _from_json, _short, parse
from accelbench.engine.plugin.registry import dialects
from accelbench.engine.run.runner import Deriver, StateAndLines
from accelbench.engine.rundir.exitfile import ExitRecord
from accelbench.engine.telemetry import events_from_line
from accelbench.engine.workloads.emit import PREFIX
from tests.helpers import accelbench, json_events

FUZZ = settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-2 ** 80, max_value=2 ** 80),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["fast", "abc", "", "[/]", "running", "done", "NaN", "1e999"]))
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def _right(hint) -> st.SearchStrategy:
    """Values of the declared type (the parser may still refuse some: NaN, huge ints)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    base = typing.get_origin(args[0]) or args[0]
    return {str: st.text(max_size=40) | st.sampled_from(["running", "loss", "cpu0"]),
            float: st.floats() | st.integers(min_value=-2 ** 70, max_value=2 ** 70),
            int: st.integers(min_value=-2 ** 70, max_value=2 ** 70) | st.floats(),
            dict: st.dictionaries(st.text(max_size=5), _scalars, max_size=3)}[base]


@st.composite
def machine_objects(draw) -> dict:
    """A machine line's object: a known type, each field right, wrong or missing, maybe more."""
    kind = draw(st.sampled_from([*_FROM_WORKLOAD, "log", "finished", "nope", 3]))
    cls = _FROM_WORKLOAD.get(kind)
    data = {"type": kind}
    if draw(st.integers(0, 9)):
        data["t"] = draw(_right(float) | _json)
    hints = typing.get_type_hints(cls) if cls else {}
    for f in fields(cls) if cls else ():
        if f.name in ("run_id", "ts"):
            continue
        choice = draw(st.integers(0, 5))
        if choice <= 3:
            data[f.name] = draw(_right(hints[f.name]))
        elif choice == 4:
            data[f.name] = draw(_json)
    data.update(draw(st.dictionaries(st.sampled_from(["x", "run_id", "ts", "t"]), _json,
                                     max_size=1)))
    return data


def _lines() -> st.SearchStrategy[str]:
    objects = machine_objects().map(lambda d: PREFIX + json.dumps(d))
    nested = st.tuples(st.sampled_from(["[", '{"a":', "[{\"b\":"]), st.integers(1, 60_000)).map(
        lambda t: PREFIX + t[0] * t[1])
    noise = st.text(max_size=200).map(lambda s: PREFIX + s)
    raw = st.binary(max_size=200).map(lambda b: PREFIX + b.decode("utf-8", errors="replace"))
    huge = st.integers(60_000, 200_000).map(
        lambda n: PREFIX + json.dumps({"type": "metric", "t": 1, "name": "x" * n, "value": 1}))
    return st.one_of(objects, objects, objects, nested, noise, raw, huge, st.text(max_size=80))


def _fold(lines: list[str], names: list[str] | None = None) -> Deriver:
    """Lines through a Deriver (every dialect too, or ``names``), to the end of a run; nothing
    may raise."""
    deriver = Deriver("r", 0.0, list(dialects()) if names is None else names)
    deriver.opening()
    deriver.output(lines)
    deriver.dialects_done()
    finished = deriver.ending(ExitRecord("done", 0, ended=1.0))[-1]
    json.dumps(finished.summary, allow_nan=False)  # the store can record it, as strict JSON
    deriver.state.eta()
    return deriver


@settings(FUZZ, max_examples=1000)  # (each folds a run through every dialect: CI's time)
@given(_lines())
def test_no_machine_line_raises_and_a_damaged_one_is_a_log_and_a_diagnosis(line):
    try:
        expected = parse("r", line) if line.startswith(PREFIX) else None
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400
        expected = None
    deriver = Deriver("r", 0.0)
    events = deriver.output([line])
    if expected is not None:
        assert events == [expected]
        assert from_json(to_json(expected)) == expected  # whatever is accepted round-trips
    else:
        assert isinstance(events[0], Log) and events[0].text == line
        bad = [e for e in events if isinstance(e, Diagnosis)]
        assert [d.code for d in bad] == (["bad_machine_line"] if line.startswith(PREFIX) else [])
    _fold([line])


_NUMBERS = (st.integers(min_value=-2 ** 70, max_value=2 ** 70) | st.floats()
            | st.sampled_from([0, -0.0, 1e100, -1e100, 1e101, 2 ** 63 - 1, -2 ** 63 + 1, 2 ** 63,
                               -2 ** 63, 10 ** 19, 1.5e-7, 123456789012345678901234567890]))


@st.composite
def emitted(draw) -> str:
    """A progress, throughput or metric line as ``emit.py`` writes it (fields in its order,
    compact), with any numbers, names and steps."""
    kind = draw(st.sampled_from(["progress", "throughput", "metric"]))
    fields: dict = {"type": kind, "t": draw(_NUMBERS)}
    if kind == "progress":
        fields.update(step=draw(_NUMBERS), total=draw(_NUMBERS), epoch=draw(_NUMBERS),
                      epochs=draw(_NUMBERS))
    elif kind == "throughput":
        fields["samples_per_s"] = draw(_NUMBERS)
    else:
        fields.update(name=draw(st.text(max_size=12)), value=draw(_NUMBERS))
    if kind != "progress" and draw(st.booleans()):
        fields["step"] = draw(_NUMBERS | st.none())
    return PREFIX + json.dumps(fields, separators=(",", ":"))


@FUZZ
@given(emitted())
def test_the_short_cut_for_emitted_lines_gives_the_event_the_checks_give(line):
    try:
        expected = repr(_from_json("r", line))  # repr: an int field is not a float one
    except ValueError:
        expected = None
    event = _short("r", line)
    assert event is None or repr(event) == expected
    if expected is None:  # a line the checks refuse is refused by parse too, never passed
        with pytest.raises(ValueError):
            parse("r", line)
    else:
        assert repr(parse("r", line)) == expected


def test_the_lines_a_training_loop_prints_take_the_short_cut():
    for event in ({"type": "progress", "t": 1763920000.123456, "step": 12, "total": 100,
                   "epoch": 1, "epochs": 3},
                  {"type": "throughput", "t": 1763920000.5, "samples_per_s": 1234.567, "step": 12},
                  {"type": "metric", "t": 1763920000.5, "name": "loss", "value": 1e-05},
                  {"type": "metric", "t": 1763920000.5, "name": "lr", "value": 2.5e-300,
                   "step": 2 ** 59},
                  {"type": "throughput", "t": 1763920000.5, "samples_per_s": 1.5e+99},
                  {"type": "metric", "t": 1763920000, "name": "eval/loss_1", "value": -0.25,
                   "step": 0}):
        line = PREFIX + json.dumps(event, separators=(",", ":"))
        short = _short("r", line)
        assert short is not None and repr(short) == repr(_from_json("r", line))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_lines(), max_size=30))
def test_a_run_of_lines_gives_one_diagnosis_and_counts_the_damaged_ones(lines):
    lines = [line for line in lines if line.startswith(PREFIX)]
    refused = 0
    for line in lines:
        try:
            parse("r", line)
        except ValueError:
            refused += 1
    deriver = _fold(lines)
    assert deriver.bad_lines == refused
    codes = [d.code for d in deriver.state.diagnoses if d.code == "bad_machine_line"]
    assert codes == (["bad_machine_line"] if refused else [])
    summary = deriver.state.finished.summary
    assert summary.get("bad_machine_lines", 0) == refused


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(_json.map(json.dumps), st.text(max_size=100),
                 st.fixed_dictionaries({"t": _right(float) | _json, "engines": st.lists(
                     st.fixed_dictionaries({"engine": _right(str) | _json,
                                            "percent": _right(float) | _json}), max_size=3)
                     | _json}).map(json.dumps)))
def test_telemetry_and_launcher_state_lines_never_raise(line):
    for event in events_from_line("r", line):
        assert from_json(to_json(event)) == event
    deriver = Deriver("r", 0.0)
    deriver.launcher_states([line, json.dumps({"t": line, "phase": "queued", "detail": ""})])
    deriver.telemetry([line])
    json.dumps(deriver.state.summary().to_dict(), allow_nan=False)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=300), st.sampled_from(sorted(dialects())))
def test_vendor_dialects_never_raise_on_any_text(text, dialect):
    _fold([part for line in text.split("\n") for part in (line, line + "\r" + line[::-1])],
          [dialect])


# ---- the exact reproductions, end to end through the CLI ---------------------------------

BAD = ['{"type":"throughput","t":1,"samples_per_s":"fast"}',
       '{"type":"utilization","t":1,"engine":"cpu0","percent":"abc"}',
       '{"type":"metric","t":1,"name":"loss","value":"0.5"}',
       "[" * 100_000,
       '{"type":"nope","t":1}',
       '{"type":"progress","t":1,"step":"1","total":true}',
       '{"type":"metric","t":1,"name":"loss","value":NaN}',
       '{"type":"metric","t":1,"name":"loss","value":Infinity}',
       '{"type":"progress","t":1,"step":true,"total":10}',
       '{"type":"metric","t":1,"name":"' + "x" * 100_000 + '","value":1}']
JOB = f"""
import sys
bad = {BAD!r}
for _ in range(10_000):
    print("@@accelbench " + bad[0])
for line in bad[1:]:
    print("@@accelbench " + line)
print('@@accelbench {{"type":"metric","t":2,"name":"accuracy","value":97.5}}')
"""


def _command_run(tmp_path, code: str, *extra: str):
    script = tmp_path / f"job{len(list(tmp_path.glob('job*.py')))}.py"
    script.write_text(code)
    return accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                      f"command={shlex.join([sys.executable, str(script)])}", "--set",
                      "telemetry_interval=0", *extra)


def test_a_job_printing_bad_machine_lines_ends_done_and_every_reader_works(home, tmp_path):
    out = _command_run(tmp_path, JOB, "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    events = json_events(out.stdout)
    diagnoses = [e for e in events if e["type"] == "diagnosis"]
    assert [d["code"] for d in diagnoses] == ["bad_machine_line"]
    assert "throughput.samples_per_s: expected a finite number" in diagnoses[0]["message"]
    logs = [e["text"] for e in events if e["type"] == "log"]
    assert len(logs) == 10_000 + len(BAD) - 1 and logs[-1].endswith('"value":1}')
    finished = events[-1]
    assert finished["status"] == "done"
    assert finished["summary"]["bad_machine_lines"] == 10_000 + len(BAD) - 1
    assert finished["summary"]["accuracy"] == 97.5
    bad_id = events[0]["run_id"]
    assert _command_run(tmp_path, "print('fine')").returncode == 0

    listed = accelbench("runs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    statuses = {r["id"]: r["status"] for r in json.loads(listed.stdout)}
    assert statuses[bad_id] == "done" and list(statuses.values()) == ["done", "done"]
    assert accelbench("runs").returncode == 0
    shown = accelbench("show", bad_id)
    assert shown.returncode == 0 and shown.stdout.count("bad_machine_line") == 2  # code, hint
    compared = accelbench("compare", *statuses, "--plot")
    assert compared.returncode == 0, compared.stderr


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(emitted() | _lines() | st.sampled_from([
    PREFIX + '{"type":"progress","t":1,"step":2,"total":3}',
    PREFIX + '{"type":"progress","t":1,"step":"x","total":3,"epoch":1,"epochs":1}',
    PREFIX + '{"type":"progress","t":2,"step":3,"total":3,"epoch":1e999,"epochs":1}',
    PREFIX + '{"type":"progress","t":3,"step":4,"total":5,"epoch":1,"epochs":1}']),
    max_size=12), max_size=6))
def test_a_reader_of_the_latest_state_folds_the_same_state_from_fewer_events(batches):
    """``latest``: progress lines a later one of their batch overrides make no event, and
    the state, the log lines (with their times) and the damaged lines counted are the same."""
    full, latest = Deriver("r", 0.0), Deriver("r", 0.0, reader=StateAndLines())
    events, fewer = full.opening(), latest.opening()
    for lines in batches:
        events += full.output(list(lines))
        fewer += latest.output(list(lines))
    assert latest.state == full.state and latest.ts == full.ts
    assert latest.bad_lines == full.bad_lines
    assert [e for e in fewer if isinstance(e, Log)] == [e for e in events if isinstance(e, Log)]
    assert [e for e in fewer if e.kind != "progress"] == [e for e in events
                                                          if e.kind != "progress"]


def test_a_reader_of_the_latest_state_skips_the_overridden_progress_lines():
    def line(step):
        return PREFIX + json.dumps({"type": "progress", "t": 100.0 + step, "step": step,
                                    "total": 9, "epoch": 1, "epochs": 1}, separators=(",", ":"))
    latest = Deriver("r", 0.0, reader=StateAndLines())
    first = latest.output([line(1), line(2), "plain", line(3)])
    then = latest.output([line(4), line(5), "more", line(6)])
    assert [e.step for e in first if e.kind == "progress"] == [1, 2, 3]  # none given yet
    assert [e.step for e in then if e.kind == "progress"] == [6]
    assert [e.ts for e in then if isinstance(e, Log)] == [105.0]
    assert (latest.state.step, latest.state.first_progress) == (6, (101.0, 1))
    damaged = PREFIX + '{"type":"progress","t":1,"step":"x","total":9,"epoch":1,"epochs":1}'
    then = latest.output([line(7), damaged])  # the last progress line is damaged: 7 stands
    assert [e.step for e in then if e.kind == "progress"] == [7]
    assert latest.state.step == 7 and latest.bad_lines == 1
