"""Throughput of the closed-form interval methods in the coverage harness
(run: ``python benchmarks/bench_coverage.py``).

Goal (issue 28): >= 10^5 simulated (R, interval) evaluations per second per core. One
evaluation is one simulated results matrix (as category counts) turned into an interval; the
simulation of the counts is timed separately. Single process (one core), best of ``--repeats``
rounds (3; the first includes one-time costs). The reference, timed
in the same run on the same counts: the closed-form cells (the uniform-prior moments, the
interval of a closed-form method), so the printed ratio says how far the learned-prior fits
(most of a cell's time) keep the table from the closed-form speed. ``--smoke``: 200
replicates; ``--json``: the same numbers machine-readably.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _timing import versus

from bayes_eval.validation.coverage import CoverageConfig
from bayes_eval.validation.coverage_methods import _interval_table, _moments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100_000)
    parser.add_argument("--smoke", action="store_true", help="200 replicates, seconds")
    parser.add_argument("--repeats", type=int, default=3, help="rounds (best of; smoke: 1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.replicates, args.repeats = 200, 1
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
        elapsed = closed = float("inf")
        for _ in range(args.repeats):  # interleaved rounds, the best of each
            start = time.perf_counter()
            table, _, _ = _interval_table(counts, w, n, cfg, 1.0, rng, 0)
            elapsed = min(elapsed, time.perf_counter() - start)
            start = time.perf_counter()
            _moments(counts.astype(float), w, 1.0)  # one closed-form method's cells
            closed = min(closed, time.perf_counter() - start)
        methods = sorted(table)
        rate = reps * len(methods) / elapsed
        out[f"M{m}_N{n}_C{c}"] = {
            "replicates": reps,
            "methods": methods,
            "simulate_s": sim,
            "intervals_s": elapsed,
            "evaluations_per_s": rate,
            "closed_form_evaluations_per_s": reps / closed,
            # seconds per evaluation, against a closed-form cell's
            "versus_closed_form": versus(
                1 / rate, closed / reps, None, what="a closed-form cell's time per evaluation"
            ),
            "goal": ">= 100000 evaluations/s",
            "meets_goal": bool(rate >= 1e5),
            "text": f"{rate:,.0f} evaluations/s (goal >= 100,000)",
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, r in out.items():
        v = r["versus_closed_form"]
        print(
            f"{key}: {r['evaluations_per_s']:,.0f} (R, interval) evaluations/s over {len(r['methods'])} "
            f"methods (goal >= 100,000: {'met' if r['meets_goal'] else 'NOT met'}); closed-form cells "
            f"{r['closed_form_evaluations_per_s']:,.0f}/s, {v['ratio']:.0f}x their time per evaluation "
            f"({r['replicates']} replicates; simulation {r['simulate_s']:.2f} s)"
        )


if __name__ == "__main__":
    main()
