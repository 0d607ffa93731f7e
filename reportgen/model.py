"""The report model: what judging decides and every output reads.

Judging (reportgen.judging) fills it; rendering (reportgen.render) formats it and imports
nothing from judging. Between the two no value is a formatted string: a verdict is a
`Verdict`, its reasons are a `Reason` of numbers and flags, a measurement is a
`reportgen.experiments.measure.Measurement` (numbers too), and a text of the claims data that names a
measured number (a correction, a note, a line of the Findings) is a `Prose` whose parts are
words and `Ref`s to the numbers, which a template prints at the precision the ref gives.
The strings left are data: a claim's label and quote, a document's title, the words a
measure says about its own evidence (`Measurement.undecided`, `method`).

It imports nothing of the package: the claims data, judging and rendering all read it.
"""

from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    CONFIRMED = "confirmed"
    PARTLY = "partly"
    CONTRADICTED = "contradicted"
    INCONCLUSIVE = "inconclusive"
    UNVERIFIABLE = "unverifiable"


VERDICTS = tuple(Verdict)  # the fixed order every count and legend uses
DECISIVE = (Verdict.CONFIRMED, Verdict.CONTRADICTED, Verdict.PARTLY)


class Severity(StrEnum):
    """How wrong a contradicted statement is: a reader would learn something false, or a slip."""

    MATERIAL = "material"
    MINOR = "minor"


class QuoteState(StrEnum):
    """Whether a claim's quote is in its document's text now (reportgen.judging.documents)."""

    FOUND = "found"
    GONE = "gone"
    FIXED = "fixed"  # an error whose quote is gone: the document no longer says it
    UNREAD = "unread"
    UNMATCHED = "unmatched"  # never found there: a typo in the claim, not a fix in the document


QUOTE_WORDS = {  # a quote's state in words, wherever it is shown
    QuoteState.FOUND: "quote found in the document",
    QuoteState.GONE: "quote no longer in the document",
    QuoteState.UNMATCHED: "quote not found in the document (copy it verbatim)",
    QuoteState.FIXED: "error fixed in the document",
    QuoteState.UNREAD: "quote not looked up (the document's text was not given)",
}


MOVED = (QuoteState.GONE, QuoteState.FIXED, QuoteState.UNMATCHED)  # quotes not in their documents now
MOVED_WORDS = {state: QUOTE_WORDS[state] for state in MOVED}  # shown beside a verdict, and by diff


class Outcome(StrEnum):
    """Which branch of its rule a verdict came from: what its sentence has to say."""

    NO_RULE = "no rule"  # rule unverifiable: the claim's reason says what would decide it
    CITED = "cited"  # rule reference: decided by the cited source
    NOT_MEASURED = "not measured"  # the measure could not be computed from this run (Reason.why)
    COUNT = "count"  # exact: the measure gives another count of numbers than the document prints
    EXACT = "exact"  # exact: compared entry-wise at the printed precision (Reason.same)
    NO_NUMBER = "no number"  # interval: the documented value is not a number
    NO_INTERVAL = "no interval"  # interval: no finite interval in this run
    POINT = "point"  # interval without a margin: is the documented number inside?
    WITHIN = "within"  # equivalence: the whole interval within documented ± margin
    BEYOND = "beyond"  # equivalence: the whole interval beyond it
    OPEN = "open"  # equivalence: neither; Reason.samples_needed would decide
    NOT_FINITE = "not finite"  # threshold: the statistic is not finite
    STRADDLES = "straddles"  # threshold: the value's interval reaches both sides
    DECIDED = "decided"  # threshold: met or missed, every statistic agreeing
    SPLIT = "split"  # threshold: the statistics disagree (Reason.views)
    SUMMARY = "summary"  # one statement over several setups


@dataclass(frozen=True)
class View:
    """Another statistic of the same quantity, judged against the same threshold."""

    label: str
    value: float
    holds: bool


@dataclass(frozen=True)
class Reason:
    """What a verdict rests on, as numbers: the rule's branch and the numbers it compared."""

    outcome: Outcome
    compared: object = None  # exact: the reading compared (the measurement, or the alternative matched)
    digits: tuple = ()  # exact: the printed decimals of each entry
    same: tuple = ()  # exact: whether each entry equals the printed one at its precision
    matched_by: str = ""  # exact: the reading of an ambiguous convention that matched
    tried: tuple = ()  # exact: the readings tried when none matched
    documented: float | None = None  # interval: the documented number
    statistic: float | None = None  # interval: the value; threshold: the statistic judged
    threshold: float | None = None  # threshold: the reading's threshold
    holds: bool | None = None  # threshold: whether the statistic meets it
    views: tuple = ()  # threshold: View of each other statistic
    samples_needed: int | None = None  # inconclusive: about how many samples would decide
    deviation: float | None = None  # how far off the statement is, relative (severity's input)
    overstated: bool = False  # contradicted inside the band of reasonable cuts for the word
    band: tuple = ()  # overstated: (low, high) of those cuts
    band_why: str = ""  # overstated: why a reasonable reader's cut falls there (the claims data's words)
    undecided: str = ""  # evidence that cannot decide: the measure's words, or too few draws' (Reason.few)
    few: tuple = ()  # too few draws: (n,) or (n, draws a sign test needs)
    why: str = ""  # not measured: what was missing (the measure's own words)
    deciding: tuple = ()  # summary: the ids of the setups that decide it (the others only explain)

    def to_json(self):
        return {
            "outcome": self.outcome,
            "compared": self.compared.to_json() if self.compared is not None else None,
            "digits": list(self.digits),
            "same": list(self.same),
            "matched_by": self.matched_by,
            "tried": list(self.tried),
            "documented": self.documented,
            "statistic": self.statistic,
            "threshold": self.threshold,
            "holds": self.holds,
            "views": [{"label": v.label, "value": v.value, "holds": v.holds} for v in self.views],
            "samples_needed": self.samples_needed,
            "deviation": self.deviation,
            "overstated": self.overstated,
            "band": list(self.band),
            "band_why": self.band_why,
            "undecided": self.undecided,
            "few": list(self.few),
            "why": self.why,
            "deciding": list(self.deciding),
        }


@dataclass(frozen=True)
class Ref:
    """A number a text of the claims data names (reportgen.judging.prose): what to print and how.

    `field` is the placeholder's: value, lo, hi, pct, n, interval, threshold, verdict, or a
    detail or view; `value` the number (None: not measured in this build), `digits` its decimals.
    """

    field: str
    value: object = None  # a float, an int (n), a Verdict, or None
    digits: int = 3
    measurement: object = None  # interval: the interval's measurement


@dataclass(frozen=True)
class Prose:
    """A text of the claims data with the numbers it names resolved: words and Refs, in order."""

    parts: tuple = ()

    def __bool__(self):
        return any(self.parts)


@dataclass(frozen=True)
class Judged:
    """A claim, the measurement it was judged on, its verdict and what the verdict rests on."""

    claim: object  # reportgen.claims.Claim
    measurement: object
    verdict: Verdict
    reason: Reason
    severity: Severity | None = None  # contradicted only
    setups: tuple = ()  # summary: the Judged of each setup
    correct: Prose = field(default_factory=Prose)  # contradicted or partly: the correct statement
    note: Prose = field(default_factory=Prose)  # the claim's note, its numbers resolved
    boundary: Prose = field(default_factory=Prose)  # the claim's boundary, its numbers resolved
    quote_state: QuoteState = QuoteState.UNREAD
    printed_over_true: float | None = None  # the printed number ÷ the measured one, where they differ most

    def __post_init__(self):
        # A contradicted statement without a grade is material; no other verdict has a severity.
        graded = (self.severity or Severity.MATERIAL) if self.verdict == Verdict.CONTRADICTED else None
        object.__setattr__(self, "severity", graded)

    @property
    def id(self):
        return self.claim.id

    @property
    def documented(self):
        d = self.claim.documented
        return d if isinstance(d, str) else "[" + ", ".join(d) + "]"


@dataclass(frozen=True)
class Section:
    """One family as the report shows it: its run, verdicts, tables and figures.

    A failure in any of them fails only its own section: the report shows a failure box there."""

    run: object  # reportgen.scheduler.Run
    judged: tuple = ()  # Judged, in claims-file order
    tables: tuple = ()  # Table, or (ClaimTable, tuple of Judged)
    figures: tuple = ()  # (Figure, {"svg": bytes, "png": bytes})
    error: str | None = None  # the run's error, or the one of its tables or figures

    @property
    def experiment(self):
        return self.run.experiment


@dataclass(frozen=True)
class Beat:
    """One question of the √d_k story, answered by its statements' verdicts (reportgen.judging.story)."""

    question: str
    which: str  # holds, mixed, fails or open: which of its texts the verdicts call for
    text: Prose
    lead: Prose
    scale: Prose  # the sentence on the evidence's scale (a measurement of this build), or empty
    claims: tuple  # the ids of its statements this build shows, in the story's order
    families: tuple  # the families whose chapters show them, in order of first mention


@dataclass(frozen=True)
class DocumentFindings:
    """One document's statements as the Findings sort them (reportgen.judging.findings)."""

    doc: str
    counts: dict  # verdict: its statements
    material: tuple  # (section, tuple of Judged): its material errors by section, a summary's setups not again
    n_material: int  # material errors still in the document (a fixed one is not counted)
    minor: tuple = ()  # Judged: minor slips
    partly: tuple = ()  # Judged: statements that hold only in part


@dataclass(frozen=True)
class Findings:
    """What holds, every material error by document and section, and the rest counted."""

    documents: tuple  # DocumentFindings, in the catalog's order
    fixed: tuple  # Judged: errors fixed in their documents (the quote is gone)
    stale: tuple  # Judged: quotes no longer (or never) in their documents
    right: tuple  # (family, statements confirmed, statements checked, documents of those confirmed)
    n_material: int
    n_minor: int
    n_partly: int
    n_unsettled: int  # inconclusive or unverifiable


@dataclass(frozen=True)
class Report:
    """A build's verdicts as every output reads them: the sections, and what is counted once."""

    sections: tuple  # Section, in the registry's order
    statements: tuple  # the top-level Judged: each statement once (a summary stands for its setups)
    counts: dict  # verdict: number of statements
    tally: dict  # statements and checks, the kinds of evidence confirmed statements hold by
    coverage: dict  # per document: found, checked, unverifiable, not checkable, consistency, rows
    family_wise: dict  # interval rows and the false contradictions chance alone would give
    findings: Findings | None = None
    story: tuple = ()  # Beat
    unsaid: tuple = ()  # Prose: what none of the documents says, where the verdicts show it

    @property
    def judged(self):
        """Every check, setups included, section by section."""
        return [j for s in self.sections for j in s.judged]


def statements(judged):
    """The top-level rows: each statement once (a summary stands for its setups)."""
    judged = list(judged)
    setups = {s.id for j in judged for s in j.setups}
    return [j for j in judged if j.id not in setups]


def verdict_counts(judged):
    """Number of claims per verdict, in the fixed verdict order."""
    counts = {v: 0 for v in VERDICTS}
    for j in judged:
        counts[j.verdict] += 1
    return counts
