"""The file system under a path: where it is mounted, and why it refuses writes."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, NamedTuple

import psutil

FREE_SPACE_HINT = ("free some space there (`accelbench rm RUN`, `accelbench clean --older-than"
                   " DAYS`), or set ACCELBENCH_HOME to another file system")
ELSEWHERE_HINT = "set ACCELBENCH_HOME to a directory you can write"
FULL_BELOW = 1 << 20  # less free space than this (bytes) counts as a full disk


class Trouble(NamedTuple):
    """Why a path cannot be written, as one line, and what to do about it."""

    reason: str
    hint: str


def mount_point(path: Path) -> Path:
    """The mount point of the file system that holds ``path`` (or its nearest parent)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    while not os.path.ismount(path):
        path = path.parent
    return path


def filesystem(path: Path | str) -> dict[str, Any]:
    """``{"mount", "fstype", "free", "full"}`` for the file system holding ``path``.

    ``free`` is what this user may still write (root may use the blocks reserved for
    it); the disk is ``full`` when that is under ``FULL_BELOW`` or no inode is left.
    """
    real = os.path.realpath(path)
    mount = str(mount_point(Path(real)))
    st = os.statvfs(real)
    root = os.geteuid() == 0
    free = (st.f_bfree if root else st.f_bavail) * st.f_frsize
    no_inodes = st.f_files > 0 and (st.f_ffree if root else st.f_favail) == 0
    found = [p.fstype for p in psutil.disk_partitions(all=True) if p.mountpoint == mount]
    return {"mount": mount, "fstype": found[-1] if found else "", "free": free,
            "full": free < FULL_BELOW or no_inodes}


def trouble(path: Path, exc: BaseException | None = None) -> Trouble:
    """Why writing under ``path`` failed with ``exc``: a full or read-only file system
    (named by its mount point), a missing permission, or else the error itself."""
    mount = mount_point(path)
    code = getattr(exc, "errno", None)
    name = getattr(exc, "sqlite_errorname", None) or ""
    try:
        vfs = os.statvfs(mount)
        read_only, full = bool(vfs.f_flag & os.ST_RDONLY), vfs.f_bavail == 0
    except OSError:
        read_only = full = False
    if read_only or code == errno.EROFS:
        return Trouble(f"the file system at {mount} is read-only", ELSEWHERE_HINT)
    if full or code == errno.ENOSPC or name == "SQLITE_FULL" or "disk is full" in str(exc):
        return Trouble(f"no space left on the file system at {mount}", FREE_SPACE_HINT)
    if code == errno.EDQUOT:
        return Trouble(f"disk quota exceeded on the file system at {mount}", FREE_SPACE_HINT)
    if code in (errno.EACCES, errno.EPERM) or name.startswith("SQLITE_READONLY"):
        return Trouble(f"no permission to write in {path}", ELSEWHERE_HINT)
    detail = getattr(exc, "strerror", None) or exc or "cannot write"
    return Trouble(f"{detail} (file system at {mount})", ELSEWHERE_HINT)
