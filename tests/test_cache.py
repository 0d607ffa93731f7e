"""The results cache: hits, misses, --no-cache and corrupt entries."""

import json
import math

import pytest

from conftest import describe, invoke
from reportgen import cache
from reportgen.experiments import EXPERIMENTS

QUICK_HTML = ["build", "--profile", "quick", "--format", "html", "--only", "variance"]
N = len(EXPERIMENTS)


def result_entries(folder):
    """The variance results entries of a cache folder (not its figure entries)."""
    return sorted((folder / ".reportgen-cache").glob("variance-*.json"))


def variance_entry(folder):
    """The variance experiment's part of folder/output/results.json."""
    doc = json.loads((folder / "output" / "results.json").read_text(encoding="utf-8"))
    return doc["experiments"]["variance"]


def test_second_build_runs_nothing(warm_dir, quick_build):
    """A build after a build runs nothing and gives the same results.json (quietly: no progress)."""
    result = invoke(["build", "--profile", "quick", "--format", "html", "-q"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert result.stdout.startswith(f"ran 0 of {N}, {N} from cache")
    assert result.stderr == ""
    assert (warm_dir / "output" / "results.json").read_bytes() == quick_build.results_bytes


def test_no_cache_reruns(warm_dir, quick_build):
    """--no-cache runs the experiment again and refreshes its entry."""
    (entry,) = result_entries(warm_dir)
    entry.write_text(json.dumps({"key": entry.stem.split("-", 1)[1], "results": {"stale": True}}))
    result = invoke([*QUICK_HTML, "--no-cache"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    assert variance_entry(warm_dir) == quick_build.results["experiments"]["variance"]
    assert "stale" not in entry.read_text()  # the refreshed entry replaced the planted one


def test_planted_entry_is_used(warm_dir):
    """The cache is really read: a valid entry with other numbers shows up in results.json."""
    (entry,) = result_entries(warm_dir)
    data = json.loads(entry.read_text())
    data["results"]["results"]["sweep"][0]["var"] = 123.25  # entry: {computed_at, results}
    entry.write_text(json.dumps(data))
    result = invoke(QUICK_HTML, warm_dir)
    assert "ran 0 of 1, 1 from cache" in result.stdout, describe(result)
    assert variance_entry(warm_dir)["results"]["sweep"][0]["var"] == 123.25


GARBAGE = [b"{ not json", b"", b"\xff\xfe\x00", b"[1, 2, 3]", b'{"key": "other", "results": {}}', b"null"]


def test_corrupted_entry_is_recomputed(warm_dir, quick_build):
    """A garbage cache entry is recomputed without failing, and rewritten valid."""
    (entry,) = result_entries(warm_dir)
    entry.write_bytes(b"\x00garbage{{{ not json")
    result = invoke(QUICK_HTML, warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    assert variance_entry(warm_dir) == quick_build.results["experiments"]["variance"]
    assert json.loads(entry.read_text())["key"] == entry.stem.split("-", 1)[1]


def test_changed_seed_is_a_miss(warm_dir, quick_build):
    """Another seed misses the cache, adds an entry and gives other numbers."""
    result = invoke([*QUICK_HTML, "--seed", "1"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    assert len(result_entries(warm_dir)) == 2
    written = json.loads((warm_dir / "output" / "results.json").read_text())
    assert written["provenance"]["seed"] == 1
    ours = written["experiments"]["variance"]["results"]["sweep"]
    theirs = quick_build.results["experiments"]["variance"]["results"]["sweep"]
    assert [r["var"] for r in ours] != [r["var"] for r in theirs]


def test_changed_profile_is_a_miss(warm_dir):
    """Another profile's parameters miss the cache (checked on the key, no run)."""
    experiment = EXPERIMENTS["variance"]
    quick = cache.key(experiment, experiment.params["quick"], 0, "cpu/1")  # device/threads
    assert (warm_dir / ".reportgen-cache" / f"variance-{quick}.json").is_file()
    assert cache.key(experiment, experiment.params["standard"], 0, "cpu") != quick


def test_key_depends_on_every_input():
    """The key changes with seed, params and device, and is stable otherwise."""
    experiment = EXPERIMENTS["variance"]
    params = experiment.params["quick"]
    base = cache.key(experiment, params, 0, "cpu")
    assert base == cache.key(experiment, params, 0, "cpu")
    others = {
        cache.key(experiment, params, 1, "cpu"),
        cache.key(experiment, params, 0, "cuda"),
        cache.key(experiment, experiment.params["full"], 0, "cpu"),
    }
    assert base not in others and len(others) == 3


def test_store_then_load_round_trip(tmp_path):
    """store/load round-trip plain numbers, NaN included."""
    cache.store(tmp_path, "exp", "abc", {"x": [1, 2.5], "nan": float("nan")})
    loaded = cache.load(tmp_path, "exp", "abc")
    assert loaded["x"] == [1, 2.5] and math.isnan(loaded["nan"])
    assert [p.name for p in tmp_path.iterdir()] == ["exp-abc.json"]  # no temp files left


def test_load_missing_or_mismatched(tmp_path):
    """A missing entry, or one stored under another key, loads as None."""
    assert cache.load(tmp_path, "exp", "abc") is None
    (tmp_path / "exp-abc.json").write_text(json.dumps({"key": "zzz", "results": {}}))
    assert cache.load(tmp_path, "exp", "abc") is None
    (tmp_path / "exp-abc.json").write_text(json.dumps({"key": "abc"}))
    assert cache.load(tmp_path, "exp", "abc") is None


@pytest.mark.parametrize("garbage", GARBAGE)
def test_load_garbage_is_none(tmp_path, garbage):
    """Unreadable or malformed entries load as None (to be recomputed), never raise."""
    (tmp_path / "exp-abc.json").write_bytes(garbage)
    assert cache.load(tmp_path, "exp", "abc") is None
