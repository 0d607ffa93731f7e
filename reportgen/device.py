"""The device a build computes on: the --device choice against what this machine has."""

from pathlib import Path

from reportgen.errors import ConfigError


def gpu_driver_present():
    """Whether an NVIDIA or ROCm kernel driver is loaded: without one torch can see no GPU."""
    return any(Path(p).exists() for p in ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/kfd"))


def resolve_device(choice):
    """'cpu' or 'cuda' for the --device choice; cuda without a GPU is bad input."""
    if gpu_driver_present():
        import torch

        available = torch.cuda.is_available()
    else:
        available = False  # skips importing torch (a second) when every result is cached
    if choice == "cuda" and not available:
        raise ConfigError(
            "--device cuda: torch sees no CUDA device on this machine; use --device auto or --device cpu"
        )
    if choice == "auto":
        return "cuda" if available else "cpu"
    return choice
