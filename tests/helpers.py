"""Helpers that several test modules share (fixtures shared the same way are in conftest.py;
the real logs' helpers in real_logs.py, the recorded store in recorded_store.py)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import time
import types
from pathlib import Path
from types import SimpleNamespace

from textual.css.query import NoMatches

from accelbench.engine.config.spec import spec_from_dict
from accelbench.tui.screens.launch import LaunchScreen

ROOT = Path(__file__).resolve().parent.parent  # the checkout
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SYSTEMS = ROOT / "engine" / "systems"  # the built-in systems' packages

SIZES = [(80, 24), (160, 48)]  # the terminal sizes the app's snapshots are taken at

SPEC = spec_from_dict({"name": "t", "workload": "command", "params": {"command": "true"}})
EMIT = ("python3 -c \"print('@@accelbench {\\\"type\\\":\\\"metric\\\",\\\"t\\\":1,"
        "\\\"name\\\":\\\"accuracy\\\",\\\"value\\\":91.5}'); import sys; sys.exit({code})\"")


def command_spec(code: str, **top):
    """A run of ``python -c code`` (telemetry every 0.2 s; ``top``: more spec keys)."""
    command = shlex.join([sys.executable, "-c", code])
    return spec_from_dict({"name": "cmd", "workload": "command", "params": {"command": command},
                           "telemetry_interval": 0.2, **top})


def follow(handle):
    """Every event of a started run, until it ends."""
    async def collect():
        return [e async for e in handle.events(poll=0.05)]
    return asyncio.run(collect())


def wait_for(predicate, timeout=20.0):
    """Whether ``predicate()`` held within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def real_runs(codes=(0, 3)):
    """Finished runs made by the CLI (a job that prints a metric, then exits with each
    code); returns ``accelbench runs --format json`` after them."""
    for code in codes:
        out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                         "command=" + EMIT.replace("{code}", str(code)), "--json")
        assert out.returncode == (0 if code == 0 else 1), out.stderr
    return listing()


def listing():
    """``accelbench runs --format json``, parsed."""
    out = accelbench("runs", "--format", "json")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return json.loads(out.stdout)


def parse_markdown(text):
    """The rows of a markdown table, each a dict by the header's names."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()]
    head, body = rows[0], rows[2:]
    return [dict(zip(head, row, strict=True)) for row in body]


async def wait_until(pilot, predicate, timeout=60.0, step=0.1):
    """Wait until ``predicate()`` holds with the app's current screen composed (a screen just
    pushed has no widgets until its compose ran; a query on it meanwhile counts as not yet)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate() and pilot.app.screen.is_mounted:
                return
        except NoMatches:
            pass
        await pilot.pause(step)
    raise AssertionError("timed out")


def launch(app) -> LaunchScreen:
    """The app's launch screen."""
    return next(s for s in app.screen_stack if isinstance(s, LaunchScreen))


MIB = 1024 * 1024


class NVMLError(Exception):
    """The stand-in pynvml's error."""


def fake_pynvml(power: bool = True) -> types.ModuleType:
    """One H100-like GPU; without ``power`` its power reading is not supported."""
    m = types.ModuleType("pynvml")
    m.NVMLError = NVMLError
    m.NVML_TEMPERATURE_GPU, m.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, m.NVML_CLOCK_SM = 0, 1, 1
    m.nvmlInit = m.nvmlShutdown = lambda: None
    m.nvmlDeviceGetCount = lambda: 1
    m.nvmlDeviceGetHandleByIndex = lambda i: f"h{i}"
    m.nvmlDeviceGetUtilizationRates = lambda h: SimpleNamespace(gpu=97, memory=40)
    m.nvmlDeviceGetMemoryInfo = lambda h: SimpleNamespace(used=20480 * MIB, total=81920 * MIB)

    def usage(h):
        if not power:
            raise NVMLError("Not Supported")
        return 350_000  # mW

    m.nvmlDeviceGetPowerUsage = usage
    m.nvmlDeviceGetEnforcedPowerLimit = lambda h: 700_000
    m.nvmlDeviceGetTemperature = lambda h, sensor: 62
    m.nvmlDeviceGetTemperatureThreshold = lambda h, kind: 90
    m.nvmlDeviceGetClockInfo = lambda h, clock: 1980
    m.nvmlDeviceGetMaxClockInfo = lambda h, clock: 1980
    return m


def accelbench(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run the ``accelbench`` CLI in a subprocess (environment from the test's)."""
    return subprocess.run([sys.executable, "-m", "accelbench.cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=os.environ.copy(), check=False,
                          **kwargs)


def heading_sections(text: str, heading: re.Pattern[str]) -> dict[str, str]:
    """The text under each markdown heading that ``heading`` matches, by heading title."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for line in text.splitlines():
        if m := heading.match(line):
            current = m[1]
            out[current] = []
        else:
            out[current].append(line)
    return {title: "\n".join(lines) for title, lines in out.items()}


def json_events(stdout: str) -> list[dict]:
    """The events printed by ``--json``, one per line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]
