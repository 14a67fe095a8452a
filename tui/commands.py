"""Command palette entries: load a preset, open a run or an experiment, pick an accelerator."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from accelbench.engine.config.presets import list_presets
from accelbench.engine.core.job import JobSpec
from accelbench.engine.plugin import registry
from accelbench.engine.run.runner import Runner
from accelbench.engine.view.model import short_id

Entry = tuple[str, Callable[[], Any], str, tuple[str, ...]]
EXACT = 1e9  # the score of a run named exactly by the query: above any fuzzy match
NAMED_RUNS = 3  # the newest runs of a name that the name alone matches exactly


class _Target(Protocol):
    """What the commands call on the app (``AccelbenchApp``, which imports this module)."""

    runner: Runner

    def load_spec(self, spec: JobSpec) -> None: ...
    def open_run(self, run_id: str) -> None: ...
    def open_experiment(self, ref: str) -> None: ...
    def use_accelerator(self, name: str) -> None: ...


class AccelbenchCommands(Provider):
    """Presets, runs and accelerators, searchable by name."""

    async def startup(self) -> None:
        self.entries = await asyncio.to_thread(self._entries)

    def _entries(self) -> list[Entry]:
        """(text, callback, help, exact) per command, ``exact`` the queries that name it
        exactly (a run's id, its suffix, its name for the newest runs of that name); the
        texts escaped (names are the user's)."""
        app = cast(_Target, self.app)
        entries: list[Entry] = []
        for preset in list_presets():
            if preset.spec is not None:
                entries.append((f"Load preset: {escape(preset.name)}",
                                partial(app.load_spec, preset.spec),
                                escape(preset.spec.description), ()))
        named: dict[str, int] = {}
        for info in app.runner.store.list(limit=200):  # newest first
            named[info.name] = named.get(info.name, 0) + 1
            exact = (info.id, short_id(info.id)) + (
                (info.name,) if named[info.name] <= NAMED_RUNS else ())
            entries.append((f"Open run: {info.id}", partial(app.open_run, info.id),
                            f"{info.status} · {info.workload} on {info.accelerator}", exact))
        for exp in app.runner.store.experiments()[:50]:
            entries.append((f"Open experiment: {escape(exp.name)} ({exp.id})",
                            partial(app.open_experiment, exp.id),
                            f"{exp.status} · {exp.total} variants", ()))
        for acc in registry.systems().values():
            entries.append((f"Use accelerator: {acc.name}", partial(app.use_accelerator, acc.name),
                            acc.title, ()))
        return entries

    async def discover(self) -> Hits:
        for text, callback, help_text, _ in self.entries:
            yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """Fuzzy matches by score; a run the query names exactly before any."""
        matcher = self.matcher(query)
        wanted = query.strip()
        for text, callback, help_text, exact in self.entries:
            score = EXACT if wanted in exact else matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)
