"""Seeded, chunked sampling: memory stays flat whatever the sample count."""

import zlib

import torch

CHUNK_ELEMENTS = 1 << 22  # 4 Mi floats (16 MiB in float32) per tensor per chunk


def generator(device, seed, *labels):
    """A torch generator on `device` seeded from the run seed and a label path.

    Each sub-experiment gets its own stream, so adding or reordering one never
    changes the numbers of another.
    """
    tag = "/".join(str(label) for label in labels).encode()
    g = torch.Generator(device=device)
    g.manual_seed((seed * 1_000_003 + zlib.crc32(tag)) % (1 << 63))
    return g


def chunks(n, row_elements, budget=CHUNK_ELEMENTS):
    """Split n rows of `row_elements` values each into chunk sizes within budget."""
    step = max(1, budget // max(1, row_elements))
    for start in range(0, n, step):
        yield min(step, n - start)
