"""Stand-in for GroqFlow's ``groqflow``, for tests: only what ``groq_bert_tiny.py`` uses.

No Groq SDK and no GroqChip. ``groqit`` prints GroqFlow's build monitor as
``groqflow/justgroqit/stage.py`` and ``common/printing.py`` print it (the default
PyTorch sequence's steps, colours included) and returns a GroqModel that runs the
PyTorch model on the CPU, on inputs of the shape it was built for only. It keeps no
cache: ``rebuild="never"`` loads "from the cache" as if a build were there. Its
performance figures are the seeds' GroqChip figures per input (length 128: seed 002;
512: seed 003; other lengths: 128's scaled), times the batch size.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import torch

STEPS = ("Exporting PyTorch to ONNX", "Optimizing ONNX file", "Checking for Op support",
         "Converting to FP16", "Compiling model", "Assembling model")
BOLD, GREEN, CYAN, END = "\033[1m", "\033[92m", "\033[96m", "\033[0m"
SECONDS = {128: (1 / 37576.72, 1 / 19253.91), 512: (1 / 10953.97, 1 / 7515.17)}  # chip, e2e


def _seconds(length: int) -> tuple[float, float]:
    """(on-chip, end-to-end) seconds of one input of ``length`` tokens."""
    return SECONDS.get(length) or tuple(s * length / 128 for s in SECONDS[128])


class GroqModel:
    """A model "built for the GroqChip": it runs on the CPU."""

    def __init__(self, model: torch.nn.Module, inputs: dict) -> None:
        self.model = model
        self.shapes = {name: tuple(value.shape) for name, value in inputs.items()}
        self.state = SimpleNamespace(expected_input_shapes=self.shapes)
        self.batch, self.length = self.shapes["input_ids"]

    def run_abunch(self, input_collection: list) -> list:
        for inputs in input_collection:
            shapes = {name: tuple(value.shape) for name, value in inputs.items()}
            if shapes != self.shapes:
                raise ValueError(f"GroqModel was built for {self.shapes}, got {shapes}")
        with torch.no_grad():
            return [np.asarray(self.model(**inputs).logits) for inputs in input_collection]

    def estimate_performance(self) -> SimpleNamespace:
        latency = _seconds(self.length)[0] * self.batch
        return SimpleNamespace(compute_latency=latency, throughput=1 / latency)

    def benchmark(self) -> SimpleNamespace:
        print(f"{CYAN}Info: {END}{END}No inputs received for benchmark. Using the inputs"
              f" provided during model compilation.{END}", flush=True)
        latency = _seconds(self.length)[1] * self.batch
        return SimpleNamespace(latency=latency, throughput=1 / latency)


def groqit(model, inputs: dict, build_name: str | None = None, rebuild: str | None = None,
           **kwargs) -> GroqModel:
    """Print the build monitor (or a cache hit for ``rebuild="never"``); a CPU GroqModel."""
    name = build_name or "groqit_standin"
    if rebuild == "never":
        print(f"{GREEN}\nWoohoo! {END}{END}Build \"{name}\" found in cache. Loading it!{END}",
              flush=True)
        return GroqModel(model, inputs)
    print("\n\n")
    print(f'{BOLD}GroqFlow is building "{name}"{END}')
    for step in STEPS:
        print(f"{END}      {step}   {END}")
    print("\033[1A" * len(STEPS), end="")
    for step in STEPS:
        sys.stdout.write(f"      {step}...\r")  # the spinner's last state
        print(f"{GREEN}    ✓ {END}{END}{step}   {END}", flush=True)
    print(f"{GREEN}\nWoohoo! {END}{END}Saved to {END}{BOLD}~/.cache/groqflow/{name}{END}{END}",
          flush=True)
    return GroqModel(model, inputs)
