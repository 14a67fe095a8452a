"""SambaNova sampler: ``sntilestat``'s tile table as per-RDU execution engines.

``sntilestat -i SECONDS --count N`` prints, every interval, a table of every tile
(SambaNova's "Use sntilestat for performance analysis"; ALCF's SambaNova pages)::

    TILE                 %idle %exec %pload %aload %chkpt %quiesce    PID     USER COMMAND
    /XRDU_0/RDU_0/TILE_0   8.0  91.6    0.3    0.1    0.0      0.0 2750333 someuser python ...
    /XRDU_0/RDU_0/TILE_1 100.0   0.0    0.0    0.0    0.0      0.0

``%exec`` is the share of the interval the tile ran a job. A node has 32 or more
tiles, so they are summarised per RDU: the engine ``rdu<i>`` (the i-th RDU in the
table's order) is its tiles' mean ``%exec``, taken once all its rows are read.
"""

from __future__ import annotations

from accelbench.engine.telemetry.tool import Readings, ToolSampler

_FOREVER = 1_000_000_000  # intervals: the tool runs until the job ends


class SambaNovaSampler(ToolSampler):
    """Mean tile execution percent of each RDU ``sntilestat`` lists."""

    name = "sambanova"
    tool = "sntilestat"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._exec = 0  # the %exec column's index in a row's fields
        self._rdu = ""  # the RDU whose rows are being read
        self._tiles: list[float] = []  # their %exec
        self._rdus: dict[str, float] = {}

    def argv(self) -> list[str]:
        """``sntilestat -i SECONDS --count N``: a table every interval."""
        return [self.tool, "-i", str(max(1, round(self.interval))), "--count", str(_FOREVER)]

    def feed(self, line: str) -> Readings | None:
        """The readings once a line ends an RDU's rows (a header, another RDU's row)."""
        fields = line.split()
        rdu = fields[0].rpartition("/")[0] if line.startswith("/") else ""
        done = self._finish() if rdu != self._rdu else None
        if fields[:1] == ["TILE"]:
            self._exec = fields.index("%exec")
        elif rdu:
            self._rdu = rdu
            self._tiles.append(float(fields[self._exec]))
        return done

    def _finish(self) -> Readings | None:
        if self._tiles:
            self._rdus[self._rdu] = round(sum(self._tiles) / len(self._tiles), 2)
        self._rdu, self._tiles = "", []
        return [{"engine": f"rdu{i}", "percent": p}
                for i, p in enumerate(self._rdus.values())] if self._rdus else None
