"""Fuzz (hypothesis) of every reader and every view (issue 22: "keep fuzzing"): random text
and bytes (C0 and C1 controls, ESC sequences, NUL, invalid UTF-8, bidi overrides, huge
numbers, ``nan``, long lines, and real fixture lines with random bytes spliced in) through
each registered dialect's ``feed``/``feed_lines``/``feed_text``/``finish``, the number,
shape and failure readers, the tool readers (Slurm's and PBS's tables, ``nvidia-smi``), the
structured run files (tfevents, ``trainer_state.json``, ``trainer_log.jsonl``,
``metrics.csv``), ``logfile.parse_file`` (plain and gzip), and the views over what they
read: ``present``'s texts and cells, ``compare``'s CSV and Markdown, ``topview``'s rows.

Nothing may raise but a ``UserError`` (one line); every event passes ``events.build``'s
checks; nothing a view returns for the terminal holds a control character."""

from __future__ import annotations

import gzip
import json
import re
import struct
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelbench.engine.core import events as ev
from accelbench.engine.core.batches import Rows
from accelbench.engine.core.errors import UserError
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.plugin.registry import dialects, tables
from accelbench.engine.reading import metrics_csv, tfevents, trainer_files
from accelbench.engine.reading.numbers import counters, named_numbers
from accelbench.engine.reading.shapes import ShapeReader
from accelbench.engine.reading.tools import runs
from accelbench.engine.reading.tools.pbs import read_jobs
from accelbench.engine.run.state import RunState
from accelbench.engine.run.top import Sample
from accelbench.engine.telemetry.node import Absent, Reading
from tests.helpers import FIXTURES

FUZZ = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
NASTY = ["\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J\x1b[H", "\x1b[6n", "\x9b31m", "\x1bP+q\x1b\\",
         "\x00", "\x7f", "\u202e", "\u2066", "\r", "\t", "nan", "NaN", "inf", "-inf", "1e999",
         "-1e999", "1e200", "-3e150", "9" * 400, "18446744073709551616", "1e-400", "0x1p1024",
         "1_000", "١٢", "loss=", "loss: nan", "step 1/0", "it/s", "%", "|", "[", "]", "=",
         "\ufeff", "é", "\u2028", '"\\ud800"', '{"loss": 1e999}', '{"value": NaN}',
         '"throughput": 1e999', '{"step": 1e999}', '{"step": NaN, "loss": 1}']


def _real_lines() -> list[str]:
    """The lines of the real fixtures (their source line left out)."""
    found = []
    for path in sorted((FIXTURES / "real").rglob("*")):
        if not path.is_file() or path.suffix in (".gz", ".bin") or "tfevents" in path.name:
            continue
        text = path.read_bytes()[:200_000].decode("utf-8", errors="replace")
        found += [line for line in text.splitlines()[1:] if line.strip()][:200]
    return found


REAL = _real_lines()
# (decoded as every log is read: ``errors="replace"``; a JSON ``\\ud800`` escape still
# gives a lone surrogate)
RANDOM = st.binary(max_size=120).map(lambda b: b.decode("utf-8", errors="replace"))
PIECE = st.one_of(st.text(max_size=40), st.sampled_from(NASTY), RANDOM)


@st.composite
def mutated(draw) -> str:
    """A real fixture line with random pieces spliced in at random places."""
    line = draw(st.sampled_from(REAL))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(line)))
        cut = draw(st.integers(0, 3))
        line = line[:at] + draw(PIECE) + line[at + cut:]
    return line


LINE = st.one_of(st.sampled_from(REAL), mutated(), mutated(), PIECE,
                 st.builds(lambda s, n: s * n, st.sampled_from(["x", "9", "loss=1 ", "\x1b["]),
                           st.integers(1000, 20_000)))
LINES = st.lists(LINE, min_size=1, max_size=12)


def checked(found: list) -> list[ev.Event]:
    """The events of ``found`` (some maybe ``Rows``), each rebuilt by ``events.build``'s
    checks (a non-finite number, a field of the wrong type: ``ValueError``)."""
    out = []
    for item in found:
        for event in (item.events() if isinstance(item, Rows) else [item]):
            assert isinstance(event, ev.Event), event
            ev.from_dict(ev.to_dict(event))
            out.append(event)
    return out


def one_line(exc: UserError) -> None:
    assert "\n" not in exc.message, exc.message


def shown_clean(text: str) -> None:
    """``text`` holds no control a terminal acts on (line breaks aside)."""
    assert not CONTROL.search(text.replace("\n", "")), ascii(text)


@FUZZ
@given(LINES)
def test_every_dialect_reads_random_lines(lines):
    """Each dialect's ``feed``, ``feed_lines``, ``feed_text`` and ``finish`` and ``sniff``."""
    text = "\n".join(lines) + "\n"
    for cls in dialects().values():
        if not cls.always:  # (never sniffed)
            cls.sniff(text)
        one = cls("r")
        found = [e for line in lines for e in one.feed(line, 1.0)] + one.finish(2.0)
        many = cls("r")
        found += many.feed_lines(lines, 1.0) + many.finish(2.0)
        block = cls("r")
        given = block.feed_text(text, tuple(cls.needs or ()), cls.needs_nocase, 1.0)
        found += (given or []) + block.finish(2.0)
        checked(found)


@FUZZ
@given(LINES)
def test_numbers_read_random_lines(lines):
    for line in lines:
        for named in named_numbers(line):
            assert isinstance(named.key, str) and type(named.value) is float
            assert 0 <= named.start < named.end <= len(line)
        for counter in counters(line):
            assert 0 <= counter.start < counter.end <= counter.total_start < counter.total_end


@FUZZ
@given(LINES, st.lists(st.integers(0, 10_000), max_size=4))
def test_shapes_read_random_text_cut_anywhere(lines, cuts):
    text = "\n".join(lines) + "\n"
    reader = ShapeReader("r")
    found: list = []
    start = 0
    for cut in [*sorted({min(c, len(text)) for c in cuts}), len(text)]:
        found += reader.read(text[start:cut], (), 1.0)
        start = cut
    found += reader.finish(2.0)
    checked(found)


@FUZZ
@given(LINES)
def test_tool_readers_read_random_text(lines):
    text = "\n".join(lines) + "\n"
    from accelbench.engine.launchers.slurm.tables import read_table
    from accelbench.engine.systems.cuda.dialect import query_rows, topology

    for kind in tables():
        kind.dialect.sniff(text)
        for title, part in kind.runs(text) or []:
            assert isinstance(title, str)
            dialect = kind.dialect("r")
            checked(dialect.feed_lines(part.splitlines(), 1.0) + dialect.finish(2.0))
    runs(text, lambda: text, tables())
    read_table(text)
    read_jobs(text)
    query_rows(text, [])
    topology(text)


@FUZZ
@given(st.one_of(st.binary(max_size=400), LINES.map(lambda ls: "\n".join(ls).encode(
    "utf-8", errors="replace"))))
def test_run_files_read_random_bytes(data):
    """tfevents, ``trainer_state.json``, ``trainer_log.jsonl``, ``metrics.csv`` of random
    bytes: records or a one-line ``UserError``."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, read in (("events.out.tfevents.1.host", tfevents.scalars),
                           (trainer_files.STATE, trainer_files.state_records),
                           (trainer_files.LOG, trainer_files.log_records),
                           (metrics_csv.NAME, metrics_csv.csv_records)):
            path = Path(tmp) / name
            path.write_bytes(data)
            try:
                list(read(path))
            except UserError as exc:
                one_line(exc)


NUMBER = st.one_of(st.floats(), st.integers(-2 ** 70, 2 ** 70),
                   st.sampled_from([10 ** 400, -10 ** 400, 1e300, 2 ** 63, 2 ** 64, 0, 1]))
VALUE = st.one_of(NUMBER, st.none(), st.booleans(), PIECE, st.lists(NUMBER, max_size=2))
KEYS = st.one_of(st.sampled_from(["step", "epoch", "loss", "eval_loss", "learning_rate",
                                  "train_runtime", "current_steps", "total_steps", "lr",
                                  "elapsed_time", "throughput", "train_samples_per_second"]),
                 PIECE)
ENTRY = st.dictionaries(KEYS, VALUE, max_size=6)


@st.composite
def run_file(draw) -> tuple[str, bytes]:
    """A structured run file of random figures: its name and bytes."""
    entries = draw(st.lists(ENTRY, max_size=5))
    name = draw(st.sampled_from([trainer_files.STATE, trainer_files.LOG, metrics_csv.NAME,
                                 "events.out.tfevents.1.host"]))
    if name == trainer_files.STATE:
        text = json.dumps({"log_history": entries, **draw(ENTRY)})
    elif name == trainer_files.LOG:
        text = "\n".join(json.dumps(entry) for entry in entries)
    elif name == metrics_csv.NAME:
        keys = ["step", *sorted({k for e in entries for k in e if "," not in k and "\n" not in k})]
        text = "\n".join([",".join(keys)] + [",".join(str(e.get(k, "")).replace(",", ";")
                                                      .replace("\n", " ") for k in keys)
                                            for e in entries])
    else:
        return name, b"".join(draw(st.lists(event_record(), max_size=4)))
    return name, text.encode("utf-8", errors="surrogatepass")


@st.composite
def event_record(draw) -> bytes:
    """One TensorBoard record (checksums right) of an ``Event`` holding a scalar whose
    wall time, step, tag and value are random."""
    tag = draw(PIECE).encode("utf-8", errors="replace")
    value = b"\x0a" + _varint(len(tag)) + tag + b"\x15" + struct.pack("<f", draw(st.floats(
        width=32)))
    summary = b"\x0a" + _varint(len(value)) + value
    data = (b"\x09" + struct.pack("<d", draw(st.floats())) + b"\x10"
            + _varint(draw(st.integers(0, 2 ** 64 - 1))) + b"\x2a" + _varint(len(summary))
            + summary)
    head = struct.pack("<Q", len(data))
    return (head + struct.pack("<I", tfevents.masked_crc(head)) + data
            + struct.pack("<I", tfevents.masked_crc(data)))


def _varint(n: int) -> bytes:
    out = b""
    while n > 0x7F:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


@FUZZ
@given(st.lists(st.fixed_dictionaries({}, optional={"step": VALUE, "total": VALUE,
                                                     "epoch": VALUE, "elapsed": VALUE,
                                                     "status": VALUE, "metrics": ENTRY}),
                max_size=4))
def test_records_dialect_reads_random_records(records):
    from accelbench.engine.reading.records import Records

    dialect = Records("r")
    lines = [json.dumps(r) for r in records]
    checked([e for line in lines for e in dialect.feed(line, 1.0)] + dialect.finish(2.0))
    assert dialect.elapsed is None or ev.finite(dialect.elapsed)


@FUZZ
@given(run_file())
def test_structured_run_files_of_random_figures(named):
    """Parsed: its events pass ``events.build``'s checks, or a one-line ``UserError``."""
    name, data = named
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            sections = parse_file(path)
        except UserError as exc:
            one_line(exc)
            return
        for section in sections:
            checked(section.events)


@settings(FUZZ, max_examples=25)
@given(LINES, st.booleans())
def test_parse_file_reads_random_files(lines, zipped):
    data = "\n".join(lines).encode("utf-8", errors="replace")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("random.log.gz" if zipped else "random.log")
        path.write_bytes(gzip.compress(data) if zipped else data)
        try:
            sections = parse_file(path)
        except UserError as exc:
            one_line(exc)
            return
        for section in sections:
            checked(section.events)


@FUZZ
@given(LINES)
def test_present_views_of_random_events(lines):
    """A run state fed what every dialect read: every text ``present`` returns for it,
    and every cell, holds no control."""
    from accelbench.engine.view import model as present

    state = RunState("r")
    state.plain_lines(lines, 1.0)
    for cls in dialects().values():
        dialect = cls("r")
        state.feed_all(checked(dialect.feed_lines(lines, 1.0) + dialect.finish(2.0)))
    texts = [present.phase_detail(state), present.progress_text(state),
             present.last_rate(state), present.phase_clock(state, 3.0),
             *present.log_lines(state, 50)]
    summary = present.run_summary(state)
    for key, value, _ in present.figure_lines(summary):
        assert len(value) <= 24, (key, value)  # (a figure, never hundreds of digits)
        texts += [key, value]
    texts.append(present.figures_inline(summary))
    for row in present.metric_rows(state):
        texts += [str(v) for v in vars(row).values() if isinstance(v, str)]
    texts += [present.diagnosis_line(d).plain for d in state.diagnoses]
    for text in texts:
        shown_clean(text)


@settings(FUZZ, max_examples=15)
@given(st.lists(PIECE, min_size=1, max_size=3), PIECE)
def test_compare_exports_of_runs_named_with_random_text(home, tmp_path, names, knob):
    from accelbench.engine.config.spec import spec_from_dict
    from accelbench.engine.core.summary import RunSummary
    from accelbench.engine.store.compare import compare
    from accelbench.engine.store.runs import Store
    from accelbench.engine.view.model import comparison_rows

    with tempfile.TemporaryDirectory(dir=tmp_path) as tmp:
        store = Store(Path(tmp))
        infos = []
        for name in names:
            try:
                spec = spec_from_dict({"name": name, "workload": "command",
                                       "params": {"command": knob or "true"}})
            except UserError as exc:
                one_line(exc)
                continue
            info = store.create(spec)
            store.record_end(info.id, "done", RunSummary(final_loss=0.5, metrics={
                name or "x": 1.0}), time.time())
            infos.append(store.get(info.id))
        if not infos:
            return
        cmp = compare(infos)
        for text in (cmp.to_csv().replace("\r\n", "\n"), cmp.to_markdown(), cmp.to_json()):
            shown_clean(text)
        for row in comparison_rows(cmp):
            for cell in row:
                shown_clean(cell.rich().plain)


@FUZZ
@given(LINES, LINES)
def test_top_rows_of_random_nvidia_smi_output(gpus, apps):
    from accelbench.engine.systems.cuda.node import read_smi
    from accelbench.engine.view import topview

    out = {"--query-gpu": "\n".join(gpus), "--query-compute-apps": "\n".join(apps)}

    def tool(argv: list[str]) -> str:
        return next(text for flag, text in out.items() if argv[1].startswith(flag))

    try:
        reading = Reading("cuda", "nvidia-smi", 1.0, tuple(read_smi(tool)))
    except Absent as exc:
        assert "\n" not in str(exc)
        reading = Reading("cuda", "nvidia-smi", 1.0, why=str(exc))
    for width in (60, 140):
        for line in topview.lines(Sample(1.0, (reading,)), width, {"cuda": gpus[0]}):
            shown_clean(line.plain)


pytestmark = pytest.mark.filterwarnings("ignore")
