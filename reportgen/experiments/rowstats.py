"""Statistics of softmax rows, shared by every family that looks at attention weights."""

import math


def row_stats(logits):
    """Largest weight and entropy (nats) of softmax over the last axis, one per row (torch)."""
    import torch

    logp = torch.log_softmax(logits, dim=-1)  # finite where softmax would underflow to 0
    return logp.max(dim=-1).values.exp(), -torch.linalg.vecdot(logp.exp(), logp)


def entropy(p):
    """Entropy in nats of one probability vector (a sequence of floats); zeros contribute 0."""
    return -sum(x * math.log(x) for x in p if x > 0)
