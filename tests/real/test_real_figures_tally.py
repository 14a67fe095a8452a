"""The tally of bench/real_figures.py: the figures a user reads off the real fixtures."""

from __future__ import annotations

import sys

from real_logs import REAL, fixtures

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from real_figures import DOC_HEAD, report, tally
from real_figures_list import listed


def test_every_real_fixture_is_tallied_and_the_document_current():
    """Every fixture has its figures listed (a new one must be added to
    bench/real_figures_list.py or a family module beside it); docs/real-formats.md is what
    the script writes now (re-run it after a change).

    The figures not read are pinned one by one, not by the 95 % target: each fixture's
    figures not read now must be exactly the doc's "Figures not read" list, so one figure
    that a change stops reading fails here, named with its fixture (and one newly read
    asks for the doc to be written again)."""
    found = listed()
    covered = [str(p.relative_to(REAL)) for f in found for p in
               ([q for q in (REAL / f.path).rglob("*") if q.is_file() and q.suffix != ".source"]
                if (REAL / f.path).is_dir() else [REAL / f.path])]  # (a run directory: its files)
    assert sorted(covered) == sorted(str(p.relative_to(REAL)) for p in fixtures())
    tally(found)
    doc = (ROOT / "docs" / "real-formats.md").read_text(encoding="utf-8")
    missed = {f.path: ", ".join(m.label() for m in f.missed) for f in found if f.missed}
    _, _, listing = doc.partition("\nFigures not read:\n\n")
    pinned = dict(line.removeprefix("- `").split("`: ", 1)
                  for line in listing.splitlines() if line.startswith("- `"))
    changed = {path: (pinned.get(path, ""), missed.get(path, ""))
               for path in missed.keys() | pinned.keys() if pinned.get(path) != missed.get(path)}
    assert not changed, "figures not read (docs/real-formats.md, now):\n" + "\n".join(
        f"{path}: {was or '-'} -> {now or '-'}" for path, (was, now) in sorted(changed.items()))
    assert doc == DOC_HEAD + report(found)


def test_the_target_is_met():
    """At least 95 % of the figures listed are read and every failed run is filed as failed."""
    found = listed()
    tally(found)
    wanted = sum(len(f.figures) for f in found)
    got = sum(len(f.got) for f in found)
    assert got / wanted >= 0.95, report(found)
    failed = [f for f in found if f.failed_run]
    assert failed and all("failed" in f.statuses for f in failed), report(found)


def test_a_canonical_figure_counts_on_its_canonical_metric_or_the_printed_keys_name():
    """``step_time(812.3, "ms", key)`` is 0.8123 s on Metric ``step_time_s``, or 812.3 on a
    Metric named for the printed key; the wrong unit or another metric's name is no hit."""
    from real_figures import Fixture, found_in_log, memory, mfu, step_time

    from accelbench.engine.core.events import Metric, Progress

    fixture = Fixture("frameworks/x.log", "x", [])
    figure = step_time(812.3, "ms", "elapsed time per iteration (ms)")

    def found(fig, *events):
        return found_in_log(fig, list(events), fixture)

    assert found(figure, Metric("r", 0.0, "step_time_s", 0.8123))
    assert found(figure, Metric("r", 0.0, "elapsed_time_per_iteration_ms", 812.3))
    assert not found(figure, Metric("r", 0.0, "step_time_s", 812.3))
    assert not found(figure, Metric("r", 0.0, "loss", 0.8123), Progress("r", 0.0, 812, 0))
    assert found(mfu(0.352, fraction=True), Metric("r", 0.0, "mfu_percent", 35.2))
    assert found(memory(1536, "MB", "max_mem"), Metric("r", 0.0, "memory_gib", 1.5))
    assert not found(memory(1536, "MB", "max_mem"), Metric("r", 0.0, "memory_gib", 1536))
