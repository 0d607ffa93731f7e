"""The claims: every checked statement of the documents, as hand-written data.

One file per document, `NNN.toml`, one `[[claim]]` entry per statement. Each entry
says where the statement is (section, verbatim quote), what the document prints
(`documented`), the measurement it is judged against (a family's named measure and
its arguments), the rule with its margin and a one-line justification, the kind of
claim, and the verdict expected from the last review. `documents.toml` lists the
documents. `reportgen check --record` rewrites only the `expected*` lines (expected.py);
findings.py loads the Findings' prose.
"""

import re
from pathlib import Path

from reportgen.claims.entries import (BOUNDS, DOC_KEYS, DOC_LONGEST, ID, KINDS, ONE_LINE, OPTIONAL, REQUIRED, RULES,
                                      SEVERITIES, TEXT, load, load_documents, load_unchecked)
from reportgen.claims.files import default_folder
from reportgen.claims.findings import load_findings
from reportgen.claims.records import Catalog, Claim, Document, Unchecked

__all__ = ["BOUNDS", "DOC_KEYS", "DOC_LONGEST", "ID", "KINDS", "ONE_LINE", "OPTIONAL", "REQUIRED", "RULES",
           "SEVERITIES", "TEXT", "Catalog", "Claim", "Document", "Unchecked", "catalog", "default_folder", "load",
           "load_documents", "load_unchecked", "normalized", "quote_found"]


def catalog(folder=None):
    """Documents, claims, not-checkable statements and the Findings' prose of `folder`
    (default: the package's own)."""
    folder = Path(folder or default_folder())
    claims = tuple(load(folder))
    story, unsaid = load_findings(claims, folder)
    return Catalog(load_documents(folder), claims, tuple(load_unchecked(folder)), story, unsaid)


_DELIMITERS = re.compile(r"\\[()\[\]$]|[$*`_#>|]")  # \$: a claims text's dollar sign (CONTRIBUTING)


def normalized(text):
    """Text with markdown and LaTeX delimiters dropped and whitespace collapsed, for quote matching."""
    return " ".join(_DELIMITERS.sub("", text).split())


def quote_found(quote, document_text):
    """Whether a claim's quote is in its document, verbatim up to delimiters and whitespace."""
    return normalized(quote) in normalized(document_text)
