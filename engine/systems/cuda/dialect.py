"""``nvidia-smi`` output as per-GPU telemetry, in every form: ``dmon`` tables,
``--query-gpu`` CSV, the default table, ``-q`` reports and ``topo -m`` matrices.

``dmon`` (any ``-s`` selection) prints ``# gpu pwr gtemp ...`` column rows, then one row
per GPU per sample; ``--query-gpu=... --format=csv`` prints a header (``utilization.gpu
[%]``; units stay in the header under ``nounits``) and one row per GPU. With ``noheader``
the columns are taken from the ``--query-gpu=`` command line where the log holds it.
The default table gives each GPU two rows of ``|`` cells (its index and name, then fan,
temperature, power of its cap, memory used of total and utilisation); ``-q`` an indented
report per ``GPU <bus id>`` (``FB Memory Usage``, ``Utilization``, ``Temperature``,
``GPU Power Readings``, ``Clocks``); ``topo -m`` a matrix of the links between GPUs
(``NV12``: 12 NVLinks; ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``: PCIe paths), read
as ``gpu<i>_gpu<j>_nvlinks`` (0 where the GPUs meet over PCIe). The table's first line
and ``-q``'s ``Timestamp`` (local time) date the readings after them, so the tables
``nvidia-smi -l`` keeps printing make a series.

Percentages become ``Utilization`` engines (``gpu<i>`` SM busy, ``gpu<i> mem bw`` memory
controller busy, ``gpu<i> mem`` memory used of total with its MiB); absolute readings
become per-GPU metrics: ``gpu<i>_power_w``, ``gpu<i>_temp_c``, ``gpu<i>_mem_temp_c``,
``gpu<i>_sm_clock_mhz``, ``gpu<i>_mem_clock_mhz``, ``gpu<i>_mem_used_mib``,
``gpu<i>_mem_total_mib`` (a CSV without ``index``: the GPUs in row order). A GPU row
that cannot be read is reported (the ``nvidia_smi_unreadable`` warning), not dropped.
"""

from __future__ import annotations

import re

from accelbench.engine.core.events import Diagnosis, Event, Metric, Utilization
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.parsers.logclock import local_time
from accelbench.engine.parsers.prefilter import any_line

# dmon column → (event, name): "util" a Utilization engine suffix, "metric" a metric suffix
_DMON = {"sm": ("util", ""), "mem": ("util", " mem bw"), "pwr": ("metric", "power_w"),
         "temp": ("metric", "temp_c"), "gtemp": ("metric", "temp_c"),
         "mtemp": ("metric", "mem_temp_c"), "pclk": ("metric", "sm_clock_mhz"),
         "mclk": ("metric", "mem_clock_mhz"), "fb": ("metric", "mem_used_mib"),
         "fbtotal": ("metric", "mem_total_mib")}  # (no dmon column: the table's, -q's)
# --query-gpu field (units stripped) → the dmon column it is
_QUERY = {"utilization.gpu": "sm", "utilization.memory": "mem", "power.draw": "pwr",
          "temperature.gpu": "gtemp", "temperature.memory": "mtemp",
          "clocks.current.sm": "pclk", "clocks.sm": "pclk", "clocks.current.memory": "mclk",
          "clocks.mem": "mclk", "memory.used": "fb", "memory.total": "fbtotal"}
_DMON_HEADER = lazy(r"^#\s*(?:Date\s+Time\s+)?gpu\s+\w")
_QUERY_COMMAND = lazy(r"--query-gpu=(\S+)")
_NUMBER = lazy(r"^-?\d+(?:\.\d+)?(?![\d.eE])")  # (not 1e999's 1)
# what nvidia-smi prints where it has no reading: no number, and nothing to report
_NO_READING = lazy(r"^(?:-+|\[?(?:N/A|Not Supported|Unknown Error|Insufficient"
                   r" Permissions|Requested functionality has been deprecated)\]?)$")
# What sniff recognises, each with the literal every line it matches holds (the lines it
# looks at: a log whose every line says "per_gpu" is not searched line by line for a header)
_SNIFFS = tuple((literal, lazy(pattern)) for literal, pattern in (
    ("#", r"^#\s*(?:Date\s+Time\s+)?gpu\s+(?:pwr|sm|fb|temp|gtemp)\b"),  # a dmon header
    ("utilization.gpu", r"^(?:[\w.]+(?: \[[^\]]*\])?, )*utilization\.gpu"),  # a CSV header
    ("--query-gpu=", r"--query-gpu="),  # the command
    ("NVIDIA-SMI", r"^\| NVIDIA-SMI \d"),  # the table's title
    ("NVSMI LOG", r"^=+NVSMI LOG=+"),  # -q's
    ("GPU0", r"^\s*(?:\x1b\[4m)?GPU0\s+(?:GPU1|CPU Aff|NIC0|mlx)")))  # a topo header
_ANSI = lazy(r"\x1b\[[0-9;]*m")
# the default table: a GPU's first row (index, name, persistence or driver model), its
# second (fan, temperature, performance state, power of cap | memory | utilisation)
_TABLE_GPU = lazy(r"^\s*(\d+)\s+(\S.*?)\s+(?:On|Off|WDDM|TCC|MCDM|N/A)\s*$")
_TABLE_TEMP = lazy(r"^\s*\S+\s+(\S+?)C?\s+(?:P\d+|\S+)\s+(\S+?)W?\s*/\s*\S+\s*$")
_TABLE_MEMORY = lazy(r"^\s*(\d+)MiB\s*/\s*(\d+)MiB\s*$")
# the time the default table (its first line) and -q (its Timestamp) were taken, local time
_TAKEN = lazy(r"^(?:Timestamp\s*:\s*)?((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d"
              r" \d\d:\d\d:\d\d \d{4})\s*$")
_QUERY_GPU = lazy(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
_QUERY_FIELD = lazy(r"^( +)(\S.*?)\s*:\s(.*)$")
# -q (section, key) → the dmon column it is; power from the first that gives one
_QUERY_REPORT = {("FB Memory Usage", "Used"): "fb", ("Utilization", "Gpu"): "sm",
                 ("Utilization", "GPU"): "sm", ("Utilization", "Memory"): "mem",
                 ("Temperature", "GPU Current Temp"): "gtemp",
                 ("Temperature", "Memory Current Temp"): "mtemp",
                 ("Clocks", "SM"): "pclk", ("Clocks", "Memory"): "mclk"}
_QUERY_POWER = ("Power Draw", "Average Power Draw", "Instantaneous Power Draw")
_TOPO_ROW = lazy(r"^GPU(\d+)\s")
MAX_REPORTS = 20  # unreadable GPU rows reported per run


def field_name(header: str) -> str:
    """A CSV header cell without its unit: ``power.draw [W]`` → ``power.draw``."""
    return header.split("[", maxsplit=1)[0].strip()


def cell_number(text: str) -> float | None:
    """The leading number of a cell (``631.95 W`` → 631.95); None for ``-``, ``[N/A]``
    and anything else that starts with no number."""
    m = _NUMBER.match(text.strip())
    return float(m[0]) if m else None


class NvidiaSmi(Dialect):
    """``nvidia-smi`` in every form: ``dmon``, ``--query-gpu`` CSV, the default table,
    ``-q`` and ``topo -m``."""

    whole = True
    name = "nvidia_smi"
    title = "nvidia-smi (dmon, --query-gpu CSV, table, -q, topo -m)"
    needs = ("# ", "#Date", ", ", "--query-gpu=", "    ", "|", "GPU", "NVSMI LOG", "Timestamp",
             "Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun ")
    # the lines sniff reads: those holding one of its literals, with case (not every
    # "per_gpu" or "Tokens/s/GPU" line)
    sniff_needs, sniff_cased = tuple(literal for literal, _ in _SNIFFS), True
    warnings = frozenset({"nvidia_smi_unreadable"})  # a row it could not read

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._dmon: list[str] = []  # the dmon columns in force
        self._csv: list[str] = []  # the --query-gpu fields in force
        self._row = 0  # the CSV rows read since its header
        self._table_gpu = ""  # the default table's GPU whose second row comes next
        self._query_gpu = -1  # the -q report's GPU being read (-1: none)
        self._sections: list[tuple[int, str]] = []  # its open sections: (indent, title)
        self._power_read = False  # its power is read
        self._total_mib: float | None = None  # its FB memory total
        self._topo: list[str] = []  # topo -m: the GPU columns of the matrix
        self._reports = 0
        self._taken: float | None = None  # when the table or -q report being read was taken

    def feed(self, line: str, ts: float) -> list[Event]:
        if m := _TAKEN.match(line):
            self._taken = local_time(m[1])
            return []
        taken = self._taken if self._taken is not None else ts  # (the table's, -q's)
        if line.startswith("|"):
            return self._table_row(line, taken)
        if "NVSMI LOG" in line:
            self._query_gpu = -1
            return []
        if _QUERY_GPU.match(line):
            self._query_gpu += 1
            self._sections, self._power_read, self._total_mib = [], False, None
            return []
        if self._query_gpu >= 0 and line.startswith(" "):
            return self._query_line(line, taken)
        if line[:1].strip():
            self._query_gpu = -1
        if "GPU" in line and (events := self._topo_line(_ANSI.sub("", line), taken)) is not None:
            return events
        if line.startswith("#"):
            if _DMON_HEADER.match(line):
                self._dmon, self._csv = line.lstrip("#").split(), []
            elif m := _QUERY_COMMAND.search(line):
                self._csv, self._dmon, self._row = m[1].split(","), [], 0
            return []
        if m := _QUERY_COMMAND.search(line):
            self._csv, self._dmon, self._row = m[1].split(","), [], 0
            return []
        if "utilization." in line or "power.draw" in line or "memory.used" in line:
            self._csv, self._dmon = [field_name(cell) for cell in line.split(",")], []
            self._row = 0
            return []
        if self._dmon:
            return self._dmon_row(line.split(), ts)
        if self._csv:
            return self._csv_row([cell.strip() for cell in line.split(",")], ts)
        return []

    def _report(self, ts: float, what: str, row: str) -> list[Event]:
        """A warning that ``row`` (of ``what``) cannot be read, up to ``MAX_REPORTS``."""
        self._reports += 1
        if self._reports > MAX_REPORTS:
            return []
        return [Diagnosis(self.run_id, ts, "nvidia_smi_unreadable",
                          f"nvidia-smi: a GPU's {what} cannot be read: {row.strip()[:120]!r}",
                          "the output was cut or garbled: that GPU's readings are missing")]

    def _dmon_row(self, cells: list[str], ts: float) -> list[Event]:
        columns = self._dmon[2:] if self._dmon[0] == "Date" else self._dmon
        if self._dmon[0] == "Date":
            cells = cells[2:]
        if not cells or not cells[0].isdigit():
            return []
        if len(cells) != len(columns):
            return self._report(ts, "dmon row", " ".join(cells))
        return self._readings(cells[0], dict(zip(columns, cells, strict=True)), ts)

    def _csv_row(self, cells: list[str], ts: float) -> list[Event]:
        if len(cells) != len(self._csv):
            if "index" in self._csv and cells[self._csv.index("index")
                                             if self._csv.index("index") < len(cells)
                                             else 0].isdigit():
                return self._report(ts, "--query-gpu CSV row", ", ".join(cells))
            return []
        row = dict(zip(self._csv, cells, strict=True))
        index = row.get("index", str(self._row))  # no index field: the GPUs in order
        self._row += 1
        if not index.isdigit():
            return []
        when = row.get("timestamp", "")
        ts = local_time(when) or ts  # the row's own time, local as nvidia-smi's
        values = {_QUERY[key]: cell for key, cell in row.items() if key in _QUERY}
        events = self._readings(index, values, ts)
        used = cell_number(row.get("memory.used", ""))
        total = cell_number(row.get("memory.total", ""))
        if used is not None and total:
            events.append(Utilization(self.run_id, ts, f"gpu{index} mem",
                                      round(100 * used / total, 2), used, "MiB"))
        return events

    def _table_row(self, line: str, ts: float) -> list[Event]:
        """A row of the default table: a GPU's first (which GPU), or its second (its
        readings), which is reported if it cannot be read."""
        cells = line.split("|")
        if len(cells) < 5:
            return []
        if m := _TABLE_GPU.match(cells[1]):
            self._table_gpu = m[1]
            return []
        index, self._table_gpu = self._table_gpu, ""
        if not index:
            return []
        temp, memory = _TABLE_TEMP.match(cells[1]), _TABLE_MEMORY.match(cells[2])
        util = cells[3].split()
        if temp is None or memory is None or not util:
            return self._report(ts, "table row", line)
        used, total = float(memory[1]), float(memory[2])
        events = self._readings(index, {"sm": util[0].rstrip("%"), "gtemp": temp[1],
                                        "pwr": temp[2], "fb": memory[1],
                                        "fbtotal": memory[2]}, ts)
        if total:
            events.append(Utilization(self.run_id, ts, f"gpu{index} mem",
                                      round(100 * used / total, 2), used, "MiB"))
        return events

    def _query_line(self, line: str, ts: float) -> list[Event]:
        """A line of a ``-q`` report's GPU: a section title, or a field read where it is
        one of the readings (``_QUERY_REPORT``, the first power draw given)."""
        indent = len(line) - len(line.lstrip(" "))
        while self._sections and self._sections[-1][0] >= indent:
            self._sections.pop()
        m = _QUERY_FIELD.match(line)
        if m is None:
            self._sections.append((indent, line.strip()))
            return []
        section = self._sections[-1][1] if self._sections else ""
        key, value, index = m[2], m[3], str(self._query_gpu)
        if section == "FB Memory Usage" and key == "Total":
            self._total_mib = cell_number(value)
            return self._readings(index, {"fbtotal": value}, ts)
        if section.endswith("Power Readings") and section.startswith(("GPU", "Power")) \
                and key in _QUERY_POWER and not self._power_read:
            self._power_read = cell_number(value) is not None
            return self._readings(index, {"pwr": value}, ts)
        column = _QUERY_REPORT.get((section, key))
        if column is None:
            return []
        events = self._readings(index, {column: value}, ts)
        used = cell_number(value)
        if column == "fb" and used is not None and self._total_mib:
            events.append(Utilization(self.run_id, ts, f"gpu{index} mem",
                                      round(100 * used / self._total_mib, 2), used, "MiB"))
        return events

    def _topo_line(self, line: str, ts: float) -> list[Event] | None:
        """A line of a ``topo -m`` matrix: its header (the GPU columns), or a GPU's row
        (the NVLinks to each later GPU); None if it is neither."""
        words = line.split()
        if words[:1] == ["GPU0"] and len(words) > 1 and not words[1].startswith(("X", "NV")) \
                and words[1] not in _LINKS:
            self._topo = [w for w in words if re.fullmatch(r"GPU\d+", w)]
            return []
        m = _TOPO_ROW.match(line)
        if m is None or not self._topo:
            return None
        links = words[1:1 + len(self._topo)]
        if len(links) != len(self._topo):
            return self._report(ts, "topo -m row", line)
        i = int(m[1])
        return [Metric(self.run_id, ts, f"gpu{i}_gpu{j}_nvlinks", nvlinks(link))
                for j, link in ((int(name[3:]), link) for name, link in zip(
                    self._topo, links, strict=True)) if j > i and link != "X"]

    def _readings(self, index: str, values: dict[str, str], ts: float) -> list[Event]:
        """Events of one GPU's readings by dmon column name."""
        events: list[Event] = []
        for column, cell in values.items():
            if column not in _DMON:
                continue
            if (value := cell_number(cell)) is None:
                if not _NO_READING.match(cell.strip().rstrip("%").strip()):
                    events += self._report(ts, f"{column} reading (gpu{index})", cell)
                continue
            kind, name = _DMON[column]
            if kind == "util":
                events.append(Utilization(self.run_id, ts, f"gpu{index}{name}", value))
            else:
                events.append(Metric(self.run_id, ts, f"gpu{index}_{name}", value))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any(any_line(text, (literal,), pattern) for literal, pattern in _SNIFFS)


_LINKS = frozenset({"PIX", "PXB", "PHB", "NODE", "SYS", "SOC", "X"})


def nvlinks(link: str) -> int:
    """The NVLinks a ``topo -m`` cell names (``NV12``: 12; a PCIe path: 0)."""
    return int(link[2:]) if re.fullmatch(r"NV\d+", link) else 0


def topology(text: str) -> dict[str, dict[str, str]]:
    """The links of a ``topo -m`` matrix: ``{"GPU0": {"GPU1": "NV12", "NIC0": "PXB",
    "CPU Affinity": "48-63,176-191", ...}, ...}``, each row's cells by column name."""
    found: dict[str, dict[str, str]] = {}
    names: list[str] = []
    for raw in text.splitlines():
        line = _ANSI.sub("", raw)
        words = line.split()
        if words[:1] == ["GPU0"] and len(words) > 1 and words[1] not in _LINKS \
                and not words[1].startswith("NV"):
            names = [w.strip() for w in re.split(r"\t| {2,}", line.strip()) if w.strip()]
            continue
        if names and (m := _TOPO_ROW.match(line)):
            cells = [c.strip() for c in re.split(r"\t| {2,}", line.strip()) if c.strip()][1:]
            found[f"GPU{m[1]}"] = dict(zip(names, cells, strict=False))
    return found


def query_rows(text: str, unreadable: list[str] | None = None) -> list[dict[str, str]]:
    """The rows of ``nvidia-smi --query-...=FIELDS --format=csv`` output (a header with
    units, then a row each), keyed by field without its unit; ``#`` lines are skipped, and
    a row without a cell per field is added to ``unreadable`` (where given)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not lines:
        return []
    header = [field_name(cell) for cell in lines[0].split(",")]
    found = []
    for line in lines[1:]:
        row = [cell.strip() for cell in line.split(",")]
        if len(row) == len(header):
            found.append(dict(zip(header, row, strict=True)))
        elif unreadable is not None:
            unreadable.append(line)
    return found
