"""Issue 22 class 1: what a job, a log or a tool prints never reaches the terminal raw.

Each CLI test runs accelbench on a pseudo-terminal and checks the BYTES it wrote there:
none of the job's sequences (OSC 52 clipboard, OSC 0 title, OSC 8 link, screen clear,
device-status query, DCS, the C1 CSI, NUL, bidi override) is among them; the only escapes
left are accelbench's own styles and cursor moves. The app's run view is checked by what
its widgets render. The attack strings are the issue's own.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import os
import pty
import re
import shlex
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.geometry import Region
from textual.widgets import DataTable

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.core.text import printable, printable_lines
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.chart import ChartScreen
from accelbench.tui.screens.run_view import RunView
from accelbench.tui.screens.runs import RunsScreen
from tests.helpers import ROOT, accelbench, wait_until

ATTACKS = {
    "OSC 52 (clipboard)": "\x1b]52;c;" + base64.b64encode(b"rm -rf ~").decode() + "\x07",
    "OSC 0 (title)": "\x1b]0;owned\x07",
    "OSC 8 (link)": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "CSI screen clear, cursor home": "\x1b[2J\x1b[H",
    "CSI device-status query": "\x1b[6n",
    "DCS": "\x1bP+q544e\x1b\\",
    "C1 CSI": "\x9b6n",
    "NUL": "\x00",
    "bidi override": "\u202egnp.exe",
}
HOSTILE = "".join(ATTACKS.values())

# accelbench's own: Rich's styles (m), cursor moves and erases of its live view (A-D, G, K),
# cursor shown/hidden (?25h/l); nothing else a terminal acts on may reach it
OWN_CSI = re.compile(rb"\x1b\[[0-9;]*[mABCDGK]|\x1b\[\?25[hl]")
ACTED_ON = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]"
                      rb"|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def acted_on(output: bytes) -> list[bytes]:
    """What in ``output`` a terminal would act on that accelbench does not write itself."""
    return ACTED_ON.findall(OWN_CSI.sub(b"", output))


def on_pty(*args: str, env: dict | None = None, timeout: float = 120) -> bytes:
    """``accelbench ARGS`` on a 200x50 pseudo-terminal: every byte it wrote there."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", *args],
                            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                            env={**os.environ, "TERM": "xterm-256color", **(env or {})})
    os.close(slave)
    out = bytearray()
    with contextlib.suppress(OSError):  # EIO: the program ended, the pty closed
        while data := os.read(master, 65536):
            out += data
    os.close(master)
    proc.wait(timeout)
    return bytes(out)


JOB = f'''\
import json, os, time
H = {HOSTILE!r}
def line(text, fd=1):  # one write a line: stdout's and stderr's never interleave in one
    os.write(fd, (text + "\\n").encode())
def event(**fields):
    line("@@accelbench " + json.dumps({{"t": time.time(), **fields}}))
event(type="phase", name="running", detail=H)
line("out " + H)
line("err " + H, 2)
event(type="metric", name="loss" + H, value=0.5, step=1)
event(type="diagnosis", code="X" + H, message="message " + H, hint="hint " + H)
time.sleep(1.5)
line("last " + H)
'''


def hostile_job(tmp_path: Path) -> list[str]:
    job = tmp_path / "job.py"
    job.write_text(JOB)
    return ["cpu-mnist", "--set", "workload=command",
            "--set", f"command={shlex.join([sys.executable, str(job)])}"]


@pytest.fixture
def hostile_run(home, tmp_path) -> str:
    """The id of a finished run whose job printed every attack (lines, metric, diagnosis)."""
    done = accelbench("run", *hostile_job(tmp_path), "--detach")
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.strip()
    assert accelbench("attach", run_id, "--json").returncode == 0  # (waits for its end)
    return run_id


def test_the_gate_shows_every_attack_without_a_control():
    for name, attack in ATTACKS.items():
        shown = printable("a " + attack + " b")
        assert shown.isprintable(), name
        assert printable(shown) == shown, name  # applied twice: nothing changes
    assert printable(ATTACKS["OSC 52 (clipboard)"]) == "\\x1b]52;c;cm0gLXJmIH4=\\x07"
    assert printable("\x1b[31mred\x1b[0m \x9b6n|") == "red |"  # CSI: dropped whole
    assert printable("a\tb\nc\rd\x7f\u2066") == "a\tb\\nc\\rd\\x7f\\u2066"
    assert printable_lines("a\nb\x07") == "a\nb\\x07"
    assert printable("a lone \udc9b surrogate") == "a lone \\udc9b surrogate"
    plain = "step 10/100 | loss: 1.234E+00 | 12,345 tokens/s · ünïcode ★"
    assert printable(plain) is plain  # nothing to change: the same object back


def test_run_live_view_writes_no_job_control_to_the_terminal(home, tmp_path):
    out = on_pty("run", *hostile_job(tmp_path))
    assert b"last " in out and b"message " in out  # the lines and the diagnosis were drawn
    assert b"\\x1b]52;c;cm0gLXJmIH4=\\x07" in out  # the clipboard write, shown as text
    assert acted_on(out) == []


def test_show_writes_no_job_control_to_the_terminal(hostile_run):
    out = on_pty("show", hostile_run)
    for shown in (b"loss\\x1b]52", b"X\\x1b]52", b"message ", b"last \\x1b]52"):
        assert shown in out, out.decode()  # the metric name, the diagnosis, the log line
    assert acted_on(out) == []


def test_attach_writes_no_job_control_to_the_terminal(hostile_run):
    out = on_pty("attach", hostile_run)
    assert b"last \\x1b]52" in out
    assert acted_on(out) == []


def test_show_log_still_copies_the_bytes_as_cat_does(hostile_run):
    out = accelbench("show", hostile_run, "--log")
    assert "out " + HOSTILE in out.stdout  # raw: the one place that is expected
    assert "byte for byte" in accelbench("show", "--help").stdout


def test_parse_writes_no_control_of_a_section_title_or_a_file_name(tmp_path):
    log = tmp_path / f"log{ATTACKS['OSC 0 (title)']}.txt"
    log.write_text(f"# notes\n## first {HOSTILE}\n```\nloss: 0.5\n```\n"
                   f"## second {HOSTILE}\n```\nloss: 0.25\n```\n")  # (markdown: sections)
    out = on_pty("parse", str(log))
    assert b"first \\x1b]52" in out and b"second " in out and b"log\\x1b]0;owned" in out
    assert out.count(b"\\x1b]52;c;cm0gLXJmIH4=\\x07") == 2  # each title, shown as text
    assert acted_on(out) == []
    assert acted_on(on_pty("parse", str(log), "--json")) == []  # (JSON escapes them)


def fake_nvidia_smi(bin_dir: Path, name: str) -> None:
    """An ``nvidia-smi`` that answers as the recorded H100 (tests/standins/top) with the
    GPU's name ``name``."""
    bin_dir.mkdir()
    tool = bin_dir / "nvidia-smi"
    tool.write_text(f'''#!{sys.executable}
import sys
sys.path.insert(0, {str(ROOT / "tests" / "standins" / "top")!r})
from _recorded import body
query = next((a for a in sys.argv[1:] if a.startswith("--query-")), "")
if query.startswith("--query-gpu="):
    print(body("cuda", "query_gpu_h100_load.csv").replace("NVIDIA H100 80GB HBM3", {name!r}),
          end="")
elif query.startswith("--query-compute-apps="):
    print(", ".join(query.partition("=")[2].split(",")))
''')
    tool.chmod(0o755)


def test_top_writes_no_control_of_a_gpu_name(home, tmp_path):
    fake_nvidia_smi(tmp_path / "bin", HOSTILE)
    out = on_pty("top", "--once", env={
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT / "tests" / "standins" / "no_nvml")})
    assert b"gpu0" in out and b"\\x1b]52" in out  # the GPU's row, its name shown as text
    assert acted_on(out) == []


def controls_rendered(app) -> list[str]:
    """The control characters in what the screen's widgets render now."""
    found = []
    for widget in app.screen.query("*"):
        if not widget.display or not widget.size.area:
            continue
        for strip in widget.render_lines(Region(0, 0, *widget.size)):
            found += [t for t, _, control in strip if not control and printable(t) != t]
    return found


async def test_app_run_view_renders_no_control(runner, tmp_path):
    job = tmp_path / "job.py"
    job.write_text(JOB)
    spec = spec_from_dict({"name": "hostile", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": shlex.join([sys.executable, str(job)])}})
    app = AccelbenchApp(runner, spec, start=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunView))
        view = app.screen
        await wait_until(pilot, lambda: any(line.startswith("last ")
                                            for line in view.query_one("#log").lines))
        await wait_until(pilot, lambda: view.follower.state.finished is not None)
        await pilot.pause(1.2)  # the banner, diagnosis and metrics drawn once more
        lines = view.query_one("#log").lines
        assert "out \\x1b]52;c;cm0gLXJmIH4=\\x07" in lines[0] + "".join(lines)
        assert controls_rendered(app) == []
        view.action_chart()  # the metric's chart: its name in the rule and the legend
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen))
        await pilot.pause(0.5)
        assert controls_rendered(app) == []
        await pilot.press("f3")  # the runs screen: the run's row
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen)
                         and app.screen.query_one(DataTable).row_count == 1)
        await pilot.pause(0.3)
        assert controls_rendered(app) == []


CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_through_the_gate(data):
    text = data.decode("utf-8", errors="surrogateescape")  # (a file name's undecodable bytes)
    for gated in (printable(text), printable_lines(text).replace("\n", "")):
        assert not CONTROL.search(gated)
        assert printable(gated) == gated
        gated.encode("utf-8")  # a terminal's encoding can write it


LINES = st.lists(st.one_of(st.binary(max_size=80),
                           st.sampled_from([a.encode() for a in ATTACKS.values()])),
                 max_size=12).map(b"\n".join)


@settings(FUZZ, max_examples=40)
@given(LINES)
def test_random_bytes_through_parse_and_show(tmp_path, monkeypatch, capsys, data):
    """A log of random bytes (attacks among them) parsed, and a run whose output they are
    shown: nothing raises, nothing a terminal acts on is printed."""
    from accelbench.cli.main import main
    from accelbench.engine.rundir.files import OUTPUT_FILE
    from accelbench.engine.store.runs import Store

    monkeypatch.setenv("ACCELBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACCELBENCH_CONFIG", str(tmp_path / "config"))
    monkeypatch.setenv("COLUMNS", "120")
    log = tmp_path / "random.log"
    log.write_bytes(data)
    assert main(["parse", str(log)]) == 0
    store = Store(tmp_path / "home")
    info = store.create(spec_from_dict({"name": "random", "workload": "command",
                                        "params": {"command": "true"}}))
    info.path(OUTPUT_FILE).write_bytes(data)
    store.record_end(info.id, "done", RunSummary(), time.time())
    assert main(["show", info.id]) == 0
    out, err = capsys.readouterr()
    assert not CONTROL.search(out.replace("\n", "") + err.replace("\n", ""))


def test_accelerators_writes_no_control_of_a_plugins_detection(home, tmp_path):
    from tests.plugins.test_plugin_system import SYSTEM_MODULE, broken, distribution

    module = broken(SYSTEM_MODULE, 'detail="an example board"', f"detail={HOSTILE!r}")
    root = distribution(tmp_path / "site-packages", module)
    out = on_pty("accelerators", env={"PYTHONPATH": str(root)})
    assert b"example" in out and b"\\x1b]52;c;cm0gLXJmIH4=\\x07" in out
    assert acted_on(out) == []
