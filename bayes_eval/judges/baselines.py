"""Baselines and metrics for ranking candidates from LLM-judge scores.

After Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", §6 and Table 1.

Baselines (all use every (judge, candidate) pair, as in the paper's Table 1):

* :func:`simple_average`: the average over judges of each judge's mean score;
* :func:`single_judge_scores`: each judge alone (the paper averages the metric over judges);
* :func:`bootstrap_rank_intervals`: percentile intervals of the simple-average ranks over
  bootstrap resamples of the questions (or, with counts only, multinomial resamples of each
  judge-candidate score distribution);
* :func:`bradley_terry_ties`: Bradley-Terry with ties (Rao & Kupper 1967) fitted by maximum
  likelihood with scipy, on the pairwise outcomes of the judges' scores per question, with
  bootstrap rank intervals;
* :func:`ppi_rank_intervals`: prediction-powered inference (Angelopoulos et al. 2023,
  ``ppi-python``) of each candidate's mean gold score from a labelled fraction of the
  questions and the judges' mean score as the prediction; rank intervals from the
  confidence intervals.

Metrics: :func:`spearman` (rank correlation with the truth) and :func:`rank_coverage`
(share of candidates whose true rank lies in its interval; ties in the truth use 'min'
ranks and a tied candidate is covered when any rank of its tie block is in the interval).

Every rank here is :func:`bayes_eval.ranking.ranks.rank`: 1 = highest score, tied scores share the
smallest rank (competition ranks, 1 + the number of candidates scored strictly higher).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, stats

from bayes_eval.judges.data import JudgeData
from bayes_eval.posteriors.joint import one_blas_thread
from bayes_eval.ranking.ranks import rank

__all__ = [
    "RankIntervals",
    "bootstrap_rank_intervals",
    "bradley_terry_ties",
    "ppi_rank_intervals",
    "rank_coverage",
    "rao_kupper_fit",
    "simple_average",
    "single_judge_scores",
    "spearman",
]


@dataclass(frozen=True)
class RankIntervals:
    """Point scores (higher = better), point ranks and rank intervals per candidate.

    Attributes
    ----------
    scores : numpy.ndarray of float, shape (K,)
        Point score of each candidate (higher = better).
    rank : numpy.ndarray of int, shape (K,)
        Point rank of each candidate (1 = best, competition ranks).
    lo, hi : numpy.ndarray of int, shape (K,)
        Bounds of each candidate's rank interval (``lo <= hi``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.baselines import RankIntervals
    >>> ri = RankIntervals(np.array([3.1, 2.4]), np.array([1, 2]), np.array([1, 1]),
    ...                    np.array([2, 2]))
    >>> ri.rank.tolist(), ri.lo.tolist(), ri.hi.tolist()
    ([1, 2], [1, 1], [2, 2])
    """

    scores: NDArray[np.float64]
    rank: NDArray[np.int64]
    lo: NDArray[np.int64]
    hi: NDArray[np.int64]


def simple_average(data: JudgeData) -> NDArray[np.float64]:
    """Average over judges of the per-judge mean assigned score (all pairs kept).

    Parameters
    ----------
    data : JudgeData
        Judge scores of ``K`` candidates.

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        The simple-average score of each candidate.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.round([2.0, 3.0, 4.0] + rng.normal(0, 1, (30, 2, 3))), 1, 5)
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=5)
    >>> from bayes_eval.judges.baselines import simple_average
    >>> simple_average(data).round(4).tolist()
    [1.9667, 3.0333, 4.1]
    """
    return np.nanmean(data.mean_scores(), axis=0)


def single_judge_scores(data: JudgeData) -> NDArray[np.float64]:
    """``(J, K)`` mean score of each judge for each candidate.

    Parameters
    ----------
    data : JudgeData
        Judge scores of ``K`` candidates by ``J`` judges.

    Returns
    -------
    numpy.ndarray of float, shape (J, K)
        Mean assigned score of each judge for each candidate (NaN where a judge gave none).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.round([2.0, 3.0, 4.0] + rng.normal(0, 1, (30, 2, 3))), 1, 5)
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=5)
    >>> from bayes_eval.judges.baselines import single_judge_scores
    >>> single_judge_scores(data).round(4).tolist()
    [[2.1333, 3.3, 3.9667], [1.8, 2.7667, 4.2333]]
    """
    return data.mean_scores()


def spearman(scores: ArrayLike, truth: ArrayLike) -> float:
    """Spearman correlation of point scores with the true scores.

    Parameters
    ----------
    scores : array_like of float, shape (K,)
        Point score of each candidate.
    truth : array_like of float, shape (K,)
        True score of each candidate.

    Returns
    -------
    float
        Spearman's rank correlation, in [-1, 1].

    Examples
    --------
    >>> from bayes_eval.judges.baselines import spearman
    >>> round(spearman([1.9, 3.0, 4.1, 2.5], [2.0, 3.0, 4.0, 1.5]), 4)
    0.8
    """
    return float(stats.spearmanr(np.asarray(scores), np.asarray(truth)).statistic)


def rank_coverage(lo: ArrayLike, hi: ArrayLike, truth: ArrayLike) -> float:
    """Share of candidates whose true rank (from ``truth`` scores) is inside ``[lo, hi]``.

    Parameters
    ----------
    lo, hi : array_like of int, shape (K,)
        Bounds of each candidate's rank interval (1 = best).
    truth : array_like of float, shape (K,)
        True score of each candidate (higher = better); a tied candidate is covered when
        any rank of its tie block is in its interval.

    Returns
    -------
    float
        The share of covered candidates, in [0, 1].

    Examples
    --------
    >>> from bayes_eval.judges.baselines import rank_coverage
    >>> round(rank_coverage([1, 1, 2], [1, 3, 2], truth=[3.0, 2.5, 2.0]), 4)
    0.6667
    """
    truth = np.asarray(truth, dtype=float)
    r = rank(truth)
    block = np.array([(truth == t).sum() for t in truth])  # tie block size
    lo, hi = np.asarray(lo), np.asarray(hi)
    return float(np.mean((hi >= r) & (lo <= r + block - 1)))


def _percentile_ranks(ranks: NDArray, prob: float) -> tuple[NDArray, NDArray]:
    """Equal-tailed percentile interval of each column of ``ranks`` (NaN entries left out)."""
    q = (1 - prob) / 2
    lo = np.nanquantile(ranks, q, axis=0, method="inverted_cdf").astype(np.int64)
    hi = np.nanquantile(ranks, 1 - q, axis=0, method="inverted_cdf").astype(np.int64)
    return lo, hi


def _resample_ranks(scores: NDArray) -> NDArray:
    """Ranks of each row of ``scores`` (one row per resample).

    A candidate left without any score in a resample (NaN) has no rank in it (NaN, left out
    of its interval) and does not change the ranks of the others.
    """
    unscored = np.isnan(scores)
    if not unscored.any():
        return rank(scores)
    below_all = np.nanmin(scores) - 1.0  # ranks after every scored candidate
    ranks = rank(np.where(unscored, below_all, scores)).astype(float)
    ranks[unscored] = np.nan
    return ranks


def _check_scored(data: JudgeData) -> None:
    """Raise unless every candidate has at least one judge score."""
    none = [c for c, n in zip(data.candidates, data.counts.sum(axis=(0, 2)), strict=True) if not n]
    if none:
        raise ValueError(f"candidate(s) {none} have no judge scores; expected one at least.")


def _resampled_counts(data: JudgeData, rng: np.random.Generator, n_boot: int) -> NDArray[np.int64]:
    """Bootstrap count arrays ``(n_boot, J, K, L)``.

    Questions are resampled with replacement when per-question scores exist, else each
    (j, k) distribution is resampled multinomially.
    """
    J, K, L = data.counts.shape
    if data.scores is not None:
        n = data.scores.shape[0]
        idx = rng.integers(0, n, (n_boot, n))
        s = data.scores[idx]  # (B, n, J, K)
        onehot = (s[..., None] == np.arange(L)).sum(axis=1)  # (B, J, K, L)
        return onehot.astype(np.int64)
    n = data.counts.sum(axis=2)
    p = data.counts / np.maximum(n, 1)[..., None]
    out = np.zeros((n_boot, J, K, L), dtype=np.int64)
    for j in range(J):
        for k in range(K):
            if n[j, k]:
                out[:, j, k] = rng.multinomial(n[j, k], p[j, k], size=n_boot)
    return out


def bootstrap_rank_intervals(
    data: JudgeData, *, n_boot: int = 1000, prob: float = 0.95, seed: int = 0
) -> RankIntervals:
    """Simple-average ranks with percentile bootstrap intervals.

    A resample that leaves a candidate without any score (possible with missing scores)
    gives it no rank; its interval comes from the other resamples.

    Parameters
    ----------
    data : JudgeData
        Judge scores; questions are resampled when per-question scores are known.
    n_boot : int, optional
        Bootstrap resamples, default 1000.
    prob : float, optional
        Probability of the equal-tailed percentile intervals, default 0.95.
    seed : int, optional
        Seed of the resamples, default 0.

    Returns
    -------
    RankIntervals
        Simple-average scores and ranks with the bootstrap rank intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.round([2.0, 3.0, 4.0] + rng.normal(0, 1, (30, 2, 3))), 1, 5)
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=5)
    >>> from bayes_eval.judges.baselines import bootstrap_rank_intervals
    >>> ri = bootstrap_rank_intervals(data, n_boot=200, seed=0)
    >>> ri.rank.tolist(), ri.lo.tolist(), ri.hi.tolist()
    ([3, 2, 1], [3, 2, 1], [3, 2, 1])
    """
    _check_scored(data)
    s = simple_average(data)
    rng = np.random.default_rng(seed)
    boot = _resampled_counts(data, rng, n_boot)
    vals = data.assigned_values()
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (boot * vals).sum(-1) / boot.sum(-1)  # (B, J, K)
        scored = ~np.isnan(means)
        # mean over the judges that scored; NaN where a resample left a candidate unscored
        avg = np.where(scored, means, 0.0).sum(axis=1) / scored.sum(axis=1)  # (B, K)
    lo, hi = _percentile_ranks(_resample_ranks(avg), prob)
    return RankIntervals(s, rank(s), lo, hi)


def _pairwise_outcomes(
    counts_or_scores: np.ndarray, data: JudgeData, from_scores: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """``wins[k, k']`` (k's score above k''s) and ``ties[k, k']`` summed over judges."""
    K = len(data.candidates)
    if from_scores:
        s = counts_or_scores  # (n, J, K) level indices, NaN missing
        a, b = s[..., :, None], s[..., None, :]
        valid = ~np.isnan(a) & ~np.isnan(b)
        wins = ((a > b) & valid).sum(axis=(0, 1)).astype(float)
        ties = ((a == b) & valid).sum(axis=(0, 1)).astype(float)
    else:  # counts only: expected outcomes of independent draws, scaled to the question count
        c = counts_or_scores  # (J, K, L)
        n = c.sum(-1, keepdims=True)
        p = c / np.maximum(n, 1)
        cdf = np.cumsum(p, axis=-1)
        below = cdf - p  # P(S < s)
        per_q = np.minimum(n[..., 0][:, :, None], n[..., 0][:, None, :])
        wins = (np.einsum("jks,jls->jkl", p, below) * per_q).sum(0)
        ties = (np.einsum("jks,jls->jkl", p, p) * per_q).sum(0)
    np.fill_diagonal(wins, 0.0)
    np.fill_diagonal(ties, 0.0)
    return wins, ties, K


def _rao_kupper_nll(x: NDArray, wins: NDArray, tie_half: NDArray) -> tuple[float, NDArray]:
    """Negative log-likelihood of :func:`rao_kupper_fit` and its gradient, in log space.

    In ``x = (log p_1, ..., log p_{K-1}, log(nu - 1))`` (``log p_0 = 0``).
    """
    lp = np.concatenate(([0.0], x[:-1]))
    t = x[-1]
    log_nu = np.logaddexp(0.0, t)  # nu = 1 + e^t
    a, b = lp[:, None], lp[None, :]
    log_d = np.logaddexp(a, log_nu + b)  # p_k + nu p_l
    log_e = np.logaddexp(log_nu + a, b)  # nu p_k + p_l
    log_nu2m1 = t + np.logaddexp(np.log(2.0), t)  # nu^2 - 1 = e^t (2 + e^t)
    ll = (wins * (a - log_d)).sum()
    ll += (tie_half * (log_nu2m1 + a + b - log_d - log_e)).sum()
    # shares of p_k in p_k + nu p_l and of nu p_k in nu p_k + p_l (the other term: 1 - share)
    r_d = np.exp(a - log_d)
    r_e = np.exp(log_nu + a - log_e)
    g_k = wins * (1.0 - r_d) + tie_half * (1.0 - r_d - r_e)  # d ll / d lp_k per (k, l)
    g_l = -wins * (1.0 - r_d) + tie_half * (r_d + r_e - 1.0)  # d ll / d lp_l per (k, l)
    g_lp = g_k.sum(axis=1) + g_l.sum(axis=0)
    d_log_nu = -(wins * (1.0 - r_d)).sum() - (tie_half * ((1.0 - r_d) + r_e)).sum()
    sig = np.exp(t - log_nu)  # d log_nu / dt
    d_t = d_log_nu * sig + tie_half.sum() * (1.0 + np.exp(t - np.logaddexp(np.log(2.0), t)))
    ridge = 1e-6  # tiny ridge: finite MLE when a pair is perfect
    nll = -ll + ridge * (x[:-1] ** 2).sum()
    grad = np.concatenate((-g_lp[1:] + 2 * ridge * x[:-1], [-d_t]))
    return float(nll), grad


def rao_kupper_fit(
    wins: NDArray, ties: NDArray, *, start: NDArray | None = None
) -> tuple[NDArray[np.float64], float]:
    """Maximum-likelihood Rao-Kupper model of wins and ties.

    ``P(k beats l) = p_k / (p_k + nu p_l)``,
    ``P(tie) = (nu^2 - 1) p_k p_l / ((p_k + nu p_l)(nu p_k + p_l))``, ``nu >= 1``.

    ``wins[k, l]`` counts k beating l; ``ties`` is symmetric (each tie counted once in
    ``[k, l]`` and once in ``[l, k]``). Returns log-strengths (mean 0) and ``nu``. L-BFGS-B
    with the exact gradient (``_rao_kupper_nll``), from zero or from ``start`` (the
    optimiser's ``x`` of an earlier fit, e.g. the full data's for a bootstrap resample).

    Parameters
    ----------
    wins : numpy.ndarray of float, shape (K, K)
        ``wins[k, l]``: how often ``k`` beat ``l``.
    ties : numpy.ndarray of float, shape (K, K)
        Symmetric tie counts.
    start : numpy.ndarray of float, shape (K,), optional
        Starting ``x = (log p_1 - log p_0, ..., log(nu - 1))``; default zeros.

    Returns
    -------
    strength : numpy.ndarray of float, shape (K,)
        Log-strengths ``log p_k``, centred to mean 0.
    nu : float
        The tie parameter, ``>= 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.baselines import rao_kupper_fit
    >>> wins = np.array([[0, 8, 9], [2, 0, 6], [1, 4, 0]])
    >>> ties = np.array([[0, 2, 1], [2, 0, 3], [1, 3, 0]])
    >>> strength, nu = rao_kupper_fit(wins, ties)
    >>> strength.round(4).tolist(), round(nu, 4)
    ([1.0095, -0.2897, -0.7198], 1.584)
    """
    K = wins.shape[0]
    tie_half = np.triu(ties + ties.T, 1) / 2  # each unordered pair once
    x0 = np.zeros(K) if start is None else np.asarray(start, dtype=float)
    res = optimize.minimize(_rao_kupper_nll, x0, args=(wins, tie_half), jac=True, method="L-BFGS-B")
    lp = np.concatenate(([0.0], res.x[:-1]))
    return lp - lp.mean(), float(1.0 + np.exp(res.x[-1]))


def _rao_kupper_x(strength: NDArray, nu: float) -> NDArray:
    """The optimiser's ``x`` for centred log-strengths and ``nu`` (a warm start)."""
    return np.concatenate((strength[1:] - strength[0], [np.log(max(nu - 1.0, 1e-12))]))


def bradley_terry_ties(
    data: JudgeData, *, n_boot: int = 200, prob: float = 0.95, seed: int = 0
) -> RankIntervals:
    """Rao-Kupper strengths and bootstrap rank intervals.

    Questions are resampled, or counts when only counts are known (then pairs use expected
    outcomes). Each resample's fit starts from the full data's estimate.

    Parameters
    ----------
    data : JudgeData
        Judge scores; pairwise outcomes per question when per-question scores are known.
    n_boot : int, optional
        Bootstrap resamples, default 200.
    prob : float, optional
        Probability of the equal-tailed percentile intervals, default 0.95.
    seed : int, optional
        Seed of the resamples, default 0.

    Returns
    -------
    RankIntervals
        Log-strengths (:func:`rao_kupper_fit`) as scores, their ranks and the bootstrap
        rank intervals.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.round([2.0, 3.0, 4.0] + rng.normal(0, 1, (30, 2, 3))), 1, 5)
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=5)
    >>> from bayes_eval.judges.baselines import bradley_terry_ties
    >>> bt = bradley_terry_ties(data, n_boot=20, seed=0)
    >>> bt.scores.round(2).tolist(), bt.lo.tolist(), bt.hi.tolist()
    ([-1.58, 0.09, 1.5], [3, 2, 1], [3, 2, 1])
    """
    from_scores = data.scores is not None
    base = data.counts if data.scores is None else data.scores  # the scores when from_scores
    wins, ties, _ = _pairwise_outcomes(base, data, from_scores)
    rng = np.random.default_rng(seed)
    strengths = []
    with one_blas_thread():  # K numbers: threads waiting for busy cores cost ~20x
        strength, nu = rao_kupper_fit(wins, ties)
        start = _rao_kupper_x(strength, nu)
        for b in range(n_boot):
            if from_scores:
                assert data.scores is not None  # from_scores says so
                idx = rng.integers(0, data.scores.shape[0], data.scores.shape[0])
                w, t, _ = _pairwise_outcomes(data.scores[idx], data, True)
            else:
                c = _resampled_counts(data, np.random.default_rng([seed, b]), 1)[0]
                w, t, _ = _pairwise_outcomes(c, data, False)
            strengths.append(rao_kupper_fit(w, t, start=start)[0])
    lo, hi = _percentile_ranks(rank(np.array(strengths)), prob)
    return RankIntervals(strength, rank(strength), lo, hi)


def ppi_rank_intervals(
    data: JudgeData,
    gold: NDArray,
    *,
    labelled_fraction: float = 0.1,
    prob: float = 0.95,
    power_tuning: bool = True,
    seed: int = 0,
) -> RankIntervals:
    """Prediction-powered mean of each candidate's gold score (``ppi_py.ppi_mean_ci``).

    ``power_tuning`` uses PPI++'s estimated ``lambda`` (ppi-python's default); otherwise
    ``lambda = 1`` (plain PPI: mean prediction on the unlabelled questions plus the mean
    rectifier on the labelled ones).

    ``gold`` is ``(n, K)`` per-question gold scores (e.g. the expert mean); a random
    ``labelled_fraction`` of the questions is labelled. The prediction is the judges' mean
    assigned score. A candidate's rank interval runs from one plus the number of candidates
    whose interval lies wholly above its own to ``K`` minus the number wholly below.

    Parameters
    ----------
    data : JudgeData
        Judge scores with per-question scores (``data.scores``).
    gold : numpy.ndarray of float, shape (n, K)
        Gold score of each question and candidate.
    labelled_fraction : float, optional
        Share of the questions whose gold scores are used, in (0, 1); default 0.1.
    prob : float, optional
        Probability of the confidence intervals, default 0.95.
    power_tuning : bool, optional
        PPI++'s estimated ``lambda`` (default ``True``) or plain PPI (``lambda = 1``).
    seed : int, optional
        Seed of the choice of labelled questions, default 0.

    Returns
    -------
    RankIntervals
        Prediction-powered means as scores, their ranks and the rank intervals.

    Raises
    ------
    ValueError
        Without ppi-python, without per-question scores, for a ``gold`` of the wrong shape
        or a ``labelled_fraction`` outside (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.round([2.0, 3.0, 4.0] + rng.normal(0, 1, (30, 2, 3))), 1, 5)
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=5)
    >>> gold = [2.0, 3.0, 4.0] + rng.normal(0, 0.5, (30, 3))
    >>> from bayes_eval.judges.baselines import ppi_rank_intervals
    >>> ri = ppi_rank_intervals(data, gold, labelled_fraction=0.3, seed=0)
    >>> ri.scores.round(4).tolist(), ri.lo.tolist(), ri.hi.tolist()
    ([1.9756, 2.8707, 3.8479], [3, 2, 1], [3, 2, 1])
    """
    try:
        from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ValueError("PPI needs ppi-python: pip install 'bayes_eval[judges]'.") from exc
    if data.scores is None:
        raise ValueError("PPI needs per-question judge scores (data.scores).")
    gold = np.asarray(gold, dtype=float)
    n, K = data.scores.shape[0], len(data.candidates)
    if gold.shape != (n, K):
        raise ValueError(f"gold has shape {gold.shape}; expected (n, K) = ({n}, {K}).")
    if not 0 < labelled_fraction < 1:
        raise ValueError("labelled_fraction must be in (0, 1).")
    vals = data.assigned_values()
    s = data.scores
    pred = np.full(s.shape, np.nan)
    ok = ~np.isnan(s)
    pred[ok] = vals[s[ok].astype(int)]
    yhat = np.nanmean(pred, axis=1)  # (n, K) judges' mean
    rng = np.random.default_rng(seed)
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, max(2, round(labelled_fraction * n)), replace=False)] = True
    est, lo, hi = np.empty(K), np.empty(K), np.empty(K)
    for k in range(K):
        yh = yhat[:, k]
        fill = np.nanmean(yh)
        yh = np.where(np.isnan(yh), fill, yh)
        y = gold[lab, k]
        lam = None if power_tuning else 1.0
        est[k] = float(np.ravel(ppi_mean_pointestimate(y, yh[lab], yh[~lab], lam=lam))[0])
        ci = ppi_mean_ci(y, yh[lab], yh[~lab], alpha=1 - prob, lam=lam)
        lo[k], hi[k] = float(np.ravel(ci[0])[0]), float(np.ravel(ci[1])[0])
    above = (lo[None, :] > hi[:, None]).sum(axis=1)  # candidates surely better than k
    below = (hi[None, :] < lo[:, None]).sum(axis=1)
    return RankIntervals(est, rank(est), (1 + above).astype(np.int64), (K - below).astype(np.int64))
