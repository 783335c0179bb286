"""Throughput of the closed-form interval methods in the coverage harness
(run: ``python benchmarks/bench_coverage.py``).

Target: >= 10^5 simulated (R, interval) evaluations per second per core. One evaluation is
one simulated results matrix (as category counts) turned into an interval; the simulation of
the counts is timed separately. Single process (one core).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from bayes_eval.validation.coverage import CoverageConfig, _interval_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cfg = CoverageConfig(bootstrap_resamples=0)
    rng = np.random.default_rng(0)
    out = {}
    for m, n, c in ((30, 16, 1), (100, 4, 2), (500, 80, 1)):
        w = np.linspace(0, 1, c + 1)
        reps = args.replicates if m * (c + 1) <= 300 else args.replicates // 10
        start = time.perf_counter()
        pi = rng.dirichlet(np.ones(c + 1), size=(reps, m))
        counts = rng.multinomial(n, pi)
        sim = time.perf_counter() - start
        start = time.perf_counter()
        table, _, _ = _interval_table(counts, w, n, cfg, 1.0, rng, 0)
        elapsed = time.perf_counter() - start
        methods = sorted(table)
        out[f"M{m}_N{n}_C{c}"] = {
            "replicates": reps,
            "methods": methods,
            "simulate_s": sim,
            "intervals_s": elapsed,
            "evaluations_per_s": reps * len(methods) / elapsed,
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, r in out.items():
        print(
            f"{key}: {r['evaluations_per_s']:,.0f} (R, interval) evaluations/s over {len(r['methods'])} "
            f"methods ({r['replicates']} replicates; simulation {r['simulate_s']:.2f} s) target >= 100,000"
        )


if __name__ == "__main__":
    main()
