"""A full disk: the run still records its end (``failed``, with a ``disk_full`` diagnosis
naming the filesystem), the wrapper survives its writes failing, no temp file is left."""

import errno
import json
import os
import shutil
import subprocess

import pytest

from accelbench.engine.core import fs
from accelbench.engine.core.events import Diagnosis
from accelbench.engine.launchers import jobwrap
from accelbench.engine.run.runner import Deriver
from accelbench.engine.rundir import exitfile
from accelbench.engine.rundir.exitfile import RESERVED, ExitRecord, read_exit, reserve, write_exit
from accelbench.engine.rundir.files import EXIT_FILE, write_json
from tests.helpers import command_spec, follow

NO_SPACE = OSError(errno.ENOSPC, "No space left on device")

# writes into its working directory (on the 2 MiB tmpfs) until the disk is full, then fails;
# never more than 8 MiB, wherever it runs (a command runs where it was launched: it once
# filled the real disk from the checkout)
FILLS_THE_DISK = """
import sys
print("filling", flush=True)
with open("filler", "wb") as f:
    for _ in range(128):
        f.write(b"x" * 65536)
        f.flush()
"""


@pytest.fixture
def small_runs_dir(store):
    """The store's runs directory on a 2 MiB tmpfs of its own (the index stays off it)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8): the full-disk run is not tested")
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs",
                          str(store.runs_dir)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({out.stderr.strip()}): "
                    "the full-disk run is not tested")
    yield store.runs_dir
    if subprocess.run(["umount", str(store.runs_dir)], check=False).returncode != 0:
        subprocess.run(["umount", "-l", str(store.runs_dir)], check=True)


def test_job_filling_the_disk_ends_failed_with_disk_full_naming_the_mount(runner,
                                                                          small_runs_dir,
                                                                          monkeypatch):
    monkeypatch.chdir(small_runs_dir)  # the command runs (and writes) where it is launched
    handle = runner.start(command_spec(FILLS_THE_DISK))
    events = follow(handle)
    assert events[-1].status == "failed" and events[-1].summary["exit_code"] == 1
    found = {e.code: e for e in events if isinstance(e, Diagnosis)}
    assert found["disk_full"].message.startswith(
        f"the filesystem of the run is full: {small_runs_dir} (tmpfs), ")
    assert f"free space on {small_runs_dir}" in found["disk_full"].hint
    assert "job_failed" in found
    assert sorted(p.name for p in handle.info.dir.iterdir() if p.name.startswith(".")) == []
    record = read_exit(handle.info.path(EXIT_FILE))
    assert record.status == "failed" and record.disk_full["mount"] == str(small_runs_dir)
    assert handle.info.path(EXIT_FILE).stat().st_size == RESERVED  # written where reserved
    assert handle.info.path("wrapper.log").read_text() == ""  # the wrapper did not crash


def test_write_json_leaves_no_temp_file_when_the_disk_is_full(tmp_path, monkeypatch):
    def no_space(*_):
        raise NO_SPACE

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(OSError, match="No space left"):
        write_json(tmp_path / "exit.json", {"status": "done"})
    assert list(tmp_path.iterdir()) == []


def fail_atomic_writes(monkeypatch):
    def no_space(path, data):  # what write_json does on a full disk: raise, leave nothing
        raise NO_SPACE

    monkeypatch.setattr(exitfile, "write_json", no_space)


def test_the_end_is_written_over_the_reservation_when_the_disk_is_full(tmp_path, monkeypatch):
    path = tmp_path / EXIT_FILE
    reserve(path)
    assert path.stat().st_size == RESERVED and read_exit(path) is None
    fail_atomic_writes(monkeypatch)
    write_exit(path, ExitRecord("failed", 1, ended=5.0, error="e" * 9999))
    record = read_exit(path)
    assert (record.status, record.returncode) == ("failed", 1)
    assert record.disk_full["mount"] == fs.filesystem(tmp_path)["mount"]
    assert record.error == "e" * 600 + "…"
    assert path.stat().st_size == RESERVED


def test_without_a_reservation_a_full_disk_is_an_error_not_a_half_record(tmp_path,
                                                                          monkeypatch):
    fail_atomic_writes(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        write_exit(tmp_path / EXIT_FILE, ExitRecord("done", 0, ended=5.0))
    assert list(tmp_path.iterdir()) == []


class FullFile:
    """A file on a full disk."""

    def write(self, data):
        raise NO_SPACE


def test_stderr_the_disk_has_no_room_for_is_drained_not_fatal(tmp_path):
    read, write = os.pipe()
    os.write(write, b"Traceback ...\nOSError: [Errno 28] No space left on device\n")
    os.close(write)
    with open(tmp_path / "stderr.log", "ab", buffering=0) as note:
        assert jobwrap.copy_stderr(read, FullFile(), note) is True
    assert os.read(read, 10) == b""  # drained to the end
    assert (tmp_path / "stderr.log").read_bytes() == b""  # nothing output.log lacks


def test_failed_job_on_a_full_filesystem_gets_the_disk_full_diagnosis(tmp_path, monkeypatch):
    full = {"mount": "/scratch", "fstype": "ext4", "free": 4096, "full": True}
    monkeypatch.setattr(fs, "filesystem", lambda path: full)
    reserve(tmp_path / EXIT_FILE)
    jobwrap.record_end(tmp_path, {"returncode": 1}, 1.0, cancelled=False)
    record = read_exit(tmp_path / EXIT_FILE)
    assert record.disk_full == full
    events = Deriver("r", 1.0).ending(record)
    diags = [(e.code, e.message) for e in events if isinstance(e, Diagnosis)]
    assert diags == [
        ("disk_full", "the filesystem of the run is full: /scratch (ext4), 4 KiB free"),
        ("job_failed", "the job exited with code 1")]
    assert events[-1].status == "failed"


def test_a_job_failing_on_a_disk_with_room_has_no_disk_full(tmp_path):
    assert not fs.filesystem(tmp_path)["full"]
    reserve(tmp_path / EXIT_FILE)
    jobwrap.record_end(tmp_path, {"returncode": 1}, 1.0, cancelled=False)
    assert read_exit(tmp_path / EXIT_FILE).disk_full is None
    assert "disk_full" not in json.loads((tmp_path / EXIT_FILE).read_text())
