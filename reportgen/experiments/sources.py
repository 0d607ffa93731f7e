"""Where a documented statement sits: a document id and a section heading.

The documents themselves are listed, with their titles, in reportgen/claims/documents.toml.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """A section of a source document, as a family's `covers` names it."""

    doc: str
    section: str

    def __str__(self):
        return f"{self.doc} §{self.section}"
