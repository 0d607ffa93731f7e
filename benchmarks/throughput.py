"""Sampling throughput: the variance sweep's Monte-Carlo loop against raw torch.randn.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python benchmarks/throughput.py                    # 5 runs, d_k = 64 … 4096
    .venv/bin/python benchmarks/throughput.py --runs 7 --dims 16,256,4096 --threads 1

Both numbers are float32 values drawn per second on the CPU, medians over the runs:

  randn   torch.randn into (rows, d) tensors from a seeded CPU torch.Generator, with the
          sweep's own chunk sizes (reportgen.sampling.chunks, CHUNK_ELEMENTS per tensor),
          nothing else: the ceiling for a loop whose inputs are all drawn by torch.randn.
  sweep   reportgen.experiments.variance.dot_product_sweep with the profile's parameters
          (--profile, default standard) but one d_k of --dims at a time, each call timed
          whole; it draws 2·n·d floats per d_k (q and k, n = samples // batches · batches
          pairs) and also multiplies, sums, takes norms, converts to float64 and
          accumulates moments.

Each run times randn and the sweep back to back for every d_k (same machine load); the
overall figure of a run is all floats over all seconds. Per-d_k medians are printed too.
Thread count matters on a busy machine: torch's OpenMP threads spin-wait, and with more
threads than free cores the sweep's small elementwise kernels slow down many times over,
while randn barely does; compare --threads 1 with the default.

The ratio sweep / randn says how much of the loop's time goes to drawing numbers: at the
target (≥ 80%) the loop is bound by the random number generator and other work is cheap.
Small d_k are left out by default: with d = 1 … 32 a batch is a few thousand floats and
per-chunk Python overhead, not sampling, sets the pace. It installs and writes nothing.
Exit status 0 when the ratio meets --target, 1 when it does not.
"""

import argparse
import dataclasses
import os
import platform
import statistics
import sys
import time

TARGET = 0.80


def randn_throughput(dims, rows_per_dim, seed=0):
    """Floats per second of torch.randn alone, drawn in the sweep's chunk shapes."""
    import torch

    from reportgen.sampling import chunks, generator

    drawn = 0
    start = time.perf_counter()
    for d in dims:
        g = generator("cpu", seed, "throughput", d)
        for c in chunks(rows_per_dim[d], 2 * d):
            q = torch.randn(c, d, generator=g)
            k = torch.randn(c, d, generator=g)
            drawn += q.numel() + k.numel()
    return drawn / (time.perf_counter() - start), drawn


def sweep_throughput(params, seed=0):
    """Floats per second drawn by dot_product_sweep (2·n·d per d_k), timed whole."""
    from reportgen.experiments.variance import dot_product_sweep

    start = time.perf_counter()
    rows = dot_product_sweep(params, seed, "cpu", lambda items, label: items)
    seconds = time.perf_counter() - start
    drawn = sum(2 * row["n"] * row["d_k"] for row in rows)
    return drawn / seconds, drawn


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each measurement (default 5)")
    parser.add_argument("--dims", default="64,256,1024,4096", help="comma-separated d_k (default 64,256,1024,4096)")
    parser.add_argument("--profile", default="standard", help="variance parameters to start from (default standard)")
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's choice)")
    parser.add_argument("--target", type=float, default=TARGET, help=f"ratio to meet (default {TARGET})")
    args = parser.parse_args()

    import torch

    from reportgen.experiments.variance import PARAMS

    if args.threads:
        torch.set_num_threads(args.threads)
    dims = tuple(int(d) for d in args.dims.split(","))
    params = dataclasses.replace(PARAMS[args.profile], dims=dims)
    pairs = params.samples // params.batches * params.batches
    rows_per_dim = {d: pairs for d in dims}

    # One untimed pass of each warms allocators and the kernels.
    randn_throughput(dims[:1], rows_per_dim)
    sweep_throughput(dataclasses.replace(params, dims=dims[:1]))
    # Each run times every d_k on its own, randn and sweep back to back, so both see the same
    # machine load; a run's throughput is its floats over its seconds, summed over d_k.
    per_dim = {d: ([], []) for d in dims}
    raw, loop = [], []
    for _ in range(args.runs):
        totals = [0.0, 0.0, 0]  # randn seconds, sweep seconds, floats
        for d in dims:
            rate, drawn = randn_throughput((d,), rows_per_dim)
            per_dim[d][0].append(rate)
            totals[0] += drawn / rate
            rate, drawn_sweep = sweep_throughput(dataclasses.replace(params, dims=(d,)))
            assert drawn_sweep == drawn, (drawn_sweep, drawn)
            per_dim[d][1].append(rate)
            totals[1] += drawn / rate
            totals[2] += drawn
        raw.append(totals[2] / totals[0])
        loop.append(totals[2] / totals[1])
    raw_median, loop_median = statistics.median(raw), statistics.median(loop)
    ratio = loop_median / raw_median

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.python_version()}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{os.cpu_count()} cores, load {load:.2f}")
    print(f"profile {args.profile}, d_k {', '.join(map(str, dims))}, {pairs} pairs per d_k "
          f"({2 * pairs * sum(dims) / 1e6:.1f} M floats per pass), {args.runs} runs")
    print(f"randn  median {raw_median / 1e6:8.1f} M floats/s   (min {min(raw) / 1e6:.1f}, max {max(raw) / 1e6:.1f})")
    print(f"sweep  median {loop_median / 1e6:8.1f} M floats/s   (min {min(loop) / 1e6:.1f}, max {max(loop) / 1e6:.1f})")
    for d, (r, w) in per_dim.items():
        print(f"  d_k {d:5d}: randn {statistics.median(r) / 1e6:7.1f}, sweep {statistics.median(w) / 1e6:7.1f} M floats/s, "
              f"ratio {statistics.median(w) / statistics.median(r):.1%}")
    verdict = "meets" if ratio >= args.target else "BELOW"
    print(f"ratio  {ratio:.1%} of raw randn ({verdict} the {args.target:.0%} target)")
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
