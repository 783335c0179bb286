r"""Kendall's tau_b and the exact match of many rankings with one gold ranking, by pair counts.

The kernel both scoring paths of :func:`bayes_eval.ranking.convergence.stability` end in.
Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", App.
I.1: with :math:`n_0 = L(L-1)/2` pairs of models, :math:`n_1, n_2` of them tied in the gold and
in the compared ranking,

.. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

(Kendall, "The treatment of ties in ranking problems"), and a ranking matches the gold one when
every pair is in the same order or tied in both. The models are sorted by their gold score once
(``_Gold``), so the pairs of a ranking are compared offset by offset over all rankings at
once (``_agreement``): the same numbers as comparing all pair signs
(:func:`bayes_eval.ranking.convergence.kendall_tau_b`,
:func:`~bayes_eval.ranking.convergence.ranking_matches`), without an ``(rankings, pairs)``
array of signs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []

#: Per block of b replicates: tau and the exact-match flags of every method, each
#: ``(methods, b, N)``, and per method a function giving replicate j's scores ``(N, L)``.
_BlockResults = tuple[NDArray, NDArray, list[Callable[[int], NDArray]]]


class _Gold(NamedTuple):
    """The gold ranking as the agreement kernel reads it.

    It holds the models sorted by their gold score (``order``), the gold sign of every pair
    ``(a, a + d)`` of sorted models, offset by offset (``w``: 1 when strictly ordered, 0 when
    tied) and the number of untied pairs.
    """

    order: NDArray[np.intp]
    w: NDArray[np.float64]
    untied: float


def _agreement(xt: NDArray, gold: _Gold) -> tuple[NDArray, NDArray]:
    """Kendall tau_b with the gold ranking and exact-match flags of many rankings.

    ``xt`` holds one ranking per column, ``(L, V)``, its rows the models in gold order
    (``gold.order``). With the models sorted by gold score, the pairs ``(a, a + d)`` of
    offset ``d`` compare two row blocks, so the L(L-1)/2 pairs of every ranking are written
    as two boolean arrays (``x_{a+d} > x_a`` and ``<``) by L - 1 comparisons each (a loop
    over offsets, not over data). Counting them gives, per ranking, the untied pairs
    (``n_0 - n_2`` in the module docstring's notation) and the concordance ``n_c - n_d``
    (gold-tied pairs count for neither). A ranking matches the gold one exactly when every
    gold-untied pair is concordant and no other pair is untied:
    ``n_c - n_d = n_0 - n_1 = n_0 - n_2``. Same numbers as comparing all pair signs
    (:func:`kendall_tau_b`, :func:`ranking_matches`); NaN scores (no ranking) give NaN and
    no match.
    """
    L, V = xt.shape
    pairs = L * (L - 1) // 2
    gt = np.empty((pairs, V), dtype=bool)
    lt = np.empty((pairs, V), dtype=bool)
    o = 0
    for d in range(1, L):
        np.greater(xt[d:], xt[:-d], out=gt[o : o + L - d])
        np.less(xt[d:], xt[:-d], out=lt[o : o + L - d])
        o += L - d
    count = _pair_count if pairs < 256 else _pair_count_wide
    n_gt, n_lt = count(gt), count(lt)
    untied = n_gt + n_lt
    conc = n_gt - n_lt
    tied = gold.w == 0
    if tied.any():  # gold-tied pairs are neither concordant nor discordant
        conc = conc - count(gt[tied]) + count(lt[tied])
    nan = np.isnan(xt).any(axis=0) if xt.dtype.kind == "f" else np.zeros(V, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = conc / np.sqrt(gold.untied * untied)
    tau = np.where(nan | (untied == 0) | (gold.untied == 0), np.nan, tau)
    match = ~nan & (conc == gold.untied) & (untied == gold.untied)
    return tau, match


def _pair_count(flags: NDArray[np.bool_]) -> NDArray[np.int64]:
    """True flags per column of a ``(pairs, V)`` boolean array, ``pairs < 256``.

    The flags are summed as bytes (no cast per element), then widened.
    """
    return np.add.reduce(flags.view(np.uint8), axis=0, dtype=np.uint8).astype(np.int64)


def _pair_count_wide(flags: NDArray[np.bool_]) -> NDArray[np.int64]:
    """True flags per column of a ``(pairs, V)`` boolean array, any number of pairs."""
    return np.count_nonzero(flags, axis=0).astype(np.int64)
