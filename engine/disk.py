"""The filesystem a path lives on: its mount point, type and free space (is it full?)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psutil

FULL_BELOW = 1 << 20  # less free space than this (bytes) counts as a full disk


def filesystem(path: Path | str) -> dict[str, Any]:
    """``{"mount", "fstype", "free", "full"}`` for the filesystem holding ``path``.

    ``free`` is what this user may still write (root may use the blocks reserved for
    it); the disk is ``full`` when that is under ``FULL_BELOW`` or no inode is left.
    """
    real = os.path.realpath(path)
    mount = real
    while not os.path.ismount(mount):
        mount = os.path.dirname(mount)
    st = os.statvfs(real)
    free = (st.f_bfree if os.geteuid() == 0 else st.f_bavail) * st.f_frsize
    no_inodes = st.f_files > 0 and (st.f_ffree if os.geteuid() == 0 else st.f_favail) == 0
    return {"mount": mount, "fstype": _fstype(mount), "free": free,
            "full": free < FULL_BELOW or no_inodes}


def _fstype(mount: str) -> str:
    """The type of the filesystem mounted at ``mount`` (the last mount there wins)."""
    found = [p.fstype for p in psutil.disk_partitions(all=True) if p.mountpoint == mount]
    return found[-1] if found else ""
