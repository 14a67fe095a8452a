"""The one gate for text from outside on its way to a terminal: job output, tool output,
imported logs, run, metric and section names, diagnoses, plug-in messages.

A terminal obeys what such text may hold: ESC sequences (OSC 52 writes the clipboard, OSC 0
the title, OSC 8 links; CSI clears the screen, moves the cursor, or asks for a report the
terminal then types into the shell; DCS, SOS, PM, APC strings), their one-byte C1 forms
(``\\x9b`` is a CSI), NUL, BEL, DEL and the bidi overrides and isolates that make a line
read other than it is (and a lone surrogate, which no terminal encoding can write: a file
name's undecodable byte). :func:`printable` makes text safe to show:

- a complete CSI sequence (7-bit ``ESC [`` or 8-bit ``\\x9b``) is dropped: it only colours,
  moves, erases or asks, carries nothing a reader reads, and coloured loggers and progress
  bars print one on every line (shown, they would bury the text);
- every other control (C0 but tab, DEL, C1, bidi controls, surrogates, and ESC itself: the
  rest of an OSC, DCS or APC string is then plain text) is shown as a repr writes it
  (``\\x1b``, ``\\x07``, ``\\x9b``, ``\\u202e``): visible, so a user sees that a job tried
  (``\\x1b]52;c;...\\x07``), pure ASCII in every font, and the notation the one-line error
  messages use (``errors.shown``).

The result holds no control character a terminal acts on, and is itself printable: the
gate applied twice changes nothing. A text with nothing to change costs one
``str.isprintable`` scan and is returned as it is; else one regular-expression pass.
"""

from __future__ import annotations

import re

_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]")
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_ONE_LINE = re.compile(f"[\n{_CONTROLS}]")
_LINES = re.compile(f"[{_CONTROLS}]")


def _shown(match: re.Match[str]) -> str:
    """A control as a repr writes it."""
    found = match.group()
    if found in "\n\r":
        return "\\n" if found == "\n" else "\\r"
    code = ord(found)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _gated(text: str, controls: re.Pattern[str]) -> str:
    """``text`` less its CSI sequences (looked for only where one may start), its other
    ``controls`` shown (each pattern a character class: a scan in C)."""
    if "\x1b[" in text or "\x9b" in text:
        text = _CSI.sub("", text)
    return controls.sub(_shown, text)


def printable(text: str) -> str:
    """``text`` safe for a terminal, on one line: a newline too is shown (``\\n``)."""
    return text if text.isprintable() else _gated(text, _ONE_LINE)


def printable_lines(text: str) -> str:
    """``text`` safe for a terminal, its newlines kept (a file shown whole, a message)."""
    return text if text.isprintable() else _gated(text, _LINES)
