"""``bayes-eval rank``: a leaderboard with Bayes@N, credible intervals and CI-aware ranks."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._leaderboard import print_leaderboard, records_json
from bayes_eval.cli._output import emit_json

HELP = "rank models from evaluation logs or a long table (Bayes@N, CI-aware ranks)"
DESCRIPTION = """\
Rank models by Bayes@N, the posterior mean of their score with a credible interval
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").
'rank w/ CI' ties consecutive models whose difference is not credible (§2.7.1); 'rank range'
is every rank the pairwise comparisons leave open.

Every number is about these questions (the estimand: each model's mean score over the
benchmark's own questions) under the prior the header names (default: learned from the
questions, --prior-kind). Leaderboards as they are: --questions says what to do when some
model did not answer some question (common: rank on the questions every model answered; all:
each model on its own questions, not on one scale); --estimator crossed fits the crossed
model (model ability and question difficulty on one scale, by NUTS), which scores every model
on every question. Graded scores in [0, 1] need --score-levels K or --fractional."""

ESTIMATORS = ["closed-form", "crossed"]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "rank",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("+", "log files or directories (one format), or dataset:NAME"),
            opt.data_options(),
            opt.prior_options(),
            opt.output_options(plot="write a forest plot (PNG)"),
            opt.nuts_options(),
        ],
    )
    p.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    p.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        default="closed-form",
        help="closed-form Bayes@N (default), or the crossed model by NUTS (the NUTS options apply)",
    )
    p.add_argument(
        "--interval",
        choices=["normal", "exact"],
        help="closed form: normal approximation (default) or the exact posterior, for the "
        "intervals and P(better)",
    )
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    """Refuse options that would do nothing with the chosen estimator and prior."""
    if args.estimator == "crossed":
        why = "with --estimator crossed (its priors are its own; intervals are posterior quantiles)"
        opt.refuse(
            opt.given(args, "prior_kind", "pool", "interval", "prior_file", "prior_discount"),
            why,
        )
    else:
        opt.refuse(opt.given(args, *opt.NUTS), "with --estimator closed-form (nothing samples)")


def run(args: argparse.Namespace) -> int:
    _check(args)
    crossed = args.estimator == "crossed"
    prior = None if crossed else opt.prior_from(args)
    questions = args.questions or ("all" if crossed else "error")
    scored = opt.load_results(args, questions=questions)
    name = opt.source_name(args)
    if crossed:
        from bayes_eval.models.crossed_leaderboard import crossed_leaderboard

        nuts = opt.sampler_settings(args)
        board = crossed_leaderboard(
            scored.R,
            scored.weights,
            fractional=scored.fractional,
            confidence=args.confidence,
            draws=nuts["draws"],
            tune=nuts["tune"],
            chains=nuts["chains"],
            seed=nuts["seed"],
            sampler=nuts["sampler"],
            progress=not args.no_progress and not args.json,
        )
    else:
        from bayes_eval.ranking.leaderboard import leaderboard

        board = leaderboard(
            scored.R,
            scored.weights,
            scored.R0,
            confidence=args.confidence,
            interval=args.interval or "normal",
            prior=prior,
            answered_only=questions == "all",
            fractional=scored.fractional,
        )
    if args.plot:
        from bayes_eval.plotting.forest import forest_plot

        what = "crossed model" if crossed else "Bayes@N"
        forest_plot(board.table, args.plot, title=f"{what} leaderboard: {name}")
    if args.json:
        emit_json(records_json(board, scored, args, name, questions))
        return 0
    print_leaderboard(board, scored, args, name, questions)
    return 0
