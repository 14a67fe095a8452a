"""Fuzz (hypothesis) of presets and ``--set`` values: random TOML documents and key=value
strings (wrong types, NaN, NUL, newlines, huge values, deep nesting, other scripts'
digits) through ``load_preset``. Nothing but a ``UserError`` may escape; its message is
one line and starts with the file or the ``--set`` key; what loads plans, and saves and
loads back equal."""

import tempfile
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from accelbench.engine.config.presets import find_preset
from accelbench.engine.config.spec import _TOP_LEVEL, load_preset, variants
from accelbench.engine.config.sweep import OPTIONS
from accelbench.engine.config.tomlfile import parse
from accelbench.engine.core.errors import UserError
from accelbench.engine.launchers.slurm.commands import SLURM_PARAMS
from accelbench.engine.plugin.registry import workloads
from accelbench.engine.run.runner import Runner

FUZZ = settings(max_examples=1500, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BASES = ["cpu-mnist", "cpu-bert-padding-sweep", "sambanova-bert-large-ntasks16",
         "slurm-cpu-mnist", "groq-bert-tiny-seq128"]
NASTY = ["nan", "inf", "-inf", "1e400", "1_000", "١٢", "１２", "-h", "--help", "[/]", "[bold]x",
         "\0", "a\nb", "\r", "\u2028", "\udcff", 'echo "unbalanced', "'", "", " ", "=", "9" * 30,
         "0x10", "true", "mnist_cnn", "command", "cpu", "slurm", "-1", "0", "1", "2.5"]
TEXT = st.one_of(st.text(max_size=12), st.sampled_from(NASTY),
                 st.builds(lambda s, n: s * n, st.sampled_from(["x", "\n", "[", "7"]),
                           st.integers(1000, 100_000)))
PLAUSIBLE = st.sampled_from([1, 2, 16, 64, 0.5, 0.001, True, False, "x", "auto", "synthetic",
                             "echo hi", "fp32", [16, 32], [1, 2, 3], ["a", "b"], [0.1, 0.2]])
SCALARS = st.one_of(st.booleans(), st.integers(-2**70, 2**70), st.floats(), TEXT,
                    st.sampled_from([2**63, 2**64, -2**63 - 1, 10**400]), st.dates())


def nested(depth: int, leaf: int) -> list:
    """``[[[leaf]]]``, ``depth`` levels deep."""
    value = [leaf]
    for _ in range(depth):
        value = [value]
    return value


def names(*known) -> st.SearchStrategy[str]:
    """One of the ``known`` names, or any text."""
    return st.one_of(st.sampled_from(sorted({k for group in known for k in group})),
                     st.text(max_size=8))


PARAMS = [p.name for w in workloads().values() for p in w.params]
# the keys of each table ("" for the top level), known ones and any text
KEYS = {"": names(_TOP_LEVEL, ["params", "env", "slurm", "sweep"]), "params": names(PARAMS),
        "env": names(["X", "OMP_NUM_THREADS", "A=B", ""]), "slurm": names(SLURM_PARAMS),
        "sweep": names(OPTIONS, PARAMS, ["variants", "env.X", "slurm.ntasks", "params.epochs",
                                         "name", "sweep.x", "a.b", "description.x"])}
ANY_KEY = st.one_of(*KEYS.values())
VALUES = st.one_of(PLAUSIBLE, st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(ANY_KEY, inner, max_size=3), max_leaves=12),
    st.builds(nested, st.integers(1, 150), st.integers(0, 9)))
CHANGES = st.one_of(*(st.tuples(st.just(table), keys, VALUES) for table, keys in KEYS.items()))


def valid(param) -> st.SearchStrategy:
    """Values ``param`` takes (edges and any unicode text included)."""
    if param.choices:
        return st.sampled_from(param.choices)
    low = param.min if param.min is not None else -2**63
    high = param.max if param.max is not None else 2**63 - 1
    return {int: st.integers(int(low), int(high)), bool: st.booleans(),
            float: st.floats(low, high), str: st.text(st.characters(exclude_characters="\0",
                                                                     codec="utf-8"))}[param.type]


def likely(base: str) -> st.SearchStrategy[dict]:
    """Changes to ``base`` that often load: its workload's knobs, values of their type."""
    workload = workloads()[load_preset(find_preset(base)).workload]
    change = st.one_of(
        *(st.tuples(st.just("params"), st.just(p.name), valid(p)) for p in workload.params),
        *(st.tuples(st.just("sweep"), st.just(p.name), st.lists(valid(p), min_size=1,
                                                                 max_size=3))
          for p in workload.params),
        *(st.tuples(st.just(""), st.just(p.name), valid(p)) for p in _TOP_LEVEL.values()
          if p.name not in ("workload", "accelerator", "launcher")),
        *(st.tuples(st.just("slurm"), st.just(p.name), valid(p))
          for p in SLURM_PARAMS.values()),
        st.tuples(st.just("env"), st.text(max_size=8), st.text(max_size=8)))
    return st.builds(mutated, st.just(base), st.lists(change, min_size=1, max_size=3))


def mutated(base: str, changes: list[tuple[str, str, object]]) -> dict:
    """A built-in preset's data with ``(table, key, value)`` set ("" for the top level)."""
    data = parse(find_preset(base).read_text(), base)
    for table, key, value in changes:
        if table and not isinstance(data.get(table), dict):
            data[table] = {}
        (data[table] if table else data)[key] = value
    return data


DOCUMENTS = st.one_of(
    st.builds(mutated, st.sampled_from(BASES), st.lists(CHANGES, min_size=1, max_size=3)),
    st.sampled_from(BASES).flatmap(likely),
    st.dictionaries(KEYS[""], st.one_of(VALUES, st.dictionaries(ANY_KEY, VALUES, max_size=4)),
                    max_size=8))
RAW = st.one_of(st.text(max_size=200),
                st.builds(lambda key, opener, n: f"{key} = {opener * n}",
                          st.sampled_from(["a", "name", "[params]\nepochs"]),
                          st.sampled_from(["[", "{b = ", "[{c = "]), st.integers(1, 5000)))


def assignment(table: str, key: str, value: str) -> str:
    return f"{table}.{key}={value}" if table else f"{key}={value}"


OVERRIDES = st.lists(st.one_of(
    *(st.builds(assignment, st.just(table), keys, st.one_of(PLAUSIBLE.map(str), TEXT))
      for table, keys in KEYS.items()), TEXT), max_size=3)


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="accelbench-fuzz-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def home_for_fuzz(scratch):
    """A private home and an empty site configuration for the whole module."""
    patch = pytest.MonkeyPatch()
    patch.setenv("ACCELBENCH_HOME", str(scratch / "home"))
    patch.setenv("ACCELBENCH_CONFIG", str(scratch / "config"))
    yield
    patch.undo()


def check(path: Path, overrides: list[str], scratch: Path) -> None:
    """``load_preset`` gives a spec that plans and round-trips, or a one-line error."""
    try:
        spec = load_preset(path, overrides)
    except UserError as exc:
        event("refused")
        assert "\n" not in exc.message and "\n" not in exc.hint, exc.message
        assert exc.message.startswith((str(path), "--set ")), exc.message
        return
    event("loaded")
    assert len(variants(spec)) <= spec.sweep.get("max_variants", 1)
    for _, variant in variants(spec)[:3]:
        try:
            Runner.plan(variant, scratch)
        except UserError as exc:
            assert "\n" not in exc.message, exc.message
    again = scratch / "again.toml"
    again.write_text(spec.to_toml(), encoding="utf-8")
    assert load_preset(again) == spec


@FUZZ
@given(document=DOCUMENTS, overrides=OVERRIDES)
def test_random_documents(document, overrides, scratch, home_for_fuzz):
    try:
        text = tomli_w.dumps(document)
    except (TypeError, ValueError, RecursionError):
        assume(False)
    path = scratch / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check(path, overrides, scratch)


@settings(FUZZ, max_examples=500)
@given(text=RAW)
def test_random_text(text, scratch, home_for_fuzz):
    path = scratch / "raw.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check(path, [], scratch)


@FUZZ
@given(base=st.sampled_from(BASES), overrides=OVERRIDES)
def test_random_set_values_on_the_presets(base, overrides, scratch, home_for_fuzz):
    check(find_preset(base), overrides, scratch)
