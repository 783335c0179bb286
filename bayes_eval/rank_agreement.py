r"""Agreement of rankings with a gold standard: Kendall's tau_b and exact ranking match.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
App. I.1. For two score vectors over the same L items, every pair ``i < j`` is concordant
(same order in both), discordant (opposite order) or tied in either. With
:math:`n_0 = L(L-1)/2` and :math:`n_1, n_2` the pairs tied in the first and second ranking,

.. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

(Kendall, "The treatment of ties in ranking problems"; ``scipy.stats.kendalltau`` with
``variant='b'``, the paper's choice). Everything here works
on the *pair signs* :math:`\mathrm{sign}(x_i - x_j)`, vectorised over any leading axes
(replicates, steps), so that millions of rankings cost a few array operations.

Scores are compared after rounding to 12 significant digits (``TIE_DIGITS``): two models
whose scores agree that far are tied. Without this, sums of identical terms in another
order differ in the last bit and break ties at random.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["TIE_DIGITS", "kendall_tau_b", "pair_signs", "ranking_matches"]

TIE_DIGITS = 12


def _round(x: NDArray) -> NDArray:
    scale = np.nanmax(np.abs(x)) if np.isfinite(x).any() else 1.0
    if not np.isfinite(scale) or scale == 0:
        return x
    digits = TIE_DIGITS - int(np.floor(np.log10(scale)))
    return np.round(x, digits)


def pair_signs(scores: ArrayLike) -> NDArray[np.int8]:
    """``sign(x_i - x_j)`` for all pairs ``i < j`` of the last axis.

    The concordance of a pair is the product of its signs in two rankings (module
    docstring). NaN scores (a method undefined at this step) give sign 0 for all their pairs
    and are flagged by :func:`kendall_tau_b` as NaN.

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
        Compared after rounding to ``TIE_DIGITS`` significant digits.

    Returns
    -------
    ndarray of int8, shape ``(..., L(L-1)/2)``
        Pairs in the order of ``numpy.triu_indices(L, 1)``.
    """
    x = _round(np.asarray(scores, dtype=float))
    i, j = np.triu_indices(x.shape[-1], k=1)
    with np.errstate(invalid="ignore"):
        return np.sign(x[..., i] - x[..., j]).astype(np.int8)


def kendall_tau_b(scores: ArrayLike, gold: ArrayLike) -> NDArray[np.float64]:
    """Kendall's tau_b between each score vector (last axis) and the gold scores.

    The formula of the module docstring (Kendall, "The treatment of ties in ranking
    problems"), as used by Hariri et al., "Don't Pass@k", App. I.1.

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
        Higher is better. Leading axes are replicates, steps, ...
    gold : array_like, shape ``(L,)``
        Gold-standard scores (ties allowed, e.g. equal true pi-bar).

    Returns
    -------
    ndarray, shape ``(...)``
        tau_b; NaN where a score vector contains NaN or is constant.
    """
    scores = np.asarray(scores, dtype=float)
    gold = np.asarray(gold, dtype=float)
    if gold.ndim != 1 or scores.shape[-1] != gold.size:
        raise ValueError(
            f"gold has shape {gold.shape} and scores {scores.shape}; expected gold of shape (L,) "
            "and scores (..., L)."
        )
    if gold.size < 2:
        raise ValueError("Kendall's tau needs at least two items.")
    sg = pair_signs(gold).astype(np.int64)
    sx = pair_signs(scores)
    concordance = (sx * sg).sum(axis=-1, dtype=np.int64)
    untied_gold = np.count_nonzero(sg)
    untied_x = np.count_nonzero(sx, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt(float(untied_gold) * untied_x)
    bad = np.isnan(scores).any(axis=-1) | (untied_x == 0) | (untied_gold == 0)
    tau = np.where(bad, np.nan, tau)
    return tau


def ranking_matches(scores: ArrayLike, gold: ArrayLike) -> NDArray[np.bool_]:
    """Whether each ranking equals the gold ranking exactly.

    Every pair in the same order, ties where and only where the gold has ties: the match of
    convergence@n (Hariri et al., "Don't Pass@k", App. I.1).

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
    gold : array_like, shape ``(L,)``

    Returns
    -------
    ndarray of bool, shape ``(...)``
        NaN scores never match.
    """
    scores = np.asarray(scores, dtype=float)
    sg = pair_signs(gold)
    same = (pair_signs(scores) == sg).all(axis=-1)
    return same & ~np.isnan(scores).any(axis=-1)
