"""A pattern compiled on first use reads as the compiled one, every one the engine declares
compiles (an error in one would otherwise show only on the line that meets it), and none is
compiled as the systems load (what every command that reads a log pays at its start)."""

import copy
import gc
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import accelbench.engine
from accelbench.engine.core.patterns import _Lazy, lazy

TEXT = "step 7 loss=0.25 lr=3e-4\nstep 8 loss=0.5 lr=3e-4"


def test_reads_as_the_compiled_pattern():
    source = r"(?m)^step (?P<step>\d+) loss=([\d.]+)"
    made, compiled = lazy(source), re.compile(source)
    assert made.pattern == source
    assert made.findall(TEXT) == compiled.findall(TEXT) == [("7", "0.25"), ("8", "0.5")]
    assert made.search(TEXT, 5)[0] == compiled.search(TEXT, 5)[0] == "step 8 loss=0.5"
    assert made.sub("-", TEXT) == compiled.sub("-", TEXT)
    assert (made.groups, made.groupindex, made.flags) == (
        compiled.groups, compiled.groupindex, compiled.flags)
    assert lazy("LOSS", re.IGNORECASE).search(TEXT) is not None


def test_compiled_only_when_used():
    made = lazy("(unclosed")
    assert made.pattern == "(unclosed"  # (another pattern may be built of it at import)
    with pytest.raises(re.error):
        made.match("x")


def test_copied_before_and_after_use():
    made = lazy(r"\d+")
    assert copy.deepcopy(made).findall("a 1 b 22") == ["1", "22"]
    made.match("1")
    assert copy.deepcopy(made).findall("a 1 b 22") == ["1", "22"]


def test_every_declared_pattern_compiles():
    root = Path(accelbench.engine.__file__).parent
    declaring = [path for path in root.rglob("*.py")
                 if "lazy(" in path.read_text(encoding="utf-8") and path.name != "patterns.py"]
    assert len(declaring) > 20
    for path in declaring:
        parts = path.relative_to(root).with_suffix("").parts
        importlib.import_module(".".join(("accelbench.engine", *parts)).removesuffix(".__init__"))
    made = [obj for obj in gc.get_objects() if type(obj) is _Lazy]
    assert len(made) > 200
    for pattern in made:
        assert pattern.groups >= 0, pattern.pattern  # (compiles it)


def test_none_compiled_as_the_systems_load():
    probe = ("import gc\n"
             "from accelbench.engine.core.patterns import _Lazy\n"
             "from accelbench.engine.plugin import registry\n"
             "registry.dialects()\n"
             "made = [o for o in gc.get_objects() if type(o) is _Lazy]\n"
             "print(len(made), [o.pattern for o in made if 'match' in vars(o)])\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=1)
    assert int(out[0]) > 200
    assert out[1].strip() == "[]"
