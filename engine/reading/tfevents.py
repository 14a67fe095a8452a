"""TensorBoard event files (``events.out.tfevents.*``): their scalars, without TensorFlow.

A file is a sequence of TFRecords: ``uint64 length``, ``uint32 masked crc32c(length)``,
``length`` bytes of data, ``uint32 masked crc32c(data)`` (little-endian). Each record's
data is an ``Event`` protobuf: ``wall_time`` (1, double), ``step`` (2, int64) and a
``Summary`` (5) of ``Value`` s, each a ``tag`` (1) with ``simple_value`` (2, float: TF1,
``torch.utils.tensorboard``) or a ``tensor`` (8, ``TensorProto``: TF2's ``tf.summary``)
holding one float or double, its ``metadata`` (9) naming the ``scalars`` plugin or none.
Other values (images, histograms, text, hparams) are passed over.

Reads are bounded: a record is read whole only up to ``MAX_RECORD`` bytes; a longer one,
a bad checksum (of any length; of the data of a record read: one holding scalars, or that
does not decode) or a cut-off record is damage, reported as a ``UserError`` naming the file
and the offset (the scalars before it are given first).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from accelbench.engine.core import safefile
from accelbench.engine.core.errors import UserError

MAX_RECORD = 64 * 1024 * 1024  # bytes: an event larger than this is damage, not data
PREFIX = "events.out.tfevents."


def is_event_file(path: Path) -> bool:
    """Whether ``path`` is named as TensorBoard names its event files."""
    return path.name.startswith(PREFIX)


@dataclass(frozen=True, slots=True)
class Scalar:
    """One scalar a summary writer wrote: its tag, value, step and wall time (epoch s)."""

    tag: str
    value: float
    step: int
    wall_time: float


def _crc_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """The masked CRC-32C a TFRecord stores."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(f: BinaryIO, name: str) -> Iterator[tuple[int, bytes, int]]:
    """``(offset, data, masked crc)`` of each TFRecord read from ``f`` (``name``: the file,
    for errors); the length's checksum is checked here, the data's by the caller (a record
    it does not read, an image, need not be)."""
    offset = 0
    while head := f.read(12):
        if len(head) < 12:
            raise UserError(f"{name}: damaged event file: a record cut off at byte {offset}")
        length, length_crc = struct.unpack("<QI", head)
        if masked_crc(head[:8]) != length_crc:
            raise UserError(f"{name}: damaged event file: bad length checksum at byte {offset}")
        if length > MAX_RECORD:
            raise UserError(f"{name}: damaged event file: a record of {length} bytes at byte"
                            f" {offset} (more than {MAX_RECORD})")
        data = f.read(length)
        tail = f.read(4)
        if len(data) < length or len(tail) < 4:
            raise UserError(f"{name}: damaged event file: a record cut off at byte {offset}")
        yield offset, data, struct.unpack("<I", tail)[0]
        offset += 16 + length


def _fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of each field of a protobuf message: an int for
    varints and fixed-width fields (their raw bits), bytes for length-delimited ones.
    ``ValueError`` where the message is malformed."""
    i, end = 0, len(buf)
    while i < end:
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
            yield number, wire, value
        elif wire == 1:
            if i + 8 > end:
                raise ValueError("truncated fixed64")
            yield number, wire, int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wire == 5:
            if i + 4 > end:
                raise ValueError("truncated fixed32")
            yield number, wire, int.from_bytes(buf[i:i + 4], "little")
            i += 4
        elif wire == 2:
            size, i = _varint(buf, i)
            if i + size > end:
                raise ValueError("truncated length-delimited field")
            yield number, wire, buf[i:i + size]
            i += size
        else:
            raise ValueError(f"unsupported wire type {wire}")


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("bad varint")
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, i
        shift += 7


def _double(bits: int) -> float:
    return float(struct.unpack("<d", bits.to_bytes(8, "little"))[0])


def _float(bits: int) -> float:
    """A float32 as the shortest decimal that reads back as the same float32 (``1.7423``,
    as TensorBoard shows it, not ``1.742300033569336``)."""
    raw = bits.to_bytes(4, "little")
    value = float(struct.unpack("<f", raw)[0])
    if not math.isfinite(value):
        return value

    def same(digits: int) -> bool:
        return struct.pack("<f", float(f"{value:.{digits}g}")) == raw

    digits = next(d for d in (6, 7, 8, 9) if same(d))  # (9 always reads back)
    while digits > 1 and digits <= 6 and same(digits - 1):  # (reading back: monotonic)
        digits -= 1
    return float(f"{value:.{digits}g}")


_DT_FLOAT, _DT_DOUBLE = 1, 2


def _tensor_scalar(buf: bytes) -> float | None:
    """The one float or double a ``TensorProto`` holds, else None (strings, images...)."""
    dtype, values = 0, []
    for number, wire, value in _fields(buf):
        if number == 1 and wire == 0:
            dtype = int(value)
        elif number == 4 and isinstance(value, bytes):  # tensor_content: raw little-endian
            values += ([_float(int.from_bytes(value[i:i + 4], "little"))
                        for i in range(0, len(value) - 3, 4)] if dtype == _DT_FLOAT else
                       [_double(int.from_bytes(value[i:i + 8], "little"))
                        for i in range(0, len(value) - 7, 8)] if dtype == _DT_DOUBLE else [])
        elif number == 5:  # float_val: packed or not
            values += ([_float(int.from_bytes(value[i:i + 4], "little"))
                        for i in range(0, len(value) - 3, 4)] if isinstance(value, bytes)
                       else [_float(value)])
        elif number == 6:  # double_val
            values += ([_double(int.from_bytes(value[i:i + 8], "little"))
                        for i in range(0, len(value) - 7, 8)] if isinstance(value, bytes)
                       else [_double(value)])
    if dtype in (_DT_FLOAT, _DT_DOUBLE) and len(values) == 1:
        return values[0]
    return None


def _plugin(metadata: bytes) -> str | None:
    """The plugin a ``SummaryMetadata`` names (``plugin_data.plugin_name``), if any."""
    for number, _, data in _fields(metadata):
        if number == 1 and isinstance(data, bytes):
            for field, _, name in _fields(data):
                if field == 1 and isinstance(name, bytes):
                    return name.decode("utf-8", "replace")
    return None


def _values(summary: bytes) -> Iterator[tuple[str, float]]:
    for number, _, value in _fields(summary):
        if number != 1 or not isinstance(value, bytes):
            continue
        tag, scalar, plugin = "", None, "scalars"
        for field, wire, item in _fields(value):
            if field == 1 and isinstance(item, bytes):
                tag = item.decode("utf-8", "replace")
            elif field == 2 and wire == 5:
                scalar = _float(int(item))
            elif field == 8 and isinstance(item, bytes):
                scalar = _tensor_scalar(item)
            elif field == 9 and isinstance(item, bytes):
                plugin = _plugin(item) or plugin
        if tag and scalar is not None and plugin == "scalars":
            yield tag, scalar


# The usual scalar event, as TF1 and torch.utils.tensorboard write it: wall_time, step (but
# 0), a Summary of one Value: a tag (shorter than 128 bytes) and a simple_value.
_SIMPLE = re.compile(rb"\x09(.{8})(?:\x10([\x80-\xff]{0,9}[\x00-\x7f]))?"
                     rb"\x2a([\x00-\x7f])\x0a([\x00-\x7f])\x0a([\x00-\x7f])(.*)\x15(.{4})",
                     re.S)


def _simple(data: bytes) -> Scalar | None:
    """The scalar of a usual scalar event (``_SIMPLE``), else None (read field by field)."""
    m = _SIMPLE.fullmatch(data)
    if m is None:
        return None
    summary, value, size = m[3][0], m[4][0], m[5][0]
    tag = m[6]
    if len(tag) != size or value != size + 7 or summary != value + 2:
        return None
    step = _varint(m[2], 0)[0] if m[2] else 0
    return Scalar(tag.decode("utf-8", "replace"), _float(int.from_bytes(m[7], "little")),
                  step - (1 << 64) if step >= 1 << 63 else step,
                  _double(int.from_bytes(m[1], "little")))


def event_scalars(data: bytes) -> list[Scalar]:
    """The scalars of one ``Event`` record; ``ValueError`` where it is malformed."""
    if (usual := _simple(data)) is not None:
        return [usual]
    wall_time, step, summaries = 0.0, 0, []
    for number, wire, value in _fields(data):
        if number == 1 and wire == 1:
            wall_time = _double(int(value))
        elif number == 2 and wire == 0:
            step = int(value)
            step = step - (1 << 64) if step >= 1 << 63 else step
        elif number == 5 and isinstance(value, bytes):
            summaries.append(value)
    return [Scalar(tag, v, step, wall_time) for summary in summaries
            for tag, v in _values(summary)]


def scalars(path: Path) -> Iterator[Scalar]:
    """Every scalar of the event file at ``path``, in the order written (the checksum of
    each record that holds one checked)."""
    try:
        with safefile.opened(path, "rb") as f:
            for offset, data, crc in records(f, str(path)):
                bad: ValueError | None = None
                try:
                    found = event_scalars(data)
                except ValueError as exc:
                    found, bad = [], exc
                if (found or bad) and masked_crc(data) != crc:
                    raise UserError(f"{path}: damaged event file: bad data checksum at byte"
                                    f" {offset}")
                if bad is not None:
                    raise UserError(f"{path}: damaged event file: the record at byte {offset}"
                                    f" is not an Event ({bad})")
                yield from found
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
