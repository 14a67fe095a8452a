"""The package installs under the accelbench namespace and nowhere else."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

TOP = ("engine", "tui", "cli", "presets", "api")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the project's sources (the tree itself stays clean)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "tests", "docs", "bench"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                          "--no-build-isolation", "-w", str(tmp / "dist"), str(source)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    return zipfile.ZipFile(next((tmp / "dist").glob("accelbench-*.whl")))


def test_nothing_installs_at_the_top_level(wheel):
    tops = {Path(name).parts[0] for name in wheel.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"accelbench"}


def test_every_module_and_preset_of_the_tree_is_in_the_wheel(wheel):
    names = set(wheel.namelist())
    for top in TOP:
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                assert f"accelbench/{path.relative_to(ROOT)}" in names, path


def test_the_entry_script_and_registries_point_into_the_namespace(wheel):
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt"))
    text = wheel.read(info).decode()
    assert "accelbench = accelbench.cli.main:main" in text
    targets = [line.partition("=")[2].strip() for line in text.splitlines() if "=" in line]
    assert targets and all(t.startswith("accelbench.") for t in targets), targets
