"""Is a process, or a process group, still there (and still the one we started)?

A pid is checked with its creation time, so a reused pid never passes for the
process that had it before.
"""

from __future__ import annotations

import os

import psutil

SLACK = 1.0  # seconds of tolerance between a recorded time and a creation time


def alive(pid: int, started: float) -> bool:
    """``pid`` runs and is the process that started at ``started``, not a reused pid."""
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE and proc.create_time() <= started + SLACK
    except psutil.Error:
        return False


def group_alive(pgid: int, created: float) -> bool:
    """Some process of group ``pgid``, whose leader was created at ``created``, still runs
    (stopped counts, zombies do not).

    Linux hands out a pid again only once no process uses it as a group id; so a
    leader created later than ``created`` means the group we knew has ended.
    """
    try:
        leader = psutil.Process(pgid)
        if leader.create_time() > created + SLACK:
            return False  # the pid was reused: our group is gone
        if leader.status() != psutil.STATUS_ZOMBIE:
            return True
    except psutil.Error:
        pass
    for proc in psutil.process_iter(["status", "create_time"]):
        try:
            if (proc.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(proc.pid) == pgid
                    and (proc.info["create_time"] or 0) >= created - SLACK):
                return True
        except OSError:
            continue
    return False
