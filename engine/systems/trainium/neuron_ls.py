"""``neuron-ls``: the Neuron devices of this machine, for detection.

``neuron-ls --json-output`` prints an array of devices (``neuron_device``, ``nc_count``,
``memory_size`` in bytes); plain ``neuron-ls`` prints a table whose two header rows name
the columns (``NEURON DEVICE``, ``NEURON CORES``, ``NEURON MEMORY`` as ``32 GB``, GiB in
fact). Both are read; a machine whose ``neuron-ls`` answers nothing is found as before,
by its device files or tools. The ``neuron_ls`` dialect reads a saved listing (given to
``parse``/``import``) as each device's NeuronCores and memory (``neuron<i>_cores``,
``neuron<i>_memory_gib``).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

from accelbench.engine.core.events import Event, Metric
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect
from accelbench.engine.plugin.detect import finder, tools
from accelbench.engine.plugin.system import Availability

_GIB = 2 ** 30
_MEMORY = lazy(r"^(\d+(?:\.\d+)?) GB$")
# the table's header, from its first bar (found by it: a pattern that starts with a line
# start is tried at every character); only blanks go before it in its line (``_header``)
_HEADER = lazy(r"\|\s*NEURON\s*\|\s*NEURON\s*\|")
MAX_LISTING = 1024 * 1024  # characters of a listing kept to read at its end
_find = finder("/dev/neuron*", ("neuron-ls", "neuron-top", "neuron-monitor"))


@dataclass(frozen=True)
class NeuronDevice:
    """One Neuron device: its index, NeuronCores and memory (bytes; None if not shown)."""

    index: int
    cores: int
    memory: int | None


def devices(text: str) -> list[NeuronDevice]:
    """The devices ``neuron-ls`` lists in ``text`` (its JSON or its table)."""
    text = text.strip()
    if text.startswith("["):
        try:
            return [NeuronDevice(int(d["neuron_device"]), int(d["nc_count"]),
                                 int(d["memory_size"]) if "memory_size" in d else None)
                    for d in json.loads(text)]
        except (ValueError, TypeError, KeyError):
            return []
    return _table(text)


def _table(text: str) -> list[NeuronDevice]:
    """The devices of ``neuron-ls``'s table: columns named by its two header rows."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.strip().startswith("|")]
    header = [r for r in rows if r and r[0] in ("NEURON", "DEVICE")]
    if len(header) < 2:
        return []
    names = [f"{a} {b}".strip() for a, b in zip(header[0], header[1], strict=False)]
    try:
        device, cores = names.index("NEURON DEVICE"), names.index("NEURON CORES")
    except ValueError:
        return []
    memory = names.index("NEURON MEMORY") if "NEURON MEMORY" in names else None
    found = []
    for row in rows:
        if len(row) == len(names) and row[device].isdigit() and row[cores].isdigit():
            size = _MEMORY.match(row[memory]) if memory is not None else None
            found.append(NeuronDevice(int(row[device]), int(row[cores]),
                                      round(float(size[1]) * _GIB) if size else None))
    return found


def described(found: list[NeuronDevice]) -> str:
    """``found`` in a few words: devices, NeuronCores and memory."""
    cores = sum(d.cores for d in found)
    text = f"{len(found)} Neuron device(s), {cores} NeuronCore(s)"
    if all(d.memory for d in found):
        text += f", {sum(d.memory or 0 for d in found) / _GIB:g} GiB"
    return text + " (neuron-ls)"


def detect() -> Availability:
    """Trainium here: what ``neuron-ls --json-output`` lists, else device files or tools."""
    here = _find()
    if not here.available or not tools("neuron-ls"):
        return here
    try:
        out = subprocess.run(["neuron-ls", "--json-output"], capture_output=True, text=True,
                             timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return here
    found = devices(out)
    return Availability(True, detail=described(found)) if found else here


class NeuronLs(Dialect):
    """A saved ``neuron-ls`` listing (its table or ``--json-output``): each device's
    NeuronCores and memory. Read at its end (the table spans lines)."""

    whole = True
    name = "neuron_ls"
    title = "AWS neuron-ls listings"
    # (a block holding neither, with case, is not read whole)
    sniff_needs, sniff_cased = ("NEURON", '"nc_count"'), True

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._lines: list[str] = []
        self._size = 0

    def feed(self, line: str, ts: float) -> list[Event]:
        if self._size < MAX_LISTING:
            self._lines.append(line)
            self._size += len(line)
        return []

    def finish(self, ts: float) -> list[Event]:
        text = "\n".join(self._lines)
        self._lines = []
        found = devices(text[text.find("["):] if '"nc_count"' in text else text)
        events: list[Event] = []
        for device in found:
            events.append(Metric(self.run_id, ts, f"neuron{device.index}_cores", device.cores))
            if device.memory is not None:
                events.append(Metric(self.run_id, ts, f"neuron{device.index}_memory_gib",
                                     round(device.memory / _GIB, 3)))
        return events

    @classmethod
    def sniff(cls, text: str) -> bool:
        return ("NEURON" in text and _header(text)) or '"nc_count"' in text[:65536]


def _header(text: str) -> bool:
    """Whether a line of ``text`` starts, after blanks, with the table's header."""
    rfind = text.rfind
    return any(not text[rfind("\n", 0, m.start()) + 1:m.start()].strip()
               for m in _HEADER.finditer(text))
