"""Events as JSON lines, fast: the very text of ``events.to_json``, from a template per
event type (``%`` formatting in C) where its fields are strings and numbers."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import fields

from accelbench.engine.events import Event, to_json
from accelbench.engine.parsers.prefilter import line_starts

_ESCAPE = json.encoder.encode_basestring_ascii  # what json.dumps does to a str
_NUMBERS = {"float", "int", "bool", "float | None", "int | None"}
# What %r writes that JSON spells otherwise (NaN, null, true, ...): a line holding one
# of them is written by to_json (a few lines holding such words in text are too).
_OTHERWISE = ("nan", "inf", "None", "True", "False")
_ENCODERS: dict[type, Callable[[Event], str]] = {}


def _encoder(cls: type[Event]) -> Callable[[Event], str]:
    """A function giving an event of type ``cls`` as a JSON line, maybe with %r spellings."""
    parts, args = [f'{{"type":{_ESCAPE(cls.kind)}'], []
    for f in fields(cls):
        if f.type == "str":
            parts.append(f',"{f.name}":%s')
            args.append(f"esc(e.{f.name})")
        elif f.type in _NUMBERS:
            parts.append(f',"{f.name}":%r')
            args.append(f"e.{f.name}")
        else:
            return to_json
    template = "".join(parts) + "}"  # no % in a kind or a field's name
    source = f"def encode(e, esc=esc):\n    return {template!r} % ({', '.join(args)},)\n"
    namespace = {"esc": _ESCAPE}
    exec(source, namespace)  # a template made from the dataclass's own fields
    return namespace["encode"]  # type: ignore[return-value]


def json_lines(events: Sequence[Event]) -> str:
    """``to_json(e) + "\\n"`` for each of ``events``, joined."""
    encoders = _ENCODERS
    try:
        lines = [encoders[type(event)](event) for event in events]
    except (KeyError, TypeError):  # a type met first, a field not of its declared type
        lines = [_line(event) for event in events]
    text = "\n".join(lines) + "\n" if lines else ""
    if line_starts(text, _OTHERWISE):
        pairs = zip(lines, events, strict=True)
        return "".join(line + "\n" if not any(word in line for word in _OTHERWISE)
                       else to_json(event) + "\n" for line, event in pairs)
    return text


def _line(event: Event) -> str:
    """One event's line, maybe with %r spellings (its type's encoder made where new)."""
    cls = type(event)
    encode = _ENCODERS.get(cls) or _ENCODERS.setdefault(cls, _encoder(cls))
    try:
        return encode(event)
    except TypeError:  # a field not of its declared type
        return to_json(event)
