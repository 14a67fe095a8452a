"""Workloads: what each is, its knobs, and its command line; the generic ones.

The generic workloads run on the systems that say so (``System.extends``); each
system's own workloads live in its package (``engine/systems``), and the catalog
of them all is ``engine.plugin.registry.workloads()``. The scripts beside this file are
standalone (they need only torch, or transformers for BERT) and run under whichever
Python the run names; this module never imports them.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelbench.engine.core.errors import UserError, known_hint, shown
from accelbench.engine.core.params import Param

SCRIPTS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Context:
    """What a workload's command line depends on besides its knobs."""

    python: str
    accelerator: str
    device: str
    run_dir: Path  # the job's own directory (its files, where it runs), in the run's
    device_module: str = ""  # the package that registers ``device`` with torch (System's)
    generic: tuple[str, ...] = ()  # the dialects read on any system's output (the registry's)


@dataclass
class Plan:
    """How to run a job: argv (no shell), extra environment, files to write into its
    ``Context.run_dir`` first, the log dialects its output is read with, and those it is
    read with once it shows them (``parsers.sniffer``); ``cwd``: where it runs (None: in
    ``Context.run_dir``, its own directory inside the run's)."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    dialects: list[str] = field(default_factory=list)
    sniff: list[str] = field(default_factory=list)
    cwd: Path | None = None


Recipe = Callable[["Workload", dict[str, Any], Context], Plan]


@dataclass(frozen=True)
class Extension:
    """A system's addition to the generic workload called ``workload``: it runs on the
    system's accelerator, with ``recipe`` there if given (else the generic plan), and
    ``params`` valid there only (``what`` they are, for the error elsewhere)."""

    workload: str
    recipe: Recipe | None = None
    params: tuple[Param, ...] = ()
    what: str = "a knob of another system"


@dataclass(frozen=True)
class Workload:
    """A kind of job: its parameter schema and how to turn values into a ``Plan``.

    ``recipe`` builds the plan of a system's program; without one, the plan runs
    ``script`` (a path; for ``command``, the user's command). ``recipes`` and ``owned``
    are what systems' extensions add: the recipe per accelerator, and the knobs that
    belong to one accelerator (knob → (accelerator, what it is)).
    """

    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    accelerators: tuple[str, ...]
    script: str = ""
    recipe: Recipe | None = None
    recipes: Mapping[str, Recipe] = field(default_factory=dict)
    owned: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def launchable(self) -> bool:
        """False for the record of an imported log, which has no command to run."""
        return self.name != IMPORTED_NAME

    def runs_on(self, accelerator: str) -> bool:
        """True if this workload can run on ``accelerator`` (``*``: any)."""
        return "*" in self.accelerators or accelerator in self.accelerators

    def param(self, name: str) -> Param:
        """The knob called ``name``, or a ``UserError`` listing the known ones."""
        for p in self.params:
            if p.name == name:
                return p
        raise UserError(f"unknown parameter {shown(name)} for workload {self.name!r}",
                        hint=known_hint(name, (p.name for p in self.params), "parameters"))

    def extended(self, accelerator: str, ext: Extension) -> Workload:
        """This workload as ``accelerator``'s extension ``ext`` adds to it."""
        return dataclasses.replace(
            self, accelerators=(*self.accelerators, accelerator),
            params=(*self.params, *ext.params),
            recipes={**self.recipes, **({accelerator: ext.recipe} if ext.recipe else {})},
            owned={**self.owned, **{p.name: (accelerator, ext.what) for p in ext.params}})

    def defaults(self) -> dict[str, Any]:
        """Every knob at its default value."""
        return {p.name: p.default for p in self.params}

    def plan(self, params: dict[str, Any], ctx: Context) -> Plan:
        """How to run this workload with checked ``params`` (a ``UserError`` if it cannot)."""
        if not self.launchable:
            raise UserError("an imported run holds a log: it has no command to start",
                            hint="start a preset instead (accelbench presets)")
        for name, (accelerator, what) in self.owned.items():
            default = self.param(name).default
            if accelerator != ctx.accelerator and params[name] != default:
                raise UserError(f"params.{name}: {what}, for accelerator {accelerator!r} only",
                                hint=f"set {name}={_text(default)}")
        recipe = self.recipes.get(ctx.accelerator, self.recipe)
        if recipe is not None:
            return recipe(self, params, ctx)
        if not self.script:
            argv = shlex.split(params["command"])
            if not argv:
                raise UserError("params.command: expected a command to run, got ''")
            # the user's command runs where it was launched, finding what their shell would
            return Plan(argv, env={"PATH": os.environ.get("PATH", os.defpath)},
                        sniff=list(ctx.generic), cwd=Path.cwd())
        module = ["--device-module", ctx.device_module] if ctx.device_module else []
        return Plan([ctx.python, "-u", self.script, "--device", ctx.device, *module,
                     *self.flags(params)])

    def flags(self, params: dict[str, Any]) -> list[str]:
        """``--knob=value`` for every knob but the ones an extension owns, as the workload
        scripts take them (one argv item each, so that a value such as ``-h`` is never read
        as an option)."""
        return [f"{p.flag}={_text(params[p.name])}" for p in self.params
                if p.name not in self.owned]


def own_script(workload: Workload, params: dict[str, Any], ctx: Context,
               *dialects: str) -> Plan:
    """A system's standalone ``workload.script`` under its Python (its site ``python``),
    its output read with ``dialects``."""
    return Plan([ctx.python, "-u", workload.script, *workload.flags(params)],
                dialects=list(dialects))


def file_arg(path: str) -> str:
    """A program's file argument that cannot be read as an option: ``-c`` → ``./-c``."""
    return f"./{path}" if path.startswith("-") else path


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


_SEED = "the seeds' value"

MNIST_CNN = Workload(
    name="mnist_cnn",
    title="MNIST CNN",
    description="The seeds' MNIST convolutional network (PopTorch tutorial), trained then tested.",
    script=str(SCRIPTS_DIR / "mnist_cnn.py"),
    accelerators=(),
    params=(
        Param("learning_rate", float, 0.03, f"SGD learning rate ({_SEED}: 0.03)", min=1e-6, max=10),
        Param("epochs", int, 10, f"passes over the training set ({_SEED}: 10)", min=1, max=1000),
        Param("batch_size", int, 8, f"training batch size ({_SEED}: 8)", min=1, max=65536),
        Param("test_batch_size", int, 80, f"test batch size ({_SEED}: 80)", min=1, max=65536),
        Param("data", str, "auto",
              "'auto' (local MNIST, else download, else synthetic), 'download', 'synthetic',"
              " or a directory of MNIST IDX files"),
        Param("data_dir", str, "", "where MNIST is looked for and downloaded to"
              " (empty: <ACCELBENCH_HOME>/datasets/mnist)"),
        Param("train_samples", int, 0, "use only the first N training images (0: all)", min=0),
        Param("test_samples", int, 0, "use only the first N test images (0: all)", min=0),
        Param("threads", int, 0, "torch CPU threads (0: torch's default)", min=0, max=1024),
        Param("seed", int, 0, "random seed", min=0),
    ),
)

BERT_FINETUNE = Workload(
    name="bert_finetune",
    title="BERT fine-tuning",
    description="Sequence classification with the Hugging Face Trainer (padding and batch sweeps).",
    script=str(SCRIPTS_DIR / "bert_finetune.py"),
    accelerators=(),
    params=(
        Param("model", str, "bert-base-uncased",
              "hub name or local path; 'tiny' or 'base' builds a small or a BERT-base-sized"
              " BERT offline (random weights)"),
        Param("dataset", str, "synthetic",
              "'synthetic', a local .csv/.jsonl (text,label), "
              "or a datasets name such as 'glue/sst2'"),
        Param("max_seq_length", int, 128, "pad/truncate every sequence to this length",
              min=8, max=4096),
        Param("batch_size", int, 32, "per-device training batch size", min=1, max=65536),
        Param("epochs", int, 3, "training epochs", min=1, max=1000),
        Param("learning_rate", float, 5e-5, "AdamW learning rate", min=1e-9, max=1),
        Param("train_samples", int, 0, "use only the first N training examples (0: all)", min=0),
        Param("eval_samples", int, 0, "use only the first N evaluation examples (0: all)", min=0),
        Param("precision", str, "fp32", "training precision", choices=("fp32", "bf16")),
        Param("logging_steps", int, 10, "report loss every N steps", min=1),
        Param("seed", int, 42, "random seed", min=0),
    ),
)

COMMAND = Workload(
    name="command",
    title="Your command",
    description="Any command line, run as an argument list (never through a shell).",
    accelerators=("*",),
    params=(Param("command", str, "", "the command line to run, split like a shell would",
                  words=True),),
)

IMPORTED_NAME = "imported"
IMPORTED = Workload(
    name=IMPORTED_NAME,
    title="Imported log",
    description="A log someone already had (accelbench import), kept so it compares with runs.",
    accelerators=("*",),
    params=(Param("source", str, "", "the file the log came from"),
            Param("section", str, "", "the section of that file (its heading)"),
            Param("dialects", str, "", "the log dialects it was read with, comma-separated"),
            Param("sha256", str, "", "its content's SHA-256 (a file imported again is known)")),
)

GENERIC = (MNIST_CNN, BERT_FINETUNE, COMMAND, IMPORTED)
