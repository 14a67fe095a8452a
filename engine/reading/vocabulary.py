"""One vocabulary for the names the world's training frameworks give their figures.

``canonical(key, unit)`` maps a printed key (``lm loss``, ``RunningAvgSamplesPerSec``,
``elapsed time per iteration (ms)``, ``train/loss``) and the unit printed with its number
onto one canonical figure and the factor that brings the number into that figure's unit
(ms -> s, MB -> GiB, an MFU fraction -> %). ``metric_name(key)`` is the name every other
named number keeps as a metric; ``named(key, unit)`` is the one or the other, with the
factor. To teach it a name, add it to ``FIGURES``.

The names the run summary picks its figures from (``summary.GENERIC_ALIASES``: ``loss``,
``eval_loss``, ``accuracy``) are canonical names here, so a figure read by shape reaches
the summary as a dialect's does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from accelbench.engine.core.patterns import lazy


@dataclass(frozen=True, slots=True)
class Canon:
    """A canonical figure: ``value * scale`` is the number in the figure's unit."""

    name: str
    scale: float


# canonical figure -> (the kind of its unit, the names it goes by, as metric_name gives them)
FIGURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "step": ("count", ("step", "iter", "iteration", "global_step", "current_steps",
                       "num_updates", "batch")),
    "total_steps": ("count", ("total_steps", "max_steps", "train_iters", "total_iters")),
    "epoch": ("printed", ("epoch",)),
    "loss": ("printed", ("loss", "lm_loss", "total_loss", "loss_train", "reduced_train_loss",
                         "loss_train_total")),
    "eval_loss": ("printed", ("eval_loss", "val_loss", "valid_loss", "validation_loss",
                              "test_loss", "eval_lm_loss", "val_lm_loss", "loss_val",
                              "loss_eval", "evaluation_loss", "val")),
    "lr": ("printed", ("lr", "learning_rate", "lr_0", "current_lr")),
    "samples_per_s": ("rate", ("samples_per_s", "samples_per_sec", "samples_per_second",
                               "samples_s", "samples_sec",
                               "samplespersec", "runningavgsamplespersec",
                               "throughput_samples_per_s", "throughput_samples_per_sec",
                               "samples_per_second_per_replica")),
    "tokens_per_s": ("rate", ("tokens_per_s", "tokens_per_sec", "tokens_per_second", "tps",
                              "tok_s", "tok_sec", "tokens_s", "tokens_sec",
                              "throughput_tokens_per_s", "throughput_tokens_per_sec",
                              "tokens_s_gpu", "tokens_s_device", "tokens_per_sec_per_gpu",
                              "tokens_per_s_per_gpu", "tokens_per_second_per_device",
                              "tokens_per_gpu_per_second", "tokens_per_gpu_per_second_tgs",
                              "tgs", "src_tok_s", "throughput_device_tokens_per_second")),
    "tflops": ("flops", ("tflops", "tflop_s", "tflops_per_gpu", "tflop_s_gpu",
                         "tflop_s_device", "model_tflops", "model_tflops_per_gpu")),
    "mfu_percent": ("percent", ("mfu", "mfu_percent", "model_flops_utilization")),
    "step_time_s": ("time", ("step_time", "time", "iter_time", "iteration_time",
                             "elapsed_time_per_iteration", "time_per_step",
                             "time_per_iteration", "train_step_timing", "batch_time",
                             "step_timing", "seconds", "batch_cost", "avg_batch_cost")),
    "memory_gib": ("bytes", ("memory", "mem", "max_memory_allocated", "memory_allocated",
                             "max_mem", "gpu_mem", "gpu_memory", "peak_memory",
                             "max_memory_reserved", "memory_reserved", "mem_allocated",
                             "memallocated", "maxmemallocated", "max_mem_allocated",
                             "cuda_memory", "peak_mem", "memory_usage", "memory_used",
                             "cuda_memory_allocated", "max_allocated", "allocated",
                             "max_reserved", "reserved", "memory_allocated_mem",
                             "peak_gpu_memory", "system_peak_gpu_memory")),
    "accuracy": ("printed", ("accuracy", "acc", "eval_accuracy", "val_accuracy", "val_acc",
                             "test_accuracy", "test_acc", "top1", "acc1", "acc_1",
                             "top_1_accuracy", "test_acc1", "val_acc1", "eval_acc1")),
    "grad_norm": ("printed", ("grad_norm", "gnorm", "gradient_norm", "grad_norm_total")),
}
"""The canonical figures. A name that says training (``train_loss``, ``train/epoch``,
``trainer/global_step``, ``training_loss``) names the figure of the rest but accuracy
(a training accuracy is not the evaluation's); a rate's unit (``tokens/s``, ``TFLOP/s``,
``samples/sec``) names the figure of any other key and of one that says only throughput
(``_BY_UNIT_KEYS``)."""

_ALIASES = {name: figure for figure, (_, names) in FIGURES.items() for name in names}
_KIND = {figure: kind for figure, (kind, _) in FIGURES.items()}
_TRAINING = lazy(r"(?:train|training|trainer)_(.+)")
EVALUATES = ("test", "testing", "val", "valid", "validation", "validating", "eval",
             "evaluation", "evaluating", "dev")
"""The words that say a figure is an evaluation's: ``test_acc_1``, ``valid_loss``, a dev
set's ``dev_loss`` (flair's ``DEV  : loss 0.0388``)."""
_EVALUATED = lazy(rf"(?:{'|'.join(EVALUATES)})_(.+)")
_OF_EVALUATION = {"loss": "eval_loss", "eval_loss": "eval_loss", "accuracy": "accuracy",
                  "epoch": "epoch"}
"""The figures an evaluation gives: its loss is the eval loss, its accuracy the accuracy, its
epoch the run's (Flax's ``eval epoch: 2, loss: ...``); its time, memory or throughput are
not the training's."""
_BY_UNIT_KEYS = frozenset({"throughput", "throughput_per_gpu", "throughput_per_device",
                           "tokens_per_gpu", "tokens_per_device", "speed", "perf",
                           "performance"})
"""Keys that say only that a rate follows: its unit names the figure."""

NOT_FIGURES = frozenset({
    "rank", "local_rank", "global_rank", "node_rank", "group_rank", "role_rank", "nranks", "pid",
    "port", "master_port", "version", "v_num", "line", "gpu", "cuda", "cudadev", "nvmldev",
    "device", "xla", "ipu", "hpu", "tpu", "npu", "xpu", "mps", "node", "job", "jobid",
    "process", "worker", "thread", "task", "tid", "uid", "gid", "id", "errno", "code",
    "exitcode", "exit_code", "seed", "dataloader", "dp", "pp", "tp", "cp", "ep", "uuid",
})
"""Names (as ``metric_name`` gives them) whose number is never a figure: ids, ranks,
devices, versions, line numbers, exit codes; so is any name ending in ``_id``, ``_rank``,
... (``_ID_ENDINGS``), or in ``rank`` glued to its word (Open MPI's ``mpirank``), and a
camelCase key ending ``Id`` (``processId``: ``numbers``)."""
_ID_ENDINGS = ("_id", "_ids", "_uuid", "rank", "ranks", "_pid", "_port", "_version", "_code")
PROSE = frozenset({
    "a", "about", "above", "after", "all", "an", "and", "are", "around", "as", "at", "be",
    "been", "below", "between", "by", "each", "every", "for", "found", "from", "has", "have",
    "in", "into", "is", "least", "most", "of", "on", "only", "or", "over", "than", "the",
    "to", "under", "up", "using", "via", "was", "were", "with", "within",
})
"""Small words of prose, never the name of the number after them when printed bare
(``reducing lr to 0.001``, ``over 2450 frames``, ``instead found 289619.68``); a quoted
key is a name whatever it says."""


def not_a_figure(name: str) -> bool:
    """Whether a number named ``name`` (as ``metric_name`` gives it) is an id, a rank, a
    device, ... rather than a figure."""
    return name in NOT_FIGURES or name.endswith(_ID_ENDINGS)


MULTIPLES = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
"""The letters of a multiple glued to a number (nanotron's ``11.5K``, ``85.8G``)."""
_TIME = {"": 1.0, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
         "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "mins": 60.0,
         "minutes": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hours": 3600.0}
# sizes in binary units, as the frameworks compute them (PyTorch's and DeepSpeed's "MB" and
# "GB" are 2**20 and 2**30 bytes)
_BYTES = {"b": 2.0**-30, "kb": 2.0**-20, "kib": 2.0**-20, "mb": 2.0**-10, "mib": 2.0**-10,
          "gb": 1.0, "gib": 1.0, "tb": 1024.0, "tib": 1024.0}
_FLOPS = {"g": 1e-3, "t": 1.0, "p": 1e3}
# a rate: of samples (or sequences, images) or tokens a second, or FLOP/s with their prefix
# (TFLOPS, TFLOPs, TFLOP/s), per device or not (tokens/s/GPU, TFLOP/s/GPU)
_RATE_UNIT = lazy(r"(?i)(?:(?P<what>samples?|sequences?|seqs?|images?|imgs?|tokens?|toks?)"
                  r"(?:/s(?:ec)?|ps|_per_sec(?:ond)?)|(?P<prefix>[gtp])?flop(?:s|/s))"
                  r"(?:/\w+)?$")
_LR_MONITOR = lazy(r"lr-[A-Za-z_]\w*(?:/pg1)?")
"""Lightning's ``LearningRateMonitor`` names an optimizer's learning rate ``lr-<its class>``
(``lr-Adam``; of its param groups ``lr-Adam/pg1``, ``/pg2``...; a second Adam's ``lr-Adam-1``)
and its other figures ``lr-Adam-momentum``, ``lr-Adam-weight_decay``: the first optimizer's
first group is the lr, the rest keep their names."""
_REMARK = lazy(r"\s*\([^()]*\)\s*$")  # a note after a key that is no unit
_KEY_UNIT = lazy(r"\s*[(\[]([^()\[\]]*)[)\]]\s*$|\s+in\s+(\S+)\s*$")
_NAME_UNIT = lazy(r"(.+?)_(ms|us|s|sec|gb|gib|mb|mib|pct|percent)$")
_PER_STEP = lazy(r"(ms|us|s|sec)_(?:step|batch|it|iter|iteration)$")  # "ms/batch"
# a time a step as a unit: "rate:5.5s/it" (Levanter), "(2.8448 s / it)" (detectron2)
_PER_STEP_UNIT = lazy(r"(ms|us|s|sec)[ \t]*/[ \t]*(?:step|batch|it|iter|iteration)")
_NON_WORD = lazy(r"\W+")


def is_unit(text: str) -> bool:
    """Whether ``text`` is a unit this vocabulary scales (``ms``, ``GiB``, ``%``,
    ``TFLOP/s/GPU``, ``tokens/s``)."""
    return (text in _TIME or text.lower() in _BYTES or text == "%"
            or bool(_RATE_UNIT.match(text)))


@functools.lru_cache(maxsize=4096)
def key_unit(key: str) -> tuple[str, str]:
    """``key`` less the unit it names at its end, and that unit (``""``: none):
    ``elapsed time per iteration (ms)``, ``time [s]``, ``train_step_timing in s``."""
    m = _KEY_UNIT.search(key)
    unit = m and (m[1] if m[1] is not None else m[2]).strip()
    return (key[:m.start()], unit) if m and unit and is_unit(unit) else (key, "")


@functools.lru_cache(maxsize=4096)
def metric_name(key: str) -> str:
    """The metric name of a printed key: lower case, each run of other characters than
    letters, digits and ``_`` made one ``_``, none at either end."""
    return _NON_WORD.sub("_", key.lower()).strip("_")


@functools.lru_cache(maxsize=4096)
def canonical(key: str, unit: str) -> Canon | None:
    """The canonical figure ``key`` printed with ``unit`` names, None where it names none
    (or the unit does not fit the figure: a memory with no unit, a time in ``%``)."""
    key, named = key_unit(key)
    if not named and (remark := _REMARK.search(key)):  # "acc (higher is better)"
        key = key[:remark.start()] or key
    unit = unit.strip() or named
    letter = unit if unit in MULTIPLES else ""  # "11.5K": 11.5 thousand of the key's unit
    unit = named if letter else unit
    name = metric_name(key)
    figure = _ALIASES.get(name)
    if figure is None and (evaluated := _EVALUATED.fullmatch(name)):
        figure = _OF_EVALUATION.get(_ALIASES.get(evaluated[1], ""))
    if figure is None and (training := _TRAINING.fullmatch(name)):
        figure = _ALIASES.get(training[1])
        if figure in ("accuracy", "eval_loss") or name == "training_time":
            figure = None  # (the training's time is the whole run's: LitGPT's, Graphcore's)
    if figure is None and _LR_MONITOR.fullmatch(key):
        figure = "lr"
    if figure is None and (per := _PER_STEP.fullmatch(name)):
        figure, unit = "step_time_s", unit or per[1]
    if figure is None and (suffix := _NAME_UNIT.match(name)):
        figure = _ALIASES.get(suffix[1])
        unit = unit or {"pct": "%", "percent": "%"}.get(suffix[2], suffix[2])
    if name in _BY_UNIT_KEYS or figure is None:  # "throughput per GPU (TFLOP/s/GPU)",
        figure = _by_unit(unit) or figure  # "Rate=4088.28 samples/sec", "Speed: ... samples/sec"
    if figure in (None, "step_time_s") and (per := _PER_STEP_UNIT.fullmatch(unit)):
        figure, unit = "step_time_s", per[1]  # a time a step names the figure of any key
    if not name and unit == "/s":  # a count a second that nothing names (timm's "798.85/s")
        figure = "samples_per_s"  # is of what a step takes in: samples
    if figure is None:
        return None
    if letter and _KIND[figure] == "bytes":  # detectron2's "max_mem: 3961M" is in MiB
        return Canon(figure, _BYTES[letter.lower() + "b"])
    scale = _scale(_KIND[figure], unit)
    return None if scale is None else Canon(figure, scale * MULTIPLES.get(letter, 1.0))


def named(key: str, unit: str = "") -> tuple[str, float]:
    """The name a number printed with ``key`` (in ``unit``) is kept under and the factor to
    that name's unit: its canonical figure's, else its own (``own``)."""
    canon = canonical(key, unit)
    return (canon.name, canon.scale) if canon else own(key, unit)


def own(key: str, unit: str = "") -> tuple[str, float]:
    """The name a number printed with ``key`` is kept under by its own name, and its factor:
    ``key``'s metric name, and a multiple's where ``unit`` is one's letter (nanotron's
    ``tokens_per_sec_per_gpu: 11.4K`` is 11400, ``consumed_tokens: 85.8G`` 85.8e9)."""
    return metric_name(key), MULTIPLES.get(unit, 1.0)


def _by_unit(unit: str) -> str | None:
    """The rate figure a unit names (``tokens/s``, ``TFLOP/s/GPU``, ``samples/sec``)."""
    if not (m := _RATE_UNIT.match(unit.strip())):
        return None
    if not m["what"]:
        return "tflops"
    return "tokens_per_s" if m["what"].lower().startswith("tok") else "samples_per_s"


def _scale(kind: str, unit: str) -> float | None:
    """The factor to the unit of a figure of ``kind``; None where ``unit`` does not fit."""
    lowered = unit.lower()
    if kind == "time":
        return _TIME.get(unit)
    if kind == "bytes":
        return _BYTES.get(lowered)
    if kind == "percent":
        return {"%": 1.0, "": 100.0}.get(unit)
    if kind == "flops":
        if not unit:
            return 1.0
        m = _RATE_UNIT.match(unit)
        return _FLOPS.get(m["prefix"].lower()) if m and m["prefix"] else None
    if kind == "rate":
        m = _RATE_UNIT.match(unit)
        return 1.0 if not unit or unit == "/s" or (m and m["what"]) else None
    return 1.0 if kind == "printed" or not unit else None
