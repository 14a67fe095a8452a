"""Reading a log's local times by the zone file names the zone the C library reads anyway."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from accelbench.engine.parsers import logclock

STAMPS = [(2024, 3, 31, 1, 59, 59), (2024, 3, 31, 2, 30, 0), (2024, 10, 27, 2, 30, 0),
          (2024, 6, 1, 12, 0, 0), (1999, 12, 31, 23, 59, 59)]


def _local(stamps: list[tuple[int, ...]]) -> list[float]:
    return [time.mktime((*stamp, 0, 0, -1)) for stamp in stamps]


@pytest.mark.skipif(not os.path.exists(logclock.ZONE_FILE), reason="no zone file here")
def test_the_zone_file_gives_the_times_an_unset_tz_gives(monkeypatch) -> None:
    monkeypatch.delenv("TZ", raising=False)
    time.tzset()
    unset = _local(STAMPS)
    with logclock.zone_file():
        assert os.environ["TZ"] == ":" + logclock.ZONE_FILE
        assert _local(STAMPS) == unset
    assert "TZ" not in os.environ
    assert _local(STAMPS) == unset


def test_a_tz_set_or_a_missing_file_is_left_alone(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TZ", "Europe/Paris")
    with logclock.zone_file():
        assert os.environ["TZ"] == "Europe/Paris"
    monkeypatch.delenv("TZ")
    monkeypatch.setattr(logclock, "ZONE_FILE", str(tmp_path / "none"))
    with logclock.zone_file():
        assert "TZ" not in os.environ
    time.tzset()
