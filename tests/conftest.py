"""Shared fixtures: a private accelbench home per test, and the markers.

The suite is safe anywhere: for the whole session HOME, the XDG directories and accelbench's
own (ACCELBENCH_HOME, ACCELBENCH_CONFIG) point into one temporary directory, every test gets
a fresh empty store there (the ``home`` fixture names its own), hypothesis keeps no example
database in the checkout, and the session fails if the real default store or the real home's
top level changed while it ran.

Markers: a test that starts a process (the CLI, a run, a subprocess) is marked ``slow`` and
one that starts the app ``tui``, from what it calls (``pytest_collection_modifyitems``), so
``pytest -m "not slow and not tui"`` is the quick run. Helpers several modules share live in
``helpers.py``, never in a test module."""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """An empty ACCELBENCH_HOME (and config dir) for this test only."""
    home = tmp_path / "home"
    monkeypatch.setenv("ACCELBENCH_HOME", str(home))
    monkeypatch.setenv("ACCELBENCH_CONFIG", str(tmp_path / "config"))
    return home


@pytest.fixture
def store(home):
    from accelbench.engine.store.runs import Store

    return Store(home)


@pytest.fixture
def runner(store):
    from accelbench.engine.run.runner import Runner

    return Runner(store)


@pytest.fixture
def fixed_detection(monkeypatch):
    """Detection answers the same on any machine: the CPU (2 cores), no NVIDIA driver, no
    other system (the app's snapshots)."""
    from accelbench.engine.plugin import registry
    from accelbench.engine.plugin.system import Availability

    found = {"cpu": Availability(True, detail="2 cores, x86_64"),
             "cuda": Availability(False, reason="no NVIDIA driver (NVML: NVML Shared Library"
                                                " Not Found)")}
    for name, acc in registry.systems().items():
        avail = found.get(name, Availability(False, reason=f"no {name} here"))
        monkeypatch.setitem(registry.systems(), name,
                            dataclasses.replace(acc, detect=lambda a=avail: a))


SLURM_TESTS_VAR = "ACCELBENCH_SLURM_TESTS"
SLURM_SKIP_REASON = (f"Slurm tests run only with {SLURM_TESTS_VAR}=1 (they start a private "
                     "one-node cluster: root and Debian's slurmctld, slurmd, slurm-client, munge)")
SLURM_COMMANDS = ("sinfo", "sbatch", "squeue", "scontrol", "scancel", "srun", "salloc", "sacct")


def slurm_tests_enabled() -> bool:
    return os.environ.get(SLURM_TESTS_VAR) == "1"


# What marks a test ``slow`` or ``tui`` when it calls it (itself, through a function of its
# module or of the tests' shared modules, or through a fixture): see ``_starts``.
SLOW_NAMES = {"accelbench", "Popen", "Process", "openpty"}  # the CLI in a subprocess, ...
SLOW_ATTRS = {("subprocess", "run"), ("subprocess", "Popen"), ("subprocess", "check_output"),
              ("subprocess", "check_call"), ("subprocess", "call"),
              ("runner", "start"), ("experiment", "start")}  # Runner.start, a sweep's driver
TUI_ATTRS = {"run_test", "run_async"}  # App.run_test: the app started under a pilot
TUI_FIXTURES = {"snap_compare"}  # pytest-textual-snapshot starts the app


def _starts(path: Path) -> dict[str, set[str]]:
    """For each function of ``path`` (module level or a class's), which of ``slow`` and
    ``tui`` its own body calls for, and which functions it calls (resolved later)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        defs += [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for func in defs:
        what = found.setdefault(func.name, set())
        if TUI_FIXTURES & {a.arg for a in func.args.args}:
            what.add("tui")
        for node in ast.walk(func):
            target = node.func if isinstance(node, ast.Call) else None
            if isinstance(target, ast.Name):
                runner = target.id == "start" and any(  # experiment.start(runner, spec)
                    isinstance(arg, ast.Name) and arg.id == "runner" for arg in node.args)
                what.add("slow" if target.id in SLOW_NAMES or runner else f"call:{target.id}")
            elif isinstance(target, ast.Attribute):
                owner = target.value
                name = owner.id if isinstance(owner, ast.Name) else (
                    owner.attr if isinstance(owner, ast.Attribute) else "")
                if (name, target.attr) in SLOW_ATTRS or target.attr in SLOW_NAMES:
                    what.add("slow")
                elif target.attr in TUI_ATTRS:
                    what.add("tui")
    return found


def _marks_by_function(module: Path) -> dict[str, set[str]]:
    """``slow``/``tui`` for every function of a test module, through what it calls: its own
    functions and fixtures, and those of the tests' shared modules (conftest, helpers...)."""
    shared: dict[str, set[str]] = {}
    for path in sorted(module.parent.glob("*.py")):
        if not path.name.startswith("test_"):
            shared.update(_starts(path))
    calls = {**shared, **_starts(module)}
    marks = {name: {w for w in what if not w.startswith("call:")} for name, what in calls.items()}
    changed = True
    while changed:  # a caller of a function that starts something starts it too
        changed = False
        for name, what in calls.items():
            for callee in (w[5:] for w in what if w.startswith("call:")):
                if not marks.get(callee, set()) <= marks[name]:
                    marks[name] |= marks[callee]
                    changed = True
    return marks


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the tests that start a process (the CLI, a run, a subprocess) and
    ``tui`` those that start the app, by what they call (``_starts``); then skip the
    ``slurm`` tests, with the reason, unless ACCELBENCH_SLURM_TESTS=1."""
    by_module: dict[Path, dict[str, set[str]]] = {}
    for item in items:
        path = Path(str(item.path))
        if path not in by_module:
            by_module[path] = _marks_by_function(path) if path.suffix == ".py" else {}
        marks = by_module[path]
        name = getattr(item, "originalname", item.name)
        found = set(marks.get(name, set()))
        for fixture in getattr(item, "fixturenames", ()):
            found |= marks.get(fixture, set()) | ({"tui"} if fixture in TUI_FIXTURES else set())
        for mark in sorted(found - {m.name for m in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, mark))
    if slurm_tests_enabled():
        return
    for item in items:
        if item.get_closest_marker("slurm"):
            item.add_marker(pytest.mark.skip(reason=SLURM_SKIP_REASON))


NO_SLURM_BIN = pytest.StashKey[Path]()
SCRATCH = pytest.StashKey[Path]()  # the session's temporary HOME, stores and configs
UNTOUCHED = pytest.StashKey[dict[str, Any]]()  # what the session must leave as it was
PRIVATE_DIRS = {"HOME": "home", "XDG_DATA_HOME": "home/.local/share",
                "XDG_CONFIG_HOME": "home/.config", "XDG_CACHE_HOME": "home/.cache",
                "XDG_STATE_HOME": "home/.local/state", "ACCELBENCH_CONFIG": "config"}

settings.register_profile("accelbench", database=None)  # no .hypothesis/ in the checkout
settings.load_profile("accelbench")


def _untouched(home: Path, store: Path) -> dict[str, object]:
    """The real default store's files (name, size, mtime) and the real home's top-level
    names: a test that writes there shows up as a difference."""
    files = sorted((str(p), p.lstat().st_size, p.lstat().st_mtime_ns)
                   for p in store.rglob("*")) if store.is_dir() else []
    names = sorted(os.listdir(home)) if home.is_dir() else []
    return {f"the real default store {store}": files, f"the real home {home}": names}


def pytest_configure(config):
    """The session's private HOME, XDG and accelbench directories (see the module's
    docstring); stand-in Slurm commands that fail at once, saying this test has no
    cluster."""
    home = Path.home()
    store = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "accelbench"
    config.stash[UNTOUCHED] = {"places": (home, store), "seen": _untouched(home, store)}
    scratch = Path(tempfile.mkdtemp(prefix="accelbench-tests-"))
    config.stash[SCRATCH] = scratch
    for name, sub in PRIVATE_DIRS.items():
        (scratch / sub).mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(scratch / sub)
    os.environ["ACCELBENCH_HOME"] = str(scratch / "store")
    set_hypothesis_home_dir(scratch / "hypothesis")  # its caches, not the checkout's
    path = Path(tempfile.mkdtemp(prefix="accelbench-no-slurm-"))
    for name in SLURM_COMMANDS:
        (path / name).write_text(f"#!/bin/sh\necho '{name}: no Slurm cluster in this test "
                                 "(only tests marked slurm have one)' >&2\nexit 1\n")
        (path / name).chmod(0o755)
    config.stash[NO_SLURM_BIN] = path


def pytest_unconfigure(config):
    if NO_SLURM_BIN in config.stash:
        shutil.rmtree(config.stash[NO_SLURM_BIN], ignore_errors=True)
    if SCRATCH in config.stash:
        shutil.rmtree(config.stash[SCRATCH], ignore_errors=True)


def pytest_sessionfinish(session, exitstatus):
    """Fail the session if the real default store or the real home changed during it."""
    before = session.config.stash.get(UNTOUCHED, None)
    if before is None:
        return
    now = _untouched(*before["places"])
    changed = [place for place, seen in now.items() if before["seen"].get(place) != seen]
    if changed:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        sys.stderr.write(f"\nthe test session changed {' and '.join(changed)}: every test must"
                         " write only under temporary directories\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Tests not marked ``slurm`` never reach a Slurm cluster, the machine's or the private
    one: Slurm's commands fail for them, and no GRES answer is cached across tests. (A hook,
    not an autouse fixture: hypothesis refuses function-scoped fixtures around @given.)"""
    from accelbench.engine.launchers.slurm.gres import slurm_gres

    path = os.environ.get("PATH", "")
    os.environ["ACCELBENCH_HOME"] = tempfile.mkdtemp(prefix="store-",
                                                     dir=item.config.stash[SCRATCH])
    if not item.get_closest_marker("slurm"):
        os.environ["PATH"] = f"{item.config.stash[NO_SLURM_BIN]}{os.pathsep}{path}"
    slurm_gres.cache_clear()
    try:
        yield
    finally:
        os.environ["PATH"] = path
        slurm_gres.cache_clear()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A private one-node cluster (GRES rdu:8, ipu:4) for this session, under its own
    temporary directory and on its own ports; SLURM_CONF points every Slurm command (the
    tests' and the engine's) at it until the session ends, then its daemons are stopped."""
    from tests.slurm.cluster import SLURM_ENV_PREFIXES, ClusterError, PrivateCluster, missing_tools

    if not slurm_tests_enabled():
        pytest.skip(SLURM_SKIP_REASON)
    if missing := missing_tools():
        pytest.fail(f"{SLURM_TESTS_VAR}=1 but {', '.join(missing)} not installed: install "
                    "Debian's slurmctld slurmd slurm-client munge (.ci/run does)", pytrace=False)
    if os.geteuid() != 0:
        pytest.fail(f"{SLURM_TESTS_VAR}=1 but not root: the private cluster's daemons run as "
                    "root (SlurmUser=root)", pytrace=False)
    env = pytest.MonkeyPatch()
    for name in [k for k in os.environ if k.startswith(SLURM_ENV_PREFIXES)]:
        env.delenv(name)
    # Under /tmp, not the session's temporary directory: the daemons' sockets live under the
    # cluster's root, and a Unix socket's path may not pass 107 bytes (a long TMPDIR did).
    root = Path(tempfile.mkdtemp(prefix="abslurm-", dir="/tmp"))
    private = PrivateCluster(root)
    env.setenv("SLURM_CONF", str(private.conf))
    try:
        try:
            private.start()
        except ClusterError as error:
            pytest.fail(f"could not start the private Slurm cluster: {error}", pytrace=False)
        yield private
    finally:
        private.stop()
        env.undo()
        shutil.rmtree(root, ignore_errors=True)
