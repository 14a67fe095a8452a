"""Cerebras CS-2: reached from the login node through the appliance's ``csctl``."""

from __future__ import annotations

from accelbench.engine.accelerators import Accelerator, Availability
from accelbench.engine.accelerators.probe import tools


def detect() -> Availability:
    """Here when ``csctl`` (the appliance's client) is on PATH."""
    if tools("csctl"):
        return Availability(True, detail="csctl found (Cerebras appliance client)")
    return Availability(False, reason="csctl is not on PATH (not a Cerebras login node)")


ACCELERATOR = Accelerator(name="cerebras", title="Cerebras CS-2", device="csx", detect=detect)
