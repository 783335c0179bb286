"""``bayes-eval rank``: a leaderboard with Bayes@N, credible intervals and CI-aware ranks."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, cast

from bayes_eval.cli import _options as opt
from bayes_eval.cli._leaderboard import print_leaderboard, records_json
from bayes_eval.cli._output import emit_json
from bayes_eval.cli._types import SubParsers
from bayes_eval.inputs import percent

if TYPE_CHECKING:
    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.posteriors.priors import Prior

HELP = "rank models from evaluation logs or a long table (Bayes@N, rank ranges)"
DESCRIPTION = """\
Rank models by Bayes@N, the posterior mean of their score with a credible interval
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").
'rank range' is every rank the pairwise statements P(better) >= --confidence leave open (no
chaining); 'P(> next)' the probability that a model beats the next one listed. Every number
comes from one posterior: on a board of binary results the joint posterior of the board model
(ability minus shared question difficulty, Beta dispersion), so a model listed above another
always has P(better) >= 0.5. --paper-ranks adds the paper's chaining CI-aware rank (§2.7.1).

The board's claims as a set (closed form): the largest set of orderings "A better than B"
whose posterior expected false discovery rate is at most --fdr (0.05; Müller, Parmigiani and
Rice, "FDR and Bayesian multiple comparisons rules"), the tie groups they leave, and per
model P(best), P(in the top --top K), the expected rank and a rank interval that holds for
all models at once with probability --confidence (Besag et al. 1995), from --draws joint
draws (10,000, fewer on large boards; --seed 0) of the posterior P(better) comes from. With
--estimand new-questions the claims are read from the paired comparisons `pairs` prints, with
their tie groups (no P(best) or joint ranks there: no joint law matches those comparisons).

Every number is about these questions (the estimand: each model's mean score over the
benchmark's own questions) under the prior the header names (default: learned from the
questions, --prior-kind). Leaderboards as they are: --questions says what to do when some
model did not answer some question (common: rank on the questions every model answered; all:
each model on its own questions, not on one scale); --estimator crossed fits the crossed
model (model ability and question difficulty on one scale, by NUTS), which scores every model
on every question. Graded scores in [0, 1] need --score-levels K or --fractional.

--estimand new-questions ranks the models' mean scores on new questions from the same source
(the population the questions were drawn from): the Bayesian bootstrap over the questions,
or, with --cluster COLUMN (a long table's column: passage, subject, template; Miller, "Adding
Error Bars to Evals"), Student's t over their groups; P(better) is paired, as `pairs` prints
it; --draws and --seed set the posterior draws of the ranks (4000) and their seed (0).

lm-eval output is read as lm-eval writes it: FILE may be the --output_path folder itself
(one folder per model, results_<time>.json and samples_<task>_<time>.jsonl per run; repeated
runs are trials; models named as in results_<time>.json). Its tasks are ranked one by one, a
group (e.g. mmlu) as one task over its subtasks' questions; --cluster task (the subtasks) or
--cluster doc.FIELD (a field of the documents) gives the clusters of the new-questions
estimand. Any log with several tasks (lm-eval's, a long table's task column, Inspect runs
of several tasks) is ranked task by task, never pooled; --task NAME ranks one. With several
tasks --json prints {"tasks": [...], "leaderboards": [...]} and --plot forest.png writes
forest_<task>.png per task."""

ESTIMATORS = ["closed-form", "crossed"]
ESTIMANDS = ["these-questions", "new-questions"]


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval rank`` parser to the subcommands ``sub``."""
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
            opt.claims_options(),
            opt.cluster_option(
                "long-table column holding each question's group (passage, subject, template); "
                "for lm-eval output 'task' (each question's subtask: the subjects of a group "
                "such as mmlu) or doc.FIELD (a field of the document, e.g. doc.category); with "
                "--estimand new-questions"
            ),
        ],
    )
    p.add_argument(
        "--estimand",
        choices=ESTIMANDS,
        default="these-questions",
        help="these-questions: each model's mean over the benchmark's questions (default); "
        "new-questions: over the source they were drawn from (paired, --cluster aware)",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    p.add_argument(
        "--estimator",
        choices=ESTIMATORS,
        default="closed-form",
        help="closed-form Bayes@N (default), or the crossed model by NUTS (the NUTS options apply)",
    )
    p.add_argument(
        "--interaction",
        action="store_true",
        help="crossed model: add an LLM x question interaction (question-specific strengths; "
        "wider, honest intervals when they exist)",
    )
    p.add_argument(
        "--interval",
        choices=["auto", "normal", "exact"],
        help="auto (default): the posterior's own law, never outside the support (on a board "
        "the joint posterior's marginal; otherwise exact near an end of the support, normal "
        "elsewhere); normal: the paper's mu -/+ z sigma (clipped to the support); exact: each "
        "model's own exact posterior (not on a board's joint posterior)",
    )
    p.add_argument(
        "--paper-ranks",
        action="store_true",
        help="add the paper's CI-aware rank (Hariri et al., 2.7.1: consecutive models tie "
        "unless P(better) >= --confidence; ties chain)",
    )
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> None:
    """Refuse options that would do nothing with the chosen estimator and prior."""
    if args.estimand == "new-questions":
        why = "with --estimand new-questions (posterior draws: --draws and --seed apply)"
        bootstrap = ("draws", "seed")
        unused = ("interval", "pool", "prior_file", "prior_discount", "interaction")
        opt.refuse(opt.given(args, *unused, *(n for n in opt.NUTS if n not in bootstrap)), why)
        if args.estimator == "crossed":
            raise ValueError(
                "--estimator crossed scores these questions; --estimand new-questions has its "
                "own model (leave --estimator out)."
            )
        opt.refuse(
            opt.given(args, "top"),
            "with --estimand new-questions (P(in the top K) needs one joint law of the models' "
            "scores matching the paired comparisons; the claims at --fdr are given)",
        )
        return
    opt.refuse(
        opt.given(args, "cluster"),
        "with --estimand these-questions (clusters do not change the mean over these "
        "questions; use --estimand new-questions)",
    )
    if args.estimator == "crossed":
        why = "with --estimator crossed (its priors are its own; intervals are posterior quantiles)"
        opt.refuse(
            opt.given(args, "prior_kind", "pool", "interval", "prior_file", "prior_discount"),
            why,
        )
        opt.refuse(opt.given(args, "fdr", "top"), "with --estimator crossed (not yet)")
    else:
        sampled = [n for n in opt.NUTS if n not in ("draws", "seed")]
        opt.refuse(
            opt.given(args, *sampled),
            "with --estimator closed-form (nothing runs NUTS; --draws and --seed set the joint "
            "draws of P(best) and the rank intervals)",
        )
        opt.refuse(
            opt.given(args, "interaction"),
            "with --estimator closed-form (it is an option of the crossed model)",
        )


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval rank`` with the parsed ``args``; return the exit status.

    Checks the options against the estimand and estimator, then prints one leaderboard per
    task of the results, or the ``--json`` document. Returns 0.
    """
    _check(args)
    tasks, docs = opt.per_task(args, lambda task, plot: _rank(args, task, plot))
    if args.json:
        emit_json(docs[0] if len(tasks) == 1 else _leaderboards_json(docs, tasks, args))
    return 0


def _leaderboards_json(docs: list[dict], tasks: list[str | None], args: argparse.Namespace) -> dict:
    """The ``--json`` document of a log with several tasks: one leaderboard per task.

    Each is the document of one task, with its ``task``, under the prior(s) and estimand they
    share.
    """
    return {
        "prior": "; ".join(dict.fromkeys(d["prior"] for d in docs)),
        "estimand": "; ".join(dict.fromkeys(d["estimand"] for d in docs)),
        "file": opt.source_name(args),
        "files": list(args.file),
        "tasks": list(tasks),
        "leaderboards": docs,
    }


def _rank(args: argparse.Namespace, task: str | None, plot: str | None) -> dict | None:
    """One leaderboard: printed, or its ``--json`` document returned.

    Of ``task`` when given.
    """
    crossed = args.estimator == "crossed"
    prior = None if crossed else opt.prior_from(args)
    questions = args.questions or ("all" if crossed else "error")
    scored = opt.load_results(args, questions=questions, task=task)
    name = opt.source_name(args) + (f" [task {task}]" if task else "")
    if args.estimand == "new-questions":
        assert prior is not None  # _check refused --estimator crossed with new-questions
        return _new_questions(args, scored, prior, name, questions, task, plot)
    if crossed:
        from bayes_eval.models.crossed_leaderboard import crossed_leaderboard

        board = crossed_leaderboard(
            scored.R,
            scored.weights,
            fractional=scored.fractional,
            confidence=args.confidence,
            nuts=opt.sampler_settings(args, quiet=args.json),
            interaction=args.interaction,
        )
    else:
        from bayes_eval.ranking.leaderboard import leaderboard

        assert prior is not None  # None only with --estimator crossed
        board = leaderboard(
            scored.R,
            scored.weights,
            scored.R0,
            confidence=args.confidence,
            interval=args.interval or "auto",
            prior=prior,
            answered_only=questions == "all",
            fractional=scored.fractional,
            fdr=args.fdr or opt.CLAIMS_FDR,
            top=args.top,
            draws=args.draws,
            seed=args.seed or 0,
        )
    if plot:
        from bayes_eval.plotting.forest import forest_plot

        what = "crossed model" if crossed else "Bayes@N"
        forest_plot(
            board.table,
            plot,
            title=f"{what} leaderboard: {name}",
            paper_ranks=bool(getattr(args, "paper_ranks", False)),
        )
    shown = argparse.Namespace(**{**vars(args), "plot": plot})
    if args.json:
        doc = records_json(board, scored, shown, name, questions)
        return doc | {"file": opt.source_name(args), "task": task}
    print_leaderboard(board, scored, shown, name, questions)
    return None


def _new_questions(
    args: argparse.Namespace,
    scored: ScoredResults,
    prior: Prior,
    name: str,
    questions: str,
    task: str | None,
    plot: str | None,
) -> dict | None:
    """``--estimand new-questions``: the leaderboard of the population means.

    Computed by :func:`bayes_eval.ranking.population.population_leaderboard`.
    """
    from bayes_eval.cli._population import population_json, print_population
    from bayes_eval.ranking.paired import table_prior
    from bayes_eval.ranking.population import TAIL_DRAWS, min_draws, population_leaderboard

    least = min_draws(args.confidence)
    if args.draws is not None and args.draws < least:
        raise ValueError(
            f"--draws is {args.draws}; the {percent(args.confidence)} intervals of --estimand "
            f"new-questions come from posterior draws and need at least {least} ({TAIL_DRAWS} "
            f"beyond each end); expected --draws >= {least}."
        )
    if args.draws is not None:
        from bayes_eval.inputs import check_memory

        models = scored.R.sizes["model"]
        check_memory(8.0 * 4 * args.draws * models, f"--draws {args.draws}", "fewer --draws")
    board = population_leaderboard(
        scored.R,
        scored.weights,
        cluster=cast("list[str] | None", opt.cluster_labels(args, scored)),
        confidence=args.confidence,
        fractional=scored.fractional,
        pair_prior=table_prior(prior.kind),
        draws=args.draws or max(4000, least),  # enough for the level's tails
        seed=0 if args.seed is None else args.seed,
        fdr=args.fdr or opt.CLAIMS_FDR,
    )
    if plot:
        from bayes_eval.plotting.forest import forest_plot

        forest_plot(board.table, plot, title=f"new questions: {name}")
    shown = argparse.Namespace(**{**vars(args), "plot": plot})
    if args.json:
        doc = population_json(board, scored, shown, name, questions)
        return doc | {"file": opt.source_name(args), "task": task}
    print_population(board, scored, shown, name, questions)
    return None
