"""A run's summary: the figures runs are compared by, and how its job ended.

``RunSummary`` is what the store records when a run ends (``summary.json`` and the
index row, ``Store.record_end``) and what every reader gets back (``RunInfo.summary``).
Its canonical figures are picked from the run's metrics through one alias table (raw
metric name → canonical field: ``GENERIC_ALIASES`` and each system's); the raw metrics
are kept too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

from accelbench.engine.core.events import finite


@dataclass(frozen=True)
class Figure:
    """What a summary figure is called everywhere (CLI, app, exports) and what it means."""

    key: str
    label: str
    meaning: str
    better: str | None = None  # "max", "min", or None (not ranked)


FIGURES = {f.key: f for f in (
    Figure("samples_per_s", "samples/s", "training throughput over the whole run (the"
           " trainer's own summary figure where it reports one, else the mean of the"
           " throughput samples)", "max"),
    Figure("train_time_s", "train time (s)", "training time in seconds, as the trainer"
           " reports it", "min"),
    Figure("final_loss", "final loss", "the training loss the run ends with (its own"
           " final_loss figure, else its train_loss, else the last loss it logged;"
           " accelbench's workloads report the last epoch's mean as their log prints it, or"
           " the Trainer's last logged loss)", "min"),
    Figure("accuracy", "acc %", "accuracy in percent on the evaluation (test) set", "max"),
    Figure("eval_loss", "eval loss", "loss on the evaluation (test) set", "min"),
)}
"""The summary's figures, by field, in the order they are shown."""
CANONICAL = tuple(FIGURES)
"""The summary's figures, which metric aliases name."""
LAST_RATE = Figure("last_samples_per_s", "last samples/s",
                   "throughput over the newest reporting interval (a run's current speed)")


def figures_help(separator: str = "; ") -> str:
    """What each figure label means, as the help texts and tooltips say it."""
    return separator.join(f"{f.label} = {f.meaning}" for f in (*FIGURES.values(), LAST_RATE))

# raw metric name → canonical field, for the Hugging Face Trainer and accelbench's own
# workloads (each system adds its own: registry.metric_aliases); the first listed wins
GENERIC_ALIASES: dict[str, str] = {
    "train_samples_per_second": "samples_per_s",
    "train_runtime": "train_time_s",
    "final_loss": "final_loss",
    "train_loss": "final_loss",
    "loss": "final_loss",
    "test_accuracy": "accuracy",  # Keras' evaluate(), then its training names, as percents
    "test_sparse_categorical_accuracy": "accuracy",  # (parsers/keras.py); "accuracy" is an
    "test_categorical_accuracy": "accuracy",  # evaluation's elsewhere
    "accuracy": "accuracy",
    "sparse_categorical_accuracy": "accuracy",
    "categorical_accuracy": "accuracy",
    "eval_loss": "eval_loss",
    "test_loss": "eval_loss",
    "val_loss": "eval_loss",
}
MEAN_THROUGHPUT = "mean of throughput samples"  # samples/s measured from Throughput events


@dataclass(frozen=True)
class Alias:
    """A metric alias that scales: the summary's ``field`` is the metric times ``scale``
    (``Alias("accuracy", 100)`` shows a fraction such as ``eval_accuracy`` as the acc %
    column). A plain alias is the field's name alone."""

    field: str
    scale: float = 1.0


def canonical(metrics: Mapping[str, float | None], aliases: Mapping[str, str | Alias]
              ) -> dict[str, tuple[float, str]]:
    """Canonical field → (value, the metric it was taken from), by ``aliases`` (a scaled
    one's value to 12 significant digits, free of the product's binary noise)."""
    out: dict[str, tuple[float, str]] = {}
    for name, alias in aliases.items():
        key, scale = (alias, 1.0) if isinstance(alias, str) else (alias.field, alias.scale)
        if key not in out and (value := metrics.get(name)) is not None:
            out[key] = (value if scale == 1 else float(f"{value * scale:.12g}"), name)
    return out


def _count(value: Any) -> bool:
    return type(value) is int


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _figures(value: Any) -> bool:
    """Metrics by name: numbers, or None where the job's was NaN or infinite (the index's
    JSON has no such numbers)."""
    return isinstance(value, dict) and all(isinstance(k, str) and (v is None or finite(v))
                                           for k, v in value.items())


def _code(value: Any) -> bool:
    return value is None or type(value) is int


@dataclass
class Ending:
    """How the job ended, in a finished run's summary."""

    exit_code: int | None = field(default=None, metadata={"check": _code})
    bad_machine_lines: int | None = field(default=None, metadata={"check": _count})
    log_tail: list[str] | None = field(default=None, metadata={"check": _texts})


@dataclass
class RunSummary:
    """The figures of a run (``None``: not reported), then its ``ending`` once it ended.

    ``extra`` keeps what a summary read back holds that this version does not know (or
    that is not of its field's type), so nothing read is lost when it is written again.
    """

    samples_per_s: float | None = field(default=None, metadata={"check": finite})
    samples_per_s_source: str | None = field(default=None, metadata={"check": _text})
    train_time_s: float | None = field(default=None, metadata={"check": finite})
    final_loss: float | None = field(default=None, metadata={"check": finite})
    accuracy: float | None = field(default=None, metadata={"check": finite})
    eval_loss: float | None = field(default=None, metadata={"check": finite})
    steps: int | None = field(default=None, metadata={"check": _count})
    total_steps: int | None = field(default=None, metadata={"check": _count})
    duration_s: float | None = field(default=None, metadata={"check": finite})
    diagnoses: list[str] | None = field(default=None, metadata={"check": _texts})
    utilization: dict[str, float] | None = field(default=None, metadata={"check": _figures})
    metrics: dict[str, float | None] | None = field(default=None, metadata={"check": _figures})
    ending: Ending | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_metrics(cls, metrics: Mapping[str, float], mean_rate: float | None,
                     aliases: Mapping[str, str | Alias], **figures: Any
                     ) -> RunSummary:
        """The summary of ``metrics``: canonical figures by ``aliases``, samples/s from
        the mean of the throughput samples (``mean_rate``) when no metric reports it."""
        picked = canonical(metrics, aliases)
        if "samples_per_s" not in picked and mean_rate is not None:
            picked["samples_per_s"] = (mean_rate, MEAN_THROUGHPUT)
        rate = picked.pop("samples_per_s", (None, None))
        canonical_figures: dict[str, Any] = {key: value for key, (value, _) in picked.items()}
        return cls(samples_per_s=rate[0], samples_per_s_source=rate[1], **canonical_figures,
                   metrics=dict(metrics), **figures)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what the store records): the fields that are set, the ending's
        ``exit_code`` always once it ended, then ``extra``."""
        out = {f.name: getattr(self, f.name) for f in _FIELDS
               if getattr(self, f.name) is not None}
        if self.ending is not None:
            out.update({f.name: getattr(self.ending, f.name) for f in _ENDING
                        if f.name == "exit_code" or getattr(self.ending, f.name) is not None})
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: Any) -> RunSummary:
        """The summary of a JSON form (:meth:`to_dict`, or an earlier version's); a value
        that is not of its field's type is kept in ``extra``, never taken for a figure."""
        data = dict(data) if isinstance(data, dict) else {}
        known = {f.name: data.pop(f.name) for f in _FIELDS if _fits(f, data)}
        ending = None
        if "exit_code" in data and _code(data["exit_code"]):
            ending = Ending(**{f.name: data.pop(f.name) for f in _ENDING if _fits(f, data)})
        return cls(**known, ending=ending, extra=data)


def _fits(f: Field[Any], data: dict[str, Any]) -> bool:
    """``data`` holds a value of the type of field ``f``."""
    return f.name in data and f.metadata["check"](data[f.name])


_FIELDS = [f for f in fields(RunSummary) if "check" in f.metadata]
_ENDING = fields(Ending)
