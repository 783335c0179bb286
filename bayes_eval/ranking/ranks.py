r"""Ranking with uncertainty.

After Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5
and §2.7.1; unnamed section numbers below refer to it.

Two models with posterior means/sds :math:`(\mu, \sigma)` and :math:`(\mu', \sigma')` differ by
:math:`\Delta\bar\pi \approx N(\mu - \mu', \sigma^2 + \sigma'^2)` (§2.5), so

.. math:: z = \frac{|\mu - \mu'|}{\sqrt{\sigma^2 + \sigma'^2}}, \qquad
          \rho = \tfrac12\big(1 + \mathrm{erf}(z/\sqrt2)\big)

is the probability that the order of the means is the true order (``z = 1.645`` gives
``rho = 0.95``). :func:`prob_better` gives the same probability from the exact posterior.

Two ways to turn pairwise decisions into ranks:

* :func:`rank_with_ci`, the paper's rule (§2.7.1, Table 1): order by ``mu``; two *consecutive*
  models share a rank when their ``z`` is below the threshold. Ties chain: with means
  .70/.66/.62/.58 and sd .02 every neighbour pair has z = 1.41, so all four tie although
  .70 vs .62 has z = 2.83.
* :func:`rank_interval`, non-chaining: each model gets the interval
  ``[1 + #(models confidently better), L - #(models confidently worse)]`` from all pairwise
  decisions, so the example above gives [1, 2], [1, 3], [2, 4], [3, 4].
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri

from bayes_eval.inputs import shown
from bayes_eval.posteriors.posterior import posterior
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec

__all__ = [
    "confidence_to_z",
    "dense_ci_ranks",
    "pairwise_confidence",
    "pairwise_z",
    "prob_better",
    "rank",
    "rank_interval",
    "rank_range",
    "rank_with_ci",
    "ranking_confidence",
    "z_score",
]


RankMethod = Literal["competition", "dense"]


@overload
def _vectors(mu: ArrayLike, sigma: None = None) -> tuple[NDArray[np.float64], None]: ...
@overload
def _vectors(
    mu: ArrayLike, sigma: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def _vectors(
    mu: ArrayLike, sigma: ArrayLike | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Validated float vectors of posterior means and (optionally) sds, one entry per model."""
    mu_arr = np.asarray(mu, dtype=float)
    if mu_arr.ndim != 1 or mu_arr.size == 0:
        raise ValueError(
            f"mu has shape {mu_arr.shape}; expected a non-empty vector, one per model."
        )
    if not np.isfinite(mu_arr).all():
        raise ValueError("mu contains a non-finite value; expected finite posterior means.")
    if sigma is None:
        return mu_arr, None
    sigma_arr = np.asarray(sigma, dtype=float)
    if sigma_arr.shape != mu_arr.shape:
        raise ValueError(
            f"sigma has shape {sigma_arr.shape}; expected {mu_arr.shape}, the shape of mu."
        )
    if not (np.isfinite(sigma_arr).all() and (sigma_arr >= 0).all()):
        raise ValueError("sigma must be finite and >= 0.")
    return mu_arr, sigma_arr


def z_score(
    mu_a: ArrayLike, sigma_a: ArrayLike, mu_b: ArrayLike, sigma_b: ArrayLike
) -> float | NDArray[np.float64]:
    r"""Absolute z-score of a difference, :math:`|\mu_a-\mu_b|/\sqrt{\sigma_a^2+\sigma_b^2}` (§2.5).

    Returns ``inf`` for a non-zero difference with zero uncertainty, 0 for equal means.

    Parameters
    ----------
    mu_a, sigma_a : float or array_like
        Posterior mean and sd of model a (arrays broadcast).
    mu_b, sigma_b : float or array_like
        Posterior mean and sd of model b.

    Returns
    -------
    float or numpy.ndarray
        The z-score, a float for scalar inputs, else an array of the broadcast shape.

    Examples
    --------
    >>> round(z_score(0.70, 0.02, 0.66, 0.02), 4)
    1.4142
    >>> z_score(0.7, 0.0, 0.6, 0.0), z_score(0.7, 0.1, 0.7, 0.1)
    (inf, 0.0)
    """
    diff = np.abs(np.asarray(mu_a, float) - np.asarray(mu_b, float))
    scale = np.sqrt(np.asarray(sigma_a, float) ** 2 + np.asarray(sigma_b, float) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(
            scale > 0, diff / np.where(scale > 0, scale, 1.0), np.where(diff > 0, np.inf, 0.0)
        )
    return float(z) if z.ndim == 0 else z


def ranking_confidence(z: ArrayLike) -> float | NDArray[np.float64]:
    r""":math:`\rho = \frac12(1 + \mathrm{erf}(z/\sqrt2)) = \Phi(z)` (§2.5).

    Parameters
    ----------
    z : float or array_like
        z-scores (:func:`z_score`).

    Returns
    -------
    float or numpy.ndarray
        The ranking confidence :math:`\Phi(z)`, a float for a scalar ``z``.

    Examples
    --------
    >>> round(ranking_confidence(1.645), 4)
    0.95
    >>> ranking_confidence([0.0, 1.0]).round(4).tolist()
    [0.5, 0.8413]
    """
    out = ndtr(np.asarray(z, dtype=float))
    return float(out) if np.ndim(out) == 0 else out


def confidence_to_z(confidence: float) -> float:
    r"""One-sided threshold ``z = Phi^{-1}(confidence)``: 0.95 -> 1.645 (the paper's rule).

    Parameters
    ----------
    confidence : float
        Ranking confidence, in (0, 1).

    Returns
    -------
    float
        The z threshold :math:`\Phi^{-1}(\mathrm{confidence})`.

    Examples
    --------
    >>> round(confidence_to_z(0.95), 4)
    1.6449
    """
    if not (0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence is {shown(confidence)}; expected a probability in (0, 1).")
    return float(ndtri(confidence))


def pairwise_z(mu: ArrayLike, sigma: ArrayLike) -> NDArray[np.float64]:
    """Matrix of pairwise z-scores, shape ``(L, L)`` (dims ``model`` x ``model_bis``).

    Parameters
    ----------
    mu : array_like of shape (L,)
        Posterior means of the L models.
    sigma : array_like of shape (L,)
        Their posterior sds.

    Returns
    -------
    numpy.ndarray of shape (L, L)
        ``z[i, j]``, the absolute z-score of models i and j (:func:`z_score`); 0 on the diagonal.

    Examples
    --------
    >>> pairwise_z([0.70, 0.66, 0.62], [0.02, 0.02, 0.02]).round(2).tolist()
    [[0.0, 1.41, 2.83], [1.41, 0.0, 1.41], [2.83, 1.41, 0.0]]
    """
    mu, sigma = _vectors(mu, sigma)
    return np.asarray(z_score(mu[:, None], sigma[:, None], mu[None, :], sigma[None, :]))


def pairwise_confidence(mu: ArrayLike, sigma: ArrayLike) -> NDArray[np.float64]:
    r"""Gaussian :math:`P(\bar\pi_i > \bar\pi_j)` for every pair, shape ``(L, L)``.

    ``Phi((mu_i - mu_j) / sqrt(sigma_i^2 + sigma_j^2))``; the diagonal is 0.5.

    Parameters
    ----------
    mu : array_like of shape (L,)
        Posterior means of the L models.
    sigma : array_like of shape (L,)
        Their posterior sds.

    Returns
    -------
    numpy.ndarray of shape (L, L)
        ``P[i, j]``, the probability that model i is better than model j.

    Examples
    --------
    >>> pairwise_confidence([0.70, 0.66, 0.62], [0.02, 0.02, 0.02]).round(4).tolist()
    [[0.5, 0.9214, 0.9977], [0.0786, 0.5, 0.9214], [0.0023, 0.0786, 0.5]]
    """
    mu, sigma = _vectors(mu, sigma)
    diff = mu[:, None] - mu[None, :]
    scale = np.sqrt(sigma[:, None] ** 2 + sigma[None, :] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.sign(diff) * np.inf)
    z = np.where((scale == 0) & (diff == 0), 0.0, z)
    return ndtr(z)


def _ranks_from_groups(order: NDArray, group: NDArray, method: RankMethod) -> NDArray[np.int64]:
    """Ranks along the last axis of models listed in ``order`` whose group ids are ``group``.

    ``order`` sorts each row best first; ``group`` numbers the tie groups of each sorted row
    0, 1, ... (non-decreasing along the row).
    """
    if method == "dense":
        ranked = group + 1
    elif method == "competition":
        # a group's rank is 1 + the position of its first member in the sorted row
        position = np.broadcast_to(np.arange(group.shape[-1]), group.shape)
        starts = np.concatenate(
            [np.ones((*group.shape[:-1], 1), bool), np.diff(group, axis=-1) > 0], axis=-1
        )
        ranked = np.maximum.accumulate(np.where(starts, position, 0), axis=-1) + 1
    else:
        raise ValueError(f"method is {shown(method)}; expected 'competition' or 'dense'.")
    out = np.empty(order.shape, dtype=np.int64)
    np.put_along_axis(out, order, ranked.astype(np.int64), axis=-1)
    return out


def rank(mu: ArrayLike, *, method: RankMethod = "competition", axis: int = -1) -> NDArray[np.int64]:
    """Ranks by value along ``axis``, 1 = highest; equal values share a rank.

    ``method="competition"`` gives 1, 2, 2, 4 ("1224": a model's rank is 1 + the number of
    models strictly better); ``"dense"`` gives 1, 2, 2, 3 (the convention of Hariri et al.,
    "Don't Pass@k", Table 1).

    ``mu`` may have any number of dimensions: every slice along ``axis`` is ranked on its
    own, vectorised, so ``rank(draws)`` with ``draws`` of shape ``(chain, draw, model)`` gives
    the ranks of every posterior draw. A vector of posterior means gives the point ranks.

    Parameters
    ----------
    mu : array_like
        The values to rank (e.g. posterior means, or posterior draws), finite.
    method : {"competition", "dense"}, optional
        How tied values are numbered; default ``"competition"``.
    axis : int, optional
        The axis of the models; default -1.

    Returns
    -------
    numpy.ndarray of int
        The ranks, of the shape of ``mu``.

    Raises
    ------
    ValueError
        For an empty ``mu`` (or an empty ``axis``), a scalar, or a non-finite value.

    Examples
    --------
    >>> rank([0.9, 0.8, 0.8, 0.5]).tolist(), rank([0.9, 0.8, 0.8, 0.5], method="dense").tolist()
    ([1, 2, 2, 4], [1, 2, 2, 3])
    >>> rank([[0.2, 0.5, 0.3], [0.6, 0.1, 0.1]]).tolist()  # one ranking per row
    [[3, 1, 2], [1, 2, 2]]
    """
    mu = np.asarray(mu, dtype=float)
    if mu.ndim == 0 or mu.size == 0:
        raise ValueError(f"mu has shape {mu.shape}; expected a non-empty array of values.")
    if not np.isfinite(mu).all():
        raise ValueError("mu contains a non-finite value; expected finite values to rank.")
    x = np.moveaxis(mu, axis, -1)
    order = np.argsort(-x, axis=-1, kind="stable")
    ordered = np.take_along_axis(x, order, axis=-1)
    new_group = ordered[..., 1:] != ordered[..., :-1]
    group = np.concatenate([np.zeros((*x.shape[:-1], 1), np.int64), np.cumsum(new_group, -1)], -1)
    return np.moveaxis(_ranks_from_groups(order, group, method), -1, axis)


def rank_with_ci(
    mu: ArrayLike,
    sigma: ArrayLike,
    *,
    z_threshold: float = 1.645,
    method: RankMethod = "dense",
) -> NDArray[np.int64]:
    """CI-aware ranks by the rule of Hariri et al., §2.7.1 (reproduces the logic of Table 1).

    Models are ordered by ``mu`` (best first); two consecutive models share a rank when the
    z-score between them is below ``z_threshold`` (1.645: 95% ranking confidence). Ties chain
    along the order. ``method="dense"`` numbers the groups 1, 2, 3, ... as Table 1 does;
    ``"competition"`` gives each group 1 + the number of models in better groups.

    Parameters
    ----------
    mu : array_like of shape (L,)
        Posterior means of the L models.
    sigma : array_like of shape (L,)
        Their posterior sds.
    z_threshold : float, optional
        The z-score that separates two consecutive models; default 1.645.
    method : {"dense", "competition"}, optional
        How the tie groups are numbered; default ``"dense"``.

    Returns
    -------
    numpy.ndarray of int, shape (L,)
        The CI-aware rank of each model.

    Examples
    --------
    >>> rank_with_ci([0.9, 0.85, 0.5], [0.02, 0.03, 0.05]).tolist()
    [1, 1, 2]
    >>> rank_with_ci([0.9, 0.85, 0.5], [0.02, 0.03, 0.05], method="competition").tolist()
    [1, 1, 3]
    """
    mu, sigma = _vectors(mu, sigma)
    order = np.argsort(-mu, kind="stable")
    z = np.atleast_1d(z_score(mu[order][:-1], sigma[order][:-1], mu[order][1:], sigma[order][1:]))
    separated = z >= z_threshold
    group = np.concatenate([[0], np.cumsum(separated)])
    return _ranks_from_groups(order, group, method)


def dense_ci_ranks(mu: ArrayLike, prob: ArrayLike, confidence: float) -> NDArray[np.int64]:
    """Dense ranks by ``mu`` where consecutive models tie unless confidently ordered.

    Consecutive models tie unless ``P(upper better than lower) >= confidence`` (``prob[i, j]``: P(i
    better than j); the CI-aware ranking of Hariri et al., §2.7.1, for any pairwise probability).

    Parameters
    ----------
    mu : array_like of shape (L,)
        Posterior means of the L models.
    prob : array_like of shape (L, L)
        ``P(model i better than model j)``.
    confidence : float
        The probability that separates two consecutive models.

    Returns
    -------
    numpy.ndarray of int, shape (L,)
        The dense CI-aware rank of each model (ties chain).

    Examples
    --------
    >>> mu = [0.70, 0.66, 0.62, 0.58]
    >>> dense_ci_ranks(mu, pairwise_confidence(mu, [0.02] * 4), 0.95).tolist()
    [1, 1, 1, 1]
    >>> dense_ci_ranks(mu, pairwise_confidence(mu, [0.01] * 4), 0.95).tolist()
    [1, 2, 3, 4]
    """
    mu = np.asarray(mu, dtype=float)
    order = np.argsort(-mu, kind="stable")
    separated = np.asarray(prob)[order[:-1], order[1:]] >= confidence
    out = np.empty(mu.size, dtype=np.int64)
    out[order] = np.concatenate([[0], np.cumsum(separated)]) + 1
    return out


def rank_range(
    prob: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Non-chaining rank range of every model from a matrix of pairwise probabilities.

    Model i is *credibly better* than j when ``prob[i, j] >= confidence``. Its range is
    ``[1 + #(models credibly better), L - #(models credibly worse)]``: every rank the
    pairwise statements leave open (no chaining). With ``prob`` from one joint posterior
    whose means order the models (``prob[i, j] >= 1/2`` exactly when ``mu_i >= mu_j``), the
    position of a model in that order lies inside its range.

    Parameters
    ----------
    prob : array_like, shape ``(L, L)``
        ``P(model i better than model j)``; the diagonal is ignored.
    confidence : float
        Level of a credible statement, in (1/2, 1); default 0.95.

    Returns
    -------
    lower, upper : ndarray of int, shape ``(L,)``
        The best and the worst rank each model may have.

    Examples
    --------
    >>> mu = [0.70, 0.66, 0.62, 0.58]
    >>> lower, upper = rank_range(pairwise_confidence(mu, [0.02] * 4), 0.95)
    >>> lower.tolist(), upper.tolist()
    ([1, 1, 2, 3], [2, 3, 4, 4])
    """
    prob = np.array(prob, dtype=float)
    if prob.ndim != 2 or prob.shape[0] != prob.shape[1]:
        raise ValueError(f"prob has shape {prob.shape}; expected a square matrix.")
    if not 0.5 < float(confidence) < 1.0:
        raise ValueError(f"confidence is {shown(confidence)}; expected a level in (0.5, 1).")
    np.fill_diagonal(prob, 0.0)
    beats = prob >= confidence  # beats[i, j]: i credibly over j
    return 1 + beats.sum(axis=0), prob.shape[0] - beats.sum(axis=1)


def rank_interval(
    mu: ArrayLike, sigma: ArrayLike, *, z_threshold: float = 1.645
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Non-chaining rank interval of every model from all pairwise decisions.

    Model i is *confidently better* than j when ``mu_i > mu_j`` and ``z_ij >= z_threshold``.
    Its rank interval is ``[1 + #better-than-i, L - #worse-than-i]``; the point rank by
    ``mu`` always lies inside it.

    Parameters
    ----------
    mu : array_like of shape (L,)
        Posterior means of the L models.
    sigma : array_like of shape (L,)
        Their posterior sds.
    z_threshold : float, optional
        The z-score of a confident decision; default 1.645.

    Returns
    -------
    lower, upper : ndarray of int, shape ``(L,)``
        The best and the worst rank each model may have.

    Examples
    --------
    >>> lower, upper = rank_interval([0.70, 0.66, 0.62, 0.58], [0.02] * 4)
    >>> lower.tolist(), upper.tolist()
    ([1, 1, 2, 3], [2, 3, 4, 4])
    """
    mu, sigma = _vectors(mu, sigma)
    z = pairwise_z(mu, sigma)
    beats = (mu[:, None] > mu[None, :]) & (z >= z_threshold)  # beats[i, j]: i over j
    better = beats.sum(axis=0)
    worse = beats.sum(axis=1)
    return 1 + better, mu.size - worse


def prob_better(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike | None = None,
    prior: PriorSpec | Prior | None = None,
    method: Literal["exact", "normal"] = "normal",
) -> float:
    r"""Posterior probability :math:`P(\bar\pi_a > \bar\pi_b \mid R_a, R_b)` for two models.

    This is :meth:`Posterior.prob_better <bayes_eval.posteriors.posterior.Posterior.prob_better>` of
    their posteriors under ``prior`` (``alpha0``: the older name of a fixed prior; ``R0_a``,
    ``R0_b``: earlier runs of each), estimand *these questions*.

    ``prior`` None is the default, the learned prior (each model's own: the two results are
    not one board). ``method="normal"`` (default) is the Gaussian approximation
    :math:`\Phi((\mu_a-\mu_b)/\sqrt{\sigma_a^2+\sigma_b^2})` of §2.5, which agrees with the
    order of the means; ``"exact"`` convolves the exact posteriors
    (:mod:`bayes_eval.posteriors.exact`). The models may have different numbers of questions
    and trials.

    Parameters
    ----------
    R_a, R_b : array_like of shape (M, N)
        Results of models a and b: category labels ``0..C`` (each its own M and N).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights common to both; default None, binary results with ``w = (0, 1)``.
    R0_a, R0_b : array_like, optional
        Earlier runs of each model, which join its prior; default None.
    alpha0 : float or array_like, optional
        The older name of a fixed prior (not with ``prior``); default None.
    prior : Prior or str, optional
        The prior or its words; default None, ``"empirical"``.
    method : {"normal", "exact"}, optional
        Gaussian approximation (default) or exact convolution.

    Returns
    -------
    float
        :math:`P(\bar\pi_a > \bar\pi_b)`.

    Examples
    --------
    >>> import numpy as np
    >>> R_a = np.array([[1, 1, 1], [1, 1, 0]])
    >>> R_b = np.array([[0, 1, 0], [0, 0, 1]])
    >>> round(prob_better(R_a, R_b, prior="uniform"), 4)
    0.9414
    >>> round(prob_better(R_a, R_b, prior="uniform", method="exact"), 4)
    0.9352
    """
    if alpha0 is not None:
        if prior is not None:
            raise ValueError(
                f"both prior={shown(prior)} and alpha0={shown(alpha0)} were given; alpha0 is "
                "the older name of a fixed prior: pass prior= only."
            )
        prior = alpha0
    elif prior is None:
        prior = DEFAULT_PRIOR
    if method not in ("exact", "normal"):
        raise ValueError(f"method is {shown(method)}; expected 'exact' or 'normal'.")
    pa = posterior(R_a, w, prior=Prior.parse(prior, runs=R0_a))
    pb = posterior(R_b, w, prior=Prior.parse(prior, runs=R0_b))
    if pa.batched or pb.batched:
        raise ValueError(
            "prob_better compares two single models; expected R_a, R_b of shape (M, N)."
        )
    if pa.w.size != pb.w.size:
        raise ValueError(
            f"R_a has {pa.w.size} categories and R_b {pb.w.size}; pass a common w for both."
        )
    return float(pa.prob_better(pb, method=method))
