"""TOML text (presets, the site configuration) parsed, every problem a one-line ``UserError``."""

from __future__ import annotations

import re
from typing import Any

from accelbench.engine.core.errors import UserError, shown_key


def parse(text: str, source: Any) -> dict[str, Any]:
    """The TOML document ``text`` read from ``source`` (a path, for messages)."""
    import tomllib  # (only here: the systems that import this module load on every parse)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        where = f"{shown_key(source)}:{line.group(1)}" if line else shown_key(source)
        raise UserError(f"{where}: invalid TOML: {exc}") from None
    except RecursionError:
        raise UserError(f"{shown_key(source)}: invalid TOML: arrays or tables nested too deeply",
                        hint="a preset needs a few levels at most") from None
