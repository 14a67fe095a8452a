"""The tally of bench/real_figures.py: the figures a user reads off the real fixtures."""

from __future__ import annotations

import sys

from real_logs import fixtures

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from real_figures import DOC_HEAD, report, tally
from real_figures_list import listed


def test_every_real_fixture_is_tallied_and_the_document_current():
    """Every fixture has its figures listed (a new one must be added to
    bench/real_figures_list.py or a family module beside it); every failed run is filed as
    failed; docs/real-formats.md is what the script writes now (re-run it after a change)."""
    found = listed()
    assert sorted(f.path for f in found) == sorted(
        f"{p.parent.name}/{p.name}" for p in fixtures())
    tally(found)
    failed = [f for f in found if f.failed_run]
    assert failed and all("failed" in f.statuses for f in failed), report(found)
    doc = (ROOT / "docs" / "real-formats.md").read_text(encoding="utf-8")
    assert doc == DOC_HEAD + report(found)


def test_the_target_is_met():
    """At least 95 % of the figures listed are read."""
    found = listed()
    tally(found)
    wanted = sum(len(f.figures) for f in found)
    got = sum(len(f.got) for f in found)
    assert got / wanted >= 0.95, report(found)
