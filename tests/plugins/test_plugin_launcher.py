"""A launcher from outside the tree: one module, one preset, these tests.

The plug-in is a temporary distribution (a module and its ``.dist-info`` with an
``accelbench.launchers`` entry point) found through ``PYTHONPATH``, as a pip-installed
package would be. Its launcher starts the wrapper through ``relay``, a stand-in job
runner of the tmp dir (like ``nohup``: it notes its options, hands the job an id and
runs it), declares its own ``[relay]`` option table, and is driven through the CLI,
``cancel`` and the launch screen.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
import tomli_w

from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.errors import UserError
from accelbench.engine.plugin.launcher import get_launcher, launchers
from accelbench.engine.rundir.files import OUTPUT_FILE, WRAPPER_FILE, read_json
from accelbench.engine.store.runs import Store
from tests.helpers import accelbench, json_events

MODULE = '''
"""relay: a stand-in site's job runner, as an accelbench launcher."""

import os
import signal
import subprocess
from pathlib import Path

import psutil

from accelbench.api import (
    Launcher,
    Param,
    UserError,
    cancel_run,
    process_alive,
    read_json,
    wrapper_command,
    write_json,
)

RUNNER = Path(__file__).with_name("relay")


class Relay(Launcher):
    name = "relay"
    title = "the relay job runner"
    table = "relay"
    options = {p.name: p for p in (
        Param("priority", int, 0, "the job's priority", min=0, max=19),
        Param("tag", str, "", "a tag for the job", line=True),
    )}
    job_id_env = "RELAY_JOB_ID"

    def check(self, options):
        if options.get("tag", "").startswith("-"):
            raise UserError(f"relay.tag={options['tag']!r}: a tag cannot start with '-'")

    def args(self, spec):
        options = self.settings(spec)
        return [f"--priority={options.get('priority', 0)}", f"--tag={options.get('tag', '')}"]

    def describe(self, spec):
        return " ".join([self.name, *self.args(spec)])

    def start(self, run, spec):
        with open(run.path("relay.log"), "ab") as log:
            proc = subprocess.Popen([str(RUNNER), *self.args(spec), *wrapper_command(run.dir)],
                                    cwd=run.dir, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        write_json(run.path("relay.json"), {"pid": proc.pid,
                                            "started": psutil.Process(proc.pid).create_time()})

    def poll(self, run):
        job = read_json(run.path("relay.json"))
        if job is None:
            return "queued"
        return "running" if process_alive(job["pid"], job["started"]) else "lost"

    def cancel(self, run, grace=10.0):
        cancel_run(run, lambda: self.stop(run), self.poll, grace, every=0.05)

    def stop(self, run):
        job = read_json(run.path("relay.json"))
        if job is not None and process_alive(job["pid"], job["started"]):
            os.kill(job["pid"], signal.SIGTERM)  # the wrapper stops the job and records it


LAUNCHER = Relay()
'''

RUNNER = '''#!/bin/sh
# relay: notes its options, hands the job an id, runs it in its place
echo "$1 $2" > relay.args
RELAY_JOB_ID="relay-$$"
export RELAY_JOB_ID
shift 2
exec "$@"
'''


def make_dist(root: Path, entry_points: str, module: str = MODULE) -> Path:
    """A distribution ``ab-relay`` 0.1 in ``root``: its module, ``relay`` and metadata."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "ab_relay.py").write_text(module)
    runner = root / "relay"
    runner.write_text(RUNNER)
    runner.chmod(0o755)
    info = root / "ab_relay-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ab-relay\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[accelbench.launchers]\n{entry_points}\n")
    return root


def write_preset(path: Path, code: str, **relay) -> Path:
    path.write_text(tomli_w.dumps({
        "name": "relayed", "workload": "command", "launcher": "relay", "telemetry_interval": 0,
        "params": {"command": shlex.join([sys.executable, "-c", code])}, "relay": relay}))
    return path


@pytest.fixture
def plugin(tmp_path, monkeypatch, home):
    """The relay plug-in on PYTHONPATH (for the CLI) and sys.path (for this process)."""
    root = make_dist(tmp_path / "plugin", "relay = ab_relay:LAUNCHER")
    monkeypatch.setenv("PYTHONPATH", str(root))
    monkeypatch.syspath_prepend(str(root))
    launchers.cache_clear()
    yield root
    sys.modules.pop("ab_relay", None)
    launchers.cache_clear()


def test_a_plugin_launcher_runs_a_preset_to_done_through_its_runner(plugin, tmp_path):
    preset = write_preset(tmp_path / "relayed.toml", "print('relayed hello')",
                          priority=5, tag="nightly")
    out = accelbench("run", str(preset), "--json")
    assert out.returncode == 0, out.stderr
    events = json_events(out.stdout)
    assert [e["text"] for e in events if e["type"] == "log"] == ["relayed hello"]
    assert events[-1]["type"] == "finished" and events[-1]["status"] == "done"
    info = Store().get(events[0]["run_id"])
    run_dir = info.dir
    assert (run_dir / "relay.args").read_text() == "--priority=5 --tag=nightly\n"
    wrapper = read_json(run_dir / WRAPPER_FILE)
    assert wrapper["job_id"] == f"relay-{wrapper['pid']}"  # the runner's id reached the job
    assert info.launcher == "relay"


def test_a_plugin_launcher_cancels_its_run(plugin, tmp_path):
    preset = write_preset(tmp_path / "long.toml",
                          "import time; print('up', flush=True); time.sleep(120)")
    out = accelbench("run", str(preset), "--detach")
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.strip()
    output = Store().get(run_id).path(OUTPUT_FILE)
    deadline = time.monotonic() + 60
    while "up" not in (output.read_text() if output.exists() else ""):
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.1)
    out = accelbench("cancel", run_id)
    assert out.returncode == 0, out.stderr
    listed = json.loads(accelbench("runs", "--format", "json").stdout)
    assert [(r["id"], r["status"]) for r in listed] == [(run_id, "cancelled")]


def test_the_launch_screen_shows_the_plugins_door(plugin, tmp_path):
    spec = load_preset(write_preset(tmp_path / "relayed.toml", "print(1)", priority=3, tag="x"))
    assert get_launcher("relay").describe(spec) == "relay --priority=3 --tag=x"
    assert spec.to_dict()["relay"] == {"priority": 3, "tag": "x"}  # the preset's own layout


async def test_the_launch_screen_pilot_shows_the_plugins_door(plugin, tmp_path, runner):
    from accelbench.tui.app import AccelbenchApp
    from accelbench.tui.screens.launch import LaunchScreen

    spec = load_preset(write_preset(tmp_path / "relayed.toml", "print(1)", priority=7))
    app = AccelbenchApp(runner, spec)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = next(s for s in app.screen_stack if isinstance(s, LaunchScreen))
        assert "launcher: relay --priority=7 --tag=" in str(
            screen.query_one("#workload-help").content)


def one_line_error(*args: str) -> str:
    out = accelbench(*args)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    return out.stderr.splitlines()[0]


def test_a_bad_value_in_the_plugins_table_names_file_and_key(plugin, tmp_path):
    preset = write_preset(tmp_path / "bad.toml", "print(1)", priority="high")
    line = preset.read_text().splitlines().index('priority = "high"') + 1
    assert one_line_error("run", str(preset)) == (
        f"accelbench: error: {preset}:{line}: relay.priority: expected an integer in [0, 19],"
        " got 'high'")
    good = write_preset(tmp_path / "good.toml", "print(1)")
    assert one_line_error("run", str(good), "--set", "relay.priority=20") == (
        "accelbench: error: --set relay.priority: expected an integer in [0, 19], got 20")
    assert one_line_error("run", str(good), "--set", "relay.colour=red").startswith(
        "accelbench: error: --set relay.colour: unknown relay setting 'colour'")
    assert one_line_error("run", str(good), "--set", "relay.tag=-x") == (
        f"accelbench: error: {good}: relay.tag='-x': a tag cannot start with '-'")


def test_a_plugins_table_is_checked_whatever_the_launcher(plugin, tmp_path):
    preset = write_preset(tmp_path / "bad.toml", "print(1)", tag="-x")
    text = preset.read_text().replace('launcher = "relay"', 'launcher = "local"')
    preset.write_text(text)
    message = "relay.tag='-x': a tag cannot start with '-'"
    with pytest.raises(UserError, match=re.escape(message)):
        load_preset(preset)


def test_a_plugin_that_does_not_load_is_one_line_naming_it(tmp_path, monkeypatch, home):
    root = make_dist(tmp_path / "broken", "relay = ab_relay:NO_SUCH_LAUNCHER")
    monkeypatch.setenv("PYTHONPATH", str(root))
    monkeypatch.setenv("COLUMNS", "300")
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set", "command=true")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr  # left out: the
    assert out.stderr.splitlines() == [(  # local launcher runs it (was: nothing ran, exit 2)
        "accelbench: accelbench.launchers entry point 'relay' = 'ab_relay:NO_SUCH_LAUNCHER'"
        " of ab-relay 0.1: cannot load: AttributeError: module 'ab_relay' has no attribute"
        " 'NO_SUCH_LAUNCHER' (left out)")]


OTHER = """
class Other(Relay):
    name = "other"
    table = "slurm"  # Slurm's table, with other keys


OTHER = Other()
"""


@pytest.mark.parametrize("module, entry_points, message", [
    (MODULE.replace('table = "relay"', 'table = "env"'), "relay = ab_relay:LAUNCHER",
     "launcher 'relay': its option table [env] takes the name of a preset's own key"),
    (MODULE + OTHER, "other = ab_relay:OTHER",
     ("accelbench.launchers: launchers 'slurm' and 'other' declare different keys for the"
      " [slurm] table")),
])
def test_a_plugins_table_may_not_take_a_name_in_use(tmp_path, monkeypatch, home, module,
                                                    entry_points, message):
    root = make_dist(tmp_path / "clash", entry_points, module)
    monkeypatch.setenv("PYTHONPATH", str(root))
    assert one_line_error("run", "cpu-mnist") == f"accelbench: error: {message}"
