"""The seeds' MNIST CNN on a Graphcore IPU through PopTorch, as Graphcore's tutorial runs it.

Standalone, under the PopTorch virtualenv's Python (torch, poptorch and the sibling
``emit`` and ``mnist_cnn``, whose network and data this reuses), inside an IPU
allocation: ``srun --ipus=1 python -u mnist_poptorch.py ...``. Each call of the
training model runs ``--device-iterations`` steps on the IPU. Profiling is
PopTorch's own: set POPLAR_ENGINE_OPTIONS in the job's environment.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import torch
from torch import nn
from torch.utils.data import TensorDataset

# the generic workloads' scripts (emit.py, mnist_cnn.py) are in engine/workloads:
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workloads"))

from emit import Reporter, StopFlag, emit
from mnist_cnn import Network, add_mnist_flags, fail, load_data, prepare

try:
    import poptorch
except ImportError as exc:
    fail("poptorch_missing", f"cannot import poptorch under {sys.executable}: {exc}",
         "set [ipu] python in config.toml to the PopTorch virtualenv's python")


class TrainingModelWithLoss(nn.Module):
    """The tutorial's wrapper: PopTorch trains a model that returns its loss too."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        output = self.model(x)
        return output, self.loss(output, labels)


def batches(opts: poptorch.Options, x: torch.Tensor, y: torch.Tensor, batch_size: int,
            shuffle: bool, what: str) -> poptorch.DataLoader:
    """A PopTorch DataLoader over ``x, y``: whole batches of ``batch_size`` × device iterations."""
    data = poptorch.DataLoader(opts, TensorDataset(x, y), batch_size=batch_size,
                               shuffle=shuffle, drop_last=True)
    if len(data) == 0:
        fail("too_few_samples", f"{len(x)} {what} samples fill no batch of the model's calls",
             "use more samples, or a smaller batch size or fewer device iterations")
    return data


def train(model: Any, data: Any, args: argparse.Namespace, stop: StopFlag) -> None:
    """Run ``args.epochs`` epochs, one device-iteration batch per call, reporting as it goes."""
    reporter = Reporter(len(data) * args.epochs, args.epochs)
    step, samples, started = 0, 0, time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        epoch_started, epoch_samples, epoch_loss = time.perf_counter(), 0, 0.0
        for x, labels in data:
            _, losses = model(x, labels)  # the last iteration's, PopTorch's default output
            loss = float(losses.mean())
            step += 1
            epoch_samples += len(labels)
            epoch_loss += loss
            reporter.step(step, epoch, len(labels), lambda loss=loss: loss)  # type: ignore[misc]
            stop.exit_if_requested(f"at step {step}")
        samples += epoch_samples
        rate = epoch_samples / (time.perf_counter() - epoch_started)
        mean_loss = epoch_loss / len(data)
        print(f"Epoch {epoch}/{args.epochs}: loss {mean_loss:.4f}, {rate:.1f} samples/s")
        emit("metric", name="epoch_loss", value=round(mean_loss, 4), step=step)
    runtime = time.perf_counter() - started
    emit("metric", name="train_runtime", value=round(runtime, 3))
    emit("metric", name="train_samples_per_second", value=round(samples / runtime, 3))
    emit("metric", name="final_loss", value=round(mean_loss, 4))  # the log's last epoch loss


@torch.no_grad()
def evaluate(model: Any, data: Any) -> float:
    """Accuracy (percent) of the inference model over the test batches."""
    correct = total = 0
    for x, labels in data:
        output = model(x)
        correct += int((output.argmax(1) == labels).sum())
        total += len(labels)
    return 100.0 * correct / total


def parse_args() -> argparse.Namespace:
    """The flags of the ``mnist_poptorch`` workload (its schema is in ``vendor.py``)."""
    p = argparse.ArgumentParser(description="Train and test the seeds' MNIST CNN with PopTorch.")
    add_mnist_flags(p, ("device-iterations", int, 50))
    return p.parse_args()


def main() -> None:
    """Load the data, compile and train, compile and test, announcing each phase."""
    args = parse_args()
    stop = StopFlag()
    torch.manual_seed(args.seed)
    if os.environ.get("POPLAR_ENGINE_OPTIONS"):
        print(f"Profiling with POPLAR_ENGINE_OPTIONS={os.environ['POPLAR_ENGINE_OPTIONS']}")

    (train_images, train_labels, test_images, test_labels), source = load_data(args)
    cpu = torch.device("cpu")
    opts = poptorch.Options().deviceIterations(args.device_iterations)
    train_data = batches(opts, *prepare(train_images, train_labels, args.train_samples, cpu),
                         args.batch_size, True, "training")
    test_data = batches(poptorch.Options(), *prepare(test_images, test_labels, args.test_samples,
                                                     cpu), args.test_batch_size, False, "test")
    model = Network()
    training_model = poptorch.trainingModel(
        TrainingModelWithLoss(model), opts,
        optimizer=poptorch.optim.SGD(model.parameters(), lr=args.learning_rate))
    print(f"mnist_poptorch: {source}: {len(train_data)} calls of {args.device_iterations}"
          f" × batch {args.batch_size} per epoch, {len(test_data)} test batches of"
          f" {args.test_batch_size}, lr {args.learning_rate}, {args.epochs} epochs")
    stop.exit_if_requested("while loading")

    emit("phase", name="compiling", detail="training graph")
    training_model.compile(*next(iter(train_data)))
    emit("phase", name="running", detail=f"{args.epochs} epochs of {len(train_data)} calls")
    train(training_model, train_data, args, stop)
    training_model.detachFromDevice()

    model.eval()
    inference_model = poptorch.inferenceModel(model)
    emit("phase", name="compiling", detail="inference graph")
    inference_model.compile(next(iter(test_data))[0])
    emit("phase", name="evaluating", detail=f"{len(test_data)} test batches")
    accuracy = evaluate(inference_model, test_data)
    emit("metric", name="accuracy", value=round(accuracy, 2))
    print(f"Accuracy on test set: {accuracy:.2f}%")


if __name__ == "__main__":
    main()
