"""The links between the README and docs/ resolve: each relative link names a file that
exists, and each ``#anchor`` a heading of that file (as GitHub makes anchors of them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```$", re.S | re.M)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of the headings of ``path``: lower case, punctuation dropped but
    ``-`` and ``_``, spaces as ``-``."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", m[1].strip().lower()).replace(" ", "-")
            for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def links(path: Path) -> list[str]:
    """The relative links of ``path`` (outside code blocks)."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_relative_links_resolve(doc: Path):
    broken = []
    for target in links(doc):
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        if not dest.exists():
            broken.append(f"{target}: no file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not broken, f"{doc.relative_to(ROOT)}: " + "; ".join(broken)


def test_every_doc_is_reached_from_the_readme():
    """Each page of docs/ is linked from the README or from a page the README links."""
    reached, todo = {ROOT / "README.md"}, [ROOT / "README.md"]
    while todo:
        doc = todo.pop()
        for target in links(doc):
            file = target.partition("#")[0]
            dest = (doc.parent / file).resolve() if file else doc
            if dest.suffix == ".md" and dest.exists() and dest not in reached:
                reached.add(dest)
                todo.append(dest)
    assert not set(DOCS) - reached, sorted(str(d) for d in set(DOCS) - reached)
