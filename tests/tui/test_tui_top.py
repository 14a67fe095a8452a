"""The app's top screen (f4): snapshots at 80x24 and 160x48 of a sample read by the real
readers from real recorded vendor output (fixed CPU figures), and the app answering
keys while a vendor tool hangs."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import time

import pytest
from rich.console import Console
from textual.widgets._header import HeaderTitle

from accelbench.engine.run.top import Sample
from accelbench.engine.systems.cuda.dialect import query_rows
from accelbench.engine.systems.cuda.node import smi_devices
from accelbench.engine.systems.ipu.node import ipus
from accelbench.engine.systems.sambanova.node import rdus
from accelbench.engine.systems.sambanova.telemetry import TileTable
from accelbench.engine.systems.trainium.node import cores
from accelbench.engine.telemetry import node
from accelbench.engine.telemetry.host import cpu_devices
from accelbench.engine.telemetry.node import Device, Reading
from accelbench.tui.app import AccelbenchApp
from accelbench.tui.screens import top as top_screen
from accelbench.tui.screens.top import TopLine
from tests.helpers import ROOT, SIZES

pytestmark = pytest.mark.usefixtures("fixed_detection")

REAL = ROOT / "tests" / "fixtures" / "real"
STANDINS = ROOT / "tests" / "standins"
T = 1795456800.0  # the sample's time (the app's view does not show it)
RUN = "20261123-175500-cpu-mnist-3fa9c1"


def body(system: str, name: str) -> str:
    lines = (REAL / system / name).read_text().splitlines()
    return "\n".join(line for line in lines if not line.startswith("# "))


def recorded_sample() -> Sample:
    table = TileTable()
    for line in body("sambanova", "sntilestat_busy_wrapped.txt").splitlines():
        table.feed(line)
    table.close()
    rdu = rdus(table)
    rdu[0] = dataclasses.replace(rdu[0], runs=(RUN,))
    host = cpu_devices([float((i * 37) % 101) for i in range(16)])
    host[0] = dataclasses.replace(host[0], pids=(4242,), runs=(RUN,))
    host.append(Device("mem", "memory", 18.5, 12083.2, 64298.4))
    readings = [
        ("cpu", "psutil", host),
        ("cuda", "nvidia-smi", smi_devices(query_rows(body("cuda", "query_gpu_h100_load.csv")),
                                           [])),
        ("trainium", "neuron-monitor",
         cores(json.loads(body("trainium", "neuron_monitor_trn1_idle.jsonl")))),
        ("ipu", "gc-monitor", ipus(body("ipu", "gc_monitor_one_ipu_matilda.txt"),
                                   body("ipu", "gc_info_device_info_matilda.txt"))),
        ("sambanova", "sntilestat", rdu)]
    return Sample(T, tuple(Reading(system, source, T, tuple(devices))
                           for system, source, devices in readings))


class RecordedTop:
    """Stands in for ``engine.top.Top``: the recorded sample, every time."""

    def __init__(self, interval: float = 1.0, store=None) -> None:
        self.closed = False

    def start(self) -> RecordedTop:
        return self

    def sample(self) -> Sample:
        return recorded_sample()

    def close(self) -> None:
        self.closed = True


def view_text(app, width: int = 200) -> str:
    console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    for widget in app.screen.query_one("#top-view").query_children(TopLine):
        console.print(widget.line)
    return console.export_text()


async def show_top(pilot):
    await pilot.press("f4")
    while "accelbench top" not in view_text(pilot.app):
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_top_screen(snap_compare, runner, monkeypatch, size):
    monkeypatch.setattr(top_screen, "Top", RecordedTop)
    assert snap_compare(AccelbenchApp(runner), terminal_size=size, run_before=show_top)


async def test_the_app_answers_while_a_vendor_tool_hangs(runner, monkeypatch):
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDINS / "hang"), str(STANDINS / "top"),
                                                os.environ["PATH"]]))
    monkeypatch.setattr(node, "TOOL_TIMEOUT_S", 120.0)  # gc-monitor hangs all along
    monkeypatch.setitem(sys.modules, "pynvml", None)  # NVML absent: nvidia-smi is read
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        screen = app.screen
        deadline = time.monotonic() + 60
        while not all(f" {d} " in view_text(app) for d in ("gpu0", "nc1", "rdu0")):
            assert time.monotonic() < deadline
            await pilot.pause(0.1)
        assert "Graphcore IPU (PopTorch): waiting for its first reading" in view_text(app)
        gaps, last = [], [time.monotonic()]

        def tick() -> None:
            now = time.monotonic()
            gaps.append(now - last[0])
            last[0] = now

        ticker = app.set_interval(0.05, tick)
        await pilot.pause(3.0)  # three refreshes of the view, gc-monitor still hung
        ticker.stop()
        assert len(gaps) > 10 and max(gaps) < 0.5  # the event loop never waited on it
        await pilot.press("f3")
        assert app.current_mode == "runs"
        await pilot.pause(0.2)
        assert screen.top is None  # its samplers stopped once it was left
        await pilot.press("f4")
        while screen.top is None:  # started again when shown again
            await pilot.pause(0.05)


async def test_p_shows_each_core_and_the_title_says_top(runner, monkeypatch):
    monkeypatch.setattr(top_screen, "Top", RecordedTop)
    app = AccelbenchApp(runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_top(pilot)
        assert str(app.screen.query_one(HeaderTitle).render()) == "Top — this node"
        view = view_text(app, 80).splitlines()
        assert view[1].startswith("CPU 16 cores ") and view[1].endswith("  3fa9c1")
        assert "cpu15" not in view_text(app, 80)
        await pilot.press("p")
        await pilot.pause()
        cores = view_text(app, 80).splitlines()[2:6]  # four to a line at 78 columns
        assert [re.findall(r"cpu\d+", line) for line in cores] == [
            [f"cpu{i}" for i in range(n, n + 4)] for n in (0, 4, 8, 12)]
        await pilot.press("p")
        await pilot.pause()
        assert view_text(app, 80).splitlines() == view
