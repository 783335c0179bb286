"""Speed of the exact 95% interval under the learned prior, per model at M = 30
(run: ``python benchmarks/bench_exact_learned.py``).

For binary boards of M = 30 questions (N = 1 and N = 4 trials; half solved, random, and
nearly all solved) it times ``posterior(R, prior="empirical").interval(0.95, kind="exact")``
on a fresh posterior (the moments computed first, so only the interval is timed) and, on the
same posterior, the former computation: a mixture of the exact laws of the 48 heaviest
Gauss-Hermite nodes, inverted on 1025 + 2 x 257 grid points
(:func:`bayes_eval.posteriors.intervals.mixture_quantiles`). Both as process CPU time (less
affected by other processes than wall time), median of ``--repeats`` runs; prints one row
per board, the ratio, and the endpoints of both (the new ones are checked against a
brute-force grid in ``tests/posteriors/test_exact_learned.py``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bayes_eval as be
from bayes_eval.posteriors.intervals import mixture_quantiles


def boards(seed: int = 0) -> dict[str, np.ndarray]:
    """Binary results of M = 30 questions."""
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
        "N=4 random": (rng.random((30, 4)) < p[:, None]).astype(float),
        "N=8 random": (rng.random((30, 8)) < p[:, None]).astype(float),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    be.posterior(np.ones((3, 1)), prior="empirical").interval(kind="exact")  # warm up
    print(f"{'board':18s} {'new ms':>8s} {'old ms':>8s} {'ratio':>6s}  new [lo, hi]  old [lo, hi]")
    for name, R in boards().items():

        def new(R=R):
            post = be.posterior(R, prior="empirical")
            _ = post.sd
            t = time.process_time()
            ends = post.interval(0.95, kind="exact")
            return time.process_time() - t, ends

        def old(R=R):
            post = be.posterior(R, prior="empirical")
            _ = post.sd
            t = time.process_time()
            laws, wts = post._mixture_laws(0)
            ends = mixture_quantiles(laws, wts, [0.025, 0.975])
            return time.process_time() - t, ends

        t_new = np.median([new()[0] for _ in range(args.repeats)]) * 1000
        t_old = np.median([old()[0] for _ in range(args.repeats)]) * 1000
        e_new, e_old = new()[1], old()[1]
        print(
            f"{name:18s} {t_new:8.1f} {t_old:8.1f} {t_old / t_new:6.1f}  "
            f"[{e_new[0]:.4f}, {e_new[1]:.4f}]  [{e_old[0]:.4f}, {e_old[1]:.4f}]"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
