"""Sampling throughput: the variance sweep's Monte-Carlo loop against raw torch.randn.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python -m benchmarks throughput                    # the full size, its table in docs/performance.md too
    .venv/bin/python benchmarks/throughput.py                    # 5 runs, d_k = 64 … 4096, 1 thread
    .venv/bin/python benchmarks/throughput.py --runs 7 --dims 16,256,4096 --threads 2

Both numbers are float32 values drawn per second on the CPU, medians over the runs:

  randn   torch.randn into (rows, d) tensors from a seeded CPU torch.Generator, in the
          sweep's own chunk shapes (reportgen.experiments.sampling.chunks of each batch's rows,
          CHUNK_ELEMENTS per tensor at most), nothing else: the ceiling for a loop whose inputs are all drawn by torch.randn.
  sweep   reportgen.experiments.variance.dot_product_sweep with the profile's parameters
          (--profile, default standard) but one d_k of --dims at a time, each call timed
          whole; it draws 2·n·d floats per d_k (q and k, n = samples // batches · batches
          pairs) and also multiplies, sums, takes norms, converts to float64 and
          accumulates moments.

Each run times randn and the sweep back to back for every d_k (same machine load); the
overall figure of a run is all floats over all seconds. Per-d_k medians are printed too.
Thread count matters on a busy machine: torch's OpenMP threads spin-wait, and with more
threads than free cores the sweep's small elementwise kernels slow down many times over,
while randn barely does. The default is one thread, as the pipeline's (--threads 1).

The ratio sweep / randn says how much of the loop's time goes to drawing numbers: at the
target (≥ 80%) the loop is bound by the random number generator and other work is cheap.
Small d_k are left out by default: with d = 1 … 32 a batch is a few thousand floats and
per-chunk Python overhead, not sampling, sets the pace. It installs and writes nothing.
Exit status 0 when the ratio meets --target, 1 when it does not.
"""

import argparse
import dataclasses
import statistics
import sys
import time

TARGET = 0.80  # issue 26: the loop at >= 80% of raw randn (met at 89% in 0.1)

SIZES = {
    "quick": {"runs": 3, "dims": (64, 256, 1024)},
    "full": {"runs": 7, "dims": (64, 256, 1024, 4096)},
}


def batch_chunks(params, d):
    """The (rows) of every torch.randn call the sweep makes for one d_k: chunks of each batch."""
    from reportgen.experiments.sampling import chunks

    per_batch = params.samples // params.batches
    return [c for _ in range(params.batches) for c in chunks(per_batch, 2 * d)]


def randn_throughput(params, d, seed=0):
    """Floats per second of torch.randn alone for one d_k, drawn in the sweep's chunk shapes."""
    import torch

    from reportgen.experiments.sampling import generator

    g = generator("cpu", seed, "throughput", d)
    drawn = 0
    start = time.perf_counter()
    for c in batch_chunks(params, d):
        q = torch.randn(c, d, generator=g)  # (c, d)
        k = torch.randn(c, d, generator=g)
        drawn += q.numel() + k.numel()
    return drawn / (time.perf_counter() - start), drawn


def sweep_throughput(params, d, seed=0):
    """Floats per second drawn by dot_product_sweep for one d_k (2·n·d), timed whole."""
    from reportgen.experiments.variance.run import dot_product_sweep

    params = dataclasses.replace(params, dims=(d,))
    start = time.perf_counter()
    (row,) = dot_product_sweep(params, seed, "cpu", lambda items, label: items)
    seconds = time.perf_counter() - start
    drawn = 2 * row["n"] * d
    return drawn / seconds, drawn


def measure(runs=5, dims=(64, 256, 1024, 4096), profile="standard", samples=None, threads=1):
    """Median floats per second of randn and of the sweep over `runs`, and their ratio."""
    import torch

    from reportgen.experiments.variance.params import PARAMS

    torch.set_num_threads(threads)
    params = PARAMS[profile]
    if samples:
        params = dataclasses.replace(params, samples=samples)
    pairs = params.samples // params.batches * params.batches
    # One untimed pass of each warms allocators and the kernels.
    randn_throughput(params, dims[0])
    sweep_throughput(params, dims[0])
    # Each run times every d_k on its own, randn and sweep back to back, so both see the same
    # machine load; a run's throughput is its floats over its seconds, summed over d_k.
    per_dim = {d: ([], []) for d in dims}
    raw, loop, seconds = [], [], []
    for _ in range(runs):
        totals = [0.0, 0.0, 0]  # randn seconds, sweep seconds, floats
        for d in dims:
            rate, drawn = randn_throughput(params, d)
            per_dim[d][0].append(rate)
            totals[0] += drawn / rate
            rate, drawn_sweep = sweep_throughput(params, d)
            if drawn_sweep != drawn:
                raise RuntimeError(f"the sweep drew {drawn_sweep} floats at d_k = {d}, randn {drawn}")
            per_dim[d][1].append(rate)
            totals[1] += drawn / rate
            totals[2] += drawn
        raw.append(totals[2] / totals[0])
        loop.append(totals[2] / totals[1])
        seconds.append(totals[1])
    ratio = statistics.median(loop) / statistics.median(raw)
    return {
        "profile": profile, "dims": list(dims), "pairs": pairs, "runs": runs, "threads": threads,
        "randn_floats_per_s": raw, "sweep_floats_per_s": loop,
        "per_dim": [{"d_k": d, "randn": statistics.median(r), "sweep": statistics.median(w)}
                    for d, (r, w) in per_dim.items()],
        "ratio": ratio, "target": TARGET, "meets_target": ratio >= TARGET,
        "seconds": {"variance sweep, all d_k": statistics.median(seconds)},
    }


def table(result):
    """docs/performance.md's table: randn and the sweep per d_k and overall, in M floats per second."""
    def mega(x):
        return f"{x / 1e6:.1f}"

    raw, loop = result["randn_floats_per_s"], result["sweep_floats_per_s"]
    lines = [
        f"Profile {result['profile']}, {result['pairs']} pairs per d_k, {result['threads']} torch thread(s), "
        f"{result['runs']} interleaved runs, medians; M floats drawn per second.",
        "",
        "| d_k | randn | sweep | sweep / randn |",
        "|---:|---:|---:|---:|",
    ]
    for row in result["per_dim"]:
        lines.append(f"| {row['d_k']} | {mega(row['randn'])} | {mega(row['sweep'])} | "
                     f"{row['sweep'] / row['randn']:.0%} |")
    verdict = "meets" if result["meets_target"] else "**below**"
    lines.append(f"| all (min / max of runs) | {mega(statistics.median(raw))} ({mega(min(raw))} / {mega(max(raw))}) "
                 f"| {mega(statistics.median(loop))} ({mega(min(loop))} / {mega(max(loop))}) "
                 f"| **{result['ratio']:.0%}** ({verdict} the ≥ {result['target']:.0%} target) |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each measurement (default 5)")
    parser.add_argument("--dims", default="64,256,1024,4096", help="comma-separated d_k (default 64,256,1024,4096)")
    parser.add_argument("--profile", default="standard", help="variance parameters to start from (default standard)")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1, as the pipeline)")
    parser.add_argument("--target", type=float, default=TARGET, help=f"ratio to meet (default {TARGET})")
    args = parser.parse_args(argv)
    dims = tuple(int(d) for d in args.dims.split(","))
    result = measure(args.runs, dims, args.profile, threads=args.threads)
    print(table(result), end="")
    return 0 if result["ratio"] >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
