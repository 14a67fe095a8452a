"""``cancel`` stops a job whole (issue 22, class 7): a child that left the job's process
group with ``setsid()`` is killed too, and the run's journal says it survived the signal."""

import os
import time

import psutil

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.rundir import journal
from accelbench.engine.rundir.files import OUTPUT_FILE

MARK = "3017"  # the escaped child's argument, to find it among the machine's processes


def _escaped() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if proc.info["cmdline"] == ["sleep", MARK]:
            found.append(proc)
    return found


def test_cancel_kills_a_child_that_called_setsid(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    handle = runner.start(spec_from_dict({"name": "escape", "workload": "command", "params": {
        "command": f"sh -c 'setsid sleep {MARK} & echo started; wait'"}}))
    deadline = time.monotonic() + 30
    while "started" not in handle.info.path(OUTPUT_FILE).read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    escaped = _escaped()
    assert len(escaped) == 1  # in a session of its own: out of the job's process group
    assert os.getsid(escaped[0].pid) == escaped[0].pid
    try:
        handle.cancel()
        _, alive = psutil.wait_procs(escaped, timeout=10)
        assert alive == []
        handle.refresh()
        assert handle.info.status == "cancelled"
        notes = [e for e in journal.read(handle.info.dir) if e.kind == "diagnosis"]
        assert [n.code for n in notes] == ["escaped_killed"]
        assert notes[0].message.startswith("1 process(es) the job had started outside")
    finally:
        for proc in _escaped():
            proc.kill()
