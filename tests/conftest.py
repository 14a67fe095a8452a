"""Shared fixtures: a private accelbench home per test, and a CLI runner."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """An empty ACCELBENCH_HOME (and config dir) for this test only."""
    home = tmp_path / "home"
    monkeypatch.setenv("ACCELBENCH_HOME", str(home))
    monkeypatch.setenv("ACCELBENCH_CONFIG", str(tmp_path / "config"))
    return home


@pytest.fixture
def store(home):
    from engine.store import Store

    return Store(home)


@pytest.fixture
def runner(store):
    from engine.runner import Runner

    return Runner(store)


def accelbench(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run the ``accelbench`` CLI in a subprocess (environment from the test's)."""
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=os.environ.copy(), **kwargs)


def heading_sections(text: str, heading: "re.Pattern[str]") -> dict[str, str]:
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


CLUSTER = ROOT / "tests" / "slurm" / "start-cluster.sh"


@pytest.fixture(scope="session")
def cluster():
    """A running one-node cluster (GRES rdu:8, ipu:4), started if need be (needs root)."""
    if os.geteuid() != 0 and shutil.which("sinfo") is None:
        pytest.skip("Slurm is not installed and only root can install it here")
    out = subprocess.run(["bash", str(CLUSTER)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        pytest.fail(f"could not start the test cluster: {out.stderr[-2000:]}")
