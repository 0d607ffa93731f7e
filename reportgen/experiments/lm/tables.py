"""Language-model family, tables: its data tables and where its claims table sits, from results alone."""

import math

import numpy as np

from reportgen.experiments.cells import Interval, Num, Phrase, Vector, change, vector
from reportgen.experiments.evidence import SPIKE_SHARE
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.lm import PART_ATTENTION, PART_BATTERY, PART_CORPUS, PART_SWEEP, PART_VERDICTS
from reportgen.experiments.lm.baselines import GATE_BITS
from reportgen.experiments.lm.battery_measures import Battery
from reportgen.experiments.lm.params import (
    BATTERY_SCALINGS,
    COLLAPSED_ENTROPY,
    LABELS,
    NAMES,
    SATURATED_ROW,
    TASKS,
)
from reportgen.experiments.lm.sweep import Sweep, alpha_fit, collapsed_share, lr_text, mean_entropy, peak_logit
from reportgen.experiments.stats import LEVEL_LABEL


def _num(x, digits=2):
    """A measured number, "—" where a run left none (or a non-finite one)."""
    return Num(None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x, digits)


def _lr(lr):
    """A rate of the language-model grid as a cell: two significant digits (lr_text's form)."""
    return "none" if lr is None else Num(lr, 2, "sig")


def ordered(s, variants=NAMES):
    """(configuration, variant) pairs: the main configuration first, then the sweeps by d_k."""
    keys = [s.main] + sorted((k for k in s.configs if k != s.main), key=lambda k: (s.dk(k), k[0]))
    return [(k, v) for k in keys for v in variants if s.has(k, v)]


def corpus_table(results):
    c, m, sc = results["corpus"], results["model"], results["scale"]
    base = results["baselines"]
    modules = Phrase("{} of {} pinned", (c["modules"], c["pinned"]))
    left_out = tuple(Phrase("{} ({})", (LABELS[x["variant"]], ", ".join(x["trained_in"]) or "none"))
                     for x in results["left_out"])
    rows = (
        ("Python", Phrase("{} {}", (c["implementation"], c["python"]))),
        ("modules read", Phrase("{}; missing: {}", (modules, ", ".join(c["missing"]))) if c["missing"] else modules),
        ("bytes (train / validation / test)", Vector(tuple(Num(c["split_bytes"][k], 0, "count")
                                                           for k in ("train", "validation", "test")), " / ", "")),
        ("validation modules", ", ".join(c["held_out"]["validation"])),
        ("test modules", ", ".join(c["held_out"]["test"])),
        ("SHA-256 of the modules read", c["sha256"]),
        ("vocabulary", Phrase("{} byte values (those the corpus holds)", (c["vocabulary"],))),
        ("count baselines (test bits/byte)", Phrase("unigram {}, bigram {} ({} smoothing, fit on the training split)",
                                                    (Num(base["unigram"], 3), Num(base["bigram"], 3),
                                                     base["smoothing"]))),
        ("left out in this profile", Vector(left_out, "; ", "") if left_out else "none"),
        ("scale of the evidence", Phrase(
            "{} models, {} paired seeds; {} parameters at the main configuration; {} training bytes per model "
            "({} of the split); d_k {} to {}",
            (Num(sc["models"], 0, "count"), sc["seeds"], Num(sc["parameters_main"], 0, "count"),
             Num(sc["bytes_per_model"], 0, "count"), Num(sc["bytes_share_of_train"], 2, "percent"), sc["d_k_min"],
             sc["d_k_max"]))),
        ("model", Phrase("{} pre-LayerNorm block{}, context {} bytes, MLP × {}, GELU",
                         (m["layers"], "s" if m["layers"] != 1 else "", m["context"],
                          Num(m.get("mlp_ratio", 4), 0, "plain")))),
        ("training", Phrase("{} AdamW steps of {} windows; {} paired seeds per cell",
                            (m["steps"], m["batch"], m["seeds"]))),
        ("evaluation", Phrase("validation: {} fixed bytes at steps {}; test: {} bytes at the end",
                              (results["eval_tokens"], vector(results["eval_steps"], brackets=""),
                               results["test_tokens"]))),
    )
    return Table("lm-corpus", "The corpus, read from this machine's Python", "Whole modules are split; the "
                 "hash covers every module read, so two reports with the same hash trained on the same bytes.",
                 ("", ""), rows, PART_CORPUS)


def _config(s, k):
    """A configuration as a cell: width / heads / d_k."""
    return vector((k[0], k[1], s.dk(k)), sep=" / ", brackets="")


def sweep_table(results):
    s = Sweep(results)
    base = results["baselines"]
    rows = []
    for k, v in ordered(s):
        tuned = s.tuned(k, v)
        div, n = s.failed_count(k, v)
        rows.append((
            _config(s, k), LABELS[v], _lr(tuned), _num(s.best_loss(k, v), 3),
            _num(s.test_bits(k, v), 3), _num(s.test_bits(k, v) - base["bigram"], 3), Phrase("{} of {}", (div, n)),
            _lr(s.largest_stable(k, v)),
            _num(s.sensitivity(k, v), 3),
        ))
    return Table(
        "lm-sweep",
        "Each variant at its tuned rate, its stability over the rates, and its learning-rate sensitivity",
        f"{len(s.lrs)} AdamW peak rates from {lr_text(min(s.lrs))} to {lr_text(max(s.lrs))}. Tuned rate: lowest "
        "final validation loss. Diverged: the validation loss went non-finite, ended above its initial loss or the "
        f"unigram table, or rose after warm-up by more than {SPIKE_SHARE:.0%} of its descent so far. Sensitivity "
        "(Wortsman et al. 2023): mean over the rates of min(final, initial) minus the best final, bits/byte. "
        f"Count baselines on the same test split: unigram {base['unigram']:.3f}, bigram {base['bigram']:.3f} "
        f"bits/byte; a model must be {GATE_BITS:g} below the bigram to decide a training claim.",
        ("width / heads / d_k", "scores", "tuned lr", "val bits/byte", "test bits/byte", "test − bigram", "diverged",
         "largest stable lr", "LR sensitivity"),
        tuple(rows), PART_SWEEP,
    )


def attention_table(results):
    s = Sweep(results)
    rows = []
    for k, v in ordered(s):
        ms = s.seeds(k, v, s.tuned(k, v))

        def mean(f):
            vals = [f(m) for m in ms]
            vals = [x for x in vals if x is not None and math.isfinite(x)]
            return float(np.mean(vals)) if vals else math.nan

        def layers(key, at):
            return mean(lambda m: float(np.mean([x for x in m[key][at] if x is not None] or [math.nan])))

        rows.append((
            _config(s, k), LABELS[v],
            change(_num(mean(lambda m: m["max_logit"][0]), 1), _num(mean(peak_logit), 1)),
            change(_num(mean(lambda m: mean_entropy(m, 0))), _num(mean(mean_entropy))),
            _num(mean(collapsed_share)), _num(mean(lambda m: m["saturated"][-1]), 3),
            change(_num(layers("qk_std", 0), 1), _num(layers("qk_std", -1), 1)),
            Vector((_num(layers("qk_ratio", -1)), _num(layers("cos", -1))), "; ", ""),
            _num(mean(lambda m: float(np.mean(m["mult"]))), 2),
        ))
    return Table(
        "lm-attention",
        "Attention at the tuned rate: logit growth, entropy, and the premise during training",
        "Step 0 → end (or peak). max |logit|: the largest softmax input on the evaluation windows. "
        f"Entropy: mean over heads and rows of H/ln(keys); collapsed heads (Zhai et al. 2023): under "
        f"{COLLAPSED_ENTROPY:g}. Saturated rows: largest weight above {SATURATED_ROW}. std(q·k): the raw "
        "dot product (no factor) over pairs of distinct positions; E[(q·k)²] over its value were q and k "
        "independent, and the mean cos(q, k): 1 and 0 under the premise, larger as q and k align. "
        "Multiplier: the final score factor × √d_k (1 is the standard scale).",
        ("width / heads / d_k", "scores", "max |logit|", "entropy", "collapsed", "saturated rows", "std(q·k)",
         "(q·k)² ratio; cos", "factor × √d_k"),
        tuple(rows), PART_ATTENTION,
    )


def alpha_table(results):
    s = Sweep(results)
    rows = []
    for v in NAMES:
        if sum(s.has(k, v) for k in s.configs) < 2:
            continue
        cells = []
        for at in (0, -1):
            fit = alpha_fit(s, v, at)
            cells.append(Num(None) if fit is None else
                         Interval(fit[0], fit[0] - fit[1], fit[0] + fit[1], 2, "pm") if fit[1] else Num(fit[0], 2))
        rows.append((LABELS[v], *cells, sum(s.has(k, v) for k in s.configs)))
    return Table(
        "lm-alpha",
        "The exponent α in std(q·k) ∝ d_k^α, at initialization and after training",
        "Least-squares slope of log std(q·k) on log d_k over every configuration trained (± the "
        f"half-width of its {LEVEL_LABEL} t interval when three or more). Independent unit-variance "
        "components predict ½; once q and k align, μP's argument predicts 1. After training: each "
        "configuration at its tuned rate.",
        ("scores", "α at step 0", "α after training", "configurations"), tuple(rows), PART_ATTENTION,
    )


def battery_table(results):
    b = Battery(results)
    rows = []
    tasks = b.b["tasks"]
    for task, _ in TASKS:
        if task not in tasks:
            continue
        steps = tasks[task]["checkpoints"]
        third = max(0, round(len(steps) / 3) - 1)
        for d in b.b["dims"]:
            for opt in ("adam", "sgd"):
                for s, label in BATTERY_SCALINGS:
                    (l1, _), (l2, lr) = b.best(task, s, d, opt, "loss", third), b.best(task, s, d, opt, "loss", -1)
                    acc = b.best(task, s, d, opt, "acc", -1)[0]
                    ent = float(np.mean([m["curves"]["entropy"][-1] or 0 for m in b.seeds(task, s, d, opt, lr)]))
                    rows.append((task, d, opt, label, change(_num(l1, 3), _num(l2, 3)),
                                 Num(None if task == "histogram" else 100 * acc, 1), _num(ent), _lr(lr)))
    return Table(
        "lm-battery",
        "One attention layer on three tasks: recall and induction want one-hot attention, the histogram uniform",
        f"Loss above the task's floor (nats), best over the rates, after {steps[third]} and {steps[-1]} "
        f"constant-rate steps (a checkpoint is a shorter run); accuracy and the attention entropy share "
        f"(1 is uniform) at the end, at the best rate; {b.b['seeds']} paired seeds per cell.",
        ("task", "d_k", "optimizer", "scores", "excess loss", "accuracy %", "entropy share", "best lr"),
        tuple(rows), PART_BATTERY,
    )


def tables(results):
    """The section's tables in reading order: data tables and the claims-table slot."""
    return [
        corpus_table(results),
        sweep_table(results),
        attention_table(results),
        alpha_table(results),
        battery_table(results),
        ClaimTable(
            "lm-verdicts",
            "The documents' training claims against the language model and the battery",
            "Every row compares variants each at its own learning rates. The profile's budget is in "
            "the section's first table; a verdict that holds only at some budget or on some task says "
            "so in its rows (summary rows collect the settings).",
            PART_VERDICTS,
        ),
    ]
