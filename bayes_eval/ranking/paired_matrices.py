"""The new-questions matrices of :mod:`bayes_eval.ranking.paired`, questions drawn independently.

``P(row better than column)`` for every pair of models on the population of questions, given
the prior masses of the two corners that decide a comparison (``_Prior``, one row per
hyperparameter node of a learned prior): the paired matrix from each pair's joint posterior on
the questions both answered (``_paired``: the Beta formula for binary results, the
Bayesian bootstrap of the differences otherwise), the independent one from each model's own
posterior of its mean score (``_independent``). The model is in the docstring of
:mod:`bayes_eval.ranking.paired`; the exact computations are
:mod:`bayes_eval.ranking.paired_exact`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.special import betainc, ndtr

from bayes_eval.ranking.paired_exact import _GRID, _levels, _model_cdfs, _sign_probs

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []


class _Prior(NamedTuple):
    """Corner masses per node, shape (J, 2), their weights (J,), and the label."""

    masses: NDArray[np.float64]
    weights: NDArray[np.float64]
    label: str


def _heaviest(prior: _Prior, limit: int) -> _Prior:
    """The heaviest nodes holding all but 1e-3 of the weight, at most ``limit``, renormalised.

    Exact paths cost one computation per node.
    """
    if prior.weights.size <= limit:
        return prior
    n = min(limit, int(np.searchsorted(np.cumsum(prior.weights), 1.0 - 1e-3)) + 1)
    wts = prior.weights[:n] / prior.weights[:n].sum()
    return _Prior(prior.masses[:n], wts, prior.label)


def _independent(
    scores: NDArray, answered: NDArray, prior: _Prior, exact_levels: int
) -> tuple[NDArray, bool]:
    """P(row > column) from each model's own posterior (:mod:`bayes_eval.ranking.paired`)."""
    n = scores.shape[0]
    own = [scores[i, answered[i]] for i in range(n)]
    exact = all(np.unique(np.round(x, 12)).size + 2 <= exact_levels for x in own)
    out = np.full((n, n), np.nan)
    if not exact:  # normal approximation with the exact moments, per node
        mom = []
        for x in own:
            levels, counts = _levels(x)
            nu = np.concatenate([np.repeat(counts[None], len(prior.masses), 0), prior.masses], 1)
            v = np.concatenate([levels, [1.0, 0.0]])
            total = nu.sum(axis=1)
            mean = nu @ v / total
            mom.append((mean, (nu @ v**2 / total - mean**2) / (total + 1.0)))
        mu, var = (np.stack(m) for m in zip(*mom, strict=True))  # (L, J)
        z = (mu[:, None] - mu[None]) / np.sqrt(var[:, None] + var[None])
        out = ndtr(z) @ prior.weights
        np.fill_diagonal(out, np.nan)
        return out, False
    laws = [_model_cdfs(x, prior.masses) for x in own]
    for j, (grid_j, cdf_j) in enumerate(laws):
        mid = 0.5 * (grid_j[1:] + grid_j[:-1])
        step = np.diff(cdf_j, axis=1) * prior.weights[:, None]  # (J, G - 1)
        below = cdf_j[:, 0] @ prior.weights  # mass under j's grid: F_i ~ 0 there
        for i in range(j):  # P(theta_i > theta_j) = E_j[1 - F_i(theta_j)], every node at once
            grid_i, cdf_i = laws[i]
            pos = np.clip((mid - grid_i[0]) / (grid_i[1] - grid_i[0]), 0.0, _GRID - 1.0)
            k = np.minimum(pos.astype(np.int64), _GRID - 2)
            frac = pos - k
            f_i = cdf_i[:, k] * (1.0 - frac) + cdf_i[:, k + 1] * frac
            f_i = np.where(mid < grid_i[0], 0.0, np.where(mid > grid_i[-1], 1.0, f_i))
            out[i, j] = float(((1.0 - f_i) * step).sum() + below)
            out[j, i] = 1.0 - out[i, j]
    return out, True


def _paired(
    scores: NDArray, answered: NDArray, prior: _Prior, exact_levels: int
) -> tuple[NDArray, str]:
    """P(row > column) from the joint posterior of each pair (:mod:`bayes_eval.ranking.paired`)."""
    n = scores.shape[0]
    out = np.full((n, n), np.nan)
    x = np.where(answered, scores, 0.0)
    binary = bool(np.all((x == 0) | (x == 1)))
    if binary:  # every d is -1, 0 or +1: the Beta formula, for all pairs at once
        only = x @ (answered & (x == 0)).T  # only[i, j]: questions i solved and j did not
        m_plus = only[..., None] + prior.masses[None, None, :, 0]
        m_minus = only.T[..., None] + prior.masses[None, None, :, 1]
        out = betainc(m_minus, m_plus, 0.5) @ prior.weights
        np.fill_diagonal(out, np.nan)
        return out, "exact"
    kinds: set[bool] = set()
    for i in range(n):
        for j in range(i + 1, n):
            both = answered[i] & answered[j]
            if not both.any():
                continue
            d = scores[i, both] - scores[j, both]
            levels, counts = _levels(np.concatenate([d, [-1.0, 1.0]]))
            counts = counts - np.isin(levels, (-1.0, 1.0))  # the corners are prior mass
            probs, exact = _sign_probs(levels, counts, prior.masses, exact_levels)
            kinds.add(exact)
            p = float(probs @ prior.weights)
            out[i, j], out[j, i] = p, 1.0 - p
    names: dict[tuple[bool, ...], str] = {(True,): "exact", (False,): "normal"}
    method = names.get(tuple(kinds), "exact and normal")
    return out, method if kinds else "exact"
