"""Speed of a board fit with several trials per question: finite sums against special functions
(run: ``python benchmarks/bench_board_fit.py``).

The board model's Beta-binomial cells (:mod:`bayes_eval.posteriors.joint`) need
:math:`\\log\\Gamma(a + k) - \\log\\Gamma(a)` and its first two derivatives in every cell at
every step of the fit. Where the board's trials number at most ``_FINITE_FIXED +
_FINITE_PER_CELL`` per answered cell they are finite sums, :math:`\\sum_{i<k}\\log(a + i)`, one
term per trial, all the board's terms in one vectorised call; beyond it log-gamma, digamma
and trigamma. This script fits the same boards (close models: logit abilities of sd 0.25,
difficulties of sd 1.5, an interaction of sd 0.7; small, 6 x 30, and large, 40 x 300, where the
special functions' fixed cost per call matters less) at N trials per question both ways in one
run, interleaved (each path forced through the budget's constants), and reports the finite
sums' time as a ratio of the special functions'. Goal: the rule picks the faster path within
10%: at most 1.1 where it picks the finite sums, at least 0.9 where it picks the special
functions (their cost grows with the trials, the special functions' does not). The refit law
of ``plan --preposterior refit`` fits such boards at 10-60 trials per question thousands of
times.

``--smoke``: two N, two rounds (seconds). ``--json``: the records as JSON.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from _timing import interleaved, versus
from scipy.special import expit

from bayes_eval.posteriors import joint as J

#: (models, questions, boards) and the trials per question tried, full and smoke
SIZES = {"6 x 30": (6, 30, 5), "40 x 300": (40, 300, 2)}
FULL_N = {"6 x 30": (2, 4, 8, 16, 24, 32, 48, 64, 96), "40 x 300": (2, 8, 16, 24, 32, 48)}
SMOKE_N = {"6 x 30": (4, 32), "40 x 300": (8,)}


def boards(n: int, count: int = 5, seed: int = 0, shape=(6, 30)) -> list[np.ndarray]:
    """``count`` boards of close models (``shape``: models x questions), ``n`` trials each."""
    rng = np.random.default_rng(seed)
    out = []
    L, M = shape
    for _ in range(count):
        theta = rng.normal(0.0, 0.25, L)
        b = rng.normal(0.0, 1.5, M)
        p = expit(theta[:, None] - b[None, :] + rng.normal(0.0, 0.7, (L, M)))
        k = rng.binomial(n, p)
        out.append(np.stack([n - k, k], axis=-1))
    return out


def fit_all(counts: list[np.ndarray], finite: bool) -> None:
    """Fit every board, forcing the finite sums or the special functions."""
    before = J._FINITE_FIXED, J._FINITE_PER_CELL, J._FINITE_TERMS
    J._FINITE_FIXED, J._FINITE_PER_CELL, J._FINITE_TERMS = (
        (10**12, 0, 10**12) if finite else (0, 0, 0)
    )
    try:
        for c in counts:
            J.joint_posterior(c, keep=False)
    finally:
        J._FINITE_FIXED, J._FINITE_PER_CELL, J._FINITE_TERMS = before


def chosen(counts: np.ndarray) -> bool:
    """Whether the package's rule takes the finite sums on this board."""
    n, k = counts.sum(axis=-1), counts[..., 1]
    has = n > 0
    return J._Cells(n, k, has, J._weights(has)).finite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="two N, two rounds")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    grid, repeats = (SMOKE_N, 2) if args.smoke else (FULL_N, 5)
    rule = {"fixed": J._FINITE_FIXED, "per_cell": J._FINITE_PER_CELL, "terms": J._FINITE_TERMS}
    records = {}
    with J.one_blas_thread():
        for size, (L, M, count) in SIZES.items():
            for n in grid[size]:
                counts = boards(n, count=min(count, 2) if args.smoke else count, shape=(L, M))
                best = interleaved(
                    {
                        "finite": lambda c=counts: fit_all(c, True),
                        "special": lambda c=counts: fit_all(c, False),
                    },
                    repeats=repeats,
                )
                per_fit = {k: v / len(counts) for k, v in best.items()}
                goal = "<= 1.1" if chosen(counts[0]) else ">= 0.9"
                records[f"{size} N={n}"] = versus(
                    per_fit["finite"], per_fit["special"], goal, what="the special functions"
                )
    if args.json:
        print(json.dumps({"rule": rule, "records": records}, indent=1))
    else:
        print(
            f"a board fit, finite sums up to {rule['fixed']:,} + {rule['per_cell']} trials per "
            f"answered cell (at most {rule['terms']:,})"
        )
        for name, rec in records.items():
            print(
                f"{name:16s} finite sums {1e3 * rec['seconds']:7.1f} ms, special functions "
                f"{1e3 * rec['reference_seconds']:7.1f} ms: {rec['text']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
