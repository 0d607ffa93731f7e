"""The training family: batched training equals per-model training, spikes, and a tiny run."""

import pytest
import torch
from conftest import run_experiment

from reportgen.experiments import training as T
from reportgen.sampling import generator

TINY = T.TrainingParams(dims=(8, 32), lrs=(1e-2, 1e-1), seeds=2, steps=20, batch=8, window=5)


@pytest.fixture(scope="module")
def results():
    return run_experiment(T.EXPERIMENT, TINY)


def test_batched_training_equals_per_model_training():
    d, steps = 8, 6
    names = [v[0] for v in T.VARIANTS]
    grid = [(names.index("scaled"), 3e-2, 0), (names.index("qknorm"), 1e-2, 1), (names.index("learned_from_1"), 5e-2, 0)]
    init = T.init_weights(0, d, 2, "cpu")
    batches = T.recall_batches(generator("cpu", 0, "test"), steps, 2, 4, "cpu")
    weights, spec = T.stack_models(grid, init, d, "cpu")
    looped = T.train_looped(weights, spec, batches, steps)  # copies the weights it trains
    batched = T.train_batched(weights, spec, batches, steps)
    for key in ("loss", "acc", "entropy", "max_logit", "scale"):
        torch.testing.assert_close(batched[key], looped[key], rtol=1e-4, atol=1e-5, msg=key)
    assert not torch.equal(batched["scale"][-1, 1], batched["scale"][0, 1])  # the cosine g learns
    assert torch.equal(batched["scale"][-1, 0], batched["scale"][0, 0])  # a fixed multiplier does not


def test_models_share_initialization_per_replicate():
    grid = T.model_grid(TINY, 8)
    weights, spec = T.stack_models(grid, T.init_weights(0, 8, TINY.seeds, "cpu"), 8, "cpu")
    same = [i for i, (_, _, r) in enumerate(grid) if r == 0]
    assert torch.equal(weights[0][same[0]], weights[0][same[-1]])
    assert len(grid) == len(T.VARIANTS) * len(TINY.lrs) * TINY.seeds


def test_spike_counting():
    calm = 3 * torch.exp(-torch.arange(60.0) / 5) + 0.01  # a smooth decay to ~0.01
    spiky = calm.clone()
    spiky[30:36] = 2.0  # one excursion, several steps long
    spiky[45:50] = 1.5  # a second one
    loss = torch.stack([calm, spiky], dim=1)  # (steps, models)
    assert T.count_spikes(loss) == [0, 2]


def test_unscaled_logits_start_large():
    # At initialization unscaled scores have variance ≈ d_k (the documents' premise).
    d = 256
    grid = [(1, 1e-2, 0)]
    weights, spec = T.stack_models(grid, T.init_weights(0, d, 1, "cpu"), d, "cpu")
    batches = T.recall_batches(generator("cpu", 0, "premise"), 1, 1, 256, "cpu")
    keys, values, slot = (batches[k][0][spec["replicate"]] for k in ("keys", "values", "slot"))
    _, stats = T.forward(weights, spec, keys, values, slot)
    assert stats["max_logit"].item() > 2 * d**0.5


def test_run_results_are_plain(results):
    assert [r["d_k"] for r in results["runs"]] == list(TINY.dims)
    model = results["runs"][0]["models"][0]
    assert len(model["curves"]["loss"]) == TINY.steps // TINY.window
    assert isinstance(model["diverged"], bool) and isinstance(model["spikes"], int)


