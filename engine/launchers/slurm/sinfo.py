"""``sinfo``'s default table (``PARTITION AVAIL TIMELIMIT NODES STATE NODELIST``): a row
per partition and node state, read as one run per partition (``table_dialect``).

A partition's run says how many of its nodes are in each state, and the share of them
allocated (``alloc``, or ``mix``: partly) as its utilization; its status is the
partition's (``up``, ``down``, ...): a partition is no run to import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from accelbench.engine.core.events import Event, Utilization

HEADER = ("PARTITION", "AVAIL", "TIMELIMIT", "NODES", "STATE", "NODELIST")
_BUSY = ("alloc", "mix")  # a node running jobs (all its CPUs, or some)


@dataclass
class Partition:
    """A partition's rows of ``sinfo``: its nodes by state (``down*``: not responding)."""

    name: str
    avail: str
    limit: str
    states: dict[str, int] = field(default_factory=dict)

    @property
    def base(self) -> str:
        """What its rows are grouped by: the partition's name."""
        return self.name

    @property
    def nodes(self) -> int:
        return sum(self.states.values())

    def title(self) -> str:
        """``partition short (default): 24 nodes, 6 down*, 6 mix, ...; time limit 4:00:00``."""
        name = self.name.rstrip("*")
        states = ", ".join(f"{count} {state}" for state, count in self.states.items())
        return (f"partition {name}{' (default)' if self.name.endswith('*') else ''}:"
                f" {self.nodes} nodes, {states}; time limit {self.limit}")

    def events(self, run_id: str, ts: float) -> list[Event]:
        """The share of its nodes running jobs."""
        busy = sum(self.states.get(state, 0) for state in _BUSY)
        share = round(100.0 * busy / self.nodes, 2) if self.nodes else 0.0
        return [Utilization(run_id, ts, f"{self.name.rstrip('*')} nodes", share, busy,
                            "nodes")]


def row(header: list[str], line: str) -> Partition | None:
    """The partition of a row of ``sinfo``'s default table, with the row's nodes."""
    cells = line.split(None, len(header) - 1)
    if header[:len(HEADER)] != list(HEADER) or len(cells) < len(HEADER) - 1:
        return None  # (an empty partition has no NODELIST)
    name, avail, limit, count, state = cells[:5]
    if not count.isdigit():
        return None
    return Partition(name, avail, limit, {state: int(count)})


def merged(partitions: list[Partition]) -> Partition:
    """One partition of its rows (one per node state)."""
    first = partitions[0]
    states: dict[str, int] = {}
    for part in partitions:
        for state, count in part.states.items():
            states[state] = states.get(state, 0) + count
    return Partition(first.name, first.avail, first.limit, states)
