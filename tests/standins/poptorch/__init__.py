"""Stand-in for Graphcore's ``poptorch``, for tests: only what ``mnist_poptorch.py`` uses.

Plain CPU torch, no IPU. As PopTorch does, a DataLoader batch holds ``batch_size ×
deviceIterations`` samples, a training call runs one optimizer step per device
iteration and returns the last one's outputs, and a model's first call (or
``compile``) prints the ``Graph compilation`` bar.
"""

from __future__ import annotations

import torch

from . import optim

__all__ = ["DataLoader", "Options", "inferenceModel", "optim", "trainingModel"]


class Options:
    """PopTorch's options; only ``deviceIterations`` is kept."""

    def __init__(self) -> None:
        self.device_iterations = 1

    def deviceIterations(self, count: int) -> Options:
        self.device_iterations = count
        return self


class DataLoader(torch.utils.data.DataLoader):
    """A torch DataLoader whose batches hold ``batch_size × deviceIterations`` samples."""

    def __init__(self, options: Options, dataset, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = True, **kwargs) -> None:
        super().__init__(dataset, batch_size=batch_size * options.device_iterations,
                         shuffle=shuffle, drop_last=drop_last, **kwargs)


class _Executor:
    """A model "on the IPU": compiled on first use, then run on the CPU."""

    def __init__(self, model: torch.nn.Module, options: Options | None, optimizer=None) -> None:
        self.model, self.optimizer = model, optimizer
        self.iterations = (options or Options()).device_iterations
        self.compiled = False

    def compile(self, *args) -> None:
        if not self.compiled:
            print("Graph compilation: 100%|██████████| 100/100 [00:00<00:00]", flush=True)
            self.compiled = True

    def __call__(self, *args):
        self.compile(*args)
        if self.optimizer is None:
            with torch.no_grad():
                return self.model(*args)
        for chunk in zip(*(arg.chunk(self.iterations) for arg in args), strict=True):
            output, loss = self.model(*chunk)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return output.detach(), loss.detach()

    def detachFromDevice(self) -> None:
        """Nothing to release on the CPU."""


def trainingModel(model, options=None, optimizer=None) -> _Executor:
    """``model`` (returning ``(output, loss)``) trained by ``optimizer``, a step per iteration."""
    return _Executor(model, options, optimizer)


def inferenceModel(model, options=None) -> _Executor:
    """``model`` run forward only, on whole batches."""
    return _Executor(model, options)
