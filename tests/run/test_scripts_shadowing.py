"""A standalone workload script runs with its own folder first on ``sys.path``: no module
beside it may take the name of a package it imports (the IPU dialect once was
``poptorch.py``, next to the script that imports PopTorch)."""

import ast
from pathlib import Path

import pytest

from accelbench.engine.plugin.registry import workloads
from tests.helpers import ROOT

SIBLINGS = {"emit", "mnist_cnn", "torch_device"}  # the generic scripts' own modules, imported
# on purpose


def scripts() -> list[Path]:
    found = {Path(w.script) if Path(w.script).is_absolute() else ROOT / "engine" / "workloads"
             / w.script for w in workloads().values() if w.script}
    return sorted(found | set((ROOT / "engine" / "systems").glob("*/neuron_job.py")))


def imported(script: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_there_are_scripts_to_check():
    assert {p.name for p in scripts()} >= {"mnist_cnn.py", "bert_finetune.py",
                                           "mnist_poptorch.py", "groq_bert_tiny.py"}


@pytest.mark.parametrize("script", scripts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_beside_a_script_shadows_what_it_imports(script):
    beside = {p.stem for p in script.parent.glob("*.py")} | {
        p.name for p in script.parent.iterdir() if p.is_dir()}
    assert (imported(script) & beside) - SIBLINGS - {script.stem} == set()
