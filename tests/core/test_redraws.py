"""Carriage-return progress bars: a line redrawn a million times without a newline is seen
live, ends as one log line, and costs bounded memory whatever the job prints."""

from __future__ import annotations

import asyncio
import io
import re
import shlex
import sys
import tracemalloc

from accelbench.cli.live import render
from accelbench.engine.config.spec import spec_from_dict
from accelbench.engine.core.events import Log, Redraw
from accelbench.engine.core.tail import CUT_MARK, MAX_LINE, FileTail
from accelbench.engine.run.state import RunState

REDRAWS = 1_000_000
JOB = f"""
import sys, time
n = {REDRAWS}
for burst in range(20):
    for i in range(burst * n // 20, (burst + 1) * n // 20):
        sys.stdout.write(f"\\r{{i * 100 // n:3d}}%|{{'#' * (i * 10 // n):10}}| {{i}}/{{n}}")
    sys.stdout.flush()
    time.sleep(0.2)
"""
BAR = re.compile(rf" *\d+%\|#* *\| \d+/{REDRAWS}")


def test_a_million_redraws_without_newline_are_seen_live_and_end_as_one_log(runner):
    spec = spec_from_dict({"name": "bar", "workload": "command", "telemetry_interval": 0,
                           "params": {"command": shlex.join([sys.executable, "-c", JOB])}})
    handle = runner.start(spec)

    async def follow():
        return [batch async for batch in handle.batches(poll=0.05)]
    batches = asyncio.run(follow())
    events = [e for batch in batches for e in batch]
    assert len(events) < 1000  # before: one Log per redraw, a million
    redraws = [e for e in events if isinstance(e, Redraw)]
    assert len(redraws) >= 3 and all(BAR.fullmatch(e.text) for e in redraws)
    final = f" 99%|{'#' * 9} | {REDRAWS - 1}/{REDRAWS}"
    assert redraws[0].text != final  # seen while the job was drawing it
    assert [e.text for e in events if isinstance(e, Log)] == [final]
    assert events[-1].kind == "finished" and events[-1].status == "done"

    replayed, state = runner.open(handle.id).replay()
    assert [e.text for e in replayed if isinstance(e, Log)] == [final]
    assert list(state.log_tail) == [final] and state.redraw == ""


def test_the_live_view_shows_the_line_being_redrawn_until_it_ends():
    state = RunState("r")
    state.feed(Log("r", 1, "stdout", "epoch 1"))
    state.feed(Redraw("r", 2, " 40%|####      | 4/10"))
    assert "40%|####" in _text(render(state, "bar", 160)) and state.log_lines == 1
    state.feed(Log("r", 3, "stdout", "100%|##########| 10/10"))
    assert state.redraw == "" and "40%" not in _text(render(state, "bar", 160))


def _text(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_the_tail_holds_a_bounded_buffer_whatever_it_reads(tmp_path):
    path = tmp_path / "out.log"
    with open(path, "wb") as f:  # 30 MB: a bar redrawn a million times, then a 5 MB line
        f.write(b"".join(b"\r%3d%%|####      | %d/1000000" % (i // 10_000, i)
                         for i in range(REDRAWS)))
        f.write(b"\n" + b"x" * (5 * MAX_LINE) + b"\r" + b"y" * (3 * MAX_LINE))
    tail = FileTail(path)
    lines: list[str] = []
    tracemalloc.start()
    try:
        while tail.more():
            lines += tail.read_lines(limit=MAX_LINE)
            assert len(tail._pending) <= MAX_LINE + 1
            assert tail._latest is None or len(tail._latest) <= MAX_LINE + 1
        lines += tail.rest()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MAX_LINE, peak  # a few times what one call reads, not the file
    assert lines == [" 99%|####      | 999999/1000000", "y" * MAX_LINE + CUT_MARK]


def test_a_state_not_ended_by_a_carriage_return_is_shown_once_it_stays_unchanged(tmp_path):
    path = tmp_path / "out.log"
    path.write_bytes(b"\r 10%\r 2")
    tail = FileTail(path)
    assert tail.read_lines() == [] and tail.redraw() == " 10%"  # " 2" may be half-written
    assert tail.redraw() == " 2"  # unchanged since: the job paused on it
    with open(path, "ab") as f:
        f.write(b"0%\n")
    assert tail.read_lines() == [" 20%"] and tail.redraw() is None
