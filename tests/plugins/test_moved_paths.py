"""The import paths kept for one release after the engine's modules moved into floors
(``engine.core.moved``): each old path is the new module itself, says so with a
``DeprecationWarning``, and the module paths baked into queued jobs still run."""

import importlib
import subprocess
import sys
import time

import pytest

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.launchers import jobwrap
from accelbench.engine.run import experiment

MOVED = {
    "accelbench.engine.events": "accelbench.engine.core.events",
    "accelbench.engine.params": "accelbench.engine.core.params",
    "accelbench.engine.site": "accelbench.engine.config.site",
    "accelbench.engine.system": "accelbench.engine.plugin.system",
    "accelbench.engine.launchers.base": "accelbench.engine.plugin.launcher",
    "accelbench.engine.experiment": "accelbench.engine.run.experiment",
}
OLD_DRIVER = "accelbench.engine.experiment"


@pytest.mark.parametrize(("old", "new"), MOVED.items())
def test_an_old_path_is_the_new_module_and_warns(old, new, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"{old} has moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_a_plug_in_written_before_the_api_imports_the_same_objects(monkeypatch):
    for old in MOVED:
        monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning):
        from accelbench.engine.events import Metric
        from accelbench.engine.launchers.base import Launcher
        from accelbench.engine.params import Param
        from accelbench.engine.site import value
        from accelbench.engine.system import System
    from accelbench import api

    assert (Metric, Launcher, Param, value, System) == (
        api.Metric, api.Launcher, api.Param, api.site_value, api.System)


def test_the_wrapper_keeps_the_module_path_that_queued_job_scripts_hold(tmp_path):
    assert jobwrap.command(tmp_path)[2:4] == ["-m", "accelbench.engine.launchers.jobwrap"]


def test_an_experiment_started_before_the_upgrade_is_driven_by_its_old_path(
        runner, monkeypatch, tmp_path):
    """The driver of an experiment whose command line names the old module runs it to the end."""
    monkeypatch.chdir(tmp_path)
    popen, launched = subprocess.Popen, []

    def the_old_way(args, **kwargs):
        args = [OLD_DRIVER if arg == experiment.__name__ else arg for arg in args]
        launched.append(args)
        return popen(args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", the_old_way)
    say = f"{sys.executable} -c \"print('hi')\""
    spec = spec_from_dict({"name": "old", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": say},
                           "sweep": {"variants": [{"command": say}, {"command": say}]}})
    exp = experiment.start(runner, spec)
    deadline = time.monotonic() + 60
    while exp.status() == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any(OLD_DRIVER in args for args in launched)
    assert exp.status() == "done"
    assert [run.status for run in exp.runs()] == ["done", "done"]
