"""The headless CLI: help without torch, one-line errors, listings, plain-command runs."""

import json
import os
import pty
import shlex
import subprocess
import sys

import pytest

from tests.helpers import ROOT, accelbench, json_events


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["run", "--help"]])
def test_help_and_version_do_not_import_torch(args):
    code = (f"import sys\nfrom accelbench.cli.main import main\ntry:\n    main({args!r})\n"
            "except SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'transformers', 'textual') if m in sys.modules]\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stdout
    if "--version" in args:
        assert out.stdout.startswith("accelbench 0.")


def test_parse_loads_no_store_sampler_or_app(tmp_path):
    """``accelbench parse`` (its start is a share of its time) loads neither the store's
    SQLite, the samplers' psutil, the app's Textual nor torch."""
    log = tmp_path / "a.log"
    log.write_text("2024-03-30 13:00:00,009 INFO:   | Train Device=CSX, Step=1, Loss=2.5,"
                   " Rate=10.0 samples/sec, GlobalRate=9.0 samples/sec\n")
    code = (f"import sys\nfrom accelbench.cli.main import main\nmain(['parse', {str(log)!r}])\n"
            "heavy = [m for m in ('sqlite3', 'psutil', 'textual', 'torch') if m in sys.modules]\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "cerebras" in out.stdout and "HEAVY []" in out.stdout


def test_bad_preset_is_one_line_without_traceback(home, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('workload = "mnist_cnn"\n[params]\nbatch_size = "big"\n')
    out = accelbench("run", str(bad))
    assert out.returncode == 2
    assert out.stderr == (f"accelbench: error: {bad}:3: params.batch_size: expected an integer"
                          " in [1, 65536], got 'big'\n")
    out = accelbench("run", "cpu-mnist", "--set", "epochs=many")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines()[0] == ("accelbench: error: --set params.epochs: expected an"
                                          " integer in [1, 1000], got 'many'")
    out = accelbench("run", "no-such-preset")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "accelbench: error: no-such-preset: no such preset file or preset name",
        "hint: run `accelbench presets` to list the presets"]


def test_missing_device_is_a_clear_error(home):
    out = accelbench("run", "cpu-mnist", "--set", "accelerator=cuda")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("accelbench: error: accelerator 'cuda' is not available here: ")


def test_unknown_run_is_a_clear_error(home):
    out = accelbench("show", "nope")
    assert out.returncode == 2 and out.stderr.startswith("accelbench: error: no run 'nope'")


def test_listings(home):
    out = accelbench("presets")
    assert out.returncode == 0 and "cpu-mnist-seed" in out.stdout and "cpu-bert" in out.stdout
    out = accelbench("accelerators")
    assert out.returncode == 0 and "available" in out.stdout and "not detected" in out.stdout


def test_command_run_json_runs_and_show(home):
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     "command=python3 -c \"import sys; print('hi'); sys.exit(4)\"", "--json")
    assert out.returncode == 1
    events = json_events(out.stdout)
    assert [e["text"] for e in events if e["type"] == "log"] == ["hi"]
    assert events[-1]["type"] == "finished" and events[-1]["status"] == "failed"
    assert events[-1]["summary"]["exit_code"] == 4
    run_id = events[0]["run_id"]
    listed = json.loads(accelbench("runs", "--format", "json").stdout)
    assert [(r["id"], r["status"]) for r in listed] == [(run_id, "failed")]
    shown = accelbench("show", run_id[-4:])
    assert shown.returncode == 0
    assert "job_failed" in shown.stdout and "exited with code 4" in shown.stdout
    assert accelbench("show", run_id, "--log").stdout == "hi\n"
    out = accelbench("cancel", run_id)
    assert out.returncode == 2 and "already ended (failed)" in out.stderr


def test_run_shows_its_live_display_on_a_terminal_then_the_summary(home):
    """Without --json, on a terminal: the live display is drawn as the job goes on (each new
    step, and its clock while it waits), then the summary table, exit 0."""
    job = ("import json, sys, time\n"
           "for step in range(1, 4):\n"
           "    print('@@accelbench ' + json.dumps({'type': 'progress', 't': time.time(),"
           " 'step': step, 'total': 3}), flush=True)\n"
           "    time.sleep(1.2)\n")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist",
                             "--set", "workload=command", "--set",
                             f"command=python3 -c {shlex.quote(job)}"],
                            stdin=slave, stdout=slave, stderr=slave, env=os.environ.copy(),
                            cwd=ROOT)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the program has ended: the pty is closed
            break
        if not data:
            break
        out += data
    os.close(master)
    assert proc.wait(60) == 0
    text = out.decode(errors="replace")
    for step in (1, 2, 3):
        assert f"{step}/3 steps" in text  # drawn while it ran, a step at a time
    assert "figure" in text and "first event to last" in text  # then the summary table
