"""Leaderboards: the rank table of a batch of models, and the trials that separate its models.

The table's records are sorted by Bayes@N; a plan gives the trials needed to separate two of
its models.

Every number comes from one :class:`~bayes_eval.posteriors.posterior.Posterior` of the whole
board under one :class:`~bayes_eval.posteriors.priors.Prior` (the CLI's default:
``"empirical"``, learned per model and integrated), so ``rank`` and ``plan`` asked the same
question give the same answer. Behind ``bayes-eval rank``, ``bayes-eval plan`` and the demo;
the records are JSON-ready (:func:`bayes_eval.serialize.dumps`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import NamedTuple, SupportsFloat

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri

from bayes_eval import xr as bxr
from bayes_eval.inputs import shown
from bayes_eval.posteriors.posterior import Posterior
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec
from bayes_eval.ranking.claims import BoardClaims, Claims, _ordered_groups, board_claims
from bayes_eval.ranking.ranks import confidence_to_z, dense_ci_ranks, rank, rank_range

__all__ = [
    "Leaderboard",
    "PairPlan",
    "TopPlan",
    "claims_records",
    "complete_pair",
    "leaderboard",
    "plan_pair",
    "plan_top_set",
    "rank_records",
    "rank_table",
    "tie_groups",
]


def rank_table(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    confidence: float = 0.95,
    interval: str = "auto",
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    pool: str | None = None,
    skipna: bool = False,
    fractional: bool = False,
    answered_only: bool = False,
) -> xr.Dataset:
    """Everything a leaderboard needs, per model, from one posterior (``table_of``).

    ``R`` has dims ``("model", "question", "trial")``; ``questions`` counts the questions each
    model has a trial of; with ``answered_only`` each model is scored on those alone (then the
    scores are not on one question set), and ``fractional`` reads graded scores. The default
    prior is ``"empirical"``: on a board of binary results the joint posterior of the board
    model (:mod:`bayes_eval.posteriors.joint`), elsewhere each model's learned prior
    integrated over its uncertainty (:mod:`bayes_eval.posteriors.priors`); ``prior="uniform"``
    is the paper's.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``: category labels ``0..C`` (NaN a
        missing trial, with ``skipna``), or graded scores in ``[0, 1]`` with ``fractional``.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    confidence : float, optional
        Level of the intervals and of the pairwise rank statements; default 0.95.
    interval : str, optional
        ``"auto"`` (default: the posterior's own law, never outside the support), ``"normal"``
        (the paper's, clipped into the support) or ``"exact"``.
    prior : Prior or str, optional
        A :class:`~bayes_eval.posteriors.priors.Prior` or its words (``"uniform"``,
        ``"jeffreys"``, ``"empirical"``, ...); default ``"empirical"``.
    pool : str, optional
        What a learned prior is pooled over: ``"board"``, ``"model"`` or ``"benchmark"``;
        default None, the prior's own.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    fractional : bool, optional
        ``R`` holds graded scores counted fractionally; default False.
    answered_only : bool, optional
        Score each model on the questions it has a trial of; default False.

    Returns
    -------
    xarray.Dataset
        Over ``model``: ``mu``, ``sigma``, ``lo``, ``hi``, ``interval_kind``, ``rank``,
        ``rank_ci``, ``rank_lower``, ``rank_upper``, ``questions``, the prior's variables and the
        board's claims; over ``(model, model_bis)``: ``prob_better`` and ``z``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> t = rank_table(R, prior="uniform")
    >>> t["mu"].round(4).values.tolist(), t["rank"].values.tolist()
    ([0.6, 0.7], [2, 1])
    >>> round(float(t["prob_better"].sel(model="b", model_bis="a")), 4)
    0.6992
    """
    if "model" not in R.dims:
        raise ValueError("rank_table needs several models: R must have a 'model' dim.")
    batch = bxr.unpack(R, skipna=skipna)
    if batch.dims != ("model",):
        raise ValueError(f"R has dims {R.dims}; expected ('model', 'question', 'trial').")
    post = bxr.posterior(
        R,
        w,
        R0,
        skipna=skipna,
        prior=prior,
        pool=pool,
        fractional=fractional,
        answered_only=answered_only,
    )
    return table_of(post, batch, confidence=confidence, interval=interval)


def table_of(
    post: Posterior,
    batch: bxr.Batch,
    *,
    confidence: float = 0.95,
    interval: str = "auto",
    fdr: float = 0.05,
    top: int | None = None,
    draws: int | None = None,
    seed: int = 0,
) -> xr.Dataset:
    """The rank table of a posterior already built: every number from ``post``.

    Per model: ``mu``, ``sigma``, the interval ``lo``/``hi`` (``interval``: ``"auto"``, the
    posterior's own law, never outside the support; ``"normal"``, the paper's, clipped into
    it; ``"exact"``) and the law it came from (``interval_kind``); ``rank`` (position by
    ``mu``, competition); the *rank range* ``rank_lower``/``rank_upper``, every rank the
    pairwise statements at ``confidence`` leave open
    (:func:`~bayes_eval.ranking.ranks.rank_range`, no chaining); ``rank_ci``, the paper's
    CI-aware rank (Hariri et al., "Don't Pass@k", §2.7.1: consecutive models tie unless
    P >= ``confidence``; it chains); the prior of each model's own closed form
    (``prior_alpha``). Over ``(model, model_bis)``: ``prob_better``
    (:meth:`Posterior.prob_better <bayes_eval.posteriors.posterior.Posterior.prob_better>`,
    the posterior every other number comes from, so a model with a larger ``mu`` has
    ``P >= 1/2``) and ``z = Phi^-1(P)``. On a board (the joint posterior)
    the per-model closed form's ``mu_closed_form``/``sigma_closed_form`` are kept beside, a
    diagnostic. ``attrs`` name the prior, the estimand and what P came from.

    The claims of the board as a set (:func:`~bayes_eval.ranking.claims.board_claims`): the
    ordered pairs "better > worse" at posterior expected FDR ``fdr`` (over ``claim``:
    ``claim_better``, ``claim_worse``, ``claim_prob``; the tie groups in ``tie_group``, 1 the
    best), and per model ``p_best``, ``p_top`` (P(in the top ``top``), when given),
    ``expected_rank`` and the simultaneous rank interval at ``confidence``
    (``rank_joint_lo``/``rank_joint_hi``), from ``draws`` joint draws seeded by ``seed``; for
    two or more models.
    """
    kind = "normal" if interval == "normal" else interval
    bounds = "support" if kind == "normal" else None
    lo, hi = post.interval(confidence, kind=kind, bounds=bounds)  # type: ignore[arg-type]
    mu, sigma = np.atleast_1d(post.mean), np.atleast_1d(post.sd)
    models = batch.R["model"].values
    kinds = post.interval_kinds() if kind == "auto" else np.full(mu.size, kind)
    ds = xr.Dataset(
        {
            "mu": ("model", mu),
            "sigma": ("model", sigma),
            "lo": ("model", np.atleast_1d(lo)),
            "hi": ("model", np.atleast_1d(hi)),
            "interval_kind": ("model", np.asarray(kinds, dtype=str)),
        },
        coords={"model": models},
        attrs={
            "estimator": "Bayes@N",
            "confidence": confidence,
            "interval": interval,
            "prior": post.prior_label,
            "estimand": post.estimand,
        },
    )
    ds = ds.merge(bxr.prior_dataset(batch, post.closed_form))
    ds["prior"] = ("model", np.full(mu.size, post.prior_label, dtype=object).astype(str))
    observed = np.ones(batch.values.shape, bool) if batch.mask is None else ~batch.mask
    ds["questions"] = ("model", observed.any(axis=-1).sum(axis=-1))
    method = post.prob_method()
    prob = np.array(post.prob_better(method=method), dtype=float)
    lower, upper = rank_range(prob, confidence) if mu.size > 1 else ([1], [1])
    ds["rank"] = ("model", rank(mu))
    ds["rank_ci"] = ("model", dense_ci_ranks(mu, prob, confidence))
    ds["rank_lower"] = ("model", np.asarray(lower))
    ds["rank_upper"] = ("model", np.asarray(upper))
    coords = {"model_bis": models}
    with np.errstate(divide="ignore"):
        z = ndtri(prob)
    np.fill_diagonal(prob, np.nan)
    np.fill_diagonal(z, np.nan)
    if mu.size > 1:  # the board's claims as a set
        board = board_claims(
            post, prob, q=fdr, top=top or 1, confidence=confidence, draws=draws, seed=seed
        )
        claims = _claims_dataset(board, models, top)
        ds = ds.merge(claims)
        ds.attrs.update(claims.attrs, claims_estimand=post.estimand)
    ds["z"] = xr.DataArray(z, dims=("model", "model_bis"), coords=coords)
    ds["prob_better"] = xr.DataArray(prob, dims=("model", "model_bis"), coords=coords)
    if post.has_board:
        own = post.closed_form
        ds["mu_closed_form"] = ("model", np.atleast_1d(own.mean))
        ds["sigma_closed_form"] = ("model", np.atleast_1d(own.sd))
        ds.attrs["closed_form_prior"] = own.prior.label
    ds.attrs["z_threshold"] = float(ndtri(confidence))
    ds.attrs["prob_better"] = post.prob_label(method)
    return ds


def _claim_variables(claims: Claims, models: NDArray) -> xr.Dataset:
    """The claims and their tie groups as table variables, with ``fdr`` and ``claims_fdr``.

    ``claim_better``, ``claim_worse``, ``claim_prob`` over ``claim`` and ``tie_group`` (1 for
    the best group) over ``model``; both leaderboards' tables carry them.
    """
    group = np.zeros(models.size, dtype=np.int64)
    for g, members in enumerate(claims.groups):
        group[members] = g + 1
    return xr.Dataset(
        {
            "claim_better": ("claim", models[claims.better].astype(str)),
            "claim_worse": ("claim", models[claims.worse].astype(str)),
            "claim_prob": ("claim", claims.prob),
            "tie_group": ("model", group),
        },
        coords={"model": models},
        attrs={"fdr": claims.q, "claims_fdr": claims.expected_fdr},
    )


def _claims_dataset(board: BoardClaims, models: NDArray, top: int | None) -> xr.Dataset:
    """The claims, rank probabilities and simultaneous rank intervals as table variables."""
    claims, ranks, ints = board
    ds = _claim_variables(claims, models)
    ds["p_best"] = ("model", ranks.p_best)
    ds["expected_rank"] = ("model", ranks.expected_rank)
    ds["rank_joint_lo"] = ("model", ints.lo)
    ds["rank_joint_hi"] = ("model", ints.hi)
    ds.attrs.update(claims_draws=ranks.draws, rank_joint_coverage=ints.joint_coverage)
    if top is not None:
        ds["p_top"] = ("model", ranks.p_top)
        ds.attrs["top"] = int(top)
    return ds


def claims_records(table: xr.Dataset) -> list[dict]:
    """The claims of a rank table: ``{"better": A, "worse": B, "prob": P}``, most probable first.

    The list is empty when the table has none.

    Parameters
    ----------
    table : xarray.Dataset
        A rank table (:func:`rank_table`, or ``Leaderboard.table``).

    Returns
    -------
    list of dict
        One record per claim "better > worse", with its posterior probability ``prob``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> board = leaderboard(R, prior="uniform")
    >>> [(c["better"], c["worse"], round(c["prob"], 4)) for c in claims_records(board.table)]
    [('c', 'a', 1.0), ('b', 'a', 0.9984), ('c', 'b', 0.8519)]
    """
    if "claim_better" not in table:
        return []
    return [
        {"better": str(a), "worse": str(b), "prob": float(p)}
        for a, b, p in zip(
            table["claim_better"].values,
            table["claim_worse"].values,
            table["claim_prob"].values,
            strict=True,
        )
    ]


def tie_groups(table: xr.Dataset) -> list[list[str]]:
    """The tie groups of a rank table, best first, each in the claims' order, then by expected rank.

    The groups are listed as :func:`~bayes_eval.ranking.claims.claims_document` lists them
    (:func:`~bayes_eval.ranking.claims.tie_group_order`; a table without expected ranks, new
    questions, by posterior mean).

    Parameters
    ----------
    table : xarray.Dataset
        A rank table (:func:`rank_table`, or ``Leaderboard.table``).

    Returns
    -------
    list of list of str
        The model names of each tie group (empty when the table has no claims).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> tie_groups(leaderboard(R, prior="uniform").table)
    [['c', 'b'], ['a']]
    """
    if "tie_group" not in table:
        return []
    # by expected rank; a table without one (new questions: no joint law) by posterior mean
    key = table["expected_rank"].values if "expected_rank" in table else -table["mu"].values
    names, group = table["model"].values.astype(str), table["tie_group"].values
    sorter = np.argsort(names)

    def index(claimed: NDArray) -> tuple[NDArray, NDArray]:
        """Each claimed model's row, and whether the table has it (a selection may not)."""
        claimed = claimed.astype(str)
        at = sorter[np.clip(np.searchsorted(names, claimed, sorter=sorter), 0, names.size - 1)]
        return at, names[at] == claimed

    better, has_better = index(table["claim_better"].values)
    worse, has_worse = index(table["claim_worse"].values)
    kept = has_better & has_worse
    groups = [np.flatnonzero(group == g) for g in np.unique(group)]
    ordered = _ordered_groups(groups, better[kept], worse[kept], key)
    return [[str(names[i]) for i in g] for g in ordered]


def _number(x: SupportsFloat) -> float | None:
    """A float, or None where there is no number (NaN: no interval, no shared question)."""
    x = float(x)
    return None if np.isnan(x) else x


def rank_records(table: xr.Dataset) -> list[dict]:
    """One record per model of a rank table, best ``mu`` first.

    A record holds ``model, mu, sigma, lo, hi, interval_kind, rank, rank_range`` (the headline:
    every rank the pairwise statements leave open), ``rank_ci`` (the paper's chaining CI-aware
    rank, §2.7.1), ``prob_next`` (P that it beats the next model listed; None for the last, or
    where the two share no question; ``sigma``, ``lo``, ``hi`` are None where the data give no
    interval) and, when the table has them, ``questions``, ``rank_draws`` (the credible
    interval of the rank over posterior draws), ``mu_closed_form``/``sigma_closed_form`` (the
    per-model diagnostic), ``prior`` and ``prior_alpha``; ``p_best``, ``p_top``,
    ``expected_rank``, ``rank_joint`` (the simultaneous rank interval) and ``tie_group`` where
    the table has the board's claims.

    Parameters
    ----------
    table : xarray.Dataset
        A rank table (:func:`rank_table`).

    Returns
    -------
    list of dict
        One JSON-ready record per model, best ``mu`` first.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> records = rank_records(rank_table(R, prior="uniform"))
    >>> [(r["model"], round(r["mu"], 4), r["rank"], r["rank_range"]) for r in records]
    [('c', 0.65, 1, [1, 2]), ('b', 0.55, 2, [1, 2]), ('a', 0.275, 3, [3, 3])]
    >>> round(records[0]["prob_next"], 4)
    0.8519
    """
    order = np.argsort(-table["mu"].values, kind="stable")
    prob = table["prob_better"].values
    out = []
    for pos, i in enumerate(order):
        nxt = order[pos + 1] if pos + 1 < order.size else None
        record = {
            "model": str(table["model"].values[i]),
            "mu": float(table["mu"].values[i]),
            "sigma": _number(table["sigma"].values[i]),
            "lo": _number(table["lo"].values[i]),
            "hi": _number(table["hi"].values[i]),
            "rank": int(table["rank"].values[i]),
            "rank_range": [int(table["rank_lower"].values[i]), int(table["rank_upper"].values[i])],
            "rank_ci": int(table["rank_ci"].values[i]),
            "prob_next": None if nxt is None else _number(prob[i, nxt]),
        }
        if "interval_kind" in table:
            record["interval_kind"] = str(table["interval_kind"].values[i])
        if "questions" in table:
            record["questions"] = int(table["questions"].values[i])
        if "rank_draw_lo" in table:
            record["rank_draws"] = [
                int(table["rank_draw_lo"].values[i]),
                int(table["rank_draw_hi"].values[i]),
            ]
        if "mu_closed_form" in table:
            record["mu_closed_form"] = float(table["mu_closed_form"].values[i])
            record["sigma_closed_form"] = float(table["sigma_closed_form"].values[i])
        if "p_best" in table:
            record["p_best"] = float(table["p_best"].values[i])
            if "p_top" in table:
                record["p_top"] = float(table["p_top"].values[i])
            record["expected_rank"] = float(table["expected_rank"].values[i])
            record["rank_joint"] = [
                int(table["rank_joint_lo"].values[i]),
                int(table["rank_joint_hi"].values[i]),
            ]
            record["tie_group"] = int(table["tie_group"].values[i])
        if "prior" in table:
            record["prior"] = str(table["prior"].values[i])
            record["prior_alpha"] = [float(a) for a in table["prior_alpha"].values[i]]
        out.append(record)
    return out


class Leaderboard(NamedTuple):
    """A leaderboard: the rank table, its records (best first) and what they came from.

    It holds the rank table, its records (best first), the number of questions, the largest
    number of trials, the masked (failed or missing) trials, the estimator (``"closed-form"``
    or ``"crossed"``) and, for the closed form, the posterior every number came from.

    Attributes
    ----------
    table : xarray.Dataset
        The rank table (:func:`rank_table`).
    models : list of dict
        Its records, best first (:func:`rank_records`).
    questions : int
        The number of questions of ``R``.
    max_trials : int
        The largest number of trials of a question (the ``trial`` size of ``R``).
    missing_trials : int
        The number of masked (NaN) trials.
    estimator : str
        ``"closed-form"`` (default) or ``"crossed"``.
    posterior : Posterior or None
        The :class:`~bayes_eval.posteriors.posterior.Posterior` every number came from (for
        the closed form).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> board = leaderboard(R, prior="uniform")
    >>> board.questions, board.max_trials, board.missing_trials, board.estimator
    (8, 3, 0, 'closed-form')
    >>> type(board.posterior).__name__
    'Posterior'
    """

    table: xr.Dataset
    models: list[dict]
    questions: int
    max_trials: int
    missing_trials: int
    estimator: str = "closed-form"
    posterior: Posterior | None = None


def leaderboard(
    R: xr.DataArray,
    w: Sequence[float] | None = None,
    R0: xr.DataArray | None = None,
    *,
    confidence: float = 0.95,
    interval: str = "auto",
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    pool: str | None = None,
    answered_only: bool = False,
    fractional: bool = False,
    fdr: float = 0.05,
    top: int | None = None,
    draws: int | None = None,
    seed: int = 0,
) -> Leaderboard:
    """Rank the models of ``R`` (NaN trials masked): :func:`rank_table` of their posterior.

    Its table draws as a forest plot: :func:`bayes_eval.plotting.forest.forest_plot`.

    ``prior`` is a :class:`~bayes_eval.posteriors.priors.Prior` or its words (default
    ``"empirical"``); ``R0`` are earlier runs aligned to ``R`` by label and join the prior.
    ``answered_only`` scores each model on the questions it answered (an incomplete design,
    :mod:`bayes_eval.logs.design`); ``fractional`` counts graded scores fractionally
    (:func:`bayes_eval.inputs.fractional_tally`). ``fdr``, ``top``, ``draws`` and ``seed``:
    the board's claims (``table_of``).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``; NaN marks a missing trial.
    w : sequence of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    confidence : float, optional
        Level of the intervals and of the rank statements; default 0.95.
    interval : str, optional
        ``"auto"`` (default), ``"normal"`` or ``"exact"``, as in :func:`rank_table`.
    prior : Prior or str, optional
        The prior or its words; default ``"empirical"``.
    pool : str, optional
        What a learned prior is pooled over (``"board"``, ``"model"``, ``"benchmark"``);
        default None, the prior's own.
    answered_only : bool, optional
        Score each model on the questions it answered; default False.
    fractional : bool, optional
        ``R`` holds graded scores counted fractionally; default False.
    fdr : float, optional
        Posterior expected false discovery rate of the board's claims; default 0.05.
    top : int, optional
        Also report P(in the top ``top``) per model (``p_top``); default None.
    draws : int, optional
        Joint posterior draws of the claims' rank probabilities; default None, a size chosen
        from the number of models (:func:`bayes_eval.ranking.claims.default_draws`).
    seed : int, optional
        Seed of those draws; default 0.

    Returns
    -------
    Leaderboard
        The rank table, its records (best first), the design's sizes and the posterior.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> board = leaderboard(R, prior="uniform")
    >>> [(r["model"], round(r["mu"], 4), r["rank_range"]) for r in board.models]
    [('c', 0.65, [1, 2]), ('b', 0.55, [1, 2]), ('a', 0.275, [3, 3])]
    >>> tie_groups(board.table)
    [['c'], ['b'], ['a']]
    """
    batch = bxr.unpack(R, skipna=True)
    post = bxr.posterior(
        R,
        w,
        R0,
        skipna=True,
        prior=prior,
        pool=pool,
        answered_only=answered_only,
        fractional=fractional,
    )
    table = table_of(
        post,
        batch,
        confidence=confidence,
        interval=interval,
        fdr=fdr,
        top=top,
        draws=draws,
        seed=seed,
    )
    return Leaderboard(
        table=table,
        models=rank_records(table),
        questions=int(R.sizes["question"]),
        max_trials=int(R.sizes["trial"]),
        missing_trials=int(np.isnan(R.values).sum()),
        posterior=post,
    )


class PairPlan(NamedTuple):
    """:func:`plan_pair`: the two models (``leader`` first in the message) and the plan.

    Attributes
    ----------
    model_a, model_b : str
        The two models, as asked.
    leader, other : str
        The model the posterior puts ahead, and the other one.
    plan : SeparationPlan
        The plan (:class:`bayes_eval.ranking.sample_size.SeparationPlan`): trials per question
        now and required, the assurance reached.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> p = plan_pair(R, "b", "c", prior="uniform", simulations=200)
    >>> p.leader, p.other, type(p.plan).__name__
    ('c', 'b', 'SeparationPlan')
    """

    model_a: str
    model_b: str
    leader: str
    other: str
    plan: object  # bayes_eval.ranking.sample_size.SeparationPlan


def plan_pair(
    R: xr.DataArray,
    model_a: str,
    model_b: str,
    w: Sequence[float] | None = None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    confidence: float = 0.95,
    assurance: float = 0.8,
    simulations: int = 2000,
    max_trials: int = 10_000,
    seed: int = 0,
    answered_only: bool = False,
    source: str = "the results",
    preposterior: str = "normal",
    progress: Callable[[str], None] | None = None,
) -> PairPlan:
    """Trials per question that confirm the leader of two models of ``R``.

    The leader is confirmed at the ranking confidence ``confidence`` (z threshold
    ``Phi^{-1}(confidence)``: 1.645 for 0.95, as the CI-aware ranks of Hariri et al., §2.7.1)
    with probability ``assurance`` (``bayes_eval.ranking.sample_size.plan_separation``,
    Hariri et al., App. D).

    The posterior is the board's (every model of ``R`` under ``prior``, as
    :func:`leaderboard` builds it) restricted to the two models, so ``P(leader better)`` is
    the number ``rank`` reports.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``; NaN marks a missing trial (none
        allowed for the two models).
    model_a, model_b : str
        The two models to separate (names along ``model``).
    w : sequence of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    prior : Prior or str, optional
        The prior or its words; default ``"empirical"``.
    confidence : float, optional
        The ranking confidence to reach, in (0.5, 1); default 0.95.
    assurance : float, optional
        The probability of reaching it at the planned number of trials; default 0.8.
    simulations : int, optional
        Posterior predictive simulations of the assurance; default 2000.
    max_trials : int, optional
        The largest number of trials per question searched; default 10000.
    seed : int, optional
        Seed of the simulations; default 0.
    answered_only : bool, optional
        Score each model on the questions it answered; default False.
    source : str, optional
        How error messages name ``R``; default ``"the results"``.
    preposterior : {"normal", "refit"}, optional
        The law of the future trials: the closed forms' simulated futures (weighted to the
        board on a board; default) or boards refitted after simulated trials (a board fit per
        simulation and number of trials tried: give fewer ``simulations``, the CLI uses 200;
        binary results under the default prior).
    progress : callable, optional
        Called with a line after each number of trials the refit law tries (None: silent).

    Returns
    -------
    PairPlan
        The two models, the leader and the other, and the
        :class:`~bayes_eval.ranking.sample_size.SeparationPlan`.

    Raises
    ------
    ValueError
        For an unknown or repeated model, a missing trial of either model, or the refit law
        where the board model does not apply.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(3)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> p = plan_pair(R, "b", "c", prior="uniform", simulations=200)
    >>> p.leader, p.plan.n_now
    ('c', 3)

    ``n_required`` comes from a search over 200 posterior predictive simulations: its last
    digits move with the platform's floating point (479 to 491 trials per question here):

    >>> 400 < p.plan.n_required < 600
    True
    """
    from bayes_eval.ranking.sample_size import plan_separation

    if not 0.5 < float(confidence) < 1.0:  # at 0.5 or below, z <= 0: any lead is enough
        raise ValueError(
            f"confidence is {shown(confidence)}; expected a ranking confidence in (0.5, 1), "
            "e.g. 0.95 (at 0.5 or below any lead, however small, would count as separated)."
        )
    complete_pair(R, model_a, model_b, source=source)
    board = bxr.posterior(R, w, R0, skipna=True, prior=prior, answered_only=answered_only)
    post = board[[model_a, model_b]]
    if post.answered is not None:  # both models answered every question (complete_pair)
        post = dataclasses.replace(post, answered=None)
    plan = plan_separation(
        post,
        z_target=confidence_to_z(confidence),
        assurance=assurance,
        draws=simulations,
        max_trials=max_trials,
        seed=seed,
        preposterior=preposterior,
        progress=progress,
    )
    leader, other = (model_a, model_b) if plan.leader == "a" else (model_b, model_a)
    return PairPlan(model_a, model_b, leader, other, plan)


class TopPlan(NamedTuple):
    """:func:`plan_top_set`: the top-k set's model names (best first) and the plan.

    Attributes
    ----------
    members : list of str
        The model names of the current top set, best first.
    plan : ClaimsPlan
        The plan (:class:`bayes_eval.ranking.claims_plan.ClaimsPlan`).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> tp = plan_top_set(R, prior="uniform", simulations=200)
    >>> tp.members, type(tp.plan).__name__
    (['c'], 'ClaimsPlan')
    """

    members: list[str]
    plan: object  # bayes_eval.ranking.claims_plan.ClaimsPlan


def plan_top_set(
    R: xr.DataArray,
    w: Sequence[float] | None = None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    top: int = 1,
    fdr: float = 0.05,
    assurance: float = 0.8,
    simulations: int = 2000,
    max_trials: int = 10_000,
    seed: int = 0,
    answered_only: bool = False,
    preposterior: str = "normal",
    progress: Callable[[str], None] | None = None,
) -> TopPlan:
    """Trials per question of every model of ``R`` until the claims separate its top set.

    That is, until the leaderboard's claims at posterior expected FDR ``fdr`` put its current
    top ``top`` models above the rest, with probability ``assurance``
    (:func:`bayes_eval.ranking.claims_plan.plan_top`).

    The posterior is the board's, as :func:`leaderboard` builds it, so the top set and the
    claims are those ``rank --fdr`` prints.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``; every model must have answered
        every question.
    w : sequence of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    prior : Prior or str, optional
        The prior or its words; default ``"empirical"``.
    top : int, optional
        The size of the top set, below the number of models; default 1.
    fdr : float, optional
        Posterior expected false discovery rate of the claims, in (0, 1); default 0.05.
    assurance : float, optional
        The probability that the claims separate the top set at the planned number of
        trials; default 0.8.
    simulations : int, optional
        Posterior predictive simulations of the assurance; default 2000.
    max_trials : int, optional
        The largest number of trials per question searched; default 10000.
    seed : int, optional
        Seed of the simulations; default 0.
    answered_only : bool, optional
        Build the posterior on the questions each model answered (the plan then fails if one
        is missing); default False.
    preposterior : {"normal", "refit"}, optional
        The law of the future boards (:func:`~bayes_eval.ranking.claims_plan.plan_top`):
        the normal preposterior law (default) or boards refitted after simulated trials.
    progress : callable, optional
        Called with a line after each number of trials the refit law tries.

    Returns
    -------
    TopPlan
        The top set's model names (best first) and the
        :class:`~bayes_eval.ranking.claims_plan.ClaimsPlan`.

    Raises
    ------
    ValueError
        For a question some model never answered, ``top`` not below the number of models,
        a level outside (0, 1), or the refit law on results the board model does not fit.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.2]], [[0.7]], [[0.8]]], size=(3, 8, 3)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> tp = plan_top_set(R, prior="uniform", simulations=200)
    >>> tp.members, tp.plan.claimed_now, tp.plan.n_required
    (['c'], False, 69)
    """
    from bayes_eval.ranking.claims_plan import plan_top

    board = bxr.posterior(R, w, R0, skipna=True, prior=prior, answered_only=answered_only)
    if board.answered is not None:
        raise ValueError(
            "a plan for the top set needs every model to have answered every question (the "
            "plan tops each question up to the same number of trials); some have none."
        )
    plan = plan_top(
        board,
        top=top,
        q=fdr,
        assurance=assurance,
        draws=simulations,
        max_trials=max_trials,
        seed=seed,
        preposterior=preposterior,
        progress=progress,
    )
    names = [str(n) for n in R["model"].values]
    return TopPlan([names[i] for i in plan.members], plan)


def complete_pair(
    R: xr.DataArray, model_a: str, model_b: str, *, source: str = "the results"
) -> tuple[np.ndarray, np.ndarray]:
    """The complete ``(question, trial)`` integer results of two different models of ``R``.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``.
    model_a, model_b : str
        Two different model names along ``model``.
    source : str, optional
        How error messages name ``R``; default ``"the results"``.

    Returns
    -------
    tuple of numpy.ndarray
        The ``int64`` results of ``model_a`` and of ``model_b``, each of shape ``(M, N)``.

    Raises
    ------
    ValueError
        For a model not in ``R``, the same model twice, or a missing trial of either.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1], [1, 1]], [[1, 1], [0, np.nan]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> a, b = complete_pair(R.isel(question=[0]), "a", "b")
    >>> a.tolist(), b.tolist()
    ([[0, 1]], [[1, 1]])
    >>> complete_pair(R, "a", "b")
    Traceback (most recent call last):
        ...
    ValueError: planning needs complete results (no missing trials) for both models.
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
