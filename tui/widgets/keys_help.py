"""The help panel: the screen's own keys first, then the app's, then the generic ones
(moving, scrolling, editing), each action once with its keys and what it does."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import ActiveBinding
from textual.screen import Screen
from textual.widgets import HelpPanel, Markdown
from textual.widgets._key_panel import BindingsTable, KeyPanel

SECTIONS = ("this screen", "everywhere", "moving, scrolling, editing")


def section(active: ActiveBinding) -> int:
    """Where a binding is listed: the screen's own, the app's own (each of accelbench's
    bindings has an id), or the rest (Textual's widgets' and screens' generic keys)."""
    if active.binding.id and isinstance(active.node, Screen):
        return 0
    return 1 if active.binding.id and isinstance(active.node, App) else 2


class OwnKeysTable(BindingsTable):
    """The active bindings by section (``SECTIONS``); the keys of one action together."""

    def render_bindings_table(self) -> Table:
        key_style = self.get_component_rich_style("bindings-table--key")
        header_style = self.get_component_rich_style("bindings-table--header")
        table = Table(padding=(0, 0), show_header=False, box=box.SIMPLE)
        table.add_column("", justify="right")
        table.add_column("")
        by_action: dict[tuple[int, str], list[ActiveBinding]] = {}
        for active in self.screen.active_bindings.values():
            if not active.binding.system:
                by_action.setdefault((section(active), active.binding.action), []).append(active)
        for number, title in enumerate(SECTIONS):
            rows = [found for (where, _), found in by_action.items() if where == number]
            if not rows:
                continue
            table.add_row("", Text(title, style=header_style))
            for found in rows:
                keys = " ".join(dict.fromkeys(self.app.get_key_display(a.binding)
                                              for a in found))
                binding = found[0].binding
                about = Text(binding.description)
                if binding.tooltip and binding.tooltip != binding.description:
                    about.append(f" {binding.tooltip}", "dim")
                table.add_row(Text(keys, style=key_style), about)
            table.add_section()
        return table


class OwnKeyPanel(KeyPanel):
    """Textual's key panel with the bindings in ``OwnKeysTable``'s order."""

    def compose(self) -> ComposeResult:
        yield OwnKeysTable(shrink=True, expand=False)


class KeysHelp(HelpPanel):
    """Textual's help panel, with ``OwnKeyPanel`` for its keys."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield OwnKeyPanel(id="keys-help")
