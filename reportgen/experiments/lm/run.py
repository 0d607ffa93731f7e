"""Language-model family, run: byte-level Transformers on the Python standard library, and the battery.

For each configuration (width, heads) every variant × learning rate × seed is one model of one
stack, trained at once. Seeds are paired: the initialization and the training windows are
drawn from streams keyed on the seed (and the configuration's shapes), never on the variant or
the rate, so within a seed every variant and rate starts from the same weights (where the
variant's own rule, as μP's zero queries, does not change them) and sees the same bytes in the
same order; a difference between variants within a seed is the variant's alone. The validation loss on a fixed set of held-out windows, and the
attention statistics on it, are measured at step 0 and at `evals` evenly spaced steps; the test
loss once at the end. Numbers only, as plain JSON-able values.
"""

import math

from reportgen.experiments.lm.params import SIGNIFICANT


def _r(x):
    """A float to SIGNIFICANT digits; NaN and inf as None (a diverged model)."""
    return float(f"{x:.{SIGNIFICANT}g}") if math.isfinite(x) else None


def _rows(tensor):
    """(M, …) tensor -> per-model nested lists of rounded floats."""
    values = tensor.detach().cpu().tolist()

    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else _r(v)

    return [walk(v) for v in values]


def main_dk(params):
    """The main configuration's q/k width per head."""
    return params.qk_width or params.width // params.heads


def configurations(params):
    """(width, heads, d_k, variants) of every configuration: the main one first, then the d_k sweeps
    (head count at fixed width, width at fixed head count, q/k width at the main width and heads)."""
    out = [(params.width, params.heads, main_dk(params), params.main_variants)]
    out += [(params.width, h, params.width // h, params.sweep_variants) for h in params.fixed_width_heads]
    out += [(w, params.heads, w // params.heads, params.sweep_variants) for w in params.fixed_heads_widths]
    out += [(params.width, params.heads, d, params.sweep_variants) for d in params.qk_dims]
    return out


def windows(tokens, starts, length):
    """Windows of `length` tokens at `starts` (any shape): starts.shape + (length,)."""
    import torch

    return tokens[starts.unsqueeze(-1) + torch.arange(length, device=tokens.device)]


def fixed_starts(tokens, count, length, device):
    """`count` evenly spaced window starts over a split: the same set for every model."""
    import torch

    return torch.linspace(0, len(tokens) - length - 1, count, device=device).long()


def cells_of(params, d_k, variants):
    """(variant, rate, seed) of every model of one configuration, each score kind contiguous."""
    from reportgen.experiments.lm import model

    return model.order_grid([(v, lr, s) for v in variants for lr in params.lrs for s in range(params.seeds)],
                            d_k, params.context)


def train_stack(params, seed, device, data, vocab, width, heads, d_k, cells, stop=None, tick=None):
    """The models `cells` of one configuration trained as one stack; their per-model summaries, in order.

    Every model's weights and data come from streams keyed on its seed (never on its place in the
    stack), so how a configuration is split into stacks does not change what a model sees. `stop` and
    `tick`: optimize.train_batched's.
    """
    import torch

    from reportgen.experiments.lm import model, optimize
    from reportgen.experiments.sampling import generator

    T, B, steps = params.context, params.batch, params.steps
    cfg = model.Config(width, heads, params.layers, T, vocab, params.base_width, cells, device, d_k, params.mlp_ratio)

    P = model.init_params(cfg, [generator(device, seed, "lm", width, heads, d_k, s, "init") for _, _, s in cells], device)
    train = data["train"]
    seeds = sorted({s for _, _, s in cells})
    per_seed = torch.stack([torch.randint(len(train) - T - 1, (steps, B), generator=generator(device, seed, "lm",
                                                                                                s, "data"),
                                          device=device) for s in seeds], 1)  # (steps, seeds here, B)
    starts = per_seed[:, [seeds.index(s) for _, _, s in cells]]  # (steps, M, B): a seed's models, the same windows
    x_val = windows(data["validation"], fixed_starts(data["validation"], params.eval_windows, T + 1, device), T + 1)
    x_val = x_val.expand(cfg.M, -1, -1)
    eval_at = [round(steps * (e + 1) / params.evals) for e in range(params.evals)]
    log = {k: [] for k in ("val", "max_logit", "entropy", "saturated", "qk_std", "qk_ratio", "cos", "grad",
                           "grad_qk")}

    def evaluate(step, P, grads):
        with torch.no_grad():
            loss, layers = model.forward(P, cfg, x_val, probe=True)
            log["val"].append(loss / math.log(2))
            log["max_logit"].append(torch.stack([s["max_logit"] for s in layers]).amax(0))
            log["entropy"].append(torch.cat([s["entropy"] for s in layers], 1))  # (M, L·H)
            log["saturated"].append(torch.stack([s["saturated"] for s in layers]).mean(0))
            for k in ("qk_std", "qk_ratio", "cos"):
                log[k].append(torch.stack([s[k] for s in layers], 1))  # (M, L)
            if grads is not None:
                block, qk = optimize.layer_grad_norms(list(P), grads, cfg.L)
                log["grad"].append(block.T)
                log["grad_qk"].append(qk.T)

    evaluate(0, P, None)
    losses = optimize.train_batched(P, cfg, lambda step: windows(train, starts[step], T + 1), steps,
                                 set(eval_at), evaluate, stop, tick)
    with torch.no_grad():
        x_test = windows(data["test"], fixed_starts(data["test"], params.test_windows, T + 1, device), T + 1)
        test = torch.stack([model.forward(P, cfg, chunk.expand(cfg.M, -1, -1)) for chunk in x_test.split(16)])
        sizes = torch.tensor([len(c) for c in x_test.split(16)], device=device, dtype=test.dtype)
        test_bits = (test * sizes.view(-1, 1)).sum(0) / sizes.sum() / math.log(2)
    bounds = [0] + eval_at
    train_bits = torch.stack([losses[a:b].mean(0) for a, b in zip(bounds, bounds[1:])], 1) / math.log(2)

    def series(key):
        return _rows(torch.stack(log[key], 1))  # (M, evals, …)

    curves = {k: series(k) for k in log}
    # the score factor each head ends with, × √d_k (1 is the standard scale)
    mult = _rows(torch.cat([P[f"l{i}.logm"].detach().exp() for i in range(cfg.L)], 1) * math.sqrt(cfg.dk))
    models = []
    for i, (v, lr, s) in enumerate(cells):
        models.append({
            "variant": v, "lr": lr, "seed": s,
            "test_bits": _r(test_bits[i].item()),
            "train_bits": _rows(train_bits[i]),
            **{k: curves[k][i] for k in curves},
            "mult": mult[i],
        })
    return models


def left_out(params):
    """The variants this profile does not train at its main configuration, with the profiles that do."""
    from reportgen.experiments.lm.params import NAMES, PARAMS

    return [{"variant": v, "trained_in": [p for p, pp in PARAMS.items() if v in pp.main_variants]}
            for v in NAMES if v not in params.main_variants]


def evidence_scale(params, configs, vocab, provenance):
    """How much the language-model evidence rests on: models, parameters, bytes seen, seeds, d_k range."""
    from reportgen.experiments.lm.stacks import parameters

    sizes = [parameters(c["width"], c["heads"], c["d_k"], params.layers, params.context, vocab,
                        params.mlp_ratio * c["width"]) for c in configs]
    per_model = params.steps * params.batch * params.context
    return {
        "models": sum(len(c["models"]) for c in configs),
        "configurations": len(configs),
        "parameters_main": sizes[0], "parameters_min": min(sizes), "parameters_max": max(sizes),
        "bytes_per_model": per_model,
        "bytes_share_of_train": per_model / provenance["split_bytes"]["train"],
        "model_bytes": per_model * sum(len(c["models"]) for c in configs),
        "seeds": params.seeds,
        "rates": len(params.lrs), "rate_decades": math.log10(max(params.lrs) / min(params.lrs)),
        "d_k_min": min(c["d_k"] for c in configs), "d_k_max": max(c["d_k"] for c in configs),
        "widths": sorted({c["width"] for c in configs}),
    }


def lanes(device, count):
    """Stacks trained at once: on a CPU one per core (each single-threaded, so where a stack runs never
    changes its numbers); on a GPU one, whose kernels fill the device."""
    import os

    return max(1, min(count, os.cpu_count() or 1)) if device == "cpu" else 1


def plan(params, device, vocab):
    """[(configuration, its cells, [stacks of cells], bytes one of its stacks may take at its peak)]: each
    configuration split to fit the device's budget (stacks.py)."""
    from reportgen.experiments.lm import model, stacks

    out = []
    budget = stacks.budget_bytes(device)
    for width, heads, d_k, variants in configurations(params):
        cells = cells_of(params, d_k, variants)
        factored = model.use_factored_shape(width, heads, d_k, params.context, params.batch)
        per_model = stacks.bytes_per_model(width, heads, d_k, params.layers, params.context, params.batch, vocab,
                                           params.mlp_ratio * width, factored, params.eval_windows)
        try:
            size = stacks.stack_size(per_model, budget, device)
        except stacks.DoesNotFit as exc:
            raise stacks.DoesNotFit(f"lm at width {width}, {heads} heads, q/k width {d_k}: {exc}") from None
        parts = stacks.split(cells, size)
        out.append(((width, heads, d_k, variants), cells, parts, per_model * max(map(len, parts))))
    return out


def budget_gib(device):
    """The card's memory, GiB."""
    import torch

    return torch.cuda.get_device_properties(0).total_memory / 2**30 if device == "cuda" else 0.0


def stack_spec(device, config, cells):
    """What decides a stack's numbers beyond the run's key (its code, parameters, seed, device and threads):
    its configuration, its models, and the precision and compile mode the device trains in."""
    from reportgen.experiments.lm import compiled, optimize

    width, heads, d_k, _ = config
    return {"width": width, "heads": heads, "d_k": d_k, "cells": [list(c) for c in cells],
            "precision": optimize.CUDA_PRECISION if device == "cuda" else "fp32", "compile": compiled.mode(device)}


def _fits(models, cells):
    """Whether a kept stack's summaries are those of `cells`, in order (else it is trained again)."""
    return isinstance(models, list) and len(models) == len(cells) and all(
        isinstance(m, dict) and [m.get("variant"), m.get("lr"), m.get("seed")] == list(c) for m, c in zip(models, cells))


def train_all(params, seed, device, data, vocab, progress, parts=None):
    """Every configuration's models, in configuration order, trained stack by stack; on a CPU the stacks
    run side by side in threads (experiments/lanes.py), each flushing subnormals itself (a per-thread
    CPU flag). With `parts` (publish/parts.py, handed in by the scheduler) each stack is kept as it
    finishes, and a stack kept by an interrupted run is read back instead of trained again. Progress
    counts models trained, step by step."""
    import torch

    from reportgen.experiments import lanes as side_by_side
    from reportgen.experiments.lm import optimize

    optimize.set_precision(device)
    layout = plan(params, device, vocab)
    jobs = [(config, part) for config, _, parts_, _ in layout for part in parts_]
    specs = [stack_spec(device, config, cells) for config, cells in jobs]
    done = [parts.load(spec) if parts is not None else None for spec in specs]
    done = [models if _fits(models, cells) else None for models, (_, cells) in zip(done, jobs)]
    todo = [i for i, models in enumerate(done) if models is None]
    tally = side_by_side.Tally()

    def one(i, stop):
        (width, heads, d_k, _), cells = jobs[i]
        counted = [0.0]

        def tick():
            counted[0] += len(cells) / params.steps
            tally.add(len(cells) / params.steps)

        flushed = torch.set_flush_denormal(True)  # saturated softmaxes make subnormals, far slower on a CPU
        try:
            models = train_stack(params, seed, device, data, vocab, width, heads, d_k, cells, stop, tick)
        finally:
            if flushed:
                torch.set_flush_denormal(False)
        if parts is not None:
            parts.store(specs[i], models)
        tally.add(len(cells) - counted[0])  # the stack's models, whole
        return models

    models = sum(len(cells) for _, cells in jobs)
    training = sum(len(jobs[i][1]) for i in todo)
    label = f"lm: training {training} models in {len(todo)} stacks"
    if len(todo) < len(jobs):
        label += f" ({models - training} more in {len(jobs) - len(todo)} stacks kept from an interrupted run)"
    if device == "cuda":  # what the planner lets a stack take, against the card
        label += f", each under {max(peak for *_, peak in layout) / 2**30:.0f} GiB of {budget_gib(device):.0f}"
    trained = side_by_side.in_threads(todo, one, lanes(device, len(todo)), progress, label, tally, training)
    for i, models in zip(todo, trained):
        done[i] = models
    configs, i = [], 0
    for (width, heads, d_k, _), _, parts_, _ in layout:
        configs.append({"width": width, "heads": heads, "d_k": d_k,
                        "models": [m for part in done[i : i + len(parts_)] for m in part]})
        i += len(parts_)
    return configs


def run(params, seed, device, progress, parts=None):
    """Train every configuration's stack, then the task battery; plain numbers out. `parts`: where the
    finished stacks are kept as they end (train_all)."""
    import torch

    from reportgen.experiments.lm import baselines, battery, corpus

    text, vocabulary, provenance = corpus.read()
    data = {s: corpus.encode(text[s], vocabulary, device) for s in corpus.SPLITS}
    counts = baselines.count_bits(data["train"], data["test"], len(vocabulary))
    configs = train_all(params, seed, device, data, len(vocabulary), progress, parts)
    flushed = torch.set_flush_denormal(True)
    try:
        tasks = battery.run(params.battery, seed, device, progress)
    finally:
        if flushed:
            torch.set_flush_denormal(False)
    return {
        "corpus": provenance,
        "baselines": counts,
        "model": {"layers": params.layers, "context": params.context, "batch": params.batch,
                  "steps": params.steps, "base_width": params.base_width, "seeds": params.seeds,
                  "mlp_ratio": params.mlp_ratio},
        "left_out": left_out(params),
        "scale": evidence_scale(params, configs, len(vocabulary), provenance),
        "main": {"width": params.width, "heads": params.heads, "d_k": main_dk(params)},
        "lrs": list(params.lrs),
        "eval_steps": [0] + [round(params.steps * (e + 1) / params.evals) for e in range(params.evals)],
        "eval_tokens": params.eval_windows * params.context,
        "test_tokens": params.test_windows * params.context,
        "configs": configs,
        "battery": {"dims": list(params.battery.dims), "adam_lrs": list(params.battery.adam_lrs),
                    "sgd_lrs": list(params.battery.sgd_lrs), "seeds": params.battery.seeds,
                    "steps": params.battery.steps, "batch": params.battery.batch, "tasks": tasks},
    }
