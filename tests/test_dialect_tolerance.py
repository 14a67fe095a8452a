"""A malformed line never stops a dialect: numbers that are none (``Loss=abc``, ``1.2.3``,
a NUL) give no events, and the log's other lines are read as before."""

import re
from pathlib import Path

from accelbench.engine import registry
from tests.conftest import accelbench

FIXTURES = Path(__file__).parent / "fixtures"
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")
NOT_NUMBERS = ["abc\x00", "1.2.3", "-", "9" * 400]


def _lines() -> list[str]:
    lines: list[str] = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in {".log", ".txt"}:
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()[:300]
    return lines


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
