"""The plug-ins' entry points are found as ``importlib.metadata`` finds them, without it."""

from __future__ import annotations

import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from accelbench.engine.plugin import entrypoints as plugins

GROUPS = ("accelbench.systems", "accelbench.launchers", "console_scripts", "accelbench.none")


def _same(group: str) -> None:
    found = plugins._entries(group)
    assert found is not None
    assert [(e.name, e.value) for e in found] == [
        (e.name, e.value) for e in entry_points(group=group)]


@pytest.mark.parametrize("group", GROUPS)
def test_the_installed_entry_points_are_found(group: str) -> None:
    _same(group)


def _dist(root: Path, folder: str, text: str | None) -> None:
    (root / folder).mkdir(parents=True)
    (root / folder / "METADATA").write_text(f"Name: {folder.partition('-')[0]}\nVersion: 1\n")
    if text is not None:
        (root / folder / "entry_points.txt").write_text(text)


def test_the_first_distribution_of_a_name_on_the_path_counts(tmp_path: Path,
                                                              monkeypatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _dist(first, "Some.Plugin-1.0.dist-info",
          "# a comment\n[accelbench.systems]\n one = some_plugin:ONE \n\n[other]\nx = y:z\n")
    _dist(first, "quiet-2.0.dist-info", None)
    _dist(second, "some_plugin-2.0.dist-info", "[accelbench.systems]\ntwo = some_plugin:TWO\n")
    _dist(second, "other-0.1.egg-info", "[accelbench.systems]\nthree = other.mod:A.B\n")
    (second / "loose-1.egg-info").write_text("Name: loose\n")  # (a file: no entry points)
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    for group in GROUPS:
        _same(group)
    assert [e.name for e in plugins._entries("accelbench.systems") or []][:2] == ["one",
                                                                                   "three"]


def test_a_zip_on_the_path_is_left_to_importlib(tmp_path: Path, monkeypatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("z-1.dist-info/METADATA", "Name: z\nVersion: 1\n")
        zipped.writestr("z-1.dist-info/entry_points.txt", "[accelbench.systems]\nz = z:Z\n")
    monkeypatch.syspath_prepend(str(archive))
    assert plugins._entries("accelbench.systems") is None
    assert "z" in {e.name for e in entry_points(group="accelbench.systems")}


def test_an_entry_point_loads_the_object_it_names() -> None:
    entry = plugins._Entry("x", "os.path : join")
    assert entry.load() is sys.modules["os"].path.join
