"""Rendering tested at its own level: the saved report model (tests/fixtures/model.pickle.gz)
rendered in memory, without running an experiment or building a report."""

import dataclasses
import gzip
import pickle
import re
import shutil
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).with_name("fixtures")
sys.path.insert(0, str(FIXTURES))
import make_model  # noqa: E402

from reportgen import artifacts  # noqa: E402
from reportgen.progress import Progress  # noqa: E402
from reportgen.publish.cache import Cache  # noqa: E402
from reportgen.render import report, templates  # noqa: E402


@pytest.fixture(scope="module")
def saved():
    data = pickle.loads(gzip.decompress(make_model.FILE.read_bytes()))
    if data["sources"] != make_model.source_hash():
        pytest.fail("tests/fixtures/model.pickle.gz is stale: the code or claims that decide the report model "
                    "changed since it was made; run `python tests/fixtures/make_model.py` and commit it")
    return data


def render(saved, tmp_path, outputs=artifacts.OUTPUTS, formats=("html",)):
    """{file name: text} of the saved model rendered in memory, HTML only unless asked."""
    from reportgen.config import BuildConfig

    known = {f.name for f in dataclasses.fields(BuildConfig)}
    fields = {k: v for k, v in saved["config"].items() if k in known}
    config = BuildConfig(**{**fields, "format": tuple(formats), "cache_dir": str(tmp_path / "cache")})
    store = Cache(config.cache_dir, True, lambda *_: None)
    files, build = report.render(saved["report"], saved["catalog"], saved["info"], config, {}, store,
                                 Progress(quiet=True), None, outputs)
    return files


def test_the_saved_model_is_current(saved):
    assert saved["report"].sections and saved["report"].statements


def test_every_declared_screen_output_is_rendered(saved, tmp_path):
    files = render(saved, tmp_path)
    expected = {o.data for o in artifacts.OUTPUTS if o.data} | {"report.html"}
    assert expected <= set(files)
    sheets = sorted(n for n in files if n.startswith("errata-"))
    assert sheets and all(n.endswith(".html") for n in sheets)
    assert not any(n.endswith(".pdf") for n in files)  # HTML only: no PDF rendered


def test_a_toy_output_is_one_declaration_and_one_template(saved, tmp_path, monkeypatch):
    """What CONTRIBUTING's "Adding an output" says: a declaration, a template, nothing else."""
    folder = tmp_path / "templates"
    shutil.copytree(templates.templates(), folder, ignore=shutil.ignore_patterns("*.py*"))
    (folder / "toy.html.j2").write_text("<p>{{ n_statements }} statements, {{ totals.confirmed }} confirmed</p>")
    monkeypatch.setattr(templates, "templates", lambda: folder)
    templates.environment.cache_clear()
    toy = artifacts.Output("toy", "toy.html.j2", screen="toy.html", reads=("n_statements", "totals"))
    try:
        files = render(saved, tmp_path, outputs=(*artifacts.OUTPUTS, toy))
    finally:
        templates.environment.cache_clear()
    model = saved["report"]
    assert files["toy.html"] == f"<p>{len(model.statements)} statements, {model.counts['confirmed']} confirmed</p>"
    assert "report.html" in files


def test_the_report_counts_what_the_model_counts(saved, tmp_path):
    html = render(saved, tmp_path)["report.html"]
    model = saved["report"]
    assert f"{len(model.statements)} statements" in html
    for verdict, n in model.counts.items():
        assert re.search(rf"\b{n}\b", html), (verdict, n)
