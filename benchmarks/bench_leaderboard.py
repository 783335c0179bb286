"""The closed form on a public-leaderboard shape: 93 models x 1,136 questions, about 10% of
the pairs missing (two question-set versions, three models on 50 questions, 1% at random, 2%
run twice), binary and graded; and the paired comparisons of all 4,278 pairs.

Target (issue 18): the closed form under 50 ms. Best of 5 runs after a warm-up.
Run: ``.venv/bin/python benchmarks/bench_leaderboard.py``
"""

from __future__ import annotations

import time

import numpy as np

from bayes_eval.logs.design import select_questions
from bayes_eval.ranking.leaderboard import rank_table
from bayes_eval.ranking.paired import leaderboard_pairs
from bayes_eval.synthetic.leaderboard import simulate_leaderboard

SHAPE = {
    "question_sets": (1000, 1136),
    "subset_models": 3,
    "subset_size": 50,
    "missing": 0.01,
    "repeats": 0.02,
}


def best(fn, repeats=5) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    for scores in ("binary", "graded"):
        board = simulate_leaderboard(93, 1136, scores=scores, seed=0, **SHAPE)
        R = board.to_dataarray()
        frac = scores == "graded"
        missing = 1 - board.answered.mean()
        print(f"{scores}: 93 x 1136, {missing:.1%} pairs missing")
        try:
            common = select_questions(R, "common").R
        except ValueError as exc:  # the subset models and the random gaps leave none
            common = None
            print(f"  --questions common: {exc}")
        for prior in ("uniform", "empirical-plugin", "empirical"):
            t_all = best(
                lambda p=prior, R=R, f=frac: rank_table(
                    R, prior=p, skipna=True, answered_only=True, fractional=f
                )
            )
            line = f"  rank_table prior={prior:16s} all: {t_all * 1e3:7.1f} ms"
            if common is not None:
                t_common = best(
                    lambda p=prior, c=common, f=frac: rank_table(
                        c, prior=p, skipna=True, fractional=f
                    )
                )
                line += f"   common ({common.sizes['question']} q): {t_common * 1e3:7.1f} ms"
            print(line)
        for prior in ("uniform", "empirical"):
            t = time.perf_counter()
            pc = leaderboard_pairs(R, fractional=frac, prior=prior)
            print(
                f"  pairs prior={prior}: {time.perf_counter() - t:6.2f} s for "
                f"{93 * 92 // 2} pairs, methods {pc.method}"
            )
    print("R (93 x 1136 x 2 float64):", f"{R.nbytes / 2**20:.1f} MiB;", np.__version__)


if __name__ == "__main__":
    main()
