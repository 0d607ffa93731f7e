"""The training step under torch.compile: on CUDA once a GPU has shown it pays, on a CPU when asked (the tests).

Two compiled functions make a step: the stacked models' loss (its backward compiled with it by
AOTAutograd; torch.autograd.grad stays eager between them) and the flat AdamW update (optimize.AdamW's
arithmetic, one fused kernel or a few). What changes from step to step (the schedule's factor, the step
count of the bias corrections) is a 0-d tensor copied into a buffer of its own before each step, never a
Python number: a new rate or step is new data, not a new graph, so a stack compiles once (a new shape, the
next configuration, compiles again). Nothing here waits on the host: the copies are made on the device.

CUDA_COMPILE is torch.compile's mode on CUDA: "default"; "reduce-overhead" adds CUDA graphs; "" trains
eagerly. It is "" until benchmarks/gpu.py --compare has measured on a GPU that compiling the nine
configurations' stacks pays for its compile time inside the 20-minute target (the path has been
traced on a CPU only): as with TF32 before it, a kernel choice is switched on by a measurement. On a CPU the compiled
path runs only when a test hands in its compiler: inductor compiles C++ there, seconds a shape, for no gain
at the sizes a CPU trains.
"""

from reportgen.experiments.lm.model import forward
from reportgen.experiments.lm.params import ADAMW_BETAS, ADAMW_EPS, WEIGHT_DECAY

CUDA_COMPILE = ""  # "default" once benchmarks/gpu.py --compare shows it pays on a GPU
MODES = ("", "default", "reduce-overhead", "max-autotune")
RECOMPILE_LIMIT = 64  # graphs per function: every configuration's stack shapes (the full profile has 9 and
# their uneven last stacks), never torch's 8 after which it would fall back to eager without a word


def mode(device):
    """torch.compile's mode for the training step on `device`; "" for eager (always on a CPU)."""
    assert CUDA_COMPILE in MODES, CUDA_COMPILE
    return CUDA_COMPILE if device == "cuda" else ""


def compiler(device):
    """fn -> its compiled form on `device`, or None to train eagerly."""
    chosen = mode(device)
    if not chosen:
        return None
    import torch

    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, RECOMPILE_LIMIT)
    # A graph that cannot be compiled runs eagerly (dynamo logs why): the numbers are the same, only slower;
    # the compiled path has been traced on a CPU only (tests/test_lm_compile.py), never yet on a GPU
    torch._dynamo.config.suppress_errors = True
    return lambda fn: torch.compile(fn, mode=chosen, dynamic=False)


def _loss(P, cfg, x, half):
    """The stacked models' losses (M,), under bf16 autocast when `half` (optimize.CUDA_PRECISION)."""
    import torch

    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=half):
        return forward(P, cfg, x)


def _update(flat, m, v, grads, rate, decayed, mask, factor, count):
    """optimize.AdamW.step with the schedule's `factor` and the step `count` as 0-d tensors."""
    import torch

    b1, b2 = ADAMW_BETAS
    g = torch.cat([x.reshape(x.shape[0], -1) for x in grads], 1)
    if mask is not None:
        g = g * mask
    lr = rate * factor
    flat.mul_(1 - lr * WEIGHT_DECAY * decayed)
    m.lerp_(g, 1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    bc1, bc2 = 1 - torch.pow(b1, count), 1 - torch.pow(b2, count)
    denom = (v.sqrt() / bc2.sqrt()).add_(ADAMW_EPS)
    flat.addcdiv_(m * (lr / bc1), denom, value=-1)


class Step:
    """One compiled training step of a stack: step(x, step) -> the losses (M,), the gradients."""

    def __init__(self, opt, cfg, steps, schedule, compile_fn, half):
        import torch

        device = opt.flat.device
        self.opt, self.cfg, self.half = opt, cfg, half
        self.loss = compile_fn(_loss)
        self.update = compile_fn(_update)
        # the whole schedule on the device, copied step by step into buffers the graphs read
        self.factors = torch.tensor([schedule(s, steps) for s in range(steps)], device=device)
        self.counts = torch.arange(1, steps + 1, dtype=torch.float32, device=device)
        self.factor = torch.zeros((), device=device)
        self.count = torch.zeros((), device=device)

    def __call__(self, P, x, step):
        import torch

        loss = self.loss(P, self.cfg, x, self.half)
        grads = torch.autograd.grad(loss.sum(), self.opt.views, materialize_grads=True)
        with torch.no_grad():
            self.factor.copy_(self.factors[step])
            self.count.copy_(self.counts[step])
            o = self.opt
            self.update(o.flat, o.m, o.v, list(grads), o.rate, o.decayed, o.mask, self.factor, self.count)
        return loss, grads
