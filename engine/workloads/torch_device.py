"""The torch device a workload script runs on, checked before any work.

Standalone like the scripts (torch and the sibling ``emit`` only): a system names its
device string (``System.device``: ``hpu``, ``xla``, ``npu``, ...) and, where torch learns
the device from a package of its own, that package (``System.device_module``); the
generic workloads take both as ``--device`` and ``--device-module``.
"""

from __future__ import annotations

import importlib

import torch
from emit import fail, first_line


def open_device(name: str, module: str, hint: str) -> torch.device:
    """``name`` as a torch device, ``module`` imported first if given; a diagnosis and
    exit 2 (``device_module_missing``, ``device_unavailable``) when torch cannot use it."""
    if module:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - a vendor package fails in its own ways
            fail("device_module_missing",
                 f"--device {name}: cannot import {module} ({first_line(exc)})", hint)
    try:
        device = torch.device(name)
        torch.zeros(1, device=device)
    except Exception as exc:  # noqa: BLE001 - each backend raises its own error
        fail("device_unavailable", f"--device {name}: torch cannot use it here"
             f" ({first_line(exc)})", hint)
    return device
