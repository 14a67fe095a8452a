"""Reading logs people already have: split a file into sections, detect dialects, parse.

The seed notes mix several runs in one markdown file, each under a heading; a
section is the text from one heading to the next (the whole file if it has none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import UserError
from engine.events import Event
from engine.parsers import DIALECTS, get_dialect

_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")


@dataclass
class Section:
    """A part of a log file, the dialects found in it, and the events they give."""

    title: str
    text: str
    dialects: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def split_sections(text: str) -> list[Section]:
    """Sections at markdown headings (outside fenced code blocks)."""
    sections, title, lines, fenced = [], "", [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            if any(part.strip() for part in lines):
                sections.append(Section(title, "\n".join(lines)))
            title, lines = heading.group(1).replace("*", "").strip(), []
        else:
            lines.append(line)
    if any(part.strip() for part in lines):
        sections.append(Section(title, "\n".join(lines)))
    return sections


def detect(text: str) -> list[str]:
    """The dialects whose sniff recognises ``text``."""
    return [name for name in DIALECTS if get_dialect(name).sniff(text)]


def parse_section(section: Section, run_id: str, dialects: list[str], ts: float = 0.0) -> None:
    """Fill ``section.events`` from its text with ``dialects`` (lines split as the tail does)."""
    section.dialects = dialects
    parsers = [get_dialect(name)(run_id) for name in dialects]
    events: list[Event] = []
    for line in section.text.split("\n"):
        for part in [p for p in line.split("\r") if p] or [""]:
            for parser in parsers:
                events += parser.feed(part, ts)
    for parser in parsers:
        events += parser.finish(ts)
    section.events = events


def parse_file(path: str | Path, dialect: str = "auto") -> list[Section]:
    """The sections of a log file with their events; ``auto`` detects dialects per section."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if dialect != "auto" and dialect not in DIALECTS:
        raise UserError(f"unknown dialect {dialect!r}",
                        hint="known dialects: auto, " + ", ".join(DIALECTS))
    sections = split_sections(text)
    for index, section in enumerate(sections, 1):
        names = detect(section.text) if dialect == "auto" else [dialect]
        parse_section(section, f"{path.stem}#{index}", names)
    return sections
