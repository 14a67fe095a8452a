"""A job's own files never collide with accelbench's (issue 22, class 3): a job runs in a
directory of its own (``<run>/work``; a command where it was launched), so a script that
writes ``output.log``, ``summary.json``, ``exit.json`` or ``meta.json`` leaves the run's
records as they were through ``runs``, ``show``, an index rebuild and ``doctor``."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.run.runner import Runner
from accelbench.engine.rundir.files import LAUNCH_FILE, WORK_DIR, read_json
from accelbench.engine.store.runs import Store
from tests.helpers import accelbench

NAMES = ("output.log", "summary.json", "exit.json", "meta.json", "spec.toml", "launch.json",
         "wrapper.json", "digest.json", "stderr.log", "state.jsonl")
# the job writes each name above, relatively, then prints a line accelbench must keep
CLOBBER = ("import sys\nfor name in sys.argv[1:]:\n    open(name, 'w').write('{\"status\":"
           " \"done\", \"created\": 1, \"id\": \"x\"}')\nprint('the job printed this')\n")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "accelbench.cli.main", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          check=False)


def _wait(run_id: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = accelbench("runs", "--format", "json")
        rows = {r["id"]: r for r in json.loads(out.stdout)}
        if rows.get(run_id, {}).get("status") in ("done", "failed"):
            return
        time.sleep(0.2)


def test_a_command_writing_accelbench_names_leaves_its_run_intact(home, tmp_path):
    launched = tmp_path / "project"
    launched.mkdir()
    (launched / "clobber.py").write_text(CLOBBER)
    out = _cli("run", "cpu-mnist", "--detach", "--set", "workload=command", "--set",
               "command=python3 clobber.py " + " ".join(NAMES), cwd=launched)
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.strip()
    _wait(run_id)
    run_dir = home / "runs" / run_id
    # the job ran where it was launched (its relative script was found) and wrote there
    assert all((launched / name).exists() for name in NAMES)
    assert read_json(run_dir / LAUNCH_FILE)["cwd"] == str(launched)
    assert (run_dir / "output.log").read_text() == "the job printed this\n"
    assert read_json(run_dir / "meta.json")["id"] == run_id
    assert read_json(run_dir / "exit.json")["returncode"] == 0
    rows = json.loads(accelbench("runs", "--format", "json").stdout)
    assert [(r["id"], r["status"]) for r in rows] == [(run_id, "done")]
    shown = accelbench("show", run_id)
    assert shown.returncode == 0 and "the job printed this" in shown.stdout
    assert f"ran in {launched}" in shown.stdout
    (home / "index.sqlite").unlink()  # rebuilt from the directories
    rows = json.loads(accelbench("runs", "--format", "json").stdout)
    assert [(r["id"], r["status"]) for r in rows] == [(run_id, "done")]
    doctor = accelbench("doctor")
    assert (doctor.returncode, doctor.stdout) == (0, f"{home}: healthy\n")


def test_a_workloads_job_runs_in_the_runs_work_directory(home):
    spec = spec_from_dict({"name": "w", "workload": "command",
                           "params": {"command": "python3 -c print(1)"}})
    plan = Runner.plan(spec, home / "x" / WORK_DIR)
    assert plan.cwd == Path.cwd()  # a command: where it was launched, with its PATH
    assert plan.env["PATH"] == os.environ["PATH"]
    store = Store(home)
    handle = Runner(store).start(spec_from_dict({"name": "w", "workload": "mnist_cnn",
                                                 "params": {"epochs": 1}}))
    handle.cancel()
    launch = read_json(handle.info.path(LAUNCH_FILE))
    assert launch["cwd"] == str(handle.info.dir / WORK_DIR)
    assert (handle.info.dir / WORK_DIR).is_dir()
