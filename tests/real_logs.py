"""Real public output kept as fixtures under ``tests/fixtures/real/<system>/``.

Each file's first line names where it comes from (``# source: URL or repo/path@commit, what
part; partial where it is``); the rest is the output exactly as published. A binary file
(a TensorBoard event file) is kept as published, its source line in ``<name>.source``.
"""

from __future__ import annotations

from pathlib import Path

REAL = Path(__file__).parent / "fixtures" / "real"


def source(path: Path) -> str:
    """The source line of the fixture at ``path`` (a binary one's: its ``.source`` file's)."""
    sidecar = path.with_name(path.name + ".source")
    return (sidecar if sidecar.exists() else path).read_text(encoding="utf-8").split("\n", 1)[0]


def body(system: str, name: str) -> str:
    """The published output of fixture ``name`` of ``system``, without its source line."""
    text = (REAL / system / name).read_text(encoding="utf-8")
    return text.split("\n", 1)[1] if "\n" in text else ""


def fixtures() -> list[Path]:
    """Every real fixture (README and ``.source`` files aside)."""
    return sorted(p for p in REAL.rglob("*") if p.is_file() and p.name != "README.md"
                  and p.suffix != ".source")
