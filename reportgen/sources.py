"""The five source documents: what to measure, never a source of results."""

from dataclasses import dataclass

DOCUMENTS = {
    "000": "Why Scale by √d_k? (tutorial with code and printed output)",
    "001": "Section 5.3: Scaled Attention — Why √d Matters (course notes)",
    "002": "Day 74: Scaled Dot Product Attention (lecture notes)",
    "003": "Chat answer: the 1/√d_k term (with an optional check in code)",
    "004": "Scaling in Transformer Architectures (short paper)",
}


@dataclass(frozen=True)
class Source:
    """Where a documented value was printed: document id and section heading."""

    doc: str
    section: str

    def __str__(self):
        return f"{self.doc} §{self.section}"
