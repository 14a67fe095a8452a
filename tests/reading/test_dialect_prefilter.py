"""Each dialect's pre-filter (``Dialect.needs``) never drops a line it reads."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from accelbench.engine.core.events import Event, Metric
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import (
    Shapes,
    line_starts,
    needs_of,
    nocase_of,
    sniff_texts,
    wanted_lines,
)
from accelbench.engine.plugin import registry

FIXTURES = Path(__file__).parent.parent / "fixtures"
TEXTS = {str(p.relative_to(FIXTURES)): p.read_text(errors="replace")
         for p in sorted(FIXTURES.rglob("*"))
         if p.is_file() and p.suffix in (".txt", ".log", ".md", ".json", ".jsonl", ".csv")}
# Lines in other cases than the fixtures', for the dialects matching some text in any case.
TEXTS["(cases)"] = "\n".join(
    variant for line in ("error: invalid configuration",
                         "ERROR: requested node configuration is not available",
                         "Out Of Device Memory", "resource_exhausted: x",
                         "Failed To Allocate 2GB of HBM", "NEURONX-CC failed",
                         "Compilation FAILED", "error loading NEFF", "ſome error",
                         "Ünicode Out Of Memory")
    for variant in (line, line.upper(), line.lower(), line.swapcase()))


def _kept(cls: type[Dialect], line: str) -> bool:
    """Whether the pre-filter gives ``line`` to dialect ``cls``."""
    return cls.needs is None or bool(line_starts(line, cls.needs, nocase_of([cls])))


@pytest.mark.parametrize("name", list(registry.dialects()))
def test_a_line_the_filter_drops_gives_only_what_skipped_gives(name: str) -> None:
    """Over every fixture line: one holding none of ``needs`` gives no events of its own
    (only what ``skipped`` gives where lines went by, such as a diagnosis pending)."""
    cls = registry.dialects()[name]
    for source, text in TEXTS.items():
        dialect = cls("r")
        for line in text.split("\n"):
            before = copy.deepcopy(dialect)
            events = dialect.feed(line, 0.0)
            if not _kept(cls, line):
                assert events == before.skipped(0.0), (source, line)


def _events(dialect: Dialect, lines: list[str | None]) -> list[Event]:
    events = [e for line in lines
              for e in (dialect.skipped(0.0) if line is None else dialect.feed(line, 0.0))]
    return events + dialect.finish(0.0)


@pytest.mark.parametrize("name", list(registry.dialects()))
def test_the_filtered_lines_give_the_same_events(name: str) -> None:
    cls = registry.dialects()[name]
    for source, text in TEXTS.items():
        every = _events(cls("r"), list(text.split("\n")))
        kept = _events(cls("r"), [line for _, line in
                                  wanted_lines(text, cls.needs, nocase_of([cls]))])
        assert kept == every, source


def test_skipped_lines_end_a_trainer_metrics_block() -> None:
    text = "***** train metrics *****\n  epoch = 3.0\nother\n  loss = 1.5\n"
    hf = registry.get_dialect("hf_trainer")
    assert [e.name for e in _events(hf("r"), [ln for _, ln in wanted_lines(text, hf.needs)])
            if isinstance(e, Metric)] == ["epoch"]


class _Every(Dialect):
    """A dialect with no ``needs``: it counts the lines it is fed."""

    name = "every"

    def feed(self, line: str, ts: float) -> list[Event]:
        return [Metric(self.run_id, ts, "line", float(len(line)))]


def test_a_dialect_without_needs_sees_every_line() -> None:
    text = "a\n\nbcd\n"
    assert needs_of([_Every, registry.get_dialect("cerebras")]) is None
    lines = [line for _, line in wanted_lines(text, needs_of([_Every]))]
    assert lines == ["a", "", "bcd", ""]
    assert [e.value for e in _events(_Every("r"), lines)] == [1.0, 0.0, 3.0, 0.0]


@pytest.mark.parametrize("name", list(registry.dialects()))
def test_a_dialect_sniffs_only_the_lines_of_its_sniff_needs(name: str) -> None:
    """Over every fixture: ``sniff`` gives the same on the lines holding one of
    ``sniff_needs`` (in any case, or with case where ``sniff_cased``) as on the whole text,
    so the middle of a long log is sniffed on those lines only."""
    cls = registry.dialects()[name]
    if cls.sniff_needs is None:
        return
    needs, nocase = sniff_texts(cls)
    for source, text in TEXTS.items():
        lines = text.split("\n")
        kept = [line for line in lines if line_starts(line, needs, nocase)]
        assert cls.sniff("\n".join(kept)) == cls.sniff(text), source


def test_a_cased_sniff_need_is_matched_with_its_case() -> None:
    """Keras's sniff reads lines holding ``ETA: `` or ``/step`` with that case: mmengine's
    ``eta: `` step lines are not among them (its sniff would read every one)."""
    keras = registry.dialects()["keras"]
    mmengine = TEXTS["real/frameworks/mmengine_logger_hook_pr155.log"]
    step = next(line for line in mmengine.split("\n") if "eta: " in line)
    assert not line_starts(step, *sniff_texts(keras))
    assert line_starts(step.replace("eta: ", "ETA: "), *sniff_texts(keras))
    assert sniff_texts(registry.dialects()["cerebras"])[1]  # (others: in any case)


def test_every_literal_is_found_whatever_characters_the_text_lacks() -> None:
    """A line holding a literal is found (a literal is skipped only when the text lacks
    one of its characters)."""
    dialects = list(registry.dialects().values())
    needs = needs_of([d for d in dialects if d.needs is not None]) or ()
    for literal in needs:
        assert line_starts(f"x\n{literal}\ny", needs) == [2], literal
    nocase = nocase_of(dialects)
    for literal in nocase:
        assert line_starts(f"x\n{literal.upper()}\ny", (), nocase) == [2], literal


def test_line_shapes_hold_the_literals_the_lines_hold_whatever_their_digits() -> None:
    shapes = Shapes.of("12:00 Step 7 of 10\nloss 0.5\nStep 8 of 10\n" * 9)
    assert shapes is not None and Shapes.of("a\nb\n") is None  # (no quicker than the text)
    assert shapes.held(("Step 1 of 99", "of 10", "loss 3", "epoch", "step")) == (
        "Step 1 of 99", "of 10", "loss 3")
    assert shapes.held(("step", "loss", "epoch"), lowered=True) == ("step", "loss")


def test_a_literal_in_any_case_is_found_in_any_text_as_a_pattern_in_any_case_finds_it() -> None:
    """Lines holding a literal in any case, in texts of any characters (bars' glyphs, the
    letters that an ASCII letter matches in any case, one whose lower case is longer), are
    the lines an IGNORECASE pattern finds."""
    import random
    import re

    chance = random.Random(21)
    nocase = ("error", "sk", "oom-kill")
    pattern = re.compile("|".join(map(re.escape, nocase)), re.IGNORECASE)
    pieces = ["ERROR", "eRRor", "error", "SK", "\u017fk", "s\u212a", "OOM-KILL", "oom-k\u0131ll",
              "\u0130", "\u2588\u2589", "x", " ", "\n", "e", "rror", "-"]
    for _ in range(3000):
        text = "".join(chance.choice(pieces) for _ in range(chance.randint(0, 30)))
        expected = sorted({text.rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(text)})
        assert line_starts(text, (), nocase) == expected, repr(text)


def test_line_shapes_of_any_text_hold_what_its_lines_hold_in_any_case() -> None:
    """Shapes of texts of any characters (bars' glyphs, the letters that an ASCII letter
    matches in any case, one whose lower case is longer) hold each literal that
    ``line_starts`` finds on a line, with case or in any case."""
    import random

    assert Shapes.of("\u2588\u2589 3/10 [00:01<00:09] step\n" * 9) is not None
    chance = random.Random(22)
    needs, nocase = ("Step 1", "\u2589 s", "KILL"), ("error", "sk", "oom-kill", "step 2")
    pieces = ["ERROR", "eRRor", "SK", "\u017fk", "s\u212a", "OOM-KILL", "oom-k\u0131ll",
              "\u0130", "\u2588\u2589", "Step 12", "STEP 2", " ", "\n", "7", "e", "rror", "-"]
    made = 0
    for _ in range(3000):
        text = "".join(chance.choice(pieces) for _ in range(chance.randint(0, 30)))
        shapes = Shapes.of((text + "\n") * 30)  # (lines repeated: few shapes)
        if shapes is None:
            continue
        made += 1
        held = shapes.held(needs)
        assert all(literal in held for literal in needs if line_starts(text, (literal,))), text
        held = shapes.held(nocase, lowered=True)
        assert all(literal in held for literal in nocase
                   if line_starts(text, (), (literal,))), repr(text)
    assert made > 2000


def test_a_text_being_searched_is_lowered_once_for_all_its_searches() -> None:
    from accelbench.engine.parsers.prefilter import Searched, searching

    text = "a Step\nLoss 1\nx\n" * 5000
    with searching(Searched(text)) as searched:
        assert line_starts(text, (), ("loss",)) == list(range(7, len(text), 16))
        lowered = searched.lowered()
        assert lowered is not None and line_starts(text, ("x",), ("step",)) == sorted(
            [*range(0, len(text), 16), *range(14, len(text), 16)])
        assert searched.lowered() is lowered and searched.part(text[:-1]).lowered() == (
            lowered[:-1])
