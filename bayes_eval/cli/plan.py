"""``bayes-eval plan``: trials per question that separate two models with assurance."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, progress, say
from bayes_eval.cli._types import SubParsers, fdr_level, positive_int

if TYPE_CHECKING:
    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.posteriors.priors import Prior
    from bayes_eval.ranking.claims_plan import ClaimsPlan
    from bayes_eval.ranking.questions_plan import QuestionsPlan, TopQuestionsPlan
    from bayes_eval.ranking.sample_size import SeparationPlan

HELP = "trials (or questions) needed to separate two models, or to claim the top K, with assurance"
DESCRIPTION = """\
How many trials per question confirm the current leader of two models: the smallest N at
which the CI-aware ranks of Hariri et al., "Don't Pass@k" (§2.7.1, App. D) separate them with
probability --assurance under the posterior predictive of both models. The posterior is the
board's, under the prior the header names (the same as `rank`): P(leader better) is the
number `rank` and `pairs` report for these questions. With --fdr Q the pair is planned to
P(leader better) >= 1 - Q, where the claim "leader better" is among `rank --fdr Q`'s claims
whatever the other pairs. With --preposterior refit the assurance is over boards refitted
after simulated trials of the two models (every cell's rate drawn from the board model's
posterior; slower, a board fit per simulation and N tried; measured from one trial per
question, it keeps its promise on boards like the board model's prior but, like the default
law, not on close models).

With --top K instead of two models: how many trials per question of every model until the
claims at posterior expected FDR --fdr (0.05) name the top-K set (order each of the K
models with the largest means above each of the others), with probability --assurance under
the normal preposterior law of the board's scores, or with --preposterior refit over boards
refitted after simulated trials (every cell's rate drawn from the board model's posterior;
slower, a board fit per simulation and N tried; for one trial per question, where the normal
law over-promises).

With --estimand new-questions: how many more questions (each run for both models as these
were) until P(leader better on new questions), the paired number `pairs` prints, reaches
--confidence (or 1 - Q with --fdr Q), with probability --assurance under the posterior
predictive of the paired comparison. With --top K and --estimand new-questions: how many
more questions (each run for every model as these were) until the claims at FDR --fdr on the
paired new-questions matrix name the top-K set, with probability --assurance under a normal
law of the new questions (the models' population means under the board's learned normal
prior on the differences; flat under --prior-kind uniform or jeffreys)."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval plan`` parser to the subcommands ``sub``."""
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
    p.add_argument("model_a", nargs="?", help="one LLM (a model name of FILE)")
    p.add_argument("model_b", nargs="?", help="the other LLM")
    p.add_argument(
        "--confidence",
        type=float,
        help="ranking confidence to reach for two models: z >= Phi^-1(confidence), 1.645 for "
        "0.95 (default); with --estimand new-questions, P(leader better on new questions)",
    )
    p.add_argument(
        "--fdr",
        type=fdr_level,
        metavar="Q",
        help="the posterior expected false discovery rate of the claims planned for: with two "
        "models, confidence 1 - Q; with --top, the claims' level (0.05)",
    )
    p.add_argument(
        "--top",
        type=positive_int,
        metavar="K",
        help="plan until the claims name the top-K set (every model gets the trials, or with "
        "--estimand new-questions the questions), instead of two models",
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
        help="Monte Carlo simulations of the future trials, or questions (2000; 200 with "
        "--preposterior refit)",
    )
    p.add_argument(
        "--preposterior",
        choices=["normal", "refit"],
        help="the law of the future boards (more trials of these questions): the plan's own "
        "law (default: with --top the normal preposterior law of the scores, for two models "
        "the closed forms' futures, weighted to the board on a board) or refit, boards "
        "refitted after simulated trials (binary results under the board model)",
    )
    opt.deprecated(p, "--draws", "--simulations", dest="simulations", type=positive_int)
    p.add_argument("--max-trials", type=positive_int, help="largest N per question (10000)")
    p.add_argument(
        "--estimand",
        choices=["these-questions", "new-questions"],
        default="these-questions",
        help="these-questions: more trials of the benchmark's questions (default); "
        "new-questions: more questions from the same source, until the two models (or with "
        "--top the top-K set) are separated on new questions (paired, as `pairs` compares "
        "them)",
    )
    p.add_argument(
        "--max-questions",
        type=positive_int,
        help="largest number of questions considered (--estimand new-questions; 100000)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval plan`` with the parsed ``args``; return the exit status.

    Plans the trials per question that separate MODEL_A and MODEL_B (with ``--top K``: that
    make the claims name the top-K set) and prints the plan, or the ``--json`` document.
    Returns 0.
    """
    _check(args)
    refit = args.preposterior == "refit"
    if args.simulations is None:
        args.simulations = 200 if refit else 2000
    prior = opt.prior_from(args)
    scored = opt.load_results(args, offer_fractional=False)
    if scored.fractional:  # the simulations draw categories; fractional counts have none
        raise ValueError(
            "plan simulates future trials as score categories; graded scores counted "
            "fractionally (--fractional) have none: use --score-levels K instead."
        )
    if args.top is not None and args.estimand == "new-questions":
        return _run_top_questions(args, scored, prior)
    if args.top is not None:
        return _run_top(args, scored, prior)
    if args.estimand == "new-questions":
        return _run_questions(args, scored, prior)
    from bayes_eval.ranking.leaderboard import plan_pair
    from bayes_eval.ranking.sample_size import SeparationPlan

    confidence = 1.0 - args.fdr if args.fdr is not None else args.confidence
    confidence = 0.95 if confidence is None else confidence
    result = plan_pair(
        scored.R,
        args.model_a,
        args.model_b,
        scored.weights,
        scored.R0,
        prior=prior,
        confidence=confidence,
        assurance=args.assurance,
        simulations=args.simulations,
        max_trials=args.max_trials or 10_000,
        seed=args.seed,
        answered_only=(args.questions or "error") == "all",
        source=args.file,
        preposterior=args.preposterior or "normal",
        progress=None if args.json else progress,
    )
    plan, leader, other = result.plan, result.leader, result.other
    assert isinstance(plan, SeparationPlan)
    if args.json:
        _emit_pair(args, plan, leader, {"confidence": confidence}, ("leader", "prior"))
        return 0
    _print_plan(opt.source_name(args), plan, leader, other, args.fdr, confidence)
    return 0


def _emit_pair(
    args: argparse.Namespace,
    plan: SeparationPlan | QuestionsPlan,
    leader: str,
    extra: dict[str, object],
    drop: tuple[str, ...],
) -> None:
    """The ``--json`` document of a plan of two models: the plan's fields but ``drop``."""
    emit_json(
        {
            "prior": plan.prior,
            "estimand": plan.estimand,
            "model_a": args.model_a,
            "model_b": args.model_b,
            "leader": leader,
            **extra,
            "fdr": args.fdr,
            **{k: v for k, v in asdict(plan).items() if k not in drop},
            "simulations": plan.draws,
            "seed": args.seed,
        }
    )


def _check(args: argparse.Namespace) -> None:
    """Refuse option combinations that plan nothing: two models or ``--top K``, one level."""
    named = [m for m in (args.model_a, args.model_b) if m is not None]
    if args.top is None and len(named) != 2:
        raise ValueError(
            "plan needs two models (MODEL_A MODEL_B) to separate, or --top K to claim the top-K "
            "set."
        )
    new = args.estimand == "new-questions"
    if new:
        opt.refuse(
            opt.given(args, "preposterior"),
            "with --estimand new-questions (it is the law of more trials of these questions)",
        )
    if not new:
        opt.refuse(opt.given(args, "max_questions"), "without --estimand new-questions")
    else:
        opt.refuse(
            opt.given(args, "max_trials"),
            "with --estimand new-questions (it plans questions: --max-questions)",
        )
    if args.top is not None:
        if named:
            raise ValueError(
                "plan takes either two models or --top K, not both: --top plans the whole "
                "board's top-K set."
            )
        opt.refuse(opt.given(args, "confidence"), "with --top (its claims are at --fdr)")
    elif args.fdr is not None and args.confidence is not None:
        raise ValueError(
            "--fdr Q plans two models to confidence 1 - Q; give --fdr or --confidence, not both."
        )


def _print_plan(
    source: str,
    plan: SeparationPlan,
    leader: str,
    other: str,
    fdr: float | None,
    confidence: float,
) -> None:
    """The plan of two models in words: where they stand, the goal and the trials it needs."""
    say(
        f"{source}: prior: {plan.prior}; estimand: {plan.estimand}; {leader} "
        f"leads {other}: z = {plan.z_now:.3f} with N = {plan.n_now}; "
        f"P({leader} better) = {plan.prob_leader_better:.3f}."
    )
    goal = (
        f"the claim '{leader} better than {other}' at FDR {fdr:g} (P >= {confidence:g})"
        if fdr is not None
        else f"z >= {plan.z_target:.3f} in {leader}'s favour"
    )
    needs = f"N = {plan.n_required} trials per question ({plan.extra_trials} more)"
    _say_outcome(plan, goal, plan.extra_trials, needs)


def _say_outcome(
    plan: SeparationPlan | QuestionsPlan, goal: str, extra: int | None, needs: str
) -> None:
    """The outcome of a plan of two models: reached now, out of reach, or what it needs."""
    if extra == 0:
        say(f"already reached: {goal}.")
    elif extra is None:
        say(f"no plan reaches assurance {plan.assurance_target}: {plan.reason}")
    else:
        law = (
            "posterior predictive, boards refitted after simulated trials"
            if getattr(plan, "preposterior", "normal") == "refit"
            else "posterior predictive"
        )
        say(
            f"{goal} with probability {plan.assurance_at_required:.3f} (target "
            f"{plan.assurance_target}, {law}, {plan.draws} simulations) needs {needs}."
        )
        if plan.note:
            say(plan.note)


def _emit_top(
    args: argparse.Namespace, plan: ClaimsPlan | TopQuestionsPlan, members: list[str]
) -> None:
    """The ``--json`` document of a top-K plan (of trials or of questions)."""
    drop = ("members", "prior", "estimand", "top", "q", "draws")
    emit_json(
        {
            "prior": plan.prior,
            "estimand": plan.estimand,
            "top": plan.top,
            "fdr": plan.q,
            "members": members,
            **{k: v for k, v in asdict(plan).items() if k not in drop},
            "simulations": plan.draws,
            "seed": args.seed,
        }
    )


def _run_top(args: argparse.Namespace, scored: ScoredResults, prior: Prior) -> int:
    """``plan --top K``: trials per question until the claims name the top-K set."""
    from bayes_eval.ranking.claims_plan import ClaimsPlan
    from bayes_eval.ranking.leaderboard import plan_top_set

    q = args.fdr or opt.CLAIMS_FDR
    result = plan_top_set(
        scored.R,
        scored.weights,
        scored.R0,
        prior=prior,
        top=args.top,
        fdr=q,
        assurance=args.assurance,
        simulations=args.simulations,
        max_trials=args.max_trials or 10_000,
        seed=args.seed,
        answered_only=(args.questions or "error") == "all",
        preposterior=args.preposterior or "normal",
        progress=None if args.json else progress,
    )
    plan, members = result.plan, result.members
    assert isinstance(plan, ClaimsPlan)
    if args.json:
        _emit_top(args, plan, members)
        return 0
    names = ", ".join(members)
    say(
        f"{opt.source_name(args)}: prior: {plan.prior}; estimand: {plan.estimand}; the top "
        f"{plan.top} by posterior mean: {names} (P(this is the top-{plan.top} set) = "
        f"{plan.prob_top_set:.3f}); N = {plan.n_now}."
    )
    goal = f"the claims at FDR {plan.q:g} to name the top-{plan.top} set"
    if plan.claimed_now:
        say(
            f"already reached: the claims at FDR {plan.q:g} name the top-{plan.top} set "
            f"({names}); the least certain of these orderings has P = {plan.weakest:.3f} (the "
            "FDR budget is shared by all the claims)."
        )
    elif plan.n_required is None:
        say(
            f"no plan reaches assurance {plan.assurance_target} ({_LAWS[plan.preposterior]}): "
            f"{plan.reason}"
        )
    else:
        say(
            f"for {goal} with probability {plan.assurance_at_required:.3f} (target "
            f"{plan.assurance_target}, {_LAWS[plan.preposterior]}, "
            f"{plan.draws} simulations) needs N = {plan.n_required} trials per question of "
            f"every model ({plan.extra_trials} more); the set named may differ from today's."
        )
    if plan.note and not plan.claimed_now:
        say(plan.note)
    return 0


#: how the text names each law of the future boards
_LAWS = {
    "normal": "normal preposterior law of the board's scores",
    "refit": "boards refitted after simulated trials",
}


def _no_earlier_runs(scored: ScoredResults) -> None:
    """Refuse ``--prior-file`` for plans of new questions: earlier runs say nothing of them."""
    if scored.R0 is not None:
        raise ValueError(
            "--prior-file gives earlier runs of these questions; --estimand new-questions plans "
            "new questions, which they say nothing about: drop --prior-file."
        )


def _run_top_questions(args: argparse.Namespace, scored: ScoredResults, prior: Prior) -> int:
    """``plan --top K --estimand new-questions``: questions until the claims name the set."""
    from bayes_eval.ranking.paired import table_prior
    from bayes_eval.ranking.questions_plan import plan_top_questions

    _no_earlier_runs(scored)
    names = [str(m) for m in scored.R["model"].values]
    if not 1 <= args.top < len(names):
        raise ValueError(
            f"--top is {args.top}; expected 1 to {len(names) - 1} (the board has {len(names)} "
            "models)."
        )
    try:
        plan = plan_top_questions(
            scored.R,
            scored.weights,
            top=args.top,
            fdr=args.fdr or opt.CLAIMS_FDR,
            pair_prior=table_prior(prior.kind),
            assurance=args.assurance,
            simulations=args.simulations,
            max_questions=args.max_questions or 100_000,
            seed=args.seed,
        )
    except ValueError as err:  # the library's keywords, the command line's flags
        text = str(err)
        for key in ("max_questions", "assurance", "simulations", "fdr"):
            text = text.replace(f"{key} is", f"--{key.replace('_', '-')} is", 1)
        text = text.replace("every model answered)", "every model answered: --questions common)")
        raise ValueError(text) from None
    members = [names[i] for i in plan.members]
    if args.json:
        _emit_top(args, plan, members)
        return 0
    _print_top_questions(opt.source_name(args), plan, members)
    return 0


def _print_top_questions(source: str, plan: TopQuestionsPlan, members: list[str]) -> None:
    """The top-k plan of more questions in words: the set, the goal, the questions."""
    names = ", ".join(members)
    say(
        f"{source}: prior: {plan.prior}; estimand: {plan.estimand} (paired, as `pairs`; the "
        f"claims of `rank --estimand new-questions`); the top {plan.top} by mean score: "
        f"{names} (P(this is the top-{plan.top} set on new questions) = "
        f"{plan.prob_top_set:.3f}); {plan.m_now} questions."
    )
    goal = f"the claims at FDR {plan.q:g} on new questions to name the top-{plan.top} set"
    if plan.claimed_now:
        say(
            f"already reached: the claims at FDR {plan.q:g} on new questions name the "
            f"top-{plan.top} set ({names}); the least certain of these orderings has P = "
            f"{plan.weakest:.3f} (the FDR budget is shared by all the claims)."
        )
    elif plan.m_required is None:
        say(f"no plan reaches assurance {plan.assurance_target}: {plan.reason}")
    else:
        say(
            f"for {goal} with probability {plan.assurance_at_required:.3f} (target "
            f"{plan.assurance_target}, normal law of the new questions, {plan.draws} "
            f"simulations) needs {plan.m_required} questions ({plan.extra_questions} more), "
            "each run for every model as these were; the set named may differ from today's."
        )
        if plan.note:
            say(plan.note)


def _run_questions(args: argparse.Namespace, scored: ScoredResults, prior: Prior) -> int:
    """``plan A B --estimand new-questions``: more questions until the pair is separated."""
    from bayes_eval.ranking.paired import table_prior
    from bayes_eval.ranking.questions_plan import plan_new_questions

    if args.fdr is not None:
        confidence = 1.0 - args.fdr
        if not 0.5 < confidence < 1.0:
            raise ValueError(
                f"--fdr is {args.fdr:g}; expected a level in (0, 0.5) for two models (the claim "
                "'leader better' needs P >= 1 - Q > 0.5)."
            )
    else:
        confidence = 0.95 if args.confidence is None else args.confidence
        if not 0.5 < confidence < 1.0:
            raise ValueError(
                f"--confidence is {confidence:g}; expected a probability in (0.5, 1), e.g. 0.95."
            )
    _no_earlier_runs(scored)
    try:
        plan = plan_new_questions(
            scored.R,
            args.model_a,
            args.model_b,
            scored.weights,
            pair_prior=table_prior(prior.kind),
            confidence=confidence,
            assurance=args.assurance,
            simulations=args.simulations,
            max_questions=args.max_questions or 100_000,
            seed=args.seed,
        )
    except ValueError as err:  # the library's keyword, the command line's flag
        raise ValueError(str(err).replace("max_questions is", "--max-questions is")) from None
    leader, other = (
        (args.model_a, args.model_b) if plan.leader == "a" else (args.model_b, args.model_a)
    )
    if args.json:
        _emit_pair(args, plan, leader, {}, ("leader", "prior", "draws"))
        return 0
    _print_questions(opt.source_name(args), plan, leader, other, args.fdr)
    return 0


def _print_questions(
    source: str, plan: QuestionsPlan, leader: str, other: str, fdr: float | None
) -> None:
    """The plan of more questions in words: where the pair stands, the goal, the questions."""
    say(
        f"{source}: prior: {plan.prior}; estimand: {plan.estimand} (paired, as `pairs`); "
        f"{leader} leads {other} on the {plan.m_now} questions both answered: "
        f"P({leader} better) = {plan.prob_leader_better:.3f}."
    )
    goal = (
        f"the claim '{leader} better than {other}' on new questions at FDR {fdr:g} "
        f"(P >= {plan.confidence:g})"
        if fdr is not None
        else f"P({leader} better on new questions) >= {plan.confidence:g}"
    )
    needs = (
        f"{plan.m_required} questions ({plan.extra_questions} more), each run for both models "
        "as these were (the same trials per question)"
    )
    _say_outcome(plan, goal, plan.extra_questions, needs)
