"""The documents' texts as they are now: read, hashed, and every claim's quote looked up in them.

A claim is written against a document's text; the text goes on being edited. At build time
each document's current text (the `documents` folder) is read and each quote is looked up in
it, so an edited passage shows up as "quote no longer in the document" instead of a verdict
on a sentence the document no longer holds, and an error corrected in the notes as fixed.
The built-in documents' texts are not shipped with reportgen; without a `documents` folder
their quotes are not looked up, and the SHA-256 their claims were written against is cited.
"""

import hashlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from reportgen import inputs, limits
from reportgen.errors import ConfigError

FOUND, GONE, FIXED, UNREAD = "found", "gone", "fixed", "unread"
STATES = {
    FOUND: "quote found in the document",
    GONE: "quote no longer in the document",
    FIXED: "error fixed in the document",  # an error whose quote is gone: the document no longer says it
    UNREAD: "quote not looked up (the document's text was not given)",
}
ERRORS = ("contradicted", "partly")  # verdicts whose statement a corrected document no longer makes
SUFFIXES = (".md", ".markdown", ".txt")


@dataclass(frozen=True)
class Text:
    """One document as this build found it."""

    id: str
    title: str
    kind: str
    file: str  # the file read (its name in the documents folder), or the one the claims were written against
    sha256: str  # of the text read, or the recorded one when the text was not given ("" if unknown)
    text: str | None = None  # None: not read

    def provenance(self):
        return {"title": self.title, "kind": self.kind, "file": self.file, "sha256": self.sha256,
                "text": "read" if self.text is not None else "not given"}


def _recorded():
    """{document id: {"file", "sha256"}} recorded for the built-in documents (templates/references.toml)."""
    data = tomllib.loads((resources.files("reportgen.templates") / "references.toml").read_text(encoding="utf-8"))
    return {d["id"]: d for d in data.get("document", [])}


def find(folder, doc):
    """The path of a document's text in `folder`: its `file`, else <id>.md/.txt or <id>_*.txt."""
    folder = Path(folder)
    if doc.file:
        return folder / doc.file
    candidates = [folder / f"{doc.id}{s}" for s in SUFFIXES if (folder / f"{doc.id}{s}").is_file()]
    candidates += sorted(p for s in SUFFIXES for p in folder.glob(f"{doc.id}_*{s}"))
    if len(candidates) > 1:
        raise ConfigError(f"documents: {len(candidates)} files could be document {doc.id}'s text in {folder} "
                          f"({', '.join(p.name for p in candidates[:3])}); name one with file = \"…\" in documents.toml")
    return candidates[0] if candidates else folder / f"{doc.id}.md"


def read(catalog, folder):
    """{document id: Text} for every document of the catalog; the texts read from `folder` when given."""
    recorded = _recorded() if not folder else {}
    out = {}
    for doc in catalog.documents.values():
        if not folder:
            known = recorded.get(doc.id, {})
            out[doc.id] = Text(doc.id, doc.title, doc.kind, known.get("file", ""), known.get("sha256", ""))
            continue
        path = find(folder, doc)
        try:
            data = inputs.read(path, limits.MAX_DOCUMENT_BYTES, way_out="give the document as a UTF-8 text file")
            text = data.decode("utf-8")
        except FileNotFoundError:
            raise ConfigError(f"documents: no text for document {doc.id} ({doc.title[:60]}) in {folder}: expected "
                              f"{path.name} (or name it with file = \"…\" in documents.toml)") from None
        except UnicodeDecodeError:
            raise ConfigError(f"documents: {path} is not UTF-8 text; save it as UTF-8") from None
        except inputs.InputRefused as exc:
            raise ConfigError(f"documents: {exc}") from None
        out[doc.id] = Text(doc.id, doc.title, doc.kind, path.name, hashlib.sha256(data).hexdigest(), text)
    return out


def quotes(catalog, texts):
    """{claim id: FOUND, GONE or UNREAD}: whether each claim's quote is in its document's text now."""
    from reportgen.claims import normalized

    # reportgen.claims.quote_found, with each text normalized once rather than once per quote
    now = {doc: normalized(t.text) for doc, t in texts.items() if t.text is not None}
    out = {}
    for claim in catalog.claims:
        text = now.get(claim.doc)
        out[claim.id] = UNREAD if text is None else FOUND if normalized(claim.quote) in text else GONE
    return out


def state(quote, verdict):
    """The state a judged claim shows: a gone quote of an error is an error fixed in the document."""
    return FIXED if quote == GONE and verdict in ERRORS else quote


def provenance(texts):
    """{document id: title, kind, file, SHA-256 and whether the text was read} for results.json."""
    return {doc: t.provenance() for doc, t in texts.items()}
