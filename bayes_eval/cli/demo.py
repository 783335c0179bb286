"""``bayes-eval demo``: a real leaderboard, then the biased-coin mimics of the paper."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, fmt, interval, say, table, uncertain
from bayes_eval.cli._types import SubParsers, positive_int

HELP = "rank the shipped MathArena leaderboard and the paper's biased-coin mimics"
DESCRIPTION = """\
Ranks the shipped MathArena AIME 2025 I leaderboard (Bayes@4, 16 models), then the eleven
simulated LLMs of Hariri et al., "Don't Pass@k" (§2.7, Table 1) against their true ranks, and
plans the trials that separate LLM10 from LLM9 (App. D)."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval demo`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "demo",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.seed_options("seed of the simulated LLMs (0)"),
            opt.output_options(
                plot="forest plot of the leaderboard; the mimics' goes next to it "
                "(FILE_biased_coin.png)"
            ),
        ],
    )
    p.add_argument("--trials", type=positive_int, default=80, help="trials N per question (80)")
    p.add_argument(
        "--n-questions", type=positive_int, default=30, help="questions M of the mimics (30)"
    )
    opt.deprecated(p, "--questions", "--n-questions", dest="n_questions", type=positive_int)
    p.set_defaults(func=run)


def _leaderboard(board: dict) -> None:
    say(
        f"MathArena AIME 2025 I leaderboard (shipped dataset {board['dataset']}): "
        f"{len(board['models'])} models, {board['M']} questions, {board['N']} runs each; "
        f"Bayes@{board['N']} with 95% credible intervals; prior: {board['prior']}; estimand: "
        f"{board['estimand']} (--prior-kind uniform in `bayes-eval rank` gives the paper's)."
    )
    table(
        [
            "model",
            f"Bayes@{board['N']}",
            uncertain("sigma"),
            uncertain("95% CI"),
            "rank range",
            uncertain("P(> next)"),
            "USD/run",
        ],
        (
            [
                r["model"],
                fmt(r["mu"]),
                fmt(r["sigma"]),
                interval(r["lo"], r["hi"]),
                _rank_range(r["rank_range"]),
                "" if r["prob_next"] is None else f"{r['prob_next']:.3f}",
                fmt(r["cost_usd_per_run"], 2),
            ]
            for r in board["models"]
        ),
    )
    say(
        "rank range: every rank the pairwise statements P(better) >= 0.95 leave open (no "
        "chaining); P(> next): posterior probability that the model beats the next one listed. "
        f"The paper's CI-aware rank (§2.7.1) chains ties: with {board['M']} questions x "
        f"{board['N']} runs it leaves {board['rank_groups']} rank group(s) (`bayes-eval rank "
        "--paper-ranks` shows it).",
        "",
    )


def _rank_range(pair: list[int]) -> str:
    lo, hi = pair
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval demo`` with the parsed ``args``; return the exit status.

    Ranks the shipped MathArena leaderboard and the paper's biased-coin mimics and plans the
    trials that separate LLM10 from LLM9 (``bayes_eval.demo.run_demo``); prints them, or the
    ``--json`` document. Returns 0.
    """
    from bayes_eval.demo import run_demo

    demo = run_demo(
        n_questions=args.n_questions, trials=args.trials, seed=args.seed, plot=args.plot
    )
    if args.json:
        emit_json(demo)
        return 0
    _leaderboard(demo.leaderboard | {"estimand": demo.estimand})
    n = demo.N
    say(
        f"Biased-coin LLM mimics (Hariri et al., §2.7): {len(demo.models)} models, M = "
        f"{demo.M} questions, N = {n} trials, seed {demo.seed}; prior: {demo.mimics_prior} (the "
        f"paper's Table 1); estimand: {demo.estimand}.\nRanks are dense (1, 2, 2, 3) as in the "
        "paper's Table 1; 'w/ CI' ties consecutive models with z < 1.645."
    )
    table(
        [
            "model",
            "true pi-bar",
            "gold rank",
            f"Bayes@{n}",
            uncertain("sigma"),
            uncertain("95% CI"),
            "w/o CI",
            "w/ CI",
        ],
        (
            [
                r["model"],
                fmt(r["pi_bar"]),
                r["gold_rank"],
                fmt(r["mu"]),
                fmt(r["sigma"]),
                interval(r["lo"], r["hi"]),
                r["rank"],
                r["rank_ci"],
            ]
            for r in demo.models
        ),
    )
    say(f"Kendall tau_b(Bayes@{n}, gold standard) = {demo.kendall_tau_b:.4f}")
    plan = demo.plan_llm10_vs_llm9
    pair = "LLM10 vs LLM9" if plan.leader == "a" else "LLM9 vs LLM10"
    if plan.extra_trials == 0:
        say(f"{pair}: z = {plan.z_now:.2f} at N = {n}, already separated at z >= 1.645.")
    elif plan.n_required is not None:
        say(
            f"{pair}: z = {plan.z_now:.2f} at N = {n}; z >= 1.645 with 80% assurance needs "
            f"N = {plan.n_required} (App. D's plug-in projection reports about 199)."
        )
    else:
        say(f"{pair}: z = {plan.z_now:.2f} at N = {n}; no plan: {plan.reason}.")
    if demo.plots:
        say(f"forest plots written to {demo.plots[0]} (leaderboard) and {demo.plots[1]} (mimics)")
    say(f"time: {demo.seconds:.3f} s")
    return 0
