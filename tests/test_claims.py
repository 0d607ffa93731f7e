"""The claims data, the judge and `reportgen check`: one home per claim, verdicts from rules."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import describe, invoke

from reportgen import claims
from reportgen.claims import expected
from reportgen.errors import ConfigError
from reportgen.experiments import EXPERIMENTS
from reportgen.judging import vocabulary

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def seed_text(doc):
    (path,) = SEEDS.glob(f"{doc}_*.txt")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def catalog():
    return vocabulary.catalog()


# --- the data ------------------------------------------------------------------------


def test_every_claim_names_a_family_and_measure_that_exist(catalog):
    """A claim's measure is '<family>.<name>' of a registered family's MEASURES."""
    assert len(catalog.claims) > 300
    for c in catalog.claims:
        assert c.family in EXPERIMENTS, c.id
        if c.measure:
            assert c.measure.split(".", 1)[1] in EXPERIMENTS[c.family].measures(), c.id


def test_every_claim_cites_a_section_its_family_covers(catalog):
    """`reportgen list` and each section's 'Documents covered' name every section a claim cites."""
    for c in catalog.claims:
        if c.family:
            covers = {(s.doc, s.section) for s in EXPERIMENTS[c.family].covers}
            assert (c.doc, c.section) in covers, c.id


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source documents (../shared/seeds) are not here")
def test_every_quote_is_in_its_document(catalog):
    """Each quote is verbatim in its document, markdown and LaTeX delimiters and whitespace aside."""
    texts = {doc: seed_text(doc) for doc in catalog.documents}
    missing = [c.id for c in catalog.claims if not claims.quote_found(c.quote, texts[c.doc])]
    assert not missing, f"quotes not found in their documents: {missing[:10]}"


def test_a_quote_that_writes_a_dollar_sign_as_claims_texts_do_is_found():
    assert claims.quote_found(r"costs \$5 per run", "It costs $5 per run.")


def test_quote_matching_ignores_only_delimiters_and_space():
    text = "The **variance** is $\\sqrt{d_k}$,\n  not `d_k`."
    assert claims.quote_found("The variance is \\sqrt{d_k}, not d_k.", text)
    assert not claims.quote_found("The variance is \\sqrt{d_k}, not d_v.", text)


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"rule": "guess"}, "rule 'guess' is not one of"),
        ({"kind": "vibes"}, "kind 'vibes' is not one of"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"expected": "maybe"}, "verdict 'maybe' is not one of"),
        ({"rule": "at_least"}, "needs a threshold"),
        ({"rule": "at_least", "threshold": "not_a_threshold"}, "needs a threshold"),
        ({"measure": "nofamily"}, 'needs measure = "<family>.<name>"'),
        ({"id": "Bad Id"}, "id must be"),
        # text that is not text, or not plain: a traceback, or a list or an ESC on the pages, before
        ({"note": 42}, "'note' must be text in quotes, not int 42"),
        ({"quote": ["a", "<b>x</b>"]}, "'quote' must be text in quotes, not list"),
        ({"note": "a\u001bb"}, r"'note' holds a control character \(U\+001B\)"),
        ({"correct": "a\u202eb"}, r"'correct' holds a control character \(U\+202E\)"),
        ({"section": " "}, "'section' is empty"),
        ({"documented": [1, 2]}, "'documented' must be text, or a list of texts"),
        ({"args": 3}, "'args' must be a table"),
        ({"note": "as {900.a|zz} says"}, r"'note' has \{900.a\|zz\}, a field"),  # else printed as typed
        ({"rule": "at_least", "threshold": [1]}, "threshold must be a number or a name"),  # was a TypeError
        ({"margin": True}, "margin must be a positive finite number"),
    ],
)
def test_bad_claims_data_is_one_error_naming_the_claim(tmp_path, entry, words):
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "documents.toml").write_text('[[document]]\nid = "900"\ntitle = "T"\n')
    base = {"id": "900.a", "section": "S", "quote": "q", "documented": "1", "kind": "statistical",
            "rule": "interval", "measure": "variance.var_qk", "justification": "j", "table": "t",
            "label": "L", "expected": "confirmed"}
    lines = ["[[claim]]"] + [f"{k} = {json.dumps(v)}" for k, v in {**base, **entry}.items()]
    (folder / "900.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=words):
        vocabulary.catalog(folder)  # a verdict, a threshold's name, a placeholder: judging's words


@pytest.mark.parametrize("text", ['claim = "x"', "claim = [1]", 'not_checkable = "x"'])
def test_a_claims_file_whose_tables_are_not_tables_is_one_error(tmp_path, text):
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "documents.toml").write_text('[[document]]\nid = "900"\ntitle = "T"\n')
    (folder / "900.toml").write_text(text + "\n")
    with pytest.raises(ConfigError, match=r"900.toml: '(claim|not_checkable)' must be \[\["):
        vocabulary.catalog(folder)


def test_a_listed_document_without_its_claims_file_is_an_error(tmp_path):
    """A document in documents.toml with no <id>.toml would get no errata sheet, without a word."""
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "documents.toml").write_text('[[document]]\nid = "900"\ntitle = "T"\n')
    with pytest.raises(ConfigError, match=r"lists 900, but .*900.toml is not a file; add it"):
        claims.load(folder)
    (folder / "900.toml").write_text("")  # a document with no claims yet
    assert claims.load(folder) == []


def test_a_misspelt_measure_or_family_is_bad_input_before_any_work(tmp_path, catalog):
    from dataclasses import replace

    from reportgen.claims.checks import check
    from reportgen.experiments import EXPERIMENTS

    victim = next(c for c in catalog.claims if c.measure == "variance.range_max")
    typo = replace(catalog, claims=tuple(replace(c, measure="variance.range_maxx") if c is victim else c
                                         for c in catalog.claims))
    with pytest.raises(ConfigError, match=rf"claim {victim.id}: measure 'range_maxx' is not one of variance's; "
                                          r"did you mean 'range_max'\?"):
        check(typo, EXPERIMENTS, [EXPERIMENTS["variance"]])
    check(typo, EXPERIMENTS, [EXPERIMENTS["saturation"]])  # only the families that run are asked
    elsewhere = replace(catalog, claims=(replace(victim, measure="varianze.range_max"),))
    with pytest.raises(ConfigError, match="family 'varianze' is not one of reportgen's; did you mean 'variance'"):
        check(elsewhere, EXPERIMENTS, [])
    for profile in ("quick", "standard", "full"):  # the built-in claims pass, on every profile's grid
        check(catalog, EXPERIMENTS, list(EXPERIMENTS.values()), profile)

    class Broken:  # a family whose measures module does not import: its section fails, not the build
        name = "variance"
        claim_tables = ()

        def tables_for(self, documents):
            return ()

        def measures(self):
            raise RuntimeError("a bug in measures.py")

    check(typo, {**EXPERIMENTS, "variance": Broken()}, [Broken()])


# --- record --------------------------------------------------------------------------


def test_record_rewrites_only_expected_lines(tmp_path, catalog):
    folder = tmp_path / "claims"
    shutil.copytree(claims.default_folder(), folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    before = {p.name: p.read_text() for p in folder.glob("*.toml")}
    victim = next(c for c in catalog.claims if c.expected_for("standard") == "confirmed" and "quick" not in c.expected)
    assert len(expected.record({victim.id: "contradicted"}, "standard", folder)) == 1
    assert len(expected.record({victim.id: "confirmed"}, "quick", folder)) == 1  # quick now differs from standard
    after = {p.name: p.read_text() for p in folder.glob("*.toml")}
    changed = [n for n in before if before[n] != after[n]]
    assert len(changed) == 1
    removed = set(before[changed[0]].splitlines()) - set(after[changed[0]].splitlines())
    added = set(after[changed[0]].splitlines()) - set(before[changed[0]].splitlines())
    assert all(line.startswith("expected") for line in removed | added), (removed, added)
    reloaded = {c.id: c for c in claims.load(folder)}[victim.id]
    assert reloaded.expected == {"standard": "contradicted", "quick": "confirmed"}
    assert len(expected.record({victim.id: "confirmed"}, "standard", folder)) == 1  # quick equal again: dropped
    assert {c.id: c for c in claims.load(folder)}[victim.id].expected == {"standard": "confirmed"}


# --- the command ---------------------------------------------------------------------


@pytest.mark.slow
def test_check_passes_when_verdicts_match(warm_dir):
    """`reportgen check` exits 0 when every verdict equals the expected one."""
    result = invoke(["check", "--profile", "quick", "-q"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "CHANGED" not in result.stdout


def test_check_fails_on_a_flipped_verdict(tmp_path, monkeypatch, catalog):
    """Claims data expecting another verdict makes `check` exit 1 and name the claim."""
    folder = tmp_path / "claims"
    shutil.copytree(claims.default_folder(), folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    victim = next(c for c in catalog.claims if c.family == "variance" and c.expected_for("quick") == "confirmed")
    expected.record({victim.id: "contradicted"}, "quick", folder)
    monkeypatch.setattr(claims, "default_folder", lambda: folder)
    result = invoke(["check", "--profile", "quick", "--only", "variance", "--json", "-q"], tmp_path)
    assert result.exit_code == 1, describe(result)
    rows = {r["id"]: r for r in json.loads(result.stdout)["rows"]}
    assert rows[victim.id]["status"] == "CHANGED" and rows[victim.id]["expected"] == "contradicted"
    assert rows[victim.id]["quote"] == victim.quote


def test_check_on_another_device_says_whose_expectations_it_compares_with():
    """The expectations are the CPU's: on a GPU (its own random streams, so other draws) a changed
    verdict near a boundary is no code change, and the check says so in one line."""
    from reportgen import factcheck

    def row(status, boundary=""):
        return factcheck.Row("000.x", "000", "1", "s", "q", "1", "1", "", "exact", "confirmed", "confirmed",
                             status, boundary=boundary)

    rows = [row("same"), row(factcheck.CHANGED, "quick runs read either by seed"), row(factcheck.CHANGED)]
    assert factcheck.RECORDED_ON == "cpu" and factcheck.device_note("cpu", rows) is None
    note = factcheck.device_note("cuda", rows)
    assert note.startswith("note: the expected verdicts were recorded on the cpu; cuda draws other random numbers")
    assert "(2 changed here, 1 of them on a boundary the claims data names)" in note and "--device cpu" in note


def test_check_records_expectations_on_the_cpu_only(tmp_path, monkeypatch):
    """--record on a GPU would make its draws the expectations every CPU run is held to: refused,
    one line, before any experiment runs."""
    from reportgen import device

    monkeypatch.setattr(device, "resolve_device", lambda choice: "cuda")
    monkeypatch.setattr(claims, "default_folder", lambda: pytest.fail("nothing may be read or recorded"))
    result = invoke(["check", "--profile", "quick", "--only", "variance", "--record", "-q"], tmp_path)
    assert result.exit_code == 2, describe(result)
    assert "--record" in result.stderr and "--device cpu" in result.stderr and "Traceback" not in result.output


@pytest.mark.slow
def test_check_json_names_the_device_and_the_expectations_device(warm_dir):
    result = invoke(["check", "--profile", "quick", "--only", "worked", "--json", "-q"], warm_dir)
    payload = json.loads(result.stdout)
    assert (payload["device"], payload["expected_recorded_on"]) == ("cpu", "cpu")
    assert "note:" not in result.stderr


def test_check_with_broken_claims_data_is_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "claims"
    shutil.copytree(claims.default_folder(), folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = next(folder.glob("000*.toml"))
    path.write_text(path.read_text() + '\n[[claim]]\nid = "000.broken"\n')
    monkeypatch.setattr(claims, "default_folder", lambda: folder)
    result = invoke(["check", "--profile", "quick", "--only", "variance", "-q"], tmp_path)
    assert result.exit_code == 2, describe(result)
    assert "000.broken" in result.stderr and "Traceback" not in result.output


@pytest.mark.slow
def test_check_seeds_marks_unstable_verdicts(warm_dir):
    """--seeds 2 gives two verdicts per claim; 'unstable' is true exactly when they differ."""
    result = invoke(["check", "--profile", "quick", "--only", "variance", "--seeds", "2", "--json", "-q"], warm_dir)
    assert result.exit_code in (0, 1), describe(result)
    rows = json.loads(result.stdout)["rows"]
    assert all(len(r["seed_verdicts"]) == 2 for r in rows if r["status"] != "MISSING")
    assert all(r["unstable"] == (len(set(r["seed_verdicts"])) > 1) for r in rows)


def test_interval_claims_use_the_report_level(catalog):
    """Every claim that names a confidence level uses stats.LEVEL, the level the chapters print.

    A claim at another level would show a different interval in the Findings and the appendix than
    the chapter's table or figure shows for the same quantity.
    """
    from reportgen.experiments.stats import LEVEL

    # The battery's 'level' is an accuracy target; 002's ranges are prediction ranges of one run,
    # judged one-sided at 1% (the central 98%), and say so in their justification.
    others = [c.id for c in catalog.claims if "level" in c.args and float(c.args["level"]) != LEVEL
              and not c.measure.startswith("lm.battery_")
              and not (c.measure == "variance.range_max" and "one-sided" in c.justification)]
    assert not others


def test_contributing_documents_every_kind_rule_and_key():
    """CONTRIBUTING names every kind, rule and key the claims loader accepts."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    accepted = claims.KINDS + claims.RULES + claims.REQUIRED + claims.OPTIONAL
    missing = [name for name in accepted if f"`{name}`" not in text]
    assert not missing, f"CONTRIBUTING.md does not document: {missing}"
