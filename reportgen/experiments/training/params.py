"""Parameters of the training family per profile, and the task and run definitions it records by."""

from dataclasses import dataclass

# The task: PAIRS (key, value) tokens, then a query key; the answer is the value stored with it.
N_KEYS = 16  # key vocabulary; the PAIRS keys of a sequence are distinct
N_VALUES = 16  # value vocabulary: chance accuracy 1/16
PAIRS = 8  # memory positions the query attends over
INPUTS = N_KEYS + N_VALUES  # one-hot code width: a memory token is (e_key + e_value)/√2
# 'Learned': the accuracy a run's logged window mean must reach; the run records the steps
# it took (steps_to_90), so changing it reruns the experiment.
REACH = 0.9
# Divergence: a non-finite loss, or a window-mean loss above this many times the loss of a
# uniform guess, ln N_VALUES (a blow-up: confidently wrong answers).
BLOWUP = 3
SPIKE_SMOOTHING = 5  # steps in the moving average a spike is detected on
SPIKE_NATS = 0.1  # and the rise it needs above the running minimum, besides doubling it
SIGNIFICANT = 5  # significant digits kept for logged curves


@dataclass(frozen=True)
class TrainingParams:
    dims: tuple  # d_k (= width of the one-hot projections), one batched model each
    lrs: tuple  # Adam learning rates of the sweep
    seeds: int  # replicates: initialization and data stream
    steps: int  # Adam steps; every step sees a fresh batch
    batch: int  # sequences per step
    window: int  # steps per logged point of the learning curves


# Every profile trains d_k = 16, 64 and 256: the claims are judged at those widths.
PARAMS = {
    "quick": TrainingParams(dims=(16, 64, 256), lrs=(1e-3, 1e-2, 1e-1), seeds=2, steps=100, batch=16, window=10),
    "standard": TrainingParams(
        dims=(16, 64, 256), lrs=(3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1), seeds=5, steps=200, batch=32,
        window=15,
    ),
    "full": TrainingParams(
        dims=(16, 64, 256, 1024),
        lrs=tuple(float(f"{10 ** (-4 + i / 3):.3g}") for i in range(13)),  # 1e-4 … 1, three per decade
        seeds=5, steps=3000, batch=64, window=50,
    ),
}
