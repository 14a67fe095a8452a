"""Where presets live: the user's own directory, the built-in ``presets/``, and the folders
the systems' packages ship (``System.presets``), in that order: the first of a name wins."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from accelbench.engine.config.spec import load_preset
from accelbench.engine.core.errors import UserError, close_to
from accelbench.engine.core.job import JobSpec
from accelbench.engine.core.text import printable
from accelbench.engine.plugin import registry
from accelbench.engine.plugin.launcher import get_launcher

BUILTIN_DIR = Path(__file__).resolve().parents[2] / "presets"  # accelbench.presets


def user_dir() -> Path:
    """The user's presets: ``$ACCELBENCH_CONFIG/presets`` or the platform config dir."""
    env = os.environ.get("ACCELBENCH_CONFIG")
    if env:
        return Path(env).expanduser() / "presets"
    import platformdirs

    return Path(platformdirs.user_config_dir("accelbench", appauthor=False)) / "presets"


@dataclass
class PresetEntry:
    """A preset file, with its spec or the error that keeps it from loading."""

    name: str
    path: Path
    origin: str
    spec: JobSpec | None = None
    error: str = ""


def folders() -> list[tuple[str, Path]]:
    """(origin, folder) of every place presets are found, in the order a name is looked up:
    the user's, the built-in ones, then each system's package's (its origin the system)."""
    return [("user", user_dir()), ("built-in", BUILTIN_DIR), *registry.preset_dirs()]


def list_presets() -> list[PresetEntry]:
    """Every preset, the user's first (a user preset hides a built-in one of the same name,
    a built-in one a plug-in's)."""
    seen, entries = set(), []
    for origin, folder in folders():
        for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
            if path.stem in seen:
                continue
            seen.add(path.stem)
            entry = PresetEntry(path.stem, path, origin)
            try:
                entry.spec = load_preset(path)
            except UserError as exc:
                entry.error = str(exc)
            entries.append(entry)
    return entries


def find_preset(ref: str) -> Path:
    """A preset by path, or by name in the user's or the built-in directory."""
    path = Path(ref).expanduser()
    if path.is_file():
        return path
    for _, folder in folders():
        candidate = folder / f"{ref.removesuffix('.toml')}.toml"
        if candidate.is_file():
            return candidate
    names = {path.stem for _, folder in folders() if folder.is_dir()
             for path in folder.glob("*.toml")}
    close = close_to(ref.removesuffix(".toml"), sorted(names))
    raise UserError(f"{ref}: no such preset file or preset name",
                    hint=(f"did you mean {close!r}? " if close else "")
                    + "run `accelbench presets` to list the presets")


def detected_here(entries: list[PresetEntry]) -> dict[str, bool]:
    """Whether each accelerator the presets run on is detected here (all probed at once). A
    preset for one that is not is still listed (Slurm may reach it; it can be edited)."""
    names = {entry.spec.accelerator for entry in entries if entry.spec}
    found = registry.detect_all()
    return {name: name in found and found[name].available for name in names}


def launcher_refused(name: str) -> str:
    """Why launcher ``name`` can start no job here ("" where it can): its ``unavailable``,
    bounded in time; a plug-in's failure is said, never raised."""
    try:
        return printable(str(get_launcher(name).unavailable()))
    except Exception as exc:  # noqa: BLE001 - a plug-in's bug: said, never raised
        return printable(f"launcher {name!r} failed: {exc}")


def launchers_refused(entries: list[PresetEntry]) -> dict[str, str]:
    """Why each launcher the presets use can start no job here ("" where it can), all
    asked at once (``launcher_refused``)."""
    names = sorted({entry.spec.launcher for entry in entries if entry.spec})
    if not names:
        return {}
    with ThreadPoolExecutor(len(names)) as pool:
        asked = {name: pool.submit(launcher_refused, name) for name in names}
        return {name: future.result() for name, future in asked.items()}

