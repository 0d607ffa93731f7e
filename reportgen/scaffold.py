"""`reportgen init`: a course repository to start from, that builds as it is.

It writes a config (`reportgen.toml`), a documents folder with one short note, a claims
folder with the note's entry and its claims (worked examples: one measured claim of the
variance family that builds at once, and one each of the gradients, training and lm families
to uncomment), and a
workflow that calls reportgen's action at this release. Nothing that exists is overwritten.
"""

from pathlib import Path

from reportgen import __version__
from reportgen.atomic import write_atomic
from reportgen.errors import ConfigError

CONFIG = """\
[tool.reportgen]
documents = "documents"        # the course's texts (Markdown or plain text)
claims = "claims"              # documents.toml and one <id>.toml of claims per document
title = "Our notes on attention, checked"
course = "Your course"
# url = "https://example.edu/your-course"
"""

NOTE = """\
# Week 1: Why attention divides by √d_k

## Variance of a dot product

For q and k with independent components of mean 0 and variance 1, the dot product q·k has variance d_k.
"""

DOCUMENTS = """\
# One [[document]] per text in the documents folder: its id names its claims file (<id>.toml).
[[document]]
id = "week1"
title = "Week 1: Why attention divides by √d_k"
kind = "Lecture notes"
file = "week1.md"
"""

CLAIMS = """\
# The claims of documents/week1.md, one [[claim]] each. `quote` is copied from the text,
# verbatim; `reportgen list --measures` names every measure, its arguments, grid and tables.
# `expected` is left out: `reportgen check --record` writes it once you have read the verdict.

[[claim]]
id = "week1.var-dk64"
section = "Variance of a dot product"
label = "Var(q·k) at d_k = 64"
quote = "the dot product q·k has variance d_k"
documented = "d_k"
value = 64
kind = "statistical"
measure = "variance.var_qk"
args = { d_k = 64, level = 0.99 }
rule = "interval"
margin = 6.4
justification = "equivalence: the 99% interval of Var(q·k) must lie within 64 ± 10%"
table = "variance-laws"

# The gradients family, worked: add the sentence to the note, then uncomment.
# [[claim]]
# id = "week1.grad-vanish"
# section = "Variance of a dot product"
# label = "softmax Jacobian of unscaled q·k, d_k = 64, n = 4 keys: mean ‖J‖ ÷ scaled"
# quote = "Without the scale, the gradients vanish."
# documented = "gradients vanish"
# kind = "qualitative"
# measure = "gradients.dk_norm_ratio"
# args = { d_k = 64, n = 4, norms = ["frobenius", "spectral"], level = 0.99 }
# rule = "at_most"
# threshold = "vanish_ratio"
# justification = "'vanish' read as: below 1/10 of the scaled value, for both norms"
# table = "gradients-norm-checks"

# The training family, worked (trains small models: minutes on a CPU).
# [[claim]]
# id = "week1.train-smaller-lr"
# section = "Variance of a dot product"
# label = "largest stable learning rate, scaled ÷ unscaled, d_k = 256"
# quote = "Without the scale, training needs much smaller learning rates."
# documented = "much smaller learning rates"
# kind = "qualitative"
# measure = "training.stable_lr_ratio"
# args = { d_k = 256 }
# rule = "at_least"
# threshold = 10
# justification = "'much smaller': unscaled's largest stable rate at least 10x below scaled's"
# table = "training-verdicts"

# The lm family (a byte-level language model), worked.
# [[claim]]
# id = "week1.lm-stable"
# section = "Variance of a dot product"
# label = "scaled: configurations that diverge at or below the tuned rate"
# quote = "With the scale, training is stable."
# documented = "stable"
# kind = "qualitative"
# measure = "lm.unstable_configs"
# args = { variant = "scaled" }
# rule = "at_most"
# threshold = 0
# justification = "no scaled run diverges at or below its tuned rate, in every configuration"
# table = "lm-verdicts"
#
# The saturation, temperature and worked families' claims tables recompute the built-in
# documents' own examples; `reportgen list --measures` says which tables a course may name.
"""

WORKFLOW = """\
name: Course report

on:
  schedule:
    - cron: "17 3 * * *"  # nightly, 03:17 UTC
  workflow_dispatch:
  push:
    branches: [main]

permissions:
  contents: read
  actions: read  # find and download the previous run's report, to compare with

concurrency:
  group: course-report-${{{{ github.ref }}}}
  cancel-in-progress: false

jobs:
  report:
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v5
      - id: report
        # reportgen's action at release {version} (it installs its own copy, that release);
        # OWNER: the account that hosts reportgen
        uses: OWNER/reportgen@v{version}
        with:
          config: reportgen.toml
          profile: standard
          pages: "false"
          cache-key: ${{{{ secrets.REPORTGEN_CACHE_KEY }}}}
"""


def files():
    """{path relative to the repository: text} of a new course repository."""
    return {
        "reportgen.toml": CONFIG,
        "documents/week1.md": NOTE,
        "claims/documents.toml": DOCUMENTS,
        "claims/week1.toml": CLAIMS,
        ".github/workflows/report.yml": WORKFLOW.format(version=__version__),
    }


def init(folder):
    """Write a course repository into `folder`; ConfigError, before writing, if any file exists."""
    folder = Path(folder)
    planned = files()
    there = [name for name in planned if (folder / name).exists()]
    if there:
        raise ConfigError(f"init: {folder / there[0]} exists ({len(there)} of the files init writes do); "
                          "run it in an empty folder, or move them away")
    for name, text in planned.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    return list(planned)
