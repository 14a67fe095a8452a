"""Where the user is and how to go back: each screen's crumb, the header's breadcrumb
built from them, and esc closing the innermost thing open."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import HelpPanel

SEP = " > "


class NavScreen(Screen):
    """A screen with a crumb (``crumb``): its header's title is the breadcrumb of the
    screens under it in the mode's stack, then its own (``Runs > run a1b2c3``). Its esc
    closes the help panel if open, else the screen (not a mode's first one)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="nav.back", show=False,  # listed in the panel
                tooltip="Close the help panel, else this screen")]
    crumb = ""

    def on_screen_resume(self) -> None:
        self.show_breadcrumb()

    def show_breadcrumb(self) -> None:
        """Set the title to the crumbs from the mode's first screen up to this one."""
        stack = self.app.screen_stack
        below = stack[:stack.index(self) + 1] if self in stack else [self]
        self.title = SEP.join(s.crumb for s in below if isinstance(s, NavScreen) and s.crumb)

    def help_shown(self) -> bool:
        """The help panel is open (the app mounts it on the screen itself)."""
        return any(isinstance(child, HelpPanel) for child in self.children)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """esc is there when it has something to close (asked at every bindings refresh:
        no query of the whole screen)."""
        if action == "back":
            return self.help_shown() or self.app.screen_stack[0] is not self
        return True

    def action_back(self) -> None:
        if self.help_shown():
            self.app.action_hide_help_panel()
        elif self.app.screen_stack[0] is not self:
            self.app.pop_screen()
