"""The closed form on a public-leaderboard shape: 93 models x 1,136 questions, about 10% of
the pairs missing (two question-set versions, three models on 50 questions, 1% at random, 2%
run twice), binary and graded; and the paired comparisons of all 4,278 pairs.

Target (issue 18): the closed form under 50 ms. Best of 5 runs after a warm-up. Each learned
prior's time is printed as a ratio to the uniform prior's on the same board from the same run
(issue 28's goal for the graded board: <= 10x).
Run: ``.venv/bin/python benchmarks/bench_leaderboard.py``; ``--smoke``: a 10 x 60 board, one
run per call, no plug-in prior and no common questions (seconds); ``--json``: the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _timing import versus

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
PRIORS = ("uniform", "empirical-plugin", "empirical")
SMOKE_SHAPE = {**SHAPE, "question_sets": (50, 60), "subset_models": 1, "subset_size": 20}


def best(fn, repeats: int = 5) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a 10 x 60 board, seconds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    n_models, n_questions = (10, 60) if args.smoke else (93, 1136)
    shape = SMOKE_SHAPE if args.smoke else SHAPE
    repeats = 1 if args.smoke else 5
    say = (lambda *a: None) if args.json else print
    out: dict = {}
    for scores in ("binary", "graded"):
        board = simulate_leaderboard(n_models, n_questions, scores=scores, seed=0, **shape)
        R = board.to_dataarray()
        frac = scores == "graded"
        missing = 1 - board.answered.mean()
        say(f"{scores}: {n_models} x {n_questions}, {missing:.1%} pairs missing")
        rec: dict = {"missing": float(missing)}
        priors = ("uniform", "empirical") if args.smoke else PRIORS
        try:
            common = None if args.smoke else select_questions(R, "common").R
        except ValueError as exc:  # the subset models and the random gaps leave none
            common = None
            say(f"  --questions common: {exc}")
        times = {}
        for prior in priors:
            t_all = best(
                lambda p=prior, R=R, f=frac: rank_table(
                    R, prior=p, skipna=True, answered_only=True, fractional=f
                ),
                repeats,
            )
            times[prior] = t_all
            rec[f"rank_table_{prior}_s"] = t_all
            line = f"  rank_table prior={prior:16s} all: {t_all * 1e3:7.1f} ms"
            if prior != "uniform":
                v = versus(t_all, times["uniform"], "<= 10" if frac else None, what="uniform")
                rec[f"rank_table_{prior}_vs_uniform"] = v
                line += f" ({v['text']})"
            if common is not None:
                t_common = best(
                    lambda p=prior, c=common, f=frac: rank_table(
                        c, prior=p, skipna=True, fractional=f
                    ),
                    repeats,
                )
                rec[f"rank_table_{prior}_common_s"] = t_common
                line += f"   common ({common.sizes['question']} q): {t_common * 1e3:7.1f} ms"
            say(line)
        for prior in ("uniform", "empirical"):
            t = time.perf_counter()
            pc = leaderboard_pairs(R, fractional=frac, prior=prior, answered_only=True)
            elapsed = time.perf_counter() - t
            rec[f"pairs_{prior}_s"] = elapsed
            n_pairs = n_models * (n_models - 1) // 2
            say(f"  pairs prior={prior}: {elapsed:6.2f} s for {n_pairs} pairs, methods {pc.method}")
        out[scores] = rec
    say(
        f"R ({n_models} x {n_questions} x 2 float64):",
        f"{R.nbytes / 2**20:.1f} MiB;",
        np.__version__,
    )
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
