"""Every real fixture names its source on its first line."""

from __future__ import annotations

import re

from real_logs import fixtures, source


def test_every_real_fixture_names_its_source():
    for path in fixtures():
        first = source(path)
        assert re.match(r"# source: \S", first), f"{path}: first line {first!r}"
