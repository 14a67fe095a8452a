"""The test suite is safe anywhere: its Slurm cluster is private, and opt-in."""

import os
import shutil
import subprocess
import sys

from tests.conftest import SLURM_SKIP_REASON, SLURM_TESTS_VAR
from tests.helpers import ROOT
from tests.slurm.cluster import PrivateCluster

ONE_SLURM_TEST = ("tests/slurm/test_slurm.py::"
                  "test_preflight_refuses_what_slurm_would")


def pytest_in_a_subprocess(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != SLURM_TESTS_VAR}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           *args], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**environ, **env}, check=False)


def test_every_file_and_port_of_the_cluster_is_its_own(tmp_path):
    cluster = PrivateCluster(tmp_path)
    for sub in ("etc", "munge"):
        (tmp_path / sub).mkdir()
    cluster._write_config()
    conf = dict(line.split("=", 1) for line in cluster.conf.read_text().splitlines()
                if not line.startswith(("NodeName", "PartitionName")))
    paths = [value.removeprefix("socket=") for value in conf.values()
             if value.startswith(("/", "socket=/")) and value != "/bin/true"]
    assert len(paths) == 7 and all(path.startswith(f"{tmp_path}/") for path in paths)
    assert conf["AuthInfo"] == f"socket={tmp_path}/munge/munge.socket"
    assert {conf["SlurmctldPort"], conf["SlurmdPort"]}.isdisjoint({"6817", "6818"})
    assert conf["ClusterName"] == f"abtest{os.getpid()}"
    assert (tmp_path / "etc" / "gres.conf").read_text() == (
        "NodeName=localhost Name=rdu Count=8\nNodeName=localhost Name=ipu Count=4\n")


def test_a_test_not_marked_slurm_reaches_no_cluster():
    sinfo = shutil.which("sinfo")
    assert sinfo is not None and "accelbench-no-slurm-" in sinfo
    out = subprocess.run([sinfo, "-h", "-o", "%G"], capture_output=True, text=True, check=False)
    assert out.returncode == 1 and out.stdout == ""
    assert "no Slurm cluster in this test" in out.stderr


def test_slurm_tests_are_skipped_with_the_reason_unless_asked_for():
    out = pytest_in_a_subprocess(ONE_SLURM_TEST)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 skipped" in out.stdout and SLURM_SKIP_REASON in out.stdout


def asked_for_with(tmp_path, plugin: str) -> subprocess.CompletedProcess:
    """ONE_SLURM_TEST run with ACCELBENCH_SLURM_TESTS=1 and ``plugin`` loaded first."""
    (tmp_path / "pretend.py").write_text(plugin)
    return pytest_in_a_subprocess("-p", "pretend", ONE_SLURM_TEST,
                                  PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}",
                                  **{SLURM_TESTS_VAR: "1"})


def test_asked_for_without_slurm_installed_fails_and_says_so(tmp_path):
    out = asked_for_with(tmp_path, "import tests.slurm.cluster as cluster\n"
                                   "cluster.missing_tools = lambda: ['slurmctld', 'munged']\n")
    assert out.returncode == 1, out.stdout + out.stderr
    assert (f"{SLURM_TESTS_VAR}=1 but slurmctld, munged not installed: install Debian's "
            "slurmctld slurmd slurm-client munge (.ci/run does)") in out.stdout
    assert "1 error" in out.stdout


def test_asked_for_as_a_user_fails_and_says_so(tmp_path):
    out = asked_for_with(tmp_path, "import os\nimport tests.slurm.cluster as cluster\n"
                                   "cluster.missing_tools = lambda: []\n"
                                   "os.geteuid = lambda: 1000\n")
    assert out.returncode == 1, out.stdout + out.stderr
    assert (f"{SLURM_TESTS_VAR}=1 but not root: the private cluster's daemons run as root "
            "(SlurmUser=root)") in out.stdout
    assert "1 error" in out.stdout
