"""One GPU session's measurements: the profiles' experiments on CUDA, and a language-model study that decides.

    python benchmarks/gpu.py OUT [--budget SECONDS] [--device cuda] [--tiny]

It is written for the few minutes of GPU time a session is lent, so it spends them in order of
what they decide and never runs past --budget (default 480 s):

1. The environment: torch, the device, its memory.
2. The full profile's language-model stacks: seconds per training step of every configuration
   (a sub-stack of at most SUBSTACK models, scaled linearly to the whole stack: a GPU at these
   sizes is saturated, so time grows with the models), hence the full profile's training time
   measured, not estimated from FLOP counts.
3. A GPU slice of the full profile's language-model study, run by the family's own code
   (reportgen.experiments.lm.run.run) with the full profile's model (width 128, 4 heads, 4
   layers, 128-byte context, batch 32), 5 paired seeds, rates over 4 decades, three variants at
   the main configuration and the q/k-width sweep: its step count is what the remaining budget
   allows, measured first. Its results are written as lm-slice.json, in the family's results
   format, so the verdicts can be computed from them on any machine (benchmarks/gpu_judge.py).
4. Every other family at the standard and full profiles, timed one after another in a child
   process each with what budget is left (a family cut off says so).

Everything is written to OUT as it is measured (gpu.json, lm-slice.json, families-*.jsonl),
so a run cut short keeps what it finished. --tiny shrinks every size for a check on a CPU.

A session's files are kept under benchmarks/gpu/<gpu>-<date>/ (the slices' results gzipped);

    .venv/bin/python benchmarks/gpu.py --readme benchmarks/gpu/h200-2026-11-26

writes the README's GPU tables from them, the slices judged by reportgen's own claims and
measures on this machine (tests/test_benchmarks.py checks the README against it).
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SUBSTACK = 40  # models timed per full-profile configuration (the stack's time is scaled from it)


def sync(device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def environment(device):
    import torch

    env = {"python": platform.python_version(), "torch": torch.__version__, "device": device,
           "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32)}
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, gpu_memory_gib=round(p.total_memory / 2**30, 1), multiprocessors=p.multi_processor_count)
    return env


def step_seconds(params, width, heads, d_k, variants, device, models, steps=3):
    """Seconds per training step of a stack of `models` cells of one configuration (after a warm-up step)."""
    import torch

    from reportgen.experiments.lm import corpus, model
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.sampling import generator

    text, vocabulary, _ = corpus.read()
    train = corpus.encode(text["train"], vocabulary, device)
    T, B = params.context, params.batch
    cells = [(v, lr, s) for v in variants for lr in params.lrs for s in range(params.seeds)]
    cells = model.order_grid(cells[:: max(1, len(cells) // models)][:models], d_k, T)
    cfg = model.Config(width, heads, params.layers, T, len(vocabulary), params.base_width, cells, device, d_k)
    P = model.init_params(cfg, [generator(device, 0, "gpu", width, heads, d_k, *c) for c in cells], device)
    starts = torch.randint(len(train) - T - 1, (steps + 1, cfg.M, B), device=device)

    def batches(step):
        return R.windows(train, starts[step], T + 1)

    model.train_batched(P, cfg, batches, 1)
    sync(device)
    start = time.perf_counter()
    model.train_batched(P, cfg, batches, steps)
    sync(device)
    seconds = (time.perf_counter() - start) / steps
    peak = torch.cuda.max_memory_allocated() / 2**30 if device == "cuda" else None
    del P
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    return seconds, len(cells), peak


def full_profile_lm(device, tiny, out):
    """Measured seconds per step of every full-profile configuration, and the whole training time they imply."""
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS

    params = PARAMS["full"]
    if tiny:
        params = replace(params, width=16, heads=2, layers=1, context=16, batch=2, qk_dims=(32,),
                         fixed_width_heads=(), fixed_heads_widths=())
    rows, total = [], 0.0
    for width, heads, d_k, variants in R.configurations(params):
        stack = len(variants) * len(params.lrs) * params.seeds
        seconds, timed, peak = step_seconds(params, width, heads, d_k, variants, device, min(stack, SUBSTACK))
        per_step = seconds * stack / timed
        total += per_step * params.steps
        rows.append({"width": width, "heads": heads, "d_k": d_k, "models": stack, "timed_models": timed,
                     "seconds_per_step_timed": round(seconds, 5), "seconds_per_step_stack": round(per_step, 4),
                     "training_hours": round(per_step * params.steps / 3600, 3), "peak_gib": peak and round(peak, 2)})
        write(out, "gpu.json", full_profile_lm={"rows": rows, "steps": params.steps, "training_hours": round(total / 3600, 3)})
        print(f"full lm d_k={d_k} width={width} heads={heads}: {per_step:.3f} s/step for {stack} models", flush=True)
    return total


def slice_params(tiny, per_decade=2, qk_dims=(128, 512)):
    from reportgen.experiments.lm.params import PARAMS, BatteryParams, _grid

    full = PARAMS["full"]
    params = replace(
        full, main_variants=("scaled", "unscaled", "qk_ln"), fixed_width_heads=(), fixed_heads_widths=(),
        qk_dims=qk_dims, sweep_variants=("scaled", "unscaled"),
        lrs=_grid(-4 * per_decade, 0, per_decade),  # 1e-4 … 1
        evals=10, eval_windows=64, test_windows=256, seeds=5,
        battery=BatteryParams(dims=(16, 256, 1024), adam_lrs=_grid(-6, -2, 2), sgd_lrs=_grid(-2, 2, 2), seeds=5,
                              steps=1000, batch=64, checkpoints=10))
    if tiny:
        params = replace(params, width=16, heads=2, layers=1, context=16, batch=2, qk_dims=(32,), lrs=(1e-2, 1e-1),
                         seeds=2, eval_windows=4, test_windows=8, base_width=16,
                         battery=replace(params.battery, dims=(8,), adam_lrs=(1e-2,), sgd_lrs=(1.0,), seeds=1,
                                         steps=10, batch=4, checkpoints=2))
    return params


def lm_slice(device, tiny, budget, out, steps=None, name="lm-slice", **design):
    """The slice's step count from measured step times and `budget` seconds (or `steps`); then the study itself."""
    from reportgen.experiments.lm import run as R

    params = slice_params(tiny, **design)
    per_step = 0.0
    for width, heads, d_k, variants in R.configurations(params):
        stack = len(variants) * len(params.lrs) * params.seeds
        seconds, timed, _ = step_seconds(params, width, heads, d_k, variants, device, min(stack, SUBSTACK))
        per_step += seconds * stack / timed
    # evaluation passes, the test pass and the battery: a fifth on top of the training steps, measured as
    # such on the CPU (an estimate; the seconds spent are recorded below)
    if steps is None:
        steps = int(budget / (per_step * 1.2)) // params.evals * params.evals
        steps = min(2000, steps) if not tiny else 20
    if steps < (10 if tiny else 200):
        print(f"lm slice: {per_step:.3f} s/step leaves {steps} steps in {budget:.0f} s; skipped", flush=True)
        write(out, "gpu.json", **{name.replace("-", "_"): {"skipped": True, "seconds_per_step": per_step, "budget": budget}})
        return
    params = replace(params, steps=steps)
    print(f"lm slice: {per_step:.3f} s/step, {steps} steps", flush=True)
    start = time.perf_counter()
    results = R.run(params, 0, device, lambda items, label: items)
    seconds = time.perf_counter() - start
    (Path(out) / f"{name}.json").write_text(json.dumps({"params": repr(params), "seconds": seconds,
                                                         "environment": environment(device),
                                                         "results": results}))
    write(out, "gpu.json", **{name.replace("-", "_"): {"steps": steps, "seconds": round(seconds, 1),
                                     "seconds_per_step_measured": round(per_step, 4),
                                     "models": results["scale"]["models"], "bytes_per_model": results["scale"]["bytes_per_model"]}})
    print(f"lm slice: {seconds:.1f} s", flush=True)


CHILD = """
import json, sys, time, torch
from reportgen.experiments import EXPERIMENTS
profile, device, skip = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
for name, e in EXPERIMENTS.items():
    if name in skip:
        continue
    start = time.perf_counter()
    results = json.loads(json.dumps(e.run(e.params[profile], 0, device, lambda items, label: items)))
    if device == "cuda":
        torch.cuda.synchronize()
    print(json.dumps({"family": name, "profile": profile, "seconds": round(time.perf_counter() - start, 2),
                      "results_bytes": len(json.dumps(results))}), flush=True)
"""


def families(device, profile, skip, budget, out):
    """Each family's seconds at `profile`, one after another in a child process cut off after `budget` s."""
    log = Path(out) / f"families-{profile}.jsonl"
    with open(log, "w") as handle:
        try:
            subprocess.run([sys.executable, "-c", CHILD, profile, device, ",".join(skip)], stdout=handle,
                           cwd=REPO, timeout=max(budget, 1), env={**os.environ, "PYTHONPATH": str(REPO)})
        except subprocess.TimeoutExpired:
            handle.write(json.dumps({"cut_off_after_seconds": round(budget)}) + "\n")
    print(log.read_text(), flush=True)


def _slice_rows(results):
    """Per q/k width: the best rate's mean held-out bits of each variant (over seeds), and that rate."""
    import statistics

    rows = []
    for c in results["configs"]:
        best = {}
        for m in c["models"]:
            best.setdefault(m["variant"], {}).setdefault(m["lr"], []).append(m["test_bits"])
        row = {"d_k": c["d_k"]}
        for variant, by_rate in best.items():
            lr, bits = min(((lr, statistics.fmean(b)) for lr, b in by_rate.items()), key=lambda x: x[1])
            row[variant] = (bits, lr)
        rows.append(row)
    return rows


def _verdicts(results):
    """{verdict: count} and the decided claim ids, of the language-model claims judged on `results`."""
    from reportgen import claims as C
    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging.runs import judge_run
    from reportgen.scheduler import Run

    lm = [c for c in C.load() if c.measure.startswith("lm.")]
    judged = judge_run(Run(EXPERIMENTS["lm"], results=results), lm)
    counts = {}
    for j in judged:
        counts[j.verdict] = counts.get(j.verdict, 0) + 1
    return counts, len(judged)


def table(folder):
    """The README's GPU section, from a session's files."""
    import gzip

    folder = Path(folder)
    g = json.loads((folder / "gpu.json").read_text())
    env = g["environment"]
    fam = {p: [json.loads(line) for line in (folder / f"families-{p}.jsonl").read_text().splitlines() if line]
           for p in ("standard", "full")}
    lines = [f"Measured {g['date']} on one {env['gpu']} ({env['gpu_memory_gib']} GiB), torch {env['torch']}, "
             f"float32 (TF32 {'on' if env['tf32_matmul'] else 'off'}); reportgen at commit {g['commit']}; "
             + "; ".join(f"`{c}`" for c in g["commands"]) + ".", "",
             "| family | standard profile, s | full profile, s |", "| --- | ---: | ---: |"]
    seconds = {p: {r["family"]: r["seconds"] for r in fam[p] if "family" in r} for p in fam}
    for name in seconds["standard"]:
        full = seconds["full"].get(name)
        lines.append(f"| {name} | {seconds['standard'][name]:.1f} | "
                     f"{'' if full is None else f'{full:.1f}'}{'(below)' if name == 'lm' else ''} |")
    lines += ["", "The full profile's language-model stacks, each timed on a sub-stack of "
              f"{g['full_profile_lm']['rows'][0]['timed_models']} models and scaled to the whole stack "
              f"({g['full_profile_lm']['steps']} steps):", "",
              "| width | heads | d_k | models | s per step | training, h |", "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in g["full_profile_lm"]["rows"]:
        lines.append(f"| {r['width']} | {r['heads']} | {r['d_k']} | {r['models']} | {r['seconds_per_step_stack']:.2f} "
                     f"| {r['training_hours']:.2f} |")
    lines.append(f"| **all** | | | {sum(r['models'] for r in g['full_profile_lm']['rows'])} | | "
                 f"**{g['full_profile_lm']['training_hours']:.2f}** |")
    lines += ["", "Two slices of the full profile's language-model study (width 128, 4 heads, 4 layers, 128-byte "
              "context, batch 32, 5 paired seeds, rates 10⁻⁴ to 1), judged here by reportgen's own language-model "
              "claims: held-out bits per byte of each variant at its best rate (mean over seeds).", "",
              "| slice | steps | bytes per model | s | bigram | d_k | scaled | unscaled | QK-LN | LM claims judged |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for name, key in (("lm-slice", "lm_slice"), ("lm-long", "lm_long")):
        with gzip.open(folder / f"{name}.json.gz", "rt") as handle:
            results = json.load(handle)["results"]
        counts, n = _verdicts(results)
        judged = ", ".join(f"{counts[v]} {v}" for v in sorted(counts))
        for i, row in enumerate(_slice_rows(results)):
            cells = [f"{row[v][0]:.2f} at {row[v][1]:g}" if v in row else "" for v in ("scaled", "unscaled", "qk_ln")]
            head = ([name, str(g[key]["steps"]), f"{results['scale']['bytes_per_model']:,}", f"{g[key]['seconds']:.0f}",
                     f"{results['baselines']['bigram']:.2f}"] if i == 0 else [""] * 5)
            lines.append("| " + " | ".join(head + [str(row["d_k"])] + cells + [f"{n}: {judged}" if i == 0 else ""]) + " |")
    return "\n".join(lines)


def readme(folder):
    """Rewrite the README's GPU section from `folder`."""
    sys.path.insert(0, str(REPO))
    from benchmarks.readme import update

    path = REPO / "README.md"
    path.write_text(update(path.read_text(), {"gpu": table(folder)}))


def write(out, name, **parts):
    path = Path(out) / name
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(parts)
    path.write_text(json.dumps(data, indent=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--readme", metavar="FOLDER", help="rewrite the README's GPU section from a session's files")
    parser.add_argument("--budget", type=float, default=480.0)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="every size shrunk: a check of the script on a CPU")
    parser.add_argument("--long", type=int, metavar="STEPS",
                        help="only a longer slice: STEPS steps, one rate a decade, q/k width 512 (lm-long.json)")
    args = parser.parse_args()
    if args.readme:
        return readme(args.readme)
    if not args.out:
        parser.error("OUT is needed to measure")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def left():
        return args.budget - (time.perf_counter() - start)

    import torch

    torch.set_flush_denormal(True)
    write(args.out, "gpu.json", environment=environment(args.device))
    print(json.dumps(environment(args.device)), flush=True)
    if args.long:
        lm_slice(args.device, args.tiny, 0, args.out, steps=args.long, name="lm-long", per_decade=1, qk_dims=(512,))
        return
    for name, part in (("full_profile_lm", lambda: full_profile_lm(args.device, args.tiny, args.out)),
                       ("lm_slice", lambda: lm_slice(args.device, args.tiny, 0.55 * left(), args.out))):
        try:
            part()
        except Exception as exc:  # one part's failure must not cost the others their time
            print(f"{name} failed: {type(exc).__name__}: {exc}", flush=True)
            write(args.out, "gpu.json", **{f"{name}_error": f"{type(exc).__name__}: {exc}"})
    if args.device == "cuda":
        torch.cuda.empty_cache()
    profile_budget = left() / 2
    families(args.device, "quick" if args.tiny else "standard", (), profile_budget, args.out)
    families(args.device, "quick" if args.tiny else "full", ("lm",), left() - 5, args.out)
    write(args.out, "gpu.json", seconds=round(time.perf_counter() - start, 1))


if __name__ == "__main__":
    main()
