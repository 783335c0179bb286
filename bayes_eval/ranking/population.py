r"""The leaderboard for new questions, with or without clusters.

Each model's mean score on the population of questions the benchmark samples.

The estimand is *new questions from the same source*
(:data:`bayes_eval.posteriors.posterior.NEW_QUESTIONS`): the mean score :math:`\mu_l` of
model l over the distribution the questions were drawn from, not over the benchmark's own
questions (what ``rank`` reports by default). The questions are a sample, so their sampling
noise enters every model's interval, and it is shared: a hard draw of questions is hard for
every model, so the draws of :math:`(\mu_1, \ldots, \mu_L)` are paired across models, and
so are the ranks computed from them.

**Questions drawn independently** (no clusters). Rubin's Bayesian bootstrap ("The Bayesian
bootstrap", 1981) over the M questions with the uniform prior's corners, as the unclustered
comparisons of :mod:`bayes_eval.ranking.paired` use: weights
:math:`\pi \sim \mathrm{Dir}(1, \ldots, 1, a, a)` over the questions a model answered and two
corner pseudo-questions scoring 1 and 0 (:math:`a` = :data:`CORNER`), and
:math:`\mu_l = \sum_q \pi_q s_{lq} + \pi_{+}` with :math:`s_{lq}` the per-question mean score
in ``[0, 1]`` (:func:`~bayes_eval.ranking.paired.question_scores`). For binary results with
one trial this is the :math:`\mathrm{Beta}(1 + k, 1 + M - k)` of the uniform prior. Every
model shares the same question weights.

**Questions drawn in clusters** (passages, subjects, templates; Miller, "Adding Error Bars to
Evals: A Statistical Approach to Language Model Evaluations", 2024). The G clusters are the
independent draws. Each model's cluster sums are linearised
(``cluster_values``: values :math:`v_{lg}` with mean
:math:`\bar x_l`, the model's mean score, and Miller's cluster-robust spread); under the
normal model :math:`v_{lg} \sim N(\mu_l, \sigma_l^2)` with the Jeffreys prior
:math:`p(\mu, \sigma) \propto 1/\sigma`, the posterior of :math:`\mu_l` is Student's
:math:`t_{G-1}(\bar x_l, s_l/\sqrt G)` (Box and Tiao, "Bayesian Inference in Statistical
Analysis", 2.4): the interval is :math:`\bar x_l \pm t_{G-1, 1-\alpha/2}\, s_l/\sqrt G`.
The paired draws for the ranks,

.. math:: \mu^{(s)} = \bar x + \sqrt{\frac{G-1}{\chi^{2(s)}_{G-1}}}\;
          \frac{V_c^\top z^{(s)}}{\sqrt{G(G-1)}}, \qquad z^{(s)} \sim N(0, I_G),

(:math:`V_c` the centred cluster values, one column per model, one :math:`\chi^2` and one
:math:`z` per draw shared by all models) give every model, and every difference of two
models, exactly its own :math:`t_{G-1}` posterior, the one
:func:`~bayes_eval.ranking.paired.compare_pairs` uses for P(better). Why not the Bayesian
bootstrap over clusters: with few clusters its spread is :math:`(G-1)/(G+1)` of the sample
variance with normal tails; on the boards of ``bayes-eval validate clusters`` (a
development run, 300 boards per cell) its 95% intervals covered 0.80-0.86 with 5 clusters,
and 0.997-1.00 with sd/RMSE 1.3-2.0 with the uniform corners as pseudo-clusters, where the t
intervals cover 0.94-0.96. The t model assumes roughly normal cluster values, which averages
of a few questions are; a model whose clusters all score the same gets a point mass.

The probability that a model beats another is
:func:`~bayes_eval.ranking.paired.compare_pairs` on their shared questions (exact, the
number ``bayes-eval pairs`` prints; by default the learned split prior without clusters, the
learned normal prior on a pair's difference with them);
the interval (without clusters) and the rank interval come from ``draws`` seeded draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import check_memory, percent
from bayes_eval.posteriors.posterior import NEW_QUESTIONS
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, PriorSpec
from bayes_eval.ranking.claims import _check_q, fdr_claims
from bayes_eval.ranking.leaderboard import _claim_variables, rank_records
from bayes_eval.ranking.paired import (
    cluster_codes,
    cluster_sums,
    cluster_values,
    compare_pairs,
    question_scores,
)
from bayes_eval.ranking.ranks import dense_ci_ranks, rank

__all__ = [
    "CORNER",
    "TAIL_DRAWS",
    "PopulationBoard",
    "cluster_draws",
    "min_draws",
    "population_draws",
    "population_leaderboard",
]

_BLOCK = 512  # draws per block (bounds the (draws, units) weight matrix)
#: Prior mass of each corner pseudo-question (scores 1 and 0) of the unclustered bootstrap.
CORNER = 1.0


def population_draws(
    totals: ArrayLike,
    sizes: ArrayLike,
    *,
    draws: int = 4000,
    corner: float = CORNER,
    seed: int | np.random.Generator | None = 0,
) -> NDArray[np.float64]:
    r"""Draws of every model's population mean under the Bayesian bootstrap over units.

    The units are the questions (module docstring); with units of several questions (sums
    :math:`T_{lg}` over :math:`n_{lg}` questions) the mean is the ratio
    :math:`\sum_g \pi_g T_{lg} / \sum_g \pi_g n_{lg}`, the corners being units of the
    average size.

    Parameters
    ----------
    totals, sizes : array_like, shape ``(L, G)``
        :math:`T_{lg}` (sum of model l's scores in ``[0, 1]`` over unit g) and
        :math:`n_{lg}` (its questions answered there: 0 or 1 for questions).
    draws : int
        Number of draws of the weights :math:`\pi` (module docstring).
    corner : float
        Mass :math:`a` of each corner pseudo-unit (0: Rubin's bootstrap alone).
    seed : int, Generator or None
        Seed of the draws (default 0; None: fresh entropy).

    Returns
    -------
    ndarray, shape ``(draws, L)``
        Paired draws: row s uses the same weights for every model.

    Raises
    ------
    ValueError
        For shapes that differ, negative sizes, a model with no question, or ``draws < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[8.0, 2.0], [5.0, 5.0]])  # two models, two units of 10 questions
    >>> n = np.array([[10.0, 10.0], [10.0, 10.0]])
    >>> mu = population_draws(T, n, draws=1000, seed=0)
    >>> mu.shape, mu.mean(axis=0).round(4).tolist()
    ((1000, 2), [0.509, 0.5072])
    """
    T = np.asarray(totals, dtype=float)
    n = np.asarray(sizes, dtype=float)
    if T.ndim != 2 or T.shape != n.shape:
        raise ValueError(
            f"totals {T.shape} and sizes {n.shape}; expected two arrays of shape (L, G)."
        )
    if (n < 0).any() or not np.isfinite(T).all() or (T < 0).any() or (T > n + 1e-9).any():
        raise ValueError("expected sizes >= 0 and totals in [0, sizes] (scores in [0, 1]).")
    if not (n.sum(axis=1) > 0).all():
        raise ValueError("a model answered no question; expected at least one per model.")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ValueError(f"draws is {draws!r}; expected a positive integer.")
    if not corner >= 0:
        raise ValueError(f"corner is {corner!r}; expected a mass >= 0.")
    rng = np.random.default_rng(seed)
    nbar = n.sum(axis=1) / (n > 0).sum(axis=1)  # average size of the clusters a model answered
    out = np.empty((draws, T.shape[0]))
    for start in range(0, draws, _BLOCK):
        k = min(_BLOCK, draws - start)
        g = rng.standard_gamma(1.0, (k, T.shape[1]))  # Dir(1, ..., 1) up to normalisation
        num, den = g @ T.T, g @ n.T  # (k, L)
        if corner > 0:
            hi, lo = rng.standard_gamma(corner, (2, k, 1))
            num = num + hi * nbar
            den = den + (hi + lo) * nbar
        out[start : start + k] = num / den
    return out


def cluster_draws(
    totals: ArrayLike,
    sizes: ArrayLike,
    *,
    draws: int = 4000,
    seed: int | np.random.Generator | None = 0,
) -> NDArray[np.float64]:
    r"""Paired draws of every model's population mean under the cluster-level t model.

    Parameters
    ----------
    totals, sizes : array_like, shape ``(L, G)``
        :math:`T_{lg}` (sum of model l's scores in ``[0, 1]`` over cluster g) and
        :math:`n_{lg}` (its questions answered there).
    draws : int
        Number of paired draws (default 4000).
    seed : int, Generator or None
        Seed of the draws (default 0; None: fresh entropy).

    Returns
    -------
    ndarray, shape ``(draws, L)``
        Row s: :math:`\bar x + \sqrt{(G-1)/\chi^2_{G-1}}\, V_c^\top z / \sqrt{G(G-1)}`
        (module docstring); each column is exactly :math:`t_{G-1}(\bar x_l, s_l/\sqrt G)`
        when the model answered every cluster.

    Raises
    ------
    ValueError
        For shapes that differ, fewer than two clusters, a model with no question, or
        ``draws < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[3.0, 2.0, 4.0, 1.0], [1.0, 2.0, 2.0, 1.0]])  # 4 clusters of 5
    >>> mu = cluster_draws(T, np.full((2, 4), 5.0), draws=1000, seed=0)
    >>> mu.shape, mu.mean(axis=0).round(4).tolist()
    ((1000, 2), [0.4859, 0.2965])
    """
    T = np.asarray(totals, dtype=float)
    n = np.asarray(sizes, dtype=float)
    if T.ndim != 2 or T.shape != n.shape or T.shape[1] < 2:
        raise ValueError(
            f"totals {T.shape} and sizes {n.shape}; expected two arrays of shape (L, G), G >= 2."
        )
    if not (n.sum(axis=1) > 0).all():
        raise ValueError("a model answered no question; expected at least one per model.")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ValueError(f"draws is {draws!r}; expected a positive integer.")
    rng = np.random.default_rng(seed)
    seen = n > 0
    G = seen.sum(axis=1)
    M = n.sum(axis=1)
    mean = T.sum(axis=1) / M
    dev = np.where(seen, (G / M)[:, None] * (T - n * mean[:, None]), 0.0)  # centred values
    df = int(T.shape[1]) - 1
    out = np.empty((draws, T.shape[0]))
    norm = np.sqrt(np.maximum(G, 2) * np.maximum(G - 1, 1))  # per model: sqrt(G (G - 1))
    for start in range(0, draws, _BLOCK):
        k = min(_BLOCK, draws - start)
        z = rng.standard_normal((k, T.shape[1]))
        chi = np.sqrt(df / rng.chisquare(df, (k, 1)))
        out[start : start + k] = mean + chi * (z @ dev.T) / norm
    return out


class PopulationBoard(NamedTuple):
    """The new-questions leaderboard (:func:`population_leaderboard`).

    Attributes
    ----------
    table : xarray.Dataset
        Over ``model`` (in the order of ``R``): ``mu`` (posterior mean of the
        population mean), ``sigma`` (its sd), ``lo``/``hi`` (equal-tailed interval),
        ``rank`` (by ``mu``), ``rank_ci`` (consecutive models tie unless P(better) >=
        ``confidence``), ``rank_lower``/``rank_upper`` (from all pairwise decisions, no
        chaining), ``rank_draw_lo``/``rank_draw_hi`` (credible interval of the rank over the
        draws), ``questions``; over ``(model, model_bis)``: ``prob_better`` (paired, exact).
        ``attrs``: ``estimand``, ``confidence``, ``draws``, ``seed``, ``clusters``,
        ``cluster_treatment``, ``prior`` (of the comparisons), ``interval_prior``,
        ``no_interval`` (models whose cluster means are all equal: the t model gives them no
        interval, and ``sigma``/``lo``/``hi`` are NaN). ``sigma`` is infinite with two or three
        clusters (a t law with G - 1 <= 2 df has no finite variance; its interval is finite);
        ``prob_better`` is NaN for two models that share no question.
    models : list of dict
        One record per model, best first (JSON-ready).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.3]], [[0.6]], [[0.8]]], size=(3, 20, 1)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> board = population_leaderboard(R, pair_prior="uniform", draws=1000)
    >>> board.estimand, board.table["mu"].round(4).values.tolist()
    ('new questions', [0.4116, 0.4455, 0.8173])
    >>> [r["model"] for r in board.models]
    ['c', 'b', 'a']
    """

    table: xr.Dataset
    models: list[dict]

    @property
    def estimand(self) -> str:
        """:data:`~bayes_eval.posteriors.posterior.NEW_QUESTIONS`."""
        return str(self.table.attrs["estimand"])


#: Draws beyond each end of an interval from posterior draws that the command line asks for
#: (fewer give a quantile with little Monte Carlo precision); the library asks for one.
TAIL_DRAWS = 10


def min_draws(confidence: float, tail_draws: int = TAIL_DRAWS) -> int:
    """The fewest posterior draws for ``confidence`` intervals with ``tail_draws`` beyond each end.

    That is 400 at 95% and 2000 at 99% with the default 10; 40 at 95% with one, below which an end
    of the interval is no draw at all.

    Parameters
    ----------
    confidence : float
        Level of the intervals, in (0, 1).
    tail_draws : int, optional
        Draws beyond each end of an interval; default :data:`TAIL_DRAWS` (10).

    Returns
    -------
    int
        The number of posterior draws.

    Examples
    --------
    >>> min_draws(0.95), min_draws(0.99), min_draws(0.95, 1)
    (400, 2000, 40)
    """
    return int(np.ceil(tail_draws / ((1.0 - confidence) / 2) - 1e-9))


def population_leaderboard(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    *,
    cluster: ArrayLike | Mapping[object, object] | None = None,
    confidence: float = 0.95,
    fractional: bool = False,
    pair_prior: PriorSpec = DEFAULT_PRIOR,
    draws: int = 4000,
    seed: int | np.random.Generator | None = 0,
    fdr: float = 0.05,
) -> PopulationBoard:
    """Rank the models of ``R[model, question, trial]`` (NaN = no trial) for new questions.

    With the board's claims on new questions as a set: the orderings "A better than B" whose
    posterior expected FDR is at most ``fdr`` (:func:`~bayes_eval.ranking.claims.fdr_claims`),
    read from the paired P(better) matrix (the numbers ``pairs`` prints), and the tie groups
    they leave. The whole-board probabilities of the these-questions board (P(best), P(in the
    top k), simultaneous rank intervals) need one joint law of the models' scores whose pair
    probabilities are the paired ones; the population draws behind the intervals are not it
    (their corners differ from the paired comparisons', and a P(best) read from them can exceed
    a P(better) of the same model), so they are not given.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial``; a model is scored on the
        questions it answered.
    w : array_like, optional
        Rubric weights (binary by default); scores are scaled to ``[0, 1]``.
    cluster : array_like or mapping, keyword-only
        The cluster of every question (a label per question of ``R``, or question label ->
        cluster; :func:`~bayes_eval.ranking.paired.cluster_codes`); None: each question is
        its own draw from the source.
    confidence : float, keyword-only
        Level of the intervals and of the pairwise decisions behind the ranks.
    fractional : bool, keyword-only
        ``R`` holds graded scores in ``[0, 1]``.
    pair_prior : str, float or array_like, keyword-only
        Prior of the paired comparisons (:func:`~bayes_eval.ranking.paired.compare_pairs`):
        without clusters of the joint table; with clusters a learned prior is the learned
        normal prior on a pair's difference, any other the flat one (the intervals' t model
        keeps the Jeffreys prior).
    draws : int, keyword-only
        Posterior draws for the rank intervals (and, without clusters, the intervals).
    seed : int, Generator or None, keyword-only
        Seed of the draws (default 0; None: fresh entropy).
    fdr : float, keyword-only
        Posterior expected FDR of the claims; default 0.05.

    Returns
    -------
    PopulationBoard
        The table over ``model`` and its records, best first; the claims as in
        :func:`~bayes_eval.ranking.leaderboard.leaderboard` (``claim_better``,
        ``claim_worse``, ``claim_prob``, ``tie_group``; ``attrs["fdr"]``,
        ``attrs["claims_fdr"]``, ``attrs["claims_estimand"]``).

    Raises
    ------
    ValueError
        Bad ``R``, ``confidence`` outside (0, 1), fewer ``draws`` than
        ``min_draws(confidence, 1)``, fewer than two models, a model without an
        answered question, or a bad ``cluster``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.3]], [[0.6]], [[0.8]]], size=(3, 20, 1)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> board = population_leaderboard(R, pair_prior="uniform", draws=1000)
    >>> [(r["model"], round(r["mu"], 4), r["rank_range"]) for r in board.models]
    [('c', 0.8173, [1, 1]), ('b', 0.4455, [2, 3]), ('a', 0.4116, [2, 3])]
    >>> clusters = np.repeat(["u", "v", "x", "y", "z"], 4)  # five clusters of four questions
    >>> board = population_leaderboard(R, cluster=clusters, draws=1000)
    >>> board.table.attrs["cluster_treatment"]
    'questions drawn in 5 clusters (t model over clusters)'
    """
    _check_board_args(R, confidence, draws)
    _check_q(fdr, "fdr")
    R = R.transpose("model", "question", "trial")
    values = R.values.astype(float)  # a copy: the caller's array is never touched
    models = [str(m) for m in R["model"].values]
    questions = [str(q) for q in R["question"].values]
    if len(models) < 2:
        raise ValueError(f"the results have {len(models)} model; ranking needs two or more models.")
    scores = question_scores(values, w, fractional=fractional)
    answered = ~np.isnan(scores)
    if not answered.any(axis=1).all():
        i = int(np.flatnonzero(~answered.any(axis=1))[0])
        raise ValueError(f"model {models[i]!r} answered no question; expected at least one.")
    tail = (1.0 - confidence) / 2
    if cluster is None:
        labels = None
        T, n = cluster_sums(scores, answered, np.arange(len(questions)))
        est = _question_intervals(T, n, tail, draws, seed)
    else:
        codes, names = cluster_codes(cluster, questions, n_questions=len(questions))
        labels = np.asarray(names, dtype=object)[codes]
        T, n = cluster_sums(scores, answered, codes)
        est = _cluster_intervals(T, n, tail, w, models, draws, seed)
    mu_draws, mu, sigma, lo, hi, interval_prior, no_interval = est
    pc = compare_pairs(
        values,
        w,
        fractional=fractional,
        prior=pair_prior,
        models=models,
        cluster=labels,
        independent=False,
    )
    p = pc.paired
    known = np.nan_to_num(p, nan=0.0)  # pairs without a shared question decide nothing
    beats = known >= confidence  # beats[i, j]: i confidently over j
    # consecutive models (by mu) tie unless the upper one beats the lower with confidence
    dense = dense_ci_ranks(mu, known, confidence)
    L = len(models)
    rank_draws = rank(mu_draws, axis=1)
    r_lo, r_hi = np.quantile(rank_draws, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    coords = {"model": models}
    ds = xr.Dataset(
        {
            "mu": ("model", mu),
            "sigma": ("model", sigma),
            "lo": ("model", lo),
            "hi": ("model", hi),
            "rank": ("model", rank(mu)),
            "rank_ci": ("model", dense),
            "rank_lower": ("model", 1 + beats.sum(axis=0)),
            "rank_upper": ("model", L - beats.sum(axis=1)),
            "rank_draw_lo": ("model", r_lo.astype(np.int64)),
            "rank_draw_hi": ("model", r_hi.astype(np.int64)),
            "questions": ("model", answered.sum(axis=1)),
            "prob_better": (("model", "model_bis"), p),
        },
        coords=coords | {"model_bis": models},
        attrs={
            "estimand": NEW_QUESTIONS,
            "confidence": confidence,
            "draws": int(draws),
            "seed": seed if isinstance(seed, (int, type(None))) else "generator",
            "clusters": pc.clusters if pc.clusters is not None else len(questions),
            "clustered": cluster is not None,
            "cluster_treatment": pc.cluster_treatment,
            "prior": pc.prior,
            "interval_prior": interval_prior,
            "no_interval": no_interval,
        },
    )
    claims = _claims(p, fdr, np.asarray(models))
    ds = ds.merge(claims)
    ds.attrs.update(claims.attrs)
    records = rank_records(ds)
    return PopulationBoard(ds, records)


def _claims(p: NDArray, fdr: float, models: NDArray) -> xr.Dataset:
    """The claims on new questions at posterior expected FDR ``fdr``, from the paired matrix.

    The claim variables of the these-questions board (``claim_better``, ``claim_worse``,
    ``claim_prob``, ``tie_group``; ``fdr``, ``claims_fdr``), and ``claims_estimand``.
    """
    claimable = np.where(np.isnan(p), 0.5, p)  # no shared question: no claim
    np.fill_diagonal(claimable, 0.5)
    ds = _claim_variables(fdr_claims(claimable, fdr), models)
    ds.attrs["claims_estimand"] = NEW_QUESTIONS
    return ds


def _check_board_args(R: xr.DataArray, confidence: float, draws: int) -> None:
    """Reject a bad level, ``R`` or number of draws of :func:`population_leaderboard`."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence is {confidence!r}; expected a level in (0, 1).")
    if not isinstance(R, xr.DataArray) or set(R.dims) != {"model", "question", "trial"}:
        raise ValueError("R must be a DataArray with dims ('model', 'question', 'trial').")
    least = min_draws(confidence, 1)
    if isinstance(draws, (int, np.integer)) and not isinstance(draws, bool) and draws < least:
        raise ValueError(
            f"draws is {draws}; {percent(confidence)} intervals and rank intervals from posterior "
            f"draws need at least {least} (one beyond each end; {min_draws(confidence)} give "
            f"them some precision); expected draws >= {least}."
        )
    check_memory(  # the draws, their ranks and the blocks' weights
        8.0 * 4 * float(draws) * R.sizes["model"] if isinstance(draws, (int, np.integer)) else 0,
        f"draws {draws} for {R.sizes['model']} models",
        "fewer draws",
    )


class _Intervals(NamedTuple):
    """Posterior draws of the models' scores, and each model's mean, sd and interval."""

    mu_draws: NDArray[np.float64]  # (draws, L)
    mu: NDArray[np.float64]
    sigma: NDArray[np.float64]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    prior: str  # the prior of the intervals, in words
    no_interval: list[str]  # models without an interval (NaN)


def _question_intervals(
    T: NDArray[np.float64],
    n: NDArray[np.float64],
    tail: float,
    draws: int,
    seed: int | np.random.Generator | None,
) -> _Intervals:
    """Each question its own draw from the source: the intervals of :func:`population_draws`."""
    mu_draws = population_draws(T, n, draws=draws, seed=seed)
    mu = mu_draws.mean(axis=0)
    sigma = mu_draws.std(axis=0, ddof=1)
    lo, hi = np.quantile(mu_draws, [tail, 1.0 - tail], axis=0)
    prior = f"uniform corners ({CORNER:g} pseudo-question at 1 and at 0)"
    return _Intervals(mu_draws, mu, sigma, lo, hi, prior, [])


def _cluster_intervals(
    T: NDArray[np.float64],
    n: NDArray[np.float64],
    tail: float,
    w: ArrayLike | None,
    models: list[str],
    draws: int,
    seed: int | np.random.Generator | None,
) -> _Intervals:
    """Questions drawn in clusters: Student t intervals over the clusters' means.

    ``T`` and ``n`` are each model's sums and counts per cluster (:func:`cluster_sums`); the
    rank draws come from :func:`cluster_draws`.
    """
    from scipy.stats import t as student

    seen = (n > 0).sum(axis=1)  # clusters each model answered a question of
    if (seen < 2).any():
        i = int(np.argmax(seen < 2))
        raise ValueError(
            f"model {models[i]!r} answered questions of {int(seen[i])} cluster(s); the "
            "new-questions estimand with clusters needs at least two per model (one cluster "
            "says nothing about new ones)."
        )
    mu_draws = cluster_draws(T, n, draws=draws, seed=seed)
    mu, scale, df = cluster_values(T, n)
    q = student.ppf(1.0 - tail, df)
    # the t law's tails reach past the scores' range: clip to it
    w_arr = None if w is None else np.asarray(w)
    bottom, top = (0.0, 1.0) if w_arr is None else (float(w_arr.min()), float(w_arr.max()))
    lo = np.maximum(mu - q * scale, bottom)
    hi = np.minimum(mu + q * scale, top)
    with np.errstate(invalid="ignore", divide="ignore"):
        sigma = np.where(df > 2, scale * np.sqrt(df / np.maximum(df - 2, 1e-300)), np.inf)
    # equal cluster means (s = 0): the t model's interval collapses to a point, which
    # is no credible statement; no interval is given (NaN) and the table says why
    flat = ~(scale > 0)
    lo, hi, sigma = (np.where(flat, np.nan, x) for x in (lo, hi, sigma))
    no_interval = [m for m, f in zip(models, flat, strict=True) if f]
    prior = "Jeffreys on the cluster-level normal model (Student t, G - 1 df)"
    return _Intervals(mu_draws, mu, sigma, lo, hi, prior, no_interval)
