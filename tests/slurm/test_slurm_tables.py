"""Slurm's tables (tests/fixtures/real/slurm: sacct, squeue, sstat) through ``accelbench
parse`` and ``import``: a run per job, with its state, exit code, elapsed time, pending
reason and memory; finished jobs filed as done, failed or cancelled."""

from __future__ import annotations

import pytest
from real_logs import REAL

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import Diagnosis, Metric, Phase
from accelbench.engine.launchers.slurm.table_dialect import SlurmTable
from accelbench.engine.launchers.slurm.tables import read_table
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.run.runner import RunHandle
from tests.helpers import accelbench

SLURM = REAL / "slurm"
# The private cluster's six jobs (tests/fixtures/real/slurm/README.md)
PRIVATE_STATUS = ["done", "failed", "done", "done", "cancelled", "failed"]


def _runs(name: str) -> list[tuple[str, str, int | None, float]]:
    sections = parse_file(SLURM / name)
    assert all(s.dialects == ["slurm_table"] for s in sections)
    return [(s.title, s.status, s.exit_code, s.outcome.span) for s in sections]


def _codes(name: str) -> list[list[str]]:
    return [[e.code for e in s.events if isinstance(e, Diagnosis)]
            for s in parse_file(SLURM / name)]


def _metric(name: str, metric: str) -> list[float | None]:
    return [next((e.value for e in s.events if isinstance(e, Metric) and e.name == metric),
                 None) for s in parse_file(SLURM / name)]


def test_sacct_parsable2_with_a_header():
    assert _runs("sacct_parsable2_private.txt") == [
        ("job 1 ok: COMPLETED, 00:00:02", "done", 0, 2.0),
        ("job 2 fail3: FAILED, 00:00:00", "failed", 3, 0.0),
        ("job 3 hold: COMPLETED, 00:00:25", "done", 0, 25.0),
        ("job 4 waits: COMPLETED, 00:00:01", "done", 0, 1.0),
        ("job 5 cancelme: CANCELLED, 00:00:00", "cancelled", 0, 0.0),
        ("job 6 stepfail: FAILED, 00:00:01", "failed", 7, 1.0)]
    assert _codes("sacct_parsable2_private.txt") == [
        [], ["slurm_job_failed"], [], [], ["slurm_cancelled"], ["slurm_job_failed"]]
    sections = parse_file(SLURM / "sacct_parsable2_private.txt")
    failed = next(e for e in sections[1].events if isinstance(e, Diagnosis))
    assert failed.message == "Slurm job 2 (fail3) failed with exit code 3"
    assert "slurm-JOBID.out" in failed.hint
    cancelled = next(e for e in sections[4].events if isinstance(e, Diagnosis))
    assert cancelled.message == "Slurm job 5 (cancelme) was cancelled by user 0"
    assert [e.detail for e in sections[0].events if isinstance(e, Phase)] == [
        "Slurm: COMPLETED on localhost"]
    # steps (.batch, .extern, .0) are their job's rows, in its run
    assert [s.title for s in parse_file(SLURM / "sacct_parsable2_cluster_utils.txt")] == [
        f"job {n}: COMPLETED" for n in range(239023, 239027)]
    assert parse_file(SLURM / "sacct_parsable2_cluster_utils.txt")[0].text.split("\n") == [
        "JobID|NodeList|State|ExitCode", "239023|galvani-cn001|COMPLETED|0:0",
        "239023.batch|galvani-cn001|COMPLETED|0:0", "239023.extern|galvani-cn001|COMPLETED|0:0",
        "239023.0|galvani-cn001|CANCELLED|0:10"]


def test_sacct_parsable2_without_a_header_is_read_by_what_its_fields_hold():
    assert _runs("sacct_parsable2_apel.txt") == [
        ("job 5940815: COMPLETED, 2-01:24:56", "done", None, 177896.0),
        ("job 5961074: COMPLETED, 01:09:48", "done", None, 4188.0),
        ("job 5979785: COMPLETED, 00:03:25", "done", None, 205.0)]
    # its Start and End are the span of the run's events
    [first, *_] = parse_file(SLURM / "sacct_parsable2_apel.txt")
    assert [e.ts for e in first.events] == [1527991872.0, 1528169768.0]
    assert [s.status for s in parse_file(SLURM / "sacct_parsable2_snakemake.txt")] == [
        "failed", "done", "failed", "done"]
    assert _codes("sacct_parsable2_snakemake.txt")[0] == ["slurm_job_failed"]


def test_sacct_default_tables():
    assert [r[1:3] for r in _runs("sacct_text_private.txt")] == list(
        zip(PRIVATE_STATUS, [0, 3, 0, 0, 0, 7], strict=True))
    assert [r[1] for r in _runs("sacct_text_soperator.txt")] == [
        "done", "failed", "failed", "done"]
    assert _metric("sacct_text_soperator.txt", "max_rss_mib") == [5.898, 5.734, 5.73, 5.895]
    assert _metric("sacct_text_soperator.txt", "cpu_time_s") == [0.004] * 4  # TotalCPU 00:00.004
    assert _codes("sacct_text_soperator.txt") == [
        [], ["slurm_job_failed"], ["slurm_job_failed"], []]


def test_sacct_tables_cut_to_ten_characters_give_out_of_memory_and_time_limit():
    """``OUT_OF_ME+`` is OUT_OF_MEMORY, ``3764934.bat+`` a step; a table quoted with a margin
    (JHPCE's) reads as well; an array task is a job of its own."""
    assert _runs("sacct_text_oom_fasrc.txt") == [
        ("job 3764934 mem_test: OUT_OF_MEMORY", "failed", -125, 0.0)]  # ExitCode 0:125
    [oom] = [e for e in parse_file(SLURM / "sacct_text_oom_fasrc.txt")[0].events
             if isinstance(e, Diagnosis)]
    assert (oom.code, oom.message) == (
        "slurm_oom", "the job ran out of memory (Slurm job 3764934: OUT_OF_MEMORY)")
    assert "--mem" in oom.hint
    assert _runs("sacct_text_timeout_jhpce.txt") == [
        ("job 1980474_1 script1: COMPLETED", "done", 0, 0.0),
        ("job 1980474_2 script1: TIMEOUT", "failed", 0, 0.0)]
    assert _codes("sacct_text_timeout_jhpce.txt") == [[], ["slurm_timeout"]]


def test_sacct_json_of_slurm_22_05():
    runs = _runs("sacct_json_private.json")
    assert [r[1] for r in runs] == PRIVATE_STATUS
    assert [r[3] for r in runs] == [2.0, 0.0, 25.0, 1.0, 0.0, 1.0]
    # 22.05 says return_code 0 for jobs that exited 3 and 7: not recorded, rather than 0
    assert [r[2] for r in runs] == [0, None, 0, 0, 0, None]
    assert runs[2][0] == "job 3 hold: COMPLETED, 00:00:25"


def test_squeue_tables_give_pending_reasons_and_running_time():
    assert _runs("squeue_text_private.txt") == [
        ("job 4 waits: PENDING (Resources)", "queued", None, 0.0),
        ("job 3 hold: RUNNING, 00:00:08", "running", None, 8.0)]
    assert _runs("squeue_json_private.json") == [
        ("job 1 ok: COMPLETED, 00:00:02", "done", 0, 2.0),
        ("job 2 fail3: FAILED, 00:00:00", "failed", 3, 0.0),  # the wait status 768
        ("job 3 hold: RUNNING", "running", None, 0.0),
        ("job 4 waits: PENDING (Resources)", "queued", None, 0.0)]
    [pending] = parse_file(SLURM / "squeue_json_private.json")[3].events
    assert (pending.name, pending.detail) == ("queued", "Slurm: PENDING (Resources)")


@pytest.mark.parametrize("name", ["sstat_text_private.txt", "sstat_parsable2_private.txt"])
def test_sstat_gives_a_running_step_memory(name):
    assert _runs(name) == [("job 3.batch: RUNNING, MaxRSS 3.043 MiB", "running", None, 0.0)]
    assert _metric(name, "max_rss_mib") == [3.043]
    assert (_metric(name, "cpu_time_s"), _metric(name, "tasks")) == ([0.0], [1])  # AveCPU, NTasks


def test_sinfo_gives_each_partition_its_nodes_by_state():
    nodes = "24 nodes, 6 down*, 6 mix, 5 alloc, 6 idle, 1 down"
    assert _runs("sinfo_siena.txt") == [
        (f"partition short (default): {nodes}; time limit 4:00:00", "up", None, 0.0),
        (f"partition normal: {nodes}; time limit infinite", "up", None, 0.0),
        ("partition high: 4 nodes, 3 alloc, 1 idle; time limit infinite", "up", None, 0.0)]
    busy = [[(e.engine, e.percent, e.value, e.unit) for e in s.events]
            for s in parse_file(SLURM / "sinfo_siena.txt")]
    assert busy == [[("short nodes", 45.83, 11, "nodes")], [("normal nodes", 45.83, 11, "nodes")],
                    [("high nodes", 75.0, 3, "nodes")]]
    assert [s.title for s in parse_file(SLURM / "sinfo_nebari.txt")] == [
        "partition general (default): 3 nodes, 1 mix, 2 idle; time limit infinite"]
    [idle] = parse_file(SLURM / "sinfo_wonyoungcho.txt")
    assert idle.title == "partition all (default): 2 nodes, 2 idle; time limit infinite"
    assert [e.percent for e in idle.events] == [0.0]


def test_a_partition_is_no_run_to_import(store):
    with pytest.raises(UserError, match="no section holds a log"):
        import_file(store, SLURM / "sinfo_siena.txt")


def test_import_files_finished_jobs_with_their_status_exit_code_and_duration(store):
    runs = import_file(store, SLURM / "sacct_parsable2_private.txt")
    assert [r.status for r in runs] == PRIVATE_STATUS
    assert [r.summary.ending.exit_code for r in runs] == [0, 3, 0, 0, 0, 7]
    assert [r.summary.duration_s for r in runs] == [2.0, 0.0, 25.0, 1.0, 0.0, 1.0]
    _, state = RunHandle(store, runs[1]).replay()
    assert [d.code for d in state.diagnoses] == ["slurm_job_failed", "job_failed"]
    [apel, *_] = import_file(store, SLURM / "sacct_parsable2_apel.txt")
    assert apel.summary.duration_s == 177896.0 and apel.status == "done"
    # the pending and running jobs of a squeue listing are not filed
    assert [r.status for r in import_file(store, SLURM / "squeue_json_private.json")] == [
        "done", "failed"]


def test_parse_shows_each_job(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = accelbench("parse", str(SLURM / "squeue_text_private.txt")).stdout
    assert "job 4 waits: PENDING (Resources)" in out and "queued" in out


def test_other_tables_are_no_slurm_tables():
    assert read_table("epoch|loss\n1|0.5\n") is None
    assert read_table("12|0.5|0.9\n13|0.4|0.8\n") is None  # no state: not sacct's
    assert not SlurmTable.sniff('{"loss": 0.5}\n')
    [section] = parse_file(REAL / "generic" / "keras_16906.txt")
    assert section.dialects == ["keras"]
