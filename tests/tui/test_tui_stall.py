"""What keeps the app's event loop short while a run is shown: a log that grows without a
layout, renders each line once, and full garbage collections kept out of the frames."""

import gc

from textual.app import App, ComposeResult
from textual.widgets import Log, Static

from accelbench.tui import app as tui_app
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.widgets.log_pane import GrowingLog


class LogApp(App):
    CSS = "GrowingLog { height: 1fr; } GrowingLog.red { color: #ff0000; }"

    def compose(self) -> ComposeResult:
        yield Static("above")
        yield GrowingLog(max_lines=1000)


def visible_text(log: Log) -> list[str]:
    return [log.render_line(y).text.rstrip() for y in range(log.scrollable_content_region.height)]


async def test_the_log_grows_without_a_layout_and_stays_scrolled_to_its_end():
    app = LogApp()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(GrowingLog)
        log.write_lines([f"line {i}" for i in range(30)])  # its scrollbar comes: a layout
        await pilot.pause()
        layouts = []
        refresh_layout = app.screen._refresh_layout
        app.screen._refresh_layout = lambda *a, **k: (layouts.append(1), refresh_layout(*a, **k))
        for n in range(30, 90, 6):
            log.write_lines([f"line {i}" for i in range(n, n + 6)])
            await pilot.pause()
        assert layouts == []
        assert log.virtual_size.height == 90
        assert log.scroll_y == log.max_scroll_y == 90 - log.scrollable_content_region.height
        assert log.vertical_scrollbar.window_virtual_size == 90
        assert visible_text(log)[-1] == "line 89"


async def test_the_log_renders_a_line_once_per_style(monkeypatch):
    rendered = []
    render = Log._render_line_strip

    def counting(self, y, style):
        rendered.append(y)
        return render(self, y, style)

    monkeypatch.setattr(Log, "_render_line_strip", counting)
    app = LogApp()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(GrowingLog)
        log.write_lines([f"line {i}" for i in range(50)])
        await pilot.pause()
        rendered.clear()
        for y in (0, 20, 0):  # scrolled up and back: lines shown twice
            log.scroll_to(y=y, animate=False, immediate=True)
            visible_text(log)
        log.scroll_end(animate=False, immediate=True)
        visible_text(log)
        assert visible_text(log)[-1] == "line 49"
        assert sorted(rendered) == sorted(set(rendered))  # rendered once each
        log.add_class("red")  # a new style: the lines are rendered again, in it
        await pilot.pause()
        assert {s.style.color.triplet for s in log.render_line(0)} == {(255, 0, 0)}


async def test_the_app_freezes_the_collector_while_it_runs(runner):
    threshold = gc.get_threshold()
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        assert gc.get_freeze_count() > 10_000  # what import and the first screen made
        assert gc.get_threshold()[2] == tui_app.NO_FULL_GC
        assert [t for t in app._timers if t.name.startswith("set_interval")
                and t._callback == app._collect]
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == threshold
