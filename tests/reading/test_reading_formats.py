"""What a package adds to the reading of every log (``reading.formats``, the
``accelbench.formats`` entry points): Slurm's launcher package declares its lines and job
tables there, and they reach the generic reading, the tool-output kinds and a command's
sniffing without loading a launcher, the store or psutil."""

import json
import subprocess
import sys

import pytest

from accelbench.engine.config.spec import load_preset
from accelbench.engine.plugin import entrypoints, registry
from accelbench.engine.reading.formats import GROUP, Formats
from accelbench.engine.reading.tools import ToolOutput
from accelbench.engine.run.runner import Runner
from tests.helpers import ROOT


def test_slurms_formats_reach_the_reading_without_a_launcher():
    code = ("import json, sys\nfrom accelbench.engine.plugin import registry\n"
            "print('DIALECTS', json.dumps(sorted(registry.dialects())))\n"
            "print('GENERIC', json.dumps([d.name for d in registry.generic_dialects()]))\n"
            "print('TABLES', json.dumps([k.dialect.name for k in registry.tables()]))\n"
            "loaded = [m for m in sys.modules if m.endswith(('.sbatch', '.srun', '.local'))\n"
            "          or m.startswith(('accelbench.engine.store', 'psutil', 'sqlite3'))]\n"
            "print('LOADED', json.dumps(loaded))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert {"slurm", "slurm_table", "pbs_table"} <= set(json.loads(lines["DIALECTS"]))
    assert "slurm" in json.loads(lines["GENERIC"])
    assert json.loads(lines["TABLES"]) == ["slurm_table", "pbs_table"]  # (Slurm first, as before)
    assert lines["LOADED"] == "[]"


def test_a_command_is_sniffed_for_slurms_lines_with_the_generic_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (a command runs where it is launched: planned only here)
    preset = tmp_path / "job.toml"
    preset.write_text('workload = "command"\n[params]\ncommand = "true"\n')
    sniff = Runner.plan(load_preset(preset), tmp_path).sniff
    assert sniff == [dialect.name for dialect in registry.generic_dialects()]
    assert "slurm" in sniff and "hf_trainer" in sniff


@pytest.fixture
def fresh(monkeypatch):
    """The registry's formats and dialects read again, faults kept apart, for this test."""
    monkeypatch.setattr(entrypoints, "_FAULTS", {})
    registry.formats.cache_clear()
    registry.dialects.cache_clear()
    yield
    registry.formats.cache_clear()
    registry.dialects.cache_clear()


@pytest.mark.parametrize("declared", [
    Formats("broken", dialects=(int,)),
    Formats("broken", tables=("slurm_table",)),  # type: ignore[arg-type]
    Formats("broken", tables=(ToolOutput(str, lambda text: None),)),  # type: ignore[arg-type]
])
def test_a_bad_formats_declaration_is_left_out_in_one_line(declared, fresh, monkeypatch):
    load = entrypoints.load

    def with_broken(group, kind):
        found = load(group, kind)
        return {**found, "broken": declared} if group == GROUP else found

    monkeypatch.setattr(registry.plugins, "load", with_broken)
    assert list(registry.formats()) == ["slurm"]
    assert entrypoints.faults(GROUP) == [
        "formats 'broken': dialects are named Dialect subclasses, tables ToolOutput objects"]
    assert "slurm" in registry.dialects()
