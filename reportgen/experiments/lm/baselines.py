"""Count-model baselines of the language model: what a table of byte frequencies already knows.

A Transformer that does not beat a bigram table has learned nothing a table could not, and a
comparison between two such models says nothing about attention. Both baselines are fit on
the training split and scored on the same held-out test bytes as the models, in bits per
byte, with add-one (Laplace) smoothing over the corpus vocabulary, so no test byte has
probability zero.
"""

SMOOTHING = 1.0  # add-one: the count every (previous byte, byte) pair starts from
# The learning gate: a training verdict rests on the language model only when the scaled
# variant at its tuned rate beats the bigram table on held-out bytes by at least this much
# (issue 21: a clear margin, not a tie within seed noise of 0.06-0.09 bits).
GATE_BITS = 0.5


def count_bits(train, test, vocab):
    """{'unigram', 'bigram'}: held-out bits per byte of add-one count models fit on `train`.

    train, test: 1-D long tensors of token ids below `vocab`.
    """
    import torch

    uni = torch.bincount(train, minlength=vocab).double() + SMOOTHING
    p_uni = uni / uni.sum()
    pairs = torch.bincount(train[:-1] * vocab + train[1:], minlength=vocab * vocab).double()
    table = pairs.view(vocab, vocab) + SMOOTHING  # (previous, next)
    p_bi = table / table.sum(1, keepdim=True)
    unigram = -p_uni[test].log2().mean().item()
    bigram = -p_bi[test[:-1], test[1:]].log2().mean().item()
    return {"unigram": round(unigram, 4), "bigram": round(bigram, 4), "smoothing": f"add-{SMOOTHING:g}",
            "fit_bytes": int(len(train)), "test_bytes": int(len(test))}


def gate_reason(model_bits, baselines, what):
    """Why a model at `model_bits` decides nothing (it does not beat the bigram by GATE_BITS); '' if it does."""
    from reportgen.experiments.evidence import learned_reason

    reason = learned_reason(model_bits, baselines["bigram"], GATE_BITS, f"{what}, on held-out bytes,",
                            "the bigram table")
    return reason and f"the language model does not learn enough to decide: {reason}"
