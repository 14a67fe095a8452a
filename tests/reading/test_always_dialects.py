"""A dialect marked ``always`` is read on every log, live and imported, whatever dialects
are detected: beside a detected one (whose events and fast path stay as they were), and
alone; its diagnoses fail an imported run."""

from typing import ClassVar

import pytest

from accelbench.engine.core.events import Diagnosis, Event
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.parsers import Dialect
from accelbench.engine.plugin import registry
from accelbench.engine.run.runner import Deriver, StateOnly
from accelbench.engine.systems.cerebras.dialect import Cerebras
from tests.helpers import FIXTURES

GPTJ = FIXTURES / "real" / "cerebras" / "csx_r25_gptj.log"
MARK = "ALWAYS-TEST: the job broke"  # (a test-only line, read by the test's dialect only)


class Broke(Dialect):
    """A test dialect read on every log: a diagnosis for each line holding ``MARK``."""

    name = "always_test"
    always = True
    needs: ClassVar[tuple[str, ...] | None] = ("ALWAYS-TEST",)
    fed: ClassVar[list[str]] = []

    def feed(self, line: str, ts: float) -> list[Event]:
        Broke.fed.append(line)
        return [Diagnosis(self.run_id, ts, "always_test", line, "")]

    @classmethod
    def sniff(cls, text: str) -> bool:
        return MARK in text  # (an always dialect is never sniffed: this must not matter)


@pytest.fixture
def always(monkeypatch):
    monkeypatch.setattr(registry, "ALWAYS_DIALECTS", (Broke,))  # (alone: the mechanism)
    registry.dialects.cache_clear()
    Broke.fed.clear()
    yield Broke
    monkeypatch.undo()
    registry.dialects.cache_clear()


def without(events: list[Event]) -> list[Event]:
    return [e for e in events if not isinstance(e, Diagnosis)]


def test_the_registry_lists_the_always_dialects(always):
    assert registry.always_dialects() == [Broke]
    assert registry.get_dialect("always_test") is Broke


def test_an_always_dialect_reads_beside_a_detected_one_which_keeps_its_fast_path(
        always, tmp_path, monkeypatch):
    [before] = parse_file(GPTJ)
    log = tmp_path / GPTJ.name
    log.write_text(GPTJ.read_text() + MARK + "\n")
    calls = []
    feed_text = Cerebras.feed_text

    def spy(self, *args):
        calls.append(1)
        return feed_text(self, *args)

    monkeypatch.setattr(Cerebras, "feed_text", spy)
    [after] = parse_file(log)
    assert calls  # (the detected dialect still reads the block at once)
    assert after.dialects == before.dialects == ["cerebras"]  # (not sniffed, not listed)
    assert without(after.events) == without(before.events)
    assert Broke.fed == [MARK]  # (only the line holding what it needs)
    assert [e.code for e in after.events if isinstance(e, Diagnosis)] == ["always_test"]
    assert before.status == "done" and after.status == "failed"
    assert after.outcome.failure is not None and after.outcome.failure.message == MARK


def test_an_always_dialect_reads_a_log_no_dialect_reads(always, tmp_path):
    log = tmp_path / "plain.log"
    log.write_text("starting\n" + MARK + "\nbye\n")
    [section] = parse_file(log)
    assert section.dialects == []
    assert [(type(e), e.message) for e in section.events] == [(Diagnosis, MARK)]
    assert section.status == "failed"


def test_an_imported_log_fails_on_an_always_dialects_diagnosis(always, store, tmp_path):
    log = tmp_path / "plain.log"
    log.write_text("starting\n" + MARK + "\nbye\n")
    [info] = import_file(store, log)
    assert info.status == "failed"


def test_a_live_run_is_read_by_the_always_dialects(always):
    deriver = Deriver("r1", 100.0)
    own = ('@@accelbench {"type": "phase", "t": 5, "name": "running", '
           f'"detail": "{MARK}"}}')  # (accelbench's own line: not theirs)
    events = deriver.output(["epoch 1", MARK, own])
    assert [e.message for e in events if isinstance(e, Diagnosis)] == [MARK]
    assert Broke.fed == [MARK]
    assert deriver.state.diagnoses
    quiet = Deriver("r2", 100.0, reader=StateOnly())
    assert [type(e) for e in quiet.output(["x", MARK])] == [Diagnosis]
