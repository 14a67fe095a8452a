"""The seeds' MNIST CNN (Graphcore PopTorch tutorial): train it, then test it.

Standalone (torch and the sibling ``emit`` only): ``python -u mnist_cnn.py --device cpu ...``.
MNIST comes from IDX files (plain or .gz), a download, or under ``--data auto``
failing both, synthetic images.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import math
import os
import struct
import threading
import time
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from emit import Reporter, StopFlag, emit, fail
from torch import nn
from torch_device import open_device

MEAN, STD = 0.1307, 0.3081
FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
         "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/")
STALL_S = 20.0  # give up on a download that has received nothing for this long


class DataError(Exception):
    """MNIST could not be read or fetched; the message says why."""


class Block(nn.Module):
    """Convolution, max pooling, ReLU."""

    def __init__(self, in_channels: int, num_filters: int, kernel_size: int, pool_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, num_filters, kernel_size=kernel_size)
        self.pool = nn.MaxPool2d(kernel_size=pool_size)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.pool(self.conv(x)))


class Network(nn.Module):
    """The tutorial's network: two conv blocks, then 1600 -> 128 -> 10 logits."""

    def __init__(self) -> None:
        super().__init__()
        self.layer1 = Block(1, 32, 3, 2)
        self.layer2 = Block(32, 64, 3, 2)
        self.layer3 = nn.Linear(1600, 128)
        self.layer3_act = nn.ReLU()
        self.layer3_dropout = nn.Dropout(0.5)
        self.layer4 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer2(self.layer1(x)).view(-1, 1600)
        return self.layer4(self.layer3_dropout(self.layer3_act(self.layer3(x))))


def find(data_dir: Path, name: str) -> Path | None:
    """The IDX file ``name`` in ``data_dir``, plain or gzipped, if there."""
    return next((p for p in (data_dir / name, data_dir / f"{name}.gz") if p.is_file()), None)


def read_idx(path: Path) -> torch.Tensor:
    """An unsigned-byte IDX file (gzipped when named .gz) as a uint8 tensor."""
    try:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
            raw = f.read()
        zero, kind, ndim = struct.unpack(">HBB", raw[:4])
        dims = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
    except (OSError, EOFError, zlib.error, struct.error) as e:
        raise DataError(f"{path}: {e}") from None
    body = raw[4 + 4 * ndim:]
    if zero != 0 or kind != 0x08 or len(body) != math.prod(dims):
        raise DataError(f"{path}: not a complete unsigned-byte IDX file")
    return torch.frombuffer(bytearray(body), dtype=torch.uint8).reshape(dims)


def read_mnist(data_dir: Path) -> tuple[torch.Tensor, ...]:
    """Train images, train labels, test images, test labels from ``data_dir``."""
    if not data_dir.is_dir():
        raise DataError(f"{data_dir}: no such directory")
    paths = [find(data_dir, name) for name in FILES]
    missing = [name for name, path in zip(FILES, paths, strict=True) if path is None]
    if missing:
        raise DataError(f"{data_dir}: no {', '.join(missing)} (plain or .gz)")
    tensors = [read_idx(path) for path in paths if path is not None]  # all are, by now
    for images, labels in (tensors[:2], tensors[2:]):
        if (images.dim() != 3 or images.shape[1:] != (28, 28) or labels.shape != images.shape[:1]
                or labels.numel() == 0 or labels.max() > 9):
            raise DataError(f"{data_dir}: the files do not hold MNIST-shaped images and labels")
    return tuple(tensors)


@dataclass
class Download:
    """A download's last sign of life (``time.monotonic()``) and its error, if any."""

    alive: float
    error: str | None = "download stopped"


def _fetch(url: str, target: Path, state: Download) -> None:
    """Stream ``url`` to ``target`` through a .part file, noting progress in ``state``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    with urllib.request.urlopen(url, timeout=10) as response, open(part, "wb") as out:
        while chunk := response.read(1 << 16):
            out.write(chunk)
            state.alive = time.monotonic()
    os.replace(part, target)


def _fetch_missing(data_dir: Path, state: Download) -> None:
    """Download each missing file from the first mirror that serves it (worker thread)."""
    for name in (name for name in FILES if not find(data_dir, name)):
        for mirror in MIRRORS:
            try:
                _fetch(f"{mirror}{name}.gz", data_dir / f"{name}.gz", state)
                break
            except (OSError, http.client.HTTPException) as e:
                state.error = f"{name}.gz: {e}"
        else:
            return
    state.error = None


def download(data_dir: Path) -> None:
    """Fetch the missing MNIST .gz files into ``data_dir``; bounded when the network hangs."""
    state = Download(time.monotonic())
    worker = threading.Thread(target=_fetch_missing, args=(data_dir, state), daemon=True)
    worker.start()
    while worker.is_alive():  # urllib's timeout does not cover DNS lookups
        worker.join(0.25)
        if time.monotonic() - state.alive > STALL_S:
            raise DataError(f"no answer from the mirrors for {STALL_S:g} s")
    if state.error:
        raise DataError(state.error)


def synthetic(seed: int, n_train: int = 60000, n_test: int = 10000) -> tuple[torch.Tensor, ...]:
    """MNIST-shaped stand-in: its class's template, a fainter other one, noise, all shifted."""
    g = torch.Generator().manual_seed(seed)
    blobs = (torch.rand(10, 1, 5, 5, generator=g) > 0.5).float()
    canvas = F.pad(F.interpolate(blobs, size=(20, 20), mode="bilinear"), (7, 7, 7, 7))[:, 0]
    shifted = torch.stack([canvas[:, y:y + 28, x:x + 28] for y in range(7) for x in range(7)], 1)
    n = n_train + n_test
    labels = torch.randint(0, 10, (n,), generator=g)

    def draw(classes: torch.Tensor, peak: int) -> torch.Tensor:
        views = (shifted * peak).to(torch.uint8).flatten(0, 1)
        return views[classes * 49 + torch.randint(0, 49, (n,), generator=g)]

    noise = torch.randint(0, 26, (n, 28, 28), generator=g, dtype=torch.uint8)
    images = draw(labels, 170) + draw(torch.randint(0, 10, (n,), generator=g), 60) + noise
    return images[:n_train], labels[:n_train], images[n_train:], labels[n_train:]


def use_synthetic(seed: int, why: str, data_dir: Path) -> tuple[tuple[torch.Tensor, ...], str]:
    """Synthetic data, announced loudly to the user and to accelbench."""
    print(f"WARNING: {why}; training on SYNTHETIC data")
    emit("diagnosis", code="synthetic_data", message=f"{why}; training on synthetic data",
         hint=f"put the MNIST IDX files in {data_dir} or set data=<dir>")
    return synthetic(seed), "SYNTHETIC data"


def load_data(args: argparse.Namespace) -> tuple[tuple[torch.Tensor, ...], str]:
    """The four MNIST tensors that ``--data`` asks for, and where they came from."""
    home = os.environ.get("ACCELBENCH_HOME")
    default_dir = Path(home, "datasets") if home else Path.home() / ".cache" / "accelbench"
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else default_dir / "mnist"
    wanted = {"synthetic": "synthetic data", "download": f"MNIST, downloaded to {data_dir}",
              "auto": f"MNIST in {data_dir}, else downloaded, else synthetic"}
    emit("phase", name="loading", detail=wanted.get(args.data, f"MNIST from {args.data}"))
    if args.data == "synthetic":
        return use_synthetic(args.seed, "synthetic data requested (data=synthetic)", data_dir)
    if args.data in ("auto", "download"):
        try:
            download(data_dir)
        except DataError as e:
            if args.data == "download":
                fail("mnist_download_failed", f"MNIST download failed: {e}",
                     f"check the network, or put the MNIST IDX files in {data_dir}")
            return use_synthetic(args.seed, f"MNIST not available ({e})", data_dir)
    else:
        data_dir = Path(args.data).expanduser()
    try:
        return read_mnist(data_dir), f"MNIST from {data_dir}"
    except DataError as e:
        fail("mnist_missing", f"MNIST unreadable: {e}",
             "point data at a directory holding the four MNIST IDX files (plain or .gz)")


def prepare(images: torch.Tensor, labels: torch.Tensor, limit: int,
            device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The first ``limit`` samples (0: all), normalised, as NCHW float on ``device``."""
    images, labels = (images[:limit], labels[:limit]) if limit else (images, labels)
    x = images.to(device).unsqueeze(1).float().div_(255).sub_(MEAN).div_(STD)
    return x, labels.to(device=device, dtype=torch.long)


def train(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
          args: argparse.Namespace, stop: StopFlag) -> None:
    """Run ``args.epochs`` shuffled epochs, reporting progress and the final figures."""
    n, batch_size = len(x), args.batch_size
    steps = math.ceil(n / batch_size)
    reporter = Reporter(steps * args.epochs, args.epochs)
    shuffle = torch.Generator().manual_seed(args.seed)
    model.train()
    step, started = 0, time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        epoch_started, epoch_loss = time.perf_counter(), torch.zeros((), device=x.device)
        order = torch.randperm(n, generator=shuffle).to(x.device)
        for i in range(0, n, batch_size):
            batch = order[i:i + batch_size]
            loss = F.cross_entropy(model(x[batch]), y[batch])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.detach()
            step += 1
            reporter.step(step, epoch, len(batch), loss.item)
            stop.exit_if_requested(f"at step {step}")
        mean_loss = epoch_loss.item() / steps  # .item() waits for the device: honest timings
        rate = n / (time.perf_counter() - epoch_started)
        print(f"Epoch {epoch}/{args.epochs}: loss {mean_loss:.4f}, {rate:.1f} samples/s")
        emit("metric", name="epoch_loss", value=round(mean_loss, 4), step=step)
    runtime = time.perf_counter() - started
    emit("metric", name="train_runtime", value=round(runtime, 3))
    emit("metric", name="train_samples_per_second", value=round(n * args.epochs / runtime, 3))
    emit("metric", name="final_loss", value=round(mean_loss, 4))  # the log's last epoch loss


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor,
             batch_size: int) -> tuple[float, float]:
    """Mean test loss and accuracy (percent), in ``batch_size`` batches."""
    model.eval()
    loss_sum, correct = torch.zeros((), device=x.device), torch.zeros((), device=x.device)
    for i in range(0, len(x), batch_size):
        out, target = model(x[i:i + batch_size]), y[i:i + batch_size]
        loss_sum += F.cross_entropy(out, target, reduction="sum")
        correct += (out.argmax(1) == target).sum()
    n = max(len(x), 1)
    return loss_sum.item() / n, 100.0 * correct.item() / n


def add_mnist_flags(p: argparse.ArgumentParser, *extra: tuple[str, type, object]) -> None:
    """The knobs every MNIST workload shares (the seeds' defaults), plus ``extra`` ones."""
    for flag, kind, default in (("learning-rate", float, 0.03), ("epochs", int, 10),
                                ("batch-size", int, 8), ("test-batch-size", int, 80),
                                ("train-samples", int, 0), ("test-samples", int, 0),
                                ("seed", int, 0), *extra):
        p.add_argument(f"--{flag}", type=kind, default=default)
    p.add_argument("--data", default="auto", help="auto, download, synthetic, or an IDX directory")
    p.add_argument("--data-dir", default="", help="empty: $ACCELBENCH_HOME/datasets/mnist")


def parse_args() -> argparse.Namespace:
    """The flags of the ``mnist_cnn`` workload (its schema is in this package's catalog)."""
    p = argparse.ArgumentParser(description="Train and test the seeds' MNIST CNN.")
    p.add_argument("--device", default="cpu",
                   help="a torch device string: cpu, cuda, or a system's own (hpu, ...)")
    p.add_argument("--device-module", default="",
                   help="the package that registers --device with torch, imported first")
    add_mnist_flags(p, ("threads", int, 0))
    return p.parse_args()


def main() -> None:
    """Load the data, train, test, announcing each phase."""
    args = parse_args()
    stop = StopFlag()
    if args.device == "cuda" and not torch.cuda.is_available():
        fail("cuda_unavailable", "--device cuda, but torch sees no CUDA device",
             f"use --device cpu, or a CUDA build of torch (this one is {torch.__version__})")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = open_device(args.device, args.device_module, "use --device cpu")

    (train_images, train_labels, test_images, test_labels), source = load_data(args)
    x, y = prepare(train_images, train_labels, args.train_samples, device)
    test_x, test_y = prepare(test_images, test_labels, args.test_samples, device)
    model = Network().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate)
    print(f"mnist_cnn: {source} on {args.device}: {len(x)} train / {len(test_x)} test"
          f" samples, batch {args.batch_size} (test {args.test_batch_size}),"
          f" lr {args.learning_rate}, {args.epochs} epochs, {torch.get_num_threads()} threads")
    stop.exit_if_requested("while loading")

    emit("phase", name="running", detail=f"{args.epochs} epochs of {len(x)} samples")
    train(model, optimizer, x, y, args, stop)

    emit("phase", name="evaluating", detail=f"{len(test_x)} test samples")
    test_loss, accuracy = evaluate(model, test_x, test_y, args.test_batch_size)
    emit("metric", name="test_loss", value=round(test_loss, 6))
    emit("metric", name="accuracy", value=round(accuracy, 2))
    print(f"Accuracy on test set: {accuracy:.2f}%")


if __name__ == "__main__":
    main()
