"""Training family, tables: its data tables and where its claims table sits, from results alone."""

import math

import numpy as np

from reportgen.experiments.cells import Interval, Num, Phrase, change
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.stats import LEVEL
from reportgen.experiments.training import PART_CURVES, PART_SWEEP, PART_TEMPERATURE, PART_VERDICTS
from reportgen.experiments.training.params import BLOWUP, REACH, SPIKE_NATS, SPIKE_SMOOTHING
from reportgen.experiments.training.sweep import MAIN, Sweep, lr_text


def instability_rule(results):
    """The definition of an unstable run, in words."""
    return (
        f"a run is unstable when it blows up (non-finite loss, or a {results['window']}-step window "
        f"mean above {BLOWUP}·ln 16 nats) or has a loss spike (its {SPIKE_SMOOTHING}-step moving "
        f"average rises above twice its running minimum and at least {SPIKE_NATS} nats above it)"
    )


def lr_cell(lr):
    """A rate of the training grid as a cell: one significant digit, 1e-3 (lr_text's form)."""
    return "none" if lr is None else Num(lr, 0, "sci")


def range_cell(lrs):
    """The working rates as a cell: the lowest … the highest (how many), range_text's form."""
    if not lrs:
        return "none"
    return lr_cell(lrs[0]) if len(lrs) == 1 else Phrase("{} … {} ({})", (lr_cell(lrs[0]), lr_cell(lrs[-1]), len(lrs)))


def sweep_table(results):
    s = Sweep(results)
    rows = []
    for d in s.dims:
        for v in MAIN:
            lr = s.tuned(d, v)
            acc, lo, hi = s.final_acc(d, v, lr)
            lo, hi = max(lo, 0.0), min(hi, 1.0)
            steps, fast_lr = s.fastest(d, v)
            runs = s.runs(d, v)
            rows.append(
                (
                    d,
                    s.labels[v],
                    lr_cell(lr),
                    Num(s.final_loss(d, v, lr), 2, "sig"),
                    Interval(100 * acc, 100 * lo, 100 * hi, 1),
                    "never" if steps is None else Phrase("{} at {}", (Num(steps, 0), lr_cell(fast_lr))),
                    range_cell(s.working_lrs(d, v)),
                    Phrase("{} / {} of {}", (sum(m["diverged"] for m in runs), sum(m["spikes"] > 0 for m in runs),
                                             len(runs))),
                )
            )
    return Table(
        "training-sweep",
        "Each variant at its tuned learning rate, and the range of rates that work",
        f"{len(s.lrs)} Adam learning rates from {lr_text(min(s.lrs))} to {lr_text(max(s.lrs))} × "
        f"{results['seeds']} seeds, {results['steps']} steps of {results['batch']} fresh sequences. "
        "Tuned rate: lowest late loss (mean over seeds and over the last quarter of training). "
        f"Working rates: every seed reaches {REACH:.0%} accuracy with no "
        "blow-up or spike. Last column: runs with a blow-up / with a spike, over all rates and seeds.",
        ("d_k", "scores", "tuned lr", "late loss", Phrase("late acc. % ({} CI)", (Num(LEVEL, 0, "percent"),)),
         "fewest steps to 90%", "working rates", "blow-ups / spiky runs"),
        tuple(rows),
        PART_SWEEP,
    )


def curves_table(results):
    s = Sweep(results)
    rows = []
    for d in s.dims:
        for v in MAIN:
            lr = s.tuned(d, v)
            seeds = s.seeds(d, v, lr)

            def mean_of(key, at):
                values = [m["curves"][key][at] for m in seeds if m["curves"][key][at] is not None]
                return float(np.mean(values)) if values else math.nan

            rows.append(
                (
                    d, s.labels[v], lr_cell(lr),
                    change(Num(mean_of("entropy", 0), 2), Num(mean_of("entropy", -1), 2, "sig")),
                    change(Num(mean_of("max_logit", 0), 3, "sig"), Num(mean_of("max_logit", -1), 3, "sig")),
                    change(Num(mean_of("loss", 0), 2), Num(mean_of("loss", -1), 2, "sig")),
                )
            )
    return Table(
        "training-curves",
        "001 exercise 3 answered: what training with and without the scale looks like",
        f"Each variant at its tuned rate, mean over seeds, first → last {results['window']}-step window: "
        f"attention entropy (nats; uniform is ln {results['task']['pairs']} = "
        f"{math.log(results['task']['pairs']):.2f}), the largest |score| in the window, and the loss.",
        ("d_k", "scores", "tuned lr", "entropy", "max |score|", "loss"),
        tuple(rows),
        PART_CURVES,
    )


def temperature_table(results):
    s = Sweep(results)
    starts = (("learned", "1/√d_k"), ("learned_from_1", "1"), ("learned_from_1/d", "1/d_k"), ("qknorm", "√d_k (cosine g)"))
    rows = []
    for d in s.dims:
        for v, start in starts:
            finals = []
            for lr in s.lrs:
                ends = [m["curves"]["scale"][-1] for m in s.seeds(d, v, lr)]
                ends = [e for e in ends if e is not None]
                # The multiplier in units of 1/√d_k: 1 means the end point is the standard scale.
                finals.append(Num(math.exp(np.mean(np.log(ends))) * math.sqrt(d) if ends else None, 3, "sig"))
            rows.append((d, start, *finals))
    return Table(
        "training-temperature",
        "Where the learnable multiplier ends, in units of 1/√d_k",
        "Final score multiplier c (s = c·q·k, learned as log c with the same Adam rate) times "
        "√d_k, geometric mean over seeds, for each starting point and learning rate; for the "
        "cosine variant, the learned g on cos(q, k). 1 means it ended at the standard 1/√d_k.",
        ("d_k", "starts at", *[lr_cell(lr) for lr in s.lrs]),
        tuple(rows),
        PART_TEMPERATURE,
    )


def tables(results):
    """The training section's tables in reading order: data tables and the claims-table slot."""
    return [
        sweep_table(results),
        curves_table(results),
        temperature_table(results),
        ClaimTable(
            "training-verdicts",
            "The documents' training claims against the sweep",
            "Every row compares variants each at its own learning rates (never at a single one); "
            "thresholds are in the tolerance column. Unstable: " + instability_rule(results) + ".",
            PART_VERDICTS,
        ),
    ]
