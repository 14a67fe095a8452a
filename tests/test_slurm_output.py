"""Slurm's lines in real job output (tests/fixtures/real/slurm): diagnoses, exit codes, and
how `accelbench parse` and `import` read a log that shows a failure."""

from __future__ import annotations

import json

import pytest
from real_logs import REAL

from accelbench.engine.events import Diagnosis
from accelbench.engine.logfile import import_file, parse_file
from tests.conftest import FIXTURES, accelbench

SLURM = REAL / "slurm"


def _diagnoses(name: str) -> list[tuple[str, str]]:
    (section,) = parse_file(SLURM / name)
    assert section.dialects == ["slurm"]
    return [(e.code, e.message) for e in section.events if isinstance(e, Diagnosis)]


LIMIT = "the job reached its time limit:"
REFUSED = "Slurm refused the job: Invalid account or account/partition combination specified"


@pytest.mark.parametrize(("name", "expected"), [
    ("oom_step_tusas.log", [("slurm_oom", "1 out-of-memory kill(s) in step 440575.0")]),
    ("oom_cgroup_hafs.log", [("slurm_oom", "1 out-of-memory kill(s) in step 3495064.0")]),
    ("oom_snakemake.log", [("slurm_oom", "2 out-of-memory kill(s) in step JOBID.13")]),
    ("time_limit_desitarget.log",
     [("slurm_timeout", f"{LIMIT} STEP 32233190.0 cancelled at 2020-07-03T02:59:56")]),
    ("time_limit_zetta.log",
     [("slurm_timeout", f"{LIMIT} JOB 494583 cancelled at 2024-04-20T09:09:37")]),
    ("time_limit_ufs.log",
     [("slurm_timeout", f"{LIMIT} STEP 25551887.0 cancelled at 2021-11-23T19:29:13")]),
    ("requeue_submitit.log",
     [("slurm_requeued", "Slurm requeued the job: JOB 608 cancelled at 2022-08-12T02:06:12"),
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
    assert exit_record["detail"] == ("Slurm requeued the job: JOB 608 cancelled at"
                                     " 2022-08-12T02:06:12")
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
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    assert cells[:4] == ["(top)", "slurm", "2", "failed (exit 1)"]
    assert cells[7] == ("slurm_requeued: Slurm requeued the job: JOB 608 cancelled at"
                        " 2022-08-12T02:06:12")
    assert "slurm_task_exit: tasks 2-3 on SERVER_NAME exited with code 1" in out.stdout
