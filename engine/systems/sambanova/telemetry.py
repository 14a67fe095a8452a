"""SambaNova sampler: ``sntilestat``'s tile table as per-RDU execution engines.

``sntilestat -i SECONDS --count N`` prints, every interval, a table of every tile
(SambaNova's "Use sntilestat for performance analysis"; ALCF's SambaNova pages)::

    TILE                 %idle %exec %pload %aload %chkpt %quiesce    PID     USER COMMAND
    /XRDU_0/RDU_0/TILE_0   8.0  91.6    0.3    0.1    0.0      0.0 2750333 someuser python ...
    /XRDU_0/RDU_0/TILE_1 100.0   0.0    0.0    0.0    0.0      0.0

``%exec`` is the share of the interval the tile ran a job. A node has 32 or more
tiles, so they are summarised per RDU: the engine ``rdu<i>`` (the i-th RDU in the
table's order) is its tiles' mean ``%exec``, taken once all its rows are read. A long
COMMAND wraps onto lines of its own (as ALCF's pages show it): those are no rows.
``TileTable`` folds a table this way for the sampler, the ``sntilestat`` dialect (a saved
table given to ``parse``/``import``) and anything reading a saved one; a tile row whose
figures cannot be read is counted (``unreadable``) and reported by the dialect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accelbench.engine.core.events import Diagnosis, Event, Utilization
from accelbench.engine.parsers import Dialect
from accelbench.engine.telemetry.tool import Readings, ToolSampler

_FOREVER = 1_000_000_000  # intervals: the tool runs until stopped


@dataclass
class Rdu:
    """One RDU's tiles as a table gives them."""

    name: str  # "/XRDU_0/RDU_1"
    exec_percent: list[float]  # each tile's %exec
    idle: int = 0  # tiles 100% idle
    pids: set[int] = field(default_factory=set)  # the processes on its tiles


@dataclass
class TileTable:
    """Folds ``sntilestat`` lines, one at a time, into per-RDU figures (a dataclass: two
    tables that read the same lines are equal, as a dialect's state is compared)."""

    _exec: int = 0  # the %exec column's index in a row's fields
    _idle: int = 0  # the %idle column's index
    _pid: int = -1  # the PID column's index (-1: none)
    rdus: dict[str, Rdu] = field(default_factory=dict)
    _open: Rdu | None = None  # the RDU whose rows are being read
    unreadable: list[str] = field(default_factory=list)  # tile rows whose figures could
    # not be read

    def feed(self, line: str) -> Rdu | None:
        """The RDU a line closes (a header, another RDU's row), if it closes one."""
        fields = line.split()
        if fields[:1] == ["TILE"] and "%exec" in fields and "%idle" in fields:
            self._exec, self._idle = fields.index("%exec"), fields.index("%idle")
            self._pid = fields.index("PID") if "PID" in fields else -1
            return self.close()
        if not (line.startswith("/") and "/TILE_" in fields[0] and len(fields) > self._exec):
            return None  # a wrapped COMMAND, a blank line
        try:
            busy, idle = float(fields[self._exec]), float(fields[self._idle])
        except ValueError:
            self.unreadable.append(line)
            return None
        name = fields[0].rpartition("/")[0]
        done = self.close() if self._open and self._open.name != name else None
        rdu = self._open = self._open or Rdu(name, [])
        rdu.exec_percent.append(busy)
        rdu.idle += idle == 100.0
        if 0 <= self._pid < len(fields) and fields[self._pid].isdigit():
            rdu.pids.add(int(fields[self._pid]))
        return done

    def close(self) -> Rdu | None:
        """Close the RDU being read (the end of a table)."""
        rdu, self._open = self._open, None
        if rdu:
            self.rdus[rdu.name] = rdu
        return rdu

    def readings(self) -> Readings:
        """Each RDU's mean tile %exec as the engine ``rdu<i>``."""
        return [self.reading(rdu) for rdu in self.rdus.values()]

    def reading(self, rdu: Rdu) -> dict:
        """``rdu``'s mean tile %exec as the engine ``rdu<i>`` (its place in the table)."""
        i = list(self.rdus).index(rdu.name)
        return {"engine": f"rdu{i}",
                "percent": round(sum(rdu.exec_percent) / len(rdu.exec_percent), 2)}


def sntilestat_argv(interval: float) -> list[str]:
    """``sntilestat -i SECONDS --count N``: a table every ``interval`` until stopped."""
    return ["sntilestat", "-i", str(max(1, round(interval))), "--count", str(_FOREVER)]


def read_table(text: str) -> dict[str, Rdu]:
    """The RDUs of a saved ``sntilestat`` table, by name."""
    table = TileTable()
    for line in text.splitlines():
        table.feed(line)
    table.close()
    return table.rdus


class SambaNovaSampler(ToolSampler):
    """Mean tile execution percent of each RDU ``sntilestat`` lists."""

    name = "sambanova"
    tool = "sntilestat"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._table = TileTable()

    def argv(self) -> list[str]:
        """``sntilestat -i SECONDS --count N``: a table every interval."""
        return sntilestat_argv(self.interval)

    def feed(self, line: str) -> Readings | None:
        """The readings once a line ends an RDU's rows (a header, another RDU's row)."""
        return self._table.readings() if self._table.feed(line) else None


class SnTileStat(Dialect):
    """A saved ``sntilestat`` table: each RDU's mean tile ``%exec`` as the ``rdu<i>``
    engine, once its rows are read; a tile row it cannot read is reported."""

    whole = True
    name = "sntilestat"
    title = "SambaNova sntilestat tables"
    needs = ("TILE",)
    warnings = frozenset({"sntilestat_unreadable"})

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._table = TileTable()

    def feed(self, line: str, ts: float) -> list[Event]:
        seen = len(self._table.unreadable)
        done = self._table.feed(line)
        events = self._events(done, ts)
        if len(self._table.unreadable) > seen:
            events.append(Diagnosis(self.run_id, ts, "sntilestat_unreadable",
                                    "sntilestat: a tile row cannot be read:"
                                    f" {line.strip()[:120]!r}",
                                    "the table was cut or garbled: that tile's figures are"
                                    " missing"))
        return events

    def finish(self, ts: float) -> list[Event]:
        return self._events(self._table.close(), ts)

    def _events(self, rdu: Rdu | None, ts: float) -> list[Event]:
        if rdu is None:
            return []
        reading = self._table.reading(rdu)
        return [Utilization(self.run_id, ts, reading["engine"], reading["percent"])]

    @classmethod
    def sniff(cls, text: str) -> bool:
        return any(line.split()[:3] == ["TILE", "%idle", "%exec"] for line in text.splitlines()
                   if line.startswith("TILE"))
