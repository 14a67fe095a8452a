"""``snconfig show Node static``: the platform and how many XRDUs, RDUs and tiles it has.

The listing names the platform (``Platform Name: DataScale SN10-8``), then nests its parts:
``Number of XRDUS: 4``, under each XRDU ``Number of RDUS: 2``, under each RDU ``Number of
TILES: 4`` (then PCIe links, DDR channels and DIMMs). The first count of each kind is read:
every XRDU and RDU of a node is alike. Detection names the node it lists.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from accelbench.engine.core.patterns import lazy
from accelbench.engine.plugin.detect import finder, tools
from accelbench.engine.plugin.system import Availability

_COUNT = lazy(r"^\s*Number of (XRDUS|RDUS|TILES)\s*:\s*(\d+)\s*$")
_PLATFORM = lazy(r"^\s*Platform Name\s*:\s*(.*\S)\s*$")


@dataclass(frozen=True)
class Node:
    """A SambaNova node as ``snconfig`` lists it."""

    platform: str
    xrdus: int
    rdus_per_xrdu: int
    tiles_per_rdu: int

    @property
    def rdus(self) -> int:
        return self.xrdus * self.rdus_per_xrdu

    def described(self) -> str:
        return (f"{self.platform}: {self.rdus} RDU(s) ({self.xrdus} XRDU × "
                f"{self.rdus_per_xrdu}), {self.tiles_per_rdu} tiles each (snconfig)")


def read_snconfig(text: str) -> Node | None:
    """The node an ``snconfig`` listing describes, or None where it is not one."""
    platform, counts = "", dict[str, int]()
    for line in text.splitlines():
        if m := _COUNT.match(line):
            counts.setdefault(m[1], int(m[2]))
        elif not platform and (m := _PLATFORM.match(line)):
            platform = m[1]
    if not platform or "XRDUS" not in counts or "RDUS" not in counts:
        return None
    return Node(platform, counts["XRDUS"], counts["RDUS"], counts.get("TILES", 0))


_find = finder("/dev/rdu*", ("snconfig", "sntilestat"))


def detect() -> Availability:
    """SambaNova here: the node ``snconfig show Node static`` lists, else device files or
    tools."""
    here = _find()
    if not here.available or not tools("snconfig"):
        return here
    try:
        out = subprocess.run(["snconfig", "show", "Node", "static"], capture_output=True,
                             text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return here
    node = read_snconfig(out)
    return Availability(True, detail=node.described()) if node else here
