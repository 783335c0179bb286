"""``bayes-eval plan``: trials per question that separate two models with assurance."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say
from bayes_eval.cli._types import positive_int

HELP = "trials needed to separate two models with assurance (Hariri et al., App. D)"
DESCRIPTION = """\
How many trials per question confirm the current leader of two models: the smallest N at
which the CI-aware ranks of Hariri et al., "Don't Pass@k" (§2.7.1, App. D) separate them with
probability --assurance under the posterior predictive of both models. The posterior is the
board's, under the prior the header names (the same as `rank`): P(leader better) is the
number `rank` and `pairs` report for these questions."""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plan",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options(),
            opt.data_options(),
            opt.prior_options(),
            opt.seed_options("seed of the simulations (0)"),
            opt.output_options(),
        ],
    )
    p.add_argument("model_a", help="one LLM (a model name of FILE)")
    p.add_argument("model_b", help="the other LLM")
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="ranking confidence to reach: z >= Phi^-1(confidence), 1.645 for 0.95 (default)",
    )
    p.add_argument(
        "--assurance",
        type=float,
        default=0.8,
        help="target probability of reaching it (posterior predictive); default 0.8",
    )
    p.add_argument(
        "--simulations",
        type=positive_int,
        default=2000,
        help="Monte Carlo simulations of the future trials (2000)",
    )
    opt.deprecated(p, "--draws", "--simulations", dest="simulations", type=positive_int)
    p.add_argument("--max-trials", type=positive_int, default=10_000, help="largest N per question")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bayes_eval.ranking.leaderboard import plan_pair

    prior = opt.prior_from(args)
    scored = opt.load_results(args, offer_fractional=False)
    if scored.fractional:  # the simulations draw categories; fractional counts have none
        raise ValueError(
            "plan simulates future trials as score categories; graded scores counted "
            "fractionally (--fractional) have none: use --score-levels K instead."
        )
    result = plan_pair(
        scored.R,
        args.model_a,
        args.model_b,
        scored.weights,
        scored.R0,
        prior=prior,
        confidence=args.confidence,
        assurance=args.assurance,
        simulations=args.simulations,
        max_trials=args.max_trials,
        seed=args.seed,
        answered_only=(args.questions or "error") == "all",
        source=args.file,
    )
    plan, leader, other = result.plan, result.leader, result.other
    if args.json:
        emit_json(
            {
                "prior": plan.prior,
                "estimand": plan.estimand,
                "model_a": args.model_a,
                "model_b": args.model_b,
                "leader": leader,
                "confidence": args.confidence,
                **{k: v for k, v in asdict(plan).items() if k not in ("leader", "prior")},
                "simulations": plan.draws,
                "seed": args.seed,
            }
        )
        return 0
    say(
        f"{opt.source_name(args)}: prior: {plan.prior}; estimand: {plan.estimand}; {leader} "
        f"leads {other}: z = {plan.z_now:.3f} with N = {plan.n_now}; "
        f"P({leader} better) = {plan.prob_leader_better:.3f}."
    )
    if plan.extra_trials == 0:
        say(f"already separated at z >= {plan.z_target:.3f}.")
    elif plan.n_required is None:
        say(f"no plan reaches assurance {plan.assurance_target}: {plan.reason}")
    else:
        say(
            f"z >= {plan.z_target:.3f} in {leader}'s favour with probability "
            f"{plan.assurance_at_required:.3f} (target {plan.assurance_target}, posterior "
            f"predictive, {plan.draws} simulations) needs N = {plan.n_required} trials per "
            f"question ({plan.extra_trials} more)."
        )
    return 0
