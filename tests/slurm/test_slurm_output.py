"""Real Slurm output (tests/fixtures/real/slurm): Slurm's lines in job output (diagnoses, exit
codes; how `accelbench parse` and `import` read a log that shows a failure) and the tables of
sacct, squeue and sstat."""

from __future__ import annotations

import json
import re

import pytest
from real_logs import REAL, body

from accelbench.engine.core.events import Diagnosis
from accelbench.engine.launchers.slurm.accounting import (
    parsable_rows,
    parse_json,
    parse_parsable,
    parse_table,
    table_rows,
)
from accelbench.engine.launchers.slurm.commands import parse_squeue, squeue_job
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from tests.helpers import FIXTURES, accelbench

SLURM = REAL / "slurm"


def _diagnoses(name: str) -> list[tuple[str, str]]:
    (section,) = parse_file(SLURM / name)
    assert section.dialects == ["slurm"]
    return [(e.code, e.message) for e in section.events if isinstance(e, Diagnosis)]


LIMIT = "the job reached its time limit:"
REQUEUED = "Slurm requeued the job: JOB 608 on SERVER_NAME cancelled at 2022-08-12T02:06:12"
REFUSED = "Slurm refused the job: Invalid account or account/partition combination specified"


@pytest.mark.parametrize(("name", "expected"), [
    ("oom_step_tusas.log", [("slurm_oom", "1 out-of-memory kill(s) in step 440575.0")]),
    ("oom_cgroup_hafs.log", [("slurm_oom", "1 out-of-memory kill(s) in step 3495064.0")]),
    ("oom_snakemake.log", [("slurm_oom", "2 out-of-memory kill(s) in step JOBID.13")]),
    ("time_limit_desitarget.log",
     [("slurm_timeout", f"{LIMIT} STEP 32233190.0 on nid01934 cancelled at 2020-07-03T02:59:56")]),
    ("time_limit_zetta.log",
     [("slurm_timeout", f"{LIMIT} JOB 494583 on ... cancelled at 2024-04-20T09:09:37")]),
    ("time_limit_ufs.log",
     [("slurm_timeout", f"{LIMIT} STEP 25551887.0 on h19c25 cancelled at 2021-11-23T19:29:13")]),
    ("requeue_submitit.log",
     [("slurm_requeued", REQUEUED),
      ("slurm_task_exit", "tasks 2-3 on SERVER_NAME exited with code 1")]),
    ("bus_error_hafs.log", [("slurm_task_signal", "task 289 on Orion-18-69: Bus error")]),
    ("sbatch_invalid_account.log", [("slurm_submit_failed", REFUSED)]),
])
def test_each_real_log_gives_its_cause_once(name, expected):
    assert _diagnoses(name) == expected


def test_every_slurm_diagnosis_has_a_hint():
    for path in SLURM.glob("*.log"):
        for event in parse_file(path)[0].events:
            assert isinstance(event, Diagnosis) and event.hint, (path.name, event)


def test_the_task_exit_code_and_the_cancel_time_are_read():
    (section,) = parse_file(SLURM / "requeue_submitit.log")
    assert (section.status, section.exit_code) == ("failed", 1)
    requeued = section.events[0]
    assert requeued.ts == 1660269972.0  # 2022-08-12T02:06:12, the line's own time


def test_a_failed_log_imports_as_failed_with_its_diagnosis_and_exit_code(runner):
    (run,) = import_file(runner.store, SLURM / "requeue_submitit.log")
    assert run.status == "failed"
    exit_record = json.loads(run.path("exit.json").read_text())
    assert (exit_record["status"], exit_record["returncode"]) == ("failed", 1)
    assert exit_record["detail"] == REQUEUED
    assert run.summary.diagnoses == ["job_failed", "slurm_requeued", "slurm_task_exit"]


def test_a_log_that_shows_no_outcome_imports_as_ended(runner, tmp_path):
    log = tmp_path / "partial.log"
    log.write_text("{'loss': 0.6929, 'learning_rate': 4.9e-05, 'epoch': 0.42}\n")
    (run,) = import_file(runner.store, log)
    assert run.status == "ended"


def test_an_imported_run_lasts_what_its_own_timestamps_span(runner):
    runs = import_file(runner.store, FIXTURES / "seeds" / "004_fa457edab846a9b4.txt")
    assert sorted(r.summary.duration_s for r in runs) == [0.0, 642.612, 4240.575]


def test_a_hash_line_in_a_plain_log_is_not_a_heading(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("srun: error: gc-poplar-03: task 0: Exited with exit code 2\n"
                   "# --- excerpt break ---\n"
                   "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2024-04-20T09:09:37"
                   " DUE TO TIME LIMIT ***\n")
    (section,) = parse_file(log)
    assert section.title == ""
    assert [e.code for e in section.events] == ["slurm_task_exit", "slurm_timeout"]
    notes = tmp_path / "notes.md"
    notes.write_text(log.read_text())
    assert [s.title for s in parse_file(notes)] == ["", "--- excerpt break ---"]


def test_parse_table_shows_status_exit_code_and_diagnoses(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    out = accelbench("parse", str(SLURM / "requeue_submitit.log"))
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "(top)" in line)
    cells = re.split(r"\s{2,}", row.strip())  # (a cell's own spaces are single)
    assert cells[:4] == ["(top)", "slurm", "2", "failed (exit 1)"]
    assert cells[7] == f"slurm_requeued: {REQUEUED}"
    assert "slurm_task_exit: tasks 2-3 on SERVER_NAME exited with code 1" in out.stdout


def test_sacct_parsable2_with_its_header():
    records = parse_parsable(body("slurm", "sacct_parsable2_cluster_utils.txt"))
    assert len(records) == 16
    assert [(r.job_id, r.state, r.exit_code, r.signal) for r in records[:4]] == [
        ("239023", "COMPLETED", 0, 0), ("239023.batch", "COMPLETED", 0, 0),
        ("239023.extern", "COMPLETED", 0, 0), ("239023.0", "CANCELLED", 0, 10)]
    assert [r.step for r in records[:4]] == [False, True, True, True]
    private = parse_parsable(body("slurm", "sacct_parsable2_private.txt"))
    assert [(r.job_id, r.name, r.state, r.exit_code, r.elapsed_s, r.reason)
            for r in private if not r.step] == [
        ("1", "ok", "COMPLETED", 0, 2.0, ""), ("2", "fail3", "FAILED", 3, 0.0, ""),
        ("3", "hold", "COMPLETED", 0, 25.0, ""), ("4", "waits", "COMPLETED", 0, 1.0, ""),
        ("5", "cancelme", "CANCELLED", 0, 0.0, ""), ("6", "stepfail", "FAILED", 7, 1.0, "")]


def test_sacct_parsable2_without_a_header_takes_the_format_asked_for():
    apel = parse_parsable(body("slurm", "sacct_parsable2_apel.txt"), (
        "JobID", "JobName", "User", "Group", "Start", "End", "Elapsed", "CPUTimeRAW",
        "Partition", "NCPUS", "NNodes", "NodeList", "MaxRSS", "MaxVMSize", "State"))
    assert [(r.job_id, r.state, r.elapsed_s, r.nodes) for r in apel] == [
        ("5940815", "COMPLETED", 2 * 86400 + 3600 + 24 * 60 + 56, "wn1"),
        ("5961074", "COMPLETED", 3600 + 9 * 60 + 48, "wn2"),
        ("5979785", "COMPLETED", 3 * 60 + 25, "wn3")]
    snakemake = parse_parsable(body("slurm", "sacct_parsable2_snakemake.txt"),
                               ("JobIdRaw", "State"))
    assert [(r.job_id, r.state) for r in snakemake] == [
        ("8183088", "FAILED"), ("8183089", "COMPLETED"), ("8183090", "FAILED"),
        ("8183091", "COMPLETED")]


def test_sacct_default_table():
    soperator = parse_table(body("slurm", "sacct_text_soperator.txt"))
    assert [(r.job_id, r.name, r.state) for r in soperator] == [
        ("19.0", "sleep", "COMPLETED"), ("20", "sleep", "FAILED"), ("20.0", "sleep", "FAILED"),
        ("21", "sleep", "FAILED"), ("21.0", "sleep", "FAILED"), ("22", "sleep", "COMPLETED"),
        ("22.0", "sleep", "COMPLETED")]
    private = parse_table(body("slurm", "sacct_text_private.txt"))
    assert [(r.job_id, r.state, r.exit_code) for r in private if not r.step] == [
        ("1", "COMPLETED", 0), ("2", "FAILED", 3), ("3", "COMPLETED", 0), ("4", "COMPLETED", 0),
        ("5", "CANCELLED", 0), ("6", "FAILED", 7)]  # CANCELLED+: the table cut "by 0" short


def test_sacct_json_of_slurm_22_05():
    records = {r.job_id: r for r in parse_json(body("slurm", "sacct_json_private.json"))}
    assert sorted(records) == ["1", "1.batch", "2", "2.batch", "3", "3.batch", "4", "4.batch",
                               "5", "6", "6.0", "6.batch"]
    assert [(records[i].state, records[i].elapsed_s, records[i].nodes) for i in "123456"] == [
        ("COMPLETED", 2.0, "localhost"), ("FAILED", 0.0, "localhost"),
        ("COMPLETED", 25.0, "localhost"), ("COMPLETED", 1.0, "localhost"),
        ("CANCELLED", 0.0, "None assigned"), ("FAILED", 1.0, "localhost")]
    # 22.05's JSON says return_code 0 where ExitCode says 3:0: why sacct is asked --parsable2
    assert records["2"].exit_code == 0


def test_squeue_json_and_table_give_states_reasons_and_exit_codes():
    jobs = [squeue_job(j) for j in json.loads(body("slurm", "squeue_json_private.json"))["jobs"]]
    assert [(j.job_id, j.name, j.state, j.reason, j.exit_code) for j in jobs] == [
        (1, "ok", "COMPLETED", "", 0), (2, "fail3", "FAILED", "NonZeroExitCode", 3),
        (3, "hold", "RUNNING", "", 0), (4, "waits", "PENDING", "Resources", 0)]
    table = parse_squeue(body("slurm", "squeue_text_private.txt"))
    assert [(j.job_id, j.name, j.state, j.reason, j.nodes) for j in table] == [
        (4, "waits", "PENDING", "Resources", ""), (3, "hold", "RUNNING", "", "localhost")]


def test_sstat_rows():
    (text,) = table_rows(body("slurm", "sstat_text_private.txt"))
    (parsable,) = parsable_rows(body("slurm", "sstat_parsable2_private.txt"))
    assert text == parsable == {"JobID": "3.batch", "MaxRSS": "3116K", "AveCPU": "00:00:00",
                                "NTasks": "1"}


def test_a_real_srun_exit_line_of_the_private_cluster():
    (section,) = parse_file(SLURM / "srun_exit_private.log")
    assert (section.status, section.exit_code) == ("failed", 7)
    assert [e.message for e in section.events] == ["task 0 on localhost exited with code 7"]
