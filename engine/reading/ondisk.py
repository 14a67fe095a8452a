"""What training runs leave on disk, by file: which files are structured (their kind), a
run directory's files, and their records as text (``engine.reading.records``).

A run directory is one holding structured files (``trainer_state.json``,
``trainer_log.jsonl``, ``metrics.csv``, event files), with the event files of its
``runs/`` folder (a Hugging Face ``output_dir``): one run. Its files are read in that order;
a later file adds only the metrics an earlier one did not give (TensorBoard repeats the
Trainer's losses) and its wall times (the run's clock), and the first that tells how the
run ended (or how long it took) says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from itertools import groupby
from pathlib import Path

from accelbench.engine.reading import metrics_csv, tfevents, trainer_files
from accelbench.engine.reading.records import Record, text
from accelbench.engine.reading.vocabulary import canonical, metric_name, named

_ORDER = (trainer_files.STATE, trainer_files.LOG, metrics_csv.NAME)


def kind(path: Path) -> str | None:
    """The structured kind of the file at ``path`` (by its name), else None."""
    if path.name in _ORDER:
        return path.name
    return "tfevents" if tfevents.is_event_file(path) else None


def run_files(path: Path) -> list[Path] | None:
    """The structured files of the run at ``path`` (a structured file, or a run
    directory), in the order they are read; None where it is neither."""
    if not path.is_dir():
        return [path] if kind(path) else None
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    files = [path / name for name in _ORDER if name in names and (path / name).is_file()]
    events = [path / name for name in names if tfevents.is_event_file(path / name)
              and (path / name).is_file()]
    if (path / "runs").is_dir():
        for root, dirs, found in os.walk(path / "runs"):
            dirs.sort()
            events += [Path(root) / name for name in sorted(found)
                       if tfevents.is_event_file(Path(root) / name)]
    return files + events or None


def tag_name(tag: str) -> tuple[str, float]:
    """The name a TensorBoard tag is kept under and the factor to its unit
    (``vocabulary.named``). The Hugging Face Trainer writes each key it logs as ``train/<key>``
    (``eval_<key>`` as ``eval/<key>``): a training tag the vocabulary names no figure
    (``train/total_flos``, the final summary's mean ``train/train_loss``) keeps the key's
    name, as ``trainer_state.json`` has it."""
    head, _, tail = tag.partition("/")
    if head.lower() == "train" and tail and canonical(tag, "") is None:
        return metric_name(tail), 1.0
    return named(tag)


def event_records(path: Path) -> Iterator[Record]:
    """The scalars of an event file, those of one step written together as one record."""
    for step, group in groupby(tfevents.scalars(path), key=lambda s: s.step):
        scalars = list(group)
        metrics = {name: s.value * scale for s in scalars
                   for name, scale in [tag_name(s.tag)]}
        epoch = metrics.pop("epoch", None)
        yield Record(step=step, epoch=epoch, time=scalars[0].wall_time, metrics=metrics)


def _reader(path: Path) -> Callable[[Path], Iterator[Record]]:
    return {trainer_files.STATE: trainer_files.state_records,
            trainer_files.LOG: trainer_files.log_records,
            metrics_csv.NAME: metrics_csv.csv_records}.get(path.name, event_records)


def records(files: list[Path]) -> Iterator[Record]:
    """The records of a run's ``files`` (``run_files``), merged as the module says."""
    given: set[str] = set()
    ended = timed = False  # whether an earlier file said how the run ended, how long it took
    total: int | None = None
    for path in files:
        mine: set[str] = set()
        ends = times = False
        for record in _reader(path)(path):
            if given:
                record.metrics = {k: v for k, v in record.metrics.items() if k not in given}
            mine.update(record.metrics)
            total = record.total = record.total or total
            if record.status is not None:
                if ended:
                    record.status = record.code = record.detail = None
                ends = True
            if record.elapsed is not None:
                if timed:
                    record.elapsed = None
                times = True
            if (given and not record.metrics and record.status is None
                    and record.elapsed is None and record.time is None):
                continue  # (a later file's steps alone: an earlier one gave them)
            yield record
        given |= mine
        ended, timed = ended or ends, timed or times


def blocks(files: list[Path]) -> Iterator[str]:
    """The records of ``files`` as text, in blocks of whole lines."""
    return text(records(files))
