"""Model-steps per second: the batched trainer of the training family against a per-model loop.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python -m benchmarks bench_training                 # the full size, its table in docs/performance.md
    .venv/bin/python benchmarks/bench_training.py                 # the standard sweep, 20 steps
    .venv/bin/python benchmarks/bench_training.py --dk 256 --steps 10 --runs 5
    .venv/bin/python benchmarks/bench_training.py --device cuda --profile full

Both trainers do the same work: for each d_k of the profile, the same M models (every variant
× learning rate × seed of its grid), the same initial weights, the same batches, the same
number of Adam steps. The batched trainer stacks the models along a leading dimension and runs
one forward, one backward and one vectorized Adam per step; the loop trains one model at a time
with its own torch.optim.Adam. Each is timed `--runs` times after an untimed warm-up; the table
shows medians, per d_k and for the whole sweep. The losses of the two are compared too, so a
speed-up never hides a difference in the numbers. It installs nothing and writes nothing.
Exit status 0 when the whole-sweep speed-up reaches 5×, else 1.
"""

import argparse
import statistics
import sys
import time

TARGET = 5.0  # the target speed-up


def timed(train, weights, spec, batches, steps, device):
    """Seconds for one training run from fresh copies of the weights, and its history."""
    import torch

    fresh = [w.detach().clone() for w in weights]
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    history = train(fresh, spec, batches, steps)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, history


def agreement(batched, looped, grid, variants):
    """Models whose loss curves agree within 1e-3; (variant, lr) of the others; the first step they part."""
    relative = ((batched - looped).abs() / looped.abs().clamp_min(1e-6)).nan_to_num(0)  # (steps, M)
    apart = relative > 1e-3
    differ = sorted({(variants[v][0], lr) for (v, lr, _), a in zip(grid, apart.any(0).tolist()) if a})
    first = int(apart.any(1).float().argmax()) + 1 if differ else None
    return len(grid) - int(apart.any(0).sum()), differ, first, (batched[:3] - looped[:3]).abs().max().item()


SIZES = {
    "quick": {"profile": "quick", "steps": 5, "runs": 3},
    "full": {"profile": "standard", "steps": 20, "runs": 3},
}


def measure(profile="standard", dk=None, steps=20, runs=3, device="cpu", threads=1):
    """Median seconds of both trainers per d_k, their speed-up, and how far their losses agree."""
    import torch

    from reportgen.experiments.sampling import generator
    from reportgen.experiments.training import run as T
    from reportgen.experiments.training.params import PARAMS

    if device == "cpu":
        torch.set_num_threads(threads)
    torch.set_flush_denormal(True)  # as training.run does
    params = PARAMS[profile]
    trainers = (("batched", T.train_batched), ("per-model loop", T.train_looped))
    rows = []
    for d in (dk,) if dk else params.dims:
        grid = T.model_grid(params, d)
        weights, spec = T.stack_models(grid, T.init_weights(0, d, params.seeds, device), d, device)
        batches = T.recall_batches(generator(device, 0, "bench", d), steps, params.seeds, params.batch, device)
        medians, histories = {}, {}
        for name, train in trainers:
            train([w.detach().clone() for w in weights], spec, batches, 1)  # warm-up
            seconds = []
            for _ in range(runs):
                elapsed, histories[name] = timed(train, weights, spec, batches, steps, device)
                seconds.append(elapsed)
            medians[name] = statistics.median(seconds)
        same, differ, parted, first = agreement(histories["batched"]["loss"], histories["per-model loop"]["loss"],
                                                grid, T.VARIANTS)
        rows.append({"d_k": d, "models": len(grid), "batched_s": medians["batched"],
                     "loop_s": medians["per-model loop"], "agree": same, "differ": [list(x) for x in differ],
                     "parted_at": parted, "first_steps_difference": first})
    batched, loop = sum(r["batched_s"] for r in rows), sum(r["loop_s"] for r in rows)
    return {"profile": profile, "steps": steps, "runs": runs, "device": device, "threads": threads,
            "torch": torch.__version__, "rows": rows, "speedup": loop / batched, "target": TARGET,
            "seconds": {"training, batched trainer": batched}}


def table(result):
    """docs/performance.md's table: both trainers per d_k and overall, and how their losses agree."""
    steps = result["steps"]

    def rate(model_steps, seconds):
        return f"{model_steps / seconds:,.0f}"

    lines = [f"The {result['profile']} sweep, {steps} Adam steps per d_k, {result['threads']} thread(s), device "
             f"{result['device']}; median of {result['runs']} runs.", "",
             "| d_k | models | batched s | loop s | batched model-steps/s | loop model-steps/s | speed-up |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    work = 0
    for r in result["rows"]:
        b, loop, M = r["batched_s"], r["loop_s"], r["models"]
        work += M * steps
        lines.append(f"| {r['d_k']} | {M} | {b:.2f} | {loop:.2f} | {rate(M * steps, b)} | {rate(M * steps, loop)} "
                     f"| {loop / b:.1f}× |")
    b, loop = sum(r["batched_s"] for r in result["rows"]), sum(r["loop_s"] for r in result["rows"])
    if len(result["rows"]) > 1:
        lines.append(f"| all | {work // steps} | {b:.2f} | {loop:.2f} | {rate(work, b)} | {rate(work, loop)} "
                     f"| **{result['speedup']:.1f}×** |")
    lines += ["", f"Speed-up of the batched trainer on this work: {result['speedup']:.1f}× "
              f"(target ≥ {result['target']:g}×).", ""]
    for r in result["rows"]:
        note = (f"- d_k = {r['d_k']}: {r['agree']} of {r['models']} models' loss curves agree within 1e-3 (relative) "
                f"at every step; largest difference over the first 3 steps {r['first_steps_difference']:.1e}")
        if r["differ"]:
            note += (f"; the others ({', '.join(f'{v} at lr {lr:g}' for v, lr in r['differ'])}) part from step "
                     f"{r['parted_at']} on: batched and single matrix products round differently, and runs at "
                     "large learning rates amplify that")
        lines.append(note + ".")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="standard", help="whose sweep to train (default standard)")
    parser.add_argument("--dk", type=int, help="one d_k only (default: every d_k of the profile)")
    parser.add_argument("--steps", type=int, default=20, help="Adam steps per run (default 20)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per trainer (default 3)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on CPU (default 1, as training.run uses)")
    args = parser.parse_args(argv)
    result = measure(args.profile, args.dk, args.steps, args.runs, args.device, args.threads)
    print(table(result), end="")
    return 0 if result["speedup"] >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
