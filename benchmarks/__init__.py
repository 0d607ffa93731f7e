"""reportgen's benchmarks: `python -m benchmarks` runs them, records where, and rewrites docs/performance.md's tables.

Each module of BENCHMARKS has the same small surface, so the entry point, the smoke tests
and the nightly history treat them alike:

  SIZES               {"quick": kwargs, "full": kwargs} for measure(): quick is the nightly
                      size (a few minutes for the whole set), full the one docs/performance.md shows
  measure(**kwargs)   run the benchmark; return plain JSON-able numbers, with "seconds":
                      {case: median seconds}, the times the nightly history divides by the peer's
  table(result)       the Markdown docs/performance.md shows for one measure() result
  main(argv)          the script's own command line (`python -m benchmarks.NAME --help`)

The package is a maintainers' tool: it is not in the wheel (pyproject lists the packages).
"""

# In the order `python -m benchmarks` runs them: the peer first, so that a failing build
# benchmark still leaves the peer's time for the others' ratios.
BENCHMARKS = ("peer", "bench", "bench_pdf", "throughput", "bench_training", "bench_lm")
PEER = ("peer", "peer notebook")  # the case every nightly time is divided by


def load(name):
    """The benchmark module called name."""
    import importlib

    if name not in BENCHMARKS:
        raise ValueError(f"no benchmark {name!r}; there are {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"benchmarks.{name}")
