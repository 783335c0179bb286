r"""The fit of the learned prior: the hyperposterior's mode and its quadrature nodes.

For the model of :mod:`bayes_eval.posteriors.priors`: Newton's method on the log
hyperposterior of :math:`\eta = \log a` (``_newton``, vectorised over the groups, with
Levenberg damping and step halving), then the nodes and weights that integrate over it
(``_integrate``: a Gauss-Hermite product grid on the Laplace approximation, or a Sobol
sample beyond five categories, reweighted by the exact ratio of the posterior to the
Gaussian), and a fine trapezoid grid of one group's hyperposterior for the exact intervals
(``_fine_grid``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from bayes_eval.posteriors.prior_likelihood import (
    _derivatives,
    _hyper,
    _hyper_value,
    _KappaPrior,
    _loglik_nodes,
    _objective,
    _sum_last,
)
from bayes_eval.posteriors.prior_statistics import _coarsen, _compress, _Data, _select

__all__: list[str] = []

_WIDEN = 1.5  # scale of the Sobol sample (many categories) relative to the Laplace sd
#: Gauss-Hermite points per dimension of log a, by the number of categories K, on the Laplace
#: approximation itself (not widened: a product rule widened by 1.5 erred by up to 4e-2
#: posterior sd on the mean and 3% on the sd, against a 31-point rule; these rules by at most
#: 1e-3 sd and 0.2%, tests/posteriors/test_quadrature_rules.py)
_NODES_PER_DIM = {2: 11, 3: 7, 4: 5, 5: 3}
#: where the hyperposterior is narrow, close to its Laplace approximation: every group has
#: _NARROW_QUESTIONS questions with data and _MINORITY counts in each category (one category
#: (almost) empty leaves the concentration unidentified and the hyperposterior skewed)
_NODES_PER_DIM_NARROW = {2: 7, 3: 5, 4: 3, 5: 3}
_NARROW_QUESTIONS = 100  # questions with data in the smallest group
_MINORITY = 3.0  # counts of the rarest category of any group
_NODE_WEIGHT_FLOOR = 1e-10  # nodes below this normalised weight are dropped


def _definite(h: NDArray, floor: float) -> NDArray[np.bool_]:
    """Whether each symmetric matrix of ``h`` (G, K, K) has every eigenvalue above ``floor``.

    That is, whether ``h - floor I`` is positive definite, by Gaussian elimination without
    pivoting (every pivot positive: Sylvester's criterion), vectorised over the matrices (a
    batched eigendecomposition of small matrices costs several times more).
    """
    k = h.shape[-1]
    a = h - floor * np.eye(k)
    ok = np.ones(h.shape[0], dtype=bool)
    for i in range(k):
        piv = a[:, i, i]
        ok &= piv > 0.0
        if i + 1 < k:
            col = a[:, i + 1 :, i] / np.where(piv > 0.0, piv, 1.0)[:, None]
            a[:, i + 1 :, i + 1 :] -= col[:, :, None] * a[:, i, None, i + 1 :]
    return ok


def _newton(
    data: _Data, kappa_prior: _KappaPrior, max_iter: int = 100, tol: float = 1e-8
) -> tuple[NDArray, NDArray, NDArray[np.bool_]]:
    """Mode of the log posterior of eta for each group; returns eta, -Hessian, converged.

    Each iteration works on the groups not yet converged only (a converged group keeps its
    point, so its gradient, Hessian and verdict stay those it had).
    """
    g, k = data.pooled.shape
    # start: the pooled category proportions with kappa at the hyperprior median
    pooled = data.pooled
    p = (pooled + 0.5) / (pooled.sum(axis=-1, keepdims=True) + 0.5 * k)
    eta = np.log(p * np.asarray(kappa_prior[0], dtype=float)[..., None])
    lp = _objective(eta, data, kappa_prior)
    converged = np.zeros(g, dtype=bool)
    neg_h = np.tile(np.eye(k), (g, 1, 1))
    med, sd = (np.broadcast_to(np.asarray(x, dtype=float), (g,)) for x in kappa_prior)
    hyper = (med, sd)
    active = np.arange(g)  # the groups still iterating, and their data and hyperprior
    sub, sub_hyper = data, hyper
    for _ in range(max_iter):
        e, f = eta[active], lp[active]
        grad, hess = _derivatives(e, sub)
        _, hg, hh = _hyper(e, sub_hyper)
        grad = grad + hg
        neg_h[active] = h_act = -(hess + hh)
        done = np.abs(grad).max(axis=-1) < tol * (1.0 + np.abs(f))
        converged[active] = done
        if done.all():
            break
        if done.any():  # leave the converged groups
            keep = np.flatnonzero(~done)
            active, e, f, grad, h_act = active[keep], e[keep], f[keep], grad[keep], h_act[keep]
            sub = _select(sub, keep)
            sub_hyper = (sub_hyper[0][keep], sub_hyper[1][keep])
        n_act = active.size
        # Levenberg damping where -H is not positive definite (its least eigenvalue at most
        # 1e-8: computed only there)
        shift = np.zeros(n_act)
        weak = ~_definite(h_act, 1e-8)
        if weak.any():
            shift[weak] = 1e-3 - np.linalg.eigvalsh(h_act[weak])[:, 0]
        step = np.linalg.solve(h_act + shift[:, None, None] * np.eye(k), grad[..., None])[..., 0]
        # cap the step in log a: at most a factor e^3 per iteration
        big = np.abs(step).max(axis=-1, keepdims=True)
        step = step * np.minimum(1.0, 3.0 / np.maximum(big, 1e-300))
        t = np.ones(n_act)
        accepted = False
        for _ in range(30):
            trial = e + t[:, None] * step
            lp_trial = _objective(trial, sub, sub_hyper)
            ok = lp_trial >= f - 1e-12 * (1.0 + np.abs(f))
            if ok.all():
                accepted = True
                break
            t = np.where(ok, t, 0.5 * t)
        eta[active] = e = e + t[:, None] * step
        # the accepted trial is the new point: its objective is already known
        lp[active] = lp_trial if accepted else _objective(e, sub, sub_hyper)
    return eta, neg_h, converged


def _grid(k: int, per_dim: int | None = None) -> tuple[NDArray, NDArray]:
    """Standard-normal product grid (points (J, k), log weights (J,))."""
    if per_dim is not None:
        x, wt = np.polynomial.hermite_e.hermegauss(per_dim)
        wt = wt / wt.sum()
        mesh = np.stack(np.meshgrid(*([x] * k), indexing="ij"), axis=-1).reshape(-1, k)
        logw = sum(np.log(wt)[i] for i in np.meshgrid(*([np.arange(x.size)] * k), indexing="ij"))
        return mesh, np.asarray(logw).ravel()
    from scipy.stats import qmc

    # many categories: a deterministic scrambled Sobol sample of the normal (equal weights)
    u = qmc.Sobol(k, scramble=True, seed=20261123).random(256)
    from scipy.special import ndtri

    return ndtri(np.clip(u, 1e-12, 1 - 1e-12)), np.full(256, -math.log(256))


def _integrate(
    eta_hat: NDArray,
    neg_h: NDArray,
    data: _Data,
    kappa_prior: _KappaPrior,
    per_dim: int | None = None,
) -> tuple[NDArray, NDArray]:
    """Nodes (J, G, K) and normalised weights (J, G) of the hyperposterior."""
    k = eta_hat.shape[-1]
    if per_dim is None:
        narrow = data.questions.min() >= _NARROW_QUESTIONS and data.pooled.min() >= _MINORITY
        per_dim = (_NODES_PER_DIM_NARROW if narrow else _NODES_PER_DIM).get(k)
    z, log_gw = _grid(k, per_dim)
    cov = np.linalg.inv(neg_h)
    # the symmetric square root, not a Cholesky factor: the grid (and so the answer) is then
    # equivariant under a reordering of the categories (a Cholesky factor favoured one end of a
    # rubric: posterior means 0.02-0.2 posterior sd low with five categories)
    lam, vec = np.linalg.eigh(0.5 * (cov + np.swapaxes(cov, 1, 2)))
    root = (vec * np.sqrt(np.maximum(lam, 0.0))[:, None, :]) @ np.swapaxes(vec, 1, 2)
    # a product rule is not widened: its outer points already reach 3.2-6.6 sd, and a widened
    # grid's coarser spacing cost more than its reach gained, for every design measured
    # (README, "The learned prior"); the Sobol sample (one point per region) is
    widen = _WIDEN if per_dim is None else 1.0
    eta = eta_hat[None] + widen * np.einsum("gij,nj->ngi", root, z)  # (J, G, K)
    # how far the nodes reach from the mode in each log a_k (its bound for every group)
    reach = widen * np.abs(z).max() * np.abs(root).sum(axis=-1).max(axis=-1)
    a = np.exp(eta)
    log_s = np.log(_sum_last(a))
    coarse = _coarsen(data, a.min(axis=0))  # the atoms for the nodes' arguments only
    log_post = _loglik_nodes(eta, coarse, reach, a, log_s) + _hyper_value(eta, kappa_prior, log_s)
    log_phi = -0.5 * (z**2).sum(axis=-1)  # Gaussian density of the grid, up to constants
    logw = log_gw[:, None] + log_post - log_phi[:, None]
    logw -= logw.max(axis=0, keepdims=True)
    wts = np.exp(logw)
    wts /= wts.sum(axis=0, keepdims=True)
    keep = (wts > _NODE_WEIGHT_FLOOR).any(axis=1)
    wts = wts[keep]
    return a[keep], wts / wts.sum(axis=0, keepdims=True)


_FINE_SPACING = 0.3  # spacing of the fine grid, in Laplace sd
_FINE_POINTS = 4096  # largest fine grid (more categories: a coarser spacing)
_FINE_DROP = 32.0  # the box holds every point within this of the maximal log density
# largest log concentration the grid may hold: beyond it the Dirichlet-multinomial likelihood
# (differences of log-gammas of numbers ~a) loses about eps * a * log(a) to cancellation, 1e-4
# at a = 1e10 but hundreds at a = 1e17, where a scan of +-16 sd would find false maxima
_FINE_ETA_MAX = 23.0


def _fine_grid(
    counts: NDArray, alpha: NDArray, cov: NDArray, kappa_prior: _KappaPrior
) -> tuple[NDArray, NDArray] | None:
    r"""A fine trapezoid grid of the hyperposterior of one group, for the exact intervals.

    The Gauss-Hermite nodes of :func:`_integrate` integrate smooth functions of :math:`a`
    (the moments); a conditional CDF :math:`P(\bar\pi \le x \mid a)` is a steep function of
    :math:`a` when the concentration is large, which they resolve poorly. This grid has
    spacing 0.3 (Laplace sd, along the eigenvectors of ``cov``) over the box where the log
    hyperposterior is within 32 of its maximum (found on a scan of spacing 0.5 over
    :math:`\pm 16` sd), weights :math:`\propto p(\eta\mid n)` (the trapezoidal rule; the map to
    :math:`\eta` is linear), points below 1e-10 of the total dropped. Points with a
    concentration above :math:`e^{23} \approx 10^{10}` are left out: there the log-gamma
    differences of the likelihood lose to cancellation (about :math:`\epsilon\, a \log a`;
    with every question solved a scan reached :math:`a = 10^{17}` and found a false maximum
    there, hundreds above the true one); the grid is None when the mode itself lies beyond,
    or when the scan finds a point above the mode (``alpha`` not the global mode).

    Parameters
    ----------
    counts : ndarray, shape ``(M, K)``
        The counts the prior was fitted to (one group).
    alpha, cov : ndarray, shapes ``(K,)`` and ``(K, K)``
        The fitted mode :math:`e^{\hat\eta}` and the Laplace covariance of :math:`\eta`.
    kappa_prior : (float, float)
        The hyperprior the prior was fitted with.

    Returns
    -------
    (nodes, weights) or None
        Nodes ``(J, K)`` and weights ``(J,)``; None for more than two categories or when
        ``alpha`` is not the mode for ``counts`` (a prior fitted to other data, e.g. pooled
        over models).
    """
    k = alpha.size
    if k > 2:  # checked against a brute-force grid for two categories only
        return None
    data = _compress(counts[None])
    eta_hat = np.log(alpha)
    grad = _derivatives(eta_hat[None], data)[0] + _hyper(eta_hat[None], kappa_prior)[1]
    lp_hat = float(_objective(eta_hat[None], data, kappa_prior)[0])
    if np.abs(grad).max() > 1e-5 * (1.0 + abs(lp_hat)):
        return None
    val, vec = np.linalg.eigh(0.5 * (cov + cov.T))
    root = vec * np.sqrt(np.maximum(val, 1e-12))

    def log_post(z: NDArray) -> tuple[NDArray, NDArray]:
        eta = eta_hat + z @ root.T
        return eta, _objective(eta[:, None, :], data, kappa_prior)[:, 0]

    def mesh(axes: list[NDArray]) -> NDArray:
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, k)

    if eta_hat.max() > _FINE_ETA_MAX:
        return None
    scan = np.linspace(-16.0, 16.0, {2: 65, 3: 27, 4: 13, 5: 9}[k])
    z = mesh([scan] * k)
    eta, lp = log_post(z)
    z, lp = z[eta.max(axis=1) <= _FINE_ETA_MAX], lp[eta.max(axis=1) <= _FINE_ETA_MAX]
    if lp.max() > lp_hat + 1e-6 * (1.0 + abs(lp_hat)):
        return None
    inside = z[lp > lp.max() - _FINE_DROP]
    pad = scan[1] - scan[0]
    lo, hi = inside.min(axis=0) - pad, inside.max(axis=0) + pad
    spacing = max(_FINE_SPACING, float(np.prod(hi - lo) / _FINE_POINTS) ** (1.0 / k))
    z = mesh([np.arange(a, b + spacing / 2, spacing) for a, b in zip(lo, hi, strict=True)])
    eta, lp = log_post(z)
    eta, lp = eta[eta.max(axis=1) <= _FINE_ETA_MAX], lp[eta.max(axis=1) <= _FINE_ETA_MAX]
    wts = np.exp(lp - lp.max())
    keep = wts > 1e-10 * wts.sum()
    return np.exp(eta[keep]), wts[keep] / wts[keep].sum()


#: questions' worth of weight the likelihood's concentration keeps against the within-question
#: moment (``_match_within``): the moment's weight is M2 / (M2 + 5) for M2 questions with
#: repeated trials
_WITHIN_M0 = 5.0
#: bounds of the within-question variance over its Dirichlet maximum, kappa / (kappa + 1)
_WITHIN_RATIO = (0.02, 0.98)
#: mean trials per question up to which the moment takes its full weight (beyond: times 4 / N)
_WITHIN_TRIALS = 4.0
#: standard errors of the moment within which the likelihood's concentration is kept
_WITHIN_SLACK = 0.5
#: fewest questions with repeated trials for the moment to be used
_WITHIN_MIN_QUESTIONS = 10
#: largest factor by which the moment's uncertainty widens the spread in log kappa
_WITHIN_MAX_WIDEN = 3.0


class _Within(NamedTuple):
    """The within-question moment of each group (``_within_moment``)."""

    log_kappa: NDArray  # log kappa_W, from the clipped ratio
    se_log: NDArray  # its delta-method standard error
    omega: NDArray  # the moment's weight
    active: NDArray  # where it is used
    low: NDArray  # the ratio was clipped at its lower bound (kappa_W at most its value)
    high: NDArray  # ... at its upper bound (kappa_W at least its value)


def _within_moment(counts: NDArray, w: NDArray, beta: NDArray) -> _Within:
    """The moment kappa_W of each group, its standard error and weight (``_match_within``)."""
    total = counts.sum(axis=-1)  # (G, M)
    rep = total >= 2
    m2 = rep.sum(axis=-1)
    s1, s2 = counts @ w, counts @ (w * w)
    denom = np.where(rep, total - 1.0, 1.0)
    var = np.where(rep, (s2 - s1 * s1 / np.where(rep, total, 1.0)) / denom, 0.0)
    var = np.maximum(var, 0.0)  # rounding
    within = var.sum(axis=-1) / np.maximum(m2, 1)
    span = float(w.max() - w.min())
    v_beta = beta @ (w * w) - (beta @ w) ** 2
    whole = np.all(counts == np.round(counts), axis=(-2, -1))  # no discounted earlier runs
    spread = np.sqrt(
        np.where(rep, (var - within[:, None]) ** 2, 0.0).sum(axis=-1) / np.maximum(m2 - 1, 1)
    )
    # every question's trials agreeing (within = 0) says nothing about the moment's noise
    active = (m2 >= _WITHIN_MIN_QUESTIONS) & (v_beta > 1e-12 * span * span) & whole
    active &= spread > 0
    raw = within / np.where(active, v_beta, 1.0)
    ratio = np.clip(raw, *_WITHIN_RATIO)
    se = spread / np.sqrt(np.maximum(m2, 1)) / np.where(active, v_beta, 1.0)
    mean_trials = np.where(rep, total, 0.0).sum(axis=-1) / np.maximum(m2, 1)
    omega = m2 / (m2 + _WITHIN_M0) * np.minimum(1.0, _WITHIN_TRIALS / np.maximum(mean_trials, 1.0))
    return _Within(
        np.log(ratio / (1.0 - ratio)),
        se / (ratio * (1.0 - ratio)),
        omega,
        active,
        raw <= _WITHIN_RATIO[0],
        raw >= _WITHIN_RATIO[1],
    )


def _match_within(
    counts: NDArray, w: NDArray, alpha: NDArray, nodes: NDArray, cov: NDArray
) -> tuple[NDArray, NDArray, NDArray]:
    r"""Move the rubric prior's concentration to the score's within-question variance.

    Under :math:`\pi \sim \mathrm{Dir}(\kappa\beta)` one trial's score :math:`w_c` has
    within-question variance :math:`E[\sum_k w_k^2\pi_k - (w\cdot\pi)^2] = V_\beta\,
    \kappa/(\kappa + 1)`, :math:`V_\beta = \sum_k w_k^2\beta_k - (w\cdot\beta)^2`, and the
    integrated posterior's variance of :math:`\bar\pi\cdot w` is about that over N M (the law of
    total variance over the hyperparameters). With three or more categories one
    concentration also sets every category's spread, and where the category probabilities
    are bimodal the likelihood's :math:`\hat\kappa` overstates the score's within-question
    variance (intervals wider than the error). The questions with at least two trials
    estimate it without bias, :math:`\hat W = \mathrm{mean}_q\,s_q^2` (each question's sample
    variance of its trials' scores), so :math:`\hat r = \hat W / V_{\hat\beta}` gives
    :math:`\kappa_W = \hat r / (1 - \hat r)`, with a delta-method standard error
    :math:`s_W` of :math:`\log\kappa_W` (from the spread of the :math:`s_q^2`). Each group's
    nodes move along :math:`\log a \mapsto \log a + \delta\,\mathbf 1` (the mean
    :math:`\beta` of each node is kept) by the gap :math:`g = \log\kappa_W - \log\hat\kappa`
    beyond half a standard error, :math:`\delta = \omega\,\mathrm{sign}(g)\max(|g| - s_W/2,
    0)`, with :math:`\omega = M_2/(M_2 + 5) \cdot \min(1, 4/\bar N)` for the
    :math:`M_2 \ge 10` questions with repeated trials, :math:`\bar N` their mean trials (with
    many trials each question's posterior rests on its own trials and the family matters
    less). The spread in :math:`\log\kappa` about the mode widens from its Laplace sd
    :math:`\sqrt{\beta^\top\Sigma\beta}` to :math:`\omega s_W` where that is larger (at most
    three times; the nodes stay within :math:`|\log a_k| \le 23`). The mode and the Laplace
    covariance move with them (the plug-in prior, one node, moves as the integrated one's
    mode). Nothing moves where every question's trials agree (no estimate of the moment's
    noise), or with fractional counts (earlier runs discounted below 1, whose trials the
    counts no longer hold); a moment clipped at a bound of :math:`\hat r` moves the
    concentration only away from that bound.

    The constants were chosen on the coverage study's scenarios (``bayes-eval validate
    coverage``): two-mode, U-shaped, clustered and uniform category probabilities, three to
    five categories, M = 15-100, N = 2-16 (the Validation page, *Rubrics*); without the slack
    and the taper the moment undercovered where the Dirichlet is the true family.

    Parameters
    ----------
    counts : ndarray, shape ``(G, M, K)``
        The counts the prior was fitted to, per group.
    w : ndarray, shape ``(K,)``
        Rubric weights.
    alpha, nodes, cov : ndarray
        The fit: mode ``(G, K)``, nodes ``(J, G, K)``, covariance of
        :math:`\log a` ``(G, K, K)``.

    Returns
    -------
    alpha, nodes, cov
        Moved; a group with fewer than ten questions of repeated trials, or whose mean
        :math:`\hat\beta` gives every category one score, is left as it was.
    """
    beta = alpha / alpha.sum(axis=-1, keepdims=True)
    mom = _within_moment(counts, w, beta)
    if not mom.active.any():
        return alpha, nodes, cov
    log_mode = np.log(alpha.sum(axis=-1))  # (G,)
    # the Laplace sd of log kappa (d log kappa / d log a = beta): the same for the plug-in
    # prior (one node) and the integrated one
    sd_laplace = np.sqrt(np.maximum(np.einsum("gi,gij,gj->g", beta, cov, beta), 1e-24))
    widen = np.where(
        mom.active, np.clip(mom.omega * mom.se_log / sd_laplace, 1.0, _WITHIN_MAX_WIDEN), 1.0
    )
    gap = mom.log_kappa - log_mode
    # a clipped moment bounds kappa_W on one side only: no move towards the bound
    gap = np.where(mom.high, np.maximum(gap, 0.0), np.where(mom.low, np.minimum(gap, 0.0), gap))
    excess = np.sign(gap) * np.maximum(np.abs(gap) - _WITHIN_SLACK * mom.se_log, 0.0)
    shift = np.where(mom.active, mom.omega * excess, 0.0)
    log_a = np.log(nodes)  # (J, G, K)
    step = shift + (widen - 1.0) * (np.log(nodes.sum(axis=-1)) - log_mode)  # (J, G)
    # no node is moved beyond |log a| = 23, where the log-gamma differences lose their precision
    step = np.minimum(step, np.maximum(_FINE_ETA_MAX - log_a.max(axis=-1), 0.0))
    step = np.maximum(step, np.minimum(-_FINE_ETA_MAX - log_a.min(axis=-1), 0.0))
    moved = np.exp(log_a + step[..., None])
    # log a -> log a + 1 (widen - 1) beta' (log a - log a_hat) near the mode
    jac = np.eye(alpha.shape[-1]) + (widen - 1.0)[:, None, None] * beta[:, None, :]
    return alpha * np.exp(shift)[:, None], moved, jac @ cov @ np.swapaxes(jac, 1, 2)
