"""Figures of the gradients family, drawn from its results and measures (never its tables)."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.gradients import PART_DEPTH, PART_LAYER, PART_NORMS
from reportgen.experiments.gradients.measures import depth_summary, norm_curve
from reportgen.experiments.stats import LEVEL_LABEL, Z, mean_interval
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.plotting import subplots

SCALED, UNSCALED = "#1f5fa8", "#d1495b"


def _band(ax, x, mean, lo, hi, **kwargs):
    """A line with its confidence band; on a log axis the band's floor is a tenth of the mean."""
    line = ax.plot(x, mean, **kwargs)[0]
    ax.fill_between(x, np.maximum(lo, mean / 10), hi, color=line.get_color(), alpha=0.2, lw=0)
    return line


def norm_curve_figure(results):
    curves = results["curves"]["curves"]
    fig, axes = subplots(1, 2, height=2.7, sharey=True)
    peaks, lows = [], []
    for ax, norm, title in zip(axes, ("frobenius", "spectral"), ("‖J‖_F", "‖J‖_2 (spectral)")):
        for c in curves:
            sigmas, mean, lo, hi, median = norm_curve(results, c["n"], norm)
            line = _band(ax, sigmas, mean, lo, hi, label=f"n = {c['n']}")
            ax.plot(sigmas, median, ":", color=line.get_color(), lw=1)
            lows.append(mean.min())
            if norm == "frobenius":
                peaks.append((c["n"], sigmas[int(np.argmax(mean))], mean.max(), mean[0], mean[-1], median[-1]))
        ax.axvline(1, color="#555555", ls=":", lw=1)
        ax.set(xscale="log", yscale="log", xlabel="std of the logits σ", title=title)
    axes[0].set_ylim(max(min(lows) / 2, 1e-8), 1)
    axes[0].set_ylabel("mean norm of the softmax Jacobian")
    axes[0].legend(loc="lower left")
    counts = ", ".join(f"{c['samples']}" for c in curves)
    return Figure(
        "jacobian-norm-vs-sigma",
        "Norm of the softmax Jacobian for i.i.d. N(0, σ²) logits over n keys: mean (solid) with "
        f"{LEVEL_LABEL} confidence bands and median (dotted), over {counts} vectors for n = "
        + ", ".join(str(c["n"]) for c in curves)
        + "; the vertical line is σ = 1, where scaled q·k sits. Unscaled q·k has σ = √d_k.",
        "Two log-log plots of the mean Jacobian norm against σ, one line per number of keys n. "
        "Frobenius norm: "
        + "; ".join(
            f"n = {k}: mean {first:.3g} at the smallest σ, peak {top:.3g} at σ = {s:g}, {last:.2g} at the "
            f"largest σ (median {med:.2g})"
            for k, s, top, first, last, med in peaks
        )
        + ".",
        fig,
    )


def dk_figure(results):
    rows = results["dk"]["rows"]
    keys = sorted({r["n"] for r in rows})
    samples = results["dk"]["samples"]
    fig, axes = subplots(1, len(keys), height=2.6, sharey=True)
    axes = np.atleast_1d(axes)
    alt = []
    for ax, n in zip(axes, keys):
        mine = sorted((r for r in rows if r["n"] == n), key=lambda r: r["d_k"])
        d = np.array([r["d_k"] for r in mine])
        for variant, color, label in (("scaled", SCALED, "÷ √d_k"), ("raw", UNSCALED, "unscaled")):
            for norm, style in (("frobenius", "-"), ("spectral", "--")):
                stats = np.array([r[variant][norm] for r in mine])
                half = Z * stats[:, 1] / math.sqrt(samples)
                name = "‖J‖_F" if norm == "frobenius" else "‖J‖_2"
                ax.errorbar(d, stats[:, 0], yerr=half, fmt=style, marker="o", ms=3, capsize=2,
                            color=color, label=f"{label}, {name}")
            fro = [r[variant]["frobenius"][0] for r in mine]
            alt.append(f"n = {n}, {label}: ‖J‖_F from {fro[0]:.3g} at d_k = {d[0]} to {fro[-1]:.3g} at d_k = {d[-1]}")
        ax.set(xscale="log", yscale="log", xlabel="d_k", title=f"n = {n} keys")
        ax.set_xscale("log", base=2)
    axes[0].set_ylabel("mean Jacobian norm")
    axes[0].legend(loc="lower left", fontsize=6.5)
    return Figure(
        "jacobian-norm-vs-dk",
        f"Mean softmax Jacobian norm for q·k over n keys, q, k ~ N(0, I_dk), {samples} queries per "
        f"point with {LEVEL_LABEL} intervals. Unscaled logits have standard deviation √d_k, so each "
        "unscaled curve retraces the σ curves of the figure above; divided by √d_k, σ stays 1.",
        "Log-log plots against d_k, one panel per number of keys: " + "; ".join(alt) + ".",
        fig,
    )


def _layer_series(results, key):
    d = np.array([r["d_k"] for r in results["layer"]])
    out = {}
    for variant in ("scaled", "unscaled"):
        out[variant] = np.array([mean_interval(r[variant][key], Z) for r in results["layer"]]).T
    return d, out


def layer_figure(results):
    panels = (("scores", "‖∂L/∂S‖ (softmax input)"), ("W_q", "‖∂L/∂W_q‖"), ("W_v", "‖∂L/∂W_v‖"))
    fig, axes = subplots(1, 3, height=2.5)
    alt = []
    for ax, (key, title) in zip(axes, panels):
        d, series = _layer_series(results, key)
        for variant, color in (("scaled", SCALED), ("unscaled", UNSCALED)):
            m, lo, hi = series[variant]
            ax.errorbar(d, m, yerr=[m - lo, hi - m], fmt="-o", ms=3, capsize=2, color=color, label=variant)
            alt.append(f"{title} {variant}: {m[0]:.3g} at d_k = {d[0]}, {m[-1]:.3g} at d_k = {d[-1]}")
        if key == "scores":
            _, median = _layer_series(results, "scores_row_median")
            for variant, color in (("scaled", SCALED), ("unscaled", UNSCALED)):
                ax.plot(d, median[variant][0], ":", color=color, label=f"{variant}, median row")
        ax.set(xscale="log", yscale="log", xlabel="d_k", title=title)
        ax.set_xscale("log", base=2)
    axes[0].legend(fontsize=6.5)
    draws = len(results["layer"][0]["scaled"]["scores"])
    top = results["layer"][-1]
    saturated = np.mean(top["unscaled"]["saturated_rows"])
    ratio = np.mean(top["unscaled"]["W_q"]) / np.mean(top["scaled"]["W_q"])
    return Figure(
        "layer-gradients",
        f"Gradient norms at initialization through one attention layer, scaled (÷ √d_k) and "
        f"unscaled, mean over {draws} draws with {LEVEL_LABEL} intervals; dotted: the median query row of "
        f"∂L/∂S. At d_k = {top['d_k']}, {saturated:.0%} of unscaled query rows are saturated "
        f"(max p > {THRESHOLDS['saturated_row']}), while the unscaled ∂L/∂W_q is {ratio:.3g} times the "
        "scaled one.",
        "Three log-log panels against d_k: " + "; ".join(alt) + ".",
        fig,
    )


def layer_paths_figure(results):
    fig, (left, right) = subplots(1, 2, height=2.5)
    alt = []
    d, eff = _layer_series(results, "eff_keys")
    for variant, color in (("scaled", SCALED), ("unscaled", UNSCALED)):
        m, lo, hi = eff[variant]
        left.errorbar(d, m, yerr=[m - lo, hi - m], fmt="-o", ms=3, capsize=2, color=color, label=variant)
        alt.append(f"1/Σp² {variant}: {m[0]:.3g} at d_k = {d[0]}, {m[-1]:.3g} at d_k = {d[-1]}")
    left.set(xscale="log", xlabel="d_k", ylabel="keys receiving weight, 1/Σp²", ylim=(0, None))
    left.set_xscale("log", base=2)
    left.legend()
    for key, style, label in (("x_via_v", "-", "through V"), ("x_via_qk", "--", "through Q, K")):
        d, series = _layer_series(results, key)
        for variant, color in (("scaled", SCALED), ("unscaled", UNSCALED)):
            m, lo, hi = series[variant]
            right.errorbar(d, m, yerr=[m - lo, hi - m], fmt=style, marker="o", ms=3, capsize=2, color=color,
                           label=f"{variant}, {label}")
            alt.append(f"∂L/∂x {label} {variant}: {m[-1]:.3g} at d_k = {d[-1]}")
    right.set(xscale="log", yscale="log", xlabel="d_k", ylabel="‖∂L/∂x‖")
    right.set_xscale("log", base=2)
    right.legend(fontsize=6.5)
    return Figure(
        "layer-paths",
        "Left: effective number of keys a query attends to (1/Σp², mean over queries and draws). "
        "Right: the gradient reaching the layer's input, split into the part through the values and "
        f"the part through the scores. Both panels: {LEVEL_LABEL} intervals.",
        "Two panels against d_k: " + "; ".join(alt) + ".",
        fig,
    )


def depth_figure(results):
    rows = results["depth"]
    fig, axes = subplots(1, len(rows), height=2.6, sharey=True)
    axes = np.atleast_1d(axes)
    alt = []
    for ax, row in zip(axes, rows):
        L = row["depth"]
        layers = np.arange(L + 1)
        for variant, color in (("scaled", SCALED), ("unscaled", UNSCALED)):
            stats = np.array([depth_summary(row, variant, "stream", l) for l in layers]).T
            _band(ax, layers, *stats, color=color, marker="o", ms=3, label=f"{variant}: ‖∂L/∂h_l‖")
            wq = np.array([depth_summary(row, variant, "W_q", l)[0] for l in range(L)])
            ax.plot(layers[:-1], wq, "--", color=color, label=f"{variant}: ‖∂L/∂W_q‖ of block l+1")
            alt.append(
                f"d = {row['d_model']}, {variant}: ‖∂L/∂h‖ {stats[0][0]:.3g} at the input, "
                f"{stats[0][-1]:.3g} at the top"
            )
        ax.set(yscale="log", xlabel="layer l (0 = input)", title=f"d_model = d_k = {row['d_model']}")
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0].set_ylabel("gradient norm")
    axes[0].legend(fontsize=6.5)
    draws = len(rows[0]["scaled"]["stream"])
    growth = [
        depth_summary(r, "unscaled", "stream", 0)[0] / depth_summary(r, "unscaled", "stream", r["depth"])[0]
        for r in rows
    ]
    return Figure(
        "depth-gradients",
        f"Gradient norms per layer through a stack of {rows[0]['depth']} pre-LayerNorm attention "
        f"blocks at initialization, mean over {draws} draws with {LEVEL_LABEL} bands. Unscaled, the "
        "input receives " + ", ".join(f"{x:.3g}×" for x in growth) + " the gradient at the top "
        "(d = " + ", ".join(str(r["d_model"]) for r in rows) + ").",
        "Log-scale gradient norm against layer, one panel per width: " + "; ".join(alt) + ".",
        fig,
    )


def figures(results, documented):
    """Every figure of the gradients section, in reading order, under its sub-heading.

    No figure marks a documented number, so `documented` (claim id -> number) is not used.
    """
    groups = (
        (PART_NORMS, [norm_curve_figure(results), dk_figure(results)]),
        (PART_LAYER, [layer_figure(results), layer_paths_figure(results)]),
        (PART_DEPTH, [depth_figure(results)]),
    )
    return [replace(figure, part=part) for part, group in groups for figure in group]
