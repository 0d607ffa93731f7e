"""What the claims data holds, as records: a document, a claim, a statement no measurement can
decide, and the catalog of them all (reportgen.claims.entries reads them from the files)."""

from dataclasses import dataclass, field

from reportgen.formatting import parse_printed



@dataclass(frozen=True)
class Document:
    """One source document: its id (the NNN of its claims file), title and how it is cited."""

    id: str
    title: str
    citation: str = ""  # a bibliographic line, when one is known; it replaces the built one
    kind: str = ""  # what it is, e.g. "Lecture notes, week 3": cited with the title
    file: str = ""  # its text in the `documents` folder; empty: <id>.md, <id>.txt or <id>_*.txt


@dataclass(frozen=True)
class Claim:
    """One documented statement and how it is judged."""

    id: str  # stable, hand-given
    doc: str
    section: str  # the document's heading it sits under
    quote: str  # the sentence, table cell or output line, verbatim
    documented: object  # as printed: a string, or a list of strings for a printed vector/matrix
    kind: str  # one of KINDS
    rule: str  # one of RULES
    table: str  # slug of the claims table (in its family's layout) that shows it
    label: str  # what is compared, in a few words (the row's first cell)
    expected: dict  # profile -> expected verdict; empty until `check --record` writes one
    value: float | None = None  # the documented number when `documented` is not plainly one
    measure: str = ""  # "<family>.<measure>"; empty for an unverifiable claim
    family_name: str = ""  # the family whose section shows an unverifiable claim
    args: dict = field(default_factory=dict)  # keyword arguments of the measure
    threshold: float | str | None = None  # at_least / at_most: a number, or a name in reportgen/experiments/thresholds.py
    bound: str = "value"  # at_least / at_most: which end of the measurement is compared
    justification: str = ""  # one line: why this rule and margin read the statement fairly
    reason: str = ""  # unverifiable: what would be needed to check it
    margin: float | None = None  # interval: equivalence margin; the interval must lie within ± it
    band: tuple = ()  # at_least / at_most with a numeric threshold: (low, high) of reasonable cuts
    band_reason: str = ""  # why a reasonable reader's cut falls in `band`
    over: tuple = ()  # summary: ids of the claims (one per setup) this statement sums up
    severity: str = ""  # if contradicted: material (a reader learns something false) or minor
    correct: str = ""  # if contradicted: the correct statement, in words
    note: str = ""  # a sentence added to the verdict's explanation
    boundary: str = ""  # why this verdict may flip across seeds: it sits on a boundary
    reference: str = ""  # reference: the cited source (authors, year, title, where)
    reference_quote: str = ""  # reference: what the source says that decides the claim
    holds: str = ""  # reference: "true", "false" or "partly", as the source shows

    @property
    def documented_value(self):
        """The documented number a rule compares with, or None (printed vectors, words)."""
        if self.value is not None:
            return self.value
        return parse_printed(self.documented) if isinstance(self.documented, str) else None

    @property
    def family(self):
        return self.measure.split(".", 1)[0] if self.measure else self.family_name

    def expected_for(self, profile):
        return self.expected.get(profile, self.expected.get("standard", ""))


@dataclass(frozen=True)
class Unchecked:
    """A statement of a document that no measurement can decide, and why."""

    doc: str
    section: str
    quote: str
    reason: str  # e.g. "an analogy", "an opinion about teaching", "names no quantity"


@dataclass(frozen=True)
class Catalog:
    """The documents and their claims, as loaded from one folder."""

    documents: dict  # id -> Document, in order
    claims: tuple  # Claim, in document then file order
    unchecked: tuple = ()  # Unchecked statements, with the reason each cannot be checked
    story: tuple = ()  # Beat, in order: the Findings' questions and the statements that answer them
    unsaid: tuple = ()  # Unsaid, in order: what none of the documents says, and when to say it

    def of_family(self, name):
        """The claims a family measures (summaries are judged after every family ran)."""
        return [c for c in self.claims if c.family == name and c.rule != "summary"]

    def summaries(self):
        return [c for c in self.claims if c.rule == "summary"]

    def families_needed(self, claim):
        """The families whose runs a claim's verdict needs: its own, and its setups' for a summary."""
        family = {c.id: c.family for c in self.claims}
        return {claim.family, *(family.get(i) for i in claim.over)}

    def parent_of(self):
        """{child id: id of the summary claim that sums it up}."""
        return {child: c.id for c in self.claims for child in c.over}
