"""The language model's compiled training step (lm/compiled.py), on the CPU at a tiny size: it trains as the
eager step does, and a new rate or a new step is new data for the graphs, never a recompilation."""

import os

import pytest
import torch
from test_lm import _batches, _stack

from reportgen.experiments.lm import compiled, optimize

CELLS = [("scaled", 3e-2, 0), ("qk_ln", 1e-2, 0), ("cosine", 5e-2, 0), ("mup", 3e-2, 0)]


def _train(cells, steps, compile_fn):
    cfg, P = _stack(cells, width=32)  # width 2 × base: μP's rates and readout differ from SP's
    return optimize.train_batched(P, cfg, _batches(cfg, steps), steps, compile_fn=compile_fn)


def _counted(backend="eager"):
    """A compiler that counts the graphs it makes (dynamo's own counter), with a clean cache."""
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    return counter, lambda fn: torch.compile(fn, backend=counter, dynamic=False)


def test_the_compiled_step_trains_as_the_eager_one_and_compiles_once():
    """Traced by dynamo (the graphs run by its eager backend: what the fast lane can afford): the losses
    agree with the eager step's, and two stacks at other rates, 6 steps each, make two graphs in all (the
    loss and the update), not one a step or a rate."""
    counter, compile_fn = _counted()
    eager = _train(CELLS, 6, None)
    torch.testing.assert_close(_train(CELLS, 6, compile_fn), eager, rtol=1e-4, atol=1e-5)
    other_rates = [(v, lr * 3, s) for v, lr, s in CELLS]
    torch.testing.assert_close(_train(other_rates, 6, compile_fn), _train(other_rates, 6, None), rtol=1e-4, atol=1e-5)
    assert counter.frame_count == 2, counter.frame_count


def test_compiling_is_for_cuda_only_unless_asked():
    assert compiled.mode("cpu") == "" and compiled.compiler("cpu") is None
    assert compiled.mode("cuda") == compiled.CUDA_COMPILE in compiled.MODES


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("REPORTGEN_INDUCTOR_TEST"),
                    reason="inductor compiling C++ on the CPU takes 40 s to a few minutes; set REPORTGEN_INDUCTOR_TEST=1")
def test_the_inductor_step_trains_as_the_eager_one():
    """Inductor, as on CUDA, compiling C++ on the CPU: the same losses. Opt-in (the graphs dynamo
    captures are tested in the fast lane with its eager backend; a GPU compiles with Triton, not
    this C++, and benchmarks/gpu.py --compare checks it there)."""
    cells = [("scaled", 3e-2, 0), ("unscaled", 1e-2, 1)]
    counter, compile_fn = _counted("inductor")
    torch.testing.assert_close(_train(cells, 4, compile_fn), _train(cells, 4, None), rtol=1e-4, atol=1e-5)
    assert counter.frame_count == 2


def test_the_cuda_attention_path_compiles(monkeypatch):
    """The fused-kernel attention the CUDA step takes (F.scaled_dot_product_attention; the factored q·kᵀ at a
    large d_k, its keys shared by the heads), traced on the CPU: the same losses as that path eagerly."""
    from reportgen.experiments.lm import model

    monkeypatch.setattr(model, "fused", lambda q: True)
    cells = [("scaled", 3e-2, 0), ("unscaled", 1e-2, 0), ("qk_ln", 1e-2, 1)]
    cfg, P = _stack(cells, width=32, d_k=128)
    assert model.use_factored(cfg, 3)
    counter, compile_fn = _counted()
    runs = [optimize.train_batched({k: v.detach().clone() for k, v in P.items()}, cfg, _batches(cfg, 3), 3,
                                   compile_fn=c) for c in (None, compile_fn)]
    torch.testing.assert_close(runs[1], runs[0], rtol=1e-4, atol=1e-5)
    assert counter.frame_count == 2
