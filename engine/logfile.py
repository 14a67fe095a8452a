"""Reading logs people already have: split a file into sections, detect dialects, parse.

The seed notes mix several runs in one markdown file, each under a heading; a
section is the text from one heading to the next (the whole file if it has none). Only
markdown notes have headings: a ``.md`` file, or one with fenced code blocks; in a plain
log a line starting with ``# `` is a line like any other.

A section's run failed where a dialect gives a diagnosis (not one of its ``warnings``),
succeeded where one of its ``run_end``/``success`` metrics comes, and otherwise its log
does not say (``ended``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from accelbench.engine import registry
from accelbench.engine.errors import UserError, shown
from accelbench.engine.events import Diagnosis, Event, Metric, Phase
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import needs_of, wanted_lines
from accelbench.engine.runner import RunHandle
from accelbench.engine.spec import spec_from_dict
from accelbench.engine.store import EXIT_FILE, LAUNCH_FILE, OUTPUT_FILE, slug, write_json

_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")
_FENCE = re.compile(r"^\s*```", re.M)
MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass
class Section:
    """A part of a log file, the dialects found in it, and the events they give."""

    title: str
    text: str
    dialects: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    succeeded: bool = False  # a dialect's run_end or success metric came
    exit_code: int | None = None  # the exit code the log reports

    @property
    def status(self) -> str:
        """``failed`` (a diagnosis but a warning), ``done`` (the log shows success) or
        ``ended``."""
        if self.failure():
            return "failed"
        return "done" if self.succeeded else "ended"

    def failure(self) -> Diagnosis | None:
        """The first diagnosis saying the job failed (not one of its dialects' warnings)."""
        warnings = {code for name in self.dialects for code in registry.get_dialect(name).warnings}
        return next((e for e in self.events
                     if isinstance(e, Diagnosis) and e.code not in warnings), None)

    def span(self) -> float:
        """Seconds between the first and the last of the log's own timestamps (0: none)."""
        stamps = [e.ts for e in self.events if e.ts]
        return round(max(stamps) - min(stamps), 3) if stamps else 0.0


def is_markdown(path: Path, text: str) -> bool:
    """Whether a file holds markdown notes (headings split it), not a plain log."""
    return path.suffix.lower() in MARKDOWN_SUFFIXES or bool(_FENCE.search(text))


def _level(line: str) -> int:
    """The level of a heading-like line (its leading ``#``), 0 for another line."""
    return len(line) - len(line.lstrip("#")) if _HEADING.match(line) else 0


def split_sections(text: str) -> list[Section]:
    """Sections at markdown headings (outside fenced code blocks). Consecutive ``#`` lines
    of one level are a program's comment rows (``nvidia-smi dmon``'s column headers), not
    headings."""
    sections: list[Section] = []
    lines: list[str] = []
    title, fenced = "", False
    rows = text.split("\n")
    for i, line in enumerate(rows):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        level = 0 if fenced else _level(line)
        if level and level in (_level(rows[i - 1]) if i else 0,
                               _level(rows[i + 1]) if i + 1 < len(rows) else 0):
            level = 0
        heading = _HEADING.match(line) if level else None
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
    """The dialects whose sniff recognises ``text``; a ``fallback`` one only where no
    system's dialect does (that one reads the system's own progress bars)."""
    found = [name for name, dialect in registry.dialects().items() if dialect.sniff(text)]
    if any(name in registry.dialect_systems() for name in found):
        found = [name for name in found if not registry.dialects()[name].fallback]
    return found


def parse_section(section: Section, run_id: str, dialects: list[str], ts: float = 0.0) -> None:
    """Fill ``section.events`` from its text with ``dialects`` (the lines they need)."""
    section.dialects = dialects
    parsers = [registry.get_dialect(name)(run_id) for name in dialects]
    events: list[Event] = []
    for _, line in wanted_lines(section.text, needs_of(parsers)):
        events += _feed(parsers, line, ts)
    for parser in parsers:
        events += parser.finish(ts)
    section.events = events
    ends = {name for parser in parsers for name in parser.run_end | parser.success}
    section.succeeded = any(isinstance(e, Metric) and e.name in ends for e in events)
    section.exit_code = next((p.exit_code for p in parsers if p.exit_code is not None), None)


def _feed(parsers: list[Dialect], line: str | None, ts: float) -> list[Event]:
    """The events of ``line`` (split at carriage returns as the tail does), or of the
    lines skipped where ``line`` is None."""
    if line is None:
        return [e for parser in parsers for e in parser.skipped(ts)]
    return [e for part in [p for p in line.split("\r") if p] or [""]
            for parser in parsers for e in parser.feed(part, ts)]


def _closing(event: Event) -> bool:
    """True for an event that may belong to the run before it: its wind-down or the
    diagnosis of its failure (an app asserting on the figures it just printed)."""
    return isinstance(event, Diagnosis) or (isinstance(event, Phase)
                                            and event.name == "completing")


def split_runs(section: Section, dialects: list[str]) -> list[Section]:
    """A section cut after each line that ends a run (a dialect's ``run_end`` metric),
    where another run's figures follow: one seed section often holds two runs. A
    run's closing events (``_closing``) after its end do not start another; wind-down
    lines just before another run's figures (a result table's header) are that run's,
    but not across a diagnosis (how the run before ended)."""
    parsers = [registry.get_dialect(name)("split") for name in dialects]
    ends = {name for parser in parsers for name in parser.run_end}
    cuts = [0]
    ended, wind_down = False, None  # where wind-down lines after the end began
    for offset, line in wanted_lines(section.text, needs_of(parsers)):
        events = _feed(parsers, line, 0.0)
        if ended and events:
            if not all(_closing(e) for e in events):
                cuts.append(offset if wind_down is None else wind_down)
                ended, wind_down = False, None
            elif any(isinstance(e, Diagnosis) for e in events):
                wind_down = None
            elif wind_down is None:
                wind_down = offset
        ended = ended or any(isinstance(e, Metric) and e.name in ends for e in events)
    if len(cuts) == 1:
        return [section]
    text = section.text
    parts = [text[start:end - 1] for start, end in itertools.pairwise(cuts)]
    parts.append(text[cuts[-1]:])
    return [Section(f"{section.title} ({i})" if section.title else f"({i})", part)
            for i, part in enumerate(parts, 1)]


def parse_file(path: str | Path, dialect: str = "auto") -> list[Section]:
    """The sections of a log file with their events; ``auto`` detects dialects per section."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if dialect != "auto" and dialect not in registry.dialects():
        raise UserError(f"unknown dialect {shown(dialect)}",
                        hint="known dialects: auto, " + ", ".join(registry.dialects()))
    sections: list[Section] = []
    parts = split_sections(text) if is_markdown(path, text) else [Section("", text)]
    for section in parts:
        names = detect(section.text) if dialect == "auto" else [dialect]
        for part in split_runs(section, names):
            parse_section(part, f"{path.stem}#{len(sections) + 1}", names)
            sections.append(part)
    return sections


def system_of(names: list[str]) -> str | None:
    """The accelerator a set of dialects points to, if any does (a system's own dialect)."""
    table = registry.dialect_systems()
    return next((table[name] for name in names if name in table), None)


def import_file(store, path: str | Path, dialect: str = "auto",
                accelerator: str | None = None) -> list:
    """Each section of a log that holds figures becomes a finished run in ``store``.

    The section's text is the run's ``output.log`` and its dialects are recorded, so
    its events are derived like any run's; the accelerator is ``accelerator`` or the
    one the dialects point to (the file's, for a section that only has Trainer output).
    """
    path = Path(path)
    sections = [s for s in parse_file(path, dialect) if any(e.kind != "log" for e in s.events)]
    if not sections:
        raise UserError(f"{path}: no section holds a log accelbench can read",
                        hint="name the dialect with --dialect (accelbench parse --help)")
    whole = system_of(detect(path.read_text(errors="replace"))) if dialect == "auto" else None
    runs = []
    for section in sections:
        system = accelerator or system_of(section.dialects) or whole or "cpu"
        name = slug(section.title or path.stem)
        spec = spec_from_dict({"name": name, "workload": "imported", "accelerator": system,
                               "telemetry_interval": 0,
                               "params": {"source": str(path.resolve()), "section": section.title,
                                          "dialects": ",".join(section.dialects)}},
                              source=str(path))
        info = store.create(spec)
        info.path(OUTPUT_FILE).write_text(section.text + "\n")
        write_json(info.path(LAUNCH_FILE), {"argv": [], "env": {}, "cwd": "",
                                             "telemetry_interval": 0,
                                             "dialects": section.dialects})
        write_json(info.path(EXIT_FILE), _exit(section, info.created, path))
        handle = RunHandle(store, info)
        handle.fold()
        runs.append(handle.info)
    return runs


def _exit(section: Section, created: float, path: Path) -> dict:
    """The exit record of an imported section: how its log says it ended, when (its own
    timestamps' span after ``created``) and with which exit code."""
    status, failure = section.status, section.failure()
    if failure:
        detail = failure.message
    elif status == "done":
        detail = f"imported from {path.name}"
    else:
        detail = f"its log ({path.name}) shows neither success nor failure"
    code = 0 if status == "done" and section.exit_code is None else section.exit_code
    return {"status": status, "returncode": code, "started": created,
            "ended": created + section.span(), "detail": detail}
