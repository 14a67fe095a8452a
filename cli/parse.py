"""``accelbench parse``: the events of a log file, streamed (JSON lines) or summed up per run."""

from __future__ import annotations

import sys

from accelbench.engine import format as fmt
from accelbench.engine import logfile
from accelbench.engine.events import Event
from accelbench.engine.jsonlines import json_lines
from accelbench.engine.state import RunState
from accelbench.engine.summary import RunSummary


class _JsonLines(logfile.Reader):
    """Prints each event as a JSON line as the pass goes."""

    def events(self, events: list[Event]) -> None:
        sys.stdout.write(json_lines(events))


class _Summaries(logfile.Reader):
    """Each run's title, dialects, number of events and summary."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, list[str], int, RunSummary]] = []

    def begin(self, run_id: str, dialects: list[str]) -> None:
        self.state, self.count, self.dialects = RunState("parsed"), 0, dialects

    def events(self, events: list[Event]) -> None:
        self.count += len(events)
        for event in events:
            self.state.feed(event)

    def end(self, title: str) -> None:
        self.rows.append((title, self.dialects, self.count, self.state.summary()))


def parse(path: str, dialect: str, as_json: bool) -> int:
    """Print the events of the log at ``path`` (JSON lines), or a table of its runs."""
    if as_json:
        logfile.read_file(path, _JsonLines(), dialect)
        return 0
    from rich.table import Table

    from accelbench.cli.live import console

    runs = _Summaries()
    logfile.read_file(path, runs, dialect)
    table = Table(title=f"{path}: {len(runs.rows)} sections")
    for column in ("section", "dialects", "events", "samples/s", "final loss", "accuracy"):
        table.add_column(column)
    for title, dialects, count, summary in runs.rows:
        table.add_row(title or "(top)", ", ".join(dialects) or "-", str(count),
                      fmt.number(summary.samples_per_s), fmt.number(summary.final_loss),
                      fmt.number(summary.accuracy))
    console().print(table)
    return 0
