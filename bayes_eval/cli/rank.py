"""``bayes-eval rank``: a leaderboard with Bayes@N, credible intervals and CI-aware ranks."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._leaderboard import print_leaderboard, records_json
from bayes_eval.cli._output import emit_json
from bayes_eval.cli._types import positive_int

HELP = "rank models from evaluation logs or a long table (Bayes@N, CI-aware ranks)"
DESCRIPTION = """\
Rank models by Bayes@N, the posterior mean of their score with a credible interval
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").
'rank w/ CI' ties consecutive models whose difference is not credible (§2.7.1); 'rank range'
is every rank the pairwise comparisons leave open.

Leaderboards as they are: --questions says what to do when some model did not answer some
question (common: rank on the questions every model answered; all: each model on its own
questions, not on one scale); --estimator crossed fits the crossed model (model ability and
question difficulty on one scale, by NUTS), which scores every model on every question.
Graded scores in [0, 1] need --score-levels K or --fractional."""

PRIOR_KINDS = ["empirical", "empirical-plugin", "uniform", "jeffreys"]
ESTIMATORS = ["closed-form", "crossed"]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "rank",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("+", "log files or directories (one format), or dataset:NAME"),
            opt.weights_options(),
            opt.prior_file_options(),
            opt.output_options(plot="write a forest plot (PNG)"),
            opt.nuts_options(sampler="nutpie"),
        ],
    )
    p.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    p.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        default="closed-form",
        help="closed-form Bayes@N (default), or the crossed model by NUTS (the NUTS options "
        "apply; sampler nutpie by default)",
    )
    p.add_argument(
        "--interval",
        choices=["normal", "exact"],
        help="closed form: normal approximation (default) or the exact posterior quantiles",
    )
    p.add_argument(
        "--prior-kind",
        choices=PRIOR_KINDS,
        help="closed form, per-question Dirichlet prior: learned from the questions and "
        "integrated over its uncertainty (empirical, default), learned and plugged in, the "
        "paper's uniform (as Hariri et al.), or Jeffreys",
    )
    p.add_argument(
        "--pool",
        choices=["model", "benchmark"],
        help="learned prior (empirical kinds): one per model (default) or one for all models",
    )
    g = p.add_argument_group("leaderboards as they are")
    g.add_argument(
        "--questions",
        choices=["error", "common", "all"],
        help="when some model did not answer some question: refuse (error, the closed form's "
        "default), keep the questions every model answered (common), or keep all (all, the "
        "crossed model's default; the closed form then scores each model on its own questions)",
    )
    g.add_argument(
        "--score-levels",
        type=positive_int,
        metavar="K",
        help="graded scores in [0, 1]: round to K evenly spaced levels, whose values are the "
        "weights (exact when the scores lie on that grid)",
    )
    g.add_argument(
        "--fractional",
        action="store_true",
        help="graded scores in [0, 1]: a score s counts as s correct and 1 - s wrong answers "
        "(a quasi-likelihood: right mean, conservative intervals)",
    )
    g = p.add_argument_group("logs")
    g.add_argument("--schema", help="built-in rubric schema (see `bayes-eval schemas`)")
    g.add_argument("--schema-file", metavar="FILE", help="user-defined rubric schema (TOML)")
    g.add_argument("--model", help="name of the LLM where the log does not give one")
    g.add_argument("--metric", help="lm-eval / HELM metric used as the 0/1 score")
    g.add_argument("--filter", help="lm-eval filter (default: the first in the file)")
    g.add_argument("--scorer", help="Inspect scorer giving the category (default: the first)")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    """Refuse options that would do nothing with the chosen estimator and prior."""
    if args.estimator == "crossed":
        why = "with --estimator crossed (its priors are its own; intervals are posterior quantiles)"
        opt.refuse(opt.given(args, "prior_kind", "pool", "interval", "prior_file"), why)
    else:
        opt.refuse(opt.given(args, *opt.NUTS), "with --estimator closed-form (nothing samples)")
        if args.prior_kind in ("uniform", "jeffreys"):
            why = f"with --prior-kind {args.prior_kind} (no prior is learned)"
            opt.refuse(opt.given(args, "pool"), why)


def run(args: argparse.Namespace) -> int:
    from bayes_eval.logs.scored import load_scored

    _check(args)
    crossed = args.estimator == "crossed"
    questions = args.questions or ("all" if crossed else "error")
    scored = load_scored(
        args.file,
        format=args.format,
        weights=args.weights,
        prior_files=args.prior_file,
        schema=args.schema,
        schema_file=args.schema_file,
        model=args.model,
        metric=args.metric,
        filter=args.filter,
        scorer=args.scorer,
        questions=questions,
        score_levels=args.score_levels,
        fractional=args.fractional,
        cli_names=True,
    )
    name = args.file[0] if len(args.file) == 1 else f"{len(args.file)} files"
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
            progressbar=not args.no_progress and not args.json,
        )
    else:
        from bayes_eval.ranking.leaderboard import leaderboard

        board = leaderboard(
            scored.R,
            scored.weights,
            scored.R0,
            confidence=args.confidence,
            interval=args.interval or "normal",
            prior=args.prior_kind or "empirical",
            pool=args.pool or "model",
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
