"""``nvidia-smi`` output as per-GPU telemetry: ``dmon`` tables and ``--query-gpu`` CSV.

``dmon`` (any ``-s`` selection) prints ``# gpu pwr gtemp ...`` column rows, then one row
per GPU per sample; ``--query-gpu=... --format=csv`` prints a header (``utilization.gpu
[%]``; units stay in the header under ``nounits``) and one row per GPU. With ``noheader``
the columns are taken from the ``--query-gpu=`` command line where the log holds it.

Percentages become ``Utilization`` engines (``gpu<i>`` SM busy, ``gpu<i> mem bw`` memory
controller busy, ``gpu<i> mem`` memory used of total with its MiB); absolute readings
become per-GPU metrics: ``gpu<i>_power_w``, ``gpu<i>_temp_c``, ``gpu<i>_mem_temp_c``,
``gpu<i>_sm_clock_mhz``, ``gpu<i>_mem_clock_mhz``, ``gpu<i>_mem_used_mib``.
"""

from __future__ import annotations

import contextlib
import re
from datetime import datetime

from accelbench.engine.events import Event, Metric, Utilization
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.prefilter import any_line

# dmon column → (event, name): "util" a Utilization engine suffix, "metric" a metric suffix
_DMON = {"sm": ("util", ""), "mem": ("util", " mem bw"), "pwr": ("metric", "power_w"),
         "temp": ("metric", "temp_c"), "gtemp": ("metric", "temp_c"),
         "mtemp": ("metric", "mem_temp_c"), "pclk": ("metric", "sm_clock_mhz"),
         "mclk": ("metric", "mem_clock_mhz"), "fb": ("metric", "mem_used_mib")}
# --query-gpu field (units stripped) → the dmon column it is
_QUERY = {"utilization.gpu": "sm", "utilization.memory": "mem", "power.draw": "pwr",
          "temperature.gpu": "gtemp", "temperature.memory": "mtemp",
          "clocks.current.sm": "pclk", "clocks.sm": "pclk", "clocks.current.memory": "mclk",
          "clocks.mem": "mclk", "memory.used": "fb"}
_DMON_HEADER = re.compile(r"^#\s*(?:Date\s+Time\s+)?gpu\s+\w")
_QUERY_COMMAND = re.compile(r"--query-gpu=(\S+)")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")
_STAMP = "%Y/%m/%d %H:%M:%S.%f"
_SNIFF = re.compile(r"^#\s*(?:Date\s+Time\s+)?gpu\s+(?:pwr|sm|fb|temp|gtemp)\b"
                    r"|^(?:[\w.]+(?: \[[^\]]*\])?, )*utilization\.gpu|--query-gpu=", re.M)


def field_name(header: str) -> str:
    """A CSV header cell without its unit: ``power.draw [W]`` → ``power.draw``."""
    return header.split("[", maxsplit=1)[0].strip()


def cell_number(text: str) -> float | None:
    """The leading number of a cell (``631.95 W`` → 631.95); None for ``-``, ``[N/A]``."""
    m = _NUMBER.match(text.strip())
    return float(m[0]) if m else None


class NvidiaSmi(Dialect):
    """``nvidia-smi dmon`` tables and ``nvidia-smi --query-gpu`` CSV."""

    name = "nvidia_smi"
    title = "nvidia-smi (dmon, --query-gpu CSV)"
    needs = ("# ", "#Date", ", ", "--query-gpu=", "    ")
    sniff_needs = ("gpu",)  # the lines sniff reads

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._dmon: list[str] = []  # the dmon columns in force
        self._csv: list[str] = []  # the --query-gpu fields in force

    def feed(self, line: str, ts: float) -> list[Event]:
        if line.startswith("#"):
            if _DMON_HEADER.match(line):
                self._dmon, self._csv = line.lstrip("#").split(), []
            elif m := _QUERY_COMMAND.search(line):
                self._csv, self._dmon = m[1].split(","), []
            return []
        if m := _QUERY_COMMAND.search(line):
            self._csv, self._dmon = m[1].split(","), []
            return []
        if "utilization." in line or "power.draw" in line or "memory.used" in line:
            self._csv, self._dmon = [field_name(cell) for cell in line.split(",")], []
            return []
        if self._dmon:
            return self._dmon_row(line.split(), ts)
        if self._csv:
            return self._csv_row([cell.strip() for cell in line.split(",")], ts)
        return []

    def _dmon_row(self, cells: list[str], ts: float) -> list[Event]:
        columns = self._dmon[2:] if self._dmon[0] == "Date" else self._dmon
        if self._dmon[0] == "Date":
            cells = cells[2:]
        if len(cells) != len(columns) or not cells[0].isdigit():
            return []
        return self._readings(cells[0], dict(zip(columns, cells, strict=True)), ts)

    def _csv_row(self, cells: list[str], ts: float) -> list[Event]:
        if len(cells) != len(self._csv):
            return []
        row = dict(zip(self._csv, cells, strict=True))
        index = row.get("index", "0")
        if not index.isdigit():
            return []
        when = row.get("timestamp", "")
        with contextlib.suppress(ValueError):  # the row's own time, local as nvidia-smi's
            ts = datetime.strptime(when, _STAMP).astimezone().timestamp() if when else ts
        values = {_QUERY[key]: cell for key, cell in row.items() if key in _QUERY}
        events = self._readings(index, values, ts)
        used = cell_number(row.get("memory.used", ""))
        total = cell_number(row.get("memory.total", ""))
        if used is not None and total:
            events.append(Utilization(self.run_id, ts, f"gpu{index} mem",
                                      round(100 * used / total, 2), used, "MiB"))
        return events

    def _readings(self, index: str, values: dict[str, str], ts: float) -> list[Event]:
        """Events of one GPU's readings by dmon column name."""
        events: list[Event] = []
        for column, cell in values.items():
            if column not in _DMON or (value := cell_number(cell)) is None:
                continue
            kind, name = _DMON[column]
            if kind == "util":
                events.append(Utilization(self.run_id, ts, f"gpu{index}{name}", value))
            else:
                events.append(Metric(self.run_id, ts, f"gpu{index}_{name}", value))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any_line(text, ("gpu",), _SNIFF)  # a dmon header, a CSV header, the command


def query_rows(text: str) -> list[dict[str, str]]:
    """The rows of ``nvidia-smi --query-...=FIELDS --format=csv`` output (a header with
    units, then a row each), keyed by field without its unit; ``#`` lines are skipped."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not lines:
        return []
    header = [field_name(cell) for cell in lines[0].split(",")]
    rows = ([cell.strip() for cell in line.split(",")] for line in lines[1:])
    return [dict(zip(header, row, strict=True)) for row in rows if len(row) == len(header)]
