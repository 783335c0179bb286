"""Gittins-index evaluation benchmarks (run: ``python benchmarks/bench_adaptive.py``).

1. Root table for ``H = 63`` on a ``2**14`` grid (per-batch program, N = 1000, B = 16):
   wall time of one uncached computation (target < 0.5 s).
2. Per-decision overhead with 1500 arms: ``propose`` + ``observe`` of
   :class:`bayes_eval.adaptive.gittins.GittinsPolicy` in a loop, per decision (target < 50
   microseconds), as in the timing protocol of Xie, He and Cao, "Efficient Cost-Aware LLM
   Evaluation via Bayesian Bandit Gittins Indices" (App. D.3); the policy draws the
   examples (a seeded order fixed at ``init``).
3. MMLU-like synthetic matrices (1500 arms x 100 examples, B = 4, per-cell program, unit
   cost): mean simple regret of Gittins-S (dataset prior), Gittins-G and UCB-E at 1%, 2%
   and 5% of the cells, over ``--seeds`` runs on each of ``--subjects`` (one per prior
   bucket by default), with standard errors. Target: Gittins-S below UCB-E at all three.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.gittins_index import _root_schedule_cached, root_schedule
from bayes_eval.adaptive.simulation import simulate
from bayes_eval.adaptive.synthetic import mmlu_like

META = "dataset:bandit_mmlu_meta"  # the shipped arm metadata (bayes_eval.datasets)


def bench_roots() -> float:
    _root_schedule_cached.cache_clear()
    t = time.perf_counter()
    root_schedule(16e-4, 0.04, 1 / 64, 63, grid_size=2**14)
    return time.perf_counter() - t


def bench_decision(n_arms: int = 1500, steps: int = 5000) -> float:
    rng = np.random.default_rng(0)
    Y = (rng.random((n_arms, 100)) < rng.uniform(0.2, 0.8, (n_arms, 1))).astype(float)
    policy = GittinsPolicy(belief_mean=0.6, belief_var=0.02, granularity="cell")
    s = policy.init(n_arms, 100, batch_size=4, costs=1.0, cost_scale=1e-4)
    t = time.perf_counter()
    for _ in range(steps):
        p = policy.propose(s)
        s = policy.observe(s, p, Y[p.arm, p.examples])
    return (time.perf_counter() - t) / steps


def bench_mmlu(subjects: list[str], seeds: int) -> dict:
    out = {}
    for subject in subjects:
        data = mmlu_like(META, subject, n_examples=100, seed=0)
        ds = simulate(data, batch_size=4, budget=0.05, seeds=seeds, grid_points=101, progress=True)
        res = {}
        for f in (0.01, 0.02, 0.05):
            sel = ds.sel(fraction=f, method="nearest")
            res[f"{100 * f:g}%"] = {
                str(p): [
                    round(float(sel["regret_mean"].sel(policy=p)), 4),
                    round(float(sel["regret_se"].sel(policy=p)), 4),
                ]
                for p in ds["policy"].values
            }
        out[subject] = res
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", default="abstract_algebra,anatomy,marketing")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {
        "root_table_H63_2e14_seconds": round(bench_roots(), 4),
        "decision_overhead_1500_arms_microseconds": round(1e6 * bench_decision(), 2),
        "mmlu_like_regret_mean_se": bench_mmlu(args.subjects.split(","), args.seeds),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
