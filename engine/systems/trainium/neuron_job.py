"""A Trainium job with its Neuron SDK extras: ``python neuron_job.py [OPTIONS] -- ARGV...``.

Standalone (standard library only), under the Neuron virtualenv's Python. In order:

* ``--precompile NPC``: ``NPC ARGV...`` first. ``neuron_parallel_compile`` runs the job
  to trace its XLA graphs and compiles them in parallel into the Neuron cache; shown as
  the compiling phase. The job does not start if it fails.
* ``ARGV``: the job itself; its exit status is this program's.
* ``--profile DIR``: after a job that succeeded, the device profile the Neuron runtime
  captured into DIR (``NEURON_RT_INSPECT_*``, set by the recipe) is summarised with
  ``neuron-profile view --output-format summary-text``: the largest NEFF (the training
  step's graph) with its trace on the first NeuronCore that ran it. The summary goes to
  stdout, where the ``neuron_profile`` dialect reads it.

A SIGTERM reaches the job through its process group; this program then starts nothing more.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

# the generic workloads' scripts (emit.py, mnist_cnn.py) are in engine/workloads:
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workloads"))

from emit import StopFlag, emit, fail

STOPPED = 128 + signal.SIGTERM


def parse_args() -> argparse.Namespace:
    """The command line: the extras, then ``--`` and the job's argv."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--precompile", metavar="NEURON_PARALLEL_COMPILE", default="",
                   help="run the job under this neuron_parallel_compile first")
    p.add_argument("--profile", metavar="DIR", default="",
                   help="summarise the device profile captured into DIR after the job")
    p.add_argument("--neuron-profile", default="neuron-profile", help="the neuron-profile tool")
    p.add_argument("argv", nargs="+", help="the job's command line (after --)")
    return p.parse_args()


def status(returncode: int) -> int:
    """An exit status for ``returncode`` (a signal's number as 128+N)."""
    return 128 - returncode if returncode < 0 else returncode


def natural(path: Path) -> list:
    """A sort key that puts ``vnc_2`` before ``vnc_10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def profile_pair(root: Path) -> tuple[Path, Path] | None:
    """The largest NEFF under ``root`` and its trace on the first NeuronCore, if captured."""
    for neff in sorted(root.rglob("neff_*.neff"), key=lambda p: (-p.stat().st_size, str(p))):
        traces = sorted(neff.parent.glob(f"{neff.stem[len('neff_'):]}_*.ntff"), key=natural)
        if traces:
            return neff, traces[0]
    return None


def summarise(root: Path, tool: str) -> None:
    """Print ``neuron-profile``'s summary of the profile in ``root`` (a diagnosis if none)."""
    pair = profile_pair(root)
    if pair is None:
        emit("diagnosis", code="profile_empty",
             message=f"no NEFF with its NTFF trace under {root}",
             hint="the Neuron runtime writes them when NEURON_RT_INSPECT_ENABLE=1 and "
                  "NEURON_RT_INSPECT_DEVICE_PROFILE=1 reach the job: keep [env] from "
                  "changing them")
        return
    neff, ntff = pair
    emit("phase", name="completing", detail=f"neuron-profile: summary of {neff.name}")
    argv = [tool, "view", "--output-format", "summary-text", "-n", str(neff), "-s", str(ntff)]
    try:
        returncode = subprocess.run(argv, check=False).returncode
    except OSError as exc:
        emit("diagnosis", code="neuron_profile_missing",
             message=f"cannot run {tool}: {exc.strerror}",
             hint="set [trainium] neuron_profile in config.toml (the Neuron tools install "
                  "/opt/aws/neuron/bin/neuron-profile); the capture stays in the run's profile/")
        return
    if returncode != 0:
        emit("diagnosis", code="neuron_profile_failed",
             message=f"{tool} view exited with code {returncode} on {neff.name}",
             hint=f"the capture stays in {root}: try neuron-profile view -d {root}")


def main() -> int:
    """Pre-compile, run, summarise the profile; the job's exit status."""
    a = parse_args()
    stop = StopFlag()
    if a.precompile:
        emit("phase", name="compiling",
             detail="neuron_parallel_compile: the job's graphs compiled in parallel into the cache")
        try:
            returncode = status(subprocess.run([a.precompile, *a.argv], check=False).returncode)
        except OSError as exc:
            fail("neuron_parallel_compile_missing", f"cannot run {a.precompile}: {exc.strerror}",
                 hint="install torch-neuronx in the Neuron virtualenv ([trainium] python), "
                      "or set precompile=false")
        if stop.requested:
            return STOPPED
        if returncode != 0:
            emit("diagnosis", code="neuron_precompile_failed",
                 message=f"neuron_parallel_compile exited with code {returncode}",
                 hint="its log above names the graph that failed; set precompile=false to "
                      "compile during the run instead")
            return returncode
    returncode = status(subprocess.run(a.argv, check=False).returncode)
    if a.profile and returncode == 0 and not stop.requested:
        summarise(Path(a.profile), a.neuron_profile)
    return STOPPED if stop.requested else returncode


if __name__ == "__main__":
    raise SystemExit(main())
