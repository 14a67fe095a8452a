"""The package list, found rather than kept by hand: every folder under the top-level
``engine/``, ``tui/``, ``cli/`` and ``presets/`` installs as ``accelbench.<folder>...``
(pyproject.toml maps the four folders to that namespace; everything else is there)."""

from setuptools import find_namespace_packages, setup

TOP = ("engine", "tui", "cli", "presets")

setup(packages=[f"accelbench.{name}" for name in find_namespace_packages(
    include=[pattern for top in TOP for pattern in (top, f"{top}.*")],
    exclude=["*.__pycache__"])])
