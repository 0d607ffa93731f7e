"""Figures of the temperature family, drawn from its results alone (never from its tables)."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.stats import LEVEL_LABEL, Z, mean_interval
from reportgen.experiments.temperature import PART_BALANCED, PART_COSINE, PART_SWEEP, PART_TAU
from reportgen.experiments.temperature.measures import cell_interval, share
from reportgen.experiments.temperature.params import EXAMPLE_DK, EXAMPLE_LEN, FP16_MAX, SWEEP_DK
from reportgen.plotting import subplots

GREY = "#555555"
COLORS = ["#1f5fa8", "#d1495b", "#2e8b57", "#e8a33d", "#6b4c9a", "#555555"]


def sweep_figure(results):
    cells = results["sweep"]["cells"]
    lengths = sorted({c["n"] for c in cells})
    fig, (left, right) = subplots(1, 2, height=2.7)
    ends = {}
    for n, color in zip(lengths, COLORS):
        mine = sorted((c for c in cells if c["n"] == n), key=lambda c: c["T"])
        t = np.array([c["T"] for c in mine])
        h = np.array([share(c, Z) for c in mine])  # (T, 3): mean, lo, hi
        w = np.array([cell_interval(c["max_w"], c["rows"], Z) for c in mine])
        left.plot(t, h[:, 0], color=color, label=f"n = {n}")
        left.fill_between(t, h[:, 1], h[:, 2], color=color, alpha=0.25, lw=0)
        right.plot(t, w[:, 0], color=color, label=f"n = {n}")
        right.fill_between(t, w[:, 1], w[:, 2], color=color, alpha=0.25, lw=0)
        right.plot(t[-1], 1 / n, "_", color=color, ms=8)
        ends[n] = (h[0, 0], h[-1, 0], w[0, 0], w[-1, 0])
    for ax, label in ((left, "mean entropy / ln n"), (right, "mean largest weight")):
        ax.axvline(1.0, color=GREY, ls=":", lw=0.9, label="T = 1 (unscaled)")
        ax.axvline(math.sqrt(SWEEP_DK), color=GREY, ls="--", lw=0.9, label=f"T = √d_k = {math.sqrt(SWEEP_DK):g}")
        ax.set(xscale="log", xlabel="temperature T", ylabel=label, ylim=(-0.03, 1.03))
    handles, labels = left.get_legend_handles_labels()
    left.legend(handles[2:], labels[2:], loc="upper left", fontsize=6.5)
    right.legend(handles[:2], labels[:2], loc="upper right", fontsize=6.5)
    t_min, t_max = min(c["T"] for c in cells), max(c["T"] for c in cells)
    return Figure(
        "temperature-sweep",
        f"softmax(s/T) for raw scores s = q·k at d_k = {SWEEP_DK}: mean entropy as a share of ln n (left) "
        f"and mean largest weight (right) against T, with {LEVEL_LABEL} bands (mostly thinner than the lines). "
        "Dotted: T = 1 (unscaled attention); dashed: T = √d_k (scaled); ticks on the right: 1/n.",
        f"Two plots against T on a log axis from {t_min:g} to {t_max:g}, one curve per n. The entropy share "
        "rises from "
        + ", ".join(f"{ends[n][0]:.3f}" for n in lengths)
        + f" at T = {t_min:g} to "
        + ", ".join(f"{ends[n][1]:.4f}" for n in lengths)
        + f" at T = {t_max:g} (n = {', '.join(map(str, lengths))}); the largest weight falls from "
        + ", ".join(f"{ends[n][2]:.4f}" for n in lengths)
        + " to "
        + ", ".join(f"{ends[n][3]:.4f}" for n in lengths)
        + ".",
        fig,
    )


def tau_heatmaps(results):
    example = results["example"]
    top = max(max(max(row) for row in e["weights"]) for e in example)
    fig, axes = subplots(1, 3, height=2.3)
    positions = np.arange(EXAMPLE_LEN)
    for ax, e in zip(axes, example):
        im = ax.imshow(np.asarray(e["weights"]), cmap="Blues", vmin=0, vmax=top)
        ax.set_title(f"τ = {e['factor']:g}√d_k (mean H {np.mean(e['entropy']):.2f})")
        ax.set(xlabel="key", xticks=positions[::3], yticks=positions[::3])
        ax.grid(False)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    axes[0].set_ylabel("query")
    fig.tight_layout(w_pad=0.8)
    return Figure(
        "temperature-tau-heatmaps",
        f"One seeded block of {EXAMPLE_LEN} queries and keys (d_k = {EXAMPLE_DK}): attention weights at "
        "τ = 0.5√d_k, √d_k and 2√d_k, on one colour scale.",
        "Three heatmaps of attention weights, query rows against key columns: "
        + "; ".join(
            f"τ = {e['factor']:g}√d_k: largest weight {max(max(r) for r in e['weights']):.3f}, "
            f"mean entropy {np.mean(e['entropy']):.3f} nats"
            for e in example
        )
        + f" (uniform: ln {EXAMPLE_LEN} = {math.log(EXAMPLE_LEN):.3f}).",
        fig,
    )


def tau_entropy_figure(results):
    example = results["example"]
    fig, ax = subplots(height=2.2)
    x = np.arange(EXAMPLE_LEN)
    width = 0.8 / len(example)
    for i, (e, color) in enumerate(zip(example, COLORS)):
        ax.bar(x + (i - 1) * width, e["entropy"], width=width, color=color, label=f"τ = {e['factor']:g}√d_k")
    ax.axhline(math.log(EXAMPLE_LEN), color=GREY, ls="--", lw=1, label=f"ln {EXAMPLE_LEN}")
    ax.set(xlabel="query", ylabel="entropy (nats)", xticks=x, ylim=(0, math.log(EXAMPLE_LEN) * 1.25))
    ax.legend(loc="upper left", ncol=4)
    return Figure(
        "temperature-tau-entropy",
        "Entropy per query of the block above at the three temperatures; dashed: the uniform maximum.",
        "Grouped bars, one group per query: "
        + "; ".join(
            f"τ = {e['factor']:g}√d_k entropies from {min(e['entropy']):.2f} to {max(e['entropy']):.2f}"
            for e in example
        )
        + f"; maximum ln {EXAMPLE_LEN} = {math.log(EXAMPLE_LEN):.2f}.",
        fig,
    )


def balanced_figure(results):
    rows = results["balanced"]
    d = np.array([r["d_k"] for r in rows])
    fig, ax = subplots(height=2.8)
    grid = np.geomspace(d.min(), d.max(), 50)
    ax.plot(grid, np.sqrt(FP16_MAX / grid), "--", color=COLORS[0], lw=1, label="d·r² = 65504")
    ax.plot(grid, np.sqrt(FP16_MAX / np.sqrt(grid)), "--", color=COLORS[1], lw=1, label="√d·r² = 65504")
    summary = {}
    for kind, marker in (("aligned", "o"), ("random", "s")):
        for method, color in (("after", COLORS[0]), ("balanced", COLORS[1])):
            m, lo, hi = np.array([mean_interval(r[kind][method], Z) for r in rows]).T
            face = "white" if kind == "random" else color
            ax.errorbar(d, m, yerr=[m - lo, hi - m], fmt=marker, color=color, mfc=face, capsize=2,
                        label=f"{kind}, {'divide after' if method == 'after' else 'balanced'}")
            summary[kind, method] = m
    ax.set(xscale="log", yscale="log", xlabel="d_k", ylabel="RMS r at first float16 overflow")
    ax.set_xscale("log", base=2)
    ax.legend(loc="lower left", fontsize=6.5, ncol=2)
    return Figure(
        "temperature-balanced-overflow",
        "The RMS r of q and k at which float16 scores first overflow, dividing by √d_k after the product "
        "(blue) or scaling q and k by d_k^(−1/4) first (red); filled: aligned q = k, open: random q, k "
        f"(mean and {LEVEL_LABEL} interval over patterns). Dashed: the closed forms for aligned q, k.",
        "Log-log plot against d_k: "
        + "; ".join(
            f"{kind} {method}: r from {summary[kind, method][0]:.1f} at d_k = {d[0]} to "
            f"{summary[kind, method][-1]:.1f} at d_k = {d[-1]}"
            for kind in ("aligned", "random")
            for method in ("after", "balanced")
        )
        + ".",
        fig,
    )


def cosine_figure(results):
    rows = results["cosine"]
    d = np.array([r["d_k"] for r in rows])
    n = rows[0]["n"]
    reached = [[b["matching_t"] for b in r["batches"] if b["matching_t"] is not None] for r in rows]
    d_tau = np.array([k for k, t in zip(d, reached) if t])
    tau = np.array([mean_interval(t, Z) for t in reached if t])
    h_cos = np.array([mean_interval([b["cosine_entropy_t1"] / math.log(n) for b in r["batches"]], Z) for r in rows])
    h_scaled = np.array([mean_interval([b["scaled_entropy"] / math.log(n) for b in r["batches"]], Z) for r in rows])
    fig, (left, right) = subplots(1, 2, height=2.6)
    left.errorbar(d_tau, tau[:, 0], yerr=[tau[:, 0] - tau[:, 1], tau[:, 2] - tau[:, 0]], fmt="o", capsize=2,
                  label=f"τ*, {LEVEL_LABEL} CI")
    left.plot(d, 1 / np.sqrt(d), "--", color=GREY, label="1/√d_k", zorder=0)
    left.set(xscale="log", yscale="log", xlabel="d_k", ylabel="matching temperature τ*")
    left.set_xscale("log", base=2)
    left.legend(loc="lower left")
    for h, label, color in ((h_scaled, "scaled q·k/√d_k", COLORS[0]), (h_cos, "cosine, τ = 1", COLORS[1])):
        right.errorbar(d, h[:, 0], yerr=[h[:, 0] - h[:, 1], h[:, 2] - h[:, 0]], fmt="o-", color=color, capsize=2,
                       label=label)
    right.set(xscale="log", xlabel="d_k", ylabel="mean entropy / ln n", ylim=(0.7, 1.01))
    right.set_xscale("log", base=2)
    right.legend(loc="lower right")
    return Figure(
        "temperature-cosine-curves",
        f"Cosine attention ({n} keys per query): the temperature τ* at which it is as sharp as scaled "
        "attention, against d_k (left), and the entropy share of scaled attention and of cosine attention "
        f"at 000's default temperature 1 (right); {LEVEL_LABEL} intervals over batches.",
        "Left, log-log: τ* "
        + ", ".join(f"{t:.3g} at d_k = {k}" for t, k in zip(tau[:, 0], d_tau))
        + ", beside 1/√d_k. Right: entropy share of scaled attention "
        + ", ".join(f"{h:.3f}" for h in h_scaled[:, 0])
        + "; of cosine attention at τ = 1 "
        + ", ".join(f"{h:.3f}" for h in h_cos[:, 0])
        + f" (d_k = {', '.join(map(str, d))}).",
        fig,
    )


def figures(results, documented):
    """Every figure of the temperature section, in reading order, under its sub-heading.

    `documented` maps claim ids to the numbers the documents print; the temperature claims
    are words ('argmax', 'uniform', 'sharper'), so no figure marks one.
    """
    groups = (
        (PART_SWEEP, [sweep_figure(results)]),
        (PART_TAU, [tau_heatmaps(results), tau_entropy_figure(results)]),
        (PART_BALANCED, [balanced_figure(results)]),
        (PART_COSINE, [cosine_figure(results)]),
    )
    return [replace(figure, part=part) for part, group in groups for figure in group]
