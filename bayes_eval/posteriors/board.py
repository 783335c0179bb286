r"""The concentration of each model's learned prior, informed by the leaderboard it sits on.

With one trial per question (most leaderboards: lm-eval, HELM, LiveBench) one model's results
do not identify the concentration :math:`\kappa` of its per-question prior
:math:`\pi_{q} \sim \mathrm{Beta}(\kappa m, \kappa(1 - m))`: a question's outcome is
Bernoulli with mean :math:`m` whatever :math:`\kappa` is, so the hyperprior's whole range passes
into the interval (too wide when the questions are alike, too narrow when they split into
always- and never-solved). The other models on the same questions do identify it: models
agree on easy and hard questions, and how much they agree measures how different the
questions are.

**Model.** A Rasch model with a random question effect (the crossed model of
:func:`bayes_eval.models.crossed_model`, integrated by quadrature instead of sampled):
:math:`\mathrm{logit}\,p_{lq} = \theta_l - b_q`, :math:`b_q \sim N(0, s^2)`. For each
:math:`s` on a grid, the abilities are profiled out,

.. math::
    \ell(s) = \max_\theta \sum_q \log \int \prod_l p_{lq}^{y_{lq}}(1 - p_{lq})^{1 - y_{lq}}
        \,\phi(b; 0, s^2)\,db,

with :math:`y_{lq} = k_{lq}/n_{lq}` the model's rate on the question (a quasi-likelihood of
one trial, so that the board step learns mainly from how the models agree and not from the
repetitions within a cell, which the per-model step uses; with N > 1 the rates still carry
some of a model's own spread across questions, used again in its own fit, which errs toward a
larger concentration, i.e. wider intervals; questions a model did not answer contribute
nothing; models that solved all or none of the shared questions, whose ability the board
cannot place, keep the hyperprior they came with), the integral by
Gauss-Hermite quadrature and the maximum by L-BFGS over every grid point at once. Given
:math:`s` and :math:`\theta_l`, model l's rates across questions are logit-normal, and the
Beta with the same mean and variance has

.. math::
    \kappa_l(s) = \frac{m_l(1 - m_l)}{v_l} - 1,\qquad
    m_l = E[\mathrm{expit}(\theta_l - b)],\ v_l = \mathrm{Var}[\mathrm{expit}(\theta_l - b)].

**Hyperprior.** The weights :math:`e^{\ell(s)}\,p_0(\log\kappa_l(s))` over the grid
(uniform in :math:`\log s`; :math:`p_0` the meta-analytic hyperprior
:data:`~bayes_eval.posteriors.priors.KAPPA_PRIOR`) give each model's
:math:`\log\kappa_l` a mean and sd; the log-normal with that median and sd (at least
:data:`SD_FLOOR`, for the step from a logit-normal to a Beta and for a model x question
interaction the board cannot see) is the hyperprior of that model's concentration in
:func:`~bayes_eval.posteriors.priors.fit_prior`. An interaction (question-specific strengths)
makes each model's rates more dispersed than the shared difficulty alone, so the board's
:math:`\kappa_l` is then too large: wider intervals, not narrower.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

__all__ = ["SD_FLOOR", "BoardConcentration", "board_concentration"]

#: smallest log-sd of a model's board-informed hyperprior on log kappa
SD_FLOOR = 0.3
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(31)
_LOG_WEIGHTS = np.log(_WEIGHTS / _WEIGHTS.sum())
#: bound on the profiled abilities (logit scale)
_THETA_BOUND = 12.0
#: grid of the question-difficulty sd s (logit scale)
_LOG_S = np.linspace(np.log(0.05), np.log(10.0), 28)


class BoardConcentration(NamedTuple):
    """What the board says about each model's concentration.

    Attributes
    ----------
    median : ndarray, shape ``(L,)``
        Median of the log-normal hyperprior of each model's concentration.
    log_sd : ndarray, shape ``(L,)``
        Its log-sd (at least :data:`SD_FLOOR`).
    difficulty_sd : float
        Posterior mean of the question-difficulty sd s on the logit scale.
    models_used : int
        Models with at least one answered question (the board's size).
    """

    median: NDArray[np.float64]
    log_sd: NDArray[np.float64]
    difficulty_sd: float
    models_used: int


def _neg_profile(theta_flat: NDArray, y: NDArray, n: NDArray, s: NDArray):
    """Minus the summed marginal log likelihood over the s grid, and its gradient in theta."""
    theta = theta_flat.reshape(s.size, -1)  # (S, L)
    eta = theta[:, None, :] - s[:, None, None] * _NODES[None, :, None]  # (S, J, L)
    ll = log_expit(eta) @ y + log_expit(-eta) @ (n - y)  # (S, J, M)
    tot = _LOG_WEIGHTS[None, :, None] + ll
    lse = logsumexp(tot, axis=1)  # (S, M)
    post = np.exp(tot - lse[:, None, :])  # posterior of the node, per question
    grad = post.sum(axis=1) @ y.T - (expit(eta) * (post @ n.T)).sum(axis=1)  # (S, L)
    return -float(lse.sum()), -grad.ravel()


def board_concentration(
    counts: NDArray, kappa_prior: tuple[float, float], *, sd_floor: float = SD_FLOOR
) -> BoardConcentration | None:
    r"""Each model's hyperprior on its concentration, learned from the board (module docstring).

    Parameters
    ----------
    counts : ndarray, shape ``(L, M, 2)``
        Binary counts (failures, successes) per model and question; fractional counts allowed,
        questions without trials ignored.
    kappa_prior : (float, float) or (array, array)
        Median and log-sd of the hyperprior on the concentration before the board is seen
        (numbers, or one per model).
    sd_floor : float, keyword-only
        Smallest log-sd returned.

    Returns
    -------
    BoardConcentration or None
        ``None`` when the board cannot say anything: fewer than two models answered a common
        question, or the data are not binary.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 3 or counts.shape[-1] != 2:
        return None
    n_models = counts.shape[0]
    med0, sd0 = (np.broadcast_to(np.asarray(x, dtype=float), (n_models,)) for x in kappa_prior)
    total = counts.sum(axis=-1)  # (L, M)
    answered = total > 0
    shared = answered.sum(axis=0) >= 2  # questions at least two models answered
    # a model that solved all or none of the shared questions has an unbounded ability: the
    # board cannot place it, so it keeps the hyperprior it came with
    wins = np.where(answered[:, shared], counts[:, shared, 1], 0.0).sum(axis=1)
    losses = np.where(answered[:, shared], counts[:, shared, 0], 0.0).sum(axis=1)
    models = answered[:, shared].any(axis=1) & (wins > 0) & (losses > 0)
    if shared.sum() < 2 or models.sum() < 2:
        return None
    n = answered[models][:, shared].astype(float)
    y = np.where(
        n > 0,
        counts[models][:, shared, 1] / np.where(total > 0, total, 1.0)[models][:, shared],
        0.0,
    )
    s = np.exp(_LOG_S)
    rate = (y.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    start = np.tile(np.log(rate / (1.0 - rate)), (s.size, 1))
    fit = minimize(
        _neg_profile,
        start.ravel(),
        args=(y, n, s),
        jac=True,
        method="L-BFGS-B",
        bounds=[(-_THETA_BOUND, _THETA_BOUND)] * start.size,
        options={"maxiter": 500},
    )
    if not np.isfinite(fit.fun):
        return None
    theta = fit.x.reshape(s.size, -1)
    eta = theta[:, None, :] - s[:, None, None] * _NODES[None, :, None]
    ll = log_expit(eta) @ y + log_expit(-eta) @ (n - y)
    profile = logsumexp(_LOG_WEIGHTS[None, :, None] + ll, axis=1).sum(axis=-1)  # (S,)
    p = expit(eta)
    wz = (_WEIGHTS / _WEIGHTS.sum())[None, :, None]
    mean = (wz * p).sum(axis=1)
    var = np.maximum((wz * p * p).sum(axis=1) - mean**2, 1e-300)
    log_kappa = np.log(np.maximum(mean * (1.0 - mean) / var - 1.0, 1e-8))  # (S, L_used)
    log_w = profile[:, None] - 0.5 * ((log_kappa - np.log(med0[models])) / sd0[models]) ** 2
    wts = np.exp(log_w - log_w.max(axis=0))
    wts /= wts.sum(axis=0)
    centre = (wts * log_kappa).sum(axis=0)
    spread = np.sqrt((wts * (log_kappa - centre) ** 2).sum(axis=0))
    # models that answered no shared question keep the hyperprior they came with
    median, log_sd = med0.copy(), sd0.copy()
    median[models] = np.exp(centre)
    log_sd[models] = np.maximum(spread, sd_floor)
    w_s = np.exp(profile - profile.max())
    return BoardConcentration(median, log_sd, float((w_s * s).sum() / w_s.sum()), int(models.sum()))
