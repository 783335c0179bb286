"""``bayes-eval pairs``: P(row better than column) for every pair, independent and paired."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, uncertain
from bayes_eval.cli._types import positive_int

HELP = "pairwise P(A better than B): independent and paired (same questions) side by side"
DESCRIPTION = """\
Models that answered the same questions are correlated through the questions (a hard question
is hard for both); a comparison that ignores it is too wide. For every pair this prints the
posterior probability that the row model's mean score (on the population of questions the
benchmark samples) beats the column model's: independent (each model's own posterior) and
paired (the joint posterior of the pair's outcomes, question by question). Binary results with
one trial: P(Beta(a + n_A, a + n_B) > 1/2) from the Dirichlet posterior of the joint table
(n_A, n_B: questions only A, only B solved; a = 1 under --prior-kind uniform). More trials,
rubric or graded scores: the same Dirichlet over the observed per-question score differences
plus the table's corners, computed exactly (see bayes_eval.ranking.paired)."""

PRIOR_KINDS = ["empirical", "empirical-plugin", "uniform", "jeffreys"]
_MATRIX_MAX = 10  # models up to which both matrices are printed


def add_parser(sub) -> None:
    p = sub.add_parser(
        "pairs",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("+", "log files or directories (one format), or dataset:NAME"),
            opt.weights_options(),
            opt.output_options(plot="write both matrices as heat maps (PNG)"),
        ],
    )
    p.add_argument(
        "--prior-kind",
        choices=PRIOR_KINDS,
        default="empirical",
        help="Dirichlet prior of the joint table: learned from all pairs (models for the "
        "independent matrix) and integrated over its uncertainty (empirical, default), learned "
        "and plugged in, uniform (Dirichlet(1, 1, 1, 1): the Beta formula), or Jeffreys",
    )
    g = p.add_argument_group("leaderboards as they are")
    g.add_argument(
        "--questions",
        choices=["error", "common", "all"],
        default="error",
        help="when some model did not answer some question: refuse (default), keep the "
        "questions every model answered, or keep all (each pair on the questions both "
        "answered, each model's independent posterior on its own)",
    )
    g.add_argument("--score-levels", type=positive_int, metavar="K", help="graded scores: K levels")
    g.add_argument("--fractional", action="store_true", help="graded scores: fractional counts")
    g = p.add_argument_group("logs")
    g.add_argument("--model", help="name of the LLM where the log does not give one")
    g.add_argument("--metric", help="lm-eval / HELM metric used as the 0/1 score")
    g.add_argument("--scorer", help="Inspect scorer giving the category (default: the first)")
    p.set_defaults(func=run)


def _cell(p: float | None) -> str:
    return "-" if p is None else f"{p:.3f}"


def run(args: argparse.Namespace) -> int:
    from bayes_eval.logs.scored import load_scored
    from bayes_eval.ranking.paired import leaderboard_pairs

    scored = load_scored(
        args.file,
        format=args.format,
        weights=args.weights,
        model=args.model,
        metric=args.metric,
        scorer=args.scorer,
        questions=args.questions,
        score_levels=args.score_levels,
        fractional=args.fractional,
        cli_names=True,
    )
    result = leaderboard_pairs(
        scored.R, scored.weights, fractional=scored.fractional, prior=args.prior_kind
    )
    names, doc = list(result.models), result.to_dict()
    name = args.file[0] if len(args.file) == 1 else f"{len(args.file)} files"
    if args.plot:
        from bayes_eval.plotting.pairs import pairs_plot

        matrices = {"independent": result.independent, "paired": result.paired}
        pairs_plot(names, matrices, args.plot, title=f"{name}: prior {result.prior}")
    if args.json:
        emit_json({"file": name, **doc, "design": scored.design, "graded": scored.graded})
        return 0
    say(
        f"{name}: {len(names)} models, {scored.R.sizes['question']} questions; prior: "
        f"{result.prior}; "
        f"independent: {result.method['independent']}, paired: {result.method['paired']}"
    )
    rows = [
        [r["model"], r["next"], r["shared"], _cell(r["independent"]), _cell(r["paired"])]
        for r in result.adjacent()
    ]
    cols = ["model", "next below", "shared questions"]
    table([*cols, uncertain("P indep"), uncertain("P paired")], rows)
    if len(names) <= _MATRIX_MAX:
        short = [n if len(n) <= 12 else n[:11] + "~" for n in names]
        for label in ("independent", "paired"):
            table(
                [f"P(row > col), {label}", *short],
                ([names[i], *map(_cell, row)] for i, row in enumerate(doc[label])),
            )
    say(
        "models ordered by their mean score; P: posterior probability that the model beats the next"
    )
    if args.plot:
        say(f"heat maps written to {args.plot}")
    return 0
