"""The Findings' prose from data: each sentence chosen by verdicts, each number filled in.

`reportgen/claims/findings.toml` holds the sentences; this module picks, for each question
of the √d_k story, the one its statements' verdicts call for, and fills in the numbers they
name from this build's measurements (reportgen.judging.prose: a Prose, which rendering prints).
No sentence here is typed by hand.
"""

from types import SimpleNamespace

from reportgen.judging import prose
from reportgen.model import Beat, Prose

WRONG = ("contradicted", "partly")
OPEN = ("inconclusive", "unverifiable")


def choice(verdicts):
    """Which of a beat's texts its statements' verdicts call for: holds, mixed, fails or open.
    A statement that holds in part is right in part: with it the answer is mixed, never fails."""
    wrong = any(v in WRONG for v in verdicts)
    right = any(v in ("confirmed", "partly") for v in verdicts)
    if wrong:
        return "mixed" if right else "fails"
    if any(v in OPEN for v in verdicts):
        return "open"
    return "holds"


SCALE_ID = "000.scale-of-evidence"  # the id {scale…} placeholders are filled under (no claim has it)


def scale_of(beat, sections):
    """The measurement a beat's `scale` names, from this build's results; None when not run."""
    if not beat.scale:
        return None
    family, name = beat.scale.split(".", 1)
    for s in sections:
        if s.experiment.name == family and not s.error and s.run.results is not None:
            try:
                return s.experiment.measures()[name](s.run.results)
            except Exception:  # a measure this build's results cannot give: the sentence is left out
                return None
    return None


def _scale_sentence(beat, measurement):
    if measurement is None or not beat.scale_text:
        return Prose()
    text = beat.scale_text.replace("{scale", "{" + SCALE_ID)
    fake = SimpleNamespace(measurement=measurement, verdict="", claim=SimpleNamespace(threshold=None))
    sentence = prose.resolve(text, {SCALE_ID: fake})
    undecided = getattr(measurement, "undecided", "")
    return Prose(sentence.parts + ((f" {undecided[0].upper()}{undecided[1:]}.",) if undecided else ()))


def shown(sections):
    """{claim id: (Judged, family)} of the claims the sections' claims tables show, in order."""
    return {j.id: (j, s.experiment.name) for s in sections for t in s.tables if isinstance(t, tuple) for j in t[1]}


def story(catalog, sections):
    """The beats whose statements this build judged and shows, each with its texts resolved."""
    rows = shown(sections)
    judged = {i: j for i, (j, _) in rows.items()}
    out = []
    for beat in catalog.story:
        mine = [i for i in beat.claims if i in rows]
        if not mine:
            continue
        which = choice([rows[i][0].verdict for i in mine])
        text = {"holds": beat.holds, "fails": beat.fails, "mixed": beat.mixed or beat.fails,
                "open": beat.open or beat.holds}[which]
        out.append(Beat(question=beat.question, which=which, text=prose.resolve(text, judged),
                        lead=prose.resolve(beat.lead, judged), scale=_scale_sentence(beat, scale_of(beat, sections)),
                        claims=tuple(mine), families=tuple(dict.fromkeys(rows[i][1] for i in mine))))
    return tuple(out)


def unsaid(catalog, sections):
    """What none of the documents says, where this build's verdicts show it."""
    rows = shown(sections)
    judged = {i: j for i, (j, _) in rows.items()}
    out = []
    for item in catalog.unsaid:
        first = rows.get(item.claims[0])
        if first is not None and first[0].verdict in item.when:
            out.append(prose.resolve(item.text, judged))
    return tuple(out)
