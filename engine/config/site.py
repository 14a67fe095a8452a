"""Site configuration: where each system's own tools live on this testbed.

``config.toml`` in the user's config directory (``$ACCELBENCH_CONFIG`` or the
platform's, e.g. ``~/.config/accelbench/config.toml``), one table per system::

    [example]                                  # a system's name
    python = "~/venvs/example/bin/python"      # the job's interpreter: its SDK's virtualenv
    trainer = "/opt/example/train.py"          # a key the system declares

The tables and keys are the ones the systems declare (``System.site_keys``: typed,
with defaults and help). accelbench itself never needs a system's SDK: it runs the
job with that interpreter.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from accelbench.engine.config import tomlfile
from accelbench.engine.core.errors import UserError, shown_key
from accelbench.engine.plugin.registry import site_keys


def config_path() -> Path:
    """Where the site configuration is read from."""
    env = os.environ.get("ACCELBENCH_CONFIG")
    if env:
        return Path(env).expanduser() / "config.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir("accelbench", appauthor=False)) / "config.toml"


def load() -> dict[str, dict[str, Any]]:
    """The site configuration, checked (a missing file is an empty configuration)."""
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    data = tomlfile.parse(text, path)
    known = site_keys()
    for system, table in data.items():
        if system not in known:
            raise UserError(f"{path}: [{shown_key(system)}]: unknown system",
                            hint="systems: " + ", ".join(known))
        if not isinstance(table, dict):
            raise UserError(f"{path}: {system}: expected a table ([{system}])")
        for key, value in table.items():
            if key not in known[system]:
                raise UserError(f"{path}: {system}.{shown_key(key)}: unknown key",
                                hint=f"keys of [{system}]: " + ", ".join(known[system]))
            try:
                table[key] = known[system][key].check(value)
            except UserError as exc:
                raise UserError(f"{path}: {system}.{key}: {exc.message}",
                                hint=known[system][key].help) from None
    return data


def value(system: str, key: str) -> Any:
    """``[system] key`` of the site configuration (``~`` expanded in paths), or the key's
    declared default (``None`` for a key the system does not declare)."""
    declared = site_keys().get(system, {}).get(key)
    found = load().get(system, {}).get(key, declared.default if declared else None)
    return os.path.expanduser(found) if isinstance(found, str) else found


def required(system: str, key: str) -> str:
    """A path the site configuration must give; a ``UserError`` saying where, if it does not."""
    found = value(system, key)
    if not found:
        raise UserError(f"{system}.{key} is not set in {config_path()}",
                        hint=f"add [{system}] {key} = \"...\" ({site_keys()[system][key].help})")
    return found
