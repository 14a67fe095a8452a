"""The recorded body of a real fixture (its ``# `` comment lines left out): what the
stand-ins in this folder print."""

from pathlib import Path

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def body(system: str, name: str) -> str:
    lines = (REAL / system / name).read_text().splitlines()
    return "".join(line + "\n" for line in lines if not line.startswith("# "))
