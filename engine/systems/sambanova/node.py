"""RDUs for ``accelbench top``: ``sntilestat``'s tile table every interval, each RDU its
tiles' mean ``%exec`` and the processes on them (``TileTable``, as the sampler reads it)."""

from __future__ import annotations

from typing import Any

from accelbench.engine.systems.sambanova.telemetry import TileTable, sntilestat_argv
from accelbench.engine.telemetry.node import Device, StreamSampler


class SntilestatNode(StreamSampler):
    """Every RDU ``sntilestat`` lists."""

    name = "sntilestat"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._table = TileTable()

    def argv(self) -> list[str]:
        return sntilestat_argv(self.interval)

    def feed(self, line: str) -> list[Device] | None:
        """The RDUs once a table is whole: when the next table's header closes it (an RDU's
        rows ending is not enough: a sample taken then would lack the RDUs after it)."""
        self._table.feed(line)
        return rdus(self._table) if line.split()[:1] == ["TILE"] and self._table.rdus else None


def rdus(table: TileTable) -> list[Device]:
    """The RDUs a table has read: ``rdu<i>`` in its order, its tiles' mean ``%exec``."""
    return [Device(f"rdu{i}", rdu.name, round(sum(rdu.exec_percent) / len(rdu.exec_percent), 2),
                   pids=tuple(sorted(rdu.pids)))
            for i, rdu in enumerate(table.rdus.values())]
