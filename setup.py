"""The package list, found rather than kept by hand: every folder under the top-level
``engine/``, ``tui/``, ``cli/``, ``presets/`` and ``api/`` installs as
``accelbench.<folder>...`` (pyproject.toml maps the five folders to that namespace;
everything else is there)."""

from setuptools import find_namespace_packages, setup

TOP = ("engine", "tui", "cli", "presets", "api")

setup(packages=[f"accelbench.{name}" for name in find_namespace_packages(
    include=[pattern for top in TOP for pattern in (top, f"{top}.*")],
    exclude=["*.__pycache__"])])
