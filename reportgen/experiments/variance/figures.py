"""Figures of the variance family, drawn from its results alone."""

from dataclasses import replace

import numpy as np

from reportgen.experiments.family import Figure
from reportgen.experiments.stats import LEVEL, LEVEL_LABEL, Z, mean_interval, quantile_range
from reportgen.experiments.variance import PART_002, PART_DEMOS, PART_INIT, PART_SWEEP
from reportgen.experiments.variance.intervals import kurtosis_interval, unit_interval, var_interval
from reportgen.experiments.variance.params import DOC_DEMOS, DOC_RANGE_DIMS, INITS
from reportgen.plotting import subplots


def _errorbar(ax, x, y, lo, hi, **kwargs):
    y, lo, hi = map(np.asarray, (y, lo, hi))
    # An estimate may lie just beyond an interval clipped at the parameter's bound (Var(u·v) ≤ 1
    # at d = 1, where u·v = ±1): no whisker on that side rather than a negative one.
    ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o", capsize=2, **kwargs)


def variance_figure(results):
    sweep = results["sweep"]
    d = np.array([r["d_k"] for r in sweep])
    var = np.array([r["var"] for r in sweep])
    lo, hi = np.array([var_interval(r, Z) for r in sweep]).T
    fig, (left, right) = subplots(1, 2, height=2.7)
    _errorbar(left, d, var, lo, hi, label=f"measured, {LEVEL_LABEL} CI")
    left.plot(d, d, "--", color="#555555", label="Var = d_k", zorder=0)
    left.set(xscale="log", yscale="log", xlabel="d_k", ylabel="Var(q·k)", title="Unscaled")
    left.legend()
    _errorbar(right, d, var / d, lo / d, hi / d, label=f"measured, {LEVEL_LABEL} CI", color="#d1495b")
    right.axhline(1, ls="--", color="#555555", label="Var = 1", zorder=0)
    right.set(xscale="log", xlabel="d_k", ylabel="Var(q·k / √d_k)", title="Scaled by 1/√d_k")
    right.legend()
    return Figure(
        "variance-vs-dk",
        f"Variance of q·k (left) and of q·k/√d_k (right) against d_k, {sweep[0]['n']:,} pairs "
        f"per point, {LEVEL_LABEL} confidence intervals (small at this sample size).".replace(",", " "),
        f"Two plots against d_k on a log axis. Left, log-log: measured Var(q·k) from "
        f"{var[0]:.3g} at d_k = {d[0]} to {var[-1]:.4g} at d_k = {d[-1]}, beside the line "
        f"Var = d_k. Right: Var(q·k/√d_k) between {(var / d).min():.3f} and "
        f"{(var / d).max():.3f}, beside the line at 1.",
        fig,
    )


def kurtosis_figure(results):
    sweep = results["sweep"]
    d = np.array([r["d_k"] for r in sweep])
    k = np.array([r["kurtosis"] for r in sweep])
    lo, hi = np.array([kurtosis_interval(r, Z) for r in sweep]).T
    fig, ax = subplots(height=2.6)
    _errorbar(ax, d, k, lo, hi, label=f"measured excess kurtosis, {LEVEL_LABEL} CI")
    grid = np.geomspace(d.min(), d.max(), 200)
    ax.plot(grid, 6 / grid, "--", color="#555555", label="6/d_k (closed form)", zorder=0)
    ax.axhline(0, color="#999999", lw=0.8)
    ax.set(xscale="log", yscale="symlog", xlabel="d_k", ylabel="excess kurtosis of q·k")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.legend()
    return Figure(
        "kurtosis-vs-dk",
        f"Excess kurtosis of q·k against d_k with {LEVEL_LABEL} intervals from independent batches. "
        "A normal distribution has 0; q·k has 6/d_k, so 'q·k ~ N(0, d_k)' holds only for large d_k.",
        f"Excess kurtosis of q·k against d_k (log x, symmetric-log y): measured {k[0]:.2f} at "
        f"d_k = {d[0]} and {k[-1]:.3f} at d_k = {d[-1]}, beside the dashed curve 6/d_k.",
        fig,
    )


def unit_vector_figure(results):
    sweep = results["sweep"]
    d = np.array([r["d_k"] for r in sweep])
    var = np.array([r["unit_var"] for r in sweep])
    lo, hi = np.array([unit_interval(r, Z) for r in sweep]).T
    fig, ax = subplots(height=2.5)
    _errorbar(ax, d, var, lo, hi, label=f"Var(u·v), {LEVEL_LABEL} CI", color="#2e8b57")
    ax.plot(d, 1 / d, "--", color="#555555", label="1/d", zorder=0)
    ax.set(xscale="log", yscale="log", xlabel="d", ylabel="Var(u·v)")
    ax.legend()
    return Figure(
        "unit-vectors",
        f"Random unit vectors: the variance of u·v against the dimension, with {LEVEL_LABEL} intervals, "
        "beside 1/d.",
        f"Log-log plot of Var(u·v) against d: measured {var[0]:.3g} at d = {d[0]} and "
        f"{var[-1]:.3g} at d = {d[-1]}, beside the dashed line 1/d "
        f"({1 / d[-1]:.3g} at d = {d[-1]}).",
        fig,
    )


# The claims whose documented values the figures mark (reportgen/claims/NNN.toml). A course's
# own claims (the `claims` setting) hold none of them: the figures then mark nothing.
RANGE_CLAIMS = {3: "002.range-d3", 100: "002.range-d100", 1000: "002.range-d1000"}
DEMO_CLAIMS = ("000.demo-raw-var", "003.check-raw-var")


def range_figure(results, documented):
    rows = results["ranges"]
    bounds = [documented.get(RANGE_CLAIMS[d]) for d in DOC_RANGE_DIMS]
    fig, axes = subplots(1, len(rows), height=2.5)
    for ax, row, d, bound in zip(axes, rows, DOC_RANGE_DIMS, bounds):
        edges = np.asarray(row["hist_edges"])
        counts = np.asarray(row["hist_counts"])
        ax.stairs(counts, edges, fill=True, color="#1f5fa8", alpha=0.7, label="1 000 pairs")
        b = float(bound) if bound is not None else 0.0
        if bound is not None:
            ax.axvspan(-b, b, color="#e8a33d", alpha=0.25, label=f"002: −{b:g} to +{b:g}")
        ax.set(title=f"d = {d}", xlabel="q·k")
        lim = max(abs(edges[0]), abs(edges[-1]), b) * 1.05
        ax.set_xlim(-lim, lim)
    axes[0].set_ylabel("count")
    axes[0].legend(loc="upper left", fontsize=6.5)
    stated = None not in bounds
    return Figure(
        "dot-product-histograms",
        "Histograms of 1 000 dot products for d = 3, 100 and 1 000 (002's experiment, this run)"
        + (", with the range 002 states for each shaded." if stated else "."),
        "Three histograms of this run's 1 000 dot products" + (", with 002's stated range shaded: " if stated else ": ")
        + "; ".join(
            f"d = {d}: data from {row['first_min']:.1f} to {row['first_max']:.1f}"
            + (f", stated ±{bound:g}" if bound is not None else "")
            for row, d, bound in zip(rows, DOC_RANGE_DIMS, bounds)
        )
        + ".",
        fig,
    )


def init_figure(results):
    rows = results["init"]
    labels = [f"{r['d_model']}\n→{r['d_k']}" for r in rows]
    comp = [mean_interval(r["comp"], Z) for r in rows]
    score = [mean_interval(r["score"], Z) for r in rows]
    x = np.arange(len(rows))
    fig, ax = subplots(height=2.9)
    for offset, values, name in ((-0.2, comp, "Var(q_i)"), (0.2, score, "Var(q·k/√d_k)")):
        m, lo, hi = np.array(values).T
        ax.bar(x + offset, m, width=0.38, yerr=[m - lo, hi - m], capsize=2, label=name)
    ax.axhline(1, ls="--", color="#555555", label="premise: 1")
    ax.set_xticks(x, labels, fontsize=6.5)
    # One label per initialization under its group of shapes: a label per bar overlapped.
    short = {"kaiming_uniform": "nn.Linear\ndefault", "xavier_mha": "Xavier, fused\n(MultiheadAttention)",
             "xavier_linear": "Xavier, separate\nnn.Linear", "normal": "N(0, 1/d_model)"}
    for init in dict.fromkeys(r["init"] for r in rows):
        members = [i for i, r in enumerate(rows) if r["init"] == init]
        ax.annotate(short.get(init, INITS[init][0]), xy=(np.mean(members), 0), xycoords=("data", "axes fraction"),
                    xytext=(0, -27), textcoords="offset points", ha="center", va="top", fontsize=7.5)
        if members[0] > 0:
            ax.axvline(members[0] - 0.5, color="#bbbbbb", lw=0.8)
    ax.set_ylabel("variance")
    ax.set_xlabel("initialization of W_q, d_model → d_k", labelpad=30)
    ax.legend(loc="upper left")
    return Figure(
        "init-premise",
        "Component variance of q = W_q x and variance of the scaled score under three "
        f"initializations, for each (d_model → d_k); means over weight draws with {LEVEL_LABEL} intervals.",
        "Grouped bars per init and shape, component variance then scaled-score variance, "
        "beside a dashed line at the premised 1: "
        + "; ".join(
            f"{INITS[r['init']][0]} {r['d_model']}→{r['d_k']}: {c[0]:.3f} and {sc[0]:.3f}"
            for r, c, sc in zip(rows, comp, score)
        )
        + ".",
        fig,
    )


def demo_figure(results, documented):
    rows = results["demos"]
    printed = [documented.get(claim) for claim in DEMO_CLAIMS]
    fig, axes = subplots(1, len(rows), height=2.4)
    for ax, row, (name, _), raw_doc in zip(axes, rows, DOC_DEMOS, printed):
        values = np.asarray(row["raw_vars"])
        ax.hist(values, bins=50, color="#6b4c9a", alpha=0.8)
        if raw_doc is not None:
            ax.axvline(float(raw_doc), color="#d1495b", ls="--", label=f"documented ≈ {raw_doc:g}")
            ax.legend(loc="upper right")
        ax.set(title=name, xlabel="raw score variance printed by one run")
    axes[0].set_ylabel("runs")
    return Figure(
        "demo-spread",
        f"What the small demonstrations print: the raw score variance over "
        f"{len(rows[0]['raw_vars']):,} repeats of each demo at its own shape.".replace(",", " "),
        "Histograms of the raw score variance one run of each demo prints"
        + (", with the documented value marked: " if None not in printed else ": ")
        + "; ".join(
            f"{name}: {LEVEL_LABEL} of runs between {quantile_range(row['raw_vars'], LEVEL)[0]:.1f} and "
            f"{quantile_range(row['raw_vars'], LEVEL)[1]:.1f}" + (f", documented {raw_doc:g}" if raw_doc is not None else "")
            for row, (name, _), raw_doc in zip(rows, DOC_DEMOS, printed)
        )
        + ".",
        fig,
    )


def figures(results, documented):
    """Every figure of the variance section, in reading order, under its sub-heading.

    `documented` maps a claim id to the number its document prints, for the figures
    that mark it.
    """
    groups = (
        (PART_SWEEP, [variance_figure(results), kurtosis_figure(results), unit_vector_figure(results)]),
        (PART_002, [range_figure(results, documented)]),
        (PART_INIT, [init_figure(results)]),
        (PART_DEMOS, [demo_figure(results, documented)]),
    )
    return [replace(figure, part=part) for part, group in groups for figure in group]
