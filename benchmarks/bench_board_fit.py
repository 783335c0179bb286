"""Speed of a board fit with several trials per question: finite sums against special functions
(run: ``python benchmarks/bench_board_fit.py``).

The board model's Beta-binomial cells (:mod:`bayes_eval.posteriors.joint`) need
:math:`\\log\\Gamma(a + k) - \\log\\Gamma(a)` and its first two derivatives in every cell at
every step of the fit. With at most ``_FINITE_SUMS`` trials per cell they are finite sums,
:math:`\\sum_{i<k}\\log(a + i)`, one term per trial, all the board's terms in one vectorised
call; beyond it log-gamma, digamma and trigamma. This script fits the same 6 x 30 boards (close
models: logit abilities of sd 0.25, difficulties of sd 1.5, an interaction of sd 0.7) at N
trials per question both ways in one run, interleaved (the special-function path by setting
``_FINITE_SUMS`` to 0), and reports the finite sums' time as a ratio of the special functions'.
Goal: at most 1.1 (no slower, within noise) at every N up to the threshold, which is what the
threshold claims; beyond it the ratio is printed without a goal (the finite sums are forced
there: their cost grows with N, the special functions' does not). The refit law of
``plan --preposterior refit`` fits such boards at 10-60 trials per question thousands of times.

``--smoke``: two N, two rounds (seconds). ``--json``: the records as JSON.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from _timing import interleaved, versus
from scipy.special import expit

from bayes_eval.posteriors import joint as J

FULL_N = (2, 4, 8, 16, 32, 48, 64, 96)
SMOKE_N = (4, 32)


def boards(n: int, count: int = 5, seed: int = 0) -> list[np.ndarray]:
    """``count`` boards of 6 close models x 30 questions, ``n`` trials per question."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        theta = rng.normal(0.0, 0.25, 6)
        b = rng.normal(0.0, 1.5, 30)
        p = expit(theta[:, None] - b[None, :] + rng.normal(0.0, 0.7, (6, 30)))
        k = rng.binomial(n, p)
        out.append(np.stack([n - k, k], axis=-1))
    return out


def fit_all(counts: list[np.ndarray], finite_sums: int) -> None:
    """Fit every board with the given threshold of the finite sums."""
    before = J._FINITE_SUMS
    J._FINITE_SUMS = finite_sums
    try:
        for c in counts:
            J.joint_posterior(c, keep=False)
    finally:
        J._FINITE_SUMS = before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="two N, two rounds")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    grid, repeats = (SMOKE_N, 2) if args.smoke else (FULL_N, 5)
    threshold = J._FINITE_SUMS
    records = {}
    with J.one_blas_thread():
        for n in grid:
            counts = boards(n, count=2 if args.smoke else 5)
            best = interleaved(
                {
                    "finite": lambda c=counts: fit_all(c, 10**9),
                    "special": lambda c=counts: fit_all(c, 0),
                },
                repeats=repeats,
            )
            per_fit = {k: v / len(counts) for k, v in best.items()}
            goal = "<= 1.1" if n <= threshold else None
            records[f"N={n}"] = versus(
                per_fit["finite"], per_fit["special"], goal, what="the special functions"
            )
    if args.json:
        print(json.dumps({"threshold": threshold, "records": records}, indent=1))
    else:
        print(f"a 6 x 30 board fit, finite sums up to {threshold} trials per cell")
        for name, rec in records.items():
            print(
                f"{name:6s} finite sums {1e3 * rec['seconds']:7.1f} ms, special functions "
                f"{1e3 * rec['reference_seconds']:7.1f} ms: {rec['text']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
