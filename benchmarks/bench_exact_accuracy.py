"""Accuracy of the exact posterior interval of pi-bar over the whole sweep of the module
docstring of :mod:`bayes_eval.posteriors.exact` (run: ``python benchmarks/bench_exact_accuracy.py``).

For every confidence level (default 50%, 95% and 99.9%) and every case of the grid alpha0 in
{0.05, 0.5, 1, 10} x binary and (0, 1/2, 1) rubric x M in {1, 2, 5, 30} x N in {1, 16} x
all-wrong, all-correct, half-and-half, all-middle (rubric) and random data (288 cases per
level): the interval's endpoints against an independent reference (scipy's beta quantiles for
M = 1 binary, numerical convolution by quadrature for M = 2 binary, otherwise a 16 times
finer computation), as the error of an endpoint in posterior sd and of the mass beyond it.
Prints one row per case and level, the worst errors per level, and whether they are within
the bounds the test suite holds (``_ACCURACY`` of ``tests/posteriors/test_exact_posterior.py``,
which checks a representative subset; the references are that module's). ``--support K``
also checks on K random data sets that the endpoints lie in the support (the property test
``test_interval_lies_in_the_support`` of the same module, which draws 12). About 3 minutes
on one core; ``--smoke`` runs a few cases in seconds. Exit status 1 if a bound is exceeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "posteriors"))
from test_exact_posterior import (
    _ACCURACY,
    BINARY,
    DATA_KINDS,
    RUBRIC,
    _check_support,
    accuracy_case,
)

FULL = {"alpha0": (0.05, 0.5, 1.0, 10.0), "M": (1, 2, 5, 30), "N": (1, 16), "data": DATA_KINDS}
SMOKE = {"alpha0": (1.0,), "M": (1, 2), "N": (1,), "data": ("wrong", "middle", "random")}


def sweep(grid: dict, confidences, seed: int = 7):
    """One row per case and confidence level (the columns of :func:`accuracy_case`)."""
    rng = np.random.default_rng(seed)
    rows = []
    for alpha0 in grid["alpha0"]:
        for w in (BINARY, RUBRIC):
            for m in grid["M"]:
                for n in grid["N"]:
                    for data in grid["data"]:
                        if data == "middle" and w.size == 2:
                            continue
                        for confidence, kind, lo, hi, err_q, err_m in accuracy_case(
                            alpha0, w, m, n, data, rng, confidences
                        ):
                            rows.append(
                                {
                                    "confidence": confidence,
                                    "alpha0": alpha0,
                                    "C": w.size - 1,
                                    "M": m,
                                    "N": n,
                                    "data": data,
                                    "reference": kind,
                                    "lo": lo,
                                    "hi": hi,
                                    "err_sd": err_q,
                                    "err_mass": err_m,
                                }
                            )
    return rows


def support(examples: int, seed: int = 0) -> int:
    """Random data sets of the property test; returns how many were checked (raises if an
    endpoint leaves the support)."""
    rng = np.random.default_rng(seed)
    for _ in range(examples):
        _check_support(
            alpha0=float(rng.uniform(0.05, 3.0)),
            rubric=bool(rng.integers(2)),
            m=int(rng.integers(1, 31)),
            n=int(rng.integers(1, 17)),
            confidence=float(rng.choice([0.5, 0.9, 0.95, 0.99, 0.999])),
            seed=int(rng.integers(2**32)),
        )
    return examples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few cases (seconds)")
    parser.add_argument(
        "--confidence",
        type=float,
        nargs="+",
        default=list(_ACCURACY),
        help="levels (default: 0.5 0.95 0.999, those with bounds in the test suite)",
    )
    parser.add_argument("--support", type=int, default=0, metavar="K", help="K support checks")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", module="scipy.integrate")
    start = time.perf_counter()
    rows = sweep(SMOKE if args.smoke else FULL, tuple(args.confidence))
    checked = support(args.support)
    seconds = time.perf_counter() - start
    worst = {}
    for c in args.confidence:
        mine = [r for r in rows if r["confidence"] == c]
        bound = _ACCURACY.get(c)
        q, m = max(r["err_sd"] for r in mine), max(r["err_mass"] for r in mine)
        ok = None if bound is None else bool(q < bound[0] and m < bound[1])
        worst[c] = {"cases": len(mine), "err_sd": q, "err_mass": m, "bound": bound, "ok": ok}
    if args.json:
        print(json.dumps({"worst": worst, "support_checked": checked, "seconds": seconds}))
    else:
        print(
            "level  alpha0  C   M   N  data     reference   lo         hi        |err|/sd |err tail|"
        )
        for r in rows:
            print(
                f"{r['confidence']:5g} {r['alpha0']:6g} {r['C']:2d} {r['M']:3d} {r['N']:3d}  "
                f"{r['data']:7s}  {r['reference']:10s}  {r['lo']:.4e} {r['hi']:.6f}  "
                f"{r['err_sd']:.1e}  {r['err_mass']:.1e}"
            )
        print()
        for c, v in worst.items():
            verdict = "" if v["ok"] is None else ("within" if v["ok"] else "OUTSIDE")
            bound = "" if v["bound"] is None else f" ({verdict} the test bounds {v['bound']})"
            print(
                f"{c:g}: {v['cases']} cases, max error {v['err_sd']:.1e} sd, "
                f"{v['err_mass']:.1e} mass{bound}"
            )
        if checked:
            print(f"support: {checked} random data sets, every endpoint in the support")
        print(f"{seconds:.0f} s")
    return 0 if all(v["ok"] is not False for v in worst.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
