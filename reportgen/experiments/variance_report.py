"""Tables and figures of the variance family, from its results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen import claims
from reportgen.claims import fmt, fmt_interval
from reportgen.experiments.base import Table
from reportgen.experiments.variance import (
    CLAIM_DIMS,
    DOC_DEMOS,
    DOC_RANGE_PAIRS,
    DOC_RANGES,
    DOC_STD,
    DOC_VERIFY,
    DOC_VERIFY_SAMPLES,
    FACTOR_DK,
    FACTORS,
    INITS,
    S000_MEASURE,
    S000_PROBLEM,
    S000_SCALE,
    S000_STD,
    S000_VERIFY,
    S000_WHY,
    S001_MATTERS,
    S001_VAR,
    S001_WORKS,
    S002_EVIDENCE,
    S004_VAR,
)
from reportgen.stats import (
    Z95,
    Z99,
    mean_interval,
    quantile_range,
    variance_interval,
    variance_se,
    wilson_interval,
)


def _var_interval(row, z):
    # q·k with N(0,1) components has excess kurtosis 6/d_k.
    return variance_interval(row["var"], row["n"], 6 / row["d_k"], z)


def _unit_interval(row, z):
    # One coordinate of a uniform unit vector in R^d has excess kurtosis -6/(d+2).
    return variance_interval(row["unit_var"], row["n"], -6 / (row["d_k"] + 2), z)


def _kurtosis_interval(row, z):
    b = np.asarray(row["kurtosis_batches"])
    half = z * b.std(ddof=1) / math.sqrt(b.size)
    return row["kurtosis"] - half, row["kurtosis"] + half


def _by_dk(results):
    return {row["d_k"]: row for row in results["sweep"]}


def sweep_table(results):
    rows = []
    for r in results["sweep"]:
        d = r["d_k"]
        lo, hi = _var_interval(r, Z95)
        klo, khi = _kurtosis_interval(r, Z95)
        ulo, uhi = _unit_interval(r, Z95)
        rows.append(
            (
                str(d),
                f"{r['n']:,}".replace(",", " "),
                f"{fmt(r['var'], 3)} {fmt_interval(lo, hi, 3)}",
                f"{fmt(r['var'] / d, 4)} {fmt_interval(lo / d, hi / d, 4)}",
                f"{fmt(r['kurtosis'], 3)} {fmt_interval(klo, khi, 3)}",
                fmt(6 / d, 4),
                f"{fmt(r['unit_var'] * d, 4)} {fmt_interval(ulo * d, uhi * d, 4)}",
            )
        )
    return Table(
        "variance-sweep",
        "Dot-product statistics against d_k",
        "q, k with independent N(0, 1) components; intervals are 95%. Var intervals use the "
        "excess kurtosis 6/d_k of q·k; the kurtosis interval comes from independent batches. "
        "The last column is d·Var(u·v) for u = q/|q|, v = k/|k|, which should be 1.",
        ("d_k", "pairs", "Var(q·k)", "Var(q·k/√d_k)", "excess kurtosis", "6/d_k", "d·Var(u·v)"),
        tuple(rows),
    )


PART_SWEEP = "Variance, shape and unit vectors across d_k"
PART_000 = "000's tables, recomputed"
PART_002 = "002's experiment: 1 000 dot products per dimension"
PART_INIT = "The premise: unit-variance q and k at initialization"
PART_DEMOS = "The small demonstrations"
CI99 = "99% CI of the measurement"


def law_checks(results):
    by_dk = _by_dk(results)
    dims = [d for d in CLAIM_DIMS if d in by_dk]
    checks = []
    for d in dims:
        r = by_dk[d]
        checks.append(
            claims.check_within(
                f"Var(q·k) at d_k = {d}", S000_PROBLEM, f"d_k = {d}",
                fmt(r["var"], 3), _var_interval(r, Z99), CI99, 3, value=d,
            )
        )
    for d in dims:
        lo, hi = _var_interval(by_dk[d], Z99)
        checks.append(
            claims.check_within(
                f"Var(q·k/√d_k) at d_k = {d}", S000_SCALE, "1",
                fmt(by_dk[d]["var"] / d, 4), (lo / d, hi / d), CI99, 4,
            )
        )
    for d in dims:
        r = by_dk[d]
        checks.append(
            claims.check_within(
                f"excess kurtosis of q·k at d_k = {d} (q·k ~ N(0, d_k) has 0)", S000_PROBLEM,
                "0", f"{fmt(r['kurtosis'], 3)} (6/d_k = {fmt(6 / d, 3)})",
                _kurtosis_interval(r, Z99), CI99, 3,
            )
        )
    for d in dims:
        r = by_dk[d]
        checks.append(
            claims.check_within(
                f"Var(u·v), random unit vectors, d = {d}", S000_MEASURE, f"1/d = {fmt(1 / d, 6)}",
                fmt(r["unit_var"], 6), _unit_interval(r, Z99), CI99, 6, value=1 / d,
            )
        )
    if 1 in by_dk:
        checks.append(
            claims.check_within(
                "Var(XY) for independent X, Y ~ N(0, 1)", S001_VAR, "1",
                fmt(by_dk[1]["var"], 3), _var_interval(by_dk[1], Z99), CI99, 3,
            )
        )
    if 64 in by_dk:
        lo, hi = _var_interval(by_dk[64], Z99)
        checks.append(
            claims.check_within(
                "Std(q·k) at d_k = 64", S001_MATTERS, "8", fmt(math.sqrt(by_dk[64]["var"]), 3),
                (math.sqrt(lo), math.sqrt(hi)), CI99, 3,
            )
        )
        checks.append(
            claims.check_within(
                "Var(q·k/8) at d_k = 64", S001_WORKS, "1", fmt(by_dk[64]["var"] / 64, 4),
                (lo / 64, hi / 64), CI99, 4,
            )
        )
    if 512 in by_dk:
        r = by_dk[512]
        p20, lo20, _ = wilson_interval(r["beyond_20"], r["n"], Z99)
        p40, _, _ = wilson_interval(r["beyond_40"], r["n"], Z99)
        checks.append(
            claims.check_threshold(
                "unscaled scores at d_k = 512 'easily reach magnitudes of 20-40, or even higher'",
                S000_STD, "|q·k| ≥ 20 is common",
                f"P(|q·k| > 20) = {fmt(100 * p20, 1)}%, P(|q·k| > 40) = {fmt(100 * p40, 1)}%",
                lo20 >= 0.10,
                "'easily' read as: at least 1 score in 10 beyond 20 (lower 99% Wilson bound ≥ 10%)",
            )
        )
    return Table(
        "variance-laws",
        "The variance laws, checked",
        "Each closed-form statement of the documents against this run's sweep. A closed form is "
        "confirmed when it lies inside the measured value's 99% interval (99% rather than 95% "
        "because the report makes dozens of such checks; at 95% about one in twenty true "
        "statements would read as contradicted by chance).",
        checks=tuple(checks),
    )


def _doc_interval(results, d, n_doc):
    """Where a variance from n_doc pairs should fall: our estimate ± both sampling errors."""
    r = _by_dk(results)[d]
    kappa = 6 / d
    se = math.hypot(variance_se(r["var"], n_doc, kappa), variance_se(r["var"], r["n"], kappa))
    return r["var"] - Z99 * se, r["var"] + Z99 * se


def verify_tables(results):
    by_dk = _by_dk(results)
    rerun = {row["d_k"]: row for row in results["verify_rerun"]}
    mc, arith, plain = [], [], []
    rule = f"99% interval of a {DOC_VERIFY_SAMPLES:,}-pair sample variance".replace(",", " ")
    for d, unscaled, scaled, root in DOC_VERIFY:
        rr = rerun[d]
        if d in by_dk:
            lo, hi = _doc_interval(results, d, DOC_VERIFY_SAMPLES)
            mc.append(
                claims.check_within(
                    f"Unscaled Var, d_k = {d}", S000_VERIFY, unscaled,
                    f"{fmt(rr['unscaled'], 2)} (seed-42 rerun)", (lo, hi), rule, 2,
                )
            )
            mc.append(
                claims.check_within(
                    f"Scaled Var, d_k = {d}", S000_VERIFY, scaled,
                    f"{fmt(rr['scaled'], 4)} (seed-42 rerun)", (lo / d, hi / d), rule, 4,
                )
            )
        arith.append(claims.check_exact(f"sqrt(d_k), d_k = {d}", S000_VERIFY, root, math.sqrt(d)))
        # The document's own columns must agree: Scaled Var = Unscaled Var / d_k, to the
        # precision the unscaled value was printed at (±0.005) plus the scaled rounding.
        u = float(unscaled)
        lo, hi = (u - 0.005) / d - 0.00005, (u + 0.005) / d + 0.00005
        arith.append(
            claims.check_within(
                f"Scaled Var = Unscaled Var / d_k, d_k = {d}", S000_VERIFY, scaled,
                f"{unscaled} / {d} = {fmt(u / d, 5)}", (lo, hi),
                "the document's own unscaled value divided by d_k, with both roundings", 5,
            )
        )
        same = fmt(rr["unscaled"], 2) == unscaled and fmt(rr["scaled"], 4) == scaled
        plain.append((str(d), unscaled, fmt(rr["unscaled"], 2), scaled, fmt(rr["scaled"], 4), "yes" if same else "no"))
    return [
        Table(
            "variance-verify",
            "000 'Empirical Verification', documented beside measured",
            "The document's printed variances against the sampling interval its own sample size "
            "implies (10 000 pairs, excess kurtosis 6/d_k), centred on this run's larger sweep. "
            "'Measured' is the document's code rerun with its seed.",
            checks=tuple(mc),
        ),
        Table(
            "variance-verify-arithmetic",
            "000 'Empirical Verification': arithmetic of the printed table",
            "Columns that follow from others by arithmetic; a contradiction here means the "
            "printed output cannot all have come from one run of the code.",
            checks=tuple(arith),
        ),
        Table(
            "variance-verify-rerun",
            "000 'Empirical Verification' rerun with torch.manual_seed(42)",
            "The document's code run unchanged on this machine (CPU generator, float32). "
            "The seed fixes the stream, so a faithful printout would match digit for digit.",
            ("d_k", "Unscaled (doc)", "Unscaled (rerun)", "Scaled (doc)", "Scaled (rerun)", "same digits"),
            tuple(plain),
        ),
    ]


def std_tables(results):
    by_dk = _by_dk(results)
    checks, plain = [], []
    for d, root, bound in DOC_STD:
        checks.append(claims.check_exact(f"√d_k, d_k = {d}", S000_STD, root, math.sqrt(d)))
        checks.append(claims.check_exact(f"2σ bound, d_k = {d}", S000_STD, bound, 2 * math.sqrt(d)))
        if d in by_dk:
            r = by_dk[d]
            p, lo, hi = wilson_interval(r["inside_2sigma"], r["n"], Z95)
            plain.append((str(d), fmt(2 * math.sqrt(d), 2), f"{fmt(100 * p, 2)}% {fmt_interval(100 * lo, 100 * hi, 2)}"))
    return [
        Table(
            "variance-std",
            "000 'Standard Deviation' table, recomputed",
            "√d_k and the ±2σ bound are exact arithmetic, compared at the printed precision.",
            checks=tuple(checks),
        ),
        Table(
            "variance-coverage",
            "How much of q·k the ±2σ range holds",
            "Fraction of this run's q·k inside ±2√d_k, with a 95% Wilson interval. A normal "
            "distribution holds 95.45%; q·k has heavier tails at small d_k (excess kurtosis 6/d_k).",
            ("d_k", "2√d_k", "inside ±2σ"),
            tuple(plain),
        ),
    ]


def range_tables(results):
    checks, plain = [], []
    proportional = True
    for row, (d, bound) in zip(results["ranges"], DOC_RANGES):
        lo, hi = quantile_range(row["max_abs"], 0.99)
        reps = len(row["max_abs"])
        checks.append(
            claims.check_within(
                f"histogram range of {DOC_RANGE_PAIRS} dot products, d = {d}", S002_EVIDENCE,
                f"−{bound} to +{bound}",
                f"[{fmt(row['first_min'], 1)}, {fmt(row['first_max'], 1)}] in this run",
                (lo, hi), f"central 99% of max|q·k| over {reps} repeats of {DOC_RANGE_PAIRS} pairs",
                1, value=float(bound),
            )
        )
        vmean, vlo, vhi = mean_interval(row["variances"], Z99)
        proportional &= vlo / d <= 1 <= vhi / d
        vq = quantile_range(row["variances"], 0.95)
        plain.append(
            (str(d), f"{fmt(row['first_var'], 2)}", fmt_interval(*vq, 2), f"{fmt(vmean / d, 4)} {fmt_interval(vlo / d, vhi / d, 4)}")
        )
    checks.append(
        claims.check_threshold(
            "'as dimension increases, variance increases proportionally'", S002_EVIDENCE,
            "Var ∝ d", "Var/d for d = " + ", ".join(r[0] for r in plain) + ": " + ", ".join(r[3].split()[0] for r in plain),
            proportional, "Var/d's 99% interval (mean over repeats) contains 1 at every d",
        )
    )
    return [
        Table(
            "variance-ranges",
            "002 'Experimental Evidence': histogram ranges of 1 000 dot products",
            "The document's stated range against the spread of the largest |q·k| among 1 000 pairs.",
            checks=tuple(checks),
        ),
        Table(
            "variance-ranges-var",
            "002's variance experiment (np.var of 1 000 dot products)",
            "One run as 002's code prints it, the 95% range of that printout over repeats, and "
            "Var/d averaged over repeats with a 95% interval.",
            ("d", "Var, this run", "95% of runs print", "Var/d over repeats"),
            tuple(plain),
        ),
    ]


def init_tables(results):
    checks, plain = [], []
    for row in results["init"]:
        label, comp_exact, score_exact = INITS[row["init"]]
        c, clo, chi = mean_interval(row["comp"], Z95)
        s, slo, shi = mean_interval(row["score"], Z95)
        c99 = mean_interval(row["comp"], Z99)
        where = f"d_model = {row['d_model']}, d_k = {row['d_k']}"
        plain.append(
            (label, where, f"{fmt(c, 3)} {fmt_interval(clo, chi, 3)}", fmt(comp_exact, 3),
             f"{fmt(s, 3)} {fmt_interval(slo, shi, 3)}", fmt(score_exact, 3))
        )
        checks.append(
            claims.check_within(
                f"Var(q_i) with {label}, {where}", S004_VAR, "1", fmt(c, 3), c99[1:],
                f"99% interval over {len(row['comp'])} weight draws", 3,
            )
        )
    return [
        Table(
            "variance-init",
            "The premise 'components have variance 1 under standard initialization'",
            "q = W_q x and k = W_k x' for independent x, x' ~ N(0, I); means over weight draws "
            "with 95% intervals; closed forms: Var(q_i) = d_model·Var(W_ij), Var(q·k/√d_k) = Var(q_i)².",
            ("init", "shape", "Var(q_i)", "closed form", "Var(q·k/√d_k)", "closed form"),
            tuple(plain),
        ),
        Table(
            "variance-init-checks",
            "Unit-variance premise, checked (000 'Why √d_k Specifically?', 004 §1)",
            "004 names Xavier and Kaiming initialization; 000 says √d_k normalizes to unit "
            "variance 'assuming standard initialization'.",
            checks=tuple(checks),
        ),
    ]


def factor_table(results):
    r = _by_dk(results)[FACTOR_DK]
    lo, hi = _var_interval(r, Z99)
    checks = []
    for label, divisor, doc_text, doc_value in FACTORS:
        c2 = divisor(FACTOR_DK) ** 2
        checks.append(
            claims.check_within(
                f"Var(q·k / {label}) at d_k = {FACTOR_DK}", S000_WHY, doc_text,
                fmt(r["var"] / c2, 5), (lo / c2, hi / c2), "measured value's 99% interval", 5,
                value=doc_value(FACTOR_DK),
            )
        )
    return Table(
        "variance-factors",
        "000 'Why √d_k Specifically?': variance under each scaling factor",
        f"The same q·k sample at d_k = {FACTOR_DK}, divided by each factor.",
        checks=tuple(checks),
    )


def demo_table(results):
    checks = []
    for row, (name, source, shape, raw_doc, scaled_doc) in zip(results["demos"], DOC_DEMOS):
        d_k = shape[-1]
        raw = np.asarray(row["raw_vars"])
        reps = raw.size
        lo, hi = quantile_range(raw, 0.99)
        mean = raw.mean()
        rule = f"central 99% of this statistic over {reps} repeats at shape {tuple(shape)}"
        checks.append(
            claims.check_within(
                f"{name}: raw score variance", source, f"≈ {raw_doc}",
                f"{fmt(raw[0], 2)} in one run; mean {fmt(mean, 2)}", (lo, hi), rule, 1,
                value=float(raw_doc),
            )
        )
        checks.append(
            claims.check_within(
                f"{name}: scaled score variance", source, f"≈ {scaled_doc}",
                f"{fmt(raw[0] / d_k, 3)} in one run; mean {fmt(mean / d_k, 3)}",
                (lo / d_k, hi / d_k), rule, 3, value=float(scaled_doc),
            )
        )
    return Table(
        "variance-demos",
        "The small demonstrations: what one run can print",
        "A handful of scores gives a noisy variance: the interval is where 99% of runs land. "
        "A printed '~64.0' suggests a precision these sample sizes cannot give.",
        checks=tuple(checks),
    )


def tables(results):
    """Every table of the variance section, in reading order, under its sub-heading."""
    groups = (
        (PART_SWEEP, [sweep_table(results), law_checks(results)]),
        (PART_000, [*verify_tables(results), *std_tables(results), factor_table(results)]),
        (PART_002, range_tables(results)),
        (PART_INIT, init_tables(results)),
        (PART_DEMOS, [demo_table(results)]),
    )
    return [replace(table, part=part) for part, group in groups for table in group]
