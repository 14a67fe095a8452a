"""GroqFlow output (the ``bert_tiny`` proof point and other ``groqit()`` scripts).

Events:

* ``GroqFlow is building "NAME"`` -> Phase("compiling", 'building "NAME"'); each build step
  the monitor ticks off (``✓ Exporting PyTorch to ONNX``) -> Phase("compiling", step).
* ``Woohoo! Build "NAME" found in cache. Loading it!`` -> Phase("loading", 'build "NAME" from
  the cache').
* ``Running inference on GroqChip.`` / ``Running inference using PyTorch model (CPU).``
  -> Phase("running", "inference on GroqChip" / "inference using PyTorch model (CPU)").
* The result table, one row per source (the ``Source`` cell lowercased: ``cpu``, ``groq``)::

    | Source | Accuracy | end-to-end latency (ms) | end-to-end IPS | on-chip latency (ms) | on-chip IPS |
    |  groq  |  77.47%  |           0.05          |    19253.91    |         0.03         |   37576.72  |

  -> Metric("<source>.accuracy", percent), Metric("<source>.e2e_latency_ms"),
  Metric("<source>.ips") (end-to-end inferences per second), Metric("<source>.on_chip_latency_ms")
  and Metric("<source>.on_chip_ips"). ``--`` cells (no on-chip figures for the CPU) are skipped.
  The header row -> Phase("running", "result table") (not a run's wind-down: a second table
  in a section starts a run there). GroqFlow prints the CPU row, then the GroqChip's: a run
  ends with its ``groq`` row (several tables in one section: several runs).
  MiniLM's ``Spearman Rank Correlation Coefficient`` column -> Metric("<source>.spearman").
"""  # noqa: E501 - the sample table is GroqFlow's output as printed, wider than a line

from __future__ import annotations

from accelbench.engine.core.events import Event, Metric, Phase
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect

_ANSI = lazy(r"\x1b\[[0-9;]*[A-Za-z]")
_BUILDING = lazy(r'GroqFlow is building "([^"]+)"')
_CACHED = lazy(r'Build "([^"]+)".* found in cache')
_STEP_DONE = lazy(r"^\s*✓\s+(.+?)\s*$")
_INFERENCE = lazy(r"Running inference ((?:on|using) .+?)\.?\s*$")
_NUMBER = lazy(r"(\d+(?:\.\d+)?)%?")
_COLUMNS = {
    "accuracy": "accuracy",
    "spearman rank correlation coefficient": "spearman",
    "end-to-end latency (ms)": "e2e_latency_ms",
    "end-to-end ips": "ips",
    "on-chip latency (ms)": "on_chip_latency_ms",
    "on-chip ips": "on_chip_ips",
}


class GroqFlow(Dialect):
    """GroqFlow build steps and its CPU-vs-GroqChip result table."""

    name = "groq"
    title = "GroqFlow"
    run_end = frozenset({"groq.ips"})
    needs = ("GroqFlow", "cache", "✓", "inference", "|")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._columns: list[str | None] = []  # metric names of the last table header's columns

    def feed(self, line: str, ts: float) -> list[Event]:
        line = _ANSI.sub("", line)
        if m := _BUILDING.search(line):
            return [Phase(self.run_id, ts, "compiling", f'building "{m[1]}"')]
        if m := _CACHED.search(line):
            return [Phase(self.run_id, ts, "loading", f'build "{m[1]}" from the cache')]
        if m := _STEP_DONE.search(line):
            return [Phase(self.run_id, ts, "compiling", m[1])]
        if m := _INFERENCE.search(line):
            return [Phase(self.run_id, ts, "running", f"inference {m[1]}")]
        if line.lstrip().startswith("|"):
            return self._row([c.strip() for c in line.strip().strip("|").split("|")], ts)
        return []

    sniff_needs = ("groqflow", "GroqChip", "bert_tiny", "| end-to-end latency (ms) |")

    @classmethod
    def sniff(cls, text: str) -> bool:
        return ("groqflow" in text.lower() or "GroqChip" in text or "bert_tiny" in text
                or "| end-to-end latency (ms) |" in text)

    def _row(self, cells: list[str], ts: float) -> list[Event]:
        if cells[0] == "Source":
            self._columns = [_COLUMNS.get(c.lower()) for c in cells[1:]]
            return [Phase(self.run_id, ts, "running", "result table")]
        if not self._columns or len(cells) != len(self._columns) + 1:
            return []
        source = cells[0].lower()
        return [Metric(self.run_id, ts, f"{source}.{name}", float(m[1]))
                for name, cell in zip(self._columns, cells[1:], strict=True)
                if name and (m := _NUMBER.fullmatch(cell))]
