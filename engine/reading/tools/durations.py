"""Durations as schedulers print them: ``[DD-][HH:]MM:SS[.fff]`` (Slurm's ``Elapsed`` and
``TIME``, PBS's ``walltime`` and ``cput``)."""

from __future__ import annotations

from accelbench.engine.core.patterns import lazy

_ELAPSED = lazy(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$")


def elapsed_seconds(text: str) -> float | None:
    """``2-01:24:56``, ``01:09:48``, ``00:03:25`` or ``00:00.004`` as seconds."""
    m = _ELAPSED.match(text.strip())
    if m is None:
        return None
    days, hours, minutes, seconds = m.groups()
    return ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes)) * 60 + float(seconds)
