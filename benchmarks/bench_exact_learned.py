"""Speed of the exact 95% interval under the learned prior, per model at M = 30
(run: ``python benchmarks/bench_exact_learned.py``).

For binary boards of M = 30 questions (N = 1: half solved, random, 29 of 30, 1 of 30, all
and none solved; N = 4: random, all and none solved; N = 8 random) and three-level rubric
boards (weights 0, 1/2, 1; M = 30; category rates from Dirichlet(0.5, 0.5, 0.5); N = 1, 2,
4 and 8; and every answer in the middle category at N = 2) it times
``posterior(R, prior="empirical").interval(0.95, kind="exact")`` on a fresh posterior (the
moments computed first, so that only the interval is timed: the fine grid of the
hyperposterior and :func:`bayes_eval.posteriors.exact.mixture_interval`), as process CPU
time (less affected by other processes than wall time), and prints the minimum and the
median of ``--repeats`` runs per board, the endpoints, and whether the median is within the
budget of issue 26 (50 ms; issue 40 for rubrics). The endpoints are checked against a
brute-force grid (binary) and the exact laws (rubrics) in
``tests/posteriors/test_exact_learned.py``.

``--former`` adds, on the same posterior, the computation the package used before the
control variate: a mixture of the exact laws of the 48 heaviest Gauss-Hermite nodes,
inverted on 1025 + 2 x 257 grid points
(:func:`bayes_eval.posteriors.intervals.mixture_quantiles`; 0.1-2 s per board).

``--smoke``: three boards, two repeats (seconds). ``--json``: the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import bayes_eval as be
from bayes_eval.posteriors.intervals import mixture_quantiles

BUDGET_MS = 50.0
SMOKE_BOARDS = ("N=1 random", "N=1 all solved", "N=4 random", "rubric N=2")
RUBRIC = (0.0, 0.5, 1.0)


def boards(seed: int = 0) -> dict[str, np.ndarray]:
    """Binary results (0/1) and rubric results (categories 0, 1, 2) of M = 30 questions."""
    rng = np.random.default_rng(seed)
    half = np.zeros((30, 1))
    half[:15] = 1.0
    nearly = np.ones((30, 1))
    nearly[0] = 0.0
    p = rng.beta(0.4, 0.4, 30)
    return {
        "N=1 half solved": half,
        "N=1 random": (rng.random((30, 1)) < rng.random(30)[:, None]).astype(float),
        "N=1 29 of 30": nearly,
        "N=1 1 of 30": 1.0 - nearly,
        "N=1 all solved": np.ones((30, 1)),
        "N=1 none solved": np.zeros((30, 1)),
        "N=4 random": (rng.random((30, 4)) < p[:, None]).astype(float),
        "N=4 all solved": np.ones((30, 4)),
        "N=4 none solved": np.zeros((30, 4)),
        "N=8 random": (rng.random((30, 8)) < p[:, None]).astype(float),
        **{f"rubric N={n}": _rubric(rng, n) for n in (1, 2, 4, 8)},
        "rubric N=2 middle": np.ones((30, 2)),
    }


def _rubric(rng: np.random.Generator, n: int) -> np.ndarray:
    rates = rng.dirichlet([0.5, 0.5, 0.5], 30)
    return (rng.random((30, n, 1)) > np.cumsum(rates, axis=1)[:, None, :2]).sum(axis=2)


def _weights(name: str) -> tuple[float, ...] | None:
    return RUBRIC if name.startswith("rubric") else None


def _timed(R: np.ndarray, former: bool, w=None) -> tuple[float, tuple[float, float]]:
    post = be.posterior(R, w=w, prior="empirical")
    _ = post.sd
    t = time.process_time()
    if former:
        laws, wts = post._mixture_laws(0)
        ends = mixture_quantiles(laws, wts, [0.025, 0.975])
    else:
        ends = post.interval(0.95, kind="exact")
    return time.process_time() - t, (float(ends[0]), float(ends[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--former", action="store_true", help="also time the former mixture")
    parser.add_argument("--smoke", action="store_true", help="three boards, two repeats")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    be.posterior(np.ones((3, 1)), prior="empirical").interval(kind="exact")  # warm up
    say = (lambda *a: None) if args.json else print
    head = f"{'board':16s} {'min ms':>7s} {'med ms':>7s}  {'[lo, hi]':18s} budget"
    say(head + ("  former ms  former [lo, hi]" if args.former else ""))
    worst = 0.0
    chosen = boards()
    if args.smoke:
        chosen = {k: chosen[k] for k in SMOKE_BOARDS}
    repeats = 2 if args.smoke else args.repeats
    record = {}
    for name, R in chosen.items():
        runs = [_timed(R, False, _weights(name)) for _ in range(repeats)]
        times = np.array([t for t, _ in runs]) * 1000.0
        lo, hi = runs[-1][1]
        med = float(np.median(times))
        worst = max(worst, med)
        record[name] = {
            "min_ms": float(times.min()),
            "median_ms": med,
            "interval": [lo, hi],
            "meets_goal": med <= BUDGET_MS,
            "text": f"median {med:.1f} ms per model (goal <= {BUDGET_MS:.0f} ms)",
        }
        line = f"{name:16s} {times.min():7.1f} {med:7.1f}  [{lo:.4f}, {hi:.4f}]  "
        line += "ok" if med <= BUDGET_MS else "OVER"
        if args.former:
            t_old, (lo_o, hi_o) = _timed(R, True, _weights(name))
            line += f"  {t_old * 1000:9.1f}  [{lo_o:.4f}, {hi_o:.4f}]"
            record[name]["former_ms"] = t_old * 1000
        say(line)
    say(f"largest median: {worst:.1f} ms (budget {BUDGET_MS:.0f} ms per model)")
    if args.json:
        doc = {"boards": record, "largest_median_ms": worst, "budget_ms": BUDGET_MS}
        print(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
