"""``bayes-eval schemas``: the built-in rubric schemata, or ranks under each of them."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, text
from bayes_eval.cli._types import SubParsers
from bayes_eval.inputs import check_confidence

HELP = "list the rubric schemata (Hariri et al., App. F), or rank logs under each of them"
DESCRIPTION = """\
Without FILE: the built-in rubric schemata of Hariri et al., "Don't Pass@k" (App. F, Table 5),
their categories, weights, signals and thresholds. With FILE (logs with signals): the rank of
every model under each schema that applies (Fig. 7)."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval schemas`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "schemas",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("*", "logs with signals: ranks under every schema"),
            opt.prior_options(),
            opt.output_options(plot="bump chart of the ranks under each schema (Fig. 7)"),
        ],
    )
    p.add_argument("--only", help="comma-separated schema keys (default: all that apply)")
    p.add_argument("--confidence", type=float, help="credibility level (0.95)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval schemas`` with the parsed ``args``; return the exit status.

    Without FILE describes the built-in rubric schemata; with FILE prints the rank of every
    model under each schema that applies (or the ``--json`` document). Returns 0.
    """
    if args.file:
        return _compare(args)
    opt.refuse(
        opt.given(args, "format", "plot", "only", "confidence", "prior_kind", "pool", "prior_file")
        + opt.given(args, "prior_discount"),
        "without FILE",
    )
    return _describe(args)


def _describe(args: argparse.Namespace) -> int:
    from bayes_eval.rubrics.catalog import describe_schemata
    from bayes_eval.rubrics.spec import TABLE4_THRESHOLDS

    records = describe_schemata()
    if args.json:
        emit_json(records)
        return 0
    say("Built-in rubric schemata (Hariri et al., App. F, Table 5); category 0 is invalid:")
    for r in records:
        say("", f"{r['key']}  ({r['name']}): {r['description']}")
        table(
            ["", "w", text("category")],
            (
                [i, f"{wt:g}", lab]
                for i, (lab, wt) in enumerate(zip(r["categories"], r["weights"], strict=True))
            ),
        )
        say(
            f"  signals: {', '.join(r['required_signals'])}"
            f" (optional: {', '.join(r['optional_signals']) or '-'})"
        )
        if r["thresholds"]:
            desc = []
            for t in r["thresholds"]:
                th = TABLE4_THRESHOLDS[t]
                among = f" | {th.among}" if th.among else ""
                desc.append(f"{t} = p{th.percentile:g}({th.signal}{among})")
            say(f"  thresholds: {'; '.join(desc)}")
        if r["note"]:
            say(f"  note: {r['note']}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from bayes_eval.logs import read_eval_log
    from bayes_eval.rubrics.comparison import compare_schemata, plot_schema_ranks

    prior = opt.prior_from(args)
    if args.prior_file:
        raise ValueError(
            "--prior-file does nothing with `schemas` (earlier runs are scored per schema by "
            "`rank --schema NAME --prior-file FILE`)."
        )
    if args.confidence is not None:  # before reading the log
        check_confidence(args.confidence)
    log = read_eval_log(args.file, format=args.format)
    chosen = args.only.split(",") if args.only else None
    result = compare_schemata(
        log.signal_dataset(),
        chosen,
        present=log.present(),
        confidence=0.95 if args.confidence is None else args.confidence,
        prior=prior,
    )
    from bayes_eval.posteriors.posterior import THESE_QUESTIONS

    if args.plot:
        plot_schema_ranks(result, args.plot)
    models = [str(m) for m in result["model"].values]
    if args.json:
        emit_json(
            {
                "prior": prior.label,
                "estimand": THESE_QUESTIONS,
                "schemata": [str(x) for x in result["schema"].values],
                "models": models,
                "mu": result["mu"].values,
                "sigma": result["sigma"].values,
                "rank": result["rank"].values,
                "rank_ci": result["rank_ci"].values,
                "skipped": result.attrs["skipped"],
                "log": log.summary(),
            }
        )
        return 0
    say(f"{opt.source_name(args)}: prior: {prior.label}; estimand: {THESE_QUESTIONS}")
    ranks = zip(
        result["schema"].values, result["rank"].values, result["rank_ci"].values, strict=True
    )
    table(
        ["schema", *models],
        ([str(s), *(f"{r} ({rc})" for r, rc in zip(rr, rrc, strict=True))] for s, rr, rrc in ranks),
        caption="rank (CI-aware rank); thresholds pooled over all models, per schema.",
    )
    if result.attrs["skipped"] != "[]":
        say(f"skipped (signals missing): {result.attrs['skipped']}")
    if args.plot:
        say(f"bump chart written to {args.plot}")
    return 0
