"""Gittins-index evaluation benchmarks (run: ``python benchmarks/bench_adaptive.py``).

1. Root table for ``H = 63`` on a ``2**14`` grid (per-batch program, N = 1000, B = 16):
   wall time of one uncached computation (target < 0.5 s).
2. Per-decision overhead with 1500 arms: ``propose`` + ``observe`` of
   :class:`bayes_eval.adaptive.gittins.GittinsPolicy` in a loop, per decision (target < 50
   microseconds), as in the timing protocol of Xie, He and Cao, "Efficient Cost-Aware LLM
   Evaluation via Bayesian Bandit Gittins Indices" (App. D.3); the policy draws the
   examples (a seeded order fixed at ``init``). Issue 28's goal: < 25 microseconds; the
   reference timed in the same run is the bare numpy loop of a greedy index policy (argmax
   over the 1500 indices, then the chosen arm's counts and index updated), printed as a
   ratio beside it.
3. MMLU-like synthetic matrices (1500 arms x 100 examples, B = 4, per-cell program, unit
   cost): mean simple regret of Gittins-S (dataset prior), Gittins-G and UCB-E at 1%, 2%
   and 5% of the cells, over ``--seeds`` runs on each of ``--subjects`` (one per prior
   bucket by default), with standard errors. Target: Gittins-S below UCB-E at all three.

``--smoke``: a 2**10 grid, 300 decisions, one subject, one seed and 2% of the cells (seconds).
The output is JSON (``--json`` is accepted for the runner's uniformity).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _timing import versus

from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.gittins_index import _root_schedule_cached, root_schedule
from bayes_eval.adaptive.simulation import simulate
from bayes_eval.adaptive.synthetic import mmlu_like

META = "dataset:bandit_mmlu_meta"  # the shipped arm metadata (bayes_eval.datasets)


def bench_roots(grid_size: int = 2**14) -> float:
    _root_schedule_cached.cache_clear()
    t = time.perf_counter()
    root_schedule(16e-4, 0.04, 1 / 64, 63, grid_size=grid_size)
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


def bench_numpy_decision(n_arms: int = 1500, steps: int = 5000) -> float:
    """The floor of a decision: argmax over the arms' indices, then the chosen arm's counts
    and index updated from a batch of 4 outcomes (seconds per decision)."""
    rng = np.random.default_rng(0)
    Y = (rng.random((n_arms, 100)) < rng.uniform(0.2, 0.8, (n_arms, 1))).astype(float)
    wins, pulls = np.ones(n_arms), np.full(n_arms, 2.0)
    index = wins / pulls + 1.0
    t = time.perf_counter()
    for step in range(steps):
        a = int(index.argmax())
        cols = (4 * step + np.arange(4)) % 100
        wins[a] += Y[a, cols].sum()
        pulls[a] += 4.0
        index[a] = wins[a] / pulls[a] + 1.0 / np.sqrt(pulls[a])
    return (time.perf_counter() - t) / steps


def bench_mmlu(
    subjects: list[str], seeds: int, budget: float = 0.05, progress: bool = True
) -> dict:
    out = {}
    fractions = [f for f in (0.01, 0.02, 0.05) if f <= budget]
    for subject in subjects:
        data = mmlu_like(META, subject, n_examples=100, seed=0)
        ds = simulate(
            data, batch_size=4, budget=budget, seeds=seeds, grid_points=101, progress=progress
        )
        res = {}
        for f in fractions:
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
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, seconds")
    parser.add_argument("--json", action="store_true", help="accepted: the output is JSON")
    args = parser.parse_args()
    grid, steps, budget = (2**10, 300, 0.02) if args.smoke else (2**14, 5000, 0.05)
    subjects = args.subjects.split(",")[:1] if args.smoke else args.subjects.split(",")
    seeds = 1 if args.smoke else args.seeds
    ours = min(bench_decision(steps=steps) for _ in range(3))  # best of 3 runs of the loop
    floor = min(bench_numpy_decision(steps=steps) for _ in range(3))
    result = {
        f"root_table_H63_grid{grid}_seconds": round(bench_roots(grid), 4),
        "decision_overhead_1500_arms_microseconds": round(1e6 * ours, 2),
        "decision": {
            "microseconds": round(1e6 * ours, 2),
            "goal": "< 25 microseconds",
            "meets_goal": bool(ours < 25e-6),
            "text": f"{1e6 * ours:.1f} us per decision at 1500 arms (goal < 25 us)",
        },
        "decision_versus_numpy_loop": versus(
            ours, floor, None, what="a numpy argmax + update loop"
        ),
        "mmlu_like_regret_mean_se": bench_mmlu(subjects, seeds, budget, not args.smoke),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
