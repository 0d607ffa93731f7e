"""The results cache: hits, misses, --no-cache and corrupt entries."""

import json
import math

import pytest

from conftest import PDF_FAMILY, describe, invoke, pdf_supported
from reportgen.experiments import EXPERIMENTS
from reportgen.publish import cache, keys

QUICK_HTML = ["build", "--profile", "quick", "--format", "html", "--only", "variance"]
# Where any family shows the cache's behaviour and a run is repeated: temperature runs in 0.3 s
# (variance in 1.5 s), and its part of results.json is the same in an --only build as in the
# whole one (worked's and gradients' tables also show other families' results).
RERUN = "temperature"
RERUN_HTML = ["build", "--profile", "quick", "--format", "html", "--only", RERUN]
N = len(EXPERIMENTS)


def result_entries(folder, name="variance"):
    """A family's results entries in a cache folder (not its figure entries)."""
    return sorted((folder / ".reportgen-cache").glob(f"{name}-*.json"))


def experiment_entry(folder, name="variance"):
    """An experiment's part (variance's unless named) of folder/output/results.json."""
    doc = json.loads((folder / "output" / "results.json").read_text(encoding="utf-8"))
    return doc["experiments"][name]


def test_second_build_runs_nothing(warm_dir, quick_build):
    """A build after a build runs nothing and gives the same results.json (quietly: no progress)."""
    result = invoke(["build", "--profile", "quick", "--format", "html", "-q"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert result.stdout.startswith(f"ran 0 of {N}, {N} from cache")
    assert result.stderr == ""
    assert (warm_dir / "output" / "results.json").read_bytes() == quick_build.results_bytes


def test_no_cache_reruns(warm_dir, quick_build):
    """--no-cache runs the experiment again and refreshes its entry."""
    experiment = EXPERIMENTS[RERUN]
    digest = keys.run_key(experiment, experiment.params["quick"], 0, "cpu/1")
    cache.Cache(warm_dir / ".reportgen-cache").store(RERUN, digest, {"stale": True})
    (entry,) = result_entries(warm_dir, RERUN)
    result = invoke([*RERUN_HTML, "--no-cache"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    assert experiment_entry(warm_dir, RERUN) == quick_build.results["experiments"][RERUN]
    assert "stale" not in entry.read_text()  # the refreshed entry replaced the planted one


def test_planted_entry_is_used(warm_dir):
    """The cache is really read: a valid entry with other numbers shows up in results.json."""
    experiment = EXPERIMENTS["variance"]
    digest = keys.run_key(experiment, experiment.params["quick"], 0, "cpu/1")
    folder = warm_dir / ".reportgen-cache"
    data = cache.Cache(folder).load("variance", digest)
    data["results"]["sweep"][0]["var"] = 123.25
    cache.Cache(folder).store("variance", digest, data)
    result = invoke(QUICK_HTML, warm_dir)
    assert "ran 0 of 1, 1 from cache" in result.stdout, describe(result)
    assert experiment_entry(warm_dir)["results"]["sweep"][0]["var"] == 123.25


def test_corrupted_entry_is_recomputed(warm_dir, quick_build):
    """A garbage cache entry is recomputed without failing, and rewritten valid."""
    (entry,) = result_entries(warm_dir, RERUN)
    entry.write_bytes(b"\x00garbage{{{ not json")
    result = invoke(RERUN_HTML, warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    assert experiment_entry(warm_dir, RERUN) == quick_build.results["experiments"][RERUN]
    experiment = EXPERIMENTS[RERUN]
    digest = keys.run_key(experiment, experiment.params["quick"], 0, "cpu/1")
    stored = cache.Cache(warm_dir / ".reportgen-cache").load(RERUN, digest)
    assert stored["results"] == experiment_entry(warm_dir, RERUN)["results"]


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
    quick = keys.run_key(experiment, experiment.params["quick"], 0, "cpu/1")  # device/threads
    assert (warm_dir / ".reportgen-cache" / f"variance-{quick}.json").is_file()
    assert keys.run_key(experiment, experiment.params["standard"], 0, "cpu") != quick


def test_key_follows_the_run_code_and_nothing_else(tmp_path, monkeypatch):
    """A family's key covers run.py and what it imports; measures, tables and figures are not in it."""
    import textwrap

    from test_extension import FAMILY

    package = tmp_path / "keyfam"
    package.mkdir()
    for name, text in FAMILY.items():
        (package / name).write_text(textwrap.dedent(text))
    (package / "helper.py").write_text("SCALE = 1\n")
    (package / "run.py").write_text("from keyfam.helper import SCALE\n" + textwrap.dedent(FAMILY["run.py"]))
    monkeypatch.syspath_prepend(str(tmp_path))
    import keyfam

    family = keyfam.EXPERIMENT
    key = lambda: keys.run_key(family, family.params["quick"], 0, "cpu/1")  # noqa: E731
    before = key()
    for role in ("measures.py", "tables.py", "figures.py"):
        (package / role).write_text((package / role).read_text() + "\n# a caption or margin changed\n")
    assert key() == before
    (package / "helper.py").write_text("SCALE = 2\n")  # a module the run imports
    assert key() != before


@pytest.mark.slow
def test_changed_margin_reruns_nothing(warm_dir, monkeypatch):
    """Editing a claim's margin re-judges from the cache: no experiment runs, the interval moves."""
    import shutil

    from reportgen import claims

    folder = warm_dir / "claims"
    shutil.copytree(claims.default_folder(), folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    before = invoke(QUICK_HTML, warm_dir)
    assert "ran 0 of 1, 1 from cache" in before.stdout, describe(before)
    old = {c["id"]: c for c in json.loads((warm_dir / "output" / "results.json").read_text())["claims"]}
    for path in folder.glob("*.toml"):
        path.write_text(path.read_text().replace("level = 0.99", "level = 0.95"))
    monkeypatch.setattr(claims, "default_folder", lambda: folder)
    after = invoke(QUICK_HTML, warm_dir)
    assert "ran 0 of 1, 1 from cache" in after.stdout, describe(after)
    new = {c["id"]: c for c in json.loads((warm_dir / "output" / "results.json").read_text())["claims"]}
    law = "000.var-law-dk64"
    assert new[law]["measurement"]["value"] == old[law]["measurement"]["value"]
    assert new[law]["measurement"]["hi"] < old[law]["measurement"]["hi"]  # 95% is narrower than 99%


def test_key_depends_on_every_input():
    """The key changes with seed, params and device, and is stable otherwise."""
    experiment = EXPERIMENTS["variance"]
    params = experiment.params["quick"]
    base = keys.run_key(experiment, params, 0, "cpu")
    assert base == keys.run_key(experiment, params, 0, "cpu")
    others = {
        keys.run_key(experiment, params, 1, "cpu"),
        keys.run_key(experiment, params, 0, "cuda"),
        keys.run_key(experiment, experiment.params["full"], 0, "cpu"),
    }
    assert base not in others and len(others) == 3


def test_store_then_load_round_trip(tmp_path):
    """store/load round-trip plain numbers, NaN included; the folder is tagged as reportgen's."""
    store = cache.Cache(tmp_path / "c")
    assert store.store("exp", "a" * 32, {"x": [1, 2.5], "nan": float("nan")})
    loaded = store.load("exp", "a" * 32)
    assert loaded["x"] == [1, 2.5] and math.isnan(loaded["nan"])
    assert (tmp_path / "c" / cache.TAG).read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert not list((tmp_path / "c").glob(".*.tmp"))  # no temp files left


def test_load_missing_or_under_another_key(tmp_path):
    """A missing entry, or one stored under another key, loads as None."""
    store = cache.Cache(tmp_path)
    assert store.load("exp", "a" * 32) is None
    store.store("exp", "b" * 32, {"x": 1})
    (tmp_path / f"exp-{'b' * 32}.json").rename(tmp_path / f"exp-{'a' * 32}.json")
    assert store.load("exp", "a" * 32) is None


GARBAGE = [b"{ not json", b"", b"\xff\xfe\x00", b"[1, 2, 3]", b"null", b"reportgen-cache 4 other\n{}",
           b"reportgen-cache 4 %s %s\n{\"x\": 1}" % (b"a" * 32, b"0" * 64),  # a MAC that does not match
           b"reportgen-cache 4 %s %s\n{}" % (b"b" * 32, b"0" * 64),  # another key's
           b"reportgen-cache 4 %s \xc3\xa9\n{}" % (b"a" * 32)]  # a MAC that is no hex: "\u00e9"


def test_entry_of_another_version_is_a_quiet_miss(tmp_path):
    """reportgen 0.1's entries ({key, results}) are recomputed without a warning."""
    warnings = []
    (tmp_path / f"exp-{'a' * 32}.json").write_text(json.dumps({"key": "a" * 32, "results": {}}))
    assert cache.Cache(tmp_path, warn=warnings.append).load("exp", "a" * 32) is None
    assert warnings == [] and (tmp_path / cache.TAG).is_file()  # a 0.1 cache folder is adopted


@pytest.mark.parametrize("garbage", GARBAGE)
def test_load_garbage_is_none_with_a_warning(tmp_path, garbage):
    """Unreadable or malformed entries load as None (to be recomputed) with a warning, never raise."""
    warnings = []
    store = cache.Cache(tmp_path, warn=warnings.append)
    (tmp_path / f"exp-{'a' * 32}.json").write_bytes(garbage)
    assert store.load("exp", "a" * 32) is None
    assert len(warnings) == 1 and "ignored" in warnings[0]


@pytest.mark.slow
@pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint cannot load here")
def test_changed_stylesheet_reaches_the_cached_pdf(pdf_build_dir, monkeypatch):
    """A rebuild after a change to print.css renders a new PDF instead of reusing the cached one.

    pdf_build_dir holds a `--only PDF_FAMILY` build (the cheapest report to render) with both
    PDFs in its render cache. One core: the PDFs are rendered in this process, which sees the
    changed stylesheet (a worker process would read the package's own)."""
    import shutil
    from importlib import resources

    from reportgen.render import templates as tpl

    warm_dir = pdf_build_dir
    args = ["build", "--profile", "quick", "--only", PDF_FAMILY, "--format", "pdf", "--replace", "-q"]
    first = invoke(args, warm_dir)
    assert first.exit_code == 0, describe(first)
    before = (warm_dir / "output" / "report.pdf").read_bytes()
    assert invoke(args, warm_dir).exit_code == 0
    assert (warm_dir / "output" / "report.pdf").read_bytes() == before  # served by the render cache
    templates = warm_dir / "templates-copy"
    shutil.copytree(resources.files("reportgen.templates"), templates, ignore=shutil.ignore_patterns("*.py*"))
    (templates / "print.css").write_text((templates / "print.css").read_text() + "\nh2 { color: #123456; }\n")
    real = resources.files
    monkeypatch.setattr(tpl.resources, "files",
                        lambda name: templates if name == "reportgen.templates" else real(name))
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    third = invoke(args, warm_dir)
    assert third.exit_code == 0, describe(third)
    assert (warm_dir / "output" / "report.pdf").read_bytes() != before
