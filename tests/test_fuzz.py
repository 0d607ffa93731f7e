"""Fuzzing the inputs reportgen did not write: config, documents.toml, claims, results.json, cache.

Each property: whatever the input, reportgen answers with its value or one clean error (a
ConfigError, exit 2, a cache miss), never a traceback; and a build given bad input never
replaces the set published before by less. The suite runs a few examples of each (CI stays
fast); REPORTGEN_FUZZ_EXAMPLES=N runs N of each, for a long run:

    REPORTGEN_FUZZ_EXAMPLES=2000 nice -n 10 pytest tests/test_fuzz.py --hypothesis-show-statistics
"""

import json
import math
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import describe, invoke, snapshot  # noqa: E402

from reportgen import claims, config  # noqa: E402
from reportgen.errors import ConfigError  # noqa: E402
from reportgen.experiments import EXPERIMENTS  # noqa: E402
from reportgen.judging import vocabulary  # noqa: E402
from reportgen.publish import cache  # noqa: E402

EXAMPLES = int(os.environ.get("REPORTGEN_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=EXAMPLES or 15, deadline=None, derandomize=not EXAMPLES,
                suppress_health_check=list(HealthCheck))
BUILDS = settings(FUZZ, max_examples=EXAMPLES // 20 or 3)  # a build takes a second or two

# --- values: what TOML can hold, and what tends to break a program ---------------------------

NASTY_TEXT = st.sampled_from(["", " ", "\x1b]0;t\x07", "\u202e", "a\nb", "::error::x", "../..", "/etc/passwd",
                              "javascript:alert(1)", "x" * 5000, "{" * 600, "$\\frac{", "<script>", "é", "\x00",
                              "\ud800", "~nobody/x", "0.99", "inf", "[[claim]]", '"""', "variance.var_qk"])
TEXT = st.one_of(NASTY_TEXT, st.text(st.characters(codec="utf-8"), max_size=40),
                 st.text(st.characters(codec="utf-8"), max_size=300))
# (no subnormal floats: a library loaded before, torch, may set flush-to-zero, which hypothesis refuses)
NUMBER = st.one_of(st.integers(), st.integers(-(2**70), 2**70),
                   st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=False),
                   st.sampled_from([0, 1, -1, 0.99, 1.0, 0.5, 1e308, 2**63]))
SCALAR = st.one_of(TEXT, NUMBER, st.booleans())
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)


def toml_value(value):
    """A value as TOML (inline tables and arrays); strings through JSON's escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def toml_table(header, table):
    return header + "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in table.items())


def mutated(base, keys):
    """`base` with some of its keys given other values, some dropped and some added."""
    return st.builds(lambda changes, dropped, extra: {**{k: v for k, v in base.items() if k not in dropped},
                                                      **changes, **extra},
                     st.dictionaries(st.sampled_from(keys), VALUE, max_size=4),
                     st.sets(st.sampled_from(list(base)), max_size=2),
                     st.dictionaries(TEXT, VALUE, max_size=1))


@contextmanager
def scratch():
    folder = Path(tempfile.mkdtemp(prefix="reportgen-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --- config ---------------------------------------------------------------------------------

SETTINGS = list(config.FIELDS)


@FUZZ
@given(table=st.dictionaries(st.one_of(st.sampled_from(SETTINGS), TEXT), VALUE, max_size=5),
       raw=st.one_of(st.none(), st.text(max_size=200), st.just("x = " + "[" * 500 + "]" * 500)))
def test_any_config_is_a_value_or_one_config_error(table, raw, monkeypatch):
    with scratch() as folder:
        path = folder / "c.toml"
        path.write_text(raw if raw is not None else toml_table("", table), encoding="utf-8", errors="surrogatepass")
        with monkeypatch.context() as mp:  # back in the folder before, once the scratch one goes
            mp.chdir(folder)
            try:
                config.load(str(path), {}, EXPERIMENTS)
            except ConfigError as exc:
                assert str(exc).strip()


# --- claims and documents.toml --------------------------------------------------------------

CLAIM = {"id": "900.a", "section": "S", "quote": "q", "documented": "64", "kind": "literature",
         "measure": "worked.head_dim", "args": {"model": "BERT-base"}, "rule": "exact", "table": "worked-000-models",
         "label": "L", "expected": "confirmed"}
CLAIM_KEYS = list(claims.REQUIRED + claims.OPTIONAL)
DOCUMENT = {"id": "900", "title": "T", "kind": "Notes"}


def claims_text(entries, documents):
    return ("".join(toml_table("[[claim]]\n", e) for e in entries),
            "".join(toml_table("[[document]]\n", d) for d in documents))


@FUZZ
@given(entries=st.lists(mutated(CLAIM, CLAIM_KEYS), min_size=1, max_size=3),
       documents=st.lists(mutated(DOCUMENT, list(claims.DOC_KEYS)), min_size=1, max_size=2),
       raw=st.one_of(st.none(), st.text(max_size=300), st.sampled_from(["document = 5", "claim = [1]",
                                                                          "x = " + "{a = " * 300 + "1" + "}" * 300])))
def test_any_claims_folder_is_a_catalog_or_one_config_error(entries, documents, raw):
    with scratch() as folder:
        claims_file, documents_file = claims_text(entries, documents)
        (folder / "documents.toml").write_text(documents_file if raw is None else raw, errors="surrogatepass")
        (folder / "900.toml").write_text(claims_file, errors="surrogatepass")
        try:
            catalog = vocabulary.catalog(folder)
        except ConfigError as exc:
            assert str(exc).strip()
            return
        for claim in catalog.claims:  # what passed is what the pages and logs can take
            assert all("\n" not in getattr(claim, key) for key in ("id", "label", "section", "table"))


# --- results.json for diff ------------------------------------------------------------------

RESULTS = {"schema_version": 2, "title": "t", "experiments": {"worked": {"status": "ok", "results": {"a": 1.0}}},
           "claims": [{"id": "900.a", "label": "L", "verdict": "confirmed", "status": "ok"}],
           "provenance": {"build_time": "2024-01-01T00:00:00+00:00"}}


@FUZZ
@given(old=mutated(RESULTS, list(RESULTS)), new=mutated(RESULTS, list(RESULTS)),
       claim=mutated(RESULTS["claims"][0], ["id", "label", "verdict", "status", "measured"]),
       as_json=st.booleans())
def test_diff_of_any_results_is_an_answer_or_one_line(old, new, claim, as_json):
    with scratch() as folder:
        new = {**new, "claims": [claim]} if isinstance(new.get("claims"), list) else new
        (folder / "old.json").write_text(json.dumps(old), errors="surrogatepass")
        (folder / "new.json").write_text(json.dumps(new), errors="surrogatepass")
        result = invoke(["diff", "old.json", "new.json", *(["--json"] if as_json else [])], folder)
        clean = result.exception is None or isinstance(result.exception, SystemExit)
        assert clean and result.exit_code in (0, 1, 2), describe(result)
        assert "Traceback" not in result.output
        assert not [line for line in result.output.splitlines() if line.lstrip().startswith("::")]
        assert "\x1b" not in result.output


# --- cache entries --------------------------------------------------------------------------


@FUZZ
@given(payload=VALUE, cut=st.integers(0, 400), flip=st.integers(0, 400), byte=st.integers(0, 255),
       check=st.sampled_from([None, cache.check_run, cache.check_figures, cache.check_pdf]))
def test_any_damaged_cache_entry_is_a_miss_or_its_payload(payload, cut, flip, byte, check):
    with scratch() as folder:
        store = cache.Cache(folder, warn=lambda message: None)
        digest = "a" * 32
        data = bytearray(cache.entry_bytes(digest, payload))
        if flip < len(data):
            data[flip] = byte
        data = bytes(data[: len(data) - cut] if cut < len(data) else data)
        (folder / f"exp-{digest}.json").write_bytes(data)
        loaded = store.load("exp", digest, None if check is cache.check_pdf else check)
        assert loaded is None or data == cache.entry_bytes(digest, loaded) or check is None


# --- a build given fuzzed claims: a good set is never replaced by less ------------------------


@pytest.fixture(scope="module")
def good_set(tmp_path_factory):
    """A folder with a published `--only worked` set and its cache."""
    folder = tmp_path_factory.mktemp("good-set")
    (folder / "claims").mkdir()
    shutil.copy(claims.default_folder() / "documents.toml", folder / "claims")
    for doc in claims.load_documents(claims.default_folder()):
        shutil.copy(claims.default_folder() / f"{doc}.toml", folder / "claims")
    (folder / "claims" / "documents.toml").write_text(
        (folder / "claims" / "documents.toml").read_text() + toml_table("[[document]]\n", DOCUMENT))
    (folder / "claims" / "900.toml").write_text(toml_table("[[claim]]\n", CLAIM))
    (folder / "c.toml").write_text('output = "output"\nfigures = "figures"\ncache_dir = "cache"\nclaims = "claims"\n')
    result = invoke(["build", "--profile", "quick", "--only", "worked", "--format", "html", "--config", "c.toml"],
                    folder)
    assert result.exit_code == 0, describe(result)
    return folder


PLAUSIBLE = st.one_of(st.sampled_from(["", "x", "L" * 240, "q" * 1200, "confirmed", "interval", "statistical",
                                       "worked.head_dim", "worked.nothing", "900.b", "material"]),
                      NUMBER, st.dictionaries(st.sampled_from(["model", "level", "d_k", "colour"]), SCALAR, max_size=2))
# One key given a plausible value: claims that pass the checks, so that builds run to the end too.
ONE_CHANGE = st.builds(lambda key, value: {**CLAIM, key: value}, st.sampled_from(CLAIM_KEYS), PLAUSIBLE)


@pytest.mark.slow
@BUILDS
@given(entry=st.one_of(ONE_CHANGE, mutated(CLAIM, CLAIM_KEYS)),
       document=st.one_of(st.just(DOCUMENT), mutated(DOCUMENT, list(claims.DOC_KEYS))),
       title=st.one_of(st.none(), st.none(), TEXT))
def test_a_build_given_any_claims_never_replaces_the_good_set_by_less(good_set, entry, document, title):
    with scratch() as folder:
        shutil.copytree(good_set, folder, dirs_exist_ok=True)
        documents = (folder / "claims" / "documents.toml").read_text()
        documents = documents.replace(toml_table("[[document]]\n", DOCUMENT), toml_table("[[document]]\n", document))
        (folder / "claims" / "documents.toml").write_text(documents, errors="surrogatepass")
        (folder / "claims" / "900.toml").write_text(toml_table("[[claim]]\n", entry), errors="surrogatepass")
        if title is not None:
            with (folder / "c.toml").open("a", errors="surrogatepass") as f:
                f.write(f"title = {json.dumps(title)}\n")
        before = snapshot(folder / "output")
        result = invoke(["build", "--profile", "quick", "--only", "worked", "--format", "html", "--config", "c.toml",
                         "-q"], folder)
        clean = result.exception is None or isinstance(result.exception, SystemExit)
        assert clean and result.exit_code in (0, 1, 2), describe(result)
        assert "Traceback" not in result.output
        hypothesis.event(f"exit {result.exit_code}")
        if os.environ.get("REPORTGEN_FUZZ_SHOW"):
            print(result.exit_code, result.output.strip().splitlines()[-1][:150] if result.output.strip() else "")
        if result.exit_code:
            assert snapshot(folder / "output") == before, describe(result)
        else:
            manifest = json.loads((folder / "output" / ".reportgen-manifest.json").read_text())
            assert set(manifest["files"]) >= set(before) - {".reportgen-manifest.json"}


def _paths(value, prefix=()):
    """Every path into a JSON value (keys and indexes), the root first."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*prefix, key))


def _replaced(doc, path, new):
    if not path:
        return new
    doc = json.loads(json.dumps(doc))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return doc


@pytest.mark.slow
@BUILDS
@given(data=st.data(), as_json=st.booleans())
def test_diff_of_a_real_results_json_with_any_part_replaced_is_an_answer_or_one_line(good_set, data, as_json):
    real = json.loads((good_set / "output" / "results.json").read_text())
    doc = real
    for _ in range(data.draw(st.integers(1, 3))):  # each a path of the document as it is now
        doc = _replaced(doc, data.draw(st.sampled_from(list(_paths(doc)))), data.draw(VALUE))
    with scratch() as folder:
        (folder / "old.json").write_text(json.dumps(real))
        (folder / "new.json").write_text(json.dumps(doc), errors="surrogatepass")
        result = invoke(["diff", "old.json", "new.json", *(["--json"] if as_json else [])], folder)
        clean = result.exception is None or isinstance(result.exception, SystemExit)
        assert clean and result.exit_code in (0, 1, 2), describe(result)
        hypothesis.event(f"exit {result.exit_code}")
        assert not [line for line in result.output.splitlines() if line.lstrip().startswith("::")]
        assert "\x1b" not in result.output
