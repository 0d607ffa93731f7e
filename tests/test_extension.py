"""The documented extension paths: a new document, a claim and a family, built end to end."""

import json
import textwrap
from pathlib import Path

from reportgen import claims, config, pipeline
from reportgen.judging import vocabulary
from reportgen.progress import Progress

FAMILY = {
    "__init__.py": '''
        """A tiny family: the mean of normal draws."""
        from dataclasses import dataclass

        from reportgen.experiments.family import Experiment
        from reportgen.experiments.sources import Source


        @dataclass(frozen=True)
        class Params:
            draws: int


        EXPERIMENT = Experiment(
            name="tiny", title="A tiny family", summary="The mean of normal draws.",
            covers=(Source("900", "Means"),), package=__name__,
            params={p: Params(1000) for p in ("quick", "standard", "full")},
            claim_tables=("tiny-claims",),
        )
    ''',
    "run.py": '''
        def run(params, seed, device, progress):
            import torch

            g = torch.Generator().manual_seed(seed)
            x = torch.randn(params.draws, generator=g, dtype=torch.float64)
            return {"mean": float(x.mean()), "std": float(x.std()), "n": params.draws}
    ''',
    "measures.py": '''
        from reportgen.experiments.measure import Measurement, Measures
        from reportgen.experiments.stats import level_z

        MEASURES = Measures()


        @MEASURES.register
        def mean(results, level=0.99):
            half = level_z(level) * results["std"] / results["n"] ** 0.5
            return Measurement(results["mean"], results["mean"] - half, results["mean"] + half, results["n"],
                               f"{level:.0%} CI of the mean")
    ''',
    "tables.py": '''
        from reportgen.experiments.family import ClaimTable, Table


        def tables(results):
            return [Table("tiny-data", "Draws", "The sample.", ("n",), ((results["n"],),)),
                    ClaimTable("tiny-claims", "The document's means", "Documented beside measured.")]
    ''',
    "figures.py": '''
        from reportgen.experiments.family import Figure
        from reportgen.plotting import subplots


        def figures(results, documented):
            fig, ax = subplots(height=2)
            ax.axhline(documented["900.mean-zero"])
            ax.plot([0, 1], [results["mean"]] * 2)
            return [Figure("tiny-mean", "The mean.", "A line at the mean.", fig)]
    ''',
}

CLAIM = '''
[[claim]]
id = "900.mean-zero"
section = "Means"
label = "mean of N(0, 1) draws"
quote = "The mean of standard normal draws is 0."
documented = "0"
kind = "statistical"
measure = "tiny.mean"
args = { level = 0.99 }
rule = "interval"
justification = "the documented mean should lie in the 99% CI of the sample mean"
table = "tiny-claims"
expected = "confirmed"
'''


def test_new_document_claim_and_family_build(tmp_path, monkeypatch):
    package = tmp_path / "plugins" / "tinyfam"
    package.mkdir(parents=True)
    for name, text in FAMILY.items():
        (package / name).write_text(textwrap.dedent(text))
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "documents.toml").write_text('[[document]]\nid = "900"\ntitle = "A note on means"\n')
    (folder / "900.toml").write_text(CLAIM)
    document = "## Means\n\nThe mean of standard normal draws is **0**.\n"
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    monkeypatch.chdir(tmp_path)
    import tinyfam

    catalog = vocabulary.catalog(folder)
    (claim,) = catalog.claims
    assert claims.quote_found(claim.quote, document)
    cfg = config.load(None, {"profile": "quick", "format": "html", "output": str(tmp_path / "out")})
    summary, failed = pipeline.build(cfg, Progress(quiet=True), catalog, {"tiny": tinyfam.EXPERIMENT})
    assert failed == [], summary
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (row,) = results["claims"]
    assert (row["id"], row["verdict"], row["quote"]) == ("900.mean-zero", "confirmed", claim.quote)
    assert row["measurement"]["lo"] < 0 < row["measurement"]["hi"]
    html = (tmp_path / "out" / "report.html").read_text()
    assert "A tiny family" in html and "The mean of standard normal draws is 0." in html
    assert Path(tmp_path / "figures" / "tiny" / "tiny-mean.svg").is_file()
