"""Events as JSON lines, fast: the very text of ``events.to_json``, from a template per
event type (``%`` formatting in C) where its fields are strings and numbers; a ``Rows``'
events from its columns, with no event object made."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import MISSING, fields
from itertools import chain, repeat

from accelbench.engine.core.batches import Batch, Rows
from accelbench.engine.core.events import Event, to_json
from accelbench.engine.parsers.prefilter import line_starts

_ESCAPE = json.encoder.encode_basestring_ascii  # what json.dumps does to a str
_NUMBERS = {"float", "int", "bool", "float | None", "int | None"}
# What %r writes that JSON spells otherwise (NaN, null, true, ...): a line holding one
# of them is written by to_json (a few lines holding such words in text are too).
_OTHERWISE = ("nan", "inf", "None", "True", "False")
_ENCODERS: dict[type, Callable[[Event], str]] = {}
_TEMPLATES: dict[type, tuple[str, tuple[bool, ...]] | None] = {}


def _template(cls: type[Event]) -> tuple[str, tuple[bool, ...]] | None:
    """The line template of type ``cls`` (``%s`` for a string field, which is escaped
    first, ``%r`` for a number) and which of its fields are strings; None where a field is
    neither."""
    if cls not in _TEMPLATES:
        parts, texts = [f'{{"type":{_ESCAPE(cls.kind)}'], []
        for f in fields(cls):
            if f.type not in _NUMBERS and f.type != "str":
                _TEMPLATES[cls] = None
                break
            parts.append(f',"{f.name}":' + ("%s" if f.type == "str" else "%r"))
            texts.append(f.type == "str")
        else:  # (no % in a kind or a field's name)
            _TEMPLATES[cls] = "".join(parts) + "}", tuple(texts)
    return _TEMPLATES[cls]


def _encoder(cls: type[Event]) -> Callable[[Event], str]:
    """A function giving an event of type ``cls`` as a JSON line, maybe with %r spellings."""
    found = _template(cls)
    if found is None:
        return to_json
    template, texts = found
    args = [f"esc(e.{f.name})" if text else f"e.{f.name}"
            for f, text in zip(fields(cls), texts, strict=True)]
    source = f"def encode(e, esc=esc):\n    return {template!r} % ({', '.join(args)},)\n"
    namespace = {"esc": _ESCAPE}
    exec(source, namespace)  # a template made from the dataclass's own fields
    return namespace["encode"]  # type: ignore[return-value]


def json_lines(batch: Batch) -> str:
    """``to_json(e) + "\\n"`` for each event of ``batch`` (a ``Rows``' events in its
    place), joined."""
    if Rows not in set(map(type, batch)):
        return _lines(batch)  # type: ignore[arg-type]  # (no Rows: all events)
    return "".join(_rows_lines(item) if isinstance(item, Rows) else _lines(list(events))
                   for item, events in _runs(batch))


def _runs(batch: Batch) -> Iterator[tuple[Rows | None, Sequence[Event]]]:
    """Each Rows of ``batch`` (with no events), and each run of events between them."""
    start = 0
    for i, item in enumerate(batch):
        if isinstance(item, Rows):
            if i > start:
                yield None, batch[start:i]  # type: ignore[misc]
            yield item, ()
            start = i + 1
    if start < len(batch):
        yield None, batch[start:]  # type: ignore[misc]


def _lines(events: Sequence[Event]) -> str:
    """:func:`json_lines` of events."""
    encoders = _ENCODERS
    try:
        lines = [encoders[type(event)](event) for event in events]
    except (KeyError, TypeError):  # a type met first, a field not of its declared type
        lines = [_line(event) for event in events]
    return _checked(lines, lambda: events)


def _checked(lines: list[str], events: Callable[[], Sequence[Event]]) -> str:
    """``lines`` joined, each ending in ``\\n``, but those holding a word %r spells
    otherwise written by ``to_json`` (of the same place of ``events()``)."""
    text = "\n".join(lines) + "\n" if lines else ""
    if line_starts(text, _OTHERWISE):
        pairs = zip(lines, events(), strict=True)
        return "".join(line + "\n" if not any(word in line for word in _OTHERWISE)
                       else to_json(event) + "\n" for line, event in pairs)
    return text


def _rows_lines(rows: Rows) -> str:
    """:func:`json_lines` of a ``Rows``' events, formatted from its columns."""
    kinds = []
    for cls, columns in rows.kinds:
        found = _template(cls)
        if found is None:
            return _lines(rows.events())
        template, texts = found
        rest = fields(cls)[2 + len(columns):]  # (after run_id, ts and the columns: defaults)
        if any(f.default is MISSING for f in rest):
            return _lines(rows.events())
        values = [*columns, *(repeat(f.default) for f in rest)]
        values = [map(_ESCAPE, column) if text else column
                  for column, text in zip(values, texts[2:], strict=True)]
        kinds.append(map(template.__mod__, zip(repeat(_ESCAPE(rows.run_id)), rows.stamps,
                                                 *values)))
    return _checked(list(chain.from_iterable(zip(*kinds, strict=True))), rows.events)


def _line(event: Event) -> str:
    """One event's line, maybe with %r spellings (its type's encoder made where new)."""
    cls = type(event)
    encode = _ENCODERS.get(cls) or _ENCODERS.setdefault(cls, _encoder(cls))
    try:
        return encode(event)
    except TypeError:  # a field not of its declared type
        return to_json(event)
