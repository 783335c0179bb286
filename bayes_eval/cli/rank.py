"""``bayes-eval rank``: a leaderboard with Bayes@N, credible intervals and CI-aware ranks."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, fmt, interval, say, table, uncertain

HELP = "rank models from evaluation logs or a long table (Bayes@N, CI-aware ranks)"
DESCRIPTION = """\
Rank models by Bayes@N, the posterior mean of their score with a credible interval
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").
'rank w/ CI' ties consecutive models whose difference is not credible (§2.7.1); 'rank range'
is every rank the pairwise comparisons leave open."""

PRIOR_KINDS = ["empirical", "empirical-plugin", "uniform", "jeffreys"]


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
        ],
    )
    p.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    p.add_argument(
        "--interval",
        choices=["normal", "exact"],
        default="normal",
        help="normal approximation (default) or the exact posterior quantiles",
    )
    p.add_argument(
        "--prior-kind",
        choices=PRIOR_KINDS,
        default="empirical",
        help="per-question Dirichlet prior: learned from the questions and integrated over its "
        "uncertainty (empirical, default), learned and plugged in, the paper's uniform (as "
        "Hariri et al.), or Jeffreys",
    )
    p.add_argument(
        "--pool",
        choices=["model", "benchmark"],
        help="learned prior (empirical kinds): one per model (default) or one for all models",
    )
    g = p.add_argument_group("logs")
    g.add_argument("--schema", help="built-in rubric schema (see `bayes-eval schemas`)")
    g.add_argument("--schema-file", metavar="FILE", help="user-defined rubric schema (TOML)")
    g.add_argument("--model", help="name of the LLM where the log does not give one")
    g.add_argument("--metric", help="lm-eval / HELM metric used as the 0/1 score")
    g.add_argument("--filter", help="lm-eval filter (default: the first in the file)")
    g.add_argument("--scorer", help="Inspect scorer giving the category (default: the first)")
    p.set_defaults(func=run)


def _prior_cell(alpha) -> str:
    return "(" + ", ".join(f"{a:.3g}" for a in alpha) + ")"


def _schema_lines(info: dict) -> list[str]:
    cats = zip(info["categories"], info["weights"], info["counts"], strict=True)
    th = ", ".join(f"{k} = {v:.4g}" for k, v in info["thresholds"].items())
    return [
        f"  schema {str(info['schema'])!r}: categories "
        + ", ".join(f"{i} {lab} (w={wt:g}, n={n})" for i, (lab, wt, n) in enumerate(cats)),
        f"  thresholds (pooled over all models): {th or 'none'}",
    ]


def run(args: argparse.Namespace) -> int:
    from bayes_eval.leaderboard import leaderboard
    from bayes_eval.logs.scored import load_scored

    if args.prior_kind in ("uniform", "jeffreys"):
        opt.refuse(
            opt.given(args, "pool"), f"with --prior-kind {args.prior_kind} (no prior is learned)"
        )
    pool = args.pool or "model"
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
    )
    name = args.file[0] if len(args.file) == 1 else f"{len(args.file)} files"
    board = leaderboard(
        scored.R,
        scored.weights,
        scored.R0,
        confidence=args.confidence,
        interval=args.interval,
        prior=args.prior_kind,
        pool=pool,
    )
    if args.plot:
        from bayes_eval.plotting.forest import forest_plot

        forest_plot(board.table, args.plot, title=f"Bayes@N leaderboard: {name}")
    attrs = board.table.attrs
    if args.json:
        emit_json(
            {
                "file": name,
                "files": list(args.file),
                "log": scored.log,
                "schema": scored.schema,
                "models": board.models,
                "confidence": args.confidence,
                "interval": args.interval,
                "prior": attrs["prior"],
                "pool": pool,
                "z_threshold": attrs["z_threshold"],
                "questions": board.questions,
                "max_trials": board.max_trials,
                "missing_trials": board.missing_trials,
                "plot": args.plot,
            }
        )
        return 0
    log, pct = scored.log, f"{100 * args.confidence:g}%"
    say(
        f"{name} ({log['format']}): {log['models']} models, {board.questions} questions, up "
        f"to {board.max_trials} trials; {log['scored']} scored attempts, {log['failed']} "
        f"failed and {log['missing']} missing (masked); {args.interval} {pct} intervals; "
        f"prior: {attrs['prior']}"
    )
    say(
        *(
            f"  {key}: {log[key]}"
            for key in ("scorer", "metric", "filter", "category_map")
            if key in log
        )
    )
    if scored.schema is not None:
        say(*_schema_lines(scored.schema))
    table(
        [
            "model",
            "mu",
            uncertain("sigma"),
            uncertain(f"{pct} CI"),
            "rank",
            "rank w/ CI",
            uncertain("rank range"),
            uncertain("prior a"),
        ],
        (
            [
                r["model"],
                fmt(r["mu"]),
                fmt(r["sigma"]),
                interval(r["lo"], r["hi"]),
                r["rank"],
                r["rank_ci"],
                "{}-{}".format(*r["rank_interval"]),
                _prior_cell(r["prior_alpha"]),
            ]
            for r in board.models
        ),
    )
    say(
        f"rank w/ CI: consecutive models tie when z < {attrs['z_threshold']:.3f} "
        "(Hariri et al., §2.7.1); rank range: from all pairwise decisions (no chaining)."
    )
    if args.plot:
        say(f"forest plot written to {args.plot}")
    return 0
