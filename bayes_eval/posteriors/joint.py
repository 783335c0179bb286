r"""The joint posterior of a leaderboard.

Every model's :math:`\bar\pi` comes from one model of the whole board.

Under a per-model prior the models are independent given the data, so a question one model
solved and another missed reads as a difference between them. On a leaderboard it is partly
noise: a question's difficulty is shared, and the other models' outcomes on it say how hard
it is. The board model keeps the paper's per-question Beta prior (Hariri et al., "Don't
Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.3 and App. C) and
learns its mean from the board:

.. math::
    k_{lq} \mid p_{lq} \sim \mathrm{Binomial}(n_{lq}, p_{lq}),\quad
    p_{lq} \sim \mathrm{Beta}\big(\kappa m_{lq}, \kappa(1 - m_{lq})\big),\quad
    m_{lq} = \mathrm{expit}(\theta_l - b_q),

:math:`\theta_l \sim N(\mu, \sigma^2)` (flat :math:`\mu`), :math:`b_q \sim N(0, s^2)`,
:math:`s \sim \mathrm{HalfNormal}(3)`, :math:`\sigma \sim \mathrm{HalfNormal}(2)`,
:math:`\log\kappa \sim N(\log 7, 1)`: a Rasch mean (ability minus difficulty) with a Beta
dispersion for everything the shared difficulty does not explain (a model x question
interaction). The per-model closed form is the special case :math:`b_q \equiv 0`. The
estimand is *these questions*, :math:`\bar\pi_l = \frac{1}{M_l}\sum_q p_{lq}` over the
questions model l answered.

**Computation** (the latent Gaussian strategy of Rue, Martino and Chopin, "Approximate
Bayesian inference for latent Gaussian models by using integrated nested Laplace
approximations", 2009). Given the hyperparameters :math:`\eta = (\log s, \log\sigma,
\log\kappa)`:

* the posterior of :math:`(\theta, b)` is found at its mode (Newton's method; the Hessian is
  a bipartite block matrix, solved through its L x L Schur complement :math:`S = A - B D^{-1}
  B^\top`), which gives the Laplace evidence; it is approximated by a Gaussian whose mean is
  the mode shifted for the posterior's skewness and whose covariance takes the curvature
  averaged over that Gaussian (one step towards the variational Gaussian, never more curved
  than the mode);
* given :math:`(\theta, b)` the cells are independent and
  :math:`p_{lq} \mid \cdot \sim \mathrm{Beta}(\kappa m_{lq} + k_{lq}, \kappa(1 - m_{lq}) +
  n_{lq} - k_{lq})`, so by the law of total covariance

  .. math::
      \mathrm{Cov}(\bar\pi) = E\big[\mathrm{diag}\,\textstyle\sum_q w_{lq}^2
      \mathrm{Var}(p_{lq} \mid x_{lq})\big] + \mathrm{Cov}\big(E[\bar\pi \mid \theta, b]\big),

  the first term and each cell's own part of the second averaged over the Gaussian law of
  :math:`x_{lq} = \theta_l - b_q` by Gauss-Hermite quadrature, the covariance between
  cells by the delta method (:math:`J \Sigma J^\top`, :math:`\Sigma` the inverse Hessian).

The hyperparameters: their posterior mode (Nelder-Mead on the Laplace evidence plus the
hyperprior, on at most 200 evenly spaced questions of a larger board, then a Newton step on
the whole board); :math:`\kappa` integrated by Gauss-Hermite quadrature along its conditional
line (refitting :math:`(\theta, b)` at each point, each point weighted by its Laplace evidence;
with one trial per cell the likelihood does not involve :math:`\kappa` and its posterior is its
prior, integrated exactly); the uncertainty of :math:`(s, \sigma)` adds
:math:`G\,\Sigma_\eta G^\top`, :math:`G` the derivative of the posterior means in them (Kass
and Steffey, "Approximate Bayesian inference in conditionally independent hierarchical
models", 1989). Where :math:`\log\sigma` is poorly determined (posterior sd above 0.1: a
board of few models) it is integrated instead, with :math:`\kappa`, on a Gauss-Hermite grid
in the whitened hyperparameters (each node refitted and weighted by its evidence), and the
first-order term is kept for :math:`s` alone: plugging in :math:`\sigma` overstates the
differences between close models (P(better) overconfident at one trial per question).

**The dispersion's hyperprior.** With one trial per cell :math:`\kappa` is not identified
(the Beta-Bernoulli law is Bernoulli(:math:`m`) whatever :math:`\kappa`), yet the posterior
of *these questions'* rates depends on it. Its hyperprior, median 7 and log-sd 1, was chosen
by ``bayes-eval validate board`` between the boards it must serve at one trial: an
interaction of logit sd 0.7 (:math:`\kappa \approx 11`; a smaller median makes P(better)
overconfident there), one of logit sd 1.5 (:math:`\kappa \approx 2.7`; a larger median
makes it overconfident there), and the MathArena board's rates (:math:`\kappa \approx 3` at
four trials; a larger median widens the intervals). From two trials the data move it.

**What is reported.** The mean vector and covariance matrix of :math:`\bar\pi`; each model's
marginal is the Beta law on :math:`[0, 1]` with that mean and variance (so intervals stay
inside the support without clipping); :math:`P(\bar\pi_i > \bar\pi_j) = \Phi(E[D]/\mathrm{sd}
[D])` for :math:`D = \bar\pi_i - \bar\pi_j` with its mean and variance from the joint (the
ranking confidence of §2.5 with the covariance the board induces), so a model listed above
another by its mean has :math:`P \ge 1/2`; joint draws from the Gaussian copula of those Beta
marginals.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg.lapack import dpotrf, dpotri, dpotrs
from scipy.special import betaincinv, digamma, expit, log_expit, ndtr

from bayes_eval.inputs import check_memory
from bayes_eval.posteriors.prior_likelihood import _trigamma

__all__ = [
    "ABILITY_SD_SCALE",
    "DIFFICULTY_SD_SCALE",
    "DISPERSION_PRIOR",
    "JOINT_MODEL",
    "JointPosterior",
    "beta_interval",
    "joint_posterior",
    "one_blas_thread",
]

#: How every output names the board model.
JOINT_MODEL = (
    "board model (ability minus shared question difficulty, Beta dispersion; joint posterior)"
)
#: scale of the half-normal hyperprior on the sd s of the question difficulties (logit scale)
DIFFICULTY_SD_SCALE = 3.0
#: scale of the half-normal hyperprior on the sd sigma of the models' abilities (logit scale)
ABILITY_SD_SCALE = 2.0
#: (median, log-sd) of the log-normal hyperprior on the dispersion kappa
DISPERSION_PRIOR = (7.0, 1.0)

_X_LIMIT = 35.0  # |theta - b| is clipped here (expit underflows beyond ~745)
_SEARCH_QUESTIONS = 200  # questions the hyperparameter search uses on a larger board
_SEARCH_MODELS = 200  # models it uses
#: Gauss-Hermite nodes of log kappa's prior (one trial per cell: no refits) and of its
#: conditional line (each node refits the latent field)
_KAPPA_NODES, _KAPPA_WEIGHTS = np.polynomial.hermite_e.hermegauss(7)
_KAPPA_WEIGHTS = _KAPPA_WEIGHTS / _KAPPA_WEIGHTS.sum()
_LINE_NODES, _LINE_WEIGHTS = np.polynomial.hermite_e.hermegauss(5)
_LINE_WEIGHTS = _LINE_WEIGHTS / _LINE_WEIGHTS.sum()
_X_NODES, _X_WEIGHTS = np.polynomial.hermite_e.hermegauss(5)
_X_WEIGHTS = _X_WEIGHTS / _X_WEIGHTS.sum()
#: The posterior sd of log sigma (the abilities' sd) above which sigma is integrated on a
#: grid rather than plugged in with Kass and Steffey's first-order term (few models: its
#: posterior is wide, and the plug-in overstates the differences between close models)
_SIGMA_SPREAD = 0.1
#: the cells take their log-gamma differences as finite sums (one term per trial, all cells'
#: terms in one vectorised call) when the board's trials number at most _FINITE_FIXED +
#: _FINITE_PER_CELL per answered cell (and _FINITE_TERMS in all): the finite sums cost about
#: one unit per trial, the special functions about 16 per cell plus a fixed cost of about 4,000
#: (benchmarks/bench_board_fit.py: small boards break even near 44 trials, large near 18)
_FINITE_PER_CELL = 16
_FINITE_FIXED = 4_000
_FINITE_TERMS = 1_000_000


class _BoardMemo:
    """The last boards fitted, by their counts: a small least-recently-used cache.

    Fitting a board is deterministic, and one board is asked about many times (every
    selection of its models, every command surface): the fit is kept for the last ``size``
    boards. A missing key and a board the model does not apply to (a stored ``None``) are
    told apart by :meth:`get`'s ``found``.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._store: OrderedDict[tuple, object] = OrderedDict()

    def get(self, key: tuple) -> tuple[bool, object]:
        """``(found, value)``; a found key becomes the most recently used."""
        if key not in self._store:
            return False, None
        self._store.move_to_end(key)
        return True, self._store[key]

    def put(self, key: tuple, value: object) -> None:
        """Store ``value``, dropping the least recently used board beyond ``size``."""
        self._store[key] = value
        self._store.move_to_end(key)
        while len(self._store) > self.size:
            self._store.popitem(last=False)

    def clear(self) -> None:
        """Forget every board."""
        self._store.clear()

    def __len__(self) -> int:
        return len(self._store)


#: The one memo of board fits (8 boards).
_MEMO = _BoardMemo(8)


# --------------------------------------------------------------------------- the cells


def _terms_of(counts: NDArray) -> tuple[NDArray, NDArray]:
    """Each cell's finite-sum terms: ``(cell, i)`` for ``i < counts[cell]``, flat index order.

    ``cell`` indexes the raveled cells (int32) and ``i`` counts from 0 within each (float).
    """
    c = np.rint(counts.ravel()).astype(np.int64)
    cell = np.repeat(np.arange(c.size, dtype=np.int32), c)
    start = np.repeat(np.cumsum(c) - c, c)
    return cell, (np.arange(cell.size) - start).astype(float)


class _Cells:
    r"""The board's counts and the Beta-binomial likelihood of each cell.

    The likelihood is a function of :math:`x = \theta - b`.
    """

    def __init__(self, n: NDArray, k: NDArray, answered: NDArray, weight: NDArray):
        self.L, self.M = n.shape
        self.answered = answered
        self.complete = bool(answered.all())
        self.n = np.where(answered, n, 0).astype(float)
        self.k = np.where(answered, k, 0).astype(float)
        self.fails = self.n - self.k
        self.weight = weight  # (L, M): each cell's share of its model's pi-bar
        self.max_n = int(self.n.max()) if self.n.size else 0
        self.single = self.max_n <= 1  # the likelihood does not involve kappa
        trials = float(self.n.sum())
        budget = _FINITE_FIXED + _FINITE_PER_CELL * int(np.count_nonzero(self.n))
        self.finite = trials <= min(budget, _FINITE_TERMS)
        if self.single:
            self.sign = 2.0 * self.k - self.n  # +1 solved, -1 missed, 0 unanswered
        elif self.finite:  # the finite sums' terms, once: (cell, i) for i < k, i < n - k, i < n
            self.k_cell, self.k_term = _terms_of(self.k)
            self.f_cell, self.f_term = _terms_of(self.fails)
            # the cells with more than i trials, i < max_n
            per_n = np.bincount(np.rint(self.n.ravel()).astype(np.int64))
            self.n_on = per_n[::-1].cumsum()[::-1][1:].astype(float)
            self.n_term = np.arange(self.n_on.size, dtype=float)

    @overload
    def terms(
        self, x: NDArray, kappa: float, hessian: Literal[True] = True
    ) -> tuple[float, NDArray, NDArray]: ...

    @overload
    def terms(
        self, x: NDArray, kappa: float, hessian: bool
    ) -> tuple[float, NDArray, NDArray | None]: ...

    def terms(
        self, x: NDArray, kappa: float, hessian: bool = True
    ) -> tuple[float, NDArray, NDArray | None]:
        """Log likelihood (summed), its first and second derivatives in x per cell."""
        if self.single:
            m = expit(x)
            if self.complete:
                ll = float(log_expit(self.sign * x).sum())
                d1 = self.k - m
                d2 = m * (m - 1.0) if hessian else None
            else:
                ll = float((np.abs(self.sign) * log_expit(self.sign * x)).sum())
                d1 = self.k - self.n * m
                d2 = self.n * m * (m - 1.0) if hessian else None
            return ll, d1, d2
        m, q = expit(x), expit(-x)
        a, c = kappa * m, kappa * q
        u = a * q
        if self.finite:
            # log Gamma(a + k) - log Gamma(a) = sum_{i < k} log(a + i), and its derivatives
            ai = a.ravel()[self.k_cell] + self.k_term
            ci = c.ravel()[self.f_cell] + self.f_term
            ll = float(np.log(ai).sum() + np.log(ci).sum())
            ll -= float(self.n_on @ np.log(kappa + self.n_term))
            ra, rc = 1.0 / ai, 1.0 / ci
            size = x.size
            b1 = np.bincount(self.k_cell, ra, size) - np.bincount(self.f_cell, rc, size)
            b1 = b1.reshape(x.shape)
            b2 = None
            if hessian:
                on_k = np.bincount(self.k_cell, ra * ra, size)
                b2 = (on_k + np.bincount(self.f_cell, rc * rc, size)).reshape(x.shape)
        else:
            from scipy.special import gammaln

            ll_cells = (
                gammaln(self.k + a)
                - gammaln(a)
                + gammaln(self.fails + c)
                - gammaln(c)
                - gammaln(self.n + kappa)
                + gammaln(kappa)
            )
            ll = float(np.where(self.answered, ll_cells, 0.0).sum())
            b1 = digamma(self.k + a) - digamma(a) - digamma(self.fails + c) + digamma(c)
            b1 = np.where(self.answered, b1, 0.0)
            if hessian:
                # the four trigammas in one call of the recurrence and asymptotic series
                # (agrees with scipy's polygamma(1, x) to 1e-13, at a fraction of zeta's cost)
                with np.errstate(divide="ignore", over="ignore"):  # 0 gives inf, as scipy's
                    t = _trigamma(np.stack([self.k + a, a, self.fails + c, c]))
                b2 = -(t[0] - t[1] + t[2] - t[3])
                b2 = np.where(self.answered, b2, 0.0)
        d1 = u * b1
        d2 = u * (q - m) * b1 - u * u * b2 if hessian else None
        return ll, d1, d2

    def moments(self, m: NDArray, q: NDArray, kappa: float) -> tuple[NDArray, NDArray, NDArray]:
        """E[p | x], E[p^2 | x] and d E[p | x] / dx of every cell.

        From m = expit(x) and q = expit(-x).
        """
        a = kappa * m + self.k
        t = kappa + self.n
        m1 = a / t
        m2 = m1 * (a + 1.0) / (t + 1.0)
        dm1 = (kappa * m * q) / t
        return m1, m2, dm1


# --------------------------------------------------------------------------- the latent field


class _Fit(NamedTuple):
    r"""The Laplace approximation of :math:`(\theta, b)` at one point of the hyperparameters."""

    theta: NDArray
    b: NDArray
    schur: NDArray  # S = A - B D^-1 B^T (L, L)
    factor: NDArray  # its lower Cholesky factor
    cross: NDArray  # B (L, M): minus the cross block of the Hessian
    diag_b: NDArray  # D (M,): minus the b block (diagonal)
    log_evidence: float
    converged: bool


#: the log posterior of the latent field, its gradient in theta and b, and (with the Hessian)
#: the blocks A, the cells' second derivatives, and D
_Blocks = tuple[float, NDArray, NDArray, NDArray, NDArray, NDArray]


@overload
def _blocks(
    cells: _Cells,
    theta: NDArray,
    b: NDArray,
    s: float,
    sigma: float,
    kappa: float,
    hessian: Literal[True] = True,
) -> _Blocks: ...


@overload
def _blocks(
    cells: _Cells,
    theta: NDArray,
    b: NDArray,
    s: float,
    sigma: float,
    kappa: float,
    hessian: Literal[False],
) -> tuple[float, NDArray, NDArray, None, None, None]: ...


def _blocks(
    cells: _Cells,
    theta: NDArray,
    b: NDArray,
    s: float,
    sigma: float,
    kappa: float,
    hessian: bool = True,
) -> _Blocks | tuple[float, NDArray, NDArray, None, None, None]:
    x = np.clip(theta[:, None] - b[None, :], -_X_LIMIT, _X_LIMIT)
    ll, d1, d2 = cells.terms(x, kappa, hessian)
    c = theta - theta.mean()
    value = ll - 0.5 * float(b @ b) / s**2 - 0.5 * float(c @ c) / sigma**2
    g_theta = d1.sum(axis=1) - c / sigma**2
    g_b = -d1.sum(axis=0) - b / s**2
    if not hessian:
        return value, g_theta, g_b, None, None, None
    assert d2 is not None  # computed with the Hessian
    n_models = theta.size
    a_mat = (np.eye(n_models) - 1.0 / n_models) / sigma**2
    a_mat[np.diag_indices(n_models)] -= d2.sum(axis=1)
    return value, g_theta, g_b, a_mat, d2, -d2.sum(axis=0) + 1.0 / s**2


def _mm(a: NDArray, b: NDArray) -> NDArray:
    return a @ b


def _schur(a_mat: NDArray, cross: NDArray, diag_b: NDArray, shift: float = 0.0) -> NDArray:
    scaled = cross / np.sqrt(diag_b + shift)
    out = a_mat - _mm(scaled, scaled.T)
    if shift:
        out[np.diag_indices(out.shape[0])] += shift
    return out


def _factor(
    a_mat: NDArray, cross: NDArray, diag_b: NDArray
) -> tuple[NDArray | None, NDArray | None, float]:
    """The Schur complement and its Cholesky factor with the smallest definite shift.

    The shift is the smallest Levenberg shift that makes the complement definite:
    ``(schur, factor, shift)`` (factor None when none does).
    """
    shift = 0.0
    for _ in range(60):
        if np.all(diag_b + shift > 0):
            schur = _schur(a_mat, cross, diag_b, shift)
            factor, info = dpotrf(schur, lower=1, clean=0)
            if info == 0:
                return schur, factor, shift
        shift = max(4.0 * shift, 1e-8 * (1.0 + np.abs(diag_b).max()))
    return None, None, shift


def _laplace(
    cells: _Cells,
    s: float,
    sigma: float,
    kappa: float,
    theta: NDArray,
    b: NDArray,
    max_iter: int = 60,
) -> _Fit:
    r"""Mode of :math:`(\theta, b)` given the hyperparameters, and the Laplace evidence.

    The mode is found by damped Newton steps with a Levenberg shift where the objective is not
    concave.
    """
    value, g_t, g_b, a_mat, cross, diag_b = _blocks(cells, theta, b, s, sigma, kappa)
    converged = False
    schur = factor = None
    shift = np.inf
    for _ in range(max_iter):
        schur, factor, shift = _factor(a_mat, cross, diag_b)
        if factor is None:
            break
        rhs = g_t - cross @ (g_b / (diag_b + shift))
        step_t = dpotrs(factor, rhs, lower=1)[0]
        step_b = (g_b - cross.T @ step_t) / (diag_b + shift)
        decrement = float(step_t @ g_t + step_b @ g_b)
        if decrement < 1e-9:
            converged = True
            break
        t = 1.0
        for _ in range(30):
            cand_t, cand_b = theta + t * step_t, b + t * step_b
            out = _blocks(cells, cand_t, cand_b, s, sigma, kappa)
            if out[0] >= value - 1e-12 * abs(value):
                break
            t *= 0.5
        else:
            converged = decrement < 1e-6
            break
        theta, b = cand_t, cand_b
        value, g_t, g_b, a_mat, cross, diag_b = out
        schur = factor = None
    diag_safe = np.maximum(diag_b, 1e-12)
    if factor is None or shift != 0.0 or not np.array_equal(diag_safe, diag_b):
        # the definite matrix nearest the Hessian here (a saddle, or a shift was needed)
        schur = _schur(a_mat, cross, diag_safe)
        factor, info = dpotrf(schur, lower=1, clean=0)
        if info != 0:
            low = float(np.linalg.eigvalsh(schur).min())
            schur = schur + (1e-8 - low) * np.eye(schur.shape[0])
            factor = dpotrf(schur, lower=1, clean=0)[0]
    log_det = float(2.0 * np.log(np.diag(factor)).sum() + np.log(diag_safe).sum())
    n_models = theta.size
    evidence = value - (n_models - 1) * np.log(sigma) - cells.M * np.log(s) - 0.5 * log_det
    assert schur is not None  # the definite complement, factored
    return _Fit(theta, b, schur, factor, cross, diag_safe, float(evidence), converged)


# --------------------------------------------------------------------------- pi-bar moments


class _Latent(NamedTuple):
    """The Gaussian law of every cell's x = theta - b under one fit.

    Also what the delta method needs of the fit's covariance.
    """

    x0: NDArray  # (L, M)
    sd_x: NDArray  # (L, M)
    var_x: NDArray  # (L, M)
    schur_inv: NDArray  # (L, L): Cov(theta)
    w_mat: NDArray  # (L, M): -Cov(theta, b)


def _third(cells: _Cells, x: NDArray, kappa: float) -> NDArray:
    """The third derivative of every cell's log likelihood in x.

    With one trial in closed form; otherwise a central difference of the second, step 1e-4.
    """
    if cells.single:
        m = expit(x)
        return -cells.n * m * (1.0 - m) * (1.0 - 2.0 * m)
    h = 1e-4
    return (cells.terms(x + h, kappa)[2] - cells.terms(x - h, kappa)[2]) / (2.0 * h)


def _field_covariance(fit: _Fit) -> tuple[NDArray, NDArray, NDArray]:
    r"""``Cov(theta)`` (L, L), ``-Cov(theta, b)`` (L, M) and every cell's ``Var(x)`` (L, M).

    From the fit's Schur complement: :math:`\mathrm{Cov}(\theta) = S^{-1}`,
    :math:`-\mathrm{Cov}(\theta, b) = S^{-1} B D^{-1}`, :math:`\mathrm{Var}(b_q) = 1/D_q +
    (B D^{-1})_{\cdot q}^\top S^{-1} (B D^{-1})_{\cdot q}`.
    """
    inv, info = dpotri(fit.factor, lower=1)
    if info != 0:
        inv = np.linalg.inv(fit.schur)
    schur_inv = np.tril(inv) + np.tril(inv, -1).T
    scaled = fit.cross / fit.diag_b  # B D^-1 (L, M)
    w_mat = _mm(schur_inv, scaled)
    var_b = 1.0 / fit.diag_b + (scaled * w_mat).sum(axis=0)
    var_x = np.diag(schur_inv)[:, None] + var_b[None, :] + 2.0 * w_mat
    np.maximum(var_x, 0.0, out=var_x)
    return schur_inv, w_mat, var_x


def _latent(fit: _Fit, x_mode: NDArray, third: NDArray) -> _Latent:
    r"""The Gaussian law of every cell's :math:`x = \theta - b`.

    The Laplace covariance, and the mean corrected for the skewness of the latent field's
    posterior, :math:`E[z] \approx \hat z + \tfrac12\Sigma u`, :math:`u_j = \sum_{kl} T_{jkl}
    \Sigma_{kl}`, T the third derivatives of the log posterior (a cell adds its log
    likelihood's third derivative times :math:`\mathrm{Var}(x)` to its model's entry and
    minus that to its question's): with few models or questions the mode and the mean
    differ by up to a quarter of a posterior sd (measured against importance sampling).
    ``x_mode`` is every cell's x at the mode, ``third`` (:func:`_third`) its log likelihood's
    third derivative there.
    """
    schur_inv, w_mat, var_x = _field_covariance(fit)
    t = third * var_x
    u_t, u_b = t.sum(axis=1), -t.sum(axis=0)
    shift_t = schur_inv @ (u_t - fit.cross @ (u_b / fit.diag_b))
    shift_b = (u_b - fit.cross.T @ shift_t) / fit.diag_b
    x0 = (fit.theta + 0.5 * shift_t)[:, None] - (fit.b + 0.5 * shift_b)[None, :]
    return _Latent(x0, np.sqrt(var_x), var_x, schur_inv, w_mat)


#: a cell's averaged curvature is held at least this fraction of its curvature at the mode
_CURVATURE_FLOOR = 0.25


def _fourth(cells: _Cells, x: NDArray, kappa: float) -> NDArray:
    """The fourth derivative of every cell's log likelihood in x.

    With one trial in closed form; otherwise a second central difference of the second
    derivative, step 1e-3.
    """
    if cells.single:
        m = expit(x)
        return -cells.n * m * (1.0 - m) * (1.0 - 6.0 * m + 6.0 * m * m)
    h = 1e-3
    d2_at = [cells.terms(x + step, kappa)[2] for step in (h, 0.0, -h)]
    return (d2_at[0] - 2.0 * d2_at[1] + d2_at[2]) / (h * h)


def _variational(
    cells: _Cells, fit: _Fit, latent: _Latent, x_mode: NDArray, third: NDArray, kappa: float
) -> tuple[_Fit, _Latent]:
    r"""The latent field's covariance from its curvature averaged over its own law.

    The Gaussian closest to the latent field's posterior in Kullback-Leibler divergence
    (Opper and Archambeau, "The variational Gaussian approximation revisited", 2009) has
    :math:`E_q[\nabla \log p] = 0` and :math:`\Sigma^{-1} = E_q[-\nabla^2 \log p]`. One step of
    those conditions from the Laplace fit: the mean is the skewness-shifted one of
    :func:`_latent`, and each cell's second derivative :math:`\ell_2(\hat x)` becomes its
    expectation, expanded about the mode (the term in :math:`(x_0 - \hat x)^2` left out),

    .. math::
        E[\ell_2(x)] \approx \ell_2(\hat x) + \ell_3(\hat x)(x_0 - \hat x)
        + \tfrac12 \ell_4(\hat x)\,\mathrm{Var}(x),

    held between a quarter of :math:`\ell_2(\hat x)` and :math:`\ell_2(\hat x)` itself; the
    Hessian keeps its bipartite structure, so the covariance is one more Schur complement.
    Where a cell's rate at the mode is near 1/2 (between about 0.21 and 0.79 at one trial) its
    log likelihood is flattest away from the mode, and the Laplace covariance is narrower than
    the posterior. Further out the expansion gives more curvature than the mode's, and the
    mode's is kept: the variational Gaussian understates a long tail (its Kullback-Leibler
    divergence penalises mass where the posterior has little), and on boards with models that
    solved none or all of their questions the mode's curvature there is the closer to
    importance sampling (the Validation page). ``x_mode`` and ``third`` as in :func:`_latent`.
    """
    d2 = fit.cross  # the cells' second derivatives at the mode (<= 0)
    d2_eff = d2 + third * (latent.x0 - x_mode) + 0.5 * _fourth(cells, x_mode, kappa) * latent.var_x
    # never more curvature than at the mode, nor less than a quarter of it; convex cells
    # (several trials) and unanswered ones keep theirs
    held = np.minimum(np.maximum(d2_eff, d2), _CURVATURE_FLOOR * d2)
    d2_eff = np.where(cells.answered & (d2 < 0.0), held, d2)
    delta = d2_eff - d2
    diag_b = fit.diag_b - delta.sum(axis=0)
    if not np.all(diag_b > 0.0):
        return fit, latent
    a_mat = fit.schur + _mm(fit.cross / fit.diag_b, fit.cross.T)  # A from S = A - B D^-1 B^T
    a_mat[np.diag_indices(a_mat.shape[0])] -= delta.sum(axis=1)
    schur = _schur(a_mat, d2_eff, diag_b)
    factor, info = dpotrf(schur, lower=1, clean=0)
    if info != 0:
        return fit, latent
    averaged = fit._replace(schur=schur, factor=factor, cross=d2_eff, diag_b=diag_b)
    schur_inv, w_mat, var_x = _field_covariance(averaged)
    return averaged, _Latent(latent.x0, np.sqrt(var_x), var_x, schur_inv, w_mat)


def _nodes(latent: _Latent) -> Iterator[tuple[float, NDArray, NDArray]]:
    """The expit of every cell's x at the Gauss-Hermite nodes of its law: (weight, m, q)."""
    for z, wz in zip(_X_NODES, _X_WEIGHTS, strict=True):
        x = np.clip(latent.x0 + latent.sd_x * z, -_X_LIMIT, _X_LIMIT)
        yield wz, expit(x), expit(-x)


def _moments_single(
    cells: _Cells, fit: _Fit, latent: _Latent, kappas: NDArray
) -> tuple[NDArray, NDArray]:
    r""":func:`_moments` when every cell has one trial.

    With :math:`n = 1`, :math:`E[p \mid x] = c(\kappa m + k)`, :math:`E[p^2 \mid x] =
    c_2(\kappa^2 m^2 + \kappa(2k + 1)m + 2k)`, :math:`dE[p \mid x]/dx = c\kappa m(1 - m)`,
    :math:`c = 1/(\kappa + 1)`, :math:`c_2 = c/(\kappa + 2)`: every sum over the questions is
    a polynomial in :math:`\kappa` of sums that do not depend on it, computed once.
    """
    shape = latent.x0.shape
    e_m, e_mm, e_mq = (np.zeros(shape) for _ in range(3))
    for wz, m, q in _nodes(latent):
        e_m += wz * m
        e_mm += wz * (m * m)
        e_mq += wz * (m * q)
    k, share = cells.k, cells.weight
    share2 = share * share
    s_m = (share * e_m).sum(axis=1)
    s_k = (share * k).sum(axis=1)
    a1 = (share2 * e_mm).sum(axis=1)
    a2 = (share2 * (2.0 * k + 1.0) * e_m).sum(axis=1)
    a3 = (share2 * 2.0 * k).sum(axis=1)
    a4 = (share2 * (e_m * e_m)).sum(axis=1)  # E[m]^2: its square, not E[m^2]
    a5 = (share2 * k * e_m).sum(axis=1)
    a6 = (share2 * k).sum(axis=1)
    a7 = (share2 * (e_mq * e_mq) * latent.var_x).sum(axis=1)
    # the delta method's covariance at c kappa = 1 (it scales with (c kappa)^2)
    j_b = share * e_mq
    j_theta = j_b.sum(axis=1)
    t1 = j_theta[:, None] * latent.schur_inv * j_theta[None, :]
    jd = j_b / fit.diag_b
    y = _mm(jd, fit.cross.T)  # J_b D^-1 B^T; W J_b^T = S^-1 y^T
    sy = _mm(latent.schur_inv, y.T)
    t2 = j_theta[:, None] * sy
    base = t1 + t2 + t2.T + _mm(jd, j_b.T) + _mm(y, sy)
    base = 0.5 * (base + base.T)
    means, covs = [], []
    for kappa in kappas:
        c = 1.0 / (kappa + 1.0)
        c2 = c / (kappa + 2.0)
        mean = c * (kappa * s_m + s_k)
        e_m2 = c2 * (kappa**2 * a1 + kappa * a2 + a3)
        e_m1sq = c * c * (kappa**2 * a4 + 2.0 * kappa * a5 + a6)
        own = e_m2 - e_m1sq - (c * kappa) ** 2 * a7
        cov = (c * kappa) ** 2 * base
        cov[np.diag_indices(cov.shape[0])] += own
        means.append(mean)
        covs.append(cov)
    return np.array(means), np.array(covs)


def _mean_gradient(cells: _Cells, fit: _Fit, eta: NDArray, kappa: float) -> NDArray:
    r"""Derivatives ``(L, 2)`` of every model's pi-bar at the latent field's mode.

    The derivatives are in :math:`(\log s, \log\sigma)`, by the implicit function theorem: at
    the mode the gradient vanishes, so :math:`dz/d\eta = K^{-1}\,\partial g/\partial\eta`
    (K minus the Hessian, solved through its Schur complement), with :math:`\partial
    g_b/\partial \log s = 2b/s^2` and :math:`\partial g_\theta/\partial\log\sigma =
    2(\theta - \bar\theta)/\sigma^2`; then the chain rule through :math:`E[p \mid x]`.
    """
    s, sigma = np.exp(eta[0]), np.exp(eta[1])
    x = np.clip(fit.theta[:, None] - fit.b[None, :], -_X_LIMIT, _X_LIMIT)
    dm1 = cells.moments(expit(x), expit(-x), kappa)[2]
    share_dm = cells.weight * dm1  # (L, M)
    c = fit.theta - fit.theta.mean()
    out = np.empty((fit.theta.size, 2))
    for col, (r_t, r_b) in enumerate(
        ((np.zeros_like(fit.theta), 2.0 * fit.b / s**2), (2.0 * c / sigma**2, np.zeros_like(fit.b)))
    ):
        step_t = dpotrs(fit.factor, r_t - fit.cross @ (r_b / fit.diag_b), lower=1)[0]
        step_b = (r_b - fit.cross.T @ step_t) / fit.diag_b
        out[:, col] = share_dm.sum(axis=1) * step_t - share_dm @ step_b
    return out


def _moments(cells: _Cells, fit: _Fit, kappas: NDArray) -> tuple[NDArray, NDArray]:
    """Mean ``(K, L)`` and covariance ``(K, L, L)`` of pi-bar for each kappa of ``kappas``.

    Given one Laplace fit (module docstring).
    """
    kappas = np.atleast_1d(np.asarray(kappas, float))
    kappa_mid = float(kappas[len(kappas) // 2])
    x_mode = np.clip(fit.theta[:, None] - fit.b[None, :], -_X_LIMIT, _X_LIMIT)
    third = _third(cells, x_mode, kappa_mid)  # shared by the mean's shift and the curvature
    latent = _latent(fit, x_mode, third)
    fit, latent = _variational(cells, fit, latent, x_mode, third, kappa_mid)
    if cells.single and cells.complete:
        return _moments_single(cells, fit, latent, kappas)
    shape = latent.x0.shape
    acc = [[np.zeros(shape) for _ in range(3)] for _ in kappas]  # E m1, E m2, E dm1
    for wz, m, q in _nodes(latent):
        for j, kappa in enumerate(kappas):
            m1, m2, dm1 = cells.moments(m, q, kappa)
            e = acc[j]
            e[0] += wz * m1
            e[1] += wz * m2
            e[2] += wz * dm1
    share = cells.weight
    share2 = share * share
    jd_base = share / fit.diag_b
    means, covs = [], []
    for e_m1, e_m2, e_dm in acc:
        mean = (share * e_m1).sum(axis=1)
        own = (share2 * (e_m2 - e_m1 * e_m1 - e_dm * e_dm * latent.var_x)).sum(axis=1)
        j_b = share * e_dm  # minus the Jacobian of E[pi-bar | theta, b] in b (L, M)
        j_theta = j_b.sum(axis=1)  # its Jacobian in theta (diagonal)
        t1 = j_theta[:, None] * latent.schur_inv * j_theta[None, :]
        jd = jd_base * e_dm  # J_b D^-1
        y = _mm(jd, fit.cross.T)  # (L, L); W J_b^T = S^-1 y^T
        sy = _mm(latent.schur_inv, y.T)
        t2 = j_theta[:, None] * sy  # J_t Cov(theta, b) J_b^T, both signs -
        t3 = _mm(jd, j_b.T) + _mm(y, sy)
        cov = t1 + t2 + t2.T + t3
        cov[np.diag_indices(cov.shape[0])] += own
        means.append(mean)
        covs.append(0.5 * (cov + cov.T))
    return np.array(means), np.array(covs)


# --------------------------------------------------------------------------- hyperparameters


def _log_hyperprior(eta: NDArray) -> float:
    """Log density of the hyperprior in eta = (log s, log sigma, log kappa)."""
    s, sigma = np.exp(eta[0]), np.exp(eta[1])
    mu, sd = np.log(DISPERSION_PRIOR[0]), DISPERSION_PRIOR[1]
    return float(
        -0.5 * (s / DIFFICULTY_SD_SCALE) ** 2
        + eta[0]
        - 0.5 * (sigma / ABILITY_SD_SCALE) ** 2
        + eta[1]
        - 0.5 * ((eta[2] - mu) / sd) ** 2
    )


class _Search:
    """The log posterior of the hyperparameters on a board.

    Each point's latent fit is warm-started from the last one's.
    """

    def __init__(self, cells: _Cells, theta: NDArray, b: NDArray):
        self.cells, self.theta, self.b = cells, theta, b
        self.fits: dict[tuple, _Fit] = {}

    def fit(self, eta: NDArray) -> _Fit:
        key = tuple(np.round(np.asarray(eta, float), 9))
        if key not in self.fits:
            s, sigma, kappa = np.exp(key)
            f = _laplace(self.cells, s, sigma, kappa, self.theta, self.b)
            if np.isfinite(f.log_evidence):
                self.theta, self.b = f.theta, f.b
            self.fits[key] = f
        return self.fits[key]

    def log_post(self, eta: NDArray) -> float:
        eta = np.asarray(eta, float)
        if np.any(np.abs(eta) > 8.0):
            return -np.inf
        lp = self.fit(eta).log_evidence + _log_hyperprior(eta)
        return lp if np.isfinite(lp) else -np.inf


def _hessian(fun: Callable[[NDArray], float], x0: NDArray, f0: float, h: float = 0.15) -> NDArray:
    """Central finite-difference Hessian."""
    d = x0.size
    out = np.zeros((d, d))
    eye = np.eye(d) * h
    for i in range(d):
        out[i, i] = (fun(x0 + eye[i]) - 2.0 * f0 + fun(x0 - eye[i])) / h**2
        for j in range(i):
            out[i, j] = out[j, i] = (
                fun(x0 + eye[i] + eye[j])
                - fun(x0 + eye[i] - eye[j])
                - fun(x0 - eye[i] + eye[j])
                + fun(x0 - eye[i] - eye[j])
            ) / (4.0 * h * h)
    return out


def _mode(search: _Search, start: NDArray, dims: list[int]) -> tuple[NDArray, NDArray]:
    """Posterior mode of the hyperparameters over ``dims`` and their log posterior's Hessian.

    The other hyperparameters are held at ``start``, and the Hessian is taken at the mode.
    Newton's method on central finite differences (step 0.15 on the log scale), the Hessian's
    eigenvalues held at most -0.5 (a flat direction moves by at most 2 times its gradient),
    steps capped at 1 and halved until the log posterior rises; it stops when a step is below
    0.01 (a hundredth of the log scale).
    """
    full = np.asarray(start, float).copy()

    def f(sub: NDArray) -> float:
        x = full.copy()
        x[dims] = sub
        return search.log_post(x)

    x = full[dims].copy()
    fx = f(x)
    hess = np.zeros((x.size, x.size))
    for _ in range(25):
        grad = _gradient(f, x, fx)
        hess = _hessian(f, x, fx)
        step = np.linalg.solve(_definite(-hess), grad)
        step *= min(1.0, 1.0 / max(float(np.abs(step).max()), 1e-300))
        for _ in range(20):
            cand = x + step
            f_cand = f(cand)
            if f_cand >= fx:
                break
            step *= 0.5
        else:
            break
        x, fx = cand, f_cand
        if np.abs(step).max() < 0.01:
            hess = _hessian(f, x, fx)
            break
    full[dims] = x
    return full, hess


def _gradient(fun: Callable[[NDArray], float], x0: NDArray, f0: float, h: float = 0.15) -> NDArray:
    """Central finite-difference gradient.

    ``f0`` is unused: the same signature as :func:`_hessian`, whose evaluations it shares
    through the search's memo.
    """
    eye = np.eye(x0.size) * h
    return np.array([(fun(x0 + e) - fun(x0 - e)) / (2.0 * h) for e in eye])


# --------------------------------------------------------------------------- the result


def beta_interval(
    mean: ArrayLike, sd: ArrayLike, confidence: float, lo: float = 0.0, hi: float = 1.0
) -> tuple[NDArray, NDArray]:
    r"""Equal-tailed interval of the Beta law on ``[lo, hi]`` with the given mean and sd.

    With :math:`m = (\mu - lo)/(hi - lo)` and :math:`v = \sigma^2/(hi - lo)^2`, the Beta has
    :math:`a = m\nu`, :math:`b = (1 - m)\nu`, :math:`\nu = m(1 - m)/v - 1`; its quantiles
    never leave ``[lo, hi]``. Where :math:`v \ge m(1 - m)` (no Beta has that spread) the
    interval is the whole support; a zero sd gives the mean twice.

    Parameters
    ----------
    mean, sd : float or array_like
        Mean and standard deviation of the law (broadcast together).
    confidence : float
        Credibility level in (0, 1).
    lo, hi : float, optional
        The support, default ``[0, 1]``.

    Returns
    -------
    lower, upper : numpy.ndarray
        The endpoints, with the broadcast shape of ``mean`` and ``sd``, within ``[lo, hi]``.

    Examples
    --------
    >>> lower, upper = beta_interval([0.2, 0.9], [0.1, 0.05], 0.95)
    >>> lower.round(4).tolist(), upper.round(4).tolist()
    ([0.0466, 0.7829], [0.4281, 0.9745])
    >>> [float(x) for x in beta_interval(0.5, 0.6, 0.95)]  # too wide for a Beta
    [0.0, 1.0]
    """
    mean, sd = np.asarray(mean, float), np.asarray(sd, float)
    width = hi - lo
    m = np.clip((mean - lo) / width, 0.0, 1.0)
    v = (sd / width) ** 2
    tail = 0.5 * (1.0 - confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = m * (1.0 - m) / v - 1.0
        a, b = m * nu, (1.0 - m) * nu
        ok = (nu > 0) & (m > 0) & (m < 1)
        q_lo = np.where(ok, betaincinv(np.where(ok, a, 1.0), np.where(ok, b, 1.0), tail), 0.0)
        q_hi = np.where(ok, betaincinv(np.where(ok, a, 1.0), np.where(ok, b, 1.0), 1 - tail), 1.0)
    point = (v == 0) | (m <= 0) | (m >= 1)
    q_lo = np.where(point, m, q_lo)
    q_hi = np.where(point, m, q_hi)
    return lo + width * q_lo, lo + width * q_hi


def _beta_parameters(mean: NDArray, var: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Beta parameters with the given mean and variance on [0, 1], and where they exist."""
    m = np.clip(mean, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = m * (1.0 - m) / var - 1.0
    ok = (nu > 0) & (m > 0) & (m < 1) & (var > 0)
    return np.where(ok, m * nu, 1.0), np.where(ok, (1.0 - m) * nu, 1.0), ok


def _mixture_quantile(means: NDArray, var: NDArray, weight: NDArray, q: float) -> NDArray:
    """The q quantile of each model's mixture of Betas (components ``(K, L)``).

    By bisection on its CDF (60 halvings of [0, 1]: to 1e-18).
    """
    from scipy.special import betainc

    a, b, ok = _beta_parameters(means, var)
    lo = np.zeros(means.shape[1])
    hi = np.ones(means.shape[1])
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        cdf = np.where(ok, betainc(a, b, mid[None, :]), (means <= mid[None, :]).astype(float))
        below = weight @ cdf < q
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


class _Parts(NamedTuple):
    """The board's counts and the points its posterior integrates the scales over.

    Part i: the latent field fitted at hyperparameters ``eta[i]`` (log s, log sigma, log
    kappa) with the cells' dispersion ``kappa[i]``, weight ``weight[i]``.
    """

    counts: NDArray  # (L, M, 2)
    eta: NDArray  # (P, 3)
    kappa: NDArray  # (P,)
    weight: NDArray  # (P,)
    theta: NDArray  # (L,): the abilities at the hyperparameters' mode (a warm start)
    b: NDArray  # (M,): the difficulties there


def _part_field(parts: _Parts, cells: _Cells, j: int) -> tuple[_Fit, _Latent]:
    """The latent field's Gaussian at part ``j`` of the scales, as :func:`_moments` uses it.

    The Laplace fit (from the mode's field) with its curvature averaged, each cell's x
    shifted for skewness.
    """
    eta, kappa = parts.eta[j], float(parts.kappa[j])
    s, sigma = np.exp(eta[:2])
    fit = _laplace(cells, s, sigma, np.exp(eta[2]), parts.theta, parts.b)
    x_mode = np.clip(fit.theta[:, None] - fit.b[None, :], -_X_LIMIT, _X_LIMIT)
    third = _third(cells, x_mode, kappa)
    return _variational(cells, fit, _latent(fit, x_mode, third), x_mode, third, kappa)


def _part_rates(
    cells: _Cells, field: tuple[_Fit, _Latent], kappa: float, size: int, rng: np.random.Generator
) -> NDArray:
    r"""``size`` draws ``(size, L, M)`` of every cell's rate at one point of the scales.

    From the latent field's Gaussian ``field`` (:func:`_part_field`): :math:`\theta \sim
    N(\hat\theta, S^{-1})`, :math:`b \mid \theta \sim N(\hat b - D^{-1} B^\top (\theta -
    \hat\theta), D^{-1})`, then :math:`p_{lq} \sim \mathrm{Beta}(\kappa m_{lq} + k_{lq},
    \kappa(1 - m_{lq}) + n_{lq} - k_{lq})`, :math:`m_{lq} = \mathrm{expit}(\theta_l - b_q)`.
    """
    fit, latent = field
    root = np.linalg.cholesky(latent.schur_inv)
    dev = rng.standard_normal((size, fit.theta.size)) @ root.T  # theta - theta-hat
    b_dev = -(dev @ fit.cross) / fit.diag_b + rng.standard_normal((size, fit.b.size)) / np.sqrt(
        fit.diag_b
    )
    x = np.clip(latent.x0 + dev[:, :, None] - b_dev[:, None, :], -_X_LIMIT, _X_LIMIT)
    m = expit(x)
    return rng.beta(kappa * m + cells.k, kappa * (1.0 - m) + cells.fails)


@dataclass(frozen=True, eq=False)
class JointPosterior:
    r"""The joint posterior of the models' :math:`\bar\pi` on one board (module docstring).

    Attributes
    ----------
    mean : ndarray, shape ``(L,)``
        :math:`E[\bar\pi_l \mid \text{every model's results}]`.
    cov : ndarray, shape ``(L, L)``
        Posterior covariance of :math:`\bar\pi`.
    parts_mean, parts_var : ndarray, shape ``(K, L)``
        Mean and variance of each model's :math:`\bar\pi` at each of the K quadrature
        points of :math:`\kappa`; each model's marginal is the mixture of the Betas with
        these moments (weights ``parts_weight``), whose mean and variance are ``mean`` and
        the diagonal of ``cov``.
    parts_weight : ndarray, shape ``(K,)``
        Weights of the K quadrature points (sum to 1).
    difficulty_sd, ability_sd, dispersion : float
        Posterior modes of s, :math:`\sigma` and :math:`\kappa` (:math:`\kappa`: its
        hyperprior's median when it is not identified).
    dispersion_identified : bool
        False when every cell has one trial: :math:`\kappa` then keeps its hyperprior.
    converged : bool
        Whether Newton's method converged at the hyperparameters' mode.
    _cache : dict
        Internal: the intervals and ``P(better)`` matrix once computed.
    _parts : _Parts or None
        Internal: the board and the hyperparameters' integration points, for
        :meth:`rate_draws`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=(1, 20)) * np.array([[0.6], [0.8], [1.0]])  # 3 models
    >>> R = (rng.random((3, 20, 4)) < p[..., None]).astype(int)
    >>> post = joint_posterior(np.stack([(1 - R).sum(-1), R.sum(-1)], axis=-1))
    >>> type(post).__name__, post.cov.shape, post.parts_mean.shape[1]
    ('JointPosterior', (3, 3), 3)
    >>> bool(np.allclose(post.sd**2, np.diag(post.cov)))
    True
    """

    mean: NDArray[np.float64]
    cov: NDArray[np.float64]
    parts_mean: NDArray[np.float64]
    parts_var: NDArray[np.float64]
    parts_weight: NDArray[np.float64]
    difficulty_sd: float
    ability_sd: float
    dispersion: float
    dispersion_identified: bool
    converged: bool = True
    _cache: dict = field(default_factory=dict, repr=False)
    _parts: _Parts | None = field(default=None, repr=False)

    @property
    def sd(self) -> NDArray[np.float64]:
        r"""Posterior sd of each model's :math:`\bar\pi`."""
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))

    def interval(self, confidence: float = 0.95) -> tuple[NDArray, NDArray]:
        """Equal-tailed interval of each model's marginal law (the mixture of Betas)."""
        key = ("interval", float(confidence))
        if key not in self._cache:
            tail = 0.5 * (1.0 - confidence)
            ends = tuple(
                _mixture_quantile(self.parts_mean, self.parts_var, self.parts_weight, q)
                for q in (tail, 1.0 - tail)
            )
            for e in ends:
                e.flags.writeable = False
            self._cache[key] = ends
        return self._cache[key]

    def prob_better(self) -> NDArray[np.float64]:
        r""":math:`P(\bar\pi_i > \bar\pi_j) = \Phi(E[D]/\mathrm{sd}[D])`, shape ``(L, L)``.

        1/2 on the diagonal.
        """
        if "prob" not in self._cache:
            var = np.diag(self.cov)
            d = self.mean[:, None] - self.mean[None, :]
            v = np.maximum(var[:, None] + var[None, :] - 2.0 * self.cov, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(v > 0, d / np.sqrt(v), np.sign(d) * np.inf)
            prob = ndtr(np.nan_to_num(z, nan=0.0))
            np.fill_diagonal(prob, 0.5)
            prob.flags.writeable = False
            self._cache["prob"] = prob
        return self._cache["prob"]

    def rate_draws(self, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
        r"""``n`` joint draws of every cell's rate :math:`p_{lq}`, shape ``(n, L, M)``.

        Per draw, a point of the scales the moments integrate over (chosen by its weight,
        :attr:`parts_weight`), then the latent abilities and difficulties from their
        Gaussian at that point and each cell's rate from its Beta law given them (module
        docstring). Left out: the uncertainty of the scales the moments add by Kass and
        Steffey's first-order term (that of the difficulties' sd s; with many models, where
        the abilities' sd is plugged in rather than integrated, also that of the abilities'
        sd), and the moments' treatment of a
        model's cells as one: they take the covariance between cells by the delta method,
        the draws the Gaussian itself. A question a model did not answer gets its rate from
        the board model's law for that cell.

        The average of a draw over the questions each model's :math:`\bar\pi` averages over
        is a draw of :math:`\bar\pi`. Measured against :attr:`mean` and :attr:`sd` on
        boards of close models (logit ability sd 0.3; 3-30 models, 30-200 questions, one to
        three trials): means within 0.002, sds within 4%. Where a model solved (nearly) all or
        none of its questions its ability's posterior is skewed and the draws' sd of its
        :math:`\bar\pi` exceeds the moments' by up to half
        (``tests/posteriors/test_joint_draws.py``).

        Parameters
        ----------
        n : int
            Number of draws (at least 1).
        rng : numpy.random.Generator
            The random generator.

        Returns
        -------
        ndarray, shape ``(n, L, M)``
            The rates, in [0, 1].

        Raises
        ------
        ValueError
            ``n`` is not a positive whole number, ``rng`` is not a NumPy Generator, or the
            draws would not fit in memory.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> R = rng.binomial(1, [[0.3], [0.5], [0.7]], size=(3, 30))
        >>> post = joint_posterior(np.stack([1 - R, R], axis=-1))
        >>> p = post.rate_draws(2000, rng)
        >>> p.shape
        (2000, 3, 30)
        >>> bool(np.allclose(p.mean(axis=(0, 2)), post.mean, atol=0.01))
        True
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n is {n!r}; expected a positive whole number of draws.")
        if not isinstance(rng, np.random.Generator):
            raise ValueError(
                f"rng is {type(rng).__name__}; expected a numpy.random.Generator "
                "(numpy.random.default_rng(seed))."
            )
        parts = self._parts
        if parts is None:  # pragma: no cover - every fitted board records its parts
            raise ValueError("this joint posterior keeps no record of its board.")
        counts = parts.counts
        check_memory(
            8.0 * 3 * int(n) * counts.shape[0] * counts.shape[1],
            f"{n} draws of the rates of {counts.shape[0]} x {counts.shape[1]} cells",
            "fewer draws",
        )
        trials = counts.sum(axis=-1)
        has = trials > 0
        cells = _Cells(trials, counts[..., 1], has, _weights(has))
        pick = rng.choice(parts.weight.size, size=int(n), p=parts.weight)
        out = np.empty((int(n), *trials.shape))
        fields: dict[tuple, tuple[_Fit, _Latent]] = {}
        with one_blas_thread():
            for j in np.unique(pick):
                rows = np.flatnonzero(pick == j)
                # one trial per cell: the field does not depend on kappa
                key = (*parts.eta[j], 0.0 if cells.single else parts.kappa[j])
                if key not in fields:
                    fields[key] = _part_field(parts, cells, int(j))
                out[rows] = _part_rates(cells, fields[key], parts.kappa[j], rows.size, rng)
        return out

    def draws(self, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
        r"""``n`` joint draws ``(n, L)``.

        A quadrature point of the scales per draw (shared by the models), then the Gaussian
        copula of the posterior correlations within a point (the covariance less the part
        between the points' means) with that point's Beta marginals; so the draws keep the
        joint mean and covariance.
        """
        dev = self.parts_mean - self.mean[None, :]
        within = self.cov - np.einsum("k,ka,kb->ab", self.parts_weight, dev, dev)
        sd = np.sqrt(np.clip(np.diag(within), 0.0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            corr = within / np.outer(sd, sd)
        corr = np.where(np.isfinite(corr), corr, 0.0)
        np.fill_diagonal(corr, 1.0)
        evals, evecs = np.linalg.eigh(corr)
        root = evecs * np.sqrt(np.clip(evals, 0.0, None))
        z = rng.standard_normal((n, self.mean.size)) @ root.T
        u = ndtr(z)
        part = rng.choice(self.parts_weight.size, size=n, p=self.parts_weight)
        a, b, ok = _beta_parameters(self.parts_mean, self.parts_var)
        out = betaincinv(a[part], b[part], u)
        return np.where(ok[part], out, np.clip(self.parts_mean[part], 0.0, 1.0))


# --------------------------------------------------------------------------- the fit


def _start(n: NDArray, k: NDArray, answered: NDArray) -> tuple[NDArray, NDArray]:
    """Abilities and difficulties from the smoothed rates (logit scale)."""
    kk, nn = np.where(answered, k, 0), np.where(answered, n, 0)
    rate_l = (kk.sum(axis=1) + 0.5) / (nn.sum(axis=1) + 1.0)
    rate_q = (kk.sum(axis=0) + 0.5) / (nn.sum(axis=0) + 1.0)
    theta = np.log(rate_l / (1.0 - rate_l))
    b = -np.log(rate_q / (1.0 - rate_q))
    b = b - b.mean()
    return theta - theta.mean() + np.log(rate_l.mean() / (1 - rate_l.mean())), b


def _guess(theta: NDArray, b: NDArray) -> NDArray:
    s = float(np.clip(np.std(b) if b.size > 1 else 1.0, 0.3, 5.0))
    sigma = float(np.clip(np.std(theta) if theta.size > 1 else 1.0, 0.2, 4.0))
    return np.array([np.log(s), np.log(sigma), np.log(DISPERSION_PRIOR[0])])


def _weights(answered: NDArray) -> NDArray:
    count = answered.sum(axis=1, keepdims=True)
    return np.where(answered, 1.0 / np.maximum(count, 1), 0.0)


def joint_posterior(
    counts: ArrayLike, answered: ArrayLike | None = None, *, keep: bool = True
) -> JointPosterior | None:
    r"""The joint posterior of every model's :math:`\bar\pi` on a board (module docstring).

    Parameters
    ----------
    counts : array_like, shape ``(L, M, 2)``
        Failures and successes of each model on each question (whole numbers; a question
        without trials: zeros).
    answered : array_like of bool, shape ``(L, M)``, optional
        The questions each model's :math:`\bar\pi` averages over (default: those it has a
        trial of, or all M when every model answered every question).
    keep : bool, keyword-only
        Keep the result among the last boards' (default True); False for a board fitted once
        and thrown away (the refitted boards of a plan), which then pushes none of them out.

    Returns
    -------
    JointPosterior or None
        None when the data are not whole binary counts of at least two models sharing a
        question. With ``keep``, the last 8 boards' results are kept (the same board asked
        again gets the same object).

    Examples
    --------
    A board of 3 models on 20 questions, 4 trials each:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=(1, 20)) * np.array([[0.6], [0.8], [1.0]])
    >>> R = (rng.random((3, 20, 4)) < p[..., None]).astype(int)
    >>> counts = np.stack([(1 - R).sum(-1), R.sum(-1)], axis=-1)  # (L, M, 2)
    >>> post = joint_posterior(counts)
    >>> post.mean.round(2).tolist()
    [0.26, 0.36, 0.39]
    >>> post.prob_better().round(2).tolist()
    [[0.5, 0.07, 0.03], [0.93, 0.5, 0.32], [0.97, 0.68, 0.5]]
    >>> joint_posterior(counts[:1]) is None  # one model: no board
    True
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 3 or counts.shape[-1] != 2 or counts.shape[0] < 2:
        return None
    if not np.all(np.isfinite(counts)) or not np.allclose(counts, np.round(counts)):
        return None
    key = (
        counts.shape,
        counts.tobytes(),
        None if answered is None else np.asarray(answered, bool).tobytes(),
    )
    found, known = _MEMO.get(key)
    if found:
        return cast("JointPosterior | None", known)
    with one_blas_thread():
        result = _joint(np.round(counts).astype(np.int64), answered)
    if result is not None:
        result.mean.flags.writeable = False
        result.cov.flags.writeable = False
    if keep:
        _MEMO.put(key, result)
    return result


_CONTROLLER = None


def one_blas_thread() -> AbstractContextManager[object]:
    """BLAS and LAPACK on one thread while a board is fitted (threadpoolctl).

    The many small factorisations and products of the fit lose far more to threads waiting for
    a busy core than they gain (``benchmarks/README.md``), and one thread spends the least CPU
    time.

    Returns
    -------
    context manager
        threadpoolctl's limiter: BLAS is limited to one thread from the call until the
        ``with`` block it is used in exits (the previous limits are then restored).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     product = np.ones((4, 4)) @ np.ones((4, 4))
    >>> float(product[0, 0])
    4.0
    """
    global _CONTROLLER
    from threadpoolctl import ThreadpoolController

    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


def _searches(
    cells: _Cells, n: NDArray, k: NDArray, has: NDArray, theta0: NDArray, b0: NDArray
) -> tuple[_Search, _Search | None]:
    """The hyperparameters' search on the board, and on a sub-board for the first mode.

    The sub-board holds at most _SEARCH_QUESTIONS questions and _SEARCH_MODELS models (evenly
    spaced; the models spread along their order by ability); None when the board is no larger.
    ``n``, ``k``, ``has``: the trials, successes and answered cells of ``cells`` (L, M).
    """
    n_models, m = n.shape
    rows, cols = np.arange(n_models), np.arange(m)
    if m > _SEARCH_QUESTIONS:
        cols = np.unique(np.linspace(0, m - 1, _SEARCH_QUESTIONS).round().astype(int))
    if n_models > _SEARCH_MODELS:
        by_ability = np.argsort(theta0, kind="stable")
        rows = np.sort(by_ability[np.linspace(0, n_models - 1, _SEARCH_MODELS).round().astype(int)])
    search_small = None
    if rows.size < n_models or cols.size < m:
        sub_has = has[np.ix_(rows, cols)]
        small = _Cells(n[np.ix_(rows, cols)], k[np.ix_(rows, cols)], sub_has, _weights(sub_has))
        search_small = _Search(small, theta0[rows], b0[cols])
    return _Search(cells, theta0, b0), search_small


#: the points of the scales a posterior integrates over: (hyperparameters, kappa) per part
_Points = list[tuple[NDArray, float]]


def _kappa_line(
    search: _Search, cells: _Cells, eta: NDArray, cov_eta: NDArray, dims: list[int]
) -> tuple[NDArray, NDArray, NDArray, NDArray, _Points]:
    """The posterior of pi-bar with kappa integrated along its conditional line.

    Gauss-Hermite nodes along the line through the mode that the Laplace covariance of the
    hyperparameters gives kappa, each refitted and weighted by its Laplace evidence over the
    Gaussian's density. Returns the parts' means and covariances, their weights, the
    conditional covariance of (log s, log sigma) given kappa (for Kass and Steffey's term) and
    each part's (hyperparameters, kappa).
    """
    i_k = dims.index(2)
    sd_k = float(np.sqrt(cov_eta[i_k, i_k]))
    line = np.zeros(3)
    line[dims] = cov_eta[:, i_k] / sd_k
    f_mode = search.log_post(eta)
    pts, lw = [], []
    for z, wz in zip(_LINE_NODES, _LINE_WEIGHTS, strict=True):
        e = eta + z * line
        pts.append(search.fit(e))
        lw.append(np.log(wz) + search.log_post(e) - f_mode + 0.5 * z * z)
    log_w = np.array(lw)
    wts = np.exp(log_w - log_w.max())
    wts = wts / wts.sum()
    means, covs = [], []
    for f_pt, z in zip(pts, _LINE_NODES, strict=True):
        mk, ck = _moments(cells, f_pt, np.exp(eta[2] + z * line[2]))
        means.append(mk[0])
        covs.append(ck[0])
    # the conditional covariance of (log s, log sigma) given kappa
    keep_d = [dims.index(0), dims.index(1)]
    c = cov_eta[np.ix_(keep_d, keep_d)]
    cross = cov_eta[np.ix_(keep_d, [i_k])]
    ks_cov = c - cross @ cross.T / cov_eta[i_k, i_k]
    points = [(eta + z * line, float(np.exp(eta[2] + z * line[2]))) for z in _LINE_NODES]
    return np.array(means), np.array(covs), wts, ks_cov, points


def _joint(counts: NDArray, answered_in: ArrayLike | None) -> JointPosterior | None:
    n = counts.sum(axis=-1)
    k = counts[..., 1]
    has = n > 0
    answered = has if answered_in is None else np.asarray(answered_in, bool) & has
    if answered_in is not None and np.asarray(answered_in).shape != n.shape:
        return None
    if (answered.sum(axis=0) >= 2).sum() < 1 or (answered.sum(axis=1) == 0).any():
        return None
    # the pi-bar of each model averages over its answered questions; a question with trials
    # outside them still informs the difficulty
    share_mask = answered if answered_in is None else np.asarray(answered_in, bool)
    weight = _weights(share_mask & has)
    cells = _Cells(n, k, has, weight)
    theta0, b0 = _start(n, k, has)
    # 1. the hyperparameters' mode, first on a sub-board of the largest boards
    search, search_small = _searches(cells, n, k, has, theta0, b0)
    dims = [0, 1] if cells.single else [0, 1, 2]
    eta0 = _guess(theta0, b0)
    first = search_small or search
    # the mode and the curvature of the hyperparameters' log posterior (on the board searched)
    eta, hess = _mode(first, eta0, dims)
    if search_small is not None:  # the information grows with the cells
        hess = hess * (has.sum() / max(search_small.cells.answered.sum(), 1))
        search.b = _extend(cells, theta0, eta)
    cov_eta = np.linalg.inv(_definite(-hess))
    mode_fit = search.fit(eta)
    kappa_mu, kappa_sd = np.log(DISPERSION_PRIOR[0]), DISPERSION_PRIOR[1]
    i_sigma = dims.index(1)
    if np.sqrt(cov_eta[i_sigma, i_sigma]) > _SIGMA_SPREAD:
        # 2'. few models: sigma (and kappa) integrated on a grid, s by Kass and Steffey
        mean_k, cov_k, wts, ks_cov, points = _scale_grid(search, cells, eta, cov_eta, dims)
        ks_cols = [0]
        kappa_hat = float(np.exp(eta[2])) if not cells.single else float(np.exp(kappa_mu))
        search.theta, search.b = mode_fit.theta, mode_fit.b
    elif cells.single:
        # 2. kappa: its prior (one trial per cell: the likelihood does not involve it)
        kappas = np.exp(kappa_mu + kappa_sd * _KAPPA_NODES)
        mean_k, cov_k = _moments(cells, mode_fit, kappas)
        wts = _KAPPA_WEIGHTS
        points = [(eta, float(kappa)) for kappa in kappas]
        ks_cov, ks_cols = cov_eta, [0, 1]
        kappa_hat = float(np.exp(kappa_mu))
    else:
        # 2. kappa: its quadrature along the conditional line
        mean_k, cov_k, wts, ks_cov, points = _kappa_line(search, cells, eta, cov_eta, dims)
        ks_cols = [0, 1]
        kappa_hat = float(np.exp(eta[2]))
        search.theta, search.b = mode_fit.theta, mode_fit.b
    mean = wts @ mean_k
    second = np.einsum("k,kab->ab", wts, cov_k + mean_k[:, :, None] * mean_k[:, None, :])
    cov = second - np.outer(mean, mean)
    # 3. the uncertainty of the scales not integrated: Kass and Steffey's first-order term
    center_kappa = np.exp(kappa_mu) if cells.single else kappa_hat
    grad_mean = _mean_gradient(cells, mode_fit, eta, center_kappa)[:, ks_cols]
    extra = grad_mean @ ks_cov @ grad_mean.T
    cov = cov + extra
    cov = 0.5 * (cov + cov.T)
    parts_var = np.diagonal(cov_k, axis1=1, axis2=2) + np.diag(extra)[None, :]
    return JointPosterior(
        mean=mean,
        cov=cov,
        parts_mean=mean_k,
        parts_var=parts_var,
        parts_weight=np.asarray(wts, float),
        difficulty_sd=float(np.exp(eta[0])),
        ability_sd=float(np.exp(eta[1])),
        dispersion=kappa_hat,
        dispersion_identified=not cells.single,
        converged=bool(mode_fit.converged),
        _parts=_Parts(
            counts=counts,
            eta=np.array([e for e, _ in points], float),
            kappa=np.array([kappa for _, kappa in points], float),
            weight=np.asarray(wts, float),
            theta=mode_fit.theta,
            b=mode_fit.b,
        ),
    )


def _scale_grid(
    search: _Search, cells: _Cells, eta: NDArray, cov_eta: NDArray, dims: list[int]
) -> tuple[NDArray, NDArray, NDArray, NDArray, _Points]:
    r"""The posterior of :math:`\bar\pi` with the scales integrated on a Gauss-Hermite grid.

    The scales are :math:`\log\sigma` (and, with repeated trials, :math:`\log\kappa`). The
    Gaussian approximation of the hyperparameters' posterior ordered
    :math:`(\log\sigma, \log\kappa, \log s)` is whitened by its Cholesky factor, the grid
    laid on the first one or two whitened coordinates (each node moving :math:`\log s` along
    its regression), each node refitted and weighted by its Laplace evidence over the
    Gaussian's density; with one trial per cell every node's :math:`\kappa` is integrated over
    its prior. Returns the parts' means and covariances, their weights, the conditional
    variance of :math:`\log s` given the integrated scales (for Kass and Steffey's term, on
    the gradient's first column) and each part's (hyperparameters, kappa).
    """
    i_s, i_sigma = dims.index(0), dims.index(1)
    order = [i_sigma] + ([] if cells.single else [dims.index(2)]) + [i_s]
    chol = np.linalg.cholesky(cov_eta[np.ix_(order, order)])
    q = len(order) - 1  # the whitened coordinates on the grid
    f_mode = search.log_post(eta)
    grids = np.meshgrid(*([_LINE_NODES] * q), indexing="ij")
    weights = np.meshgrid(*([_LINE_WEIGHTS] * q), indexing="ij")
    z_all = np.stack([g.ravel() for g in grids], axis=1)
    w_all = np.prod(np.stack([w.ravel() for w in weights], axis=1), axis=1)
    kappa_mu, kappa_sd = np.log(DISPERSION_PRIOR[0]), DISPERSION_PRIOR[1]
    means, covs, lw = [], [], []
    points: _Points = []
    for z, wz in zip(z_all, w_all, strict=True):
        step = np.zeros(len(dims))
        step[order] = chol[:, :q] @ z
        e = np.asarray(eta, float).copy()
        e[dims] = e[dims] + step
        lp = search.log_post(e)
        if not np.isfinite(lp):
            continue
        f_pt = search.fit(e)
        kappas = np.exp(kappa_mu + kappa_sd * _KAPPA_NODES) if cells.single else np.exp(e[2:3])
        sub = np.log(_KAPPA_WEIGHTS) if cells.single else np.zeros(1)
        mk, ck = _moments(cells, f_pt, kappas)
        points += [(e, float(kappa)) for kappa in kappas]
        means.append(mk)
        covs.append(ck)
        lw.append(np.log(wz) + lp - f_mode + 0.5 * float(z @ z) + sub)
    lw_all = np.concatenate(lw)
    wts = np.exp(lw_all - lw_all.max())
    wts = wts / wts.sum()
    ks_cov = np.array([[chol[-1, -1] ** 2]])
    return np.concatenate(means), np.concatenate(covs), wts, ks_cov, points


def _definite(neg: NDArray, floor: float = 0.5) -> NDArray:
    """``neg`` with its eigenvalues raised to at least ``floor``.

    That is a log-scale sd of at most ``floor**-0.5`` for a flat direction.
    """
    evals, evecs = np.linalg.eigh(0.5 * (neg + neg.T))
    return (evecs * np.maximum(evals, floor)) @ evecs.T


def _extend(cells: _Cells, theta: NDArray, eta: NDArray) -> NDArray:
    """Difficulties of every question given abilities ``theta``.

    A few Newton steps per question, to start the whole board's fit from a subsample's.
    """
    s, _, kappa = np.exp(eta)
    b = np.zeros(cells.M)
    for _ in range(8):
        x = np.clip(theta[:, None] - b[None, :], -_X_LIMIT, _X_LIMIT)
        _, d1, d2 = cells.terms(x, kappa)
        g = -d1.sum(axis=0) - b / s**2
        h = -d2.sum(axis=0) + 1.0 / s**2
        b = b + np.clip(g / np.maximum(h, 1e-9), -3.0, 3.0)
    return b
