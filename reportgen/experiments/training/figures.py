"""Figures of the training family, drawn from its results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.stats import LEVEL_LABEL, Z, mean_interval
from reportgen.experiments.training import PART_CURVES, PART_SWEEP, PART_TEMPERATURE
from reportgen.experiments.training.params import REACH
from reportgen.experiments.training.sweep import MAIN, Sweep, lr_text
from reportgen.plotting import subplots

COLORS = dict(zip(MAIN, ("#1f5fa8", "#d1495b", "#2e8b57", "#e8a33d", "#6b4c9a")))
STARTS = (("learned", "from 1/√d_k"), ("learned_from_1", "from 1"), ("learned_from_1/d", "from 1/d_k"))


def _label(s, v):
    """A legend's words for a variant: its label (what it does to the scores), never its code name."""
    return s.labels[v]


def sensitivity_figure(results):
    s = Sweep(results)
    fig, axes = subplots(2, len(s.dims), height=4.6, sharex=True, sharey="row", squeeze=False)
    lrs = np.asarray(s.lrs)
    alt = []
    for col, d in enumerate(s.dims):
        top, bottom = axes[0, col], axes[1, col]
        for v in MAIN:
            losses = []
            for lr in s.lrs:
                vals = [s.late(m, "loss") for m in s.seeds(d, v, lr)]
                losses.append(mean_interval(vals, Z) if None not in vals else (np.nan,) * 3)
            m, lo, hi = np.array(losses).T
            top.errorbar(lrs, m, yerr=[np.maximum(m - np.maximum(lo, m / 100), 0), hi - m], fmt="-o", ms=3,
                         capsize=2, color=COLORS[v], label=_label(s, v))
            steps = [s.mean_steps(d, v, lr) for lr in s.lrs]
            bottom.plot(lrs, [np.nan if x is None else x for x in steps], "-o", ms=3, color=COLORS[v])
            best = s.tuned(d, v)
            alt.append(f"d_k = {d}, {v}: lowest late loss {s.final_loss(d, v, best):.2g} at lr {lr_text(best)}")
        top.set(xscale="log", yscale="log", title=f"d_k = {d}")
        bottom.set(xscale="log", xlabel="Adam learning rate", ylim=(0, results["steps"]))
    axes[0, 0].set_ylabel("late loss (nats)")
    axes[1, 0].set_ylabel(f"steps to {REACH:.0%} accuracy")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=6.5, bbox_to_anchor=(0.5, -0.06))
    return Figure(
        "lr-sensitivity",
        f"Learning-rate sensitivity: late loss (top: mean over the last quarter of training and over "
        f"{results['seeds']} seeds, {LEVEL_LABEL} intervals) and steps to {REACH:.0%} accuracy (bottom; a gap "
        "means some seed never got there), for each score scaling and d_k.",
        "Two rows of log-x plots against the learning rate, one column per d_k, one line per "
        "variant: " + "; ".join(alt) + ".",
        fig,
    )


def _curve(s, d, v, lr, key):
    """(steps, mean, low, high) of a logged curve over seeds; min–max band."""
    rows = [m["curves"][key] for m in s.seeds(d, v, lr)]
    values = np.array([[np.nan if x is None else x for x in row] for row in rows], dtype=float)
    steps = (np.arange(values.shape[1]) + 1) * s.results["window"]
    return steps, np.nanmean(values, 0), np.nanmin(values, 0), np.nanmax(values, 0)


def learning_curve_figure(results):
    s = Sweep(results)
    fig, axes = subplots(1, len(s.dims), height=2.6, sharey=True, squeeze=False)
    alt = []
    for ax, d in zip(axes[0], s.dims):
        for v in MAIN:
            lr = s.tuned(d, v)
            steps, m, lo, hi = _curve(s, d, v, lr, "loss")
            ax.plot(steps, m, color=COLORS[v], label=f"{s.labels[v]} (rate {lr_text(lr)})")
            ax.fill_between(steps, lo, hi, color=COLORS[v], alpha=0.15, lw=0)
            alt.append(f"d_k = {d}, {v} at lr {lr_text(lr)}: loss {m[0]:.2g} after {steps[0]} steps, {m[-1]:.2g} at the end")
        ax.set(yscale="log", xlabel="step", title=f"d_k = {d}")
        ax.legend(fontsize=6.5, loc="lower left", title="scores (learning rate)", title_fontsize=6.5)
    axes[0, 0].set_ylabel("training loss (nats)")
    return Figure(
        "learning-curves",
        "001's exercise 3 answered: learning curves with and without scaling, each variant at its "
        f"own tuned learning rate; mean over seeds (line) and min–max (band), {results['window']}-step "
        "window means of the loss on fresh sequences.",
        "Log-scale loss against training step, one panel per d_k: " + "; ".join(alt) + ".",
        fig,
    )


def attention_figure(results):
    s = Sweep(results)
    d = max(s.dims)
    fig, (left, right) = subplots(1, 2, height=2.6)
    alt = []
    for v in MAIN:
        lr = s.tuned(d, v)
        steps, ent, elo, ehi = _curve(s, d, v, lr, "entropy")
        left.plot(steps, ent, color=COLORS[v], label=f"{s.labels[v]} (rate {lr_text(lr)})")
        left.fill_between(steps, elo, ehi, color=COLORS[v], alpha=0.15, lw=0)
        steps, top, tlo, thi = _curve(s, d, v, lr, "max_logit")
        right.plot(steps, top, color=COLORS[v])
        right.fill_between(steps, tlo, thi, color=COLORS[v], alpha=0.15, lw=0)
        alt.append(f"{v}: entropy {ent[0]:.2f} → {ent[-1]:.2g} nats, max |logit| {top[0]:.3g} → {top[-1]:.3g}")
    pairs = results["task"]["pairs"]
    left.axhline(math.log(pairs), color="#555555", ls=":", lw=1)
    left.set(xlabel="step", ylabel="attention entropy (nats)", ylim=(0, None))
    right.set(xlabel="step", ylabel="max |score| in the batch", yscale="log")
    left.legend(fontsize=6.5, loc="upper right", bbox_to_anchor=(1.0, 0.93))
    return Figure(
        "attention-during-training",
        f"Attention during training at d_k = {d}, each variant at its tuned rate: mean entropy of the "
        f"query's attention (left; dotted: uniform over {pairs} positions, ln {pairs}) and the largest "
        "|score| in each window (right); mean over seeds, min–max band.",
        f"Two plots against training step at d_k = {d}: " + "; ".join(alt) + ".",
        fig,
    )


def temperature_figure(results):
    s = Sweep(results)
    fig, axes = subplots(1, len(s.dims), height=2.5, sharey=True, squeeze=False)
    lrs = np.asarray(s.lrs)
    alt = []
    for ax, d in zip(axes[0], s.dims):
        for (v, label), color in zip(STARTS, ("#1f5fa8", "#d1495b", "#2e8b57")):
            ends = []
            for lr in s.lrs:
                vals = [m["curves"]["scale"][-1] for m in s.seeds(d, v, lr)]
                logs = np.log([x * math.sqrt(d) for x in vals if x is not None])
                ends.append(mean_interval(logs, Z) if len(logs) else (np.nan,) * 3)
            m, lo, hi = np.exp(np.array(ends).T)
            ax.errorbar(lrs, m, yerr=[m - lo, hi - m], fmt="-o", ms=3, capsize=2, color=color, label=label)
            alt.append(f"d_k = {d} {label}: {m[0]:.3g} at lr {lr_text(lrs[0])}, {m[-1]:.3g} at lr {lr_text(lrs[-1])}")
        ax.axhline(1, color="#555555", ls=":", lw=1)
        ax.set(xscale="log", yscale="log", xlabel="Adam learning rate", title=f"d_k = {d}")
    axes[0, 0].set_ylabel("final multiplier × √d_k")
    axes[0, 0].legend(fontsize=6.5)
    return Figure(
        "learnable-multiplier",
        "Where a learnable score multiplier ends after training, in units of 1/√d_k (dotted line: "
        "the standard scale), started from 1/√d_k, 1 and 1/d_k; geometric mean over seeds with "
        f"{LEVEL_LABEL} intervals.",
        "Log-log plots of the final multiplier times √d_k against the learning rate, one panel per "
        "d_k: " + "; ".join(alt) + ".",
        fig,
    )


def figures(results, documented):
    """Every figure of the training section, in reading order, under its sub-heading.

    No figure marks a documented number (`documented` is unused): the documents' training claims
    are words, shown in the claims table.
    """
    groups = (
        (PART_SWEEP, [sensitivity_figure(results)]),
        (PART_CURVES, [learning_curve_figure(results), attention_figure(results)]),
        (PART_TEMPERATURE, [temperature_figure(results)]),
    )
    return [replace(figure, part=part) for part, group in groups for figure in group]
