r"""Credits and unbiased point estimates of the Pass@k family.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix H, eqs. 21-24. Every member scores a question by a credit :math:`A_j` for exactly
``j`` successes among ``k`` attempts (the table in :mod:`bayes_eval.pass_family`); its
unbiased estimate from N trials with c successes draws k of the N trials without replacement:

.. math:: \hat g_\alpha = \sum_{j=0}^{k} A_j\,\mathrm{Hyp}(j; N_\alpha, c_\alpha, k),
          \qquad \widehat{\mathrm{metric}} = \frac1M\sum_\alpha \hat g_\alpha

(Chen et al., "Evaluating Large Language Models Trained on Code", for Pass@k). The work is
done once per distinct ``(N_alpha, c_alpha)`` state and gathered back. The public names are
re-exported by :mod:`bayes_eval.pass_family`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import hypergeom

from bayes_eval.bayes_at_n import Estimate, _out
from bayes_eval.inputs import BINARY_HINT, check_k, check_tau, tally

__all__ = [
    "g_pass_at_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "pass_at_k",
    "pass_hat_k",
    "tau_threshold",
]

_CHUNK = 2**21  # elements per chunk of (states x terms) work arrays


# --------------------------------------------------------------------------- credits


def tau_threshold(tau: float, k: int) -> int:
    r"""Smallest success count ``j0 = max(1, ceil(tau k))`` of G-Pass@k_tau.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 23. The ceiling is taken on the *intended* rational: when ``tau`` is the float
    nearest to ``j/k`` (``0.28 * 25 = 7.000000000000001`` in floating point) the threshold is
    ``j``, not ``j + 1``. scorio 0.2.3 uses the same rule; earlier scorio used
    ``math.ceil(tau * k)``.

    Parameters
    ----------
    tau : float
        Threshold in (0, 1].
    k : int
        Attempts, ``k >= 1``.

    Returns
    -------
    int
        ``j0`` in ``1..k``.
    """
    j = math.ceil(tau * k)
    if j > 1 and (j - 1) / k >= tau:
        j -= 1
    elif j / k < tau:
        j += 1
    return max(1, min(j, k))


def _threshold_credit(k: int, j0: int) -> NDArray[np.float64]:
    """Credit ``A_j = 1[j >= j0]``, ``j = 0..k`` (Pass@k: j0 = 1, Pass^k: j0 = k; eqs. 21-23)."""
    credit = np.zeros(k + 1)
    credit[j0:] = 1.0
    return credit


def _mg_credit(k: int) -> NDArray[np.float64]:
    """Credit ``A_j = (2/k) max(j - m, 0)``, ``m = ceil(k/2)``, of mG-Pass@k (eq. 24)."""
    m = (k + 1) // 2
    return (2.0 / k) * np.maximum(np.arange(k + 1) - m, 0.0)


# --------------------------------------------------------------------------- data


def _binary(R, mask):
    t, _ = tally(R, mask=mask, n_categories=2, label_hint=BINARY_HINT)
    return t


def _states(n: NDArray, c: NDArray):
    """Distinct ``(N_alpha, c_alpha)`` pairs and the inverse index."""
    key = n.astype(np.int64) * (int(n.max()) + 1) + c
    uniq, inverse = np.unique(key.ravel(), return_inverse=True)
    un = uniq // (int(n.max()) + 1)
    uc = uniq % (int(n.max()) + 1)
    return un, uc, inverse.reshape(n.shape)


def _aggregate(values: NDArray, inverse: NDArray):
    """Mean over questions (last axis) of per-state values."""
    return values[inverse].mean(axis=-1)


# --------------------------------------------------------------------------- point estimates


def _point(R, k, credit_fn, mask):
    t = _binary(R, mask)
    n, c = t.n_trials, t.counts[..., 1]
    k = check_k(k, n)
    credit = credit_fn(k)
    un, uc, inv = _states(n, c)
    nz = np.flatnonzero(credit)
    if nz.size and np.all(credit[nz[0] :] == 1.0):
        values = hypergeom.sf(nz[0] - 1, un, uc, k)  # P(X >= j0)
    else:
        j = np.arange(k + 1)
        values = np.empty(un.size)
        step = max(1, _CHUNK // (k + 1))
        for s in range(0, un.size, step):
            pmf = hypergeom.pmf(j[None, :], un[s : s + step, None], uc[s : s + step, None], k)
            values[s : s + step] = pmf @ credit
    return _out(_aggregate(np.asarray(values, dtype=float), inv))


def pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased Pass@k, the probability that at least one of k attempts succeeds.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 21; the estimator of Chen et al., "Evaluating Large Language Models Trained on
    Code":

    .. math:: \mathrm{Pass@}k = \frac1M\sum_\alpha 1 - \binom{N-c_\alpha}{k}\Big/\binom{N}{k}

    This is the unbiased estimate of the metric of the observed questions, not the posterior
    mean that :func:`~bayes_eval.pass_family.pass_at_k_ci` returns (see
    :mod:`bayes_eval.pass_family` for the difference).

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
    k : int
        ``1 <= k <= N`` (the smallest per-question trial count when trials are masked).
    mask : array_like of bool, optional, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    float, or ndarray of shape ``(L,)``

    Examples
    --------
    >>> import numpy as np
    >>> round(pass_at_k(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), 2), 6)
    0.95
    """
    return _point(R, k, lambda kk: _threshold_credit(kk, 1), mask)


def pass_hat_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased Pass^k, the probability that k attempts all succeed.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 22; the metric of Yao et al., "tau-bench: A Benchmark for Tool-Agent-User
    Interaction in Real-World Domains":

    .. math:: \mathrm{Pass}^k = \frac1M\sum_\alpha \binom{c_\alpha}{k}\Big/\binom{N}{k}

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
    """
    return _point(R, k, lambda kk: _threshold_credit(kk, kk), mask)


def g_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    """G-Pass@k, the tau = 1 member of App. H eq. 23: identical to :func:`pass_hat_k`.

    scorio's alias (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
    Model Evaluation", App. H). Parameters and returns as :func:`pass_at_k`.
    """
    return pass_hat_k(R, k, mask=mask)


def g_pass_at_k_tau(R: ArrayLike, k: int, tau: float, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased G-Pass@k_tau, the probability that at least ``j0`` of k attempts succeed.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 23; the metric of Liu et al., "Are Your LLMs Capable of Stable Reasoning?":

    .. math:: \frac1M\sum_\alpha \sum_{j=j_0}^{k}
              \frac{\binom{c_\alpha}{j}\binom{N-c_\alpha}{k-j}}{\binom{N}{k}},
              \qquad j_0 = \max(1, \lceil \tau k\rceil)

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.
    tau : float
        Threshold in (0, 1]; see :func:`tau_threshold` for the exact ceiling.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
    """
    tau = check_tau(tau)
    return _point(R, k, lambda kk: _threshold_credit(kk, tau_threshold(tau, kk)), mask)


def mg_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased mG-Pass@k, the discrete area of G-Pass@k_tau over tau in [0.5, 1].

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 24 (Liu et al., "Are Your LLMs Capable of Stable Reasoning?"):

    .. math:: \frac{2}{k}\sum_{i=m+1}^{k}\mathrm{G\text{-}Pass@}k_{i/k}
              = \frac1M\sum_\alpha \sum_j \frac{2}{k}\max(j-m, 0)\,\mathrm{Hyp}(j; N, c_\alpha, k),
              \qquad m = \lceil k/2\rceil

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
    """
    return _point(R, k, _mg_credit, mask)
