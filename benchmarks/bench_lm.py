"""Model-steps per second: the language-model family's batched trainer against a per-model loop.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python -m benchmarks bench_lm                      # the full size, its table in docs/performance.md
    .venv/bin/python benchmarks/bench_lm.py                      # standard profile, 10 steps
    .venv/bin/python benchmarks/bench_lm.py --steps 20 --runs 5
    .venv/bin/python benchmarks/bench_lm.py --device cuda --profile full --steps 5

Both trainers do the same work on every configuration of the profile: the same models (every
variant × learning rate × seed of the configuration), the same initial weights, the same
training windows, the same AdamW steps with the same schedule. The batched trainer stacks the
models along a leading dimension: one forward, one backward and one vectorised AdamW per step.
The loop trains one model at a time with its own torch.optim.AdamW (per-layer rates as μP
needs). Each is timed `--runs` times after an untimed one-step warm-up; the table shows
medians. The two trainers' loss curves are compared, so a speed-up never hides a difference in
the numbers. It installs nothing and writes nothing.
"""

import argparse
import statistics
import sys
import time


def timed(train, P, cfg, batches, steps, device):
    import torch

    fresh = {k: v.detach().clone() for k, v in P.items()}
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    losses = train(fresh, cfg, batches, steps)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, losses


SIZES = {
    "quick": {"profile": "quick", "steps": 5, "runs": 3},
    "full": {"profile": "standard", "steps": 10, "runs": 3},
}


def measure(profile="standard", steps=10, runs=3, device="cpu", threads=1, configurations=None):
    """Median seconds of both trainers per configuration (the first `configurations` only, if given)."""
    import torch

    from reportgen.experiments.lm import corpus, model, optimize
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS
    from reportgen.experiments.sampling import generator

    if device == "cpu":
        torch.set_num_threads(threads)
    torch.set_flush_denormal(True)
    params = PARAMS[profile]
    text, vocabulary, _ = corpus.read()
    train = corpus.encode(text["train"], vocabulary, device)
    T, B = params.context, params.batch
    trainers = (("batched", optimize.train_batched), ("per-model loop", optimize.train_looped))
    rows = []
    for width, heads, d_k, variants in R.configurations(params)[:configurations]:
        cells = model.order_grid([(v, lr, s) for v in variants for lr in params.lrs for s in range(params.seeds)],
                                 d_k, T)
        cfg = model.Config(width, heads, params.layers, T, len(vocabulary), params.base_width, cells, device, d_k)
        P = model.init_params(cfg, [generator(device, 0, "bench", width, heads, *c) for c in cells], device)
        starts = torch.randint(len(train) - T - 1, (steps, cfg.M, B), generator=generator(device, 0, "bench-data",
                                                                                            width, heads), device=device)

        def batches(step):
            return R.windows(train, starts[step], T + 1)

        medians, losses = {}, {}
        for label, trainer in trainers:
            trainer({k: v.detach().clone() for k, v in P.items()}, cfg, batches, 1)  # warm-up
            seconds = []
            for _ in range(runs):
                elapsed, losses[label] = timed(trainer, P, cfg, batches, steps, device)
                seconds.append(elapsed)
            medians[label] = statistics.median(seconds)
        a, b = losses["batched"], losses["per-model loop"]
        relative = ((a - b).abs() / b.abs().clamp_min(1e-6)).nan_to_num(0)
        apart = (relative > 1e-3).any(0).tolist()
        differ = sorted({(v, lr) for (v, lr, _), x in zip(cfg.cells, apart) if x}, key=lambda x: (x[1], x[0]))
        rows.append({"width": width, "heads": heads, "d_k": d_k, "models": cfg.M,
                     "batched_s": medians["batched"], "loop_s": medians["per-model loop"],
                     "agree": cfg.M - sum(apart), "differ": [list(x) for x in differ],
                     "first_steps_difference": relative[:3].max().item()})
    batched, loop = sum(r["batched_s"] for r in rows), sum(r["loop_s"] for r in rows)
    return {"profile": profile, "steps": steps, "runs": runs, "device": device, "threads": threads,
            "rows": rows, "speedup": loop / batched, "seconds": {"language models, batched trainer": batched}}


def table(result):
    """docs/performance.md's table: both trainers per configuration and overall, and how their losses agree."""
    steps = result["steps"]
    lines = [f"The {result['profile']} configurations, {steps} AdamW steps each, {result['threads']} thread(s), "
             f"device {result['device']}; median of {result['runs']} runs.", "",
             "| width | heads | d_k | models | batched s | loop s | batched model-steps/s | loop model-steps/s "
             "| speed-up |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    work = 0
    for r in result["rows"]:
        b, loop, M = r["batched_s"], r["loop_s"], r["models"]
        work += M * steps
        lines.append(f"| {r['width']} | {r['heads']} | {r['d_k']} | {M} | {b:.2f} | {loop:.2f} | "
                     f"{M * steps / b:,.0f} | {M * steps / loop:,.0f} | {loop / b:.1f}× |")
    b, loop = sum(r["batched_s"] for r in result["rows"]), sum(r["loop_s"] for r in result["rows"])
    lines += [f"| all | | | {work // steps} | {b:.2f} | {loop:.2f} | {work / b:,.0f} | {work / loop:,.0f} | "
              f"**{result['speedup']:.1f}×** |", ""]
    for r in result["rows"]:
        note = (f"- width {r['width']}, {r['heads']} head(s): {r['agree']} of {r['models']} models' loss curves agree "
                f"within 1e-3 (relative) at every step; largest difference over the first 3 steps "
                f"{r['first_steps_difference']:.1e}")
        if r["differ"]:
            note += (f"; the others ({', '.join(f'{v} at lr {lr:g}' for v, lr in r['differ'])}) part later: batched "
                     "and single matrix products round differently, and large rates amplify it")
        lines.append(note + ".")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="standard", help="whose configurations to train (default standard)")
    parser.add_argument("--steps", type=int, default=10, help="AdamW steps per run (default 10)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per trainer (default 3)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on CPU (default 1, as the pipeline)")
    args = parser.parse_args(argv)
    print(table(measure(args.profile, args.steps, args.runs, args.device, args.threads)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
