"""The CLI as a newcomer meets it in the first hour (issue 24): one spelling for JSON, an
import that knows a file it imported, `rm` that asks, no app without a terminal, did you
mean, one experiment name for a sweep, long log lines whole or cut, a Slurm preset not
marked usable where sbatch fails, and counts that read right."""

import hashlib
import json
import os
import pty
import select
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, ROOT, accelbench, json_events, listing

NANOGPT = FIXTURES / "real" / "frameworks" / "nanogpt_gpt2_fp16_nan_issue215.log"


def ran_true() -> str:
    """The id of a run of ``true`` (ended now)."""
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set", "command=true",
                     "--json")
    assert out.returncode == 0, out.stderr
    return json_events(out.stdout)[0]["run_id"]


def imported(path: Path = NANOGPT) -> str:
    """The id of the run an import of ``path`` makes."""
    out = accelbench("import", str(path))
    assert out.returncode == 0, out.stderr
    return listing()[0]["id"]  # (the newest)


class Terminal:
    """``accelbench ARGS`` in a pseudo-terminal ``columns`` wide that is its controlling
    terminal (stdin, stdout and stderr), as a user's shell starts it in the foreground."""

    def __init__(self, args: list[str], cwd: Path = ROOT, columns: int = 80) -> None:
        import fcntl
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))

        def foreground() -> None:  # (in the child: a session whose terminal is the pty)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        self.proc = subprocess.Popen(  # (the set-up below calls two syscalls, no lock)
            [sys.executable, "-m", "accelbench.cli.main", *args], stdin=slave, stdout=slave,
            stderr=slave, env=env, cwd=cwd, preexec_fn=foreground)  # noqa: PLW1509
        os.close(slave)
        self.drawn = b""

    def until(self, text: bytes, timeout: float = 60) -> bytes:
        """What it drew from now until ``text`` (or its end); a failure if not in time."""
        start, deadline = len(self.drawn), time.monotonic() + timeout
        while text not in self.drawn[start:] and time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.2)[0]:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # it has ended: the pty is closed
                    data = b""
                if not data:
                    break
                self.drawn += data
        assert text in self.drawn[start:], self.drawn[start:].decode(errors="replace")
        return self.drawn[start:]

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def end(self) -> int:
        """Its exit status, once it ended (what it drew is read to the end)."""
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            self.drawn += data
        os.close(self.master)
        return self.proc.wait(30)


# one spelling for JSON ------------------------------------------------------------------
def test_runs_takes_json_as_every_command_does_and_format_json_stays(home):
    run_id = imported()
    spelled = {args: accelbench(*args) for args in (("runs", "--json"),
                                                    ("runs", "--format", "json"))}
    assert all(out.returncode == 0 for out in spelled.values()), spelled
    assert [r["id"] for r in json.loads(spelled["runs", "--json"].stdout)] == [run_id]
    assert spelled["runs", "--json"].stdout == spelled["runs", "--format", "json"].stdout
    compared = accelbench("compare", run_id, "--json")
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout == accelbench("compare", run_id, "--format", "json").stdout
    assert [r["id"] for r in json.loads(compared.stdout)["runs"]] == [run_id]
    both = accelbench("compare", run_id, "--json", "--format", "csv")
    assert (both.returncode, both.stderr) == (
        2, "accelbench: error: give --json or --format csv, not both\n")


def test_every_command_that_prints_data_prints_json(home):
    run_id = imported()
    shown = json.loads(accelbench("show", run_id, "--json").stdout)
    assert (shown["id"], shown["workload"], shown["status"]) == (run_id, "imported", "ended")
    assert shown["spec"]["params"]["source"] == str(NANOGPT.resolve())
    assert shown["summary"]["final_loss"] == 4.249
    assert [line for line in shown["log_tail"] if line][-1].startswith("> 2023-03-22")
    presets = {p["name"]: p for p in json.loads(accelbench("presets", "--json").stdout)}
    assert presets["cpu-mnist"]["here"] is True and presets["cpu-mnist"]["variants"] is None
    assert presets["cpu-bert-padding-sweep"]["variants"] == 4
    accelerators = {a["name"]: a for a in json.loads(accelbench("accelerators", "--json").stdout)}
    assert accelerators["cpu"]["available"] is True and "mnist_cnn" in accelerators["cpu"][
        "workloads"]
    ran = ran_true()  # (an imported run ended when its log did: it is not old)
    cleaned = json.loads(accelbench("clean", "--older-than", "0", "--dry-run", "--json").stdout)
    assert cleaned == {"dry_run": True, "runs": [{"id": ran, "status": "done"}]}


# import knows what it imported -------------------------------------------------------
def test_a_file_imported_before_is_recognised_not_imported_twice(home, tmp_path):
    first = imported()
    out = accelbench("import", str(NANOGPT))
    assert out.returncode == 0, out.stderr
    assert " ".join(out.stdout.split()) == (f"{NANOGPT}: imported before, as {first} (--again"
                                            " imports it again)")
    assert [r["id"] for r in listing()] == [first]
    copy = tmp_path / "logs" / "same-content.log"  # another name, the same bytes
    copy.parent.mkdir()
    shutil.copy(NANOGPT, copy)
    out = accelbench("import", str(copy.parent), "--json")
    assert json.loads(out.stdout) == {"runs": [], "skipped": [], "imported_before": [
        {"path": str(copy), "runs": [first]}]}
    assert listing()[0]["params"]["sha256"] == hashlib.sha256(NANOGPT.read_bytes()).hexdigest()
    again = accelbench("import", str(copy), "--again", "--json")
    [second] = json.loads(again.stdout)["runs"]
    assert {r["id"] for r in listing()} == {first, second["id"]}


# rm asks -----------------------------------------------------------------------------
def test_rm_without_a_terminal_deletes_only_with_yes(home):
    run_id = imported()
    out = accelbench("rm", run_id, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        (f"accelbench: error: delete run {run_id} for good: not without --yes (no terminal to"
         " ask on)"), "hint: add --yes to delete without asking"]
    assert [r["id"] for r in listing()] == [run_id]
    out = accelbench("rm", run_id, "--yes", stdin=subprocess.DEVNULL)
    assert (out.returncode, out.stdout) == (0, f"removed {run_id}\n")
    assert listing() == []


def test_rm_on_a_terminal_asks_first(home):
    run_id = imported()
    for answer, status in ((b"n\n", 1), (b"y\n", 0)):
        terminal = Terminal(["rm", run_id], columns=200)
        asked = terminal.until(b"[y/N] ")
        assert f"delete run {run_id} for good?".encode() in asked
        terminal.type(answer)
        assert terminal.end() == status
        told = "nothing deleted" if status else f"removed {run_id}"
        assert told in terminal.drawn.decode()
        assert [r["id"] for r in listing()] == ([run_id] if status else [])


# no app without a terminal -------------------------------------------------------------
def test_no_app_without_a_terminal(home):
    out = subprocess.run([sys.executable, "-m", "accelbench.cli.main"], capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, cwd=ROOT, timeout=60, check=False)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == ("accelbench: the app needs a terminal (stdin and stdout are not"
                          " one); the commands work without: accelbench --help lists them"
                          " (runs, show, run ...)\n")


def test_start_without_a_terminal_runs_the_job_as_run_does(home, tmp_path):
    """The README's main command (``--preset P --start``) run where there is no terminal (a
    script, a batch job) runs the job from the command line instead of refusing."""
    preset = tmp_path / "echo.toml"
    preset.write_text('name = "echo"\nworkload = "command"\n\n[params]\n'
                      'command = "echo started-from-the-main-command"\n')
    out = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "--preset", str(preset),
                          "--start"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         cwd=tmp_path, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith(f"accelbench: no terminal for the app: running {preset} as")
    assert [(r["name"], r["status"]) for r in listing()] == [("echo", "done")]


# did you mean -------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "hint"), [
    (["run", "cpu-mnst"], ("hint: did you mean 'cpu-mnist'? run `accelbench presets` to list"
                           " the presets")),
    (["run", "cpu-mnist", "--set", "epoch=2"], ("hint: did you mean 'epochs'? known"
                                                " parameters: learning_rate, epochs,")),
    (["comapre", "x"], ("accelbench: error: unknown command 'comapre' (did you mean"
                        " 'compare'?)")),
])
def test_a_typo_gets_the_name_it_was_meant_for(home, args, hint):
    out = accelbench(*args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines()[-1].startswith(hint), out.stderr


# one experiment name ------------------------------------------------------------------
def test_a_sweep_is_one_experiment_name_from_the_cli_and_the_form(home, tmp_path, monkeypatch):
    from accelbench.engine.config.spec import load_preset, spec_from_dict
    from accelbench.engine.run import experiment
    from accelbench.engine.run.runner import Runner

    monkeypatch.chdir(tmp_path)
    preset = tmp_path / "pad-sweep.toml"
    preset.write_text('name = "pad"\nworkload = "command"\ntelemetry_interval = 0\n'
                      '[params]\ncommand = "true"\n[sweep]\nvariants = [{env.A = "1"},'
                      ' {env.A = "2"}]\n')
    out = accelbench("run", str(preset), "--json")
    assert out.returncode == 0, out.stderr
    # the app's form makes its spec anew from the one it loaded (launch.current_spec)
    form = spec_from_dict(load_preset(preset).to_dict(), source="form")
    exp = experiment.start(Runner(), form)
    assert exp.info.name == "pad"
    deadline = time.monotonic() + 60
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    experiments = json.loads(accelbench("runs", "--experiments", "--format", "json").stdout)
    assert [e["name"] for e in experiments] == ["pad", "pad"]
    compared = json.loads(accelbench("compare", "--experiment", "pad", "--format",
                                     "json").stdout)
    assert len(compared["runs"]) == 2


# long log lines ----------------------------------------------------------------------
LONG = "x" * 150 + " tail-of-the-line"


def test_show_log_keeps_long_lines_whole_and_cuts_them_on_request(home, monkeypatch):
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     f"command=echo {LONG}", "--json")
    run_id = json_events(out.stdout)[0]["run_id"]
    monkeypatch.setenv("COLUMNS", "40")
    assert accelbench("show", run_id, "--log").stdout == LONG + "\n"
    cut = accelbench("show", run_id, "--log", "--cut")
    assert (cut.returncode, cut.stdout) == (0, "x" * 39 + "…\n")
    out = accelbench("show", run_id, "--cut")
    assert (out.returncode, out.stderr.splitlines()[0]) == (
        2, "accelbench: error: --cut is for --log")


def test_the_live_view_shows_a_cut_line_whole_on_its_key(home, tmp_path):
    """The live view cuts a long line to the width and says which key shows it whole:
    ``w`` then wraps it (and says how to cut it again)."""
    gate = tmp_path / "go"
    job = (f"import os, time\nprint({LONG!r}, flush=True)\n"
           f"while not os.path.exists({str(gate)!r}):\n    time.sleep(0.1)\n")
    terminal = Terminal(["run", "cpu-mnist", "--set", "workload=command", "--set",
                         f"command={shlex.quote(sys.executable)} -c {shlex.quote(job)}"],
                        cwd=tmp_path)
    try:
        cut = terminal.until(b"w: show the cut lines whole")
        assert b"x" * 70 in cut and b"tail-of-the-line" not in cut
        terminal.type(b"w")
        terminal.until(b"tail-of-the-line")
        terminal.until(b"w: cut the long lines")
    finally:
        gate.touch()  # (the job ends, whatever the view did)
    assert terminal.end() == 0


# smaller points ----------------------------------------------------------------------
@pytest.mark.parametrize(("script", "here"), [
    (("echo 'sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host' >&2\n"
      "echo 'sbatch: fatal: Could not establish a configuration source' >&2\nexit 1\n"), False),
    (("echo 'sbatch: Job 7 to start at 2026-01-01T00:00:00 using 1 processors on nodes n1 in"
      " partition debug' >&2\n"), True),
])
def test_a_slurm_preset_is_usable_only_where_sbatch_submits(home, tmp_path, monkeypatch,
                                                            script, here):
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "sbatch").write_text(f"#!/bin/sh\n{script}")
    (tools / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("COLUMNS", "300")
    table = accelbench("presets").stdout
    [row] = [line.split() for line in table.splitlines() if line.startswith("slurm-cpu-mnist ")]
    assert row[:5] == ["slurm-cpu-mnist", "cpu", "yes" if here else "no", "mnist_cnn", "slurm"]
    said = ("here = no: launchers slurm, srun: sbatch --test-only failed: sbatch: fatal: Could"
            " not establish a configuration source")
    assert (said in table.splitlines()) is not here
    presets = {p["name"]: p for p in json.loads(accelbench("presets", "--json").stdout)}
    assert presets["slurm-cpu-mnist"]["here"] is here and presets["cpu-mnist"]["here"] is True
    assert presets["slurm-cpu-mnist"]["launcher_refused"] == (
        None if here else "sbatch --test-only failed: sbatch: fatal: Could not establish a"
        " configuration source")


def test_one_of_a_thing_is_counted_in_the_singular(home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    assert accelbench("parse", str(NANOGPT)).stdout.splitlines()[0].rstrip() == (
        f"{NANOGPT}: 1 section")
    run_id = ran_true()
    assert accelbench("runs").stdout.startswith("1 run (")
    assert accelbench("clean", "--older-than", "0", "--dry-run").stdout.splitlines() == [
        f"would remove {run_id} (done)", "1 run to remove"]
