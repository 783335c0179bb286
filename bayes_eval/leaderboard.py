"""A leaderboard from results: the rank table of :func:`bayes_eval.xr.rank_table` as
records sorted by Bayes@N, and the trials needed to separate two of its models.

Behind ``bayes-eval rank``, ``bayes-eval plan`` and the demo; the records are JSON-ready
(:func:`bayes_eval.serialize.dumps`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import xarray as xr

from bayes_eval.inputs import shown

__all__ = ["Leaderboard", "PairPlan", "complete_pair", "leaderboard", "plan_pair", "rank_records"]


def rank_records(table: xr.Dataset) -> list[dict]:
    """One record per model of a rank table, best Bayes@N first: ``model, mu, sigma, lo,
    hi, rank, rank_ci, rank_interval`` and, when the table has them, ``questions`` (the
    questions the model is scored on), ``rank_draws`` (the credible interval of the rank over
    posterior draws), ``prior`` and ``prior_alpha``."""
    order = np.argsort(-table["mu"].values, kind="stable")
    out = []
    for i in order:
        record = {
            "model": str(table["model"].values[i]),
            "mu": float(table["mu"].values[i]),
            "sigma": float(table["sigma"].values[i]),
            "lo": float(table["lo"].values[i]),
            "hi": float(table["hi"].values[i]),
            "rank": int(table["rank"].values[i]),
            "rank_ci": int(table["rank_ci"].values[i]),
            "rank_interval": [
                int(table["rank_lower"].values[i]),
                int(table["rank_upper"].values[i]),
            ],
        }
        if "questions" in table:
            record["questions"] = int(table["questions"].values[i])
        if "rank_draw_lo" in table:
            record["rank_draws"] = [
                int(table["rank_draw_lo"].values[i]),
                int(table["rank_draw_hi"].values[i]),
            ]
        if "prior" in table:
            record["prior"] = str(table["prior"].values[i])
            record["prior_alpha"] = [float(a) for a in table["prior_alpha"].values[i]]
        out.append(record)
    return out


class Leaderboard(NamedTuple):
    """The rank table, its records (best first), the number of questions, the largest number
    of trials, the masked (failed or missing) trials, and the estimator (``"closed-form"`` or
    ``"crossed"``)."""

    table: xr.Dataset
    models: list[dict]
    questions: int
    max_trials: int
    missing_trials: int
    estimator: str = "closed-form"


def leaderboard(
    R: xr.DataArray,
    w: Sequence[float] | None = None,
    R0: xr.DataArray | None = None,
    *,
    confidence: float = 0.95,
    interval: str = "normal",
    prior: str = "empirical",
    pool: str = "model",
    answered_only: bool = False,
    fractional: bool = False,
) -> Leaderboard:
    """Rank the models of ``R`` (NaN trials masked) with :func:`bayes_eval.xr.rank_table`
    (its table draws as a forest plot: :func:`bayes_eval.plotting.forest.forest_plot`).

    ``answered_only`` scores each model on the questions it answered (an incomplete design,
    :mod:`bayes_eval.design`); ``fractional`` counts graded scores fractionally
    (:mod:`bayes_eval.graded`)."""
    from bayes_eval.xr import rank_table

    table = rank_table(
        R,
        w,
        R0,
        confidence=confidence,
        interval=interval,
        prior=prior,
        pool=pool,
        skipna=True,
        answered_only=answered_only,
        fractional=fractional,
    )
    return Leaderboard(
        table=table,
        models=rank_records(table),
        questions=int(R.sizes["question"]),
        max_trials=int(R.sizes["trial"]),
        missing_trials=int(np.isnan(R.values).sum()),
    )


class PairPlan(NamedTuple):
    """:func:`plan_pair`: the two models (``leader`` first in the message) and the plan."""

    model_a: str
    model_b: str
    leader: str
    other: str
    plan: object  # bayes_eval.sample_size.SeparationPlan


def plan_pair(
    R: xr.DataArray,
    model_a: str,
    model_b: str,
    w: Sequence[float] | None = None,
    *,
    confidence: float = 0.95,
    assurance: float = 0.8,
    draws: int = 2000,
    max_trials: int = 10_000,
    seed: int = 0,
    source: str = "the results",
) -> PairPlan:
    """Trials per question that confirm the leader of two models of ``R`` at the ranking
    confidence ``confidence`` (z threshold ``Phi^{-1}(confidence)``: 1.645 for 0.95, as
    the CI-aware ranks of Hariri et al., §2.7.1) with probability ``assurance``
    (:func:`bayes_eval.sample_size.trials_to_separate`, Hariri et al., App. D).

    Raises
    ------
    ValueError
        For an unknown or repeated model, or a missing trial of either model.
    """
    from bayes_eval.ranking import confidence_to_z
    from bayes_eval.sample_size import trials_to_separate

    R_a, R_b = complete_pair(R, model_a, model_b, source=source)
    plan = trials_to_separate(
        R_a,
        R_b,
        w,
        z_target=confidence_to_z(confidence),
        assurance=assurance,
        draws=draws,
        max_trials=max_trials,
        seed=seed,
    )
    leader, other = (model_a, model_b) if plan.leader == "a" else (model_b, model_a)
    return PairPlan(model_a, model_b, leader, other, plan)


def complete_pair(
    R: xr.DataArray, model_a: str, model_b: str, *, source: str = "the results"
) -> tuple[np.ndarray, np.ndarray]:
    """The complete ``(question, trial)`` integer results of two different models of ``R``.

    Raises
    ------
    ValueError
        For a model not in ``R``, the same model twice, or a missing trial of either.
    """
    names = [str(m) for m in R["model"].values]
    for name in (model_a, model_b):
        if name not in names:
            raise ValueError(f"model {shown(name)} is not in {source}; expected one of {names}.")
    if model_a == model_b:
        raise ValueError(f"model_a and model_b are both {shown(model_a)}; expected two models.")
    pair = R.sel(model=[model_a, model_b])
    if np.isnan(pair.values).any():
        raise ValueError("planning needs complete results (no missing trials) for both models.")
    values = pair.values.astype(np.int64)
    return values[0], values[1]
