"""A preset's ``[sweep]`` table: the variants one preset expands into.

::

    [sweep]
    max_seq_length = [16, 32, 64, 128]    # a grid axis; several axes give their product
    slurm.ntasks = [16, 8]                # dotted keys reach [slurm], [env], [params]
    variants = [{batch_size = 32}, {batch_size = 32, env.OMP_NUM_THREADS = "4"}]
    max_parallel = 2                      # local runs at once (Slurm runs are all submitted)
    stop_on_failure = false               # a failed run stops the rest only when true
    experiment = "padding"                # the experiment's name (default: the preset's `name`)
    max_variants = 1000                   # more variants than this is refused (a typo's guard)

Explicit ``variants`` form one more axis: with a grid too, every variant is run at
every grid point. Every variant is checked when the preset loads, before anything runs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from accelbench.engine.core.errors import UserError, shown, shown_key
from accelbench.engine.core.params import Param

OPTIONS: dict[str, Param] = {p.name: p for p in (
    Param("max_parallel", int, 1, "local runs at once (a scheduler's runs are all submitted)",
          min=1, max=256),
    Param("stop_on_failure", bool, False, "a failed run stops the sweep"),
    Param("experiment", str, "", "the experiment's name (empty: the preset's `name`, wherever"
          " the sweep is started)"),
    Param("max_variants", int, 1000, "refuse a sweep of more variants than this",
          min=1, max=1_000_000),
)}
FIXED = ("name", "description", "workload")  # what a sweep may not vary


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"slurm": {"ntasks": [16, 8]}}`` → ``{"slurm.ntasks": [16, 8]}``."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def check(raw: Any, where: Callable[[str], str], tables: tuple[str, ...]) -> dict[str, Any]:
    """The sweep table normalised (options filled in, keys flattened), or a ``UserError``.

    ``where(key)`` names the place of a key in the preset for error messages; ``tables``
    are the preset's tables that a dotted key may reach.
    """
    if not isinstance(raw, dict):
        raise UserError(f"{where('')}: expected a table ([sweep]), got {shown(raw)}")
    sweep: dict[str, Any] = {}
    for name, param in OPTIONS.items():
        try:
            sweep[name] = param.check(raw[name]) if name in raw else param.default
        except UserError as exc:
            raise exc.prefixed(where(name)) from None
    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, dict) and v for v in variants):
        raise UserError(f"{where('variants')}: expected a list of tables, e.g."
                        " variants = [{batch_size = 16}, {batch_size = 32}]")
    sweep["variants"] = [flatten(v) for v in variants]
    axes = flatten({k: v for k, v in raw.items() if k not in OPTIONS and k != "variants"})
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise UserError(f"{where(key)}: expected a non-empty list of values,"
                            f" got {shown(values)}", hint=f"e.g. {shown_key(key)} = [16, 32]")
        sweep[key] = values
    for key in [*axes, *(k for v in sweep["variants"] for k in v)]:
        if key in FIXED:
            raise UserError(f"{where(key)}: {key} cannot be swept",
                            hint="sweep knobs such as batch_size or env.OMP_NUM_THREADS")
        if "." in key and key.partition(".")[0] not in tables:
            raise UserError(f"{where(key)}: a dotted key must start with "
                            + ", ".join(f"{t}." for t in tables), hint="e.g. env.OMP_NUM_THREADS")
    if not axes and not sweep["variants"]:
        raise UserError(f"{where('')}: nothing to sweep",
                        hint="add a list, e.g. max_seq_length = [16, 32], or variants = [...]")
    return sweep


def axes(sweep: dict[str, Any]) -> dict[str, list[Any]]:
    """The grid axes of a normalised sweep."""
    return {k: v for k, v in sweep.items() if k not in OPTIONS and k != "variants"}


def count(sweep: dict[str, Any]) -> int:
    """How many variants the sweep expands into (without expanding it)."""
    return math.prod(len(v) for v in axes(sweep).values()) * max(1, len(sweep["variants"]))


def check_count(sweep: dict[str, Any], where: Callable[[str], str]) -> None:
    """Refuse a sweep of more than ``max_variants`` variants, before any is expanded."""
    found, limit = count(sweep), sweep["max_variants"]
    if found > limit:
        raise UserError(f"{where('')}: {found:,} variants, more than the limit of {limit:,}",
                        hint="sweep fewer values, or raise max_variants in [sweep]")


def variants(sweep: dict[str, Any]) -> list[dict[str, Any]]:
    """Every variant: the grid's product, times the explicit variants, in order."""
    grid = axes(sweep)
    points = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    return [{**point, **extra} for point in points for extra in (sweep["variants"] or [{}])]


def keys(sweep: dict[str, Any]) -> set[str]:
    """Every key some variant sets."""
    return {*axes(sweep), *(k for v in sweep["variants"] for k in v)}


def apply(data: dict[str, Any], variant: dict[str, Any], top_level: set[str]) -> dict[str, Any]:
    """Preset data with ``variant``'s values set (bare keys: top-level fields or params)."""
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    for key, value in variant.items():
        table, dot, rest = key.partition(".")
        if dot:
            data.setdefault(table, {})[rest] = value
        elif key in top_level:
            data[key] = value
        else:
            data.setdefault("params", {})[key] = value
    return data


def label(variant: dict[str, Any]) -> str:
    """A variant in a few words: ``max_seq_length=16 slurm.ntasks=8``."""
    return " ".join(f"{shown_key(k)}={shown_key(v)}" for k, v in variant.items())
