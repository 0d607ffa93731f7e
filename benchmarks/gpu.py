"""One GPU session's measurements: the full profile on CUDA, in one call of the few minutes a session is lent.

    python benchmarks/gpu.py OUT [--budget SECONDS] [--device cuda] [--tiny]
    python benchmarks/gpu.py OUT --slice STEPS [--budget SECONDS]
    python benchmarks/gpu.py --docs benchmarks/gpu/<gpu>-<date>
    python benchmarks/gpu.py --plan benchmarks/gpu/<gpu>-<date>     (benchmarks/gpu_plan.py: no device)
    python benchmarks/gpu.py OUT --compare                          (eager against the compile modes)

It never runs past --budget (default 480 s) and writes each part to OUT as it is measured (gpu.json and
the files named below), so a run cut short keeps what it finished:

1. The environment: torch, the device, its memory.
2. Precision (default mode): the same 300-step slice at q/k width 1024, where the unscaled logits are
   largest, in float32, TF32 and bf16 autocast; held-out losses and tuned rates against float32. This
   is what optimize.CUDA_PRECISION rests on.
3. Throughput: every full-profile configuration split into stacks as the planner sizes them
   (lm/stacks.py), one stack timed over 3 steps: seconds per step, FLOP rate (stacks.flops_per_token),
   measured peak memory against the formula.
4. The whole full profile: `reportgen check --profile full` in a fresh folder (every family, the
   evidence rules), its wall seconds as full_profile_s, its rows (check-full.json.gz) and the language
   model's raw results (lm-full.json.gz). Or, with --slice STEPS, a stated slice that fits one call:
   the language model cut to STEPS steps (lm-full-slice.json.gz), every other family whole
   (families-full.jsonl), and the full profile's time computed from them.

--tiny shrinks every size for a check on a CPU (tests/test_benchmarks.py runs it). A session's files
are kept under benchmarks/gpu/<gpu>-<date>/ with a session.json naming the commands; --docs writes
docs/performance.md's GPU section from them, the slice judged by today's claims and rules (a test checks it).
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

    from reportgen.experiments.lm import corpus, model, optimize
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

    optimize.train_batched(P, cfg, batches, 1)
    sync(device)
    start = time.perf_counter()
    optimize.train_batched(P, cfg, batches, steps)
    sync(device)
    seconds = (time.perf_counter() - start) / steps
    peak = torch.cuda.max_memory_allocated() / 2**30 if device == "cuda" else None
    del P
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    return seconds, len(cells), peak


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


# --tiny checks the script's paths, not the families' times: the cheap ones stand for the others (the
# tests run every family themselves); `check` judges them and the language model, whose raw results are kept.
TINY_FAMILIES = ("lm", "temperature", "worked")
TINY_SKIP = ("lm", "variance", "saturation", "gradients", "training")


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
            lr, bits = min(((lr, statistics.fmean(b) if None not in b else math.inf) for lr, b in by_rate.items()),
                           key=lambda x: x[1])
            row[variant] = (bits, lr)
        rows.append(row)
    return rows


def _verdicts(results):
    """{verdict: count} and the decided claim ids, of the language-model claims judged on `results`."""
    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging.runs import judge_run
    from reportgen.judging.vocabulary import catalog
    from reportgen.scheduler import Run

    lm = [c for c in catalog().claims if c.measure.startswith("lm.")]
    judged = judge_run(Run(EXPERIMENTS["lm"], results=results), lm)
    counts = {}
    for j in judged:
        counts[j.verdict] = counts.get(j.verdict, 0) + 1
    return counts, len(judged)


def table(folder):
    """docs/performance.md's GPU section, from a session's files (gpu-run1.json: precision; gpu-slice.json: throughput and
    the slice; families-full.jsonl; lm-full-slice.json.gz, judged here by today's claims and rules)."""
    import gzip

    folder = Path(folder)
    session = json.loads((folder / "session.json").read_text())
    run1, run2 = (json.loads((folder / name).read_text()) for name in ("gpu-run1.json", "gpu-slice.json"))
    env = run2["environment"]
    lines = [f"Measured {session['date']} on one {env['gpu']} ({env['gpu_memory_gib']} GiB), torch {env['torch']}: "
             + "; ".join(f"`{c}`" for c in session["commands"].values()) + ".", "",
             f"Precision: a {run1['precision']['steps']}-step slice at q/k width {run1['precision']['q_k_width']} "
             "(2 variants × 3 rates × 2 seeds) in each precision, against float32:", "",
             "| precision | mean abs. change of test bits/byte | largest | tuned rates the same |", "| --- | ---: | ---: | --- |"]
    for name, row in run1["precision"]["against_fp32"].items():
        lines.append(f"| {name} | {row['mean_abs_test_bits_diff']:.3f} | {row['max_abs_test_bits_diff']:.3f} | "
                     f"{'yes' if row['tuned_rates_agree'] else 'no'} |")
    t = run2["throughput"]
    peak = PEAK_TFLOPS[t["precision"]]
    lines += ["", f"The full profile's language-model stacks in {t['precision'].upper()}, as the planner sizes them "
              f"(one stack a configuration fits in {DEVICE_NOTE}); seconds per step timed over 3 steps, training "
              f"seconds for the profile's {t['steps']} steps; peak {t['precision'].upper()} rate taken as {peak:g} "
              "TFLOP/s:", "",
              "| width | heads | d_k | models | q·kᵀ | s per step | training s | TFLOP/s | of peak | peak GiB | "
              "formula GiB (stacks.py) |",
              "| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    from reportgen.experiments.lm import stacks
    from reportgen.experiments.lm.params import PARAMS

    full = PARAMS["full"]
    with gzip.open(folder / "lm-full-slice.json.gz", "rt") as handle:
        results = json.load(handle)["results"]  # read once: it is megabytes
    for r in t["rows"]:
        formula = (stacks.bytes_per_model(r["width"], r["heads"], r["d_k"], full.layers, full.context, full.batch,
                                          results["corpus"]["vocabulary"], full.mlp_ratio * r["width"], r["factored"],
                                          full.eval_windows) * r["stack_models"] + stacks.RESERVE) / 2**30
        lines.append(f"| {r['width']} | {r['heads']} | {r['d_k']} | {r['models']} | "
                     f"{'factored' if r['factored'] else 'explicit'} | {r['seconds_per_step']:.3f} | "
                     f"{r['training_s']:.0f} | {r['tflops']:.1f} | {r['tflops'] / peak:.1%} | {r['peak_gib']:.1f} | "
                     f"{formula:.1f} |")
    s = run2["lm_slice"]
    fam = [json.loads(line) for line in (folder / "families-full.jsonl").read_text().splitlines() if line]
    lines += ["", f"The whole full profile, a stated slice: the language model with {s['steps']} of its "
              f"{s['of_steps']} steps ({s['models']} models: stacks {s['stacks_s']:.0f} s, task battery "
              f"{s['battery_s']:.0f} s), every other family whole, one after another: "
              + ", ".join(f"{r['family']} {r['seconds']:.0f} s" for r in fam if "family" in r)
              + f". Computed from these, the whole full profile takes **{run2['full_profile_computed_s'] / 60:.1f} "
              f"min** on this GPU (the stacks scaled to {s['of_steps']} steps); it has not run end to end."]
    counts, n = _verdicts(results)
    bits = _slice_rows(results)
    lines += ["", f"The slice's language-model claims judged by today's rules: {n} claims, "
              + ", ".join(f"{counts[v]} {v}" for v in sorted(counts)) + f"; bigram table {results['baselines']['bigram']:.2f} "
              "bits/byte; held-out bits per byte of each variant at its best rate (mean over seeds):", "",
              "| d_k | width | scaled | unscaled | QK-LN |", "| ---: | ---: | --- | --- | --- |"]
    for row, c in zip(bits, results["configs"]):
        cells = [f"{row[v][0]:.2f} at {row[v][1]:g}" if v in row else "" for v in ("scaled", "unscaled", "qk_ln")]
        lines.append(f"| {row['d_k']} | {c['width']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


DEVICE_NOTE = "80% of the card"


def results_vocab(folder):
    """The corpus vocabulary of a session's language-model slice (the formula's logits)."""
    import gzip

    with gzip.open(Path(folder) / "lm-full-slice.json.gz", "rt") as handle:
        return json.load(handle)["results"]["corpus"]["vocabulary"]


def readme(folder):
    """Rewrite docs/performance.md's GPU section from `folder`."""
    sys.path.insert(0, str(REPO))
    from benchmarks.pages import update

    path = REPO / "docs" / "performance.md"
    path.write_text(update(path.read_text(), {"gpu": table(folder)}))


def write(out, name, **parts):
    path = Path(out) / name
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(parts)
    path.write_text(json.dumps(data, indent=1))


PEAK_TFLOPS = {"bf16": 790.0, "tf32": 395.0, "fp32": 67.0}  # H200: bf16 as measured here (device KINDS.md,
# 788 TFLOP/s on an 8192³ product); TF32 half of it and float32 the datasheet's (H200.md): the ceilings printed


def precision_check(device, tiny, out, steps=300):
    """The same slice at the largest q/k width in float32, TF32 and bf16 autocast: final losses and tuned rates."""
    from reportgen.experiments.lm import corpus, optimize
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS

    params = replace(PARAMS["full"], qk_width=1024, main_variants=("scaled", "unscaled"), fixed_width_heads=(),
                     fixed_heads_widths=(), qk_dims=(), lrs=(1e-3, 1e-2, 1e-1), seeds=2, steps=steps, evals=6)
    if tiny:
        params = replace(params, width=16, heads=2, layers=1, context=16, batch=2, qk_width=64, steps=12,
                         eval_windows=4, test_windows=8)
    text, vocabulary, _ = corpus.read()
    data = {s: corpus.encode(text[s], vocabulary, device) for s in corpus.SPLITS}
    runs, keep = {}, optimize.CUDA_PRECISION
    try:
        for precision in ("fp32", "tf32", "bf16"):
            optimize.CUDA_PRECISION = precision
            sync(device)
            start = time.perf_counter()
            (config,) = R.train_all(params, 0, device, data, len(vocabulary), lambda items, label: items)
            sync(device)
            runs[precision] = {"seconds": round(time.perf_counter() - start, 2),
                               "models": [{k: m[k] for k in ("variant", "lr", "seed", "test_bits")}
                                          | {"val": m["val"][-1], "max_logit": max((x for x in m["max_logit"] if x), default=None)}
                                          for m in config["models"]]}
    finally:
        optimize.CUDA_PRECISION = keep
    summary = {}
    for precision in ("tf32", "bf16"):
        pairs = list(zip(runs["fp32"]["models"], runs[precision]["models"]))
        diffs = [abs(a["test_bits"] - b["test_bits"]) for a, b in pairs if a["test_bits"] and b["test_bits"]]
        tuned = {}
        for which in ("fp32", precision):
            for v in params.main_variants:
                by_lr = {}
                for m in runs[which]["models"]:
                    if m["variant"] == v:
                        by_lr.setdefault(m["lr"], []).append(m["val"] if m["val"] is not None else math.inf)
                tuned[(which, v)] = min(by_lr, key=lambda lr: sum(by_lr[lr]))
        summary[precision] = {"max_abs_test_bits_diff": round(max(diffs), 4) if diffs else None,
                              "mean_abs_test_bits_diff": round(sum(diffs) / len(diffs), 4) if diffs else None,
                              "nonfinite_differs": sum((a["test_bits"] is None) != (b["test_bits"] is None)
                                                       for a, b in pairs),
                              "tuned_rates_agree": all(tuned[("fp32", v)] == tuned[(precision, v)]
                                                       for v in params.main_variants)}
    record = {"steps": params.steps, "q_k_width": params.qk_width, "runs": runs, "against_fp32": summary}
    write(out, "gpu.json", precision=record)
    print("precision:", json.dumps(summary), flush=True)
    return record


def throughput(device, tiny, out, steps=3):
    """Every full-profile configuration's stacks as the planner sizes them: seconds per step of one stack,
    its measured peak against the formula, and the FLOP rate, in the precision optimize.CUDA_PRECISION names."""
    import torch

    from reportgen.experiments.lm import corpus, model, optimize, stacks
    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS
    from reportgen.experiments.sampling import generator

    params = PARAMS["full"]
    if tiny:
        params = replace(params, width=16, heads=2, layers=1, context=16, batch=2, qk_dims=(32,),
                         fixed_width_heads=(), fixed_heads_widths=(), eval_windows=4)
    text, vocabulary, _ = corpus.read()
    train = corpus.encode(text["train"], vocabulary, device)
    V, T, B = len(vocabulary), params.context, params.batch
    optimize.set_precision(device)
    rows, total = [], 0.0
    for (width, heads, d_k, _), cells, parts, _ in R.plan(params, device, V):
        part = parts[0]
        factored = model.use_factored_shape(width, heads, d_k, T, B)
        if device == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        cfg = model.Config(width, heads, params.layers, T, V, params.base_width, part, device, d_k, params.mlp_ratio)
        P = model.init_params(cfg, [generator(device, 0, "gpu", width, heads, d_k, *c) for c in part], device)
        starts = torch.randint(len(train) - T - 1, (steps + 1, cfg.M, B), device=device)
        optimize.train_batched(P, cfg, lambda step: R.windows(train, starts[step], T + 1), 1)
        sync(device)
        start = time.perf_counter()
        optimize.train_batched(P, cfg, lambda step: R.windows(train, starts[step], T + 1), steps)
        sync(device)
        seconds = (time.perf_counter() - start) / steps
        peak = torch.cuda.max_memory_allocated() if device == "cuda" else None
        del P
        per_model = stacks.bytes_per_model(width, heads, d_k, params.layers, T, B, V, params.mlp_ratio * width,
                                           factored, params.eval_windows)
        flops = stacks.flops_per_token(width, heads, d_k, params.layers, T, B, V, params.mlp_ratio * width,
                                       factored) * len(part) * B * T
        config_seconds = seconds * len(cells) / len(part) * params.steps
        total += config_seconds
        rows.append({"width": width, "heads": heads, "d_k": d_k, "models": len(cells), "stacks": len(parts),
                     "stack_models": len(part), "factored": factored, "seconds_per_step": round(seconds, 4),
                     "training_s": round(config_seconds, 1), "tflops": round(flops / seconds / 1e12, 1),
                     "peak_gib": peak and round(peak / 2**30, 2),
                     "formula_gib": round(per_model * len(part) / 2**30, 2)})
        card = torch.cuda.get_device_properties(0).total_memory / 2**30 if device == "cuda" else 0
        print(f"full lm d_k={d_k} width={width} heads={heads}: {len(cells)} models in {len(parts)} stacks of "
              f"{len(part)}, {seconds:.3f} s/step a stack, {flops / 1e12:.2f} TFLOP a step, {rows[-1]['tflops']} of "
              f"{PEAK_TFLOPS[optimize.CUDA_PRECISION]:g} TFLOP/s, peak {rows[-1]['peak_gib']} GiB (formula "
              f"{rows[-1]['formula_gib']}) of {0.8 * card:.1f} GiB (80% of the card)", flush=True)
        write(out, "gpu.json", throughput={"rows": rows, "steps": params.steps, "training_s": round(total, 1),
                                           "precision": optimize.CUDA_PRECISION})
    return total


def full_check(device, tiny, out, budget):
    """`reportgen check` on the full profile (every family, the new evidence rules): its wall seconds and verdicts."""
    import gzip

    profile = "quick" if tiny else "full"
    import tempfile

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    work = tempfile.mkdtemp(prefix="reportgen-full-")  # its cache starts empty: every family runs
    import importlib.util

    templates = REPO / "reportgen" / "templates"  # a package only once installed (pyproject.toml): from a
    if importlib.util.find_spec("reportgen.templates") is None and not templates.exists():  # source tree, link it
        templates.symlink_to(Path("..") / "templates")
    command = [sys.executable, "-c", "from reportgen.cli import command; command()", "check", "--profile", profile,
               "--device", device, "--json", *(("--only", ",".join(TINY_FAMILIES)) if tiny else ())]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                              timeout=max(1, budget))
    except subprocess.TimeoutExpired as exc:
        seconds = time.perf_counter() - start
        write(out, "gpu.json", full_check={"cut_off_after_s": round(seconds, 1), "profile": profile})
        print(f"full check: cut off after {seconds:.0f} s", flush=True)
        (Path(out) / "check-full.log").write_text((exc.stderr or b"").decode(errors="replace")[-20000:]
                                                  if isinstance(exc.stderr, bytes) else str(exc.stderr)[-20000:])
        return None
    seconds = time.perf_counter() - start
    (Path(out) / "check-full.log").write_text(done.stderr[-20000:])
    for entry in sorted((Path(work) / ".reportgen-cache").glob("lm-*.json")):  # the raw results, to judge again
        header, _, payload = entry.read_bytes().partition(b"\n")  # publish/cache.py: a header line, then JSON
        with gzip.open(Path(out) / "lm-full.json.gz", "wt") as handle:
            handle.write(json.dumps({"results": json.loads(payload)["results"]}))
    with gzip.open(Path(out) / "check-full.json.gz", "wt") as handle:
        handle.write(done.stdout)
    counts, changed = {}, []
    try:
        for row in json.loads(done.stdout).get("rows", []):
            counts[row.get("verdict")] = counts.get(row.get("verdict"), 0) + 1
            if row.get("status") != "same":
                changed.append([row.get("id"), row.get("expected"), row.get("verdict")])
    except (ValueError, AttributeError):
        pass
    write(out, "gpu.json", full_profile_s=round(seconds, 1),
          full_check={"profile": profile, "exit": done.returncode, "verdicts": counts, "differs_from_cpu": changed})
    print(f"full check: {seconds:.1f} s, exit {done.returncode}, {counts}", flush=True)
    return seconds


def full_slice(device, tiny, out, budget, lm_steps):
    """Every family of the full profile on the device: the language model with its steps cut to `lm_steps` (a
    stated slice: the rest of its design as the profile has it), the others whole in a child process each.

    Writes the language model's raw results (lm-full-slice.json.gz, to judge again anywhere), its stacks' and its
    battery's seconds, and the full profile's seconds computed from them: the stacks' time scaled to the
    profile's steps, the rest as measured."""
    import gzip

    from reportgen.experiments.lm import run as R
    from reportgen.experiments.lm.params import PARAMS

    params = replace(PARAMS["quick" if tiny else "full"], steps=lm_steps)
    marks = {}

    def progress(items, label):
        marks[label] = time.perf_counter()
        return items

    start = time.perf_counter()
    results = R.run(params, 0, device, progress)
    sync(device)
    end = time.perf_counter()
    with gzip.open(Path(out) / "lm-full-slice.json.gz", "wt") as handle:
        handle.write(json.dumps({"params": repr(params), "results": results}))
    battery_start = next((t for label, t in marks.items() if "battery" in label), end)
    stacks_s, rest_s = battery_start - start, end - battery_start
    full_steps = PARAMS["full"].steps
    write(out, "gpu.json", lm_slice={"steps": lm_steps, "of_steps": full_steps, "seconds": round(end - start, 1),
                                     "stacks_s": round(stacks_s, 1), "battery_s": round(rest_s, 1),
                                     "models": results["scale"]["models"]})
    print(f"lm full slice: {lm_steps} steps, {end - start:.1f} s (stacks {stacks_s:.1f}, battery {rest_s:.1f})",
          flush=True)
    families(device, "quick" if tiny else "full", TINY_SKIP if tiny else ("lm",), budget - (time.perf_counter() - start),
             out)
    others = [json.loads(line) for line in (Path(out) / "families-full.jsonl").read_text().splitlines() if line] \
        if not tiny else []
    others_s = sum(r.get("seconds", 0) for r in others)
    computed = stacks_s * full_steps / lm_steps + rest_s + others_s
    write(out, "gpu.json", full_profile_computed_s=round(computed, 1), other_families_s=round(others_s, 1))
    print(f"full profile, computed: {computed:.0f} s (other families {others_s:.1f} s)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--docs", dest="readme", metavar="FOLDER",
                        help="rewrite docs/performance.md's GPU section from a session's files")
    parser.add_argument("--budget", type=float, default=480.0)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="every size shrunk: a check of the script on a CPU")
    parser.add_argument("--slice", type=int, metavar="STEPS",
                        help="every family at the full profile, the language model cut to STEPS steps; the throughput first")
    parser.add_argument("--long", type=int, metavar="STEPS",
                        help="only a longer slice: STEPS steps, one rate a decade, q/k width 512 (lm-long.json)")
    parser.add_argument("--plan", metavar="FOLDER", help="write the full profile's computed table into a session's "
                        "folder (benchmarks/gpu_plan.py): no device needed")
    parser.add_argument("--compare", action="store_true", help="only eager against the compile modes (gpu_plan.py)")
    args = parser.parse_args()
    if args.readme:
        return readme(args.readme)
    if args.plan:
        from benchmarks import gpu_plan

        return gpu_plan.write_plan(args.plan, PEAK_TFLOPS, results_vocab(args.plan))
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
    if args.compare:
        from benchmarks import gpu_plan

        return gpu_plan.compare(args.device, args.tiny, args.out, write)
    if args.long:
        lm_slice(args.device, args.tiny, 0, args.out, steps=args.long, name="lm-long", per_decade=1, qk_dims=(512,))
        return
    if args.slice:
        throughput(args.device, args.tiny, args.out)
        if args.device == "cuda":
            torch.cuda.empty_cache()
        full_slice(args.device, args.tiny, args.out, left() - 5, args.slice)
        write(args.out, "gpu.json", seconds=round(time.perf_counter() - start, 1))
        return
    for name, part in (("precision", lambda: precision_check(args.device, args.tiny, args.out)),
                       ("throughput", lambda: throughput(args.device, args.tiny, args.out))):
        try:
            part()
        except Exception as exc:  # one part's failure must not cost the others their time
            print(f"{name} failed: {type(exc).__name__}: {exc}", flush=True)
            write(args.out, "gpu.json", **{f"{name}_error": f"{type(exc).__name__}: {exc}"})
        if args.device == "cuda":
            torch.cuda.empty_cache()
    full_check(args.device, args.tiny, args.out, left() - 5)
    write(args.out, "gpu.json", seconds=round(time.perf_counter() - start, 1))

if __name__ == "__main__":
    main()
