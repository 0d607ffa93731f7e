"""The claims catalog, every name it uses checked against judging's vocabulary: the named
thresholds and the placeholders its prose fills.

reportgen.claims reads the files and checks each entry's shape (its verdicts too: they are
reportgen.model's); a claims file also names things whose home is in judging or the
experiments (a threshold by name, `{id:field}` in a text). Every build, check and test loads
the claims through `catalog`, so a misspelt name is one line before any work, as before.
"""

from reportgen import claims
from reportgen.errors import ConfigError
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.judging.prose import bad_fields, names

PROSE = ("correct", "note", "boundary")  # a claim's texts that reportgen.judging.prose fills


def catalog(folder=None):
    """reportgen.claims.catalog(folder), once every name it uses is one judging knows; else one ConfigError."""
    loaded = claims.catalog(folder)
    found = problems(loaded)
    if found:
        raise ConfigError("claims data: " + "; ".join(found[:5]) + (" …" if len(found) > 5 else ""))
    return loaded


def problems(loaded):
    """One line per named threshold or placeholder of the catalog that judging has not."""
    return [*_claim_problems(loaded.claims), *_findings_problems(loaded)]


def _claim_problems(all_claims):
    ids = {c.id for c in all_claims}
    out = []
    for c in all_claims:
        where = f"{c.doc}.toml claim {c.id}"
        if c.rule in ("at_least", "at_most") and isinstance(c.threshold, str) and c.threshold not in THRESHOLDS:
            out.append(f"{where}: rule '{c.rule}' needs a threshold: a number or one of "
                       "reportgen/experiments/thresholds.py")
        for key in PROSE:
            text = getattr(c, key)
            out += [f"claim {c.id}: '{key}' names {{{i}}}, which is no claim" for i in names(text) if i not in ids]
            out += [f"claim {c.id}: '{key}' has {p}, a field reportgen.judging.prose does not fill"
                    for p in bad_fields(text)]
    return out


def _findings_problems(loaded):
    """The Findings' lines (findings.toml), numbered as the file has them: each became a Beat or an Unsaid."""
    ids = {c.id for c in loaded.claims}
    out = []
    for kind, entries in (("beat", loaded.story), ("unsaid", loaded.unsaid)):
        for i, entry in enumerate(entries, start=1):
            where = f"findings.toml {kind} #{i}"
            texts = [v for v in vars(entry).values() if isinstance(v, str)]
            out += [f"{where}: names {n}, which is no claim" for v in texts for n in names(v) if n not in ids]
            out += [f"{where}: {p} is a field reportgen.judging.prose does not fill" for v in texts for p in bad_fields(v)]
    return out
