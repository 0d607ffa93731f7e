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
from reportgen.claims import normalized
from reportgen.errors import ConfigError

FOUND, GONE, FIXED, UNREAD, UNMATCHED = "found", "gone", "fixed", "unread", "unmatched"
STATES = {
    FOUND: "quote found in the document",
    GONE: "quote no longer in the document",
    # never found there (as far as this cache knows): a typo in the claim, never a fix in the document
    UNMATCHED: "quote not found in the document (copy it verbatim)",
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
            inputs.inside(path, folder)  # a link out of the folder would make a quote a probe of any file
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


def quotes(catalog, texts, seen=None):
    """{claim id: FOUND, GONE, UNMATCHED or UNREAD}: whether each claim's quote is in its
    document's text now. `seen`: the quotes found in earlier builds (`seen_before`); a quote
    not found now that never was is UNMATCHED, never GONE (so never an error FIXED). Without
    `seen`, every quote not found is GONE."""
    # reportgen.claims.quote_found, with each text normalized once rather than once per quote
    now = {doc: normalized(t.text) for doc, t in texts.items() if t.text is not None}
    out = {}
    for claim in catalog.claims:
        text = now.get(claim.doc)
        if text is None:
            out[claim.id] = UNREAD
        elif normalized(claim.quote) in text:
            out[claim.id] = FOUND
        else:
            out[claim.id] = GONE if seen is None or _seen_key(claim) in seen else UNMATCHED
    return out


SEEN = "quotes"  # the cache entry of the quotes found in their documents, per claims folder


def _seen_key(claim):
    return hashlib.sha256(f"{claim.id}\0{normalized(claim.quote)}".encode()).hexdigest()[:24]


def _folder_key(folder):
    return hashlib.md5(str(Path(folder or "built-in").resolve()).encode()).hexdigest()  # noqa: S324 (a name, not a secret)


def _check_seen(payload):
    ok = isinstance(payload, list) and all(isinstance(k, str) and len(k) == 24 for k in payload)
    return None if ok else "not a list of quote keys"


def seen_before(store, folder):
    """The quotes of the claims folder `folder` found in their documents by earlier builds."""
    return set(store.load(SEEN, _folder_key(folder), _check_seen) or ()) if store is not None else set()


def looked_up(catalog, texts, folder, store):
    """`quotes`, with what the build's cache (`store`) knows of the claims folder `folder`'s
    quotes from earlier builds; it then learns this build's."""
    seen = seen_before(store, folder) if store.enabled else set()
    states = quotes(catalog, texts, seen)
    remember_found(store, folder, catalog, states, seen)
    return states


def remember_found(store, folder, catalog, states, seen):
    """Add this build's found quotes to what the cache knows (a cache that refuses is no error)."""
    found = {_seen_key(c) for c in catalog.claims if states.get(c.id) == FOUND}
    if store is not None and store.writable and not found <= seen:
        store.store(SEEN, _folder_key(folder), sorted(seen | found))


def state(quote, verdict):
    """The state a judged claim shows: a gone quote of an error is an error fixed in the document."""
    return FIXED if quote == GONE and verdict in ERRORS else quote


def provenance(texts):
    """{document id: title, kind, file, SHA-256 and whether the text was read} for results.json."""
    return {doc: t.provenance() for doc, t in texts.items()}
