"""A malformed line never stops a dialect: numbers that are none (``Loss=abc``, ``1.2.3``,
a NUL) give no events, and the log's other lines are read as before."""

import re
from pathlib import Path

import pytest

from accelbench.engine.plugin import registry
from tests.helpers import accelbench

FIXTURES = Path(__file__).parent.parent / "fixtures"
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")
NOT_NUMBERS = ["abc\x00", "1.2.3", "-", "9" * 400]


def _lines() -> list[str]:
    """The first 300 lines of each plain fixture, one of each shape (its digits aside: lines
    of one shape take the same paths once their numbers are replaced)."""
    lines: dict[str, str] = {}
    zeros = str.maketrans("123456789", "000000000")
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in {".log", ".txt"}:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:300]:
                lines.setdefault(line.translate(zeros), line)
    return list(lines.values())


def test_every_dialect_takes_lines_whose_numbers_are_none():
    lines = _lines()
    for name, cls in registry.dialects().items():
        for line in lines:
            if cls.needs is not None and not any(n in line for n in cls.needs) and not any(
                    n.lower() in line.lower() for n in cls.needs_nocase):
                continue
            for match in list(NUMBER.finditer(line))[:4]:
                for text in NOT_NUMBERS:
                    dialect = cls("r")
                    dialect.feed(line, 0.0)
                    try:
                        dialect.feed(line[:match.start()] + text + line[match.end():], 0.0)
                        dialect.finish(0.0)
                    except Exception as exc:
                        raise AssertionError(f"{name}: {line!r} with {text!r}: {exc!r}") from exc


TRAIN = ("2024-03-30 13:00:0{s},00{s} INFO:   | Train Device=CSX, Step={step}, Loss={loss},"
         " Rate=5.5 samples/sec, GlobalRate=6.5 samples/sec\n")


def test_parse_and_import_read_past_a_malformed_train_line(tmp_path):
    log = tmp_path / "cs.log"
    log.write_text(TRAIN.format(s=1, step=10, loss="2.5") + TRAIN.format(s=2, step=20,
                   loss="abc\x00") + TRAIN.format(s=3, step=30, loss="1.25"))
    out = accelbench("parse", str(log), "--json")
    assert out.returncode == 0, out.stderr
    losses = [line for line in out.stdout.splitlines() if '"name":"loss"' in line]
    assert len(losses) == 2 and '"value":1.25' in losses[-1]
    imported = accelbench("import", str(log))
    assert imported.returncode == 0 and "Traceback" not in imported.stderr, imported.stderr
    assert "final loss 1.25" in imported.stdout


def test_a_loss_that_blew_up_is_shown_as_such(tmp_path):
    """A loss read as infinite (400 digits) or NaN is a figure of the job's own: ``parse``'s
    table shows it (``inf``, ``nan``), no traceback."""
    from accelbench.engine.view import figures as fmt

    assert [fmt.number(float(x)) for x in ("inf", "-inf", "nan")] == ["inf", "-inf", "nan"]
    assert fmt.duration(float("inf")) == "inf" and fmt.number(12345.0) == "12,345"
    for loss, shown in (("9" * 400, "inf"), ("nan", "nan")):
        log = tmp_path / "cs.log"
        log.write_text(TRAIN.format(s=1, step=10, loss="2.5")
                       + TRAIN.format(s=2, step=20, loss=loss))
        out = accelbench("parse", str(log))
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        assert f" {shown} " in out.stdout, out.stdout


def test_a_run_whose_loss_blew_up_keeps_all_its_metrics(home, tmp_path):
    """An imported run whose loss is infinite lists every metric in ``show`` (the index
    holds no such number: the others were lost with it), its loss too; sparklines and
    charts leave a NaN or infinite value out instead of failing."""
    from accelbench.engine.view import plot

    assert plot.spark([1.0, float("nan"), float("inf"), 2.0]) == "▁  █"
    assert plot.spark([float("nan")]) == " "
    assert "(no values to plot)" in plot.lines([("x", [(1.0, float("inf"))])]).plain
    assert "┤" in plot.lines([("x", [(1.0, 1.0), (2.0, float("nan")), (3.0, 2.0)])]).plain
    log = tmp_path / "cs.log"
    log.write_text(TRAIN.format(s=1, step=10, loss="2.5")
                   + TRAIN.format(s=2, step=20, loss="9" * 400))
    out = accelbench("import", str(log))
    assert out.returncode == 0, out.stderr
    shown = accelbench("show", out.stdout.split()[0])
    assert shown.returncode == 0, shown.stderr
    metrics = shown.stdout.split("metrics (latest value, history)")[1].split("log (last")[0]
    names = {line.split()[0]: line.split()[1] for line in metrics.splitlines()[1:-1]
             if line.strip()}
    assert names.get("loss") == "inf" and names.get("global_rate") == "6.5", metrics


def test_a_huge_figure_is_shown_with_an_exponent_not_hundreds_of_digits(tmp_path, monkeypatch):
    """(found by tests/reading/test_fuzz_readers.py: ``{'loss': 1e300}`` in a Trainer log made
    ``parse``'s table a column of 400 characters, one a line)"""
    from accelbench.engine.view import figures as fmt

    assert [fmt.number(v) for v in (1e300, -3e150, 10 ** 20, 123456789012345.0)] == [
        "1e+300", "-3e+150", "1e+20", "123,456,789,012,345"]
    assert fmt.fixed(1e300) == "1e+300" and fmt.fixed(97.5) == "97.50"
    log = tmp_path / "hf.log"
    log.write_text("{'loss': 1e300, 'learning_rate': 1e-05, 'epoch': 1.0}\n"
                   "{'train_runtime': 10.0, 'train_samples_per_second': 1e300,"
                   " 'train_loss': 1e300, 'epoch': 1.0}\n")
    monkeypatch.setenv("COLUMNS", "100")
    out = accelbench("parse", str(log))
    assert out.returncode == 0 and "1e+300" in out.stdout, out.stdout
    assert max(map(len, out.stdout.splitlines())) <= 100


@pytest.mark.parametrize("dialect, line", [
    ("hf_trainer", "{'loss': 1e200, 'learning_rate': 1e200, 'epoch': 1.0}"),
    ("shapes", "step 18446744073709551617: loss=1e200 lr 1e200 samples/s 1e200"),
    ("shapes", "step=99999999999999999999999 loss=1.0 tokens/s=1e200"),
])
def test_a_figure_or_step_past_what_an_event_holds_gives_no_event(dialect, line):
    """(found by the reader fuzz: ``1e200`` became a Metric, a 77-bit step a Metric's step,
    that ``events.build`` refuses; 1e200 loss is one that blew up)"""
    from accelbench.engine.core import events
    from accelbench.engine.plugin.registry import get_dialect

    found = get_dialect(dialect)("r").feed(line, 1.0)
    for event in found:
        events.from_dict(events.to_dict(event))
    assert all(e.kind != "metric" or e.name != "loss" or e.value == 1.0 for e in found)
