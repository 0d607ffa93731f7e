"""Figures of the saturation family, drawn from its results and measures alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.saturation import PART_EXERCISE, PART_FIGURE, PART_STABILITY, PART_SWEEP
from reportgen.experiments.saturation.measures import expected_max_normal, interval, pooled_max_z
from reportgen.experiments.saturation.params import DOC_FIGURE_DK, DOC_FIGURE_LEN, DOC_FIGURE_SEED
from reportgen.experiments.stats import LEVEL_LABEL, Z
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.plotting import subplots

SATURATED_MAX_WEIGHT = THRESHOLDS["saturated_max_weight"]  # the dotted line of the sweep figure

GREY = "#555555"


def exercise_figure(results):
    ex = results["exercise"]
    x, p, grad = (np.asarray(ex[k]) for k in ("x", "p", "grad"))
    cross = {c["level"]: c["x"] for c in ex["crossings"]}
    vanished = ex["vanished_level"]
    fig, (left, right) = subplots(1, 2, height=2.5)
    left.plot(x, p, label="softmax([x, 0, 0, 0])₁")
    for level, style in ((0.9, ":"), (0.99, "--")):
        left.axhline(level, ls=style, color=GREY, lw=0.9)
        left.axvline(cross[level], ls=style, color=GREY, lw=0.9)
        left.annotate(f"{level:g} at x = {cross[level]:.2f}", (cross[level], level), xytext=(8, -14),
                      textcoords="offset points", fontsize=7)
    left.set(xlabel="x", ylabel="largest probability", ylim=(0.2, 1.03))
    right.semilogy(x, 1 - p, label="1 − p")
    right.semilogy(x, grad, "--", label="dp/dx = p(1 − p)")
    right.axhline(vanished, ls=":", color=GREY, lw=0.9, label=f"{vanished:g}")
    right.set(xlabel="x", ylabel="value (log scale)")
    right.legend(loc="upper right")
    return Figure(
        "saturation-exercise-2",
        "001 exercise 2: the largest probability of softmax([x, 0, 0, 0]) for x from 0 to 10 (left), "
        "and on a log scale its distance from 1 and its derivative (right).",
        f"Left: the largest probability rises from {p[0]:.2f} at x = 0 to {p[-1]:.5f} at x = 10, crossing "
        f"0.9 at x = {cross[0.9]:.3f} and 0.99 at x = {cross[0.99]:.3f}. Right, log scale: 1 − p and "
        f"dp/dx fall roughly like e^(−x); dp/dx is {grad[-1]:.2g} at x = 10 and crosses "
        f"{vanished:g} at x = {ex['vanished_x']:.2f}.",
        fig,
    )


def _series(results, n, key):
    cells = sorted((c for c in results["sweep"] if c["n"] == n), key=lambda c: c["d_k"])
    d = np.array([c["d_k"] for c in cells])
    m, lo, hi = np.array([interval(c[key], c["rows"], Z) for c in cells]).T
    if key.startswith("entropy"):
        m, lo, hi = m / math.log(n), lo / math.log(n), hi / math.log(n)
    return d, m, lo, hi


def sweep_figure(results):
    lengths = sorted({c["n"] for c in results["sweep"]})
    fig, axes = subplots(1, 2, height=2.9)
    colors = ["#1f5fa8", "#d1495b", "#2e8b57", "#e8a33d", "#6b4c9a", "#555555"]
    for ax, key, label in ((axes[0], "max_w", "mean largest weight"), (axes[1], "entropy", "mean entropy / ln n")):
        for n, color in zip(lengths, colors):
            for suffix, style, marker in (("", "-", "o"), ("_scaled", "--", "s")):
                d, m, lo, hi = _series(results, n, key + suffix)
                ax.errorbar(d, m, yerr=[m - lo, hi - m], fmt=marker + style, color=color, ms=3, capsize=1.5,
                            lw=1.1, label=f"n = {n}" if not suffix else None)
        ax.set(xscale="log", xlabel="d_k", ylabel=label, ylim=(-0.02, 1.02))
        ax.set_xscale("log", base=2)
    axes[0].axhline(SATURATED_MAX_WEIGHT, color=GREY, lw=0.8, ls=":")
    handles, labels = axes[0].get_legend_handles_labels()
    for style, label in (("-o", "unscaled q·k"), ("--s", "scaled q·k/√d_k")):
        (line,) = axes[1].plot([], [], style, color=GREY, ms=3)
        handles.append(line)
        labels.append(label)
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), bbox_to_anchor=(0.5, -0.01),
               fontsize=6.5, handlelength=2.2, columnspacing=1.0)
    edge = {
        (n, s): _series(results, n, "max_w" + s) for n in (lengths[0], lengths[-1]) for s in ("", "_scaled")
    }
    d_max = edge[(lengths[0], "")][0][-1]
    return Figure(
        "saturation-sweep",
        "Mean largest attention weight (left) and mean entropy as a share of ln n (right) against d_k, for "
        f"sequence lengths n; solid: unscaled scores, dashed: scaled. {LEVEL_LABEL} intervals (mostly smaller than "
        f"the markers); the dotted line marks {SATURATED_MAX_WEIGHT}, this report's 'saturated'.",
        "Two plots against d_k on a log axis. Unscaled, the mean largest weight at d_k = "
        f"{d_max} is {edge[(lengths[0], '')][1][-1]:.3f} for n = {lengths[0]} and "
        f"{edge[(lengths[-1], '')][1][-1]:.3f} for n = {lengths[-1]}; scaled, it stays near "
        f"{edge[(lengths[0], '_scaled')][1].mean():.3f} for n = {lengths[0]} and "
        f"{edge[(lengths[-1], '_scaled')][1].mean():.3f} for n = {lengths[-1]} at every d_k. "
        "The entropy share falls with d_k for unscaled scores and stays flat for scaled ones.",
        fig,
    )


def logit_figure(results):
    lengths = sorted({c["n"] for c in results["sweep"]})
    rows = [interval(*pooled_max_z(results, n), Z) for n in lengths]
    m, lo, hi = np.array(rows).T
    n = np.array(lengths)
    grid = np.geomspace(n.min(), n.max(), 60)
    fig, ax = subplots(height=2.4)
    ax.errorbar(n, m, yerr=[m - lo, hi - m], fmt="o", capsize=2, label=f"measured, {LEVEL_LABEL} CI")
    ax.plot(n, [expected_max_normal(k) for k in lengths], "x", color="#d1495b", ms=6, label="exact E[max]")
    ax.plot(grid, np.sqrt(2 * np.log(grid)), "--", color=GREY, label="√(2 ln n)", zorder=0)
    ax.set(xscale="log", xlabel="n (keys per query)", ylabel="largest score / σ")
    ax.set_xscale("log", base=2)
    ax.legend(loc="upper left")
    return Figure(
        "saturation-max-logit-curve",
        f"The largest of n scores in units of their standard deviation |q|, against n, with {LEVEL_LABEL} intervals, "
        "beside the exact mean of the largest of n standard normals and √(2 ln n).",
        "Measured mean largest score over σ: "
        + ", ".join(f"{v:.2f} at n = {k}" for k, v in zip(lengths, m))
        + "; √(2 ln n) runs from "
        + f"{math.sqrt(2 * math.log(lengths[0])):.2f} to {math.sqrt(2 * math.log(lengths[-1])):.2f}.",
        fig,
    )


def document_figure(results):
    doc = results["figure"]["doc_seed"]
    st = doc["stats"]
    fig, axes = subplots(2, 3, height=4.6)
    ln_n = math.log(DOC_FIGURE_LEN)
    positions = np.arange(DOC_FIGURE_LEN)
    for row, (label, suffix, lim) in enumerate((("Unscaled", "", 20), ("Scaled", "_scaled", 3))):
        scores = np.asarray(doc["scaled" if suffix else "unscaled"])
        weights = np.asarray(doc["weights" + suffix])
        entropy = np.asarray(doc["entropy" + suffix])
        std = st["scaled_std" if suffix else "unscaled_std"]
        im = axes[row, 0].imshow(scores, cmap="RdBu", vmin=-lim, vmax=lim)
        axes[row, 0].set_title(f"{label} scores (std {std:.2f})")
        fig.colorbar(im, ax=axes[row, 0], fraction=0.046, pad=0.04)
        im = axes[row, 1].imshow(weights, cmap="Blues", vmin=0, vmax=1)
        axes[row, 1].set_title(f"{label} weights")
        fig.colorbar(im, ax=axes[row, 1], fraction=0.046, pad=0.04)
        axes[row, 2].bar(positions, entropy, color="#1f5fa8")
        axes[row, 2].axhline(ln_n, color="#d1495b", ls="--", lw=1)
        axes[row, 2].set(ylim=(0, ln_n + 0.5), title=f"Entropy (mean {entropy.mean():.2f})")
        axes[row, 2].set_xlabel("query")
        for ax in axes[row, :2]:
            ax.set(xlabel="key", ylabel="query", xticks=positions[::3], yticks=positions[::3])
            ax.grid(False)
        axes[row, 2].set_xticks(positions[::3])
    axes[0, 2].text(DOC_FIGURE_LEN - 0.5, ln_n + 0.08, "ln 10", ha="right", fontsize=7, color="#d1495b")
    fig.tight_layout(w_pad=0.6, h_pad=1.0)
    w_u = np.asarray(doc["weights"]).max(axis=1)
    return Figure(
        "saturation-000-figure",
        f"000's figure rerun with its code and seed ({DOC_FIGURE_SEED}; d_k = {DOC_FIGURE_DK}, "
        f"{DOC_FIGURE_LEN} positions): scores, attention weights and entropy per query, unscaled (top) and "
        "scaled (bottom), with the document's colour limits. Dashed: the maximum entropy ln 10.",
        f"Top row, unscaled: scores with std {st['unscaled_std']:.2f}; every query's largest weight lies "
        f"between {w_u.min():.3f} and {w_u.max():.3f}; entropies per query from "
        f"{min(doc['entropy']):.2g} to {max(doc['entropy']):.2f} nats, mean {st['mean_entropy']:.3f}, "
        f"against ln 10 = {ln_n:.3f}. Bottom row, scaled: std {st['scaled_std']:.2f}; largest weight "
        f"{st['max_weight_scaled']:.3f}; entropies from {min(doc['entropy_scaled']):.2f} to "
        f"{max(doc['entropy_scaled']):.2f}, mean {st['mean_entropy_scaled']:.3f}.",
        fig,
    )


def stability_figure(results):
    rows = [r for r in results["stability"] if r["pattern"] == "large positive"]
    fig, axes = subplots(1, len(rows), height=2.3)
    for ax, row in zip(axes, rows):
        x = np.asarray(row["curve"]["x"])
        dev = np.asarray(row["curve"]["naive_vs_stable"]) / row["eps"]
        ax.plot(x, dev, ".", ms=2)
        ax.axvline(row["first_failure"], color="#d1495b", ls="--", lw=1)
        ax.set(title=row["dtype"], xlabel="largest score x", ylim=(-0.2, max(4.5, dev.max() * 1.1)))
        ax.annotate(f"inf/NaN\nfrom {row['first_failure']:.4g}", (row["first_failure"], 3.2), xytext=(-4, 0),
                    textcoords="offset points", ha="right", fontsize=7, color="#d1495b")
    axes[0].set_ylabel("|naive − stable| / eps")
    return Figure(
        "saturation-stability-deviation",
        "Naive exp(s)/Σexp(s) against the max-subtracted softmax for s = [x, x/2, 0, −x/2], in units of "
        "each dtype's eps, up to the score where the naive one first gives inf or NaN (dashed).",
        "Three panels, one per dtype: "
        + "; ".join(
            f"{r['dtype']}: largest deviation {r['naive_vs_stable'] / r['eps']:.2g} eps, "
            f"naive inf/NaN from x = {r['first_failure']:.6g}"
            for r in rows
        )
        + ".",
        fig,
    )


def figures(results, documented):
    """Every figure of the saturation section, in reading order, under its sub-heading.

    None of them marks a documented number, so `documented` is not read.
    """
    groups = (
        (PART_EXERCISE, [exercise_figure(results)]),
        (PART_SWEEP, [sweep_figure(results), logit_figure(results)]),
        (PART_FIGURE, [document_figure(results)]),
        (PART_STABILITY, [stability_figure(results)]),
    )
    return [replace(figure, part=part) for part, group in groups for figure in group]
