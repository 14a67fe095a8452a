"""One reader of timestamps for every dialect (``logclock.local_time``, ``utc_time``): each
form the dialects meet in real logs reads as the standard library reads it, in any zone,
and a stamp that is no real date and time is None, never an exception in a dialect."""

from __future__ import annotations

import calendar
import re
import time
from datetime import datetime

import pytest

from accelbench.engine.launchers.slurm.log_dialect import SlurmLog
from accelbench.engine.parsers import logclock
from accelbench.engine.systems.cuda.dialect import NvidiaSmi
from tests.helpers import FIXTURES

REAL = FIXTURES / "real"


def _first(path: str, pattern: str) -> str:
    """The first stamp ``pattern`` (its group 1) finds in the real log ``path``."""
    m = re.search(pattern, (REAL / path).read_text(encoding="utf-8"), re.M)
    assert m is not None, path
    return m[1]


def _forms() -> list[tuple[str, str, float]]:
    """(where, stamp, what the standard library reads it as, in the zone now)."""
    smi_q = _first("cuda/smi_q_h100_load.txt", r"^Timestamp\s*: (.*\S)")
    csv = _first("cuda/query_gpu_h100_load.csv", r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+),")
    samba = _first("sambanova/ffn_mnist_output.log", r"^(\d{4}-\d-\d\d? \d\d:\d\d:\d\d)")
    neuron = _first("trainium/compile_fail_issue947.log", r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
    return [
        ("nvidia-smi -q", smi_q, time.mktime(time.strptime(smi_q, "%a %b %d %H:%M:%S %Y"))),
        ("--query-gpu", csv,
         datetime.strptime(csv, "%Y/%m/%d %H:%M:%S.%f").astimezone().timestamp()),
        ("SambaNova", samba, time.mktime(time.strptime(samba, "%Y-%m-%d %H:%M:%S"))),
        ("neuron compile", neuron, time.mktime(time.strptime(neuron, "%Y-%m-%d %H:%M:%S"))),
    ]


@pytest.fixture(params=["UTC", "America/New_York", "Asia/Kolkata"])
def zone(request, monkeypatch):
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    logclock.local_time.cache_clear()
    logclock._local.cache_clear()
    yield request.param
    monkeypatch.undo()
    time.tzset()
    logclock.local_time.cache_clear()
    logclock._local.cache_clear()


def test_every_dialects_form_reads_as_the_standard_library_reads_it(zone):
    for where, stamp, expected in _forms():
        assert logclock.local_time(stamp) == pytest.approx(expected, abs=1e-6), (where, zone)


def test_slurms_times_read_as_utc_whatever_the_zone(zone):
    stamp = _first("slurm/time_limit_ufs.log", r"CANCELLED AT (\S+)")
    assert logclock.utc_time(stamp) == calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))


@pytest.mark.parametrize("text", ["2021-13-23T19:29:13", "2021-11-23 25:00:00",
                                  "Tue Jul 44 08:12:53 2026", "2021-11-23",
                                  "at 2021-11-23 19:29:13", "2021-11-23 19:29:13 and more", ""])
def test_what_is_no_whole_real_timestamp_is_none(text):
    assert logclock.local_time(text) is None and logclock.utc_time(text) is None


def test_a_dialect_reading_an_impossible_time_goes_on():
    """Slurm's cancel line (real, but for its month) and nvidia-smi's -q timestamp (real,
    but for its day): the line still says what it says, at the time the run is at."""
    line = _first("slurm/time_limit_ufs.log", r"^(slurmstepd: error: \*\*\* JOB .*)$")
    damaged = line.replace("2021-11-23T", "2021-13-23T")
    [said] = SlurmLog("r").feed(damaged, 50.0)
    assert (said.code, said.ts) == ("slurm_timeout", 50.0)
    taken = _first("cuda/smi_q_h100_load.txt", r"^(Timestamp\s*: .*\S)")
    smi = NvidiaSmi("r")
    assert smi.feed(taken.replace(" 14 ", " 44 "), 7.0) == []
    assert smi._taken is None
