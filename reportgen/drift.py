"""What changed between two results.json documents: verdicts, numbers, provenance.

`compare(old, new)` takes two parsed results.json documents (report.results_document's
shape) and returns a `Drift`:

- verdict changes: checks matched on (experiment, quantity, source) whose verdict differs,
  plus checks only in one document (added / removed) and experiments added, removed or
  whose status changed;
- numbers that moved beyond their confidence interval: only where a check states one for
  its measured value (see `intervals`), and only when the new value lies outside the old
  interval or the old value outside the new one;
- every numeric leaf of each experiment's `results` tree that changed at all (see
  `REL_TOL`), counted, with the largest relative changes listed;
- provenance differences (profile, seed, device, library versions, commit, build time),
  which usually explain the numbers that moved.

Pure Python and standard library only: no torch, so it runs anywhere results.json does.
`exit_code(drift)` is 0 when no matched check changed verdict, 1 when one did; checks
added or removed are listed but do not set it (a renamed check would otherwise fail the
comparison), nor do moved numbers (they explain, they are not verdicts).
"""

import json
import math
import re
from dataclasses import asdict, dataclass, field

# A numeric leaf "changed" when |new - old| > REL_TOL * max(|old|, |new|). Floats survive
# the JSON round trip exactly (repr), and a rerun with the same seed, profile, device and
# library versions gives bit-identical results, so any nonzero difference is real. 1e-9 sits
# far above float64 summation-order noise (n·eps ≈ 1e6 · 1.1e-16 ≈ 1e-10 for a million-term
# reduction) and far below float32 resolution (6e-8), so it reads as "changed at all".
REL_TOL = 1e-9
LARGEST = 10  # largest relative changes listed
TEXT_LIMIT = 20  # items per list in the text output (the JSON has them all)

NONFINITE_STRINGS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "-infinity": -math.inf}

# A number as claims.fmt prints it: optional sign (ASCII or U+2212), digits grouped by a
# space (or a no-break / thin space) in threes, optional decimals and exponent.
_SEP = "[ \u00a0\u2009\u202f]"
_NUM = rf"[-+\u2212]?(?:\d{{1,3}}(?:{_SEP}\d{{3}})+|\d+)(?:\.\d+)?(?:[eE][-+\u2212]?\d+)?"
_INTERVAL = rf"\[\s*(?P<lo>{_NUM})\s*,\s*(?P<hi>{_NUM})\s*\]"
# "16.634 [15.590, 17.678]": a value directly followed by its interval.
_VALUE_INTERVAL = re.compile(rf"(?<![\w.\]])(?P<value>{_NUM})\s*{_INTERVAL}")
# "5.886 (6/d_k = 6.000)": the leading number of a measured string.
_LEADING = re.compile(rf"^\s*(?P<value>{_NUM})(?=$|[\s(;,])")
# "99% CI of the measurement: [0.868, 1.093]", "measured value's 99% interval: [...]":
# an interval that the tolerance text itself says belongs to the measurement.
_TOL_INTERVAL = re.compile(rf"(?P<label>[^:;]*):\s*{_INTERVAL}")


class ResultsShapeError(ValueError):
    """The document is not shaped like a reportgen results.json."""


def parse_number(text):
    """Float of a number as reportgen prints it ('3 962.161', '−0.5', '6e-07'); None if not one."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not re.fullmatch(_NUM, text):
        return None
    value = float(re.sub(_SEP, "", text).replace("\u2212", "-"))
    return value if math.isfinite(value) else None


@dataclass
class Interval:
    """A measured value with its confidence interval, read from a check's text."""

    label: str  # text before the value ("‖J‖_F"), "" for the only one
    value: float
    lo: float
    hi: float
    where: str  # "measured" or "tolerance": which text gave the interval

    def contains(self, x):
        return self.lo <= x <= self.hi


def _plausible(value, lo, hi):
    """Conservative: only a finite, ordered interval that holds its own point estimate."""
    if None in (value, lo, hi):
        return False
    return lo <= hi and lo <= value <= hi


def intervals(check):
    """Intervals a check states for its measured value(s), read conservatively.

    1. "value [lo, hi]" pairs in `measured` ("‖J‖_F: 0.285 [0.182, 0.447]; ‖J‖_2: ...");
    2. otherwise, when `measured` starts with a number and `tolerance` gives an interval it
       calls the measurement's ("99% CI of the measurement: [lo, hi]", "measured value's
       99% interval: [lo, hi]"), that number with that interval.
    Anything else yields nothing: a bare range ("[-8.3, 6.5] in this run"), an interval of
    the documented value ("99% interval of a 10 000-pair sample variance") or one that does
    not hold its own value is not a confidence interval of the measurement.
    """
    measured = check.get("measured") or ""
    tolerance = check.get("tolerance") or ""
    found, start = [], 0
    for m in _VALUE_INTERVAL.finditer(measured):
        value, lo, hi = (parse_number(m[g]) for g in ("value", "lo", "hi"))
        label = measured[start:m.start()].strip(" :;,()")
        start = m.end()
        if _plausible(value, lo, hi):
            found.append(Interval(label, value, lo, hi, "measured"))
    if found:
        return found
    lead = _LEADING.match(measured)
    if lead is None:
        return []
    value = parse_number(lead["value"])
    for m in _TOL_INTERVAL.finditer(tolerance):
        label = m["label"].lower()
        if "measure" in label and ("ci" in label.split() or "interval" in label or "confidence" in label):
            lo, hi = parse_number(m["lo"]), parse_number(m["hi"])
            if _plausible(value, lo, hi):
                return [Interval("", value, lo, hi, "tolerance")]
    return []


@dataclass
class CheckRef:
    experiment: str
    quantity: str
    source: str
    verdict: str
    measured: str


@dataclass
class VerdictChange:
    experiment: str
    quantity: str
    source: str
    old: str
    new: str
    old_measured: str
    new_measured: str


@dataclass
class CIMove:
    """A measured value that left the other run's confidence interval."""

    experiment: str
    quantity: str
    source: str
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
    checks_compared: int = 0
    measured_changed: int = 0  # matched checks whose measured text differs
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
        return bool(self.verdict_changes)


def exit_code(drift):
    """0 when no matched check changed verdict, 1 when one did."""
    return 1 if drift.verdict_changed else 0


# --- input shape ---------------------------------------------------------------------


def validate(doc, label="document"):
    """Raise ResultsShapeError naming the first thing that is not results.json-shaped."""
    if not isinstance(doc, dict):
        raise ResultsShapeError(f"{label}: top level is {type(doc).__name__}, not an object")
    experiments = doc.get("experiments")
    if not isinstance(experiments, dict):
        raise ResultsShapeError(f"{label}: no 'experiments' object")
    if "provenance" in doc and not isinstance(doc["provenance"], (dict, type(None))):
        raise ResultsShapeError(f"{label}: 'provenance' is not an object")
    for name, exp in experiments.items():
        where = f"{label}: experiments.{name}"
        if not isinstance(exp, dict):
            raise ResultsShapeError(f"{where} is not an object")
        checks = exp.get("checks", [])
        if not isinstance(checks, list):
            raise ResultsShapeError(f"{where}.checks is not a list")
        for i, check in enumerate(checks):
            if not isinstance(check, dict):
                raise ResultsShapeError(f"{where}.checks[{i}] is not an object")
            for key in ("quantity", "source", "verdict"):
                if not isinstance(check.get(key), str):
                    raise ResultsShapeError(f"{where}.checks[{i}] has no string '{key}'")
            for key in ("measured", "tolerance", "documented"):
                if key in check and not isinstance(check[key], (str, type(None))):
                    raise ResultsShapeError(f"{where}.checks[{i}].{key} is not a string")


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


def _check_index(name, exp):
    """{(experiment, quantity, source, occurrence): check}; the occurrence keeps duplicates apart."""
    out, seen = {}, {}
    for check in exp.get("checks", []):
        base = (name, check["quantity"], check["source"])
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[(*base, n)] = check
    return out


def _ref(key, check):
    return CheckRef(key[0], key[1], key[2], check["verdict"], check.get("measured") or "")


def _compare_intervals(key, old_check, new_check):
    """CIMoves between matched checks; (number of pairs compared, moves)."""
    a, b = intervals(old_check), intervals(new_check)
    if not a or len(a) != len(b) or [i.label for i in a] != [i.label for i in b]:
        return 0, []
    moves = []
    for x, y in zip(a, b):
        new_out, old_out = not x.contains(y.value), not y.contains(x.value)
        if new_out or old_out:
            moves.append(
                CIMove(key[0], key[1], key[2], x.label, x.value, [x.lo, x.hi], y.value, [y.lo, y.hi], new_out, old_out)
            )
    return len(a), moves


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
    """{path: leaf} of every non-container value, paths as pipeline.nonfinite_paths writes them."""
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

    old_checks, new_checks = {}, {}
    for name, exp in old_exps.items():
        old_checks.update(_check_index(name, exp))
    for name, exp in new_exps.items():
        new_checks.update(_check_index(name, exp))
    for key, check in old_checks.items():
        if key not in new_checks:
            drift.checks_removed.append(_ref(key, check))
    for key, check in new_checks.items():
        if key not in old_checks:
            drift.checks_added.append(_ref(key, check))
            continue
        before = old_checks[key]
        drift.checks_compared += 1
        if before["verdict"] != check["verdict"]:
            drift.verdict_changes.append(
                VerdictChange(key[0], key[1], key[2], before["verdict"], check["verdict"],
                              before.get("measured") or "", check.get("measured") or "")
            )
        if (before.get("measured") or "") != (check.get("measured") or ""):
            drift.measured_changed += 1
        n, moves = _compare_intervals(key, before, check)
        drift.intervals_compared += n
        drift.beyond_ci.extend(moves)

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


def _num(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _rel(x):
    return "non-finite / type change" if math.isinf(x) else f"{x:.3g}"


def _limited(lines, items, render):
    for item in items[:TEXT_LIMIT]:
        lines.append("  " + render(item))
    if len(items) > TEXT_LIMIT:
        lines.append(f"  … and {len(items) - TEXT_LIMIT} more (see --json)")


def format_text(drift):
    """A human summary; its first line says whether any verdict changed."""
    n = len(drift.verdict_changes)
    lines = [f"{n} verdict(s) changed" if n else "no verdict changed"]
    totals = drift.verdict_totals
    if totals.get("old") != totals.get("new"):
        lines.append(f"verdict totals: {totals.get('old')} -> {totals.get('new')}")
    lines.append(
        f"checks: {drift.checks_compared} matched, {len(drift.checks_added)} added, "
        f"{len(drift.checks_removed)} removed, measured text changed in {drift.measured_changed}"
    )
    if drift.verdict_changes:
        lines.append("verdict changes:")
        _limited(lines, drift.verdict_changes, lambda c: (
            f"[{c.experiment}] {c.quantity} ({c.source}): {c.old} -> {c.new}; "
            f"measured {c.old_measured!r} -> {c.new_measured!r}"))
    if drift.checks_added:
        lines.append("checks added:")
        _limited(lines, drift.checks_added, lambda c: f"[{c.experiment}] {c.quantity} ({c.source}): {c.verdict}")
    if drift.checks_removed:
        lines.append("checks removed:")
        _limited(lines, drift.checks_removed, lambda c: f"[{c.experiment}] {c.quantity} ({c.source}): was {c.verdict}")
    for label, items in (("experiments added", drift.experiments_added), ("experiments removed", drift.experiments_removed)):
        if items:
            lines.append(f"{label}: {', '.join(items)}")
    for name, a, b in drift.status_changes:
        lines.append(f"experiment {name}: status {a} -> {b}")
    for name, a, b in drift.nonfinite_changes:
        lines.append(f"experiment {name}: NaN/inf paths {len(a)} -> {len(b)}")

    lines.append(
        f"moved beyond their confidence intervals: {len(drift.beyond_ci)} of {drift.intervals_compared} "
        "measured values with a stated interval"
    )
    def ci_line(m):
        which = " and ".join(
            s for s, flag in (("new outside old CI", m.new_outside_old), ("old outside new CI", m.old_outside_new)) if flag
        )
        label = f" {m.label}" if m.label else ""
        return (f"[{m.experiment}] {m.quantity} ({m.source}){label}: {_num(m.old)} [{_num(m.old_interval[0])}, "
                f"{_num(m.old_interval[1])}] -> {_num(m.new)} [{_num(m.new_interval[0])}, {_num(m.new_interval[1])}] ({which})")
    _limited(lines, drift.beyond_ci, ci_line)

    lines.append(
        f"results numbers: {drift.leaves_changed} of {drift.leaves_compared} changed "
        f"(relative change > {drift.rel_tol:g}), {len(drift.leaves_added)} added, {len(drift.leaves_removed)} removed"
    )
    if drift.largest:
        lines.append("largest relative changes:")
        _limited(lines, drift.largest, lambda c: f"{c.experiment}: {c.path}: {_num(c.old)} -> {_num(c.new)} (rel {_rel(c.rel)})")

    if drift.provenance:
        lines.append("provenance differences (they may explain the drift):")
        _limited(lines, drift.provenance, lambda p: f"{p[0]}: {p[1]!r} -> {p[2]!r}")
    else:
        lines.append("provenance: identical")
    return "\n".join(lines)


def load(path):
    """Parse and validate a results.json file; ValueError (ResultsShapeError or JSON) otherwise."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    validate(doc, str(path))
    return doc
