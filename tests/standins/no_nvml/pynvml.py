"""On PYTHONPATH ahead of the real one: NVML absent, as on a machine without nvidia-ml-py."""

raise ImportError("stand-in: no pynvml here")
