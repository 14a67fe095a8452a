"""``accelbench parse``: the events of a log file, streamed (JSON lines) or summed up per run."""

from __future__ import annotations

import sys

from accelbench.engine import format as fmt
from accelbench.engine import logfile
from accelbench.engine import rows as batches
from accelbench.engine.jsonlines import json_lines
from accelbench.engine.logclock import zone_file
from accelbench.engine.state import RunState


class _JsonLines(logfile.Reader):
    """Prints each event as a JSON line as the pass goes (a ``Rows``' from its columns)."""

    def batch(self, batch: batches.Batch) -> None:
        sys.stdout.write(json_lines(batch))


class _Summaries(logfile.Reader):
    """Each run's title, dialects, number of events and summary."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, list[str], int, logfile.Outcome, RunState]] = []

    def begin(self, run_id: str, dialects: list[str]) -> None:
        self.state, self.count, self.dialects = RunState("parsed"), 0, dialects

    def batch(self, batch: batches.Batch) -> None:
        self.count += batches.count(batch)
        self.state.feed_all(batch)  # (its Rows folded as columns: no event objects made)

    def end(self, title: str, outcome: logfile.Outcome) -> None:
        self.rows.append((title, self.dialects, self.count, outcome, self.state))


def parse(path: str, dialect: str, as_json: bool) -> int:
    """Print the events of the log at ``path`` (JSON lines), or a table of its runs."""
    if as_json:
        with zone_file():
            logfile.read_file(path, _JsonLines(), dialect)
        return 0
    from accelbench.cli.console import console
    from accelbench.cli.live import table
    from accelbench.engine.present import Cell, counted, parse_heads

    runs = _Summaries()
    with zone_file():  # (local times read quicker: one thread here)
        logfile.read_file(path, runs, dialect)
    rows = []
    for title, dialects, count, outcome, state in runs.rows:
        summary = state.summary()
        code = "" if outcome.exit_code is None else f" (exit {outcome.exit_code})"
        rows.append([Cell(title or "(top)"), Cell(", ".join(dialects) or "-"),
                     Cell(str(count), justify="right"), Cell(outcome.status + code),
                     Cell(fmt.number(summary.samples_per_s), justify="right"),
                     Cell(fmt.number(summary.final_loss), justify="right"),
                     Cell(fmt.fixed(summary.accuracy), justify="right"),
                     Cell("\n".join(f"{d.code}: {d.message}" for d in state.diagnoses) or "-")])
    out = console()
    out.print(table(parse_heads(), rows, out.width,
                    title=f"{path}: {counted(len(runs.rows), 'section')}"))
    return 0
