"""Figures of the language-model family, drawn from its results and measures alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.lm import PART_ATTENTION, PART_BATTERY, PART_SWEEP
from reportgen.experiments.lm.battery_measures import Battery
from reportgen.experiments.lm.params import BATTERY_SCALINGS, LABELS, NAMES
from reportgen.experiments.lm.sweep import Sweep, alpha_fit, capped, lr_text, mean_entropy, qk_std
from reportgen.plotting import subplots

COLORS = dict(zip(NAMES, ("#1f5fa8", "#d1495b", "#2e8b57", "#e8a33d", "#6b4c9a", "#8c564b", "#17becf",
                          "#7f7f7f", "#bcbd22", "#e377c2")))


def _configs(s):
    return [s.main] + sorted((k for k in s.configs if k != s.main), key=lambda k: (s.dk(k), k[0]))


def _short(s, k):
    return f"d_k = {s.dk(k)} ({k[0]} wide, {k[1]} head{'s' if k[1] > 1 else ''})"


def sweep_figure(results):
    s = Sweep(results)
    keys = _configs(s)
    fig, axes = subplots(1, len(keys), height=2.9, sharey=True, squeeze=False)
    lrs = np.asarray(s.lrs)
    alt = []
    for ax, k in zip(axes[0], keys):
        for v in NAMES:
            if not s.has(k, v):
                continue
            y = [float(np.mean([capped(m) for m in s.seeds(k, v, lr)])) for lr in s.lrs]
            bad = [any(map(s.diverged, s.seeds(k, v, lr))) for lr in s.lrs]
            ax.plot(lrs, y, "-", color=COLORS[v], lw=1, label=LABELS[v] if k == s.main else None)
            ax.plot(lrs[~np.array(bad)], np.array(y)[~np.array(bad)], "o", ms=2.5, color=COLORS[v])
            ax.plot(lrs[np.array(bad)], np.array(y)[np.array(bad)], "x", ms=4, color=COLORS[v])
            tuned = s.tuned(k, v)
            alt.append(f"{_short(s, k)}, {v}: best {min(y):.2f} bits/byte at lr {lr_text(tuned)}, "
                       f"{sum(bad)} of {len(bad)} rates diverged")
        for which, style in (("unigram", ":"), ("bigram", "--")):
            ax.axhline(results["baselines"][which], color="0.5", lw=0.8, ls=style,
                       label=f"{which} table" if k == s.main else None)
        ax.set(xscale="log", xlabel="peak rate")  # short: four panels share one row
        ax.set_title(f"d_k = {s.dk(k)}, width {k[0]}", fontsize=7)
    axes[0, 0].set_ylabel("final validation bits/byte")
    fig.legend(loc="upper center", ncol=4, fontsize=6.5, bbox_to_anchor=(0.5, 0.0))
    return Figure(
        "lm-lr-sweep",
        "Validation loss against the learning rate, for each score convention and configuration: the final "
        "held-out bits per byte, capped at the untrained model's (Wortsman et al.'s convention); × marks a "
        "rate where the run diverged. Grey lines: the unigram (dotted) and bigram (dashed) count tables on "
        "the same held-out split. The main configuration trains every variant; the d_k sweeps "
        "(fixed width, then fixed head count) train × 1/√d_k, × 1 and μP." + undecided_caveat(s),
        f"Log-x line plots, one panel per configuration, with the unigram ({results['baselines']['unigram']:.2f}) "
        f"and bigram ({results['baselines']['bigram']:.2f}) baselines: " + "; ".join(alt) + ".",
        fig,
    )


def undecided_caveat(s):
    """A caption's warning when the models it draws decide nothing (the learning gate), else ''."""
    reason = s.gate(s.main)
    return f" These models decide no training claim: {reason}." if reason else ""


def sensitivity_figure(results):
    s = Sweep(results)
    fig, ax = subplots(1, 1, height=2.6)
    keys = _configs(s)
    alt = []
    main = [v for v in NAMES if s.has(s.main, v)]
    ax.barh(range(len(main)), [s.sensitivity(s.main, v) for v in main], color=[COLORS[v] for v in main],
            alpha=0.8, label=_short(s, s.main))
    markers = "osD^v"
    for j, k in enumerate(keys[1:]):
        pts = [(i, s.sensitivity(k, v)) for i, v in enumerate(main) if s.has(k, v)]
        ax.plot([p[1] for p in pts], [p[0] for p in pts], markers[j % len(markers)], ms=4, mfc="none",
                color="#333333", label=_short(s, k))
    for i, v in enumerate(main):
        alt.append(f"{v} {s.sensitivity(s.main, v):.3f}")
    ax.set_yticks(range(len(main)), [LABELS[v] for v in main], fontsize=7.5)
    ax.invert_yaxis()
    ax.set(xlabel="learning-rate sensitivity (bits/byte)")
    ax.legend(fontsize=7, loc="lower right")
    return Figure(
        "lm-lr-sensitivity",
        "Learning-rate sensitivity per score convention (Wortsman et al. 2023): the mean over the "
        "rates of the final validation loss, capped at the untrained model's, minus the best; lower "
        "is more forgiving. Bars: the main configuration; markers: the d_k sweeps." + undecided_caveat(s),
        "Horizontal bars at the main configuration: " + "; ".join(alt) + ".",
        fig,
    )


def attention_figure(results):
    s = Sweep(results)
    k = s.main
    fig, (left, right) = subplots(1, 2, height=2.7)
    steps = s.steps
    alt = []
    for v in NAMES:
        if not s.has(k, v):
            continue
        lr = s.tuned(k, v)
        ms = s.seeds(k, v, lr)
        logit = np.nanmean([[np.nan if x is None else x for x in m["max_logit"]] for m in ms], 0)
        ent = np.nanmean([[mean_entropy(m, i) for i in range(len(steps))] for m in ms], 0)
        top = s.seeds(k, v, max(s.lrs))
        top_logit = np.nanmean([[np.nan if x is None else x for x in m["max_logit"]] for m in top], 0)
        left.plot(steps, logit, "-", color=COLORS[v], lw=1, label=LABELS[v])
        left.plot(steps, top_logit, ":", color=COLORS[v], lw=0.8)
        right.plot(steps, ent, "-", color=COLORS[v], lw=1)
        alt.append(f"{v} at lr {lr_text(lr)}: max |logit| {logit[0]:.3g} → {logit[-1]:.3g} "
                   f"(at lr {lr_text(max(s.lrs))}: {top_logit[-1]:.3g}); entropy {ent[0]:.2f} → {ent[-1]:.2f}")
    left.set(yscale="log", xlabel="step", ylabel="max |attention logit|")
    right.set(xlabel="step", ylabel="attention entropy / uniform's", ylim=(0, 1.02))
    fig.legend(loc="upper center", ncol=4, fontsize=6.5, bbox_to_anchor=(0.5, 0.0))
    return Figure(
        "lm-attention-training",
        f"Logit growth and attention entropy during training, {_short(s, k)}: each variant at its tuned "
        f"rate (solid) and, for the logits, at the largest rate {lr_text(max(s.lrs))} (dotted). Measured on "
        "the fixed validation windows.",
        "Two plots against the step: " + "; ".join(alt) + ".",
        fig,
    )


def alpha_figure(results):
    s = Sweep(results)
    variants = [v for v in NAMES if sum(s.has(k, v) for k in s.configs) >= 2]
    fig, axes = subplots(1, 2, height=2.6, sharey=True)
    alt = []
    for ax, at, title in ((axes[0], 0, "step 0 (all rates)"), (axes[1], -1, "after training (tuned rate)")):
        for v in variants:
            pts = []
            for k in s.configs:
                if not s.has(k, v):
                    continue
                std = qk_std(s, k, v, at)
                if std > 0 and math.isfinite(std):
                    pts.append((s.dk(k), std))
            if not pts:
                continue
            x, y = np.array(pts).T
            fit = alpha_fit(s, v, at)
            label = LABELS[v] + ("" if fit is None else f": α = {fit[0]:.2f}")
            ax.plot(x, y, "o", ms=3.5, color=COLORS[v], label=label)
            if fit is not None:
                grid = np.array([x.min(), x.max()])
                c = np.mean(np.log(y) - fit[0] * np.log(x))
                ax.plot(grid, np.exp(c) * grid ** fit[0], "-", lw=0.8, color=COLORS[v])
                alt.append(f"{title}, {v}: α = {fit[0]:.2f}")
        dk = np.array(sorted({s.dk(k) for k in s.configs}), dtype=float)
        ax.plot(dk, np.sqrt(dk), ":", color="#555555", lw=0.8, label="√d_k (the premise)")
        ax.set(xscale="log", yscale="log", xlabel="d_k", title=title)
        ax.legend(fontsize=6.5)
    axes[0].set_ylabel("std(q·k), no factor")
    return Figure(
        "lm-alpha-fit",
        "The premise during training: the standard deviation of the raw dot product q·k against d_k, "
        "with the fitted exponent α (std ∝ d_k^α). Independence predicts ½ (dotted: √d_k); μP's "
        "argument, 1 once q and k align.",
        "Two log-log plots: " + "; ".join(alt) + ".",
        fig,
    )


def battery_figure(results):
    b = Battery(results)
    tasks = [t for t in ("recall", "histogram", "induction") if t in b.b["tasks"]]
    d = max(b.b["dims"])
    fig, axes = subplots(1, len(tasks), height=2.5, squeeze=False)
    alt = []
    colors = dict(zip([s for s, _ in BATTERY_SCALINGS], ("#1f5fa8", "#d1495b", "#2e8b57")))
    for ax, task in zip(axes[0], tasks):
        steps = b.task(task)["checkpoints"]
        for opt, style in (("adam", "-"), ("sgd", "--")):
            for s, label in BATTERY_SCALINGS:
                lr = b.best(task, s, d, opt, "loss", len(steps) - 1)[1]
                curve = [b.mean(task, s, d, opt, lr, "loss", i) for i in range(len(steps))]
                ax.plot(steps, curve, style, color=colors[s], lw=1, label=f"{label}, {opt}")
                alt.append(f"{task} {s} {opt}: {curve[0]:.3g} → {curve[-1]:.3g}")
        ax.set(yscale="log", xlabel="step", title=f"{task}, d_k = {d}")
    axes[0, 0].set_ylabel("loss above the floor (nats)")
    # below the panels: six entries inside one would cover its curves
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=6.5,
               bbox_to_anchor=(0.5, -0.08))
    return Figure(
        "lm-battery-curves",
        f"The task battery at d_k = {d}: loss above each task's floor over training (constant rates, each "
        "scaling at its best rate; solid Adam, dashed SGD). The histogram's best attention is uniform, "
        "so unscaled attention, saturated from the start, is trapped there.",
        "Log-scale curves against the step: " + "; ".join(alt) + ".",
        fig,
    )


def figures(results, documented):
    """Every figure of the section, in reading order, under its sub-heading (`documented` is unused:
    the training claims are words)."""
    groups = (
        (PART_SWEEP, [sweep_figure(results), sensitivity_figure(results)]),
        (PART_ATTENTION, [attention_figure(results), alpha_figure(results)]),
        (PART_BATTERY, [battery_figure(results)]),
    )
    return [replace(f, part=part) for part, group in groups for f in group]
