r"""Prior elicitation: from statements about accuracy to Beta/Dirichlet priors (and back).

A statement "accuracy is between ``lo`` and ``hi`` with probability ``p``" becomes the Beta
prior whose equal-tailed ``p`` interval is ``[lo, hi]``: the two quantile equations
:math:`F(lo) = (1-p)/2`, :math:`F(hi) = (1+p)/2` are solved for :math:`(a, b)` on the log scale
(scipy). For a rubric, one statement per category gives the Dirichlet whose Beta marginals
:math:`\mathrm{Beta}(\alpha_k, A - \alpha_k)` match the statements in the least-squares sense.

The implied *prior depth* is how many earlier trials the prior is worth next to the paper's
uniform prior (seed 000, eq. 6: :math:`n^0 = 1 + \text{counts of } R^0`):
:math:`D = \sum_k \alpha_k - (C + 1)`; negative D means vaguer than uniform.

:func:`prior_predictive` draws pi-bar for M questions under the prior; :func:`sensitivity`
compares mu, sigma and ranks of real results under the uniform and the elicited prior.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike
from scipy import optimize
from scipy.stats import beta as beta_dist

from bayes_eval.bayes_at_n import bayes
from bayes_eval.ranking import rank

__all__ = ["ElicitedPrior", "elicit_beta", "elicit_dirichlet", "prior_predictive", "sensitivity"]


@dataclass(frozen=True)
class ElicitedPrior:
    """Dirichlet concentration ``alpha`` (Beta: ``(b, a)`` for categories 0, 1), the implied
    prior depth ``D`` and the achieved intervals per category."""

    alpha: np.ndarray
    depth: float
    achieved: np.ndarray  # (C + 1, 2) central intervals of the marginals at the stated probs

    def as_dict(self) -> dict:
        return {
            "alpha": self.alpha.tolist(),
            "depth": self.depth,
            "achieved": self.achieved.tolist(),
        }


def _check(lo: float, hi: float, prob: float) -> None:
    if not (0.0 < lo < hi < 1.0):
        raise ValueError(f"interval [{lo}, {hi}] must satisfy 0 < lo < hi < 1.")
    if not (0.0 < prob < 1.0):
        raise ValueError(f"probability is {prob!r}; expected a number in (0, 1).")


def elicit_beta(lo: float, hi: float, prob: float = 0.9) -> ElicitedPrior:
    """Beta prior on accuracy with ``P(lo <= p <= hi) = prob`` (equal tails).

    Returns the prior as a 2-category Dirichlet ``alpha = (b, a)`` (category 0 = fail).
    """
    _check(lo, hi, prob)
    q = np.array([(1 - prob) / 2, (1 + prob) / 2])

    def eqs(x):
        a, b = np.exp(x)
        return beta_dist.ppf(q, a, b) - np.array([lo, hi])

    mid = 0.5 * (lo + hi)
    # start from the Beta with the moments of a uniform-ish guess on [lo, hi]
    var = ((hi - lo) / 3.3) ** 2
    k = max(mid * (1 - mid) / var - 1, 0.5)
    sol = optimize.least_squares(eqs, np.log([mid * k, (1 - mid) * k]), xtol=1e-14, ftol=1e-14)
    a, b = np.exp(sol.x)
    achieved = beta_dist.ppf(q, a, b)
    if np.max(np.abs(achieved - [lo, hi])) > 1e-6:
        raise ValueError(
            f"no Beta prior has [{lo}, {hi}] as its central {prob:.0%} interval (closest: "
            f"[{achieved[0]:.4f}, {achieved[1]:.4f}]); widen the interval or lower the probability."
        )
    alpha = np.array([b, a])
    ach = np.array([beta_dist.ppf(q, b, a), achieved])
    return ElicitedPrior(alpha=alpha, depth=float(alpha.sum() - 2), achieved=ach)


def elicit_dirichlet(intervals: ArrayLike, prob: float = 0.9) -> ElicitedPrior:
    """Dirichlet prior from one ``[lo, hi]`` statement per category (probabilities of the
    categories, each with probability ``prob``), fitted by least squares on the quantiles."""
    iv = np.asarray(intervals, dtype=float)
    if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] < 2:
        raise ValueError(f"intervals has shape {iv.shape}; expected (C + 1, 2) with C >= 1.")
    for lo, hi in iv:
        _check(lo, hi, prob)
    if iv[:, 0].sum() > 1 or iv[:, 1].sum() < 1:
        raise ValueError("the category intervals cannot hold probabilities that sum to 1.")
    q = np.array([(1 - prob) / 2, (1 + prob) / 2])

    def resid(x):
        alpha = np.exp(x)
        total = alpha.sum()
        return np.concatenate(
            [beta_dist.ppf(q, a, total - a) - row for a, row in zip(alpha, iv, strict=True)]
        )

    mids = iv.mean(1)
    start = np.log(mids / mids.sum() * 10)
    sol = optimize.least_squares(resid, start, xtol=1e-12, ftol=1e-12)
    alpha = np.exp(sol.x)
    ach = np.array([beta_dist.ppf(q, a, alpha.sum() - a) for a in alpha])
    return ElicitedPrior(alpha=alpha, depth=float(alpha.sum() - alpha.size), achieved=ach)


def prior_predictive(
    prior: ElicitedPrior,
    w: ArrayLike | None = None,
    *,
    n_questions: int = 30,
    draws: int = 20_000,
    seed: int = 0,
) -> dict:
    """Prior predictive distribution of pi-bar for M questions (each pi ~ Dir(alpha))."""
    w = np.linspace(0, 1, prior.alpha.size) if w is None else np.asarray(w, float)
    rng = np.random.default_rng(seed)
    pi_bar = (rng.dirichlet(prior.alpha, size=(draws, n_questions)) @ w).mean(-1)
    per_q = rng.dirichlet(prior.alpha, size=draws) @ w
    qs = [0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975]
    return {
        "n_questions": n_questions,
        "pi_bar_quantiles": dict(
            zip(map(str, qs), np.quantile(pi_bar, qs).round(4).tolist(), strict=True)
        ),
        "pi_bar_mean": round(float(pi_bar.mean()), 4),
        "pi_bar_sd": round(float(pi_bar.std()), 4),
        "question_score_quantiles": dict(
            zip(map(str, qs), np.quantile(per_q, qs).round(4).tolist(), strict=True)
        ),
    }


def sensitivity(
    R: ArrayLike, prior: ElicitedPrior, w: ArrayLike | None = None, *, models=None
) -> xr.Dataset:
    """mu, sigma and competition ranks of L models under the uniform and the elicited prior."""
    R = np.asarray(R)
    if R.ndim != 3:
        raise ValueError(f"R has shape {R.shape}; expected (L, M, N).")
    if w is None and prior.alpha.size != 2:
        raise ValueError("a rubric prior needs the weights w.")
    mu_u, s_u = bayes(R, w)
    mu_e, s_e = bayes(R, w, alpha0=prior.alpha)
    names = list(models) if models is not None else [f"model_{i}" for i in range(R.shape[0])]
    return xr.Dataset(
        {
            "mu": (("prior", "model"), np.stack([mu_u, mu_e])),
            "sigma": (("prior", "model"), np.stack([s_u, s_e])),
            "rank": (("prior", "model"), np.stack([rank(mu_u), rank(mu_e)])),
        },
        coords={"prior": ["uniform", "elicited"], "model": names},
        attrs={"alpha": prior.alpha.tolist(), "depth": prior.depth},
    )
