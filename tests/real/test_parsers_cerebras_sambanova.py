"""The Cerebras and SambaNova dialects on the real seed notes (and a few lines in their formats)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from accelbench.engine.core.events import Diagnosis, Metric, Phase, Progress, Throughput
from accelbench.engine.plugin.registry import get_dialect
from accelbench.engine.systems.cerebras.dialect import Cerebras
from accelbench.engine.systems.sambanova.dialect import SambaNova
from tests.helpers import heading_sections

SEEDS = Path(__file__).resolve().parent.parent / "fixtures" / "seeds"
SEED = {n: next(SEEDS.glob(f"{n:03d}_*.txt")).read_text() for n in range(5)}
HEADING = re.compile(r"^##\s+(.*?)\s*$")  # "## System"; deeper headings stay inside


def sections(text: str) -> dict[str, str]:
    """The text under each second-level markdown heading, by heading title."""
    return heading_sections(text, HEADING)


def fenced(text: str) -> list[str]:
    """Fenced code blocks in order; an opening fence may carry the first line (as in seed 004)."""
    blocks: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            if inside:
                blocks.append([line[3:]] if line[3:].strip() else [])
        elif inside:
            blocks[-1].append(line)
    return ["\n".join(b) for b in blocks]


def parse(cls, text: str) -> list:
    dialect = cls("r")
    return [e for line in text.splitlines() for e in dialect.feed(line, 0.0)] + dialect.finish(0.0)


def values(events, name: str) -> list[float]:
    return [e.value for e in events if isinstance(e, Metric) and e.name == name]


def phases(events) -> list[tuple[str, str]]:
    return [(e.name, e.detail) for e in events if isinstance(e, Phase)]


def local(stamp: str) -> float:
    return time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))


# --- Cerebras ------------------------------------------------------------------------------

LOG_512, LOG_2048, _ = fenced(SEED[4])


def test_cerebras_batch_2048_log_figures():
    events = parse(Cerebras, LOG_2048)
    rates = [(e.step, e.samples_per_s) for e in events if isinstance(e, Throughput)]
    assert rates == [(100, 6855.28), (200, 6761.58), (300, 6725.18), (400, 6745.20),
                     (500, 6741.85), (600, 6694.44), (700, 6697.53), (800, 6717.01),
                     (900, 6722.62), (1000, 6715.34)]
    assert values(events, "loss")[-1] == 7.14844
    assert values(events, "global_rate")[-1] == 6727.92
    assert values(events, "final_loss") == [7.14844]
    assert values(events, "samples_processed") == [2048000]
    assert values(events, "train_runtime") == [304.403202469]
    assert values(events, "train_samples_per_second") == [pytest.approx(2048000 / 304.403202469)]
    processed = next(e for e in events if isinstance(e, Metric) and e.name == "train_runtime")
    assert processed.ts == pytest.approx(local("2024-03-30 13:09:10") + 0.602)
    assert not [e for e in events if isinstance(e, Diagnosis)]


def test_cerebras_batch_512_log_phases():
    events = parse(Cerebras, LOG_512)
    top = ("job is queueing. Job queue status: current job is top of queue but likely blocked by "
           "running jobs, 1 execute job(s) running using 1 system(s)")
    assert phases(events) == [
        ("loading", "saving checkpoint at step 0"),
        ("loading", "saved checkpoint model_dir_bert_large_pytorch/checkpoint_0.mdl"),
        ("compiling", "compiling the model"),
        ("compiling", "compile job wsjob-n3ncvfxvasxkabs2kgywrv"),
        ("queued", top + ", 1 compile job(s) running using 67Gi memory"),
        ("compiling", "compile job scheduled"),
        ("loading", "programming the system"),
        ("loading", "execute job wsjob-awx6fid64f4fzt6gfqmvdv"),
        ("queued", "job is queueing. Job queue status: 1 execute job(s) queued before current job"),
        ("queued", top),
        ("loading", "execute job scheduled"),
        ("loading", "sending weights"),
        ("loading", "programming the device"),
        ("running", "appliance run started"),
        ("running", "saving checkpoint at step 1000"),
        ("running", "saved checkpoint model_dir_bert_large_pytorch/checkpoint_1000.mdl"),
        ("completing", "training completed"),
    ]
    first = next(e for e in events if isinstance(e, Phase))
    assert first.ts == pytest.approx(local("2024-03-30 14:09:45") + 0.001)
    assert values(events, "batch_size") == [512]
    assert len([e for e in events if isinstance(e, Throughput)]) == 10
    assert values(events, "final_loss") == [7.125]
    assert values(events, "samples_processed") == [512000]
    assert values(events, "train_runtime") == [175.070497198]


def test_cerebras_processed_lines_in_notes():
    events = parse(Cerebras, sections(SEED[2])["Cerebras"])
    assert values(events, "samples_processed") == [1024000, 512000]
    assert values(events, "train_runtime") == [210.762417634, 175.796717907]
    assert [e.ts for e in events][-1] == pytest.approx(local("2024-04-08 16:38:14") + 0.888)
    # Seed 003's 2048 bullet says 512000 samples in 334.7 s (seed 004's log: 2048000 in 304.4 s).
    events = parse(Cerebras, sections(SEED[3])["Cerebras"])
    assert values(events, "samples_processed") == [1024000, 512000, 512000]
    assert values(events, "train_runtime") == [210.545817686, 175.796076613, 334.704423242]
    assert values(events, "final_loss") == []


def test_cerebras_other_train_forms_and_errors():
    events = parse(Cerebras, "\n".join([
        ("2023-05-17 18:15:11,548 INFO:   | Train Device=xla:0, Step=100, Loss=9.46875, "
         "Rate=4597.49 samples/sec, GlobalRate=4597.49 samples/sec"),
        ("2025-10-08 04:17:27,583 INFO:   | Train Device=CSX, Step=200, Loss=8.5, Rate=18.99 "
         "samples/sec, GlobalRate=19.25 samples/sec, LoopTimeRemaining=0:07:35, "
         "TimeRemaining>0:07:35"),
        "2025-07-11 18:04:19,787 ERROR:   Job wsjob-abc123 failed due to: 1 replica(s) failed",
        "Traceback (most recent call last):",
        '  File "run.py", line 27, in <module>',
        "cerebras.appliance.errors.ApplianceNanError: NaN loss detected.",
    ]))
    assert phases(events) == [("running", "")]
    assert [(e.step, e.samples_per_s) for e in events if isinstance(e, Throughput)] == [
        (100, 4597.49), (200, 18.99)]
    assert values(events, "final_loss") == [8.5]
    failed, nan = [e for e in events if isinstance(e, Diagnosis)]
    assert (failed.code, failed.message) == (
        "cerebras_job_failed", "Job wsjob-abc123 failed due to: 1 replica(s) failed")
    assert "wsjob-abc123" in failed.hint
    assert nan.code == "cerebras_exception" and "NaN" in nan.hint


# 002 and 003 quote Cerebras "Processed N sample(s) in T seconds." lines; 004 has whole logs
@pytest.mark.parametrize("n, expected", [(0, False), (1, False), (2, True), (3, True), (4, True)])
def test_cerebras_sniff(n, expected):
    assert Cerebras.sniff(SEED[n]) is expected


# --- SambaNova -----------------------------------------------------------------------------


def test_sambanova_ntasks_16_and_8():
    runs = sections(SEED[3])["Sambanova"].split("This yielded the following performance:")[1:]
    assert [{name: values(parse(SambaNova, run), name)[0] for name in (
        "e2e_train_time", "training_sequences_per_second", "final_loss",
        "training_samples_per_second")} for run in runs] == [
        {"e2e_train_time": 455.2987697124481, "training_sequences_per_second": 581520.2183990465,
         "final_loss": 8.254524230957031, "training_samples_per_second": 4543.12670624255},
        {"e2e_train_time": 440.9703402519226, "training_sequences_per_second": 300207.7643688482,
         "final_loss": 8.30881118774414, "training_samples_per_second": 2345.3731591316264},
    ]


def test_sambanova_notes_without_log_lines_give_nothing():
    # Seed 002 only tells of the ntasks 32 failure: prose, not a Slurm error line.
    assert parse(SambaNova, sections(SEED[2])["Sambanova"]) == []


def test_sambanova_log_lines():
    events = parse(SambaNova, "\n".join([
        "COMPILE START AT 3",
        "RUN",
        ("Iteration:  20%|##        | 500/2549 [07:29<29:04,  1.17it/s]2024-04-03 09:39:54,427 - "
         "bert_mlperf_trainer - info - epoch:0|local_step:501|global_step:501|average_loss:8.34513|"
         "step_loss:8.34513"),
        "2024-04-03 09:39:57,835 - bert_mlperf_trainer - info - final_loss 8.308523",
        ("2024-04-03 09:39:57,844 - bert_mlperf_trainer - info - {'e2e_train_time': 457.5, "
         "'training_sequences_per_second': 289619.5, 'final_loss': 8.25, "
         "'training_samples_per_second': 2262.5}"),
        "2024-04-03 09:39:57,903 - transformers_hook - info - NLP app finished",
        "2024-04-03 09:39:57,906 - transformers_hook - info - NLP app finished",
        "AssertionError: Expected throughput to be at least 560000.0, instead found 289619.5",
        "sbatch: error: Batch job submission failed: Requested node configuration is not available",
    ]))
    assert phases(events) == [("compiling", "compiling the PEF"), ("starting", "run step"),
                              ("running", ""), ("completing", "training finished")]
    assert [(e.step, e.total) for e in events if isinstance(e, Progress)] == [(500, 2549)]
    assert values(events, "loss") == [8.34513]
    assert values(events, "final_loss") == [8.25]
    assert values(events, "training_samples_per_second") == [2262.5]
    throughput, config = [e for e in events if isinstance(e, Diagnosis)]
    assert throughput.code == "sambanova_min_throughput" and "560000.0" in throughput.hint
    assert config.code == "slurm_invalid_configuration"
    assert config.message.endswith("Requested node configuration is not available")
    assert config.hint == "ntasks must not exceed ntasks_per_node × nodes"


@pytest.mark.parametrize("n, expected", [(0, False), (1, False), (2, False), (3, True), (4, False)])
def test_sambanova_sniff(n, expected):
    assert SambaNova.sniff(SEED[n]) is expected


def test_registered():
    assert get_dialect("cerebras") is Cerebras
    assert get_dialect("sambanova") is SambaNova
@pytest.mark.parametrize("zone, day", [
    ("EST5EDT,M3.2.0,M11.1.0", "2024-03-10"),  # 02:00 -> 03:00
    ("EST5EDT,M3.2.0,M11.1.0", "2024-11-03"),  # 02:00 -> 01:00
    ("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2024-04-07"),  # half an hour back at 02:00
    ("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2024-10-06")])  # half an hour on at 02:00
def test_train_line_times_are_mktime_s_across_a_clock_change(monkeypatch, zone, day):
    """A stamp's seconds, taken from its hour's where the offset holds all hour, are what
    ``mktime`` gives for the whole stamp, on the days the clock changes, by an hour or half,
    one by one (a line's) and many at once (step lines' columns)."""
    from accelbench.engine.parsers import logclock

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    logclock.stamp_seconds.cache_clear()
    logclock._hour.cache_clear()
    try:
        stamps, wholes = [], []
        for second in range(0, 4 * 3600, 13):
            stamp = f"{day} {second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            whole = time.mktime((*map(int, (day[:4], day[5:7], day[8:])), second // 3600,
                                 second // 60 % 60, second % 60, 0, 0, -1))
            assert logclock.stamp_seconds(stamp) == whole, stamp
            stamps.append(stamp)
            wholes.append(whole)
        logclock._hour.cache_clear()
        assert list(map(logclock.stamps_seconds(stamps).__getitem__, stamps)) == wholes
    finally:
        monkeypatch.undo()
        time.tzset()
        logclock.stamp_seconds.cache_clear()
        logclock._hour.cache_clear()
