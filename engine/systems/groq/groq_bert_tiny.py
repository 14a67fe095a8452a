"""GroqFlow's ``bert_tiny`` proof point, with its constants as knobs.

Standalone, under the GroqFlow virtualenv's Python (torch, transformers, groqflow and
GroqFlow's ``demo_helpers``). As the proof point does: load the SST-2 fine-tuned
BERT-tiny, build it for the GroqChip with ``groqit`` on dummy inputs of shape
(batch size, sequence length), then measure SST accuracy and latency on the GroqChip
and on the CPU and print the result table. The proof point hard-codes batch 1 and
length 128 (the seeds edited them by hand); here they are ``--batch-size`` and
``--max-seq-length``, and ``--mode`` is its ``--build``/``--execute``.

Batch 1 runs ``demo_helpers``' own ``compute_performance``, as the proof point does. That
function feeds one example at a time, so a larger batch is measured here the same way
on batches of that size: the test set in batches (the last one topped up with the first
examples, whose repeated predictions are dropped), per-batch latency, inferences per
second = batch size / latency, the GroqChip's end to end from ``benchmark()`` and on
chip from ``estimate_performance()``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import Any

import numpy as np
import torch
import transformers

# the generic workloads' scripts (emit.py, mnist_cnn.py) are in engine/workloads:
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workloads"))

from emit import emit, fail, first_line

MODEL = "M-FAC/bert-tiny-finetuned-sst2"
HEADER = ("Source", "Accuracy", "end-to-end latency (ms)", "end-to-end IPS",
          "on-chip latency (ms)", "on-chip IPS")


def parse_args() -> argparse.Namespace:
    """The command line: one flag per GROQ_BERT_TINY parameter."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=MODEL)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--max-seq-length", type=int, default=128)
    p.add_argument("--mode", choices=("both", "build", "execute"), default="both")
    return p.parse_args()


def build_name(a: argparse.Namespace) -> str:
    """GroqFlow's cache name for this model and input shape (a file-safe name)."""
    model = re.sub(r"[^A-Za-z0-9_]", "_", a.model.rstrip("/").rsplit("/", 1)[-1])
    return f"{model}_b{a.batch_size}_s{a.max_seq_length}"


def batched(examples: list[dict], size: int) -> list[dict]:
    """``examples`` (inputs of batch 1) in batches of ``size``, the last one topped up with
    the first examples."""
    padded = examples + examples[:(-len(examples)) % size]
    return [{name: torch.cat([x[name] for x in padded[i:i + size]]) for name in padded[i]}
            for i in range(0, len(padded), size)]


def logits(outputs: Any) -> np.ndarray:
    """The stacked logits of a list of model outputs (tensors, arrays, or tuples of them)."""
    if not isinstance(outputs, list):
        outputs = [outputs]
    return np.concatenate([np.asarray(o[0] if isinstance(o, tuple) else o) for o in outputs])


def row(source: str, predictions: np.ndarray, labels: np.ndarray, batch: int,
        latency_s: float, on_chip_s: float | None) -> tuple[str, ...]:
    """A result-table row, formatted as ``demo_helpers`` formats it."""
    accuracy = float(np.mean(predictions.argmax(-1) == labels))
    on_chip = (f"{on_chip_s * 1000:.2f}", f"{batch / on_chip_s:.2f}") if on_chip_s else ("--", "--")
    return (source, f"{accuracy:.2%}", f"{latency_s * 1000:.2f}", f"{batch / latency_s:.2f}",
            *on_chip)


def table(rows: list[tuple[str, ...]]) -> str:
    """``rows`` under ``HEADER`` in PrettyTable's layout (the form the groq dialect reads)."""
    widths = [max(len(r[i]) for r in (HEADER, *rows)) for i in range(len(HEADER))]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    # GroqFlow's Python is 3.8: zip() has no strict= there.
    lines = ["|" + "|".join(f" {c.center(w)} " for c, w in zip(r, widths)) + "|"  # noqa: B905
             for r in (HEADER, *rows)]
    return "\n".join([rule, lines[0], rule, *lines[1:], rule])


def batched_performance(groq_model: Any, pytorch_model: Any, tokenizer: Any,
                        a: argparse.Namespace) -> list:
    """The result table's rows for batches of ``a.batch_size``, printed as it prints them."""
    from demo_helpers.dataset import create_dataset

    print("Preprocessing data.", flush=True)
    dataset = create_dataset("sst", tokenizer=tokenizer, max_seq_length=a.max_seq_length)
    n, b = len(dataset.x), a.batch_size
    batches = batched(dataset.x, b)
    print("Running inference on GroqChip.", flush=True)
    groq = logits(groq_model.run_abunch(batches))[:n]
    on_chip_s = groq_model.estimate_performance().compute_latency
    groq_s = groq_model.benchmark().latency  # the production system's end-to-end latency
    print("Running inference using PyTorch model (CPU).", flush=True)
    started = time.perf_counter()
    with torch.no_grad():
        cpu = logits([pytorch_model(**inputs).logits for inputs in batches])[:n]
    cpu_s = (time.perf_counter() - started) / len(batches)
    labels = np.asarray(dataset.y).reshape(-1)[:n]
    rows = [row("cpu", cpu, labels, b, cpu_s, None),
            row("groq", groq, labels, b, groq_s, on_chip_s)]
    print(table(rows), flush=True)
    return rows


def main() -> None:
    """Load, build, measure; exit 2 on a diagnosed problem."""
    a = parse_args()
    try:
        from groqflow import groqit
    except ImportError as exc:
        fail("groqflow_missing", f"this Python cannot import groqflow: {exc}",
             hint="set [groq] python in accelbench's config.toml to the GroqFlow"
                  " virtualenv's python")
    np.random.seed(1)
    torch.manual_seed(0)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    emit("phase", name="loading", detail=f"model {a.model}")
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(a.model)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(a.model).eval()
    except Exception as exc:  # noqa: BLE001 - network, auth, bad path: all the same to the user
        fail("model_unavailable", f"cannot load model {a.model!r}: {first_line(exc)}",
             hint="check the name, or give a local path (a Hugging Face model directory)")
    b, length = a.batch_size, a.max_seq_length
    dummy_inputs = {"input_ids": torch.ones(b, length, dtype=torch.long),
                    "attention_mask": torch.ones(b, length, dtype=torch.bool)}
    try:
        groq_model = groqit(model, dummy_inputs, build_name=build_name(a),
                            rebuild="never" if a.mode == "execute" else "if_needed")
    except Exception as exc:  # noqa: BLE001 - GroqFlow's errors share no public base class
        fail("groqflow_build_failed", f"groqit failed on {build_name(a)}: {first_line(exc)}",
             hint=f"see the log_*.txt files in ~/.cache/groqflow/{build_name(a)}/")
    if a.mode == "build":
        return
    if b == 1:
        from demo_helpers.compute_performance import compute_performance

        rows = compute_performance(groq_model, model, dataset="sst", tokenizer=tokenizer,
                                   max_seq_length=length, task="classification")
    else:
        rows = batched_performance(groq_model, model, tokenizer, a)
    groq = next(r for r in rows if r[0] == "groq")
    emit("metric", name="accuracy", value=float(groq[1].rstrip("%")))
    emit("throughput", samples_per_s=float(groq[3]))


if __name__ == "__main__":
    main()
