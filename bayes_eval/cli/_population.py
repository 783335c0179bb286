"""Printing the new-questions leaderboard: header, table, JSON.

The leaderboard of ``bayes-eval rank --estimand new-questions``
(:func:`bayes_eval.ranking.population.population_leaderboard`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bayes_eval.cli._leaderboard import (
    claims_json,
    claims_lines,
    design_lines,
    graded_lines,
    lead_columns,
)
from bayes_eval.cli._output import fmt, interval, say, table, uncertain
from bayes_eval.inputs import exact, percent

if TYPE_CHECKING:
    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.ranking.population import PopulationBoard

__all__ = ["population_json", "print_population"]


def _clusters(board: PopulationBoard, args: argparse.Namespace) -> dict:
    attrs = board.table.attrs
    return {
        "column": args.cluster,
        "count": int(attrs["clusters"]) if attrs["clustered"] else None,
        "treatment": str(attrs["cluster_treatment"]),
    }


def population_json(
    board: PopulationBoard,
    scored: ScoredResults,
    args: argparse.Namespace,
    name: str,
    questions: str,
) -> dict:
    """The ``--json`` document of ``rank --estimand new-questions``."""
    attrs = board.table.attrs
    order = [r["model"] for r in board.models]
    matrix = board.table["prob_better"].sel(model=order, model_bis=order).values
    return {
        "estimand": board.estimand,
        "prior": str(attrs["prior"]),
        "prior_detail": {"prob_better": str(attrs["prior"]), "interval": attrs["interval_prior"]},
        "clusters": _clusters(board, args),
        "file": name,
        "files": list(args.file),
        "log": scored.log,
        "schema": scored.schema,
        "estimator": "student-t over clusters" if attrs.get("clustered") else "bayesian-bootstrap",
        "question_mode": questions,
        "design": scored.design,
        "graded": scored.graded,
        "models": board.models,
        "confidence": args.confidence,
        "draws": int(attrs["draws"]),
        "seed": attrs["seed"],
        "prob_better": {
            "models": order,
            "rows": [[None if v != v else float(v) for v in row] for row in matrix],
        },
        "plot": args.plot,
    } | claims_json(board)


def _gaps(board: PopulationBoard) -> list[str]:
    """Lines that say in words why a cell holds no number (or an infinite sd)."""
    lines = []
    flat = list(board.table.attrs.get("no_interval", ()))
    if flat:
        lines.append(
            f"CI none: {', '.join(flat)}: every cluster mean of the model is the same, so the "
            "t model over clusters gives no interval (a width of 0 would be no credible "
            "statement); more clusters, or no --cluster, give one."
        )
    if any(r["sigma"] is not None and r["sigma"] == float("inf") for r in board.models):
        lines.append(
            "sigma inf: with two or three clusters the posterior is a Student t with G - 1 <= 2 "
            "df, which has no finite sd; its interval is finite and is the statement to read."
        )
    if any(r.get("prob_next") is None for r in board.models[:-1]):
        lines.append(
            "P(> next) n/a: the two models share no question, so no paired comparison is made; "
            "compare their intervals, or use the these-questions estimand (the default)."
        )
    return lines


def print_population(
    board: PopulationBoard,
    scored: ScoredResults,
    args: argparse.Namespace,
    name: str,
    questions: str,
) -> None:
    """The header lines, the table and its legend."""
    attrs, pct = board.table.attrs, f"{percent(args.confidence)}"
    treatment = _clusters(board, args)["treatment"]
    draws = f"{attrs['draws']} draws, seed {attrs['seed']}"
    how = f"Bayesian bootstrap ({draws})"
    if args.cluster:
        treatment = f"--cluster {args.cluster}: {treatment}"
        how = f"Student t with G - 1 df, rank intervals from {draws}"
    say(
        f"{name}: {len(board.models)} models, {scored.R.sizes['question']} questions; estimand: "
        f"{board.estimand} (the mean score on the source the questions were drawn from); "
        f"{treatment}; {pct} intervals: {how}; P(better): paired, prior {attrs['prior']}"
    )
    say(*graded_lines(scored.graded), *design_lines(scored.design, "closed-form"))
    paper = bool(getattr(args, "paper_ranks", False))
    columns = lead_columns(pct)
    columns += [uncertain("P(> next)"), uncertain(f"rank {pct}")]
    if paper:
        columns.append("CI-aware rank (chains)")

    last = board.models[-1]["model"] if board.models else None

    def row(r: dict) -> list:
        lo_r, hi_r = r["rank_range"]
        ci = "none" if r["lo"] is None else interval(r["lo"], r["hi"])
        cells = [r["model"], fmt(r["mu"]), "-" if r["sigma"] is None else fmt(r["sigma"]), ci]
        cells.append(f"{lo_r}" if lo_r == hi_r else f"{lo_r}-{hi_r}")
        if r.get("prob_next") is not None:
            cells.append(fmt(r["prob_next"], 3))
        else:
            cells.append("-" if r["model"] == last else "n/a")
        cells.append("{}-{}".format(*r["rank_draws"]))
        if paper:
            cells.append(r["rank_ci"])
        return cells

    table(columns, (row(r) for r in board.models))
    say(
        "rank range: every rank the pairwise statements P(better) >= "
        f"{exact(args.confidence)} leave open (no chaining); P(> next): posterior probability "
        "that the model beats the next one "
        f"listed; rank {pct}: over the posterior draws. Without --cluster every question is its "
        "own draw from the source."
    )
    say(*claims_lines(board, pct))
    say(*_gaps(board))
    if paper:
        say(
            "CI-aware rank (chains): Hariri et al., Don't Pass@k, 2.7.1: consecutive models tie "
            f"unless P(better) >= {exact(args.confidence)}; ties chain along the list."
        )
    if args.plot:
        say(f"forest plot written to {args.plot}")
