"""A file that is not what it claims neither hangs nor exhausts accelbench (issue 22,
class 4): run files are read as regular files only, never through a symlink, bounded
(``engine.safefile``); a log the user names may be a pipe; tools' output is bounded."""

import json
import os
import resource
import sqlite3
import subprocess
import sys
import time

import pytest

from accelbench.engine.core import safefile
from accelbench.engine.core.errors import UserError
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.store.runs import Store
from accelbench.engine.telemetry.node import Absent, NodeSampler
from tests.helpers import FIXTURES, ROOT, accelbench
from tests.store.test_store_index import SPEC

RUN_FILES = ("exit.json", "wrapper.json", "meta.json", "launch.json", "spec.toml",
             "digest.json")
REAL_LOG = FIXTURES / "real" / "frameworks" / "hf_trainer_esm2_srun_smhp.log"
COMMANDS = (("runs",), ("runs", "--format", "json"), ("show", "{id}"), ("attach", "{id}"),
            ("top", "--once"), ("doctor",), ("doctor", "--dry-run"))


def _old_run(home, name: str, target: str | None = None):
    """A run the index says is queued (started an hour ago), whose ``name`` is a FIFO
    (or a symlink to ``target``)."""
    store = Store(home)
    info = store.create(SPEC)
    with sqlite3.connect(home / "index.sqlite") as db:
        db.execute("UPDATE runs SET created = ? WHERE id = ?", (time.time() - 3600, info.id))
    path = info.path(name)
    path.unlink(missing_ok=True)
    if target is None:
        os.mkfifo(path)
    else:
        path.symlink_to(target)
    return info


@pytest.mark.parametrize("name", RUN_FILES)
def test_a_fifo_named_like_a_run_file_hangs_no_command(home, name):
    info = _old_run(home, name)
    for command in COMMANDS:
        out = accelbench(*(arg.format(id=info.id) for arg in command), timeout=60)
        assert "Traceback" not in out.stderr, (command, out.stderr)
    for command in (("rm", "--yes", info.id), ("clean", "--older-than", "0")):
        info = _old_run(home, name)
        out = accelbench(*command, timeout=60)
        assert "Traceback" not in out.stderr, (command, out.stderr)
    info = _old_run(home, name)
    out = accelbench("rm", "--force", "--yes", info.id, timeout=60)
    assert out.returncode == 0 and not info.dir.exists(), out.stderr


def _limited(max_mb: int):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (max_mb << 20, max_mb << 20))
    return limit


@pytest.mark.parametrize("name", ["output.log", "meta.json", "exit.json", "wrapper.json"])
def test_a_run_file_linked_to_dev_zero_is_not_read(home, name):
    info = _old_run(home, name, "/dev/zero")
    for command in (("runs",), ("show", info.id), ("show", "--log", info.id)):
        out = subprocess.run([sys.executable, "-m", "accelbench.cli.main", *command],
                             capture_output=True, text=True, timeout=60, cwd=ROOT,
                             preexec_fn=_limited(1024), check=False)
        assert "Traceback" not in out.stderr and "MemoryError" not in out.stderr, out.stderr
    if name == "output.log":  # show --log says why it copies nothing
        assert "output.log: a symlink, not a regular file: not read" in out.stderr


def test_safefile_refuses_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "big").write_bytes(b"x" * 101)
    for name in ("fifo", "link", "zero"):
        with pytest.raises(safefile.Unsafe, match="not a regular file"):
            safefile.read_bytes(tmp_path / name)
    with pytest.raises(safefile.Unsafe, match="larger than 100 bytes"):
        safefile.read_bytes(tmp_path / "big", limit=100)
    (tmp_path / "ok").write_text("{}")
    (tmp_path / "to_ok").symlink_to(tmp_path / "ok")
    with pytest.raises(safefile.Unsafe, match="a symlink"):
        safefile.read_bytes(tmp_path / "to_ok")


def test_parse_of_dev_zero_is_refused_at_once():
    start = time.monotonic()
    out = accelbench("parse", "/dev/zero", timeout=30)
    assert out.returncode == 2 and time.monotonic() - start < 20
    assert out.stderr.splitlines()[0] == ("accelbench: error: /dev/zero: a character device,"
                                          " not a log file or a pipe: not read")


def test_parse_of_one_huge_line_stays_bounded_in_memory(tmp_path):
    log = tmp_path / "one_line.log"
    with open(log, "wb") as f:
        for _ in range(48):
            f.write(b"loss=0.5 " * (1 << 17))  # 48 MiB, no newline
        f.write(b"\nEpoch 1: loss=0.25\n")
    code = ("import resource, sys\nfrom accelbench.engine.logs.logfile import parse_file\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "parse_file(sys.argv[1])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)")
    out = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True,
                         text=True, timeout=120, cwd=ROOT, check=True)
    assert int(out.stdout) < 64 * 1024, out.stdout  # KiB


def test_parse_reads_a_pipe_the_user_named(tmp_path):
    text = REAL_LOG.read_text()
    whole = accelbench("parse", "--json", str(REAL_LOG))
    assert whole.returncode == 0 and whole.stdout.count("\n") > 10
    out = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "parse", "--json",
                          "/dev/stdin"], input=text, capture_output=True, text=True,
                         timeout=60, cwd=ROOT, check=False)
    assert (out.returncode, out.stdout) == (0, whole.stdout.replace(REAL_LOG.stem, "stdin"))
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > {fifo}"], stdin=subprocess.PIPE, text=True)
    assert writer.stdin is not None
    writer.stdin.write(text)
    writer.stdin.close()
    sections = parse_file(fifo)
    writer.wait(10)
    assert sections[0].dialects == ["hf_trainer"] and len(sections[0].events) == 24  # (its
    # 19 metrics and bars, and each of its 5 dicts' epoch as a Progress)


def test_parse_of_a_fifo_nobody_writes_to_gives_up_with_a_reason(tmp_path):
    fifo = tmp_path / "lonely.fifo"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match=r"a pipe nobody wrote to within 0\.2 s"), \
            safefile.named_log(fifo, wait=0.2):
        pass


class _Chatty(NodeSampler):
    name = "chatty"


def test_a_tool_that_prints_without_end_is_cut_off(tmp_path):
    sampler = _Chatty(1.0, tmp_path)
    start = time.monotonic()
    with pytest.raises(Absent, match="printed more than"):
        sampler.run_tool(["sh", "-c", "yes"])  # lines without end
    with pytest.raises(Absent, match="printed more than"):
        sampler.run_tool(["sh", "-c", "tr -d '\\n' < /dev/zero"])  # one line without end
    with pytest.raises(Absent, match="no answer in"):
        sampler.run_tool(["sleep", "30"])
    assert time.monotonic() - start < 20


def test_a_streaming_tools_endless_line_is_cut(tmp_path):
    proc = subprocess.Popen(["sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo ok"],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    got = list(safefile.lines(proc.stdout, limit=1000))
    proc.wait()
    assert [len(line) for line in got] == [1000, 2] and got[1] == "ok"


def test_an_import_of_a_file_truncated_while_read_says_so(tmp_path, monkeypatch):
    log = tmp_path / "train.log"
    log.write_text(REAL_LOG.read_text() * 50)
    from accelbench.engine.logs import logfile

    real = logfile._blocks

    def truncating(path, name=None, size=-1):
        for n, block in enumerate(real(path, name, size)):
            if n == 0:
                os.truncate(path, 100)
            yield block
    monkeypatch.setattr(logfile, "BLOCK", 1024)
    monkeypatch.setattr(logfile, "_blocks", truncating)
    with pytest.raises(UserError, match="truncated while read"):
        parse_file(log)


def test_doctor_json_of_a_store_with_fifos_lists_them(home):
    info = _old_run(home, "exit.json")
    out = accelbench("doctor", "--json", timeout=60)
    assert "Traceback" not in out.stderr
    json.loads(out.stdout)
    assert info.id in out.stdout


@pytest.mark.parametrize("name", ["trainer_state.json", "trainer_log.jsonl", "metrics.csv",
                                  "events.out.tfevents.1700000000.host.1.0"])
def test_a_fifo_or_device_named_like_a_run_file_on_disk_is_refused_at_once(home, tmp_path,
                                                                        name):
    """``import DIR`` passes over a FIFO or a device link among the files it walks, saying
    which (it hung on the FIFO: the structured readers opened what they were named), and
    ``parse`` of one is a line naming what it is."""
    folder = tmp_path / "outputs"
    (folder / "sub").mkdir(parents=True)
    os.mkfifo(folder / name)
    (folder / "sub" / name).symlink_to("/dev/zero")
    log = FIXTURES / "real" / "frameworks" / "nanogpt_shakespeare_char_v100.log"
    (folder / "train.log").write_bytes(log.read_bytes())
    out = accelbench("import", str(folder), timeout=60)
    assert out.returncode == 0, out.stderr
    assert f"skipped {folder / name}: a FIFO, not a regular file" in out.stdout
    assert f"skipped {folder / 'sub' / name}: a character device, not a regular file" \
        in out.stdout
    [run] = json.loads(accelbench("runs", "--format", "json").stdout)  # the log's
    assert run["name"] == "train"
    for path, kind in ((folder / name, "a FIFO"), (folder / "sub" / name, "a character device")):
        parsed = accelbench("parse", str(path), timeout=60)
        assert parsed.returncode == 2
        assert parsed.stderr.strip() == (f"accelbench: error: {path}: {kind}, not a regular"
                                         " file: not read")
