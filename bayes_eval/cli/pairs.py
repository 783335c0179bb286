"""``bayes-eval pairs``: P(row better than column) for every pair, for both estimands."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, cast

from bayes_eval.cli import _options as opt
from bayes_eval.cli._leaderboard import claims_text
from bayes_eval.cli._output import emit_json, say, table, uncertain
from bayes_eval.cli._types import SubParsers

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from bayes_eval.posteriors.priors import Prior
    from bayes_eval.ranking.paired import PairedComparison

HELP = "pairwise P(A better than B): on these questions, and on new questions (paired)"
DESCRIPTION = """\
For every pair of models, the posterior probability that the row model's mean score beats the
column model's, for the two estimands:

  these questions  each model's mean over the benchmark's own questions (the only noise: the
                   trials): the posterior `rank` and `plan` use, the same number they print
                   (on a board of binary results, the default: the joint posterior of the
                   board model, ability minus shared question difficulty with a Beta
                   dispersion; otherwise the models' own posteriors under --prior-kind, which
                   are independent given the data);
  new questions    the mean score on new questions from the same source (the questions are a
                   sample, shared by both models): the paired posterior of the pair's outcomes
                   question by question. Binary results with one trial: P(Beta(a + n_A, a +
                   n_B) > 1/2) from the Dirichlet posterior of the joint table (n_A, n_B:
                   questions only A, only B solved); more trials, rubric or graded scores: a
                   Dirichlet over the per-question score differences (Rubin's Bayesian
                   bootstrap; bayes_eval.ranking.paired). Its prior follows --prior-kind:
                   learned (the default), a symmetric Beta prior on the split of the
                   discordant questions learned from every pair of the board (binary results
                   with one trial), or for graded differences and several trials a normal
                   prior N(0, tau^2) on each pair's difference, tau learned over every pair
                   (on the normal likelihood of the mean difference, standard error
                   s/sqrt(n); a pair sharing fewer than 5 questions keeps the uniform
                   corners); uniform, Dirichlet(1, 1, 1, 1) on the joint table (for
                   differences, the bootstrap plus the table's corners, exact); or Jeffreys.
                   `bayes-eval validate pairs` measures how calibrated each matrix is.

--cluster COLUMN (a long table's column holding each question's group: passage, subject,
template) makes the new-questions comparison draw clusters, not questions (Miller, "Adding
Error Bars to Evals": questions of a group share their noise, and ignoring that makes
new-questions statements too sure): Student's t with G - 1 degrees of freedom on the pair's
cluster-level differences (Miller's clustered standard error, Jeffreys prior on the sd). With
the learned --prior-kind (the default) each pair's difference has a normal prior N(0, tau^2)
whose tau, the spread of the board's differences, is learned over every pair (as the learned
split prior is without clusters); otherwise the difference's prior is flat. It does not change
these questions. `bayes-eval validate clusters` measures the clustered treatment under both
priors and the unclustered one.

The board's claims on these questions, as `rank` states them: the largest set of orderings
"A better than B" at posterior expected false discovery rate --fdr (0.05), the tie groups,
and with --json P(best), P(in the top --top K), expected ranks and simultaneous rank
intervals (10,000 joint draws, fewer on large boards; --seed 0)."""

_MATRIX_MAX = 10  # models up to which the matrices are printed


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval pairs`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "pairs",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("+", "log files or directories (one format), or dataset:NAME"),
            opt.data_options(),
            opt.prior_options(),
            opt.cluster_option(
                "long-table column holding each question's group (passage, subject, template): "
                "new questions are drawn by cluster"
            ),
            opt.output_options(plot="write the matrices as heat maps (PNG)"),
            opt.claims_options(),
            opt.seed_options("random seed of the joint draws of P(best) (0)"),
        ],
    )
    p.set_defaults(func=run)


def _cell(p: float | None) -> str:
    return "-" if p is None else f"{p:.3f}"


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval pairs`` with the parsed ``args``; return the exit status.

    Prints, task by task, P(row better than column) for every pair of models on these
    questions and on new questions (paired), or the ``--json`` document. Returns 0.
    """
    prior = opt.prior_from(args)
    tasks, docs = opt.per_task(args, lambda task, plot: _pairs(args, prior, task, plot))
    if args.json:
        if len(tasks) == 1:
            emit_json(docs[0])
        else:
            emit_json(
                {
                    "prior": "; ".join(dict.fromkeys(str(d["prior"]) for d in docs)),
                    "file": opt.source_name(args),
                    "tasks": list(tasks),
                    "comparisons": docs,
                }
            )
    return 0


def _pairs(
    args: argparse.Namespace, prior: Prior, task: str | None, plot: str | None
) -> dict | None:
    """The comparisons of one task: printed, or their ``--json`` document returned.

    Of the whole results when ``task`` is None.
    """
    from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS
    from bayes_eval.ranking.paired import leaderboard_pairs, table_prior

    scored = opt.load_results(args, task=task)
    pair_prior = table_prior(prior.kind)  # learned split, Jeffreys or uniform
    result = leaderboard_pairs(
        scored.R,
        scored.weights,
        scored.R0,
        fractional=scored.fractional,
        prior=prior,
        pair_prior=pair_prior,
        answered_only=(args.questions or "error") == "all",
        # question labels, None where a question has none (numpy takes them as objects)
        cluster=cast("ArrayLike", opt.cluster_labels(args, scored)),
        fdr=args.fdr or opt.CLAIMS_FDR,
        top=args.top,
        seed=args.seed,
    )
    names, doc = list(result.models), result.to_dict()
    name = opt.source_name(args) + (f" [task {task}]" if task else "")
    if plot:
        from bayes_eval.plotting.pairs import pairs_plot

        assert result.these_questions is not None  # leaderboard_pairs computes it always
        short = [str(label).split(" (")[0] for label in (result.these_prior, result.prior)]
        matrices = {  # the priors by their short names (the full ones are in the text and JSON)
            f"{THESE_QUESTIONS} (prior {short[0]})": result.these_questions,
            f"{NEW_QUESTIONS}, paired (prior {short[1]})": result.paired,
        }
        pairs_plot(names, matrices, plot, title=f"{name}: P(row better than column)")
    if args.json:
        doc["prior"] = result.these_prior
        doc["prior_detail"] = {
            "these_questions": prior.to_dict(),
            "paired": result.prior,
        }
        doc["clusters"] = cast("dict[str, object]", doc["clusters"]) | {"column": args.cluster}
        return {"file": name, "task": task, **doc, "design": scored.design} | {
            "graded": scored.graded
        }
    _print_pairs(args, result, doc, name, scored.R.sizes["question"])
    if plot:
        say(f"heat maps written to {plot}")
    return None


def _print_pairs(
    args: argparse.Namespace,
    result: PairedComparison,
    doc: dict[str, object],
    name: str,
    n_questions: int,
) -> None:
    """The header, the adjacent pairs, the matrices (few models) and the claims of one task."""
    from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS

    names = list(result.models)
    these = f"prior {result.these_prior}; P from the same posterior as `rank`"
    say(
        f"{name}: {len(names)} models, {n_questions} questions; these "
        f"questions: {these}; new questions "
        f"(paired): prior {result.prior}"
        + ("" if result.clusters or result.difference_prior else " on the joint table")
        + f" ({result.method['paired']}); "
        + (
            f"--cluster {args.cluster}: {result.cluster_treatment}"
            if args.cluster
            else result.cluster_treatment
        )
    )
    rows = [
        [
            r["model"],
            r["next"],
            r["shared"],
            _cell(cast("float | None", r["these_questions"])),
            _cell(cast("float | None", r["paired"])),
        ]
        for r in result.adjacent()
    ]
    cols = ["model", "next below", "shared questions"]
    table([*cols, uncertain("P these questions"), uncertain("P new questions")], rows)
    if len(names) <= _MATRIX_MAX:
        short = [n if len(n) <= 12 else n[:11] + "~" for n in names]
        for label, key in ((THESE_QUESTIONS, "these_questions"), (NEW_QUESTIONS, "paired")):
            table(
                [f"P(row > col), {label}", *short],
                (
                    [names[i], *map(_cell, row)]
                    for i, row in enumerate(cast("list[list[float | None]]", doc[key]))
                ),
            )
    say(
        "models ordered by their posterior mean (as `rank`); P: posterior probability that the "
        "model beats the next. these questions: the benchmark's own questions; new questions: "
        "new questions from the same source (paired on the shared questions)."
    )
    if result.claims:  # the claims as `rank` states them (one formatter for both)
        claims, groups = claims_text(result.claims, len(names), note=", as `rank`")
        say(claims, groups + " (--json: the claims, P(best), expected ranks)")
