"""The claims registry against what a build measures, and `reportgen check`."""

import json

from conftest import describe, invoke

from reportgen import registry
from reportgen.claims import VERDICTS
from reportgen.sources import DOCUMENTS


def measured_checks(quick_build):
    return {
        check["id"]: (name, check)
        for name, experiment in quick_build.results["experiments"].items()
        for check in experiment["checks"]
    }


def test_every_registered_claim_has_a_measurement(quick_build):
    """A registry entry whose experiment ran must match a check of the build."""
    measured = measured_checks(quick_build)
    ran = set(quick_build.results["experiments"])
    orphans = [i for i in registry.load() if i.split(".", 1)[0] in ran and i not in measured]
    assert not orphans, f"registered claims nothing measured: {orphans[:10]}"


def test_every_documented_row_is_registered(quick_build):
    """Every check row (a documented value beside a measurement) has a registry entry."""
    entries = registry.load()
    missing = [i for i in measured_checks(quick_build) if i not in entries]
    assert not missing, f"checks without a registered claim (run 'reportgen check --record'): {missing[:10]}"


def test_registry_entries_are_complete():
    """Each entry names its document section, statement, rule and a valid expected verdict."""
    entries = registry.load()
    assert entries
    for claim_id, entry in entries.items():
        assert entry["doc"] in DOCUMENTS
        assert entry["section"] and entry["statement"], claim_id
        assert entry["rule"] in ("exact", "interval", "threshold", "none"), claim_id
        for key in registry.EXPECTED_KEYS:
            assert entry.get(key, "confirmed") in VERDICTS, (claim_id, key)


def test_registry_source_matches_checks(quick_build):
    """A claim is filed under the document its check cites."""
    entries = registry.load()
    for claim_id, (_, check) in measured_checks(quick_build).items():
        if claim_id in entries:
            assert check["source"].split(" ", 1)[0] == entries[claim_id]["doc"], claim_id


def test_check_passes_when_verdicts_match(warm_dir):
    """`reportgen check` exits 0 when every verdict equals the registry's."""
    result = invoke(["check", "--profile", "quick", "-q"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "CHANGED" not in result.stdout


def test_check_fails_on_a_flipped_verdict(warm_dir, monkeypatch):
    """A registry expecting another verdict makes `check` exit 1 and name the claim."""
    entries = registry.load()
    victim = next(i for i, e in entries.items() if e["expected"] == "confirmed" and "expected_quick" not in e)
    flipped = {**entries, victim: {**entries[victim], "expected": "contradicted"}}
    monkeypatch.setattr(registry, "load", lambda: flipped)
    result = invoke(["check", "--profile", "quick", "--json", "-q"], warm_dir)
    assert result.exit_code == 1, describe(result)
    rows = {r["id"]: r for r in json.loads(result.stdout)["rows"]}
    assert rows[victim]["status"] == "CHANGED"
    assert rows[victim]["expected"] == "contradicted"


def test_check_seeds_marks_unstable_verdicts(warm_dir):
    """--seeds 2 gives two verdicts per claim; 'unstable' is true exactly when they differ."""
    result = invoke(["check", "--profile", "quick", "--only", "variance", "--seeds", "2", "--json", "-q"], warm_dir)
    assert result.exit_code in (0, 1), describe(result)
    rows = json.loads(result.stdout)["rows"]
    assert all(len(r["seed_verdicts"]) == 2 for r in rows if r["status"] != "MISSING")
    assert all(r["unstable"] == (len(set(r["seed_verdicts"])) > 1) for r in rows)
