"""The package installs under the accelbench namespace and nowhere else."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

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


CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of its CPU builds
NVML = "nvidia-ml-py"  # NVIDIA's NVML binding (pure Python, no CUDA): accelbench's own


def readme_command(marker: str) -> str:
    """The one-line command under ``<!-- marker -->`` in the README (as .ci/run reads it)."""
    after = (ROOT / "README.md").read_text(encoding="utf-8").split(f"<!-- {marker} -->\n", 1)[1]
    return after.split("```bash\n", 1)[1].split("\n", 1)[0]


def test_the_ml_extra_pins_torch_and_the_readme_installs_its_cpu_build_first():
    """PyPI's torch for Linux x86_64 is the CUDA build (several GB of nvidia-* wheels): both
    set-up commands install the pinned version's CPU build alone from PyTorch's CPU index,
    then accelbench (its pin satisfied), naming no other index for anything else."""
    import tomllib

    ml = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["ml"]
    [torch] = [r for r in ml if r.startswith("torch")]
    assert re.fullmatch(r"torch==\d+\.\d+\.\d+", torch), torch
    for marker, extra in (("main-command", ".[ml]"), ("test-command", ".[ml,test]")):
        steps = readme_command(marker).split(" && ")
        assert steps[:3] == ["python3 -m venv .venv",
                             f".venv/bin/pip install --no-deps --index-url {CPU_INDEX} {torch}",
                             f'.venv/bin/pip install -e "{extra}"'], marker
        assert not any("index-url" in step or "find-links" in step for step in steps[2:])


def test_the_installed_environment_holds_no_cuda_package():
    """What the test command installed (this environment): torch's CPU build, and not one
    CUDA distribution (nvidia-* wheels, cuda-*, triton); NVML's binding is accelbench's own."""
    from importlib import metadata

    names = {re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
             for dist in metadata.distributions()}
    cuda = sorted(name for name in names if (name.startswith(("nvidia-", "cuda-"))
                  and name != NVML) or name == "triton")
    assert cuda == []
    assert metadata.version("torch").endswith("+cpu")
    ours = [r for r in metadata.requires("accelbench") or [] if "extra ==" not in r]
    assert [r for r in ours if r.startswith("nvidia")] == [f"{NVML}>=12.0"]
