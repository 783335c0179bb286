"""Speed of the closed-form fast path (run: ``make bench`` or ``python benchmarks/bench_bayes.py``).

1. Batched ``bayes_ci`` over L = 20 models of 30 x 80 against a Python loop of scorio 0.2.3
   ``bayes_ci`` calls (target: >= 10x faster).
2. ``bayes`` on a 10^4 x 10^3 int8 matrix against ``R.sum(axis=-1)`` on the same array, the
   memory-bound floor of any method that reads every entry (targets: binary <= 2x the floor,
   C = 4 <= 6x).
3. For information: the Pass family posteriors on the L = 20 batch, and the exact interval.

Each timing is the best of several repeats (``timeit``), which measures the code rather than
the noise of a shared machine. Pass ``--json`` for machine-readable output.
"""

from __future__ import annotations

import argparse
import json
import timeit

import numpy as np

import bayes_eval as be


def best(fn, number: int, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from scorio import eval as se

    rng = np.random.default_rng(0)
    results = {}

    R20 = (rng.random((20, 30, 80)) < rng.random((20, 30, 1))).astype(np.int64)
    ours = best(lambda: be.bayes_ci(R20), number=200)
    loop = best(lambda: [se.bayes_ci(r) for r in R20], number=20)
    results["bayes_ci_L20_30x80"] = {
        "bayes_eval_s": ours,
        "scorio_loop_s": loop,
        "speedup": loop / ours,
        "target": ">= 10",
    }

    Rb = (rng.random((10**4, 10**3)) < 0.5).astype(np.int8)
    floor_b = best(lambda: Rb.sum(axis=-1), number=10)
    t_b = best(lambda: be.bayes(Rb), number=10)
    results["bayes_binary_1e4x1e3_int8"] = {
        "bayes_s": t_b,
        "floor_sum_s": floor_b,
        "ratio": t_b / floor_b,
        "target": "<= 2",
    }

    R4 = rng.integers(0, 5, size=(10**4, 10**3), dtype=np.int8)
    w4 = np.linspace(0.0, 1.0, 5)
    floor_4 = best(lambda: R4.sum(axis=-1), number=10)
    t_4 = best(lambda: be.bayes(R4, w4), number=10)
    results["bayes_C4_1e4x1e3_int8"] = {
        "bayes_s": t_4,
        "floor_sum_s": floor_4,
        "ratio": t_4 / floor_4,
        "target": "<= 6",
    }

    Rp = R20.astype(np.int8)
    family = {f.__name__: f for f in (be.pass_at_k_ci, be.pass_hat_k_ci, be.mg_pass_at_k_ci)}
    results["pass_family_ci_L20_30x80_k8"] = {
        name: best(lambda f=f: f(Rp, 8), number=20) for name, f in family.items()
    }
    results["pass_family_ci_L20_30x80_k8"]["g_pass_at_k_tau_ci"] = best(
        lambda: be.g_pass_at_k_tau_ci(Rp, 8, 0.5), number=20
    )
    results["bayes_ci_exact_L20_30x80_s"] = best(
        lambda: be.bayes_ci(R20, interval="exact"), number=1, repeat=3
    )

    if args.json:
        print(json.dumps(results, indent=2))
        return
    r = results["bayes_ci_L20_30x80"]
    print(
        f"bayes_ci, 20 models x 30 x 80: {r['bayes_eval_s'] * 1e3:.3f} ms vs scorio loop {r['scorio_loop_s'] * 1e3:.3f} ms -> {r['speedup']:.1f}x (target >= 10x)"
    )
    for key, label, target in (
        ("bayes_binary_1e4x1e3_int8", "binary", 2),
        ("bayes_C4_1e4x1e3_int8", "C = 4", 6),
    ):
        r = results[key]
        print(
            f"bayes, {label}, 10^4 x 10^3 int8: {r['bayes_s'] * 1e3:.2f} ms vs floor R.sum(-1) {r['floor_sum_s'] * 1e3:.2f} ms -> {r['ratio']:.2f}x (target <= {target}x)"
        )
    for name, t in results["pass_family_ci_L20_30x80_k8"].items():
        print(f"{name}, 20 models x 30 x 80, k = 8: {t * 1e3:.2f} ms")
    print(
        f"bayes_ci(interval='exact'), 20 models x 30 x 80: {results['bayes_ci_exact_L20_30x80_s']:.2f} s"
    )


if __name__ == "__main__":
    main()
