"""The evidence rule every training setup shares (reportgen/experiments/evidence.py), fed synthetic cases:
a grid-edge optimum, a loser still improving, a variant that learns better, a non-finite run, too few seeds,
a model that does not learn; and the same cases through the language model's sweep."""

import math

import pytest

from reportgen.experiments import evidence as E
from reportgen.experiments.lm import sweep as S

GRID = (0.001, 0.00316, 0.01, 0.0316)


@pytest.mark.parametrize("tuned, decided", [(0.001, False), (0.0316, False), (0.00316, True), (0.01, True)])
def test_a_tuned_rate_at_the_grid_edge_decides_nothing(tuned, decided):
    reason = E.bracket_reason(GRID, tuned, "unscaled")
    assert (reason == "") is decided
    if not decided:
        assert ("smallest" in reason) is (tuned == 0.001) and "does not bracket" in reason


def test_a_grid_sparser_than_two_rates_a_decade_does_not_locate_an_optimum():
    assert "neighbour" in E.bracket_reason((0.001, 0.01, 0.1), 0.01, "scaled")
    assert E.bracket_reason((0.001, 0.003, 0.01, 0.03), 0.003, "scaled") == ""  # 3× and 3.3×, within √10


def test_a_loser_still_improving_cannot_be_called_worse():
    still = [6.0, 4.0, 3.6, 3.3, 3.0]  # fell 0.3 over its last quarter
    flat = [6.0, 3.5, 3.21, 3.2, 3.2]
    assert E.still_improving(still, behind=0.2) and not E.still_improving(flat, behind=0.2)
    reason = E.settled_reason([still, still], behind=0.2, what="unscaled")
    assert "still improving" in reason and "0.3" in reason and "0.2" in reason
    assert E.settled_reason([flat, flat], behind=0.2, what="unscaled") == ""
    assert E.settled_reason([still], behind=-0.1, what="unscaled") == ""  # not behind: nothing to excuse
    acc = [0.1, 0.5, 0.7, 0.8, 0.9]  # accuracy rising: higher is better
    assert E.still_improving(acc, behind=0.05, higher_is_better=True)


def test_a_variant_that_learns_better_is_not_penalised():
    """Absolute divergence: a run ending 1.5 bits above its variant's best but below the unigram table is stable."""
    best_rate = [8.0, 3.0, 2.5]
    weak_rate = [8.0, 5.0, 4.0]
    assert not E.diverged(best_rate, ceiling=4.4) and not E.diverged(weak_rate, ceiling=4.4)


@pytest.mark.parametrize("curve", [[8.0, float("nan"), 3.0], [8.0, None, None], [8.0, 3.0, math.inf]])
def test_a_non_finite_run_diverged(curve):
    assert E.diverged(curve)


def test_a_run_above_its_start_or_the_ceiling_diverged_and_a_spike_is_cut_sensitive():
    assert E.diverged([5.0, 4.0, 5.5])  # ended above its start
    assert E.diverged([8.0, 4.0, 4.6], ceiling=4.4)
    spiky = [8.0, 4.0, 5.5, 4.2]  # rose 1.5 after falling 4: 37% of its descent
    assert E.diverged(spiky, share=0.25) and not E.diverged(spiky, share=0.5)
    assert not E.diverged([8.0, 9.0, 4.0])  # the first evaluation is warm-up: a peak there is no spike


def test_too_few_seeds_and_no_learning_decide_nothing():
    assert E.seeds_reason(5) == "" and "under the 5" in E.seeds_reason(2)
    assert E.learned_reason(2.8, 3.436, 0.5, "scaled", "the bigram table") == ""
    short = E.learned_reason(3.0, 3.436, 0.5, "scaled", "the bigram table")
    assert "0.064 short" in short and "3.436" in short  # what fell short, and by how much
    assert "non-finite" in E.learned_reason(math.nan, 3.436, 0.5, "scaled", "the bigram table")


# --- the same cases through the language model's sweep ----------------------------------------------


def _run(variant, lr, seed, val, test=None):
    return {"variant": variant, "lr": lr, "seed": seed, "val": val, "test_bits": val[-1] if test is None else test,
            "max_logit": [1.0] * len(val), "entropy": [[0.5]] * len(val)}


def _sweep(curves, seeds=5):
    """curves: {(variant, lr): validation curve}, the same for every seed."""
    models = [_run(v, lr, s, list(c)) for (v, lr), c in curves.items() for s in range(seeds)]
    return S.Sweep({"lrs": list(GRID), "eval_steps": [0, 10, 20, 30, 40], "main": {"width": 8, "heads": 1},
                    "model": {"seeds": seeds}, "baselines": {"unigram": 4.4, "bigram": 3.4},
                    "configs": [{"width": 8, "heads": 1, "d_k": 8, "models": models}]})


def _grid(variant, best_lr, best, other=3.4, drop=0.0):
    """A variant's curves over GRID, lowest (best) at best_lr; `drop` its fall over the last quarter there."""
    return {(variant, lr): [7.0, 4.0, 3.6, best + drop if lr == best_lr else other, best if lr == best_lr else other]
            for lr in GRID}


KEY = (8, 1, 8)


def test_the_sweep_decides_a_bracketed_settled_comparison():
    s = _sweep({**_grid("scaled", 0.01, 2.7), **_grid("unscaled", 0.00316, 3.2)})
    assert s.undecided([KEY], "unscaled", "scaled") == ""


def test_the_sweep_names_a_grid_edge():
    s = _sweep({**_grid("scaled", 0.0316, 2.7), **_grid("unscaled", 0.00316, 3.2)})
    assert "largest" in s.undecided([KEY], "unscaled", "scaled")


def test_the_sweep_names_a_loser_still_improving():
    s = _sweep({**_grid("scaled", 0.01, 2.7), **_grid("unscaled", 0.00316, 3.2, drop=0.6)})
    assert "still improving" in s.undecided([KEY], "unscaled", "scaled")


def test_the_sweep_gates_on_learning_and_seeds():
    s = _sweep({**_grid("scaled", 0.01, 3.1), **_grid("unscaled", 0.00316, 3.2)})
    assert "short of the learning gate" in s.undecided([KEY], "unscaled", "scaled")
    s = _sweep({**_grid("scaled", 0.01, 2.7), **_grid("unscaled", 0.00316, 3.2)}, seeds=3)
    assert "paired seeds" in s.undecided([KEY], "unscaled", "scaled")
