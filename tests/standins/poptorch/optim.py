"""Stand-in for ``poptorch.optim``: PopTorch's SGD takes torch's arguments."""

from torch.optim import SGD

__all__ = ["SGD"]
