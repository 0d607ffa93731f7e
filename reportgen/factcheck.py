"""`reportgen check`: this run's verdicts against the expected ones in the claims data, and across seeds."""

from dataclasses import dataclass, replace

from reportgen.render.wording import words

SAME, CHANGED, NEW, MISSING = "same", "CHANGED", "NEW", "MISSING"
# The claims data's expected verdicts are the CPU's: `--record` is run on it, and each device's
# generators draw their own random numbers (a GPU's are another stream, as another seed's would be).
RECORDED_ON = "cpu"
# The document no longer holds the quote: the claims data describes a text that is gone.
STALE, FIXED = "STALE", "FIXED"  # FIXED: the quote was an error, so the error is corrected in the document


@dataclass(frozen=True)
class Row:
    """One claim: this run's verdict beside the one its data entry expects."""

    id: str
    doc: str
    section: str
    statement: str  # the claim's label
    quote: str
    documented: str
    measured: str
    tolerance: str
    rule: str  # exact | interval | at_least | at_most | unverifiable
    verdict: str  # this run's (first seed's) verdict; "—" when MISSING
    expected: str
    status: str  # same | CHANGED | MISSING
    seed_verdicts: tuple = ()  # one per seed with --seeds; "unstable" when they differ
    quote_state: str = "unread"  # found | gone | fixed | unread (reportgen.judging.documents)
    boundary: str = ""  # the claim's own explanation of why its verdict sits on a boundary
    severity: str = ""  # contradicted: material or minor
    sentence: str = ""  # the verdict in one plain sentence
    part_of: str = ""  # the statement this check is a setup of (a summary's id); "" for a statement

    @property
    def unstable(self):
        return len(set(self.seed_verdicts)) > 1

    @property
    def unexplained(self):
        """Unstable across seeds with no boundary note in the claims data."""
        return self.unstable and not self.boundary

    def to_json(self):
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["seed_verdicts"] = list(self.seed_verdicts)
        out["unstable"] = self.unstable
        out["unexplained"] = self.unexplained
        return out


def run_checks(config, progress, catalog, families, quotes=None):
    """Sections of one run without figures or rendering; the cache may serve."""
    from reportgen.pipeline import run_all

    _, sections = run_all(config, progress, catalog, families, quotes=quotes)
    return sections


def status(expected, j):
    """A row's status: the quote gone from the document comes first, then the verdict's agreement."""
    from reportgen.judging.documents import FIXED as fixed, GONE, UNMATCHED

    if j.quote_state in (GONE, UNMATCHED):
        return STALE
    if j.quote_state == fixed:
        return FIXED
    if not expected:
        return NEW  # no verdict recorded yet: `check --record` writes it
    return SAME if expected == j.verdict else CHANGED


def compare(config, progress, seeds=1, catalog=None, families=None):
    """Rows for every claim of the selected experiments, and the names of failed experiments."""
    from reportgen.claims import checks
    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging import documents, vocabulary
    from reportgen.pipeline import open_cache, selected

    catalog = catalog or vocabulary.catalog(config.claims or None)
    texts = documents.read(catalog, config.documents)
    families = families or EXPERIMENTS
    checks.check(catalog, families, selected(config, families, catalog), config.profile, config.claims or "claims")
    quotes = documents.looked_up(catalog, texts, config.claims, open_cache(config, progress))
    sections = run_checks(config, progress, catalog, families, quotes)
    failed = [s.experiment.name for s in sections if s.error]
    judged = [j for s in sections for j in s.judged]
    per_seed = {j.id: [j.verdict] for j in judged}
    for offset in range(1, seeds):
        progress.echo(f"seed {config.seed + offset}:")
        for s in run_checks(replace(config, seed=config.seed + offset), progress, catalog, families, quotes):
            for j in s.judged:
                per_seed.setdefault(j.id, []).append(j.verdict)
    rows = []
    parent = catalog.parent_of()
    for j in judged:
        c, said = j.claim, words(j)
        expected = c.expected_for(config.profile)
        rows.append(
            Row(c.id, c.doc, c.section, c.label, c.quote, j.documented, said.measured, said.rule, c.rule,
                j.verdict, expected, status(expected, j), tuple(per_seed[c.id]), j.quote_state,
                c.boundary, j.severity or "", said.sentence, parent.get(c.id, ""))
        )
    measured = {j.id for j in judged}
    ran = {s.experiment.name for s in sections}
    for c in catalog.claims:
        if catalog.families_needed(c) <= ran and c.id not in measured:
            documented = c.documented if isinstance(c.documented, str) else ", ".join(c.documented)
            rows.append(Row(c.id, c.doc, c.section, c.label, c.quote, documented, "—", "", c.rule, "—",
                            c.expected_for(config.profile), MISSING, quote_state=quotes.get(c.id, "unread"),
                            part_of=parent.get(c.id, "")))
    return rows, failed


def record(rows, profile, folder=None):
    """Make this run's verdicts the expected ones of `profile`; only `expected*` lines change.
    Returns what was written: (file name, claim id, verdict before or "", verdict now) each."""
    from reportgen.claims import expected

    return expected.record({r.id: r.verdict for r in rows if r.status not in (MISSING, STALE, FIXED)}, profile, folder)


def device_note(device, rows):
    """One line for a run on a device other than the one the expectations were recorded on,
    or None: its verdicts rest on other random draws, so a verdict on a boundary may differ
    without any change to the code."""
    if device == RECORDED_ON:
        return None
    changed = [r for r in rows if r.status == CHANGED]
    named = sum(bool(r.boundary) for r in changed)
    return (f"note: the expected verdicts were recorded on the {RECORDED_ON}; {device} draws other random "
            f"numbers, as another seed would, so verdicts near a boundary can differ without a code change "
            f"({len(changed)} changed here, {named} of them on a boundary the claims data names). "
            f"To test a code or library change, check with --device {RECORDED_ON}.")


def exit_status(rows, failed):
    """0 when every verdict equals the expected one, 1 when any changed or is missing."""
    if failed:
        return 1
    return 0 if all(r.status == SAME for r in rows) else 1
