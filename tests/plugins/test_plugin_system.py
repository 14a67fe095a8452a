"""A system registered from outside the tree: a temporary distribution with an
``accelbench.systems`` entry point (found on PYTHONPATH, no pip), driven through
detection, a launch, ``parse`` and the launch screen; and broken ones, refused in one
line that names them.

The example system and its ``example: ...`` lines are made up for this test (the
same plug-in as docs/plugins.md's "Writing a system"); no vendor prints them.
"""

import functools
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList

from accelbench.engine.plugin import entrypoints as plugins
from accelbench.engine.plugin import registry
from accelbench.engine.rundir.files import WORK_DIR
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens.launch import LaunchScreen
from tests.helpers import ROOT


def plugin_guide_example(first_line: str) -> str:
    """The code block of the plug-in guide (docs/plugins.md) that starts with ``first_line``
    (its examples are what these tests install, so the docs cannot drift from what works)."""
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```\w*\n(.*?)^```$", text, flags=re.S | re.M)
    [block] = [b for b in blocks if b.startswith(first_line + "\n")]
    return block


SYSTEM_MODULE = plugin_guide_example("# accelbench_example.py")
NODE_SAMPLER = plugin_guide_example("# the example board's node sampler")

TRAINER = '''\
import sys
steps = int(sys.argv[1].split("=")[1])
print("example: compiling", flush=True)
for step in range(1, steps + 1):
    print(f"example: step {step} loss {1 / step:.3f} rate {100 * step}.0", flush=True)
print("example: eval 0.8123 of samples right", flush=True)
'''


def distribution(root: Path, module: str, entry: str = "example") -> Path:
    """``root`` holding the module ``accelbench_example`` and its dist-info."""
    info = root / "accelbench_example-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (root / "accelbench_example.py").write_text(module)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: accelbench-example\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[accelbench.systems]\n{entry} = accelbench_example:SYSTEM\n")
    return root


def forget_systems() -> None:
    """Drop the registry's tables and the plug-in module, so the next use loads afresh."""
    for value in vars(registry).values():
        if isinstance(value, functools._lru_cache_wrapper):
            value.cache_clear()
    sys.modules.pop("accelbench_example", None)
    importlib.invalidate_caches()


@pytest.fixture
def plugin(tmp_path, home, monkeypatch):
    """The example system installed (on PYTHONPATH, for this process and its children)."""
    root = distribution(tmp_path / "site-packages", SYSTEM_MODULE)
    trainer = tmp_path / "trainer.py"
    trainer.write_text(TRAINER)
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text(f'[example]\ntrainer = "{trainer}"\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]))
    monkeypatch.syspath_prepend(str(root))
    forget_systems()
    yield root
    forget_systems()


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "accelbench.cli.main", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "COLUMNS": "200"}, check=False)


def test_detected_launched_parsed(plugin, home, tmp_path):
    listing = cli("accelerators")
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if " example " in line)
    assert "Example board" in row and "available" in row and "example_train" in row

    preset = tmp_path / "example.toml"
    preset.write_text('name = "ex"\naccelerator = "example"\nworkload = "example_train"\n'
                      '[params]\nsteps = 4\n')
    run = cli("run", str(preset), "--json")
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert {"type": "phase", "name": "compiling", "detail": "example graph"}.items() <= next(
        e for e in events if e["type"] == "phase" and e["name"] == "compiling").items()
    finished = events[-1]
    assert finished["status"] == "done", finished
    assert finished["summary"]["final_loss"] == 0.25  # through the system's metric alias
    assert finished["summary"]["samples_per_s"] == 250.0  # the mean of its rates
    assert finished["summary"]["accuracy"] == 81.23  # a fraction, scaled by its Alias

    log = next((home / "runs").glob("*/output.log"))
    parsed = cli("parse", str(log), "--json")
    assert parsed.returncode == 0, parsed.stderr
    metrics = [json.loads(line) for line in parsed.stdout.splitlines()]
    assert [(e["name"], e["value"]) for e in metrics if e["type"] == "metric"] == [
        ("example_loss", 1.0), ("example_loss", 0.5), ("example_loss", 0.333),
        ("example_loss", 0.25), ("example_accuracy", 0.8123)]
    assert "example" in cli("parse", "--help").stdout


async def test_offered_on_the_launch_screen(plugin, runner):
    app = AccelbenchApp(runner)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, LaunchScreen))
        accelerators = screen.query_one("#accelerators", OptionList)
        assert accelerators.get_option("example") is not None
        screen.select_accelerator("example")
        await pilot.pause()
        assert screen.accelerator == "example"
        workloads = screen.query_one("#workloads", OptionList)
        assert [workloads.get_option_at_index(i).id
                for i in range(workloads.option_count)] == ["command", "example_train"]


def broken(module: str, old: str, new: str) -> str:
    assert old in module
    return module.replace(old, new)


ORIGIN = ("accelbench.systems entry point 'example' = 'accelbench_example:SYSTEM' of"
          " accelbench-example 0.1")


@pytest.mark.parametrize("module, entry, message", [
    ("raise ImportError('no board SDK here')\n", "example",
     f"{ORIGIN}: cannot load: ImportError: no board SDK here"),
    ("import sys\nsys.exit(0)\n", "example", f"{ORIGIN}: cannot load: SystemExit: 0"),
    ("raise KeyboardInterrupt\n", "example", f"{ORIGIN}: cannot load: KeyboardInterrupt"),
    (SYSTEM_MODULE + "SYSTEM = 'a system'\n", "example",
     ("accelbench.systems entry point 'example' = 'accelbench_example:SYSTEM' of"
      " accelbench-example 0.1: expected a System, got str")),
    (SYSTEM_MODULE, "groq", ("accelbench.systems entry point 'groq' = 'accelbench_example:SYSTEM'"
                             " of accelbench-example 0.1: names itself 'example'")),
    (broken(SYSTEM_MODULE, 'name = "example"', 'name = "groq"'), "example",
     "system 'example': dialect 'groq' is declared twice (also by groq)"),
    (broken(SYSTEM_MODULE, "workloads=(TRAIN,),", "workloads=(TRAIN,), samplers=(ExampleLog,),"),
     "example", ("system 'example': sampler <class 'accelbench_example.ExampleLog'> is not a"
                 " named ToolSampler subclass")),
    (broken(SYSTEM_MODULE, "workloads=(TRAIN,),", "workloads=(TRAIN,), extends=(Extension("
                           "'bert_finetuning'),),").replace(
        "    Column,\n", "    Column,\n    Extension,\n"), "example",
     "system 'example': extends 'bert_finetuning', not a generic workload"),
    (broken(SYSTEM_MODULE, 'Param("trainer", str, "",', 'Param("trainer", list, "",'),
     "example", "system 'example': site key 'trainer': type <class 'list'> is not one of"),
    (broken(SYSTEM_MODULE, '"example_loss": "final_loss"', '"example_loss": "loss_final"'),
     "example", "system 'example': metric alias 'example_loss' → 'loss_final': not one of"),
    (broken(SYSTEM_MODULE, 'scale=100', 'scale=-1'),
     "example", "system 'example': metric alias 'example_accuracy': scale -1 is not a positive"),
])
def test_a_broken_plugin_is_one_line_naming_it(tmp_path, home, module, entry, message):
    """Left out in one line; the other systems listed as ever (was: nothing but that line,
    exit 2; after ``sys.exit(0)`` or ``KeyboardInterrupt`` on import, nothing at all)."""
    root = distribution(tmp_path / "site-packages", module, entry)
    result = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "accelerators"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": "200"},
                            check=False)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"accelbench: {message}") and line.endswith("(left out)"), line
    listed = {line.split()[0] for line in result.stdout.splitlines()[3:] if line.strip()}
    assert {"cpu", "cuda", "groq", "trainium"} <= listed
    assert "example" not in listed or entry != "example"


DETECTIONS = {
    "raises": ("    raise RuntimeError('the driver went away')\n",
               "detection failed: RuntimeError: the driver went away"),
    "answers a string": ("    return 'yes'\n", "detection answered a str, not an Availability"),
    "exits": ("    import sys\n    sys.exit(0)\n", "detection failed: SystemExit: 0"),
    "hangs": ("    import time\n    time.sleep(30)\n", "detection gave no answer in 5 s"),
}


@pytest.mark.parametrize("how", DETECTIONS)
def test_a_broken_detection_is_the_systems_reason_and_the_others_are_listed(tmp_path, home,
                                                                           how):
    body, reason = DETECTIONS[how]
    module = broken(SYSTEM_MODULE, 'def detect():\n    return Availability(True, detail="an'
                    ' example board")\n', "def detect():\n" + body)
    root = distribution(tmp_path / "site-packages", module)
    result = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "accelerators"],
                            capture_output=True, text=True, cwd=ROOT, timeout=25,
                            env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": "250"},
                            check=False)  # (a hung detection took its 30 s, 25 s is no wait)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[3:] if line.strip()}
    assert "not detected" in rows["example"] and reason in rows["example"], rows["example"]
    assert {"cpu", "cuda", "groq", "trainium"} <= set(rows)


def test_a_plugin_whose_import_hangs_is_left_out_in_time(tmp_path, home, monkeypatch):
    root = distribution(tmp_path / "site-packages", "import time\ntime.sleep(3)\n" + SYSTEM_MODULE)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(plugins, "IMPORT_S", 0.5)
    monkeypatch.setattr(plugins, "_FAULTS", {})
    forget_systems()
    try:
        assert "example" not in registry.systems() and "cpu" in registry.systems()
        assert plugins.faults(registry.GROUP) == [
            f"{ORIGIN}: cannot load: import gave no answer in 0.5 s"]
    finally:
        forget_systems()


async def test_the_app_tells_a_broken_plugin_and_goes_on(tmp_path, runner, monkeypatch):
    root = distribution(tmp_path / "site-packages", "raise ImportError('no board SDK here')\n")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setattr(plugins, "_FAULTS", {})
    forget_systems()
    try:
        app = AccelbenchApp(runner)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause(0.5)
            assert isinstance(app.screen, LaunchScreen) and app.is_running  # was: a crash
            told = [str(toast.render()) for toast in app.screen.query("Toast")]
            assert any("no board SDK here" in text for text in told), told
            accelerators = app.screen.query_one("#accelerators", OptionList)
            assert accelerators.get_option("cpu") is not None
    finally:
        forget_systems()


def test_a_dialect_that_does_not_resolve_stops_the_launch(plugin, home, tmp_path):
    (plugin / "accelbench_example.py").write_text(
        broken(SYSTEM_MODULE, 'dialects=["example"]', 'dialects=["exmaple"]'))
    preset = tmp_path / "example.toml"
    preset.write_text('name = "ex"\naccelerator = "example"\nworkload = "example_train"\n')
    run = cli("run", str(preset))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.splitlines()[0] == ("accelbench: error: workload 'example_train' on"
                                          " 'example': unknown dialect 'exmaple'")
    assert not list((home / "runs").glob("*"))  # nothing started, nothing left behind


def test_a_hung_detection_delays_neither_a_run_of_another_system_nor_presets(tmp_path, home):
    module = broken(SYSTEM_MODULE, 'def detect():\n    return Availability(True, detail="an'
                    ' example board")\n', "def detect():\n" + DETECTIONS["hangs"][0])
    root = distribution(tmp_path / "site-packages", module)
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "200"}
    for args in (("run", "cpu-mnist", "--set", "workload=command", "--set", "command=true"),
                 ("presets",)):  # (the hung detection takes 30 s: 25 s is no wait)
        done = subprocess.run([sys.executable, "-m", "accelbench.cli.main", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=25,
                              env=env, check=False)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "cpu-mnist" in done.stdout


def on_device(device: str, module: str = "") -> str:
    """The example system on torch device ``device`` (``module`` registering it), running
    the generic MNIST workload there."""
    return broken(broken(SYSTEM_MODULE, 'device="example"',
                         f'device="{device}", device_module="{module}"'),
                  "workloads=(TRAIN,),", "workloads=(TRAIN,), extends=(Extension('mnist_cnn'),),"
                  ).replace("    Column,\n", "    Column,\n    Extension,\n")


MNIST = ('name = "ex-mnist"\naccelerator = "example"\nworkload = "mnist_cnn"\n[params]\n'
         'data = "synthetic"\nepochs = 1\ntrain_samples = 64\ntest_samples = 16\n')


def test_the_generic_workloads_take_the_systems_own_device(plugin, home, tmp_path):
    """``--device hpu`` reaches the script, which says torch cannot use it here (was: the
    script's argparse refused any device but cpu and cuda)."""
    (plugin / "accelbench_example.py").write_text(on_device("hpu"))
    preset = tmp_path / "mnist.toml"
    preset.write_text(MNIST)
    run = cli("run", str(preset), "--json")
    events = [json.loads(line) for line in run.stdout.splitlines()]
    [diagnosis] = [e for e in events if e.get("code") == "device_unavailable"]
    assert diagnosis["message"].startswith("--device hpu: torch cannot use it here"), diagnosis
    assert events[-1]["status"] == "failed"


@pytest.mark.slow
def test_the_systems_device_module_is_imported_before_the_device_is_used(plugin, home,
                                                                         tmp_path):
    (plugin / "accelbench_example.py").write_text(on_device("cpu", "example_device"))
    (plugin / "example_device.py").write_text(
        "import pathlib\npathlib.Path('device-module-imported').write_text('yes')\n")
    preset = tmp_path / "mnist.toml"
    preset.write_text(MNIST)
    run = cli("run", str(preset), "--json")
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert events[-1]["status"] == "done", run.stdout[-2000:] + run.stderr
    # (the workload runs in its run's work directory)
    assert [p.read_text() for p in (home / "runs").glob(f"*/{WORK_DIR}/device-module-imported")
            ] == ["yes"]


def test_a_device_module_that_does_not_import_is_a_diagnosis(plugin, home, tmp_path):
    (plugin / "accelbench_example.py").write_text(on_device("hpu", "habana_frameworks.torch"))
    preset = tmp_path / "mnist.toml"
    preset.write_text(MNIST)
    events = [json.loads(line) for line in cli("run", str(preset), "--json").stdout.splitlines()]
    [diagnosis] = [e for e in events if e.get("code") == "device_module_missing"]
    assert diagnosis["message"].startswith(
        "--device hpu: cannot import habana_frameworks.torch (ModuleNotFoundError"), diagnosis


def test_a_plugin_ships_presets_listed_and_run_by_name(plugin, home, tmp_path):
    """The folder ``System.presets`` names is listed with the built-in presets and run by
    name; a built-in preset of the same name hides the plug-in's."""
    folder = plugin / "accelbench_example_presets"
    folder.mkdir()
    (folder / "example-short.toml").write_text(
        'name = "example-short"\ndescription = "two steps of the example trainer"\n'
        'accelerator = "example"\nworkload = "example_train"\n[params]\nsteps = 2\n')
    (folder / "cpu-mnist.toml").write_text(
        'name = "cpu-mnist"\ndescription = "the plug-in\'s"\naccelerator = "example"\n'
        'workload = "example_train"\n')
    (plugin / "accelbench_example.py").write_text(broken(
        SYSTEM_MODULE, "workloads=(TRAIN,),",
        "workloads=(TRAIN,), presets=str(Path(__file__).with_name('accelbench_example_presets')),"
    ).replace("import re\n", "import re\nfrom pathlib import Path\n"))
    listing = cli("presets")
    assert listing.returncode == 0, listing.stderr
    rows = {line.split()[0]: line for line in listing.stdout.splitlines() if line.strip()}
    assert "two steps of the example trainer" in rows["example-short"]
    assert "example" not in rows["cpu-mnist"]  # the built-in one
    run = cli("run", "example-short", "--json")
    assert run.returncode == 0, run.stderr
    finished = json.loads(run.stdout.splitlines()[-1])
    assert finished["status"] == "done" and finished["summary"]["final_loss"] == 0.5


def test_the_help_lists_a_plugins_devices_from_the_registry(plugin):
    """``accelbench top``'s help names every system with a node sampler, the plug-in's too
    (was: a list written by hand)."""
    (plugin / "accelbench_example.py").write_text(broken(
        SYSTEM_MODULE, "workloads=(TRAIN,),", "workloads=(TRAIN,), node=(Boards,),"
    ).replace("    Column,\n", "    Column,\n    PolledSampler,\n").replace(
        "\n\ndef detect():", "\n\nclass Boards(PolledSampler):\n    name = 'boards'\n\n"
        "    def read(self):\n        return []\n\n\ndef detect():"))
    top = next(line for line in cli("--help").stdout.splitlines() if line.split()[:1] == ["top"])
    assert top.endswith("Graphcore IPU (PopTorch), SambaNova RDU, Example board"), top


DOCTOR_CHECKS = '''

def firmware():
    return "board firmware 1.2 is older than 1.4 (flash it with example-flash)"


def quiet():
    return ""


def hangs():
    import time
    time.sleep(30)


def raises():
    raise RuntimeError("no board tool")
'''


def test_a_plugins_doctor_checks_are_findings(plugin, home):
    """Each check that answers a problem, fails or hangs is one finding naming the system;
    one that answers "" is none; the store is then not healthy (exit 1)."""
    (plugin / "accelbench_example.py").write_text(broken(
        SYSTEM_MODULE, "workloads=(TRAIN,),",
        "workloads=(TRAIN,), doctor=(firmware, quiet, hangs, raises),").replace(
        "\n\ndef detect():", DOCTOR_CHECKS + "\n\ndef detect():"))
    done = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "doctor", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=25,
                          env={**os.environ, "COLUMNS": "200"}, check=False)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [(f["kind"], f["target"], f["detail"], f["fixed"]) for f in report["findings"]] == [
        ("system", "example", ("board firmware 1.2 is older than 1.4 (flash it with"
                               " example-flash)"), False),
        ("system", "example", "check gave no answer in 5 s", False),
        ("system", "example", "check failed: RuntimeError: no board tool", False)]


def test_the_guides_node_sampler_reads_its_boards_in_top(plugin, tmp_path, monkeypatch):
    """The plug-in guide's node sampler, added to its system: ``accelbench top`` shows the
    boards a stand-in ``example-smi`` lists, and says why there are none without it."""
    (plugin / "accelbench_example.py").write_text(broken(broken(
        SYSTEM_MODULE, "workloads=(TRAIN,),", "workloads=(TRAIN,), node=(ExampleBoards,),"),
        "\n\ndef detect():", "\n\n" + NODE_SAMPLER + "\n\ndef detect():"))

    def example_lines() -> list[dict]:
        done = cli("top", "--once", "--json")
        assert done.returncode == 0, done.stderr
        return [{k: line[k] for k in ("source", "device", "name", "present", "why",
                                      "util_percent", "mem_used_mib", "mem_total_mib")}
                for line in map(json.loads, done.stdout.splitlines())
                if line["system"] == "example"]

    assert example_lines() == [{"source": "example-smi", "device": None, "name": None,
                                "present": False, "why": "example-smi not on PATH",
                                "util_percent": None, "mem_used_mib": None,
                                "mem_total_mib": None}]
    tool = tmp_path / "bin" / "example-smi"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\nprintf '0 87.5 1024 16384\\n1 0 0 16384\\n'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(tool.parent), os.environ["PATH"]]))
    board = {"source": "example-smi", "name": "Example board", "present": True, "why": ""}
    assert example_lines() == [
        {**board, "device": "ex0", "util_percent": 87.5, "mem_used_mib": 1024.0,
         "mem_total_mib": 16384.0},
        {**board, "device": "ex1", "util_percent": 0.0, "mem_used_mib": 0.0,
         "mem_total_mib": 16384.0}]
