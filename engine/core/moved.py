"""Import paths kept for one release after their module moved: each is a file at the old
path holding one call, ``moved(__name__, NEW)``, which makes the old name the new module
itself (every name, private ones too, is the same object) and warns ``DeprecationWarning``
naming the new path. Run as ``python -m OLD`` (a job queued before the move), it runs the
new module as ``__main__``."""

from __future__ import annotations

import importlib
import runpy
import sys
import warnings

PUBLIC_API = "accelbench.api"


def moved(old: str, new: str) -> None:
    """Stand the module ``new`` in for ``old`` (the module calling this)."""
    if old == "__main__":
        runpy.run_module(new, run_name="__main__", alter_sys=True)
        return
    warnings.warn(f"{old} has moved to {new} (a plug-in imports from {PUBLIC_API});"
                  " the old path goes in the next release", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
