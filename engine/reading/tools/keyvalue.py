"""Indented ``key SEP value`` records: ``nvidia-smi -q`` (``key : value`` under section
titles by indentation) and ``qstat -f`` (``key = value`` under ``Job Id:`` lines, a long
value continued on tab-indented lines).

:func:`records` splits text into records at their title lines; :func:`fields` reads a
record's lines into ``{path: value}``, where a key's path is its section titles and its
own name joined by ``/`` (``FB Memory Usage/Used``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def records(lines: list[str], title: re.Pattern[str]) -> Iterator[tuple[str, list[str]]]:
    """Each record of ``lines``: the text ``title`` matched at its first line (group 1),
    and the lines up to the next such line."""
    name: str | None = None
    body: list[str] = []
    for line in lines:
        if m := title.match(line):
            if name is not None:
                yield name, body
            name, body = m[1].strip(), []
        elif name is not None:
            body.append(line)
    if name is not None:
        yield name, body


def fields(lines: list[str], sep: str, continued: str = "\t") -> dict[str, str]:
    """``{path: value}`` of indented ``key SEP value`` lines; a line with no ``SEP`` opens
    a section (its keys are under it while indented deeper), and one starting with
    ``continued`` carries on the value before it. The first value of a path is kept."""
    found: dict[str, str] = {}
    sections: list[tuple[int, str]] = []  # (indent, title) of the sections open
    last = ""
    for raw in lines:
        if continued and raw.startswith(continued) and last:
            found[last] += raw.strip()
            continue
        line = raw.rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while sections and sections[-1][0] >= indent:
            sections.pop()
        key, has, value = line.strip().partition(sep)
        if not has:
            sections.append((indent, key.strip()))
            last = ""
            continue
        path = "/".join([*(title for _, title in sections), key.strip()])
        if path not in found:
            found[path] = value.strip()
            last = path
        else:
            last = ""
    return found
