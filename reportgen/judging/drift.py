"""What changed between two results.json documents: verdicts, numbers, provenance.

`compare(old, new)` takes two parsed results.json documents (schema version 2 or 3, see
reportgen.render.results) and returns a `Drift`:

- verdict changes: claims matched on their stable id whose verdict differs, plus claims
  only in one document (added / removed) and experiments added, removed or whose status
  changed;
- measurements that moved beyond their interval: for claims whose measurement has a
  value and an interval in both documents, when the new value lies outside the old
  interval or the old value outside the new one;
- every numeric leaf of each experiment's `results` tree that changed at all (see
  `REL_TOL`), counted, with the largest relative changes listed;
- provenance differences (profile, seed, device, library versions, commit, build time),
  which usually explain the numbers that moved.

Numbers are read as numbers from the documents: nothing is parsed out of text.
Pure Python and standard library only: no torch, so it runs anywhere results.json does.
- quotes that left their documents: a claim whose quote was in its document's text and no
  longer is ("gone"), or an error corrected there ("fixed").

`exit_code(drift)` is 1 when a matched claim changed verdict, a claim disappeared or a quote
left its document, else 0;
claims added and numbers that moved are listed but do not set it.
"""

import json
import math
from dataclasses import asdict, dataclass, field

from reportgen.model import MOVED_WORDS, VERDICTS  # standard library only: diff still needs no torch

# A numeric leaf "changed" when |new - old| > REL_TOL * max(|old|, |new|). Floats survive
# the JSON round trip exactly (repr), and a rerun with the same seed, profile, device and
# library versions gives bit-identical results, so any nonzero difference is real. 1e-9 sits
# far above float64 summation-order noise (n·eps ≈ 1e6 · 1.1e-16 ≈ 1e-10 for a million-term
# reduction) and far below float32 resolution (6e-8), so it reads as "changed at all".
REL_TOL = 1e-9
LARGEST = 10  # largest relative changes listed
TEXT_LIMIT = 20  # items per list in the text output (the JSON has them all)

NONFINITE_STRINGS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "-infinity": -math.inf}

SCHEMA_VERSIONS = (2, 3)  # the results.json layouts diff reads: 3 adds each verdict's reason as numbers


class ResultsShapeError(ValueError):
    """The document is not shaped like a reportgen results.json."""


@dataclass
class CheckRef:
    id: str
    label: str
    verdict: str
    measured: str


@dataclass
class VerdictChange:
    id: str
    label: str
    old: str
    new: str
    old_measured: str
    new_measured: str


@dataclass
class QuoteChange:
    """A claim whose quote is no longer in its document (gone), or whose error was corrected there (fixed)."""

    id: str
    label: str
    old: str  # the quote's state in the old run: found, unread, gone, fixed (absent in older files: unread)
    new: str


QUOTE_WORDS = MOVED_WORDS  # the quote changes diff names


@dataclass
class CIMove:
    """A measured value that left the other run's interval."""

    id: str
    label: str
    old: float
    old_interval: list
    new: float
    new_interval: list
    new_outside_old: bool
    old_outside_new: bool


@dataclass
class LeafChange:
    experiment: str
    path: str
    old: object
    new: object
    rel: float  # |new - old| / max(|old|, |new|); inf when one side is non-finite


@dataclass
class Drift:
    provenance: list = field(default_factory=list)  # [key, old, new] for each difference
    verdict_totals: dict = field(default_factory=dict)  # {"old": {...}, "new": {...}}
    experiments_added: list = field(default_factory=list)
    experiments_removed: list = field(default_factory=list)
    status_changes: list = field(default_factory=list)  # [name, old status, new status]
    verdict_changes: list = field(default_factory=list)  # VerdictChange
    checks_added: list = field(default_factory=list)  # CheckRef
    checks_removed: list = field(default_factory=list)  # CheckRef
    quote_changes: list = field(default_factory=list)  # QuoteChange: a quote that left its document
    checks_compared: int = 0
    measured_changed: int = 0  # matched claims whose measured value differs
    beyond_ci: list = field(default_factory=list)  # CIMove
    intervals_compared: int = 0
    leaves_compared: int = 0
    leaves_changed: int = 0
    leaves_added: list = field(default_factory=list)  # "experiment: path"
    leaves_removed: list = field(default_factory=list)
    largest: list = field(default_factory=list)  # LeafChange, largest rel first
    nonfinite_changes: list = field(default_factory=list)  # [experiment, old list, new list]
    rel_tol: float = REL_TOL

    @property
    def verdict_changed(self):
        return bool(self.verdict_changes or self.checks_removed)


def exit_code(drift):
    """1 when a matched claim changed verdict, a claim disappeared or a quote left its document, else 0."""
    return 1 if drift.verdict_changed or drift.quote_changes else 0


# --- input shape ---------------------------------------------------------------------


def validate(doc, label="document"):
    """Raise ResultsShapeError naming the first thing that is not results.json-shaped."""
    if not isinstance(doc, dict):
        raise ResultsShapeError(f"{label}: top level is {type(doc).__name__}, not an object")
    version = doc.get("schema_version")
    if version not in SCHEMA_VERSIONS:
        readable = " and ".join(str(v) for v in SCHEMA_VERSIONS)
        raise ResultsShapeError(
            f"{label}: schema version {version or 1}, this reportgen reads {readable}; rebuild it with this version"
        )
    experiments = doc.get("experiments")
    if not isinstance(experiments, dict):
        raise ResultsShapeError(f"{label}: no 'experiments' object")
    if "provenance" in doc and not isinstance(doc["provenance"], (dict, type(None))):
        raise ResultsShapeError(f"{label}: 'provenance' is not an object")
    for name, exp in experiments.items():
        if not isinstance(exp, dict):
            raise ResultsShapeError(f"{label}: experiments.{name} is not an object")
        paths = exp.get("nonfinite", [])
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise ResultsShapeError(f"{label}: experiments.{name}.nonfinite is not a list of result paths")
    claims = doc.get("claims")
    if not isinstance(claims, list):
        raise ResultsShapeError(f"{label}: no 'claims' list")
    seen = set()
    for i, claim in enumerate(claims):
        where = f"{label}: claims[{i}]"
        if not isinstance(claim, dict):
            raise ResultsShapeError(f"{where} is not an object")
        for key in ("id", "verdict"):
            if not isinstance(claim.get(key), str):
                raise ResultsShapeError(f"{where} has no string '{key}'")
        if claim["verdict"] not in VERDICTS:
            raise ResultsShapeError(f"{where}: unknown verdict {claim['verdict']!r}")
        if claim["id"] in seen:
            raise ResultsShapeError(f"{where}: claim id {claim['id']!r} appears twice")
        seen.add(claim["id"])
        m = claim.get("measurement")
        if m is not None and not isinstance(m, dict):
            raise ResultsShapeError(f"{where}.measurement is not an object")


# --- comparison ----------------------------------------------------------------------


def _flatten(value, prefix=""):
    """{dotted key: value} of nested dicts (provenance)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def _provenance(old, new):
    a, b = _flatten(old.get("provenance") or {}), _flatten(new.get("provenance") or {})
    first = ("profile", "seed", "device", "device_name")  # the usual explanations first
    keys = [k for k in first if k in a or k in b]
    keys += sorted(k for k in a.keys() | b.keys() if k not in first)
    return [[k, a.get(k), b.get(k)] for k in keys if a.get(k) != b.get(k)]


def _ref(claim):
    return CheckRef(claim["id"], claim.get("label", ""), claim["verdict"], claim.get("measured") or "")


def _point(claim):
    """(value, lo, hi) of a claim's measurement when all three are finite numbers, else None."""
    m = claim.get("measurement") or {}
    numbers = [_number(m.get(k)) for k in ("value", "lo", "hi")]
    if None in numbers or not all(math.isfinite(x) for x in numbers):
        return None
    value, lo, hi = numbers
    return (value, lo, hi) if lo <= value <= hi else None


def _compare_interval(old_claim, new_claim):
    """A CIMove when either value left the other's interval; (compared?, move or None)."""
    a, b = _point(old_claim), _point(new_claim)
    if a is None or b is None:
        return False, None
    new_out = not a[1] <= b[0] <= a[2]
    old_out = not b[1] <= a[0] <= b[2]
    if not (new_out or old_out):
        return True, None
    return True, CIMove(new_claim["id"], new_claim.get("label", ""), a[0], [a[1], a[2]], b[0], [b[1], b[2]],
                        new_out, old_out)


def _number(value):
    """A results leaf as a float (non-finite strings included), or None when not numeric."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return NONFINITE_STRINGS.get(value.strip().lower())
    return None


def _leaves(value, path="results"):
    """{path: leaf} of every non-container value, paths as scheduler.nonfinite_paths writes them."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{path}.{k}"))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(_leaves(v, f"{path}[{i}]"))
        return out
    return {path: value}


def relative_change(old, new):
    """|new - old| / max(|old|, |new|): 0 when equal, inf when exactly one is non-finite or they differ in kind."""
    if old == new or (math.isnan(old) and math.isnan(new)):
        return 0.0
    if not (math.isfinite(old) and math.isfinite(new)):
        return math.inf
    return abs(new - old) / max(abs(old), abs(new))


def _compare_results(drift, name, old_results, new_results, changes):
    a, b = _leaves(old_results), _leaves(new_results)
    for path in a.keys() - b.keys():
        drift.leaves_removed.append(f"{name}: {path}")
    for path in b.keys() - a.keys():
        drift.leaves_added.append(f"{name}: {path}")
    for path in a.keys() & b.keys():
        x, y = _number(a[path]), _number(b[path])
        if x is None and y is None:
            continue  # text leaves (labels) are not numbers to compare
        drift.leaves_compared += 1
        if x is None or y is None:
            rel = math.inf  # a number became text or the other way round
        else:
            rel = relative_change(x, y)
        if rel > drift.rel_tol:
            drift.leaves_changed += 1
            changes.append(LeafChange(name, path, a[path], b[path], rel))


def compare(old, new):
    """The Drift from `old` to `new`, two parsed results.json documents."""
    validate(old, "old")
    validate(new, "new")
    drift = Drift()
    drift.provenance = _provenance(old, new)
    drift.verdict_totals = {"old": old.get("verdicts"), "new": new.get("verdicts")}
    old_exps, new_exps = old["experiments"], new["experiments"]
    drift.experiments_added = [n for n in new_exps if n not in old_exps]
    drift.experiments_removed = [n for n in old_exps if n not in new_exps]

    old_claims = {c["id"]: c for c in old["claims"]}
    new_claims = {c["id"]: c for c in new["claims"]}
    drift.checks_removed = [_ref(c) for i, c in old_claims.items() if i not in new_claims]
    for claim_id, claim in new_claims.items():
        before = old_claims.get(claim_id)
        if before is None:
            drift.checks_added.append(_ref(claim))
            continue
        drift.checks_compared += 1
        was, now = before.get("quote_state", "unread"), claim.get("quote_state", "unread")
        if now in QUOTE_WORDS and was != now:
            drift.quote_changes.append(QuoteChange(claim_id, claim.get("label", ""), was, now))
        if before["verdict"] != claim["verdict"]:
            drift.verdict_changes.append(
                VerdictChange(claim_id, claim.get("label", ""), before["verdict"], claim["verdict"],
                              before.get("measured") or "", claim.get("measured") or "")
            )
        if (before.get("measurement") or {}).get("value") != (claim.get("measurement") or {}).get("value"):
            drift.measured_changed += 1
        compared, move = _compare_interval(before, claim)
        drift.intervals_compared += compared
        if move:
            drift.beyond_ci.append(move)

    changes = []
    for name in old_exps.keys() & new_exps.keys():
        a, b = old_exps[name], new_exps[name]
        if a.get("status") != b.get("status"):
            drift.status_changes.append([name, a.get("status"), b.get("status")])
        if (a.get("nonfinite") or []) != (b.get("nonfinite") or []):
            drift.nonfinite_changes.append([name, a.get("nonfinite") or [], b.get("nonfinite") or []])
        _compare_results(drift, name, a.get("results"), b.get("results"), changes)
    order = list(old_exps) + drift.experiments_added
    drift.status_changes.sort(key=lambda s: order.index(s[0]))
    drift.nonfinite_changes.sort(key=lambda s: order.index(s[0]))
    drift.leaves_added.sort()
    drift.leaves_removed.sort()
    changes.sort(key=lambda c: (-c.rel, c.experiment, c.path))
    drift.largest = changes[:LARGEST]
    return drift


# --- output --------------------------------------------------------------------------


def _finite_or_text(x):
    """JSON has no inf/NaN: write them as strings, as results.json does."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, list):
        return [_finite_or_text(v) for v in x]
    if isinstance(x, dict):
        return {k: _finite_or_text(v) for k, v in x.items()}
    return x


def to_json(drift):
    """A JSON-ready dict of everything in the drift, with the exit code it implies."""
    out = asdict(drift)
    out["verdict_changed"] = drift.verdict_changed
    out["exit_code"] = exit_code(drift)
    out["provenance"] = [{"key": k, "old": a, "new": b} for k, a, b in drift.provenance]
    out["status_changes"] = [{"experiment": n, "old": a, "new": b} for n, a, b in drift.status_changes]
    out["nonfinite_changes"] = [{"experiment": n, "old": a, "new": b} for n, a, b in drift.nonfinite_changes]
    return _finite_or_text(out)


def load(path):
    """Parse and validate a results.json file; ValueError (ResultsShapeError or JSON) otherwise."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    validate(doc, str(path))
    return doc
