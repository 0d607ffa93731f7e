"""The full profile per configuration on one GPU, computed; and the compile modes, to measure on one.

    python benchmarks/gpu.py --plan benchmarks/gpu/<gpu>-<date>
    python benchmarks/gpu.py OUT --compare [--device cuda] [--tiny]

--plan writes plan-full.json and plan-full.md into a kept session's folder: for each configuration of the
full profile, its models, its split into stacks as the planner sizes them for that card (80% of its
memory), its training FLOP (stacks.flops_per_token), its training time and achieved TFLOP/s beside the
peak, and its peak memory beside 80% of the card. Every number is marked: *measured* where the session
timed it on the device (seconds per step, the peak memory of its stack), *computed* where it follows
from those or from the formulas (the time of the profile's steps, the FLOP, the memory formula). It reads
only the session's files and the code, so it runs anywhere and is checked against the kept files
(tests/test_lm.py).

--compare times one stack of the main configuration and one of the largest q/k width eagerly, under
torch.compile, and under torch.compile with CUDA graphs ("reduce-overhead"): compile seconds, seconds a
step, peak memory, and the largest change of a loss against eager (gpu.json, "compile_modes"). It is
what lm/compiled.CUDA_COMPILE's choice waits on. With --tiny on a CPU it runs dynamo's own backend
(inductor would compile C++ for minutes): the plumbing, not the speed.
"""

import json
import time
from dataclasses import replace
from pathlib import Path

CARD_SHARE = 0.8  # the ceiling: a stack's peak at most this share of the card


def _measured_rows(folder):
    """{(width, heads, d_k): throughput row} of a session's gpu-slice.json."""
    data = json.loads((Path(folder) / "gpu-slice.json").read_text())
    return {(r["width"], r["heads"], r["d_k"]): r for r in data["throughput"]["rows"]}, data


def plan(folder, peaks, vocab):
    """The computed table of the full profile on the session's card (a dict, written as JSON)."""
    from reportgen.experiments.lm import model, stacks
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS

    full = PARAMS["full"]
    measured, data = _measured_rows(folder)
    env, throughput = data["environment"], data["throughput"]
    card = env["gpu_memory_gib"] * 2**30
    budget = int(min(stacks.DEVICE_SHARE, CARD_SHARE) * card) - stacks.RESERVE
    peak_rate = peaks[throughput["precision"]]
    tokens = full.steps * full.batch * full.context  # per model
    rows = []
    for width, heads, d_k, variants in R.configurations(full):
        cells = R.cells_of(full, d_k, variants)
        factored = model.use_factored_shape(width, heads, d_k, full.context, full.batch)
        mlp = full.mlp_ratio * width
        per_model = stacks.bytes_per_model(width, heads, d_k, full.layers, full.context, full.batch, vocab, mlp,
                                           factored, full.eval_windows)
        parts = stacks.split(cells, stacks.stack_size(per_model, budget, "cuda"))
        flop = stacks.flops_per_token(width, heads, d_k, full.layers, full.context, full.batch, vocab, mlp,
                                      factored) * tokens * len(cells)
        m = measured[(width, heads, d_k)]
        # measured: seconds a step of a stack of m["stack_models"]; computed: the profile's steps of all its models
        seconds = m["seconds_per_step"] * len(cells) / m["stack_models"] * full.steps
        formula_gib = (per_model * max(map(len, parts)) + stacks.RESERVE) / 2**30
        rows.append({
            "width": width, "heads": heads, "d_k": d_k, "models": len(cells), "q_k": "factored" if factored
            else "explicit", "stacks": len(parts), "stack_models": max(map(len, parts)),
            "flop": flop, "measured_seconds_per_step": m["seconds_per_step"],
            "measured_stack_models": m["stack_models"], "training_s": round(seconds, 1),
            "tflops": round(flop / seconds / 1e12, 1), "of_peak": round(flop / seconds / 1e12 / peak_rate, 4),
            "measured_peak_gib": m["peak_gib"], "formula_peak_gib": round(formula_gib, 2),
            "fits": formula_gib * 2**30 <= CARD_SHARE * card and (m["peak_gib"] or 0) * 2**30 <= CARD_SHARE * card})
    slice_ = data["lm_slice"]
    families = [json.loads(line) for line in (Path(folder) / "families-full.jsonl").read_text().splitlines() if line]
    others = sum(r.get("seconds", 0) for r in families)
    training = sum(r["training_s"] for r in rows)
    # evaluations and the test pass: what the slice's stacks took beyond their training steps, scaled up
    evals = slice_["stacks_s"] * slice_["of_steps"] / slice_["steps"] - training
    return {
        "about": "the full profile on one GPU, computed from a kept session's measurements and the formulas",
        "session": Path(folder).name, "gpu": env["gpu"], "gpu_memory_gib": env["gpu_memory_gib"],
        "precision": throughput["precision"], "compile": "none: measured eagerly, before lm/compiled.py",
        "peak_tflops": peak_rate,
        "card_share": CARD_SHARE, "budget_gib": round(budget / 2**30, 1), "steps": full.steps,
        "measured": ["measured_seconds_per_step", "measured_stack_models", "measured_peak_gib",
                     "battery_s", "other_families_s"],
        "computed": ["stacks", "stack_models", "flop", "training_s", "tflops", "of_peak", "formula_peak_gib",
                     "fits", "evaluations_s", "full_profile_s"],
        "rows": rows,
        "training_s": round(training, 1), "evaluations_s": round(max(0.0, evals), 1),
        "battery_s": slice_["battery_s"], "other_families_s": round(others, 1),
        "full_profile_s": round(training + max(0.0, evals) + slice_["battery_s"] + others, 1),
        "flop": sum(r["flop"] for r in rows),
    }


def markdown(p):
    """The short page beside plan-full.json."""
    gib = p["gpu_memory_gib"]
    lines = [f"# The full profile on one {p['gpu']}, computed", "",
             f"From the session `{p['session']}` ({p['precision'].upper()}; torch.compile: {p['compile']}). *Measured* on "
             "the device: seconds per step of a stack and its peak memory. *Computed*: everything else, from those "
             f"and the formulas (lm/stacks.py). Peak {p['precision'].upper()} rate taken as {p['peak_tflops']:g} "
             f"TFLOP/s; a stack may take {p['card_share']:.0%} of the card's {gib} GiB "
             f"({p['card_share'] * gib:.1f} GiB). Regenerate: `python benchmarks/gpu.py --plan "
             f"benchmarks/gpu/{p['session']}`.", "",
             "| width | heads | d_k | models | q·kᵀ | stacks × models | PFLOP (computed) | s/step (measured) | "
             "training s (computed) | TFLOP/s (computed) | of peak | peak GiB (measured) | peak GiB (formula) | "
             f"under {p['card_share']:.0%} |",
             "| ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in p["rows"]:
        lines.append(f"| {r['width']} | {r['heads']} | {r['d_k']} | {r['models']} | {r['q_k']} | "
                     f"{r['stacks']} × {r['stack_models']} | {r['flop'] / 1e15:.2f} | "
                     f"{r['measured_seconds_per_step']:.4f} ({r['measured_stack_models']} models) | "
                     f"{r['training_s']:.0f} | {r['tflops']:.1f} | {r['of_peak']:.1%} | {r['measured_peak_gib']:.1f} | "
                     f"{r['formula_peak_gib']:.1f} | {'yes' if r['fits'] else 'NO'} |")
    lines += ["", f"Training {p['training_s']:.0f} s for {p['flop'] / 1e15:.1f} PFLOP; evaluations and test passes "
              f"{p['evaluations_s']:.0f} s (computed from the session's slice); task battery {p['battery_s']:.0f} s and "
              f"the other families {p['other_families_s']:.0f} s (measured). The whole full profile, computed: "
              f"**{p['full_profile_s'] / 60:.1f} min** on one {p['gpu']}. It has not run end to end on the device; "
              "the measurement waits for one (`python benchmarks/gpu.py OUT`, its `full_profile_s`)."]
    return "\n".join(lines) + "\n"


def write_plan(folder, peaks, vocab):
    p = plan(folder, peaks, vocab)
    (Path(folder) / "plan-full.json").write_text(json.dumps(p, indent=1) + "\n")
    (Path(folder) / "plan-full.md").write_text(markdown(p))
    for r in p["rows"]:
        print(f"d_k={r['d_k']:5} width={r['width']:4} heads={r['heads']}: {r['models']} models, {r['flop'] / 1e15:.2f} "
              f"PFLOP, {r['training_s']:.0f} s, {r['tflops']:.1f} of {p['peak_tflops']:g} TFLOP/s, peak "
              f"{r['measured_peak_gib']:.1f} GiB measured, {r['formula_peak_gib']:.1f} formula, of "
              f"{p['card_share'] * p['gpu_memory_gib']:.1f} GiB", flush=True)
    print(f"full profile, computed: {p['full_profile_s']:.0f} s", flush=True)
    return p


def compare(device, tiny, out, write, steps=5):
    """Seconds a step of two stacks, eager and in each compile mode; written as gpu.json's compile_modes."""
    import torch

    from reportgen.experiments.lm import compiled, corpus, model, optimize
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS
    from reportgen.experiments.sampling import generator

    params = PARAMS["full"]
    if tiny:
        params = replace(params, width=16, heads=2, layers=1, context=16, batch=2, qk_dims=(32,), eval_windows=4,
                         lrs=(1e-2, 1e-1), seeds=1, main_variants=("scaled", "unscaled"))
    text, vocabulary, _ = corpus.read()
    train = corpus.encode(text["train"], vocabulary, device)
    V, T, B = len(vocabulary), params.context, params.batch
    optimize.set_precision(device)
    if device == "cuda":
        modes = {"eager": None, **{m: (lambda mode: lambda fn: torch.compile(fn, mode=mode, dynamic=False))(m)
                                   for m in ("default", "reduce-overhead")}}
    else:  # the plumbing only: dynamo's graphs run by its eager backend
        modes = {"eager": None, "dynamo": lambda fn: torch.compile(fn, backend="eager", dynamic=False)}
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, compiled.RECOMPILE_LIMIT)
    layout = R.plan(params, device, V)
    rows = []
    for (width, heads, d_k, _), _, parts, _ in (layout[0], layout[-1]):
        part = parts[0]
        cfg = model.Config(width, heads, params.layers, T, V, params.base_width, part, device, d_k, params.mlp_ratio)
        P0 = model.init_params(cfg, [generator(device, 0, "gpu", width, heads, d_k, *c) for c in part], device)
        starts = torch.randint(len(train) - T - 1, (steps + 2, cfg.M, B), device=device,
                               generator=generator(device, 0, "gpu-compare"))

        def batches(step):
            return R.windows(train, starts[step], T + 1)

        reference = None
        for name, compile_fn in modes.items():
            torch._dynamo.reset()
            if device == "cuda":
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
            P = {k: v.clone() for k, v in P0.items()}
            start = time.perf_counter()
            optimize.train_batched(P, cfg, batches, 2, compile_fn=compile_fn)  # compiles (and warms up)
            _sync(device)
            first = time.perf_counter() - start
            P = {k: v.clone() for k, v in P0.items()}
            start = time.perf_counter()
            losses = optimize.train_batched(P, cfg, batches, steps, compile_fn=compile_fn)
            _sync(device)
            seconds = (time.perf_counter() - start) / steps
            reference = losses if reference is None else reference
            rows.append({"width": width, "heads": heads, "d_k": d_k, "models": len(part), "mode": name,
                         "first_two_steps_s": round(first, 2), "seconds_per_step": round(seconds, 4),
                         "peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None,
                         "max_abs_loss_diff": float((losses - reference).abs().max())})
            print(f"compile d_k={d_k} {name}: first 2 steps {first:.1f} s, {seconds:.4f} s/step, "
                  f"loss diff {rows[-1]['max_abs_loss_diff']:.2e}", flush=True)
            write(out, "gpu.json", compile_modes={"rows": rows, "precision": optimize.CUDA_PRECISION})
    return rows


def _sync(device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()
