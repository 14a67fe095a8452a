"""Events as columns (``engine.rows.Rows``) give what the events themselves give: the same
events to the readers that want them, the same state to those that fold them."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from accelbench.engine.core.batches import Batch, Rows, count, expanded
from accelbench.engine.core.events import (
    Diagnosis,
    Event,
    Finished,
    Log,
    Metric,
    Phase,
    Progress,
    Redraw,
    Throughput,
    Utilization,
)
from accelbench.engine.logs import logfile
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.steps import _ascii, _for
from accelbench.engine.plugin import registry
from accelbench.engine.reading import ondisk
from accelbench.engine.run.state import MAX_NAMES, RunState, Series

FIXTURES = Path(__file__).parent.parent / "fixtures"
FILES = [p for p in sorted(FIXTURES.rglob("*"))  # (structured files: no lines of dialects)
         if p.is_file() and p.suffix in (".txt", ".log", ".md", ".json", ".jsonl", ".csv")
         and ondisk.kind(p) is None]
# Cerebras Train lines with and without a time remaining, among others, planned or not.
STAMP = "2024-03-30 14:{:02d}:{:02d},{:03d} INFO:   "
TRAIN = ("| Train Device=CSX, Step={}, Loss={}, Rate=6855.28 samples/sec,"
         " GlobalRate=6776.30 samples/sec")
LEFT = ", LoopTimeRemaining=0:01:02, TimeRemaining>0:00:{:02d}"


def _cerebras_log(planned: bool) -> str:
    lines = ["Cerebras Wafer Scale Cluster", STAMP.format(0, 0, 1) + "Compiling the model"]
    if planned:
        lines.append(STAMP.format(0, 0, 2) + "for a total of 400 train steps")
    for i in range(1, 400):
        head = STAMP.format(i // 60, i % 60, i % 1000)
        if i % 7 == 0:
            lines.append(head + "Saving checkpoint at step 3")
        elif i % 5 == 0 or i < 3:
            lines.append(head + TRAIN.format(i * 2, 9 - i / 100))
        elif i % 41 == 0:
            lines.append(head + TRAIN.format(i * 2, 7.25) + LEFT.format(i % 60))
        else:
            lines.append(head + "Post-layout optimizations...")
    return "\n".join(lines) + "\n"


def test_a_series_takes_many_points_as_it_takes_each() -> None:
    chance = random.Random(12)
    for _ in range(2000):
        cap, n = chance.choice([1, 2, 3, 5, 8, 16]), chance.randint(0, 300)
        each, series, i = Series(cap), Series(cap), 0
        for point in range(n):
            each.add(point)
        while i < n:
            step = chance.randint(1, 40)
            series.add_all(list(range(i, min(i + step, n))))
            i += step
        assert (list(series), series.stride, series.added) == (list(each), each.stride,
                                                               each.added), (cap, n)


def _texts() -> dict[str, str]:
    texts = {str(p.relative_to(FIXTURES)): p.read_text(errors="replace") for p in FILES}
    texts["(planned)"], texts["(unplanned)"] = _cerebras_log(True), _cerebras_log(False)
    for path in STEP_LOGS:  # (the fast path reads many step lines together)
        texts[f"{path} x20"] = (FIXTURES / path).read_text() * 20
    return texts


# Real logs of step lines that their dialects read from the text (``Dialect.step_lines``)
STEP_LOGS = ["real/cerebras/csx_r25_llama2_7b.log", "real/cerebras/csx_r24_vit.log",
             "real/trainium/nxd_llama3_70b_auto_resume_awsome.log",
             "real/trainium/nxd_llama3_70b_val_loss_notes.log",
             "real/trainium/nxd_llama3_70b_nan_notes.log",
             "real/sambanova/bert_large_min_throughput_assertion.log",
             # Keras: verbose 1 bars (ETA lines, evaluate()), Keras 3's, verbose 2's
             "real/generic/keras_magpie_183.txt", "real/generic/keras_io_fit_evaluate.txt",
             "real/generic/keras3_io_mnist_moe.txt",
             "real/generic/keras_verbose2_complex_22.txt",
             # tqdm: Lightning's bars (a checkpoint's message glued to one), set_postfix's
             "real/generic/tqdm_lightning_4225.txt", "real/generic/tqdm_lightning_2667.txt",
             "real/generic/tqdm_lightning_3866.txt"]


@pytest.mark.parametrize("name", [name for name, cls in registry.dialects().items()
                                  if not cls.always])
def test_the_lines_fed_at_once_give_the_events_fed_one_by_one(name: str) -> None:
    """``feed_lines`` (its Rows as events) gives what ``feed`` gives each line, and leaves
    the dialect as ``feed`` does (a dialect read on every log reads whole texts: its step
    lines are known by their repeating, not line by line)."""
    cls = registry.dialects()[name]
    for source, text in _texts().items():
        lines = text.split("\n")
        for cut in (len(lines), 50, 7):
            one, many = cls("r"), cls("r")
            each = [e for line in lines for e in one.feed(line, 0.0)]
            at_once = [e for i in range(0, len(lines), cut)
                       for e in expanded(many.feed_lines(lines[i:i + cut], 0.0))]
            assert at_once == each, (source, cut)
            assert vars(many) == vars(one), (source, cut)


def _train_only(head: str, every: int = 0, odd: str = "") -> str:
    """A log of Train lines only, each with ``head`` before it, every ``every``-th one
    (from the first) ``odd`` instead."""
    return "".join(
        (odd.format(i) if every and i % every == 0 else head + TRAIN.format(i, 9 - i / 100))
        + "\n" for i in range(1, 300))


TRAIN_ONLY = {  # Train lines only, the lines as the appliance prints them or not
    "(as printed)": _train_only(STAMP.format(0, 1, 2)),
    "(indented)": _train_only("  " + STAMP.format(0, 1, 2)),
    "(a warning)": _train_only(STAMP.format(0, 1, 2), 50, STAMP.replace("INFO: ", "WARNING:")
                               .format(0, 1, 2) + TRAIN.format("{}", 1)),
    "(text before)": _train_only(STAMP.format(0, 1, 2), 70, "x" + STAMP.format(0, 1, 2)
                                 + TRAIN.format("{}", 1)),
    "(twice in a line)": _train_only(STAMP.format(0, 1, 2), 90, STAMP.format(0, 1, 2)
                                     + TRAIN.format("{}", 2) + " Train Device="),
    "(time left)": _train_only(STAMP.format(0, 1, 2), 40, STAMP.format(0, 1, 2)
                               + TRAIN.format("{}", 3) + LEFT.format(5)),
    "(nan)": _train_only(STAMP.format(0, 1, 2), 30, STAMP.format(0, 1, 2)
                         + TRAIN.format("{}", "nan")),
}


@pytest.mark.parametrize("name", list(registry.dialects()))
def test_the_lines_read_from_the_text_are_the_lines_fed_one_by_one(name: str) -> None:
    """``feed_text`` (its Rows as events), where it reads a piece of text, gives what
    ``feed`` gives each line holding one of the needs, and leaves the dialect as ``feed``
    does; where it does not, the dialect is left as it was."""
    cls = registry.dialects()[name]
    if cls.needs is None:
        return
    read = 0
    for source, text in {**_texts(), **TRAIN_ONLY}.items():
        lines = text.split("\n")
        for cut in (len(lines), 50, 7):
            one, many = cls("r"), cls("r")
            for i in range(0, len(lines), cut):
                piece = "\n".join(lines[i:i + cut])
                needs = tuple(n for n in cls.needs if n in piece)
                nocase = tuple(n for n in cls.needs_nocase if n.lower() in piece.lower())
                each = [e for line in piece.split("\n")
                        if any(n in line for n in needs)
                        or any(n.lower() in line.lower() for n in nocase)
                        for e in one.feed(line, 0.0)]
                before = repr(vars(many))  # (repr: a NaN loss equals itself)
                at_once = many.feed_text(piece, needs, nocase, 0.0)
                if at_once is None:
                    kept = repr(vars(many)) == before
                    assert kept, (source, cut, i)  # (a bool: no diff of long texts)
                    many = copy.deepcopy(one)
                    continue
                read += 1
                same = (repr(expanded(at_once)), repr(vars(many))) == (repr(each),
                                                                       repr(vars(one)))
                assert same, (source, cut, i)
    if cls.step_lines is not None:
        assert read > 20, read  # (the lines were read from the text)


def test_a_log_read_from_its_text_is_the_log_read_line_by_line(monkeypatch, tmp_path) -> None:
    """Every fixture, and logs of Train lines printed otherwise, gives the same runs, events
    and outcomes whether the dialects read their lines from the text or line by line."""
    paths = [*FILES]
    for name, text in TRAIN_ONLY.items():
        paths.append(tmp_path / f"{name.strip('()')}.log")
        paths[-1].write_text(text * 40)
    for name in STEP_LOGS:  # each a long log of its step lines and others, in one block
        lines = (FIXTURES / name).read_text().split("\n")
        paths.append(tmp_path / Path(name).name)
        paths[-1].write_text("\n".join(lines[:1] + lines[1:-1] * 400 + lines[-1:]))
    paths.append(tmp_path / "sambanova_steps_then_slurm.log")  # two dialects, one a block
    paths[-1].write_text(_steps_then_end(SAMBANOVA, 4000))
    quick = {path: repr(logfile.parse_file(path)) for path in paths}  # (a NaN loss: repr)
    monkeypatch.setattr(Dialect, "feed_text", lambda *args: None)
    for path in paths:
        same = repr(logfile.parse_file(path)) == quick[path]
        assert same, path  # (a bool: no diff of long texts)


SAMBANOVA = "real/sambanova/bert_large_min_throughput_assertion.log"


def _steps_then_end(name: str, times: int) -> str:
    """The fixture's step lines ``times`` over, then its other lines (a summary, a
    traceback, ``srun: error:`` lines)."""
    lines = (FIXTURES / name).read_text().splitlines()[1:]
    steps = [line for line in lines if "|global_step:" in line]
    return "\n".join(steps * times + [line for line in lines if line not in steps]) + "\n"


def test_one_of_two_dialects_reads_a_block_holding_only_its_lines(monkeypatch, tmp_path
                                                                  ) -> None:
    """A log both SambaNova's and Slurm's dialects read, whose blocks but the last hold
    SambaNova's step lines only: SambaNova's dialect reads those blocks from the text."""
    path = tmp_path / "sambanova.log"
    path.write_text(_steps_then_end(SAMBANOVA, 4000))
    read = []
    cls = registry.get_dialect("sambanova")
    quick = cls.step_rows
    monkeypatch.setattr(cls, "step_rows", lambda self, *args: read.append(1) or quick(self, *args))
    (section,) = logfile.parse_file(path)
    assert section.dialects == ["slurm", "sambanova"] and len(read) > 1
    assert section.status == "failed"


def test_cerebras_gives_train_lines_as_rows() -> None:
    dialect = registry.get_dialect("cerebras")("r")
    batch = dialect.feed_lines(_cerebras_log(True).split("\n"), 0.0)
    assert sum(len(item) for item in batch if type(item) is Rows) > 200


class _Folds(logfile.Reader):
    """Each run's event count, outcome and state, folded from its Rows as columns or from
    the events."""

    def __init__(self, rows: bool) -> None:
        self.rows, self.runs = rows, []
        self.given = 0  # Rows given

    def begin(self, run_id: str, dialects: list[str]) -> None:
        self.state, self.count = RunState("p"), 0

    def batch(self, batch: Batch) -> None:
        if self.rows:
            self.given += sum(type(item) is Rows for item in batch)
            self.count += count(batch)
            self.state.feed_all(batch)
        else:
            super().batch(batch)

    def events(self, events: list[Event]) -> None:
        self.count += len(events)
        self.state.feed_all(events)

    def end(self, title: str, outcome: logfile.Outcome) -> None:
        self.runs.append((title, self.count, outcome, self.state.summary(),
                          self.state.diagnoses, self.state))


def test_a_log_folded_from_rows_is_the_log_folded_from_its_events(tmp_path: Path) -> None:
    """On every fixture (and long Cerebras logs): the same runs, event counts, statuses,
    diagnoses, summaries and states whether its Rows fold as columns or as events."""
    paths = [*FILES]
    for planned in (True, False):
        paths.append(tmp_path / f"cerebras-{planned}.log")
        paths[-1].write_text(_cerebras_log(planned) * 30)
    given = 0
    for path in paths:
        fast, slow = _Folds(rows=True), _Folds(rows=False)
        logfile.read_file(path, fast)
        logfile.read_file(path, slow)
        assert fast.runs == slow.runs, path
        given += fast.given
    assert given > 10  # (the columns were folded)


def test_rows_count_and_expand_in_order() -> None:
    dialect: Dialect = registry.get_dialect("cerebras")("r")
    batch = dialect.feed_lines(_cerebras_log(False).split("\n"), 0.0)
    events = expanded(batch)
    assert count(batch) == len(events) and len(events) > 200
    assert events == expanded(copy.deepcopy(batch))


def _random_events(chance: random.Random, n: int) -> list[Event]:
    names = [f"m{i}" for i in range(chance.choice([2, 5, MAX_NAMES + 3]))]
    events: list[Event] = []
    for i in range(n):
        ts = 1000.0 + i * chance.random()
        kind = chance.randrange(9)
        if kind < 3:
            events.append(Metric("r", ts, chance.choice(names), chance.random(),
                                 chance.choice([None, i])))
        elif kind == 3:
            events.append(Throughput("r", ts, chance.random() * 100, i))
        elif kind == 4:
            events.append(Progress("r", ts, i, 500, chance.random(), 3))
        elif kind == 5:
            events.append(chance.choice([Log("r", ts, "stdout", f"line {i}"),
                                         Redraw("r", ts, f"{i}%")]))
        elif kind == 6:
            events.append(chance.choice([Phase("r", ts, "running", str(i)),
                                         Finished("r", ts, "done")]))
        elif kind == 7:
            events.append(Utilization("r", ts, chance.choice(["a", "b"]), 50.0))
        else:
            events.append(Diagnosis("r", ts, "x", str(i)))
    return events


def _shape(state: RunState) -> tuple:
    return (state, {name: (s.stride, s.added) for name, s in state.metric_history.items()},
            state.throughput.stride, state.throughput.added)


def test_a_batch_folds_as_its_events_one_by_one() -> None:
    """``feed_all`` (metrics, throughput and progress as columns, Rows among them) leaves
    the state that ``feed`` of each event in order leaves, however the events are cut."""
    chance = random.Random(7)
    for _ in range(60):
        events = _random_events(chance, chance.randint(1, 3000))
        each, batched, rows = RunState("r"), RunState("r"), RunState("r")
        for event in events:
            each.feed(event)
        i = 0
        while i < len(events):
            step = chance.randint(1, 400)
            batched.feed_all(events[i:i + step])
            rows.feed_all(_as_rows(events[i:i + step]))
            i += step
        assert _shape(batched) == _shape(each)
        assert _shape(rows) == _shape(each)


def _as_rows(events: list[Event]) -> Batch:
    """``events`` with each run of metric events as a Rows of one kind."""
    out: list[Event | Rows] = []
    for event in events:
        if type(event) is Metric and out and type(out[-1]) is Rows:
            last = out[-1]
            names, values, steps = last.kinds[0][1]
            last.stamps.append(event.ts)
            names.append(event.name)
            values.append(event.value)
            steps.append(event.step)
        elif type(event) is Metric:
            out.append(Rows("r", [event.ts], [(Metric, ([event.name], [event.value],
                                                         [event.step]))]))
        else:
            out.append(event)
    return out


def test_a_runs_span_counts_the_times_its_rows_give() -> None:
    """The least and the greatest time of a batch (0: none), its Rows' among them."""
    rows = Rows("r", [0.0, 5.0, 3.0], [(Throughput, ([1.0, 2.0, 3.0], [1, 2, 3]))])
    batch: list[Event | Rows] = [Log("r", 0.0, "stdout", "x"), rows, Phase("r", 9.0, "done")]
    stamps = logfile._stamps(batch)
    assert (min(stamps), max(stamps)) == (3.0, 9.0)
    assert logfile._metric_in([rows], frozenset({"loss"})) is False
    named = Rows("r", [1.0], [(Metric, (["loss"], [2.0], [None]))])
    assert logfile._metric_in([Log("r", 0.0, "stdout", "x"), named], frozenset({"loss"}))


def test_a_step_patterns_ascii_twin_finds_what_it_finds() -> None:
    """Each dialect's step patterns find in an ASCII text what their quicker ASCII twins
    (``steps._for``) find: in every step log, and in it with a Unicode-only space
    (``\\x1c``) before each line, which a ``\\s`` matches and an ASCII ``\\s`` does not."""
    patterns = {p for cls in registry.dialects().values() if cls.step_lines is not None
                for p in (cls.step_lines.pattern, cls.step_lines.text_pattern) if p is not None}
    differ = 0
    for name in STEP_LOGS:
        text = (FIXTURES / name).read_text()
        spaced = "\x1c" + text.replace("\n", "\n\x1c")
        for pattern in patterns:
            for each in (text, spaced):
                if each.isascii():
                    assert _for(pattern, each).findall(each) == pattern.findall(each), (
                        name, pattern.pattern)
            differ += _ascii(pattern)[0].findall(spaced) != pattern.findall(spaced)
    assert differ  # (the spaced texts are such that the twin alone would differ)
