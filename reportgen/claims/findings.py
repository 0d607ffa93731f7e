"""The Findings' prose as data (findings.toml): the story's questions and what none of the documents says."""

from dataclasses import dataclass
from pathlib import Path

from reportgen import text
from reportgen.claims.fields import LONGEST_TEXT
from reportgen.claims.files import read
from reportgen.errors import ConfigError
from reportgen.model import VERDICTS


@dataclass(frozen=True)
class Beat:
    """One question of the Findings' story, the statements that answer it, and what to say
    when they hold, fail, hold in part or stay open (see findings.toml)."""

    question: str
    claims: tuple
    holds: str
    fails: str
    mixed: str = ""
    open: str = ""
    lead: str = ""
    scale: str = ""  # "<family>.<measure>" whose numbers `scale_text` states: what the evidence rests on
    scale_text: str = ""  # with {scale} (the measure's value) and {scale:detailN} placeholders


@dataclass(frozen=True)
class Unsaid:
    """A finding none of the documents states, shown when its first claim's verdict is in `when`."""

    claims: tuple
    when: tuple
    text: str


_BEAT_KEYS = {"question": True, "claims": True, "holds": True, "fails": True, "mixed": False, "open": False,
              "lead": False, "scale": False, "scale_text": False}
_UNSAID_KEYS = {"claims": True, "when": True, "text": True}


def _typed(entry, where):
    """Texts that are one short paragraph without control characters; lists of short names."""
    problems = []
    for key, value in entry.items():
        if key in ("claims", "when"):
            if not (isinstance(value, list) and all(isinstance(v, str) and len(v) <= 80 for v in value)):
                problems.append(f"{where}: '{key}' must be a list of names")
        elif not isinstance(value, str):
            problems.append(f"{where}: '{key}' must be text in quotes, not {type(value).__name__}")
        elif (bad := text.control(value)) is not None:
            problems.append(f"{where}: '{key}' holds {text.named(bad)}; remove it")
        elif len(value) > LONGEST_TEXT:
            problems.append(f"{where}: '{key}' is {len(value)} characters, over the limit of {LONGEST_TEXT}")
    return problems


def load_findings(claims, folder):
    """(story, unsaid) from `folder`'s `findings.toml`; every claim it lists is checked (the
    placeholders of its texts are judging's vocabulary: reportgen.judging.catalog checks them)."""
    path = Path(folder) / "findings.toml"
    if not path.is_file():
        return (), ()
    data = read(path)
    ids = {c.id for c in claims}
    story, unsaid, problems = [], [], []
    for kind, cls, keys in (("beat", Beat, _BEAT_KEYS), ("unsaid", Unsaid, _UNSAID_KEYS)):
        entries = data.get(kind, [])
        if not (isinstance(entries, list) and all(isinstance(e, dict) for e in entries)):
            raise ConfigError(f"claims data: findings.toml: '{kind}' must be [[{kind}]] tables, not {entries!r:.40}")
        for i, entry in enumerate(entries, start=1):
            where = f"findings.toml {kind} #{i}"
            problems += [f"{where}: missing key '{k}'" for k, required in keys.items() if required and k not in entry]
            problems += [f"{where}: unknown key '{k}'" for k in entry if k not in keys]
            problems += _typed(entry, where)
            if any(p.startswith(where) for p in problems):
                continue
            problems += [f"{where}: names {n}, which is no claim" for n in entry.get("claims", []) if n not in ids]
            problems += [f"{where}: verdict '{v}' is not one of {', '.join(VERDICTS)}"
                         for v in entry.get("when", []) if v not in VERDICTS]
            if not any(p.startswith(where) for p in problems):
                fields = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
                (story if kind == "beat" else unsaid).append(cls(**fields))
    if problems:
        raise ConfigError("claims data: " + "; ".join(problems[:5]) + (" …" if len(problems) > 5 else ""))
    return tuple(story), tuple(unsaid)
