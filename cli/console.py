"""The rich console every command prints with (a module of its own: ``accelbench parse``
prints a table without what the live view imports)."""

from __future__ import annotations

from rich.console import Console


def console(**options) -> Console:
    """A console that never reads a string as markup or emoji codes: run names, metrics and
    log lines print as they are; styles come from ``Text`` and ``style=``."""
    return Console(markup=False, emoji=False, **options)
