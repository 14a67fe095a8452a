"""Every command the README shows runs, as the README writes it (issue 24).

Each line of the README's ``bash`` blocks is run in README order with the installed
``accelbench`` first on PATH, in a private store and a scratch directory (the checkout's
``tests`` folder linked there, so the sample logs the README reads are found by the same
paths), through ``bash -o pipefail``: each must exit 0 and print no traceback. Left out:

- the two set-up blocks (``<!-- main-command -->``, ``<!-- test-command -->``): CI runs
  the test command itself (``.ci/run``), and the main one opens the app;
- a block right after ``<!-- not-run: WHY -->``: it needs what a test machine lacks (an
  accelerator, a Slurm cluster); each such block is listed, with its reason, as a skip.

A six-hex-digit word in a command (``5e2b1a``) stands for a run, as the README says: the
n-th such word, in the order the README first shows them, is the end of the id of the n-th
run the README's own commands started.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers import ROOT

README = ROOT / "README.md"
SET_UP_MARKERS = ("<!-- main-command -->", "<!-- test-command -->")
NOT_RUN = re.compile(r"^<!-- not-run: (.+?) -->$")
BLOCK_START = re.compile(r"^```(?:bash|sh|shell)$")
RUN_WORD = re.compile(r"(?<![\w./=-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{6}(?![\w./-])")

@dataclass(frozen=True)
class Command:
    line: int  # its line in the README
    text: str


@dataclass(frozen=True)
class Skipped:
    line: int  # the block's first line in the README
    why: str
    commands: tuple[str, ...]


def readme_commands(text: str) -> tuple[list[Command], list[Skipped]]:
    """The commands of ``text``'s shell blocks, in order, and the blocks marked not-run."""
    commands: list[Command] = []
    skipped: list[Skipped] = []
    lines = text.splitlines()
    before = ""  # the last line with text before the block
    i = 0
    while i < len(lines):
        if not BLOCK_START.match(lines[i]):
            before = lines[i].strip() or before
            i += 1
            continue
        start, i = i + 1, i + 1
        block: list[Command] = []
        while lines[i] != "```":
            line, first = lines[i], i + 1
            while line.endswith("\\"):  # a command continued on the next line
                i += 1
                line = line[:-1] + lines[i]
            if line.strip() and not line.lstrip().startswith("#"):
                block.append(Command(first, line.strip()))
            i += 1
        i += 1
        if before in SET_UP_MARKERS:
            continue
        if m := NOT_RUN.match(before):
            skipped.append(Skipped(start, m[1], tuple(c.text for c in block)))
        else:
            commands.extend(block)
        before = ""
    return commands, skipped


COMMANDS, SKIPPED = readme_commands(README.read_text(encoding="utf-8"))


@dataclass
class Session:
    """The store, directory and environment the README's commands share, and the runs
    they started, in order."""

    home: Path
    work: Path
    env: dict[str, str]
    started: list[str] = field(default_factory=list)  # run ids, in the order they appeared
    words: dict[str, str] = field(default_factory=dict)  # README's word -> the real id's end

    def run_ids(self) -> list[str]:
        runs = self.home / "runs"
        return sorted(p.name for p in runs.iterdir()) if runs.is_dir() else []

    def substitute(self, command: str) -> str:
        """``command`` with each run word replaced by the end of the run it stands for."""
        for word in RUN_WORD.findall(command):
            if word not in self.words:
                n = len(self.words)
                assert n < len(self.started), (
                    f"{word!r} would be run {n + 1} the README's commands started, but they "
                    f"started {len(self.started)}")
                self.words[word] = self.started[n][-6:]
        return RUN_WORD.sub(lambda m: self.words[m[0]], command)


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Session:
    root = tmp_path_factory.mktemp("readme")
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "accelbench").exists(), f"accelbench is not installed in {bin_dir}"
    work = root / "work"
    work.mkdir()
    (work / "tests").symlink_to(ROOT / "tests")
    env = {**os.environ, "ACCELBENCH_HOME": str(root / "home"),
           "ACCELBENCH_CONFIG": str(root / "config"), "COLUMNS": "100",
           "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", os.defpath)])}
    env.pop("VIRTUAL_ENV", None)
    session = Session(root / "home", work, env)
    yield session
    for run_id in session.run_ids():  # a run a failed command left live is stopped
        exit_file = session.home / "runs" / run_id / "exit.json"
        if not exit_file.exists() or '"pending"' in exit_file.read_text():
            subprocess.run(["accelbench", "cancel", run_id], cwd=work, env=env, timeout=60,
                           capture_output=True, check=False)


def test_the_readme_has_commands_and_few_not_run():
    """The extraction finds the README's commands (a broken one would pass nothing), the
    set-up lines are not among them, and the not-run blocks stay few."""
    texts = [c.text for c in COMMANDS]
    assert len(texts) >= 25, texts
    assert not any(".venv/bin/pip install" in t for t in texts)
    assert {"accelbench presets", "accelbench accelerators", "accelbench doctor --dry-run"} <= set(
        texts)
    assert len(SKIPPED) <= 3, SKIPPED


def _case(command: Command):
    return pytest.param(command, id=f"L{command.line}: {command.text[:60]}")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("command", [_case(c) for c in COMMANDS])
def test_readme_command_runs(session: Session, command: Command):
    if "| jq" in command.text and shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    text = session.substitute(command.text)
    before = set(session.run_ids())
    done = subprocess.run(["bash", "-o", "pipefail", "-c", text], cwd=session.work,
                          env=session.env, capture_output=True, text=True, timeout=170,
                          check=False)
    session.started += [r for r in session.run_ids() if r not in before]
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in out, (
        f"README line {command.line}: {text}\nexit {done.returncode}\n{out[-3000:]}")


@pytest.mark.parametrize("block", [pytest.param(b, id=f"L{b.line}") for b in SKIPPED])
def test_readme_block_not_run(block: Skipped):
    """Listed so the report shows what the README shows but no test machine can run."""
    pytest.skip(f"README line {block.line} ({'; '.join(block.commands)}): {block.why}")
