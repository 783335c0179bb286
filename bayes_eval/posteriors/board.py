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
cannot place, keep the hyperprior they came with), the integral by Gauss-Hermite quadrature.
When every model answered every shared question the objective depends on the questions only
through the distinct values of their summed misses, and the maximum is found by Newton's
method with the analytic Hessian (``_complete_objective``); otherwise by L-BFGS-B. With
graded results those values number about one per question; the iterations then run on them
compressed to Chebyshev points per panel (``_chebyshev_panels``: on seven graded boards of
20-93 models x 300-2,000 questions, at every s of the grid, the compressed gradient and
Hessian within 5e-8 of the Hessian's largest entry, the value within 1e-9 relative) and end on
the exact objective, so the optimum is the exact one (the board's hyperpriors moved by at most
2.5e-9 in log kappa, posterior means by 1e-9 posterior sd). The
grid of s is walked from a moment guess outward, each point warm-started from its neighbour,
until the profile has fallen 50 below its maximum (``_walk``): on large boards a handful
of the 28 points, the last in each direction iterated only until Newton's estimate, with a
margin, puts it that far below (its cost, against a joint L-BFGS-B over all 28 points that
stopped up to 1e-3 from the optimum in log kappa, is in ``benchmarks/README.md``). Given
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

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.linalg.lapack import dpotrf, dpotrs
from scipy.special import expit, log_expit, logsumexp

from bayes_eval.posteriors.joint import one_blas_thread

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = [
    "SD_FLOOR",
    "BoardConcentration",
    "board_concentration",
]

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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=(1, 20)) * np.array([[0.6], [0.8], [1.0]])  # 3 models
    >>> R = (rng.random((3, 20, 4)) < p[..., None]).astype(int)
    >>> counts = np.stack([(1 - R).sum(-1), R.sum(-1)], axis=-1)
    >>> bc = board_concentration(counts, (10.0, 1.0))
    >>> type(bc).__name__, bc.median.shape, bc.models_used
    ('BoardConcentration', (3,), 3)
    """

    median: NDArray[np.float64]
    log_sd: NDArray[np.float64]
    difficulty_sd: float
    models_used: int


def _neg_profile(
    theta_flat: NDArray, y: NDArray, n: NDArray, s: NDArray, gap: csr_matrix | None = None
) -> tuple[float, NDArray]:
    r"""Minus the summed marginal log likelihood over the s grid, and its gradient in theta.

    With :math:`\log(1 - p) = \log p - \eta`, the log likelihood of question q at node z is
    :math:`\sum_l n_{lq}\log\mathrm{expit}(\eta_{lz}) - \sum_l (n_{lq} - y_{lq})
    (\theta_l - s z)`: the second sum is a product of (S, L) by (L, M) plus an outer
    product, and when every model answered every question (``n`` all ones) the first is one
    sum over models: no (S x J, L) by (L, M) product. The small products left run on one BLAS
    thread (:func:`board_concentration` fits under
    :func:`~bayes_eval.posteriors.joint.one_blas_thread`).
    ``gap``: the unanswered pairs ``1 - n`` as a sparse matrix (``n`` binary, most pairs
    answered): the two products by ``n`` are then the sums over every model less sparse
    products by the gaps, no BLAS call (on a busy machine an order of magnitude faster:
    ``benchmarks/README.md``).
    """
    theta = theta_flat.reshape(s.size, -1)  # (S, L)
    eta = theta[:, None, :] - s[:, None, None] * _NODES[None, :, None]  # (S, J, L)
    miss = n - y
    complete = bool(np.all(n == 1.0))
    lp = log_expit(eta)
    if complete:
        ll = lp.sum(axis=-1)[..., None]  # (S, J, 1)
    elif gap is not None:
        flat = lp.reshape(-1, lp.shape[-1])  # (S J, L)
        ll = lp.sum(axis=-1)[..., None] - (gap.T @ flat.T).T.reshape(*lp.shape[:2], -1)
    else:
        ll = lp @ n  # (S, J, M)
    ll = (
        ll
        - (theta @ miss)[:, None, :]
        + (s[:, None] * _NODES[None, :])[..., None] * miss.sum(axis=0)
    )
    tot = _LOG_WEIGHTS[None, :, None] + ll
    lse = logsumexp(tot, axis=1)  # (S, M)
    post = np.exp(tot - lse[:, None, :])  # posterior of the node, per question
    if complete:
        pn = np.broadcast_to(post.sum(axis=-1)[..., None], eta.shape)  # (S, J, L)
    elif gap is not None:
        flat = post.reshape(-1, post.shape[-1])  # (S J, M)
        pn = post.sum(axis=-1)[..., None] - (gap @ flat.T).T.reshape(*post.shape[:2], -1)
    else:
        pn = post @ n.T
    grad = (post.sum(axis=1) @ y.T) - (expit(eta) * pn).sum(axis=1)  # (S, L)
    return -float(lse.sum()), -grad.ravel()


#: the walk over the grid of s stops where the profile has fallen this far below every
#: model's best log weight (weights below e^-50 of the largest: nothing any sum can see)
_WALK_DROP = 50.0
#: a profile is taken to lie below a level once its value plus this many Newton decrements
#: (each twice the full step's predicted gain) plus :data:`_BELOW_SLACK` does, after an
#: unshifted Newton step (_complete_solver: an estimate, not a bound, with its measured misses)
_BELOW_MARGIN = 2.0
_BELOW_SLACK = 40.0
#: ... and only once the Newton decrement is at most this (where the quadratic model holds)
_BELOW_DECREMENT = 8.0


def _log_kappa(theta: NDArray, s: float) -> NDArray:
    """Each model's concentration (log) at s and abilities theta.

    It is the concentration of the Beta with the mean and variance of the model's logit-normal
    rates (module docstring).
    """
    p = expit(theta[:, None] - s * _NODES[None, :])  # (L, J)
    wz = _WEIGHTS / _WEIGHTS.sum()
    mean = p @ wz
    var = np.maximum((p * p) @ wz - mean**2, 1e-300)
    return np.log(np.maximum(mean * (1.0 - mean) / var - 1.0, 1e-8))


def _complete_objective(
    theta: NDArray,
    s: float,
    c_vals: NDArray,
    c_mult: NDArray,
    miss: NDArray,
    hessian: bool = True,
) -> tuple[float, NDArray, NDArray | None]:
    r"""The profile objective of one s when every model answered every question.

    Also its gradient and Hessian in the abilities.

    With :math:`n_{lq} = 1` the log likelihood of question q at node :math:`z_j` is
    :math:`A_j - \theta\cdot(1 - y_q) + s z_j C_q`, with :math:`A_j = \sum_l
    \log\mathrm{expit}(\theta_l - s z_j)` and :math:`C_q = \sum_l (1 - y_{lq})`, so

    .. math::
        \Phi(\theta) = \sum_q F(C_q) - \theta\cdot\mathrm{Miss},\qquad
        F(C) = \log\sum_j w_j e^{A_j + s z_j C},

    :math:`\mathrm{Miss}_l = \sum_q (1 - y_{lq})`: the questions enter only through the
    distinct values of :math:`C_q` (at most L + 1 of them with binary results), ``c_vals``
    with multiplicities ``c_mult`` (or any atoms whose weighted sums stand for the sums over
    the questions, :func:`_chebyshev_panels`). With
    :math:`\omega_{jq}` the posterior of node j for question q, :math:`P = \sum_q\omega_q`,
    :math:`Q = \sum_q \omega_q\omega_q^\top`, :math:`p_{lj} = \mathrm{expit}(\theta_l - s
    z_j)` and :math:`U = 1 - p`: gradient :math:`UP - \mathrm{Miss}`, Hessian
    :math:`U(\mathrm{diag}\,P - Q)U^\top - \mathrm{diag}_l\big(\sum_j P_j p_{lj}U_{lj}\big)`.
    Returns ``(value, gradient, Hessian)`` (the Hessian None with ``hessian=False``: no
    :math:`Q`).
    """
    sz = s * _NODES
    eta = theta[:, None] - sz[None, :]  # (L, J)
    t = (_LOG_WEIGHTS + log_expit(eta).sum(axis=0))[:, None] + sz[:, None] * c_vals[None, :]
    top = t.max(axis=0)
    e = np.exp(t - top)  # (J, D)
    total = e.sum(axis=0)
    value = float(c_mult @ (np.log(total) + top) - theta @ miss)
    post = e / total
    pw = post * c_mult
    big_p = pw.sum(axis=1)
    p = expit(eta)
    u = 1.0 - p
    grad = u @ big_p - miss
    if not hessian:
        return value, grad, None
    h = np.diag(big_p) - (pw @ post.T)
    hess = (u @ h) @ u.T
    hess[np.diag_indices(theta.size)] -= (p * u) @ big_p
    return value, grad, hess


#: ``solve(s, start, below) -> (profile, theta, reach)``: the profile of one s on the board
_Solve = Callable[[float, NDArray, float], tuple[float, NDArray, float]]

#: Chebyshev points per panel of the compressed question totals (:func:`_chebyshev_panels`)
_C_POINTS = 12
#: the panels' half-width in C is at most this over s (measured: module docstring)
_C_REACH = 4.0


def _chebyshev_panels(c_vals: NDArray, c_mult: NDArray, half: float) -> tuple[NDArray, NDArray]:
    r"""Atoms standing for the sums over the distinct question totals in the objective.

    The totals are ``c_vals`` (sorted, with multiplicities ``c_mult``), the objective that of
    :func:`_complete_objective`.

    Every function of C that the objective sums (:math:`F`, the node posteriors
    :math:`\omega_j` and their products) is analytic near the real axis, so the sum over the
    totals in a panel of half-width ``half`` is the sum over its :data:`_C_POINTS` Chebyshev
    points of the first kind :math:`c_p` with weights :math:`W_p = \sum_q m_q \ell_p(C_q)`,
    :math:`\ell_p` the Lagrange basis of the points (interpolation error falling like
    :math:`\rho^{-P}` with the Bernstein ellipse the strip of analyticity allows: Trefethen,
    "Approximation Theory and Approximation Practice", Thm 8.2). Panels holding at most
    :data:`_C_POINTS` totals keep them. Returns ``(values, weights)``.
    """
    lo0 = float(c_vals[0])
    panel = np.floor((c_vals - lo0) / (2.0 * half)).astype(np.int64)
    n_panels = int(panel[-1]) + 1
    size = np.bincount(panel, minlength=n_panels)
    squeeze = size > _C_POINTS
    inside = squeeze[panel]
    out_x, out_w = [c_vals[~inside]], [c_mult[~inside]]
    if inside.any():
        which = np.flatnonzero(squeeze)
        lo = lo0 + 2.0 * half * which
        # the panel's own range (tighter than its slot: a smaller interval, a smaller error)
        first = np.searchsorted(panel, which)
        last = np.searchsorted(panel, which, side="right") - 1
        lo, hi = c_vals[first], c_vals[last]
        mid, rad = 0.5 * (lo + hi), 0.5 * (hi - lo)
        code = np.searchsorted(which, panel[inside])
        t = np.clip((c_vals[inside] - mid[code]) / rad[code], -1.0, 1.0)
        n = np.arange(_C_POINTS)
        tp = np.pi * (n + 0.5) / _C_POINTS
        cheb = np.cos(np.outer(np.arccos(t), n)) * c_mult[inside][:, None]  # m_q T_n(t_q)
        moments = np.add.reduceat(cheb, np.searchsorted(code, np.arange(which.size)), axis=0)
        basis = np.cos(np.outer(n, tp)) * np.where(n == 0, 1.0, 2.0)[:, None] / _C_POINTS
        out_x.append((mid[:, None] + rad[:, None] * np.cos(tp)[None, :]).ravel())
        out_w.append(np.einsum("sn,np->sp", moments, basis).ravel())
    return np.concatenate(out_x), np.concatenate(out_w)


def _newton_step(neg: NDArray, grad: NDArray) -> tuple[NDArray, bool]:
    """The solution of ``neg @ step = grad`` by Cholesky, and whether ``neg`` was shifted.

    ``neg`` is shifted to positive definite (Levenberg) when it is not (the quadrature can
    spoil exact concavity); the flag also tells whether a gradient step was taken instead.
    """
    shift, scale = 0.0, 1e-6 * max(float(np.abs(np.diag(neg)).max()), 1e-12)
    for _ in range(40):
        # LAPACK's potrf/potrs directly: half the time of scipy's checked wrappers
        factor, info = dpotrf(neg + shift * np.eye(grad.size), lower=False, clean=False)
        if info == 0:
            return dpotrs(factor, grad)[0], shift > 0.0
        shift = scale if shift == 0.0 else 10.0 * shift
    return grad / max(float(np.abs(np.diag(neg)).max()), 1e-12), True  # a gradient step


def _capped_newton_step(
    theta: NDArray, grad: NDArray, hess: NDArray
) -> tuple[NDArray, float, float, bool]:
    """A Newton step of the profile in the abilities, within the bounds and capped.

    The abilities that press against +-:data:`_THETA_BOUND` (the gradient pointing out) are
    fixed, the rest take the step of :func:`_newton_step`, scaled down to at most 2 logit units
    (a step from a saddle of the quadrature's objective can otherwise throw every ability to
    its bound). Returns ``(step, decrement, big, shifted)``: the Newton decrement ``g @ step``
    (twice the predicted gain of the full step), the largest entry of the step before the cap,
    and whether the Hessian was shifted.
    """
    pinned = ((theta >= _THETA_BOUND) & (grad > 0)) | ((theta <= -_THETA_BOUND) & (grad < 0))
    g = np.where(pinned, 0.0, grad)
    neg = np.where(pinned[:, None] | pinned[None, :], 0.0, -hess) + np.diag(pinned.astype(float))
    step, shifted = _newton_step(neg, g)
    decrement = float(g @ step)
    big = float(np.abs(step).max())
    step *= min(1.0, 2.0 / max(big, 1e-300))
    return step, decrement, big, shifted


def _step_halving(
    evaluate: Callable[[NDArray, bool], tuple[float, NDArray, NDArray]],
    theta: NDArray,
    step: NDArray,
    val: float,
    exact: bool,
) -> tuple[NDArray, float, NDArray, NDArray] | None:
    """The first of ``theta + 2^-i step`` (``i < 30``, clipped to the bounds) not below ``val``.

    Returns the point with its value, gradient and Hessian from ``evaluate``, or None when all
    30 halvings lower the objective.
    """
    t = 1.0
    for _ in range(30):
        cand = np.clip(theta + t * step, -_THETA_BOUND, _THETA_BOUND)
        cval, cgrad, chess = evaluate(cand, exact)
        if cval >= val:
            return cand, cval, cgrad, chess
        t *= 0.5
    return None


def _complete_solver(y: NDArray, compress: bool = True) -> _Solve:
    """The profile of one s on a complete board (every model answered every shared question).

    Newton's method on :func:`_complete_objective` (the marginal likelihood is log-concave in
    the abilities, Prekopa's theorem, up to the quadrature), step halving
    (:func:`_step_halving`), the bounds +-:data:`_THETA_BOUND` kept by fixing the abilities
    that press against them (:func:`_capped_newton_step`).

    With many distinct totals (graded results) and ``compress``, the iterations run on the
    totals compressed by :func:`_chebyshev_panels` (panels of half-width at most
    :data:`_C_REACH` / s), and once they have converged the value and gradient are those of
    every distinct total (the compressed Hessian kept: it only steers the steps), iterated
    until the exact objective's Newton decrement meets the same tolerance: the optimum and
    the profile are those of the exact objective, the compression only saves iterations.

    ``below``: a level the caller needs the profile only to clear. Once the value plus
    :data:`_BELOW_MARGIN` Newton decrements (four times the gain a quadratic model promises)
    plus :data:`_BELOW_SLACK` lies below it, after a Newton step that needed no Levenberg
    shift and no cap and whose decrement is at most :data:`_BELOW_DECREMENT`, the iterations
    stop: the walk ends at such a point, whose weight is then below e^-50 of the largest. The
    estimate is not a bound: where the quadrature makes the objective non-concave (large s,
    many models) the quadratic model can promise too little. From a neighbour's abilities
    (the walk's start) the converged profile exceeded value plus two decrements by up to 21,
    on 120 complete boards of 2-150 models with difficulty sd up to 10 probed at every grid
    point; hence the slack of 40 and the cap. In the walks themselves (320 random boards,
    binary and graded, complete and not, difficulty sd 0.05-15) every point left this way had
    its converged profile at least 40 below the level.
    Returns ``solve(s, start, below) -> (profile, theta, reach)``: the value reached and that
    estimate of the most it could reach (the profile itself when converged).
    """
    miss_q = (1.0 - y).sum(axis=0)  # C_q
    c_vals, c_mult = np.unique(miss_q, return_counts=True)
    c_mult = c_mult.astype(float)
    miss = (1.0 - y).sum(axis=1)
    panels: dict[float, tuple[NDArray, NDArray] | None] = {}

    def atoms(s: float) -> tuple[NDArray, NDArray] | None:
        # a power of two at most _C_REACH / s: the same panels serve nearby grid points
        half = 2.0 ** np.floor(np.log2(_C_REACH / s))
        if half not in panels:
            pts = _chebyshev_panels(c_vals, c_mult, half) if compress else None
            # worth it only with far fewer atoms (the exact evaluations come on top)
            panels[half] = pts if pts is not None and 2 * pts[0].size < c_vals.size else None
        return panels[half]

    def solve(s: float, start: NDArray, below: float = -np.inf) -> tuple[float, NDArray, float]:
        short = atoms(s)
        exact = short is None

        def evaluate(
            theta: NDArray, exact: bool, hess: NDArray | None = None
        ) -> tuple[float, NDArray, NDArray]:
            # value and gradient of the objective asked for; the compressed Hessian (or the
            # one passed in) steers the steps on either objective
            if short is None:
                val, grad, hess = _complete_objective(theta, s, c_vals, c_mult, miss)
            elif exact:
                if hess is None:
                    hess = _complete_objective(theta, s, *short, miss)[2]
                val, grad, _ = _complete_objective(theta, s, c_vals, c_mult, miss, False)
            else:
                val, grad, own = _complete_objective(theta, s, *short, miss)
                hess = own if hess is None else hess
            assert hess is not None  # from hessian=True, or passed in
            return val, grad, hess

        theta = np.clip(start, -_THETA_BOUND, _THETA_BOUND)
        val, grad, hess = evaluate(theta, exact)
        for _ in range(100):
            step, decrement, big, shifted = _capped_newton_step(theta, grad, hess)
            reach = val + _BELOW_MARGIN * max(decrement, 0.0) + _BELOW_SLACK
            near = decrement <= _BELOW_DECREMENT and big <= 2.0 and not shifted
            if near and reach < below:
                # far below what the caller needs: the maximum is not worth finding
                return val, theta, reach
            converged = decrement < 1e-9
            if converged and not exact:  # the compressed optimum: now the exact objective
                exact = True
                val, grad, hess = evaluate(theta, exact, hess)
                continue
            if converged:
                break
            moved = _step_halving(evaluate, theta, step, val, exact)
            if moved is None:
                if exact:
                    break
                exact = True
                val, grad, hess = evaluate(theta, exact, hess)
                continue
            theta, val, grad, hess = moved
        if not exact:  # the iterations ran out: report the exact value at the last point
            val = evaluate(theta, True, hess)[0]
        return val, theta, val

    return solve


def _general_solver(y: NDArray, n: NDArray) -> _Solve:
    """The profile of one s on an incomplete board.

    L-BFGS-B on :func:`_neg_profile` in the bounded abilities (the unanswered pairs as a
    sparse matrix when they are fewer than half).
    Returns ``solve(s, start, below) -> (profile, theta, profile)`` (``below`` unused: it
    always converges).
    """
    gap = None
    if np.all((n == 0.0) | (n == 1.0)) and n.mean() > 0.5:
        from scipy.sparse import csr_matrix

        gap = csr_matrix(1.0 - n)

    def solve(s: float, start: NDArray, below: float = -np.inf) -> tuple[float, NDArray, float]:
        from scipy.optimize import minimize  # imported here: 0.3 s at startup otherwise

        fit = minimize(
            _neg_profile,
            np.clip(start, -_THETA_BOUND, _THETA_BOUND),
            args=(y, n, np.array([s]), gap),
            jac=True,
            method="L-BFGS-B",
            bounds=[(-_THETA_BOUND, _THETA_BOUND)] * start.size,
            options={"maxiter": 500},
        )
        return -float(fit.fun), fit.x, -float(fit.fun)

    return solve


def _start_index(y: NDArray, n: NDArray) -> int:
    """The grid point of s nearest a moment guess.

    The guess is the sd of the logits of the questions' mean rates (what a shared difficulty
    of sd s spreads them by).
    """
    count = n.sum(axis=0)
    rate = y.sum(axis=0) / np.maximum(count, 1.0)
    k = y.shape[0]
    rate = np.clip(rate[count > 0], 0.5 / k, 1.0 - 0.5 / k)
    guess = float(np.std(np.log(rate / (1.0 - rate)))) if rate.size > 1 else 1.0
    return int(np.argmin(np.abs(_LOG_S - np.log(max(guess, 1e-3)))))


def _walk(
    solve: _Solve, theta0: NDArray, start: int, med0: NDArray, sd0: NDArray
) -> dict[int, tuple[float, NDArray, NDArray]]:
    r"""The profile on the grid of s, walked from ``start`` upward then downward.

    Each point is warm-started from its neighbour, each direction stopping where the profile
    falls and lies :data:`_WALK_DROP` below every model's best log weight (profile plus the
    log hyperprior of its :math:`\kappa_l(s)`, at most the profile): the points left out would
    carry weights below :math:`e^{-50}` of the largest if the profile is unimodal in s (a marginal
    likelihood in one variance parameter; on 93 x 1,136 boards it falls by thousands within
    a few grid points). Each point is solved with the level that would end the walk there
    (``below``), so a point far below is iterated only until Newton's estimate, with a margin
    (:func:`_complete_solver`), puts it there; its value, a lower bound of its profile, then
    enters the weights with less than e^-50 of the largest.
    Returns ``{index: (profile, theta, log_kappa)}``.
    """
    fits: dict[int, tuple[float, NDArray, NDArray]] = {}
    best = np.full(med0.size, -np.inf)
    for direction in (1, -1):
        i = start if direction == 1 else start - 1
        theta = theta0 if direction == 1 or start not in fits else fits[start][1]
        previous = fits[start][0] if direction == -1 and start in fits else -np.inf
        while 0 <= i < _LOG_S.size:
            s = float(np.exp(_LOG_S[i]))
            level = min(previous, best.min() - _WALK_DROP)
            value, theta, reach = solve(s, theta, level)
            lk = _log_kappa(theta, s)
            fits[i] = (value, theta, lk)
            best = np.maximum(best, value - 0.5 * ((lk - np.log(med0)) / sd0) ** 2)
            if reach < previous and reach < best.min() - _WALK_DROP:
                break
            previous, i = value, i + direction
    return fits


def board_concentration(
    counts: NDArray,
    kappa_prior: tuple[float | NDArray, float | NDArray],
    *,
    sd_floor: float = SD_FLOOR,
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

    Examples
    --------
    A board of 3 models on 20 questions (4 trials each) sharing the questions' difficulty:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=(1, 20)) * np.array([[0.6], [0.8], [1.0]])
    >>> R = (rng.random((3, 20, 4)) < p[..., None]).astype(int)
    >>> counts = np.stack([(1 - R).sum(-1), R.sum(-1)], axis=-1)  # (L, M, 2)
    >>> bc = board_concentration(counts, (10.0, 1.0))
    >>> bc.median.round(1).tolist(), bc.log_sd.round(2).tolist()
    ([21.5, 20.0, 19.8], [0.78, 0.78, 0.78])
    >>> board_concentration(counts[:1], (10.0, 1.0)) is None  # one model: no board
    True
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 3 or counts.shape[-1] != 2:
        return None
    n_models = counts.shape[0]
    med0, sd0 = (np.broadcast_to(np.asarray(x, dtype=float), (n_models,)) for x in kappa_prior)
    fail, succ = counts[..., 0], counts[..., 1]  # slices: no reduction over a short axis
    total = fail + succ  # (L, M)
    answered = total > 0
    shared = answered.sum(axis=0) >= 2  # questions at least two models answered
    if not shared.all():
        fail, succ, total, answered = (v[:, shared] for v in (fail, succ, total, answered))
    # a model that solved all or none of the shared questions has an unbounded ability: the
    # board cannot place it, so it keeps the hyperprior it came with (counts are >= 0, so an
    # unanswered question adds nothing to either sum)
    models = answered.any(axis=1) & (succ.sum(axis=1) > 0) & (fail.sum(axis=1) > 0)
    if shared.sum() < 2 or models.sum() < 2:
        return None
    if not models.all():
        succ, total, answered = (v[models] for v in (succ, total, answered))
    y = np.divide(succ, total, out=np.zeros(total.shape), where=answered)
    complete = bool(answered.all())
    n = np.ones(y.shape) if complete else answered.astype(float)
    rate = (y.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    solve = _complete_solver(y) if complete else _general_solver(y, n)
    with one_blas_thread():  # small products: threads waiting for busy cores cost more
        fits = _walk(
            solve, np.log(rate / (1.0 - rate)), _start_index(y, n), med0[models], sd0[models]
        )
    idx = np.array(sorted(fits))
    profile = np.array([fits[i][0] for i in idx])
    if not np.isfinite(profile).all():
        return None
    log_kappa = np.stack([fits[i][2] for i in idx])  # (S', L_used)
    s = np.exp(_LOG_S[idx])
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
