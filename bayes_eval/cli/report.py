"""``bayes-eval report``: the leaderboard, its figures, diagnostics and data in one HTML page."""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, cast

from bayes_eval.cli import _options as opt
from bayes_eval.cli._leaderboard import design_lines, graded_lines
from bayes_eval.cli._output import emit_json, say
from bayes_eval.cli._types import SubParsers, writable_file

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.plotting.report import Report
from bayes_eval.files import write_file

HELP = "write a self-contained HTML report: leaderboard, forest plot, pairs, diagnostics, data"
DESCRIPTION = """\
One HTML page to share (figures embedded, no script, nothing loaded from the network):

  leaderboard   Bayes@N with credible intervals and rank ranges, the prior and the
                estimand named: the numbers `bayes-eval rank` prints for the same options
                (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
                Evaluation"), with P(best), expected ranks and joint rank intervals;
  claims        the orderings claimed at posterior expected FDR --fdr (0.05) and the tie
                groups they leave, as `rank` states them;
  forest plot   as `rank --plot` draws it;
  pairs         P(row better than column) on these questions and, paired, on new questions,
                as heat-map tables (every number legible) and each model against the next
                (`pairs`);
  diagnostics   the prior (kind, pool, quadrature nodes, each model's fitted Dirichlet
                parameters and hyperprior, whether its fit converged), what P(better) is
                computed from (the board model's scales), notes and warnings;
  data          what was read: models, questions, trials, attempts, failed and missing
                trials, weights, graded scores and question selection, per model;
  provenance    the version of bayes_eval, the date, the command line and the SHA-256 of the
                files read, so that a shared page can be reproduced.

The closed form only (the crossed model and the new-questions leaderboard stay with `rank`).
One leaderboard per page: lm-eval output with several tasks needs --task NAME (as `rank
--task NAME` ranks it)."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval report`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "report",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options("+", "log files or directories (one format), or dataset:NAME"),
            opt.data_options(),
            opt.prior_options(),
            opt.output_options(),
            opt.cluster_option(
                "long-table column holding each question's group (passage, subject, template), "
                "or 'task' for lm-eval output: the new-questions comparison draws clusters"
            ),
            opt.claims_options(),
        ],
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        type=writable_file,
        required=True,
        help="the HTML page to write (its folder must exist)",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    p.add_argument(
        "--interval",
        choices=["auto", "normal", "exact"],
        help="the intervals, as `rank --interval`: auto (default; on a board the joint "
        "posterior's marginal, otherwise exact near an end of the support, normal elsewhere), "
        "normal (clipped to the support) or exact (not on a board's joint posterior)",
    )
    p.set_defaults(func=run)


def _summary(
    scored: ScoredResults, args: argparse.Namespace, name: str, questions: str
) -> dict[str, object]:
    """The data summary's rows: what was read and how it was treated."""
    log = scored.log
    out: dict[str, object] = {"source": name, "files": ", ".join(map(str, args.file))}
    out["format"] = log.get("format", "-")
    for key in ("scorer", "metric", "filter", "category_map"):
        if key in log:
            out[key] = log[key]
    out["models"] = log.get("models", scored.R.sizes["model"])
    out["questions"] = scored.R.sizes["question"]
    out["trials per question (at most)"] = scored.R.sizes["trial"]
    out["scored attempts"] = log.get("scored", "-")
    out["failed attempts"] = log.get("failed", "-")
    out["missing attempts (masked)"] = log.get("missing", "-")
    design = scored.design or {}
    out["questions mode (--questions)"] = questions
    if design:
        out["questions kept"] = f"{design.get('kept', '-')} of {design.get('total', '-')}"
    if scored.schema is not None:
        info = scored.schema
        cats = zip(info["categories"], info["weights"], info["counts"], strict=True)
        out["schema"] = f"{info['schema']}: " + ", ".join(
            f"{lab} (w={wt:g}, n={n})" for lab, wt, n in cats
        )
    out["graded scores"] = "no" if not scored.graded else scored.graded.get("treatment", "yes")
    return out


def _per_model(scored: ScoredResults) -> list[dict[str, object]]:
    """One row per model: attempts, failed, missing (masked), and the questions answered.

    Also the questions kept by the question selection where the design says.
    """
    design = scored.design or {}
    rows = []
    for r in scored.log.get("per_model", []):
        row: dict[str, object] = {"model": r["model"]}
        row.update({k: v for k, v in r.items() if k != "model"})
        for key in ("answered", "covered"):
            if r["model"] in design.get(key, {}):
                row[f"questions {key}"] = design[key][r["model"]]
        rows.append(row)
    return rows


def _document(report: Report, args: argparse.Namespace, name: str) -> dict:
    """The ``--json`` document: what the page says, and where it was written."""
    from bayes_eval.cli._leaderboard import claims_json
    from bayes_eval.plotting.report import SECTIONS

    attrs = report.board.table.attrs
    claims = claims_json(report.board) if "claim_better" in report.board.table else {}
    return claims | {
        "prior": str(attrs["prior"]),
        "estimand": str(attrs["estimand"]),
        "file": name,
        "files": list(args.file),
        "html": args.html,
        "sections": list(SECTIONS),
        "confidence": args.confidence,
        "interval": args.interval or "auto",
        "models": report.board.models,
        "prob_better_from": str(attrs["prob_better"]),
        "pairs": report.pairs.adjacent(),
        "paired_prior": report.pairs.prior,
        "notes": list(report.notes),
    }


def _provenance(scored: ScoredResults) -> dict[str, str]:
    """The command line and the digest of the files read, for the page to name.

    The page's version and date are filled in by
    :func:`bayes_eval.plotting.report.report_page`.
    """
    import shlex
    import sys

    from bayes_eval.logs.read import input_digest

    sources = list(scored.log.get("sources", []))
    return {
        "command": "bayes-eval " + shlex.join(sys.argv[1:]),
        "input sha256": f"{input_digest(sources)} ({len(sources)} file(s))",
    }


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval report`` with the parsed ``args``; return the exit status.

    Writes the HTML report of one leaderboard (one task) to ``--html`` and says so, or prints
    the ``--json`` document. Returns 0.
    """
    from bayes_eval.plotting.report import leaderboard_report

    prior = opt.prior_from(args)
    questions = args.questions or "error"
    tasks = opt.tasks_of(args)
    if len(tasks) > 1:
        raise ValueError(
            f"{opt.source_name(args)} holds {len(tasks)} tasks ({', '.join(tasks)}); a report "
            "is one leaderboard: choose one with --task NAME."
        )
    task = tasks[0] if tasks else None
    name = opt.source_name(args) + (f" [task {task}]" if task else "")
    with warnings.catch_warnings(record=True) as caught:
        scored = opt.load_results(args, questions=questions, task=task)
    for c in caught:  # shown as every command shows them, and listed on the page
        warnings.showwarning(c.message, c.category, c.filename, c.lineno)
    notes = [" ".join(str(c.message).split()) for c in caught]
    for lines in (graded_lines(scored.graded), design_lines(scored.design, "closed-form")):
        if lines:  # one note each, as the header of `rank` says it
            notes.append(" ".join(line.strip() for line in lines))
    report = leaderboard_report(
        scored.R,
        scored.weights,
        scored.R0,
        prior=prior,
        confidence=args.confidence,
        interval=args.interval or "auto",
        answered_only=questions == "all",
        fractional=scored.fractional,
        # question labels, None where a question has none (numpy takes them as objects)
        cluster=cast("ArrayLike", opt.cluster_labels(args, scored)),
        fdr=args.fdr or opt.CLAIMS_FDR,
        top=args.top,
        title=name,
        summary=_summary(scored, args, name, questions),
        per_model=_per_model(scored),
        notes=notes,
        provenance=_provenance(scored),
    )
    write_file(
        args.html, lambda tmp: tmp.write_text(report.html, encoding="utf-8"), option="--html"
    )
    board = report.board
    if args.json:
        emit_json(_document(report, args, name))
        return 0
    say(
        f"{name}: {len(board.models)} models, {board.questions} questions; prior: "
        f"{board.table.attrs['prior']}; estimand: {board.table.attrs['estimand']}",
        f"report written to {args.html}",
    )
    return 0
