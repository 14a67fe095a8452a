"""The ``accelbench top`` view: one sample drawn as Rich text within a width.

The CLI's live view and the app's f4 screen both draw it. Lines: a heading, the CPU
(its cores' mean, the memory in use, the runs on it; on request each core's figure
after it), then a table of the
accelerators (a row per device: utilisation, memory, power, temperature, and the run
using it, else its processes), then a line per source that is not present and why. A
source with more than ``ROWS_MAX`` devices (a trn2 node's 128 NeuronCores) is drawn as
one strip like the CPU's, its rows only for the devices that processes use.
Columns are dropped by priority as the width narrows (the device model first), and
a run is shown whole when it fits, else by its unique 6-hex suffix. What a tool printed
(a device's name, why a source is absent) passes the output gate (``engine.core.text``).
"""

from __future__ import annotations

import textwrap
import time

from rich.text import Text

from accelbench.engine.core.text import printable
from accelbench.engine.run.top import Sample
from accelbench.engine.telemetry.node import WAITING, Device, Reading

BARS = "▁▁▂▃▄▅▆▇█"  # by eighths; idle is the lowest bar, never a space (a wrap eats it)
WIDE = 110  # from this width on, the device model and whole run ids are shown
MODEL_WIDTH = 24  # characters of the device model shown
HOST_SYSTEMS = ("cpu",)  # drawn as the CPU line, not as table rows
ROWS_MAX = 8  # a source with more devices is drawn as a strip


def render(sample: Sample, width: int, titles: dict[str, str], interval: float = 1.0,
           keys: str = "", per_core: bool = False) -> Text:
    """The whole view as one text; ``titles`` names the systems, ``keys`` ends the
    heading (e.g. "q quits"), ``per_core`` shows each CPU core."""
    return Text("\n").join(lines(sample, width, titles, interval, keys, per_core=per_core))


def lines(sample: Sample, width: int, titles: dict[str, str], interval: float = 1.0,
          keys: str = "", clock: bool = True, per_core: bool = False) -> list[Text]:
    """The view's lines, each within ``width``; the heading shows the sample's time
    if ``clock`` (the app leaves it out: a line fewer to redraw every second), each
    CPU core if ``per_core``."""
    when = time.strftime("  %H:%M:%S", time.localtime(sample.t)) if clock else ""
    heading = Text.assemble(("accelbench top", "bold"), when, f"  every {interval:g} s",
                            (f"  {keys}" if keys else "", "dim"))
    parts = [heading]
    host = [r for r in sample.readings if r.system in HOST_SYSTEMS]
    accel = [r for r in sample.readings if r.system not in HOST_SYSTEMS]
    for reading in (r for r in host if r.present):
        parts += cpu_lines(reading, width, per_core)
    rows = []
    for reading in (r for r in accel if r.present):
        many = len(reading.devices) > ROWS_MAX
        if many:
            parts += strip_lines(reading, width)
        rows += [(reading, d) for d in reading.devices if d.pids or not many]
    if rows:
        parts += device_table(rows, width)
    absent = [r for r in sample.readings if not r.present]
    for reading in absent:
        parts += absent_lines(titles.get(reading.system, reading.system), reading.why, width)
    if not any(r.devices for r in accel) and not absent:
        parts.append(Text("no accelerator found", style="dim"))
    return parts


def absent_lines(title: str, why: str, width: int) -> list[Text]:
    """``NVIDIA GPU (CUDA): not present (why)``, wrapped at ``width``."""
    state = "waiting for its first reading" if why == WAITING else "not present"
    title = printable(title)
    plain = f"{title}: {state}" + ("" if why == WAITING else f" ({printable(why)})")
    lines = [Text(line) for line in textwrap.wrap(plain, max(20, width),
                                                   subsequent_indent="  ")]
    lines[0].stylize("bold", 0, len(title) + 1)
    lines[0].highlight_words([state], "dim" if why == WAITING else "yellow")
    return lines


def cpu_lines(reading: Reading, width: int, per_core: bool = False) -> list[Text]:
    """``CPU 16 cores ████▌      45%  mem 12.3/62.7 GiB 19%  3fa9c1`` (what does not fit
    on a line goes on the next); then, if ``per_core``, each core: ``cpu3 ██▌   61%``,
    as many to a line as fit."""
    found = {d.id: d for d in reading.devices if not d.core}
    parts = []
    if (cpu := found.get("cpu")) is not None:
        parts.append(Text.assemble(("CPU", "bold"), f" {printable(cpu.name)} ",
                                   util_cell(cpu.util_percent, 10)))
    if (memory := found.get("mem")) is not None:
        parts.append(Text.assemble(("mem", "bold"), f" {memory_figure(memory)}"
                                   f" {memory.util_percent or 0:.0f}%"))
    if cpu is not None and (cpu.runs or cpu.pids):
        parts.append(users(cpu, width >= WIDE))
    cores = [d for d in reading.devices if d.core] if per_core else []
    name = max((len(d.id) for d in cores), default=0)
    cells = [Text(d.id.rjust(name) + " ") + util_cell(d.util_percent, 4) for d in cores]
    size = max((cell.cell_len for cell in cells), default=0)
    return [*pack(parts, width), *pack([cell + " " * (size - cell.cell_len) for cell in cells],
                                       width)]


def pack(parts: list[Text], width: int) -> list[Text]:
    """``parts`` two spaces apart, as many to a line as fit in ``width`` (a part wider
    than that is cut with an ellipsis)."""
    lines: list[Text] = []
    for part in parts:
        if lines and lines[-1].cell_len + 2 + part.cell_len <= width:
            lines[-1].append_text(Text("  ") + part)
        else:
            line = part.copy()
            line.truncate(width, overflow="ellipsis")
            lines.append(line)
    for line in lines:
        line.rstrip()
    return lines


def strip_lines(reading: Reading, width: int) -> list[Text]:
    """``trainium 128 devices  34% ▁▃█▂…``: each device a bar character."""
    mean, bars = strip(list(reading.devices))
    return fold(Text.assemble((printable(reading.system), "bold"),
                              f" {len(reading.devices)} devices"
                              f" {mean}"), bars, Text(), width)


def strip(devices: list[Device]) -> tuple[str, Text]:
    """The devices' mean utilisation, and a bar character each (``·``: no figure)."""
    known = [d.util_percent for d in devices if d.util_percent is not None]
    mean = f"{sum(known) / len(known):3.0f}%" if known else "  -"
    return mean, Text("".join("·" if d.util_percent is None else
                              BARS[min(8, round(d.util_percent / 12.5))] for d in devices),
                      style="green")


def fold(head: Text, bars: Text, tail: Text, width: int) -> list[Text]:
    """``head bars  tail`` on one line if it fits, else ``head  tail`` (each on a line of
    its own if even that is too wide) and then the bars folded at ``width``."""
    gap = "  " if tail else ""
    one = Text.assemble(head, " ", bars, gap, tail)
    if one.cell_len <= width:
        return [one]
    two = Text.assemble(head, gap, tail)
    return [*([two] if two.cell_len <= width or not tail else [head, tail]),
            *(bars[i:i + width] for i in range(0, len(bars), max(1, width)))]


def device_table(rows: list[tuple[Reading, Device]], width: int) -> list[Text]:
    """A header line and a line per accelerator device, each within ``width`` (the last
    column, the runs or pids, is cut with an ellipsis when it does not fit)."""
    wide = width >= WIDE
    heads = ["system", "device", *(["model"] if wide else []), "util", "memory", "power",
             "temp", "run / pids"]
    right = {"util", "memory", "power", "temp"}
    table = [[Text(head, style="bold") for head in heads]]
    for reading, device in rows:
        cells = [Text(printable(reading.system)), Text(printable(device.id), style="bold")]
        if wide:
            cells.append(Text(printable(device.name)[:MODEL_WIDTH]))
        cells += [util_cell(device.util_percent, 10 if wide else 5),
                  Text(memory_figure(device)),
                  Text("-" if device.power_w is None else f"{device.power_w:.0f} W"),
                  Text("-" if device.temp_c is None else f"{device.temp_c:.0f}°C"),
                  users(device, wide)]
        table.append(cells)
    widths = [max(row[i].cell_len for row in table) for i in range(len(heads))]
    lines = []
    for row in table:
        line = Text()
        for head, cell, size in zip(heads, row, widths, strict=True):
            pad = " " * (size - cell.cell_len)
            line.append_text(Text(pad) + cell if head in right else cell + pad)
            line.append("  ")
        line.rstrip()
        line.truncate(width, overflow="ellipsis")
        lines.append(line)
    return lines


def util_cell(percent: float | None, bar: int) -> Text:
    """A bar ``bar`` characters wide and the percent (``-`` when unknown)."""
    if percent is None:
        return Text("-")
    eighths = round(max(0.0, min(100.0, percent)) / 100 * bar * 8)
    full, part = divmod(eighths, 8)
    drawn = ("█" * full + (BARS[part] if part else "")).ljust(bar)
    style = "red" if percent >= 90 else "yellow" if percent >= 50 else "green"
    return Text.assemble((drawn, style), f"{percent:4.0f}%")


def memory_figure(device: Device) -> str:
    """``19.4/79.6 GiB`` (``-`` when unknown)."""
    used, total = device.mem_used_mib, device.mem_total_mib
    if used is None:
        return "-"
    if total is None:
        return f"{used / 1024:.1f} GiB"
    return f"{used / 1024:.1f}/{total / 1024:.1f} GiB"


def users(device: Device, wide: bool) -> Text:
    """The runs on the device (whole ids when wide, else their 6-hex suffix), else its
    pids."""
    if device.runs:
        return Text(", ".join(r if wide else r.rpartition("-")[2] for r in device.runs),
                    style="cyan")
    if device.pids:
        return Text("pid " + ", ".join(map(str, device.pids)), style="dim")
    return Text("")
