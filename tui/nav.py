"""Where the user is: each screen's crumb and the header's breadcrumb built from them."""

from __future__ import annotations

from textual.screen import Screen

SEP = " > "


class NavScreen(Screen):
    """A screen with a crumb (``crumb``): its header's title is the breadcrumb of the
    screens under it in the mode's stack, then its own (``Runs > run a1b2c3``)."""

    crumb = ""

    def on_screen_resume(self) -> None:
        self.show_breadcrumb()

    def show_breadcrumb(self) -> None:
        """Set the title to the crumbs from the mode's first screen up to this one."""
        stack = self.app.screen_stack
        below = stack[:stack.index(self) + 1] if self in stack else [self]
        self.title = SEP.join(s.crumb for s in below if isinstance(s, NavScreen) and s.crumb)

