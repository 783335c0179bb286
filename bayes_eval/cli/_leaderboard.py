"""Printing a leaderboard (``bayes-eval rank``): header lines, table and JSON.

The header lines say what was read and how it was treated (question selection, graded scores,
estimator); then come the table, and the JSON.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bayes_eval.cli._output import Col, fmt, interval, say, table, uncertain
from bayes_eval.inputs import exact, percent

if TYPE_CHECKING:
    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.ranking.leaderboard import Leaderboard
    from bayes_eval.ranking.population import PopulationBoard

__all__ = ["design_lines", "lead_columns", "print_leaderboard", "records_json"]


def _prior_cell(alpha: Iterable[float]) -> str:
    return "(" + ", ".join(f"{a:.3g}" for a in alpha) + ")"


def _schema_lines(info: dict) -> list[str]:
    cats = zip(info["categories"], info["weights"], info["counts"], strict=True)
    th = ", ".join(f"{k} = {v:.4g}" for k, v in info["thresholds"].items())
    return [
        f"  schema {str(info['schema'])!r}: categories "
        + ", ".join(f"{i} {lab} (w={wt:g}, n={n})" for i, (lab, wt, n) in enumerate(cats)),
        f"  thresholds (pooled over all models): {th or 'none'}",
    ]


def _tally(counts: dict[str, int], noun: str) -> str:
    """``136 (46 models), 0 (44 models)``: how many models share each value, largest first."""
    groups = Counter(counts.values()).most_common()
    shown = [f"{v} ({n} model{'s' if n > 1 else ''})" for v, n in groups[:6]]
    more = f", ... ({len(groups) - 6} more values)" if len(groups) > 6 else ""
    return f"{noun}: " + ", ".join(shown) + more


def design_lines(design: dict | None, estimator: str) -> list[str]:
    """What the question selection did, in words (empty for a complete design)."""
    if not design or (design["complete"] and design["mode"] != "common"):
        return []
    total, kept = design["total"], design["kept"]
    if design["mode"] == "common":
        if kept == total:
            return []
        return [
            f"  --questions common: ranked on the {kept} of {total} questions every model "
            "answered;",
            "  " + _tally(design["dropped"], "answered questions dropped per model"),
        ]
    covered = design["covered"].values()
    if estimator == "crossed":
        return [
            f"  incomplete design: the models answered {min(covered)} to {max(covered)} of "
            f"{total} questions; the crossed model scores every model on all {total} "
            "(shared question difficulties put them on one scale)."
        ]
    return [
        f"  --questions all: each model is scored on the questions it answered ({min(covered)} "
        f"to {max(covered)} of {total}); WARNING: the scores are not on the same question set "
        "and rank models on different questions. One scale: --estimator crossed; shared "
        "questions: --questions common.",
    ]


def graded_lines(graded: dict | None) -> list[str]:
    """How graded scores were treated."""
    if not graded:
        return []
    if graded["treatment"] == "levels":
        return [
            f"  graded scores ({graded['distinct']} distinct values) rounded to "
            f"{graded['levels']} levels (largest shift {graded['max_shift']:.3g})"
        ]
    return [
        f"  graded scores ({graded['distinct']} distinct values) counted fractionally: s "
        "correct and 1 - s wrong, each grade worth the Bernoulli trials its spread shows "
        "(quasi-likelihood, 1/dispersion; 1 for all-or-nothing grades)"
    ]


#: How the crossed model's prior is named in every output (its own hierarchical priors).
CROSSED_PRIOR = "crossed model's own (abilities and difficulties on the logit scale)"


#: the legend of the rank table's "prior a" column
PRIOR_COLUMN = (
    "prior a: the Dirichlet parameters (a_0, ..., a_C) of each question's prior for that model, "
    "one per score level from the lowest (a learned prior: at its fitted mode); larger sums "
    "pull the per-question rates harder toward the prior mean."
)


def prior_label(board: Leaderboard) -> str:
    """The prior of a leaderboard as every output names it."""
    if board.estimator == "crossed":
        return CROSSED_PRIOR
    return str(board.table.attrs["prior"])


def estimand_label(board: Leaderboard) -> str:
    """The estimand of a leaderboard: these questions.

    Both estimators score the models on the benchmark's own questions.
    """
    from bayes_eval.posteriors.posterior import THESE_QUESTIONS

    return str(board.table.attrs.get("estimand", THESE_QUESTIONS))


#: how each interval law is named in the header and the legend
INTERVAL_LAWS = {
    "joint": "the joint posterior's marginal (a mixture of Betas on the support)",
    "exact": "exact",
    "beta": "the Beta with the posterior's mean and sd",
    "normal": "normal (mu -/+ z sigma)",
}


def _interval_words(board: Leaderboard, args: argparse.Namespace) -> str:
    """Which law the intervals came from, in words."""
    asked = getattr(args, "interval", None) or "auto"
    if asked != "auto":
        return f"{asked} intervals" + (" (clipped to the support)" if asked == "normal" else "")
    kinds = list(dict.fromkeys(r.get("interval_kind", "normal") for r in board.models))
    if kinds == ["joint"]:
        return "intervals: " + INTERVAL_LAWS["joint"]
    if set(kinds) <= {"exact", "normal"}:
        return "intervals: exact within 6 sd of an end of the support, normal elsewhere"
    if set(kinds) <= {"beta", "normal"}:
        return (
            "intervals: within 6 sd of an end of the support the Beta with the posterior's "
            "mean and sd (the exact law takes seconds here), normal elsewhere"
        )
    return "intervals: " + ", ".join(INTERVAL_LAWS[k] for k in kinds)


def _estimator_line(board: Leaderboard, args: argparse.Namespace) -> str:
    attrs = board.table.attrs
    head = f"prior: {prior_label(board)}; estimand: {estimand_label(board)}"
    if board.estimator == "crossed":
        conv = (
            "converged"
            if attrs.get("converged")
            else "failed its convergence checks: the numbers below are not to be trusted "
            "(see the warning)"
        )
        return (
            f"{head}; crossed model ({attrs.get('likelihood', 'binomial')} likelihood"
            f"{', LLM x question interaction' if attrs.get('interaction') else ''}) by NUTS "
            f"({attrs.get('sampler', '')}): max r-hat {attrs.get('max_rhat', float('nan')):.3f}, "
            f"min ESS {attrs.get('min_ess_bulk', float('nan')):.0f}, "
            f"{attrs.get('divergences', 0)} divergences: {conv}"
        )
    return f"{head}; {_interval_words(board, args)}; P(better) from the same posterior"


def records_json(
    board: Leaderboard, scored: ScoredResults, args: argparse.Namespace, name: str, questions: str
) -> dict:
    """The ``--json`` document of ``rank``."""
    attrs = board.table.attrs
    out = {
        "prior": prior_label(board),
        "estimand": estimand_label(board),
        "file": name,
        "files": list(args.file),
        "log": scored.log,
        "schema": scored.schema,
        "estimator": board.estimator,
        "question_mode": questions,
        "design": scored.design,
        "graded": scored.graded,
        "models": board.models,
        "confidence": args.confidence,
        "rank_range_rule": "every rank left open by the pairwise statements P(better) >= "
        f"{exact(args.confidence)} (no chaining)",
        "rank_ci_rule": "Hariri et al., Don't Pass@k, 2.7.1: consecutive models tie unless "
        f"P(better) >= {exact(args.confidence)}; ties chain",
        "questions": board.questions,
        "max_trials": board.max_trials,
        "missing_trials": board.missing_trials,
        "plot": args.plot,
    }
    if board.estimator == "crossed":
        keys = ("likelihood", "sampler", "max_rhat", "min_ess_bulk", "divergences", "converged")
        out["fit"] = {k: attrs[k] for k in keys if k in attrs}
        out["fit"]["interaction"] = bool(attrs.get("interaction", 0))
        if "converged" in out["fit"]:
            out["fit"]["converged"] = bool(out["fit"]["converged"])
    else:
        post = board.posterior
        out["interval"] = getattr(args, "interval", None) or "auto"
        out["prob_better"] = prob_matrix_json(board)
        out["prior_detail"] = post.prior.to_dict() if post is not None else None
        if post is not None and post.has_board:
            joint = post.joint
            assert joint is not None  # has_board: the joint posterior is there
            out["board_model"] = {
                "difficulty_sd": joint.difficulty_sd,
                "ability_sd": joint.ability_sd,
                "dispersion": joint.dispersion,
                "dispersion_identified": joint.dispersion_identified,
                "closed_form_prior": attrs.get("closed_form_prior"),
            }
        out["concentration_note"] = post.concentration_note() if post is not None else None
        if "claim_better" in board.table:
            out.update(claims_json(board))
    return out


def claims_json(board: Leaderboard | PopulationBoard) -> dict:
    """The board's claims in the ``--json`` documents of ``rank`` and ``pairs``.

    The ordered pairs at the posterior expected FDR, their rule and estimand, the tie groups,
    and the whole-board probabilities' draws and the top k.
    """
    from bayes_eval.ranking.claims import claims_rule, rank_joint_rule
    from bayes_eval.ranking.leaderboard import claims_records, tie_groups

    attrs = board.table.attrs
    return {
        "claims": claims_records(board.table),
        "fdr": float(attrs["fdr"]),
        "claims_expected_fdr": float(attrs["claims_fdr"]),
        "claims_estimand": str(attrs["claims_estimand"]),
        "claims_rule": claims_rule(float(attrs["fdr"])),
        "tie_groups": tie_groups(board.table),
        "top": attrs.get("top"),
        "rank_joint_rule": (
            rank_joint_rule(float(attrs["confidence"]), float(attrs["rank_joint_coverage"]))
            if "rank_joint_coverage" in attrs
            else None  # new questions: no joint law for the whole-board probabilities
        ),
        "claims_draws": int(attrs["claims_draws"]) if "claims_draws" in attrs else None,
    }


def prob_matrix_json(board: Leaderboard) -> dict:
    """``P(row better than column)`` in the leaderboard's order, with what it was computed from.

    Null on the diagonal and where no probability exists.
    """
    order = [r["model"] for r in board.models]
    matrix = board.table["prob_better"].sel(model=order, model_bis=order).values
    return {
        "models": order,
        "rows": matrix.tolist(),
        "from": str(board.table.attrs.get("prob_better", prior_label(board))),
    }


#: claims listed one by one up to this many (all of them in --json)
_CLAIMS_SHOWN = 12


def claims_text(doc: dict, n_models: int, note: str = "") -> list[str]:
    """The claims line and the tie-groups line of a JSON-ready claims document.

    ``doc`` holds ``claims`` (most probable first), ``claims_estimand``,
    ``claims_expected_fdr``, ``fdr`` and ``tie_groups`` (:func:`claims_json`, or
    :func:`~bayes_eval.ranking.claims.claims_document`): ``rank`` and ``pairs`` state the
    claims with it, all of them up to ``_CLAIMS_SHOWN``, else the least certain ones, each
    with its probability. ``note`` follows the estimand in the parentheses.
    """
    claims = doc["claims"]
    pairs = n_models * (n_models - 1) // 2
    if len(claims) <= _CLAIMS_SHOWN:
        listed, what = claims, ""
    else:  # the least certain claims: the ones a reader should weigh
        listed, what = claims[-_CLAIMS_SHOWN:], f"the {_CLAIMS_SHOWN} least certain: "
    return [
        f"claims ({doc['claims_estimand']}{note}): {len(claims)} of {pairs} pairs ordered at "
        f"posterior expected FDR {doc['claims_expected_fdr']:.3f} (<= --fdr {doc['fdr']:g}; "
        "the mean of 1 - P over the claims, so a claim's own P can be far below 0.95); "
        + what
        + (
            ", ".join(f"{c['better']} > {c['worse']} ({c['prob']:.3f})" for c in listed)
            if listed
            else "none"
        )
        + (" (--json lists them all)" if what else ""),
        "tie groups, best first (models the claims leave unordered): "
        + "; ".join("{" + ", ".join(g) + "}" for g in doc["tie_groups"]),
    ]


def claims_lines(board: Leaderboard | PopulationBoard, pct: str) -> list[str]:
    """The claims, the tie groups and the legend of the whole-board columns."""
    doc = claims_json(board)
    lines = claims_text(doc, len(board.models))
    if doc["claims_draws"] is None:  # new questions: the claims only
        return lines
    lines += [
        "P(best): posterior probability that the model is the best; E[rank]: its expected "
        f"rank; joint {pct} ranks: rank intervals that hold for all models at once with "
        f"probability {pct}"
        + (f"; P(top {doc['top']}): probability of a rank <= {doc['top']}" if doc["top"] else "")
        + f" (from {doc['claims_draws']} joint draws of the same posterior).",
    ]
    return lines


def lead_columns(pct: str) -> list[str | Col]:
    """The first columns of every leaderboard table: model, mu, sigma, the interval, rank range."""
    return ["model", "mu", uncertain("sigma"), uncertain(f"{pct} CI"), "rank range"]


def print_leaderboard(  # noqa: C901 - one header, table and legend with a branch per option the table shows
    board: Leaderboard, scored: ScoredResults, args: argparse.Namespace, name: str, questions: str
) -> None:
    """The header lines, the table and its legend."""
    log, pct = scored.log, f"{percent(args.confidence)}"
    say(
        f"{name} ({log['format']}): {log['models']} models, {board.questions} questions, up "
        f"to {board.max_trials} trials; {log['scored']} scored attempts, {log['failed']} "
        f"failed and {log['missing']} missing (masked); {pct} intervals; "
        + _estimator_line(board, args)
    )
    say(
        *(
            f"  {key}: {log[key]}"
            for key in ("scorer", "metric", "filter", "category_map", "variant")
            if key in log
        )
    )
    if scored.schema is not None:
        say(*_schema_lines(scored.schema))
    say(*graded_lines(scored.graded), *design_lines(scored.design, board.estimator))
    note = board.posterior.concentration_note() if board.posterior is not None else None
    if note:
        say(note)
    first = board.models[0] if board.models else {}
    show_questions = "questions" in first and (
        board.estimator == "crossed" or not (scored.design or {}).get("complete", True)
    )
    paper = bool(getattr(args, "paper_ranks", False))
    closed = "mu_closed_form" in first and any(
        abs(r["mu_closed_form"] - r["mu"]) > 0.25 * r["sigma"] for r in board.models
    )
    columns = lead_columns(pct)
    columns.append(uncertain("P(> next)"))
    claims = "p_best" in first
    top = board.table.attrs.get("top") if claims else None
    if claims:
        columns += [uncertain("P(best)"), uncertain("E[rank]"), uncertain(f"joint {pct} ranks")]
        if top is not None:
            columns.append(uncertain(f"P(top {top})"))
    if "rank_draws" in first:
        columns.append(uncertain(f"rank {pct}"))
    if paper:
        columns.append("CI-aware rank (chains)")
    if closed:
        columns.append(uncertain("mu per model"))
    if show_questions:
        columns.append("questions")
    if "prior_alpha" in first and not (board.posterior is not None and board.posterior.has_board):
        columns.append(uncertain("prior a"))

    def row(r: dict) -> list:
        cells = [r["model"], fmt(r["mu"]), fmt(r["sigma"]), interval(r["lo"], r["hi"])]
        lo_r, hi_r = r["rank_range"]
        cells.append(f"{lo_r}" if lo_r == hi_r else f"{lo_r}-{hi_r}")
        cells.append("" if r.get("prob_next") is None else f"{r['prob_next']:.3f}")
        if claims:
            cells += [f"{r['p_best']:.3f}", f"{r['expected_rank']:.2f}"]
            cells.append("{}-{}".format(*r["rank_joint"]))
            if top is not None:
                cells.append(f"{r['p_top']:.3f}")
        if "rank_draws" in r:
            cells.append("{}-{}".format(*r["rank_draws"]))
        if paper:
            cells.append(r["rank_ci"])
        if closed:
            cells.append(fmt(r["mu_closed_form"]))
        if show_questions:
            cells.append(r["questions"])
        if "prior a" in [c if isinstance(c, str) else c.header for c in columns]:
            cells.append(_prior_cell(r["prior_alpha"]))
        return cells

    table(columns, (row(r) for r in board.models))
    say(
        "rank range: every rank the pairwise statements P(better) >= "
        f"{exact(args.confidence)} leave open (no chaining); P(> next): posterior probability "
        "that the model beats the next one "
        "listed (models are listed by mu, so it is >= 0.5)."
    )
    if claims:
        say(*claims_lines(board, pct))
    if paper:
        say(
            "CI-aware rank (chains): Hariri et al., Don't Pass@k, 2.7.1: consecutive models tie "
            f"unless P(better) >= {exact(args.confidence)}; ties chain along the list."
        )
    if closed:
        say(
            "mu per model: the closed form with each model's own learned prior (the paper's "
            "Bayes@N per model), shown where it differs from the joint posterior by more than "
            "a quarter sd; a diagnostic, not a second answer."
        )
    if "rank_draws" in first:
        say(f"rank {pct}: credible interval of the rank over the posterior draws.")
    if "prior a" in [c if isinstance(c, str) else c.header for c in columns]:
        say(PRIOR_COLUMN)
    if args.plot:
        say(f"forest plot written to {args.plot}")
