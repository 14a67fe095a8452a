"""A shared store cannot be turned against its user (issue 22, class 5), tested as two real
Unix users the test creates (so it runs as root, as in CI): run ids are checked wherever
they are read, run files are never read through a symlink or as a FIFO, a directory
another user owns is never written, and a store others can write is refused unless it is
a team store (group-writable with the setgid bit)."""

import contextlib
import grp
import io
import json
import os
import pwd
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from accelbench.cli.main import main
from accelbench.engine.rundir.files import write_json
from accelbench.engine.store.index import SYNCED
from accelbench.engine.store.runs import Store
from tests.store.test_store_index import SPEC

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None,
    reason="makes two real Unix users (useradd): runs as root only, as in CI")

TEAM = "abteam"
USERS = ("abvictim", "abattacker")


@pytest.fixture
def users():
    """Two users of one group (``TEAM``), removed after; their names."""
    subprocess.run(["groupadd", TEAM], check=True, capture_output=True)
    try:
        for user in USERS:
            subprocess.run(["useradd", "-M", "-N", "-g", TEAM, user], check=True,
                           capture_output=True)
        yield {user: pwd.getpwnam(user) for user in USERS}
    finally:
        for user in USERS:
            subprocess.run(["userdel", user], capture_output=True, check=False)
        subprocess.run(["groupdel", TEAM], capture_output=True, check=False)


@pytest.fixture
def shared(users, tmp_path):
    """A directory both users can reach (the tests' own temporary one is root's only)."""
    _warm(tmp_path)
    top = Path(tempfile.mkdtemp(prefix="accelbench-shared-"))
    top.chmod(0o755)
    for user, entry in users.items():
        (top / user).mkdir(mode=0o700)
        os.chown(top / user, entry.pw_uid, entry.pw_gid)
    yield top
    shutil.rmtree(top, ignore_errors=True)


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def _warm(tmp_path: Path) -> None:
    """Import what the commands below import lazily, as root: the users cannot read this
    interpreter's files (it may live under /root), only run what is loaded already."""
    env = {"ACCELBENCH_HOME": str(tmp_path / "warm"), "ACCELBENCH_CONFIG": str(tmp_path)}
    old = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            Store().create(SPEC)
            for args in (["runs"], ["runs", "--format", "json"], ["show", "t"],
                         ["clean", "--older-than", "30"], ["doctor", "--dry-run"], ["doctor"],
                         ["rm", "--yes", "t"]):
                main(args)
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def as_user(entry, top: Path, store: Path, call: Callable[[], int], timeout: float = 60
            ) -> Result:
    """``call()`` in a child process of the user ``entry``, on ``store``: its result as an
    exit code, what it printed; -9 if it was still running after ``timeout`` seconds."""
    home = top / entry.pw_name
    out, err = home / "out", home / "err"
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            os.setgroups([])
            os.setgid(entry.pw_gid)
            os.setuid(entry.pw_uid)
            os.environ.update(HOME=str(home), ACCELBENCH_HOME=str(store), TMPDIR=str(home),
                              ACCELBENCH_CONFIG=str(home / "config"))
            with open(out, "w") as sys.stdout, open(err, "w") as sys.stderr:
                try:
                    code = call()
                except BaseException:  # noqa: BLE001 - a forked child: say it, then _exit
                    traceback.print_exc()
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return Result(os.waitstatus_to_exitcode(status), out.read_text(), err.read_text())
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return Result(-9, out.read_text(), f"still running after {timeout} s: hung")


def cli(entry, top: Path, store: Path, *args: str, timeout: float = 60) -> Result:
    """``accelbench ARGS`` as the user ``entry``, on ``store``."""
    return as_user(entry, top, store, lambda: main(list(args)), timeout)


def team_store(top: Path, victim) -> Path:
    """A team store: the victim's, writable by the team's group, with the setgid bit."""
    store = top / "store"
    store.mkdir()
    os.chown(store, victim.pw_uid, grp.getgrnam(TEAM).gr_gid)
    store.chmod(0o2770)
    return store


def test_a_row_whose_id_leaves_the_store_deletes_nothing_outside(users, shared):
    victim, attacker = users["abvictim"], users["abattacker"]
    store = team_store(shared, victim)
    precious = shared / victim.pw_name / "precious"  # ../../x from runs/ reaches here
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    os.chown(precious, victim.pw_uid, victim.pw_gid)
    assert cli(victim, shared, store, "runs").returncode == 0  # makes the index
    as_user(victim, shared, store, lambda: open_up(store))  # shared with the team
    target = f"../../{victim.pw_name}/precious"

    def plant() -> int:
        with sqlite3.connect(store / "index.sqlite") as db:
            db.execute("INSERT INTO runs (id, created, name, workload, accelerator, launcher,"
                       " status, params, summary, experiment, variant) VALUES (?, 1, 'x',"
                       " 'command', 'cpu', 'local', 'done', '{}', '{}', NULL, '{}')", (target,))
            # and the note that the index is in line with the directories, so none looks
            db.execute(f"INSERT OR REPLACE INTO {SYNCED} VALUES ('runs', ?, 1)",
                       ((store / "runs").stat().st_mtime_ns,))
        return 0
    planted = as_user(attacker, shared, store, plant)
    assert planted.returncode == 0, planted.stderr  # a team store's index: the team writes it
    out = cli(victim, shared, store, "clean", "--older-than", "30")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert (precious / "thesis.tex").read_text() == "years of work"
    out = cli(victim, shared, store, "rm", "--yes", target)
    assert out.returncode != 0 and (precious / "thesis.tex").exists()


def _attackers_run(attacker, shared: Path, store: Path) -> Path:
    """A run of the attacker's, ended (its end recorded as a job's wrapper does)."""
    def start() -> int:
        info = Store(store).create(SPEC)
        info.path("output.log").write_text("the job's line\n")
        write_json(info.path("exit.json"), {"status": "done", "returncode": 0,
                                            "ended": time.time()})
        print(info.id)
        return 0
    out = as_user(attacker, shared, store, start)
    assert out.returncode == 0, out.stderr
    run_dir = store / "runs" / out.stdout.strip()
    cli(attacker, shared, store, "runs")  # records its end
    as_user(attacker, shared, store, lambda: open_up(store, run_dir))
    return run_dir


def open_up(store: Path, *more: Path) -> int:
    """Make what the caller owns of the store's index and runs directory, and ``more``,
    the team's to read and write (as a user sharing a store would)."""
    for path in (store / "runs", *more, *(store.glob("index.sqlite*"))):
        with contextlib.suppress(PermissionError):
            path.chmod(0o2770 if path.is_dir() else 0o660)
    return 0


def test_another_users_symlinked_log_is_not_copied_into_a_digest(users, shared):
    victim, attacker = users["abvictim"], users["abattacker"]
    store = team_store(shared, victim)
    secret = shared / victim.pw_name / "secret.txt"
    secret.write_text("the victim's private key\n")
    os.chown(secret, victim.pw_uid, victim.pw_gid)
    secret.chmod(0o600)
    run_dir = _attackers_run(attacker, shared, store)  # the attacker links its log
    (run_dir / "digest.json").unlink(missing_ok=True)
    (run_dir / "output.log").unlink()
    (run_dir / "output.log").symlink_to(secret)
    os.lchown(run_dir / "output.log", attacker.pw_uid, attacker.pw_gid)
    out = cli(victim, shared, store, "show", run_dir.name)
    assert "private key" not in out.stdout
    found = [p for p in store.rglob("*") if p.is_file() and not p.is_symlink()
             and "private key" in p.read_text(errors="replace")]
    assert found == []
    assert not (run_dir / "digest.json").exists()  # not the victim's to write


def test_a_fifo_planted_by_another_user_hangs_no_reader(users, shared):
    victim, attacker = users["abvictim"], users["abattacker"]
    store = team_store(shared, victim)
    run_dir = _attackers_run(attacker, shared, store)
    for name in ("exit.json", "meta.json", "wrapper.json"):
        (run_dir / name).unlink(missing_ok=True)
        os.mkfifo(run_dir / name)
    with sqlite3.connect(store / "index.sqlite") as db:  # as if still running
        db.execute("UPDATE runs SET status = 'running' WHERE id = ?", (run_dir.name,))
    for args in (("runs",), ("show", run_dir.name), ("doctor", "--dry-run")):
        out = cli(victim, shared, store, *args, timeout=60)
        assert out.returncode != -9 and "Traceback" not in out.stderr, (args, out.stderr)


def test_a_store_others_can_write_is_refused_with_the_reason(users, shared):
    victim = users["abvictim"]
    for mode, why in ((0o777, "can be written by every user (mode 777)"),
                      (0o1777, "can be written by every user (mode 1777)"),
                      (0o770, "can be written by its group without being a team store (mode 770)")):
        store = shared / f"store{mode:o}"
        store.mkdir()
        os.chown(store, victim.pw_uid, grp.getgrnam(TEAM).gr_gid)
        store.chmod(mode)
        out = cli(victim, shared, store, "runs")
        assert out.returncode == 2 and not (store / "index.sqlite").exists()
        assert out.stderr.splitlines()[0] == (f"accelbench: error: cannot use run store {store}:"
                                              f" {store} {why}: refused, as others could turn"
                                              " it against you")
    store = team_store(shared, victim)  # a team store is used, and stays the team's
    out = cli(victim, shared, store, "runs", "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout) == []
    assert stat.S_IMODE((store / "runs").stat().st_mode) == 0o2770
    assert stat.S_IMODE((store / "index.sqlite").stat().st_mode) == 0o660
