"""Accelerator registry: what each system is, whether it is here, and why not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from accelbench.engine.errors import UserError, lookup


@dataclass(frozen=True)
class Availability:
    """Whether an accelerator can be used here; ``reason`` says why not, ``detail`` what is found."""

    available: bool
    detail: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Accelerator:
    """One system: its name, the device string workloads take, its detection, and the
    vendor sampler (``engine/telemetry``) that samples it beside the job, if any."""

    name: str
    title: str
    device: str
    detect: Callable[[], Availability]
    sampler: str = ""


def _registry() -> dict[str, Accelerator]:
    from accelbench.engine.accelerators import cerebras, cpu, cuda, groq, ipu, sambanova, trainium

    return {m.ACCELERATOR.name: m.ACCELERATOR
            for m in (cpu, cuda, trainium, ipu, sambanova, cerebras, groq)}


ACCELERATORS = _registry()


def get_accelerator(name: str) -> Accelerator:
    """The accelerator called ``name``, or a ``UserError`` listing the known ones."""
    return lookup(ACCELERATORS, name, "accelerator")


def require_available(name: str) -> Accelerator:
    """The accelerator called ``name`` if it is usable here, else a ``UserError`` saying why."""
    acc = get_accelerator(name)
    found = acc.detect()
    if not found.available:
        raise UserError(f"accelerator {name!r} is not available here: {found.reason}",
                        hint="run `accelbench accelerators` to see what is")
    return acc
