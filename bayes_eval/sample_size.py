r"""Sample-size planning: how many trials separate two models (seed 000, App. D).

Under the posterior of eq. 15, question :math:`\alpha` contributes
:math:`V_\alpha/(T_\alpha + 1)` to :math:`M^2\sigma^2`, with
:math:`V_\alpha = \sum_j p_{\alpha j}(w_j - \bar w_\alpha)^2` and :math:`p = \nu/T`. If ``n`` more
trials per question keep the observed category proportions (the plug-in assumption), then
:math:`V_\alpha` is unchanged and

.. math:: \sigma^2(n) = \frac{1}{M^2}\sum_\alpha \frac{V_\alpha}{T_\alpha + n + 1},
          \qquad z(n) = \frac{|\mu_a - \mu_b|}{\sqrt{\sigma_a^2(n) + \sigma_b^2(n)}}.

:func:`trials_to_separate` returns the smallest total number of trials per question whose
projected z reaches the target (1.645 for 95% ranking confidence, 1.96 for 97.5%). In the
paper's biased-coin study LLM9 vs LLM10 needed about N = 199 and N = 285 (App. D); the
result here depends on the observed gap, which is itself uncertain at small N.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from bayes_eval.bayes_at_n import dirichlet_posterior

__all__ = ["SeparationPlan", "projected_z", "trials_to_separate"]

_MAX_TRIALS = 10**9


@dataclass(frozen=True)
class SeparationPlan:
    """Result of :func:`trials_to_separate`.

    Attributes
    ----------
    z_now : float
        z-score with the current data.
    n_now : int
        Current trials per question (the larger N of the two models).
    n_required : int or None
        Total trials per question reaching ``z_target`` (``None`` if the means are equal).
    extra_trials : int or None
        ``n_required - n_now`` (0 if already separated).
    z_target : float
    """

    z_now: float
    n_now: int
    n_required: int | None
    extra_trials: int | None
    z_target: float


def _projection(R, w, R0, alpha0):
    post = dirichlet_posterior(R, w, R0, alpha0=alpha0)
    if post.nu.ndim != 2:
        raise ValueError("expected the results of one model, shape (M, N).")
    mean, var = post.question_moments()
    total = post.total
    v = var * (total + 1.0)  # V_alpha
    mu = post.w[0] + mean.mean()
    return mu, v, total, mean.size, int(post.tally.n_trials.max())


def _sigma2(v, total, m, extra):
    return (v / (total + extra + 1.0)).sum() / m**2


def projected_z(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    extra_trials: int = 0,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike = 1.0,
) -> float:
    """z-score expected after ``extra_trials`` more trials per question (plug-in projection)."""
    mu_a, v_a, t_a, m_a, _ = _projection(R_a, w, R0_a, alpha0)
    mu_b, v_b, t_b, m_b, _ = _projection(R_b, w, R0_b, alpha0)
    s2 = _sigma2(v_a, t_a, m_a, extra_trials) + _sigma2(v_b, t_b, m_b, extra_trials)
    diff = abs(mu_a - mu_b)
    return float(diff / np.sqrt(s2)) if s2 > 0 else (np.inf if diff > 0 else 0.0)


def trials_to_separate(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    z_target: float = 1.645,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike = 1.0,
) -> SeparationPlan:
    """Trials per question needed to separate two models at ``z_target`` (seed 000, App. D).

    Parameters
    ----------
    R_a, R_b : array_like of int, shape ``(M, N)``
        Current results of the two models (same rubric).
    w, R0_a, R0_b, alpha0
        As in :func:`bayes_eval.bayes`.
    z_target : float, keyword-only
        Target z-score (> 0).

    Returns
    -------
    SeparationPlan
    """
    if not (np.isfinite(z_target) and z_target > 0):
        raise ValueError(f"z_target is {z_target!r}; expected a positive number such as 1.645.")

    def z_at(extra: int) -> float:
        return projected_z(R_a, R_b, w, extra_trials=extra, R0_a=R0_a, R0_b=R0_b, alpha0=alpha0)

    n_now = max(_projection(R_a, w, R0_a, alpha0)[4], _projection(R_b, w, R0_b, alpha0)[4])
    z_now = z_at(0)
    if z_now >= z_target:
        return SeparationPlan(z_now, n_now, n_now, 0, z_target)
    if z_now == 0.0 or z_at(_MAX_TRIALS) < z_target:
        return SeparationPlan(z_now, n_now, None, None, z_target)
    lo, hi = 0, 1
    while z_at(hi) < z_target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # z(n) increases with n: bisection on integers
        mid = (lo + hi) // 2
        if z_at(mid) >= z_target:
            hi = mid
        else:
            lo = mid
    return SeparationPlan(z_now, n_now, n_now + hi, hi, z_target)
