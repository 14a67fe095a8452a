"""A run directory's ``launch.json``, ``wrapper.json`` and ``meta.json``: one typed record
each (``engine.rundir.records``), written by one writer and read back with every field
checked; a damaged one is left aside in one notice naming the file and the field."""

from __future__ import annotations

import json
import logging
import subprocess

import pytest

from accelbench.engine.launchers import jobwrap
from accelbench.engine.rundir.files import damaged
from accelbench.engine.rundir.records import Launch, RunMeta, Wrapper
from accelbench.engine.store.runs import _run_row
from tests.helpers import SPEC

DAMAGED = damaged.name  # the logger of run files read as damaged


def test_each_record_reads_back_what_its_writer_wrote(tmp_path):
    launch = Launch(["python", "-c", "print(1)"], {"A": "1"}, str(tmp_path), 0.5,
                    ["nvidia:gpu"], ["hf_trainer"], ["tqdm"], "SLURM_JOB_ID", "slurm")
    wrapper = Wrapper(10, "node1", 1.5, 11, 1.25)
    meta = RunMeta("20240101-000000-x-abcdef", 2.5, "exp", {"lr": 0.1})
    for record in (launch, wrapper, meta):
        record.write(tmp_path)
        assert type(record).read(tmp_path) == record
    # a job not started yet has no job_pid in wrapper.json (the readers wait for one)
    assert json.loads((tmp_path / "wrapper.json").read_text()) == {
        "pid": 10, "host": "node1", "started": 1.5, "keeper_pid": 11, "keeper_started": 1.25}
    assert json.loads((tmp_path / "launch.json").read_text())["argv"] == launch.argv


def test_a_record_written_by_an_older_or_newer_version_reads(tmp_path):
    """An old wrapper.json (no keeper, no job id) and fields a later version adds."""
    (tmp_path / "wrapper.json").write_text(json.dumps(
        {"pid": 3, "host": "h", "started": 1, "job_pid": 4, "job_started": 2.0, "later": [1]}))
    (tmp_path / "launch.json").write_text(json.dumps({"dialects": ["tqdm"], "later": 1}))
    assert Wrapper.read(tmp_path) == Wrapper(3, "h", 1, job_pid=4, job_started=2.0)
    assert Launch.read(tmp_path) == Launch(dialects=["tqdm"])
    assert RunMeta.read(tmp_path) is None  # (none there)


@pytest.mark.parametrize(("record", "content", "said"), [
    (Launch, {"argv": ["python", 3]}, "launch.argv: expected a list of strings, got"),
    (Launch, {"env": {"PATH": None}}, "launch.env: expected an object of strings, got"),
    (Launch, {"dialects": "tqdm"}, "launch.dialects: expected a list of strings, got 'tqdm'"),
    (Wrapper, {"pid": "12", "host": "h", "started": 1.0}, "wrapper.pid: expected an integer"),
    (Wrapper, {"pid": 12, "started": 1.0}, "wrapper: missing field 'host'"),
    (RunMeta, {"id": "x", "created": "yesterday"}, "meta.created: expected a finite number"),
])
def test_a_damaged_record_is_left_aside_naming_its_file_and_field(tmp_path, caplog, record,
                                                                   content, said):
    path = tmp_path / record.name
    path.write_text(json.dumps(content))
    with caplog.at_level(logging.WARNING, logger=DAMAGED):
        assert record.read(tmp_path) is None
    [notice] = [r.getMessage() for r in caplog.records if r.name == DAMAGED]
    assert notice.startswith(f"{path}: {said}") and notice.endswith(": ignored"), notice


def test_a_run_whose_meta_record_is_damaged_is_left_out_of_the_index_with_the_reason(store):
    info = store.create(SPEC)
    assert RunMeta.read(info.dir) == RunMeta(info.id, info.created, None, {})
    (info.dir / "meta.json").write_text(json.dumps({"id": info.id, "created": [1]}))
    assert _run_row(info.dir, None) == (
        "meta.json: meta.created: expected a finite number within ±1e+100, got [1]")


def test_the_wrapper_refuses_a_launch_record_without_a_command_in_one_line(store):
    info = store.create(SPEC)
    Launch(dialects=["tqdm"]).write(info.dir)
    done = subprocess.run(jobwrap.command(info.dir), capture_output=True, text=True, timeout=60,
                          cwd=info.dir, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == (f"{info.dir / 'launch.json'}: missing, unreadable or"
                                   " without a command line, the job cannot start")
