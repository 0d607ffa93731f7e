"""The training family: batched training equals per-model training, spikes, a tiny run, its measures and verdicts."""

import pytest
import torch
from conftest import run_experiment

from reportgen.experiments.measure import MeasureUnavailable
from reportgen.experiments.sampling import generator
from reportgen.experiments.training import EXPERIMENT
from reportgen.experiments.training import measures as M
from reportgen.experiments.training import params as P
from reportgen.experiments.training import run as T

TINY = P.TrainingParams(dims=(8, 32), lrs=(1e-2, 1e-1), seeds=2, steps=20, batch=8, window=5)


@pytest.fixture(scope="module")
def results():
    return run_experiment(EXPERIMENT, TINY)


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


def test_tables_and_claims_slot(results):
    """Data tables from results alone, and one claims-table slot under the verdicts heading."""
    from reportgen.experiments.family import ClaimTable

    layout = EXPERIMENT.tables(results)
    slots = [t for t in layout if isinstance(t, ClaimTable)]
    assert [t.slug for t in slots] == ["training-verdicts"]
    assert all(t.rows for t in layout if not isinstance(t, ClaimTable))


# --- measures: numbers, never verdicts -------------------------------------------------


def test_measures_name_a_width_the_profile_lacks(results):
    """A claim at d_k = 256 is not measured on a run that trained only 8 and 32."""
    with pytest.raises(MeasureUnavailable, match="d_k = 256"):
        M.steps_ratio(results, 256)
    for name in ("not_faster_dims", "unworkable_dims"):
        m = M.MEASURES[name](results)
        assert m.n == len(TINY.dims) and 0 <= m.value <= len(TINY.dims)


def _model(variant, lr, steps_to_90, diverged=False, spikes=0):
    curve = [1.0, 0.5, 0.1, 0.05]
    return {"variant": variant, "lr": lr, "seed": 0, "steps_to_90": steps_to_90, "diverged": diverged,
            "spikes": spikes, "initial_entropy": 1.0, "w_q_moved": 0.1,
            "curves": {"loss": curve, "acc": [0.1, 0.5, 0.95, 1.0], "scale": [1.0] * 4, "max_logit": [1.0] * 4}}


def _results(cells, steps=100):
    """Synthetic results: cells {(variant, lr): steps_to_90} at d_k = 16, one seed."""
    lrs = sorted({lr for _, lr in cells})
    models = [_model(v, lr, s) for (v, lr), s in cells.items()]
    return {"lrs": lrs, "seeds": 1, "steps": steps, "window": 10, "task": {"pairs": 8},
            "variants": [{"name": v, "label": v} for v in ("scaled", "unscaled")],
            "runs": [{"d_k": 16, "models": models}]}


def test_steps_ratio_each_at_its_fastest_rate():
    r = _results({("scaled", 0.01): 40, ("scaled", 0.1): 20, ("unscaled", 0.01): 60, ("unscaled", 0.1): 30})
    m = M.steps_ratio(r, 16)
    assert m.value == pytest.approx(30 / 20) and m.lo is None


def test_steps_ratio_when_unscaled_never_gets_there_is_a_lower_bound():
    r = _results({("scaled", 0.01): 40, ("scaled", 0.1): 25, ("unscaled", 0.01): None, ("unscaled", 0.1): None})
    m = M.steps_ratio(r, 16)
    assert m.value == pytest.approx(100 / 25) and "lower bound" in m.method
    assert M.not_faster_dims(r).value == 0  # never reaching 90% is slowest


def test_stable_lr_ratio_is_a_ratio_of_grid_rates():
    r = _results({("scaled", 0.003): 40, ("scaled", 0.03): 25, ("unscaled", 0.003): 50, ("unscaled", 0.03): 60})
    for m in r["runs"][0]["models"]:
        m["spikes"] = int(m["variant"] == "unscaled" and m["lr"] == 0.03)
    assert M.stable_lr_ratio(r, 16).value == pytest.approx(10.0)  # 0.03 / 0.003 rounded to the grid's precision


# --- verdicts: judged by reportgen.judging.judge from the claims data ---------------------------
