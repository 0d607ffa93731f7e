"""`reportgen check`: this run's verdicts against the claims registry, and across seeds."""

from dataclasses import dataclass, replace
from pathlib import Path

from reportgen import registry
from reportgen.atomic import write_atomic
from reportgen.sources import DOCUMENTS

SAME, CHANGED, NEW, MISSING = "same", "CHANGED", "NEW", "MISSING"


@dataclass(frozen=True)
class Row:
    """One claim: this run's check beside the registry's expectation."""

    id: str
    doc: str
    section: str
    statement: str
    documented: str
    measured: str
    tolerance: str
    rule: str  # exact | interval | threshold | none
    verdict: str  # this run's (first seed's) verdict; "—" when MISSING
    expected: str  # from the registry; "—" when NEW
    status: str  # same | CHANGED | NEW | MISSING
    seed_verdicts: tuple = ()  # one per seed with --seeds; "unstable" when they differ

    @property
    def unstable(self):
        return len(set(self.seed_verdicts)) > 1

    def to_json(self):
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["seed_verdicts"] = list(self.seed_verdicts)
        out["unstable"] = self.unstable
        return out


def run_checks(config, progress):
    """(outcomes, checks) of one run without figures or rendering; the cache may serve."""
    from reportgen.pipeline import run_all

    _, outcomes = run_all(config, progress)
    return outcomes, [c for o in outcomes for c in o.checks]


def compare(config, progress, seeds=1):
    """Rows for every claim of the selected experiments, and the names of failed experiments."""
    entries = registry.load()
    outcomes, checks = run_checks(config, progress)
    failed = [o.experiment.name for o in outcomes if o.error]
    per_seed = {c.id: [c.verdict] for c in checks}
    for offset in range(1, seeds):
        progress.echo(f"seed {config.seed + offset}:")
        _, more = run_checks(replace(config, seed=config.seed + offset), progress)
        for c in more:
            per_seed.setdefault(c.id, []).append(c.verdict)
    ran = {o.experiment.name for o in outcomes if not o.error}
    rows = []
    for c in checks:
        entry = entries.get(c.id)
        expected = registry.expected(entry, config.profile) if entry else "—"
        status = NEW if entry is None else (SAME if expected == c.verdict else CHANGED)
        rows.append(
            Row(c.id, c.source.doc, c.source.section, entry["statement"] if entry else c.quantity,
                c.documented, c.measured, c.tolerance, c.rule, c.verdict, expected, status,
                tuple(per_seed[c.id]))
        )
    measured = {c.id for c in checks}
    for claim_id, entry in entries.items():
        if claim_id.split(".", 1)[0] in ran and claim_id not in measured:
            rows.append(
                Row(claim_id, entry["doc"], entry["section"], entry["statement"], entry.get("documented", ""),
                    "—", "", entry.get("rule", ""), "—", registry.expected(entry, config.profile), MISSING)
            )
    return rows, failed


def record(rows, profile):
    """Rewrite the registry files so that this run's verdicts become the expected ones."""
    entries = registry.load()
    folder = Path(registry.__file__).parent
    by_doc = {doc: [] for doc in DOCUMENTS}
    measured = {r.id for r in rows if r.status != MISSING}
    for r in rows:
        if r.status == MISSING:
            continue
        entry = dict(entries.get(r.id, {}))
        entry.update(id=r.id, section=r.section, documented=r.documented)
        entry.setdefault("statement", r.statement)
        entry["rule"] = r.rule
        if profile == "standard" or "expected" not in entry:
            entry["expected"] = r.verdict
        if profile != "standard":
            entry.pop(f"expected_{profile}", None)
            if r.verdict != entry["expected"]:
                entry[f"expected_{profile}"] = r.verdict
        by_doc[r.doc].append(entry)
    # Claims of experiments that were not run this time stay as they were.
    for claim_id, entry in entries.items():
        if claim_id not in measured and not any(r.id == claim_id for r in rows):
            by_doc[entry["doc"]].append(entry)
    for doc, claims in by_doc.items():
        if claims:
            write_atomic(folder / f"{doc}.toml", registry.render(doc, claims))
    return sum(len(c) for c in by_doc.values())


def exit_status(rows, failed):
    """0 when every verdict equals the registry's, 1 when any changed, is new or missing."""
    if failed:
        return 1
    return 0 if all(r.status == SAME for r in rows) else 1
