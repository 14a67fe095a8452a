"""BERT sequence-classification fine-tuning with the Hugging Face Trainer.

Standalone: needs torch and transformers (``datasets`` only for hub datasets).
Progress, throughput, metrics and diagnoses go out as machine lines (``emit``);
the ``***** train metrics *****`` block and the accuracy line are printed as the
seeds' runs printed them. On XLA the first steps are the compiling phase. A
system's recipe names its device's SDK and hint for when the device's backend is
missing, and the environment variable marking a graph compiler's trace-only pass
(``--trace-only-env``), in which the run only traces the graphs.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import random
import time
from typing import Any

import torch
from emit import StopFlag, emit, fail, first_line, say
from torch_device import open_device
from transformers import (
    AutoModelForSequenceClassification,
    AutoTokenizer,
    BertConfig,
    BertForSequenceClassification,
    PreTrainedTokenizerFast,
    Trainer,
    TrainerCallback,
    TrainingArguments,
    set_seed,
)

POSITIVE = ("good great excellent wonderful superb delightful brilliant lovely enjoyable "
            "charming moving fun fresh clever beautiful").split()
NEGATIVE = ("bad awful terrible boring dull poor weak tedious clumsy bland painful "
            "messy lifeless annoying ugly").split()
NEUTRAL = ("the a film movie story plot actor scene it was is and with this of its "
           "director cast ending script music pace camera").split()


def parse_args() -> argparse.Namespace:
    """The command line: ``--device``, the device's integration (set by a system's recipe),
    then one flag per BERT_FINETUNE parameter."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu",
                   help="a torch device string: cpu, cuda, xla, or a system's own (hpu, ...)")
    g = p.add_argument_group("device integration", "set by the system's recipe")
    g.add_argument("--device-module", default="",
                   help="the package that registers --device with torch, imported first")
    g.add_argument("--device-sdk", default="",
                   help="what provides torch_xla, named when --device xla finds none")
    g.add_argument("--missing-device-hint", default="use --device cpu",
                   help="the hint when --device's torch backend is missing")
    g.add_argument("--trace-only-env", metavar="VAR", default="",
                   help="with VAR=1 in its environment the run is a graph compiler's trace-only "
                        "pass: every phase is compiling and no figure is reported")
    g.add_argument("--trace-only-tool", metavar="NAME", default="",
                   help="that compiler, named in the pass's phases and last line (default: VAR)")
    p.add_argument("--model", default="bert-base-uncased")
    p.add_argument("--dataset", default="synthetic")
    p.add_argument("--max-seq-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=5e-5)
    p.add_argument("--train-samples", type=int, default=0)
    p.add_argument("--eval-samples", type=int, default=0)
    p.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    p.add_argument("--logging-steps", type=int, default=10)
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def synthetic(n: int, rng: random.Random) -> list[tuple[str, int]]:
    """``n`` review-like sentences whose label follows their sentiment words."""
    rows = []
    for _ in range(n):
        label = rng.randrange(2)
        words = rng.choices(NEUTRAL, k=rng.randint(6, 12))
        words += rng.choices(POSITIVE if label else NEGATIVE, k=rng.randint(2, 3))
        rng.shuffle(words)
        rows.append((" ".join(words), label))
    return rows


def read_file(path: str) -> list[dict]:
    """The records of a local .csv or .jsonl file."""
    with open(path, newline="", encoding="utf-8") as f:
        if path.endswith(".csv"):
            return list(csv.DictReader(f))
        return [json.loads(line) for line in f if line.strip()]


def to_rows(records: Any, where: str) -> list[tuple[str, int]]:
    """(text, label) pairs from records with a ``text``/``sentence`` and ``label`` column."""
    rows = []
    for r in records:
        text = r.get("text", r.get("sentence"))
        label = str(r.get("label", "")).strip()
        if text is None or not label.lstrip("-").isdigit():
            fail("bad_dataset", f"{where}: each row needs 'text' (or 'sentence') and an integer"
                 f" 'label', got {str(dict(r))[:120]}")
        rows.append((str(text), int(label)))
    return rows


def load_data(name: str, seed: int) -> tuple[list, list]:
    """(train, eval) lists of (text, label) for ``--dataset``."""
    if name == "synthetic":
        say("WARNING: training on SYNTHETIC data (generated sentiment sentences)")
        emit("diagnosis", code="synthetic_data",
             message="training on SYNTHETIC data: figures are not comparable with real data",
             hint="set dataset=glue/sst2 (or a local .csv/.jsonl) for real figures")
        rng = random.Random(seed)
        return synthetic(512, rng), synthetic(128, rng)
    if name.endswith((".csv", ".jsonl")):
        try:
            rows = to_rows(read_file(name), name)
        except (OSError, ValueError) as e:
            fail("bad_dataset", f"cannot read dataset {name}: {e}")
        if len(rows) < 2:
            fail("bad_dataset", f"{name}: needs at least 2 rows, has {len(rows)}")
        random.Random(seed).shuffle(rows)
        cut = max(1, len(rows) // 10)
        return rows[cut:], rows[:cut]
    return load_hub_dataset(name)


def load_hub_dataset(name: str) -> tuple[list, list]:
    """Train and validation splits of a ``datasets`` name ('glue/sst2' = glue, sst2)."""
    try:
        from datasets import load_dataset
    except ImportError:
        fail("datasets_missing", f"dataset {name!r} needs the 'datasets' package",
             hint="pip install datasets, or set dataset=synthetic (or a local .csv/.jsonl)")
    try:
        ds = load_dataset(*name.split("/", 1))
    except Exception as e:  # noqa: BLE001 - any loader failure is reported the same way
        fail("dataset_unavailable", f"cannot load dataset {name!r}: {first_line(e)}")
    evals = "validation" if "validation" in ds else "test"
    return to_rows(ds["train"], name), to_rows(ds[evals], name)


# the BERTs built offline (random weights): a small one, and bert-base-uncased's shape
# (BertConfig's defaults with its 30,522-token vocabulary: 110M parameters)
OFFLINE: dict[str, dict[str, Any]] = {
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 128},
    "base": {"vocab_size": 30522},
}


def offline_model(name: str, texts: list[str], num_labels: int) -> tuple[Any, Any]:
    """BERT ``OFFLINE[name]`` and a WordLevel tokenizer trained on ``texts``, built offline."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[(s, tok.token_to_id(s)) for s in specials[2:4]])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                        cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    config = BertConfig(**{"vocab_size": tok.get_vocab_size(), **OFFLINE[name]})
    config.num_labels = num_labels  # a property: BertConfig's signature does not take it
    return tokenizer, BertForSequenceClassification(config)


def load_model(name: str, texts: list[str], num_labels: int) -> tuple[Any, Any]:
    """(tokenizer, model) for ``--model``; a one-line diagnosis when it cannot load."""
    if name in OFFLINE:
        return offline_model(name, texts, num_labels)
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name, num_labels=num_labels)
    except Exception as e:  # noqa: BLE001 - network, auth, bad path: all the same to the user
        fail("model_unavailable", f"cannot load model {name!r}: {first_line(e)}",
             hint="set model=tiny or model=base (built offline), or a local path")
    return tokenizer, model


def encode(rows: list[tuple[str, int]], tokenizer: Any, max_len: int) -> list[dict]:
    """Examples padded to ``max_len``, as the Trainer's default collator batches them."""
    texts, labels = zip(*rows, strict=True)
    enc = tokenizer(list(texts), padding="max_length", truncation=True,
                    max_length=max_len, return_tensors="pt")
    enc["labels"] = torch.tensor(labels)
    return [{k: v[i] for k, v in enc.items()} for i in range(len(rows))]


COMPILE_STEPS = 2  # on XLA, step 1 compiles the training graph and step 2 that with optimizer state
XLA_COMPILING = "XLA graph compilation (first steps)"


class Watcher(TrainerCallback):
    """Emits phases, progress, throughput and logged metrics; stops on SIGTERM.

    On XLA the first ``COMPILE_STEPS`` steps are the "compiling" phase. In a trace-only
    pass (``tracing_for``: the graph compiler it traces graphs for, "" in a real run)
    every phase is "compiling", and no figure is reported (none is real).
    """

    def __init__(self, stop: StopFlag, epochs: int, interval: float = 0.5, xla: bool = False,
                 tracing_for: str = "") -> None:
        self.stop, self.epochs, self.interval = stop, epochs, interval
        self.compile_steps = COMPILE_STEPS if xla else 0
        self.tracing_for = tracing_for
        self.current, self.shown = "", ("", "")
        self.last_t, self.last_step = time.perf_counter(), 0

    def _enter(self, name: str, detail: str = "") -> None:
        """Enter phase ``name``; emit it unless it is the phase already shown."""
        self.current = name
        if self.tracing_for:
            graphs = "evaluation" if name == "evaluating" else "training"
            name, detail = "compiling", f"{self.tracing_for}: tracing the {graphs} graphs"
        if (name, detail) != self.shown:
            self.shown = (name, detail)
            emit("phase", name=name, detail=detail)

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.compile_steps:
            self._enter("compiling", XLA_COMPILING)
        else:
            self._enter("running")
        self.last_t = time.perf_counter()

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step < self.compile_steps:
            self._enter("compiling", XLA_COMPILING)
        elif self.current != "running":
            self._enter("running")  # throughput from here: no compilation, no evaluation
            self.last_t, self.last_step = time.perf_counter(), state.global_step

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.stop.requested:
            control.should_training_stop = True
        now, step = time.perf_counter(), state.global_step
        if now - self.last_t < self.interval and step != state.max_steps:
            return
        samples = (step - self.last_step) * args.per_device_train_batch_size * args.world_size
        rate = samples / max(now - self.last_t, 1e-9)
        self.last_t, self.last_step = now, step
        epoch = min(max(math.ceil(state.epoch or 0), 1), self.epochs)
        emit("progress", step=step, total=state.max_steps, epoch=epoch, epochs=self.epochs)
        if not self.tracing_for:
            emit("throughput", samples_per_s=round(rate, 3), step=step)

    def on_epoch_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.stop.requested:
            control.should_evaluate = False
        elif control.should_evaluate:
            self._enter("evaluating")

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        if self.tracing_for:
            return
        for name, value in (logs or {}).items():
            if name != "epoch" and isinstance(value, (int, float)) and not isinstance(value, bool):
                emit("metric", name=name, value=value, step=state.global_step)


def accuracy(pred: Any) -> dict:
    """Share of eval examples whose arg-max logit is the label."""
    return {"accuracy": float((pred.predictions.argmax(-1) == pred.label_ids).mean())}


def training_args(a: argparse.Namespace) -> TrainingArguments:
    """TrainingArguments for the command line (transformers 5 names)."""
    return TrainingArguments(
        output_dir="bert_output", use_cpu=a.device == "cpu", bf16=a.precision == "bf16",
        per_device_train_batch_size=a.batch_size, per_device_eval_batch_size=a.batch_size,
        num_train_epochs=a.epochs, learning_rate=a.learning_rate, seed=a.seed,
        eval_strategy="epoch", save_strategy="no", logging_steps=a.logging_steps,
        report_to=[], disable_tqdm=True,
        ddp_find_unused_parameters=False)  # under torchrun: BERT uses every parameter


def check_device(a: argparse.Namespace) -> None:
    """A diagnosis, and exit 2, when ``--device``'s torch backend is missing."""
    if a.device == "cuda" and not torch.cuda.is_available():
        fail("cuda_unavailable", "--device cuda, but torch sees no CUDA GPU",
             hint=a.missing_device_hint)
    if a.device == "xla" and importlib.util.find_spec("torch_xla") is None:
        sdk = f" ({a.device_sdk})" if a.device_sdk else ""
        fail("torch_xla_missing", f"--device xla, but this Python has no torch_xla{sdk}",
             hint=a.missing_device_hint)
    if a.device not in ("cpu", "cuda", "xla"):
        open_device(a.device, a.device_module, a.missing_device_hint)


def tracing_for(a: argparse.Namespace) -> str:
    """The graph compiler this run is a trace-only pass for, "" for a real run."""
    if not a.trace_only_env or os.environ.get(a.trace_only_env) != "1":
        return ""
    return a.trace_only_tool or a.trace_only_env


def main() -> None:
    """Load, fine-tune, report; exit 2 on a diagnosed problem, 143 on SIGTERM."""
    a = parse_args()
    stop = StopFlag()
    tracing = tracing_for(a)
    emit("phase", name="loading", detail=f"model {a.model}, dataset {a.dataset}")
    check_device(a)
    set_seed(a.seed)
    train_rows, eval_rows = load_data(a.dataset, a.seed)
    train_rows = train_rows[:a.train_samples or None]
    eval_rows = eval_rows[:a.eval_samples or None]
    num_labels = max(2, 1 + max(label for _, label in train_rows + eval_rows))
    tokenizer, model = load_model(a.model, [t for t, _ in train_rows], num_labels)
    train_set = encode(train_rows, tokenizer, a.max_seq_length)
    eval_set = encode(eval_rows, tokenizer, a.max_seq_length)
    say(f"Model {a.model}: {sum(p.numel() for p in model.parameters()):,} parameters; "
        f"{len(train_set)} train / {len(eval_set)} eval examples, length {a.max_seq_length}.")
    stop.exit_if_requested("while loading")

    trainer = Trainer(model=model, args=training_args(a), train_dataset=train_set,
                      eval_dataset=eval_set, compute_metrics=accuracy,
                      callbacks=[Watcher(stop, a.epochs, xla=a.device == "xla",
                                         tracing_for=tracing)])
    result = trainer.train()
    stop.exit_if_requested("during training")
    if tracing:
        say(f"Graphs traced for {tracing}; this pass's figures are not real.")
        return

    metrics = {**result.metrics, "total_flos": trainer.state.total_flos}
    evals = [h for h in trainer.state.log_history if "eval_loss" in h]
    metrics.update({k: v for k, v in evals[-1].items() if k.startswith("eval_")})
    trainer.log_metrics("train", metrics)
    step = trainer.state.global_step
    for name in ("train_samples_per_second", "train_runtime", "train_loss",
                 "eval_loss", "eval_accuracy"):
        emit("metric", name=name, value=float(metrics[name]), step=step)
    logged = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    if logged:  # the loss the training ends with (train_loss is the mean of all of it)
        emit("metric", name="final_loss", value=float(logged[-1]), step=step)
    acc = metrics["eval_accuracy"]
    emit("metric", name="accuracy", value=round(100 * acc, 4), step=step)
    say(f"Accuracy: {acc:.4f} ({100 * acc:.2f}%)")


def leave_group() -> None:
    """Under torchrun: wait for every rank, then leave the process group the Trainer made
    (a rank exiting while another still holds the group can make gloo abort it)."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
    leave_group()
