r"""Priors of the closed-form path: fixed Dirichlet priors and a prior learned from the data.

The Bayes@N posterior (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
Model Evaluation", §2.2-2.4) gives every question the same Dirichlet prior
:math:`\pi_\alpha \sim \mathrm{Dir}(a)`, with :math:`a = (1, \dots, 1)` in the paper. On real
benchmarks most questions are solved always or never; the uniform prior pulls each of them
toward the middle, a bias that does not average out over questions while the posterior sd
shrinks like :math:`1/\sqrt M`, so its intervals undercover more as M grows. This module
learns :math:`a` from the questions themselves.

**Model.** Write :math:`a = \kappa\beta` (mean :math:`\beta` on the simplex, concentration
:math:`\kappa`). Integrating :math:`\pi_\alpha` out, the counts of question :math:`\alpha`
are Dirichlet-multinomial, and the log marginal likelihood of a group of questions is

.. math::
    \ell(a) = \sum_\alpha \Big[\log\Gamma(\kappa) - \log\Gamma(\kappa + N_\alpha)
      + \sum_k \big(\log\Gamma(a_k + n_{\alpha k}) - \log\Gamma(a_k)\big)\Big].

The hyperprior is that of :func:`bayes_eval.models.hierarchical_model`:
:math:`\beta \sim \mathrm{Dir}(1)`, :math:`\log\kappa \sim N(\log \kappa_0, s_0^2)` with
:math:`(\kappa_0, s_0)` = :data:`KAPPA_PRIOR` = (5, 1.5): weakly informative (95% in
[0.26, 95]). With one trial per question of one model the data do not identify
:math:`\kappa`, and the interval then rests on this hyperprior; on real benchmarks it errs
wide there (1.1-2.3 times the error), never narrow. A hyperprior learned from real benchmarks
(:data:`META_KAPPA_PRIOR` = (0.5, 1.26), the predictive for a new benchmark of a three-level
meta-analysis of the 20 model-benchmark pairs with repeated trials shipped with the package:
``bayes-eval validate hyperprior``, :mod:`bayes_eval.validation.hyperprior_study`) is sharper
on average but, checked on each benchmark left out, covers only 0.85-0.91 on two of four at
N = 1 (real concentrations differ tenfold between benchmarks): it is available, not the
default. In the coordinates :math:`\eta = \log a` the log density is
:math:`\sum_k \eta_k - K\log\kappa - (\log\kappa - \log\kappa_0)^2 / (2 s_0^2)` (K = C + 1
categories; the Jacobian of :math:`(\beta, \kappa) \mapsto a` is :math:`\kappa^{K-1}`).

**On a leaderboard** (``pool="board"``, the default) each model keeps its own prior, and the
hyperprior of its concentration is first updated by what the other models on the same
questions say about how different the questions are
(:mod:`bayes_eval.posteriors.board`): with one trial per question one model's results do not
identify :math:`\kappa`, a board does.

**Fit.** Newton's method on :math:`\ell(e^\eta) + \log p(\eta)` with the analytic gradient
(digamma) and Hessian (trigamma), step halving, vectorised over the groups (one per model,
``pool="model"``, or one for the whole benchmark, ``pool="benchmark"``). The mode
:math:`\hat\eta` is a penalised maximum marginal likelihood (Minka, "Estimating a Dirichlet
distribution", solves the unpenalised problem; the weak hyperprior keeps the estimate off
the boundary :math:`\kappa \to 0` or :math:`\infty` that the plain MLE reaches when every
question is solved always or never, or all alike).

**Statistics.** The likelihood is a sum of K + 1 one-dimensional sums over the values of each
category's counts and of the totals, so it is computed from statistics of each group, not from
its questions (``_Data``): for whole-number counts the numbers of questions with more
than j trials in each category (Minka, §2), sums of D logarithms; for fractional (graded)
counts the distinct values, those of each dyadic panel replaced by its Chebyshev points when
it holds more than 12 (``_atoms``: the sums then agree with the sum over every question
to about 3e-8; the posterior moments moved by less than 1e-9 posterior sd on the shipped
datasets and on graded boards). The posterior moments under each node need four sums per
model and total (:func:`bayes_eval.posteriors.posterior.total_sums`, read under every
node by :func:`~bayes_eval.posteriors.posterior.sums_moments`).

**Integration.** ``"empirical-plugin"`` uses :math:`a = e^{\hat\eta}` as if it were known.
``"empirical"`` integrates over the hyperparameters: a Gauss-Hermite product grid on the
Laplace approximation :math:`N(\hat\eta, H^{-1})` (11 points per dimension for binary data, 7
where every group has 100 questions and 3 counts in each category; a Sobol sample of
:math:`N(\hat\eta, 1.5^2 H^{-1})` beyond five categories), reweighted by the exact ratio of
the posterior to the Gaussian, so
the nodes :math:`a_j` carry weights :math:`\omega_j \propto g_j\,p(\eta_j\mid n)/\phi(\eta_j)`.
At the nodes the fractional counts' atoms need not be as fine near zero as for any
:math:`a`: the panels below half the nodes' smallest :math:`a_k` merge into one
(``_coarsen``, the same error bound; on graded boards 120 atoms per category become
24-72, the moments moved by at most 3.3e-10 posterior sd).
Given :math:`a`, the posterior of every question is :math:`\mathrm{Dir}(a + n_\alpha)`
(closed form), so the posterior of :math:`\bar\pi` is the mixture over the nodes:
:math:`\mu = \sum_j\omega_j\mu_j`,
:math:`\sigma^2 = \sum_j\omega_j(\sigma_j^2 + \mu_j^2) - \mu^2` (law of total variance).
This is the posterior of the hierarchical model computed by quadrature instead of MCMC.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import digamma, gammaln

from bayes_eval.inputs import shown

__all__ = [
    "DEFAULT_PRIOR",
    "KAPPA_PRIOR",
    "META_KAPPA_PRIOR",
    "PRIOR_KINDS",
    "FittedPrior",
    "Prior",
    "fit_prior",
    "prior_label",
    "resolve_prior",
]


#: (median, log-sd) of the log-normal hyperprior on the concentration kappa: weakly informative
#: (95% in [0.26, 95]), so that a concentration no data identify (one trial per question of one
#: model) errs toward wide intervals.
KAPPA_PRIOR = (5.0, 1.5)
#: (median, log-sd) learned from real benchmarks: the predictive for a model on a new benchmark
#: of the meta-analysis of ``bayes-eval validate hyperprior`` (binary results). Not the default:
#: with one trial per question, held-out benchmarks cover 0.85-1.00 under it (their
#: concentrations differ tenfold); pass it as ``kappa_prior`` to accept calibration on average
#: over benchmarks.
META_KAPPA_PRIOR = (0.5, 1.26)
#: Named priors accepted by ``prior=``.
PRIOR_KINDS = ("uniform", "jeffreys", "empirical", "empirical-plugin")
Pool = Literal["board", "model", "benchmark"]
POOLS = ("board", "model", "benchmark")
PriorSpec = str | float | ArrayLike

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


class FittedPrior(NamedTuple):
    r"""A prior resolved against data: quadrature nodes of the Dirichlet parameter.

    Attributes
    ----------
    kind : str
        ``"uniform"``, ``"jeffreys"``, ``"fixed"``, ``"empirical"`` or ``"empirical-plugin"``.
    nodes : ndarray, shape ``(J, G, C + 1)``
        Dirichlet parameters of the J nodes for each of G groups (G = 1 for a fixed prior or
        ``pool="benchmark"``, else one per model).
    weights : ndarray, shape ``(J, G)``
        Posterior weights of the nodes (sum to 1 over J; zero for padding).
    alpha : ndarray, shape ``(G, C + 1)``
        The point value: the fixed prior, or the posterior mode :math:`e^{\hat\eta}`.
    pool : str or None
        ``"model"`` or ``"benchmark"`` for learned priors.
    converged : ndarray of bool, shape ``(G,)``
        Whether Newton's method met its tolerance (always True for fixed priors).
    log_alpha_cov : ndarray, shape ``(G, C + 1, C + 1)``
        Laplace covariance of :math:`\log a` (the inverse negative Hessian of the log
        hyperposterior at its mode); zeros for fixed priors.
    kappa_prior : ndarray, shape ``(G, 2)``, or None
        The (median, log-sd) of the hyperprior on each group's concentration the fit used
        (with ``pool="board"``, updated by the board); None for fixed priors.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])  # M = 5 questions
    >>> fixed = Prior.parse("uniform").fit(counts)
    >>> fixed.kind, fixed.nodes.shape, fixed.weights.tolist()
    ('uniform', (1, 1, 2), [[1.0]])
    >>> learned = Prior.parse("empirical", pool="model").fit(counts)
    >>> learned.label, learned.nodes.shape[1:], learned.alpha.shape
    ('empirical (per model, integrated)', (1, 2), (1, 2))
    >>> learned.plug_in().label
    'empirical (per model, plug-in)'
    """

    kind: str
    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]
    alpha: NDArray[np.float64]
    pool: str | None
    converged: NDArray[np.bool_]
    log_alpha_cov: NDArray[np.float64]
    kappa_prior: NDArray[np.float64] | None = None

    @property
    def label(self) -> str:
        """Short description, e.g. ``empirical (per model, integrated)``."""
        return prior_label(self)

    def plug_in(self) -> FittedPrior:
        r"""The plug-in prior of the same fit: the mode :math:`e^{\hat\eta}` as the one node.

        It is what :func:`fit_prior` with ``integrated=False`` returns for the same counts (one
        fit serves both: the coverage study scores the two from it).
        """
        if self.kind not in ("empirical", "empirical-plugin"):
            raise ValueError(f"the prior {self.label!r} is not learned: it has no plug-in form.")
        ones = np.ones((1, self.alpha.shape[0]))
        return self._replace(kind="empirical-plugin", nodes=self.alpha[None], weights=ones)


def prior_label(prior: FittedPrior) -> str:
    """A one-line description of a resolved prior for tables and JSON.

    Parameters
    ----------
    prior : FittedPrior
        A prior resolved against data (:meth:`Prior.fit`, :func:`fit_prior`).

    Returns
    -------
    str
        ``"uniform"``, ``"jeffreys"``, ``"Dirichlet(a_0, ..., a_C)"`` for another fixed
        prior, or ``"empirical (<pool>, integrated)"`` / ``"empirical (<pool>, plug-in)"``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])
    >>> prior_label(Prior.parse([1.0, 3.0]).fit(counts))
    'Dirichlet(1, 3)'
    >>> prior_label(fit_prior(counts, pool="benchmark", integrated=False))
    'empirical (benchmark-pooled, plug-in)'
    """
    if prior.kind in ("uniform", "jeffreys"):
        return prior.kind
    if prior.kind == "fixed":
        a = prior.alpha[0]
        return "Dirichlet(" + ", ".join(f"{x:g}" for x in a) + ")"
    how = "integrated" if prior.kind == "empirical" else "plug-in"
    return f"{prior.kind.split('-')[0]} ({_SCOPE[str(prior.pool)]}, {how})"


#: how a label names each pool
_SCOPE = {
    "board": "per model, board-informed",
    "model": "per model",
    "benchmark": "benchmark-pooled",
}


# --------------------------------------------------------------------------- objective


def _sum_last(x: NDArray) -> NDArray:
    """``x.sum(axis=-1)`` for a short last axis (categories), by slices.

    Numpy's reduction over a short contiguous axis is several times slower.
    """
    out = x[..., 0].copy()
    for i in range(1, x.shape[-1]):
        out += x[..., i]
    return out


def _hyper_value(
    eta: NDArray, kappa_prior: tuple[float, float], log_s: NDArray | None = None
) -> NDArray:
    """Log hyperprior in eta = log a (no derivatives: the line search and the nodes).

    ``log_s``: the log concentration, if known.
    """
    med, sd = (np.asarray(x, dtype=float) for x in kappa_prior)
    if log_s is None:
        log_s = np.log(_sum_last(np.exp(eta)))
    return _sum_last(eta) - eta.shape[-1] * log_s - 0.5 * ((log_s - np.log(med)) / sd) ** 2


def _hyper(eta: NDArray, kappa_prior: tuple[float, float]):
    """Log hyperprior in eta = log a, its gradient and Hessian; eta has shape (..., K)."""
    # median and log-sd: numbers, or one per group (shape (G,), eta (..., G, K))
    med, sd = (np.asarray(x, dtype=float) for x in kappa_prior)
    k = eta.shape[-1]
    a = np.exp(eta)
    s = a.sum(axis=-1, keepdims=True)
    m = a / s
    # d/d log kappa of the normal term, negated
    u = (np.log(s) - np.log(med)[..., None]) / (sd**2)[..., None]
    lp = eta.sum(axis=-1) - k * np.log(s[..., 0]) - 0.5 * u[..., 0] ** 2 * sd**2
    grad = 1.0 - (k + u) * m
    eye = np.eye(k)
    dm = m[..., :, None] * (eye - m[..., None, :])  # d m_i / d eta_j
    hess = -(k + u)[..., None] * dm - (m[..., :, None] * m[..., None, :]) / (sd**2)[..., None, None]
    return lp, grad, hess


class _Data(NamedTuple):
    r"""The sufficient statistics of the Dirichlet-multinomial likelihood of each group.

    The log likelihood separates into K + 1 one-dimensional sums,

    .. math::
        \ell(a) = \sum_k\sum_\alpha\big[\log\Gamma(a_k + n_{\alpha k}) - \log\Gamma(a_k)\big]
          - \sum_\alpha\big[\log\Gamma(s + N_\alpha) - \log\Gamma(s)\big],

    each over the values one category's counts (or the totals) take. Whole-number counts
    (``hist`` given): :math:`H_{gkj}` = questions of group g with more than j trials in
    category k (k = K: in all), j < D = the largest number of trials, as
    :math:`\log\Gamma(a + n) - \log\Gamma(a) = \sum_{j<n}\log(a + j)` (the statistics of
    Minka, "Estimating a Dirichlet distribution", §2); when few distinct totals occur (every
    question N trials) the totals' sum is taken from them instead (``x_total``, ``mult_total``
    as below, and ``hist`` then has the K categories only). Otherwise weighted atoms: values
    ``x`` (G, K, A) with multiplicities ``mult`` (zero for padding), and ``x_total``,
    ``mult_total`` (G, A') for the totals, each sum being
    :math:`\sum_i m_i[\log\Gamma(b + x_i) - \log\Gamma(b)]` (:func:`_atoms`).
    ``questions`` (G,) counts the questions with data, ``pooled`` (G, K) their summed counts,
    ``top`` (G, K) the largest count of each category (atoms only: the scale of their
    panels, :func:`_coarsen`).
    """

    hist: NDArray | None
    x: NDArray | None
    mult: NDArray | None
    x_total: NDArray | None
    mult_total: NDArray | None
    questions: NDArray
    pooled: NDArray
    top: NDArray | None = None


#: whole-number counts with at most this many trials per question (and at most four times as
#: many as questions, or 64: a logarithm costs about a quarter of a log-gamma, so the
#: histograms then cost no more than the distinct values) use the histogram form
_HIST_MAX = 4096
#: Chebyshev points per panel of the compressed fractional counts (:func:`_atoms`)
_PANEL_POINTS = 12
#: panels [2^-(i+1), 2^-i] X (X the largest value) for i < _PANELS; smaller values stay exact
_PANELS = 10


def _exceedances(columns: list[NDArray], d: int) -> NDArray:
    """How many of the M values exceed j, for j = 0..d-1, per column; shape (G, P, d).

    The columns ``columns`` are integer arrays (P of them, each (G, M), values in [0, d]).
    """
    g = columns[0].shape[0]
    base = (np.arange(g, dtype=np.int64) * (d + 1))[:, None]
    hist = np.stack(
        [np.bincount((base + c).ravel(), minlength=g * (d + 1)).reshape(g, d + 1) for c in columns],
        axis=1,
    )  # (G, P, d + 1)
    return hist[..., ::-1].cumsum(axis=-1)[..., ::-1][..., 1:].astype(np.float64)


def _chebyshev_weights(t: NDArray, mult: NDArray, starts: NDArray, points: int) -> NDArray:
    r"""Weights of the Lagrange basis at Chebyshev points, summed over runs of values.

    The weights are :math:`W_{sp} = \sum_{i \in s} m_i \ell_p(t_i)` of the Lagrange basis
    :math:`\ell_p` at the ``points`` Chebyshev points of the first kind, summed over the
    values ``t`` (in [-1, 1], multiplicities ``mult``) of each run ``s`` of consecutive values
    (runs beginning at ``starts``): through the Chebyshev moments
    :math:`\mu_{sn} = \sum_{i \in s} m_i T_n(t_i)` (the three-term recurrence, which the
    multiplicities leave linear: one (points, n) array, one segmented sum), as
    :math:`\ell_p = \sum_n \frac{2 - \delta_{n0}}{P} T_n(t_p) T_n`; shape
    ``(starts.size, points)``.
    """
    terms = np.empty((points, t.size))  # m_i T_n(t_i), row by row
    terms[0] = mult
    if points > 1:
        np.multiply(mult, t, out=terms[1])
    t2 = 2.0 * t
    for n in range(2, points):  # T_n = 2t T_{n-1} - T_{n-2}, in place
        np.multiply(t2, terms[n - 1], out=terms[n])
        terms[n] -= terms[n - 2]
    mu = np.add.reduceat(terms, starts, axis=1)  # (points, S)
    n = np.arange(points)
    tp = np.pi * (n + 0.5) / points
    basis = np.cos(np.outer(n, tp)) * np.where(n == 0, 1.0, 2.0)[:, None] / points  # (n, p)
    return mu.T @ basis


def _atoms(vals: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    r"""Weighted atoms of one-dimensional sums of :class:`_Data`, one per column and group.

    The columns are those of ``vals`` (G, M, P): the fractional counts of a category, or the
    totals.

    Each sum :math:`\sum_\alpha f(x_\alpha)`, :math:`f(x) = \log\Gamma(b + x) - \log\Gamma(b)`
    (and its derivatives in b), runs over the questions' values (zeros contribute nothing).
    Where a panel :math:`(c, 2c]` (:math:`c = 2^{-(i+1)}X`, X the largest value, i <
    :data:`_PANELS`) holds more than :data:`_PANEL_POINTS` distinct values, they are replaced
    by the panel's Chebyshev points with the weights that integrate the panel's interpolating
    polynomial against the values (:func:`_chebyshev_weights`): for any b > 0, f is analytic
    in x off :math:`(-\infty, -b]`, at least one panel width from the panel, so the
    interpolation error falls like :math:`\rho^{-P}`, :math:`\rho = 3 + 2\sqrt2` (Trefethen,
    "Approximation Theory and Approximation Practice", Thm 8.2): with P = 12 the sums over
    1,000 graded questions agree with the sums over every question to about 3e-8 for
    concentrations from 1e-3 to 1e4 (``tests/posteriors/test_prior_statistics.py``). The
    other values stay exact, one atom per distinct value with its multiplicity.

    Each column's values are sorted once (a question without trials has only zeros, which
    sort first and are dropped): the distinct values are then runs, the panels runs of them,
    and the largest value the last. Returns ``x`` and ``w`` (G, P, A), and the largest value
    of each (group, column) (G, P).
    """
    g, m, pieces = vals.shape
    rows = g * pieces
    if m == 0 or rows == 0:  # no values: one empty atom per row
        return np.zeros((g, pieces, 1)), np.zeros((g, pieces, 1)), np.zeros((g, pieces))
    flat = np.sort(np.moveaxis(vals, -1, 1), axis=-1).ravel()  # row r = (group, column)
    top = flat[m - 1 :: m].copy()
    first = np.empty(flat.size, dtype=bool)  # where a run of equal values begins
    np.not_equal(flat[1:], flat[:-1], out=first[1:])
    first[::m] = True
    start = np.flatnonzero(first)
    count = np.diff(start, append=flat.size).astype(np.float64)
    x = flat[start]
    owner = start // m
    pos = x > 0.0
    x, count, owner = x[pos], count[pos], owner[pos]
    # the dyadic panel floor(-log2(x / X)) from the binary exponent of the ratio (a log2
    # costs about 5 ns a value here): X 2^-(i + 1) < x <= X 2^-i is panel i
    bits = (x / top[owner]).view(np.uint64)
    expo = (bits >> np.uint64(52)).astype(np.int64) - 1023
    panel = np.minimum(-expo - 1 + ((bits & np.uint64((1 << 52) - 1)) == 0), _PANELS)
    seg = owner * (_PANELS + 1) + panel  # constant along runs: values ascend, panels descend
    brk = np.empty(seg.size, dtype=bool)
    brk[:1] = True
    np.not_equal(seg[1:], seg[:-1], out=brk[1:])
    run = np.flatnonzero(brk)
    size = np.diff(run, append=seg.size)
    pts = _PANEL_POINTS
    squeeze = (size > pts) & (panel[run] < _PANELS)
    inside = np.repeat(squeeze, size)
    out_own, out_x, out_w = [owner[~inside]], [x[~inside]], [count[~inside]]
    if squeeze.any():
        which = run[squeeze]  # the first value of each squeezed panel
        hi = top[owner[which]] * 2.0 ** -panel[which].astype(np.float64)
        lo = 0.5 * hi
        reps = size[squeeze]
        starts = np.cumsum(reps) - reps
        t = np.clip(
            (2.0 * x[inside] - np.repeat(lo + hi, reps)) / np.repeat(hi - lo, reps), -1.0, 1.0
        )
        wts = _chebyshev_weights(t, count[inside], starts, pts)  # (S, P)
        tp = np.cos(np.pi * (np.arange(pts) + 0.5) / pts)
        out_own.append(np.repeat(owner[which], pts))
        out_x.append((0.5 * (lo + hi)[:, None] + 0.5 * (hi - lo)[:, None] * tp).ravel())
        out_w.append(wts.ravel())
    own, x, w = (np.concatenate(v) for v in (out_own, out_x, out_w))
    xs, ws = _pad(own, x, w, rows)
    return xs.reshape(g, pieces, -1), ws.reshape(g, pieces, -1), top.reshape(g, pieces)


def _pad(own: NDArray, x: NDArray, w: NDArray, n: int) -> tuple[NDArray, NDArray]:
    """Atoms (value ``x``, weight ``w``) of owners ``own`` < n as rows (n, A), zero-padded."""
    order = np.argsort(own, kind="stable")
    own, x, w = own[order], x[order], w[order]
    count = np.bincount(own, minlength=n)
    pos = np.arange(own.size) - np.repeat(np.cumsum(count) - count, count)
    width = max(int(count.max(initial=0)), 1)
    xs, ws = np.zeros((n, width)), np.zeros((n, width))
    xs[own, pos], ws[own, pos] = x, w
    return xs, ws


def _whole_totals(total: NDArray, d: int) -> tuple[NDArray, NDArray]:
    """The distinct nonzero whole totals (G, T) that occur in ``total`` (G, M), and their counts.

    Each row holds the same values, those that occur in any group; the counts are how many
    questions of each group have each (zero where none).
    """
    g = total.shape[0]
    count = np.bincount(
        (np.arange(g)[:, None] * (d + 1) + total.astype(np.int64)).ravel(),
        minlength=g * (d + 1),
    ).reshape(g, d + 1)[:, 1:]
    used = np.flatnonzero(count.any(axis=0))  # the totals that occur
    return np.broadcast_to(used + 1.0, (g, used.size)).copy(), count[:, used].astype(np.float64)


def _compress(arr: NDArray, *, histogram: bool | None = None) -> _Data:
    """The sufficient statistics of the counts ``arr`` (G, M, K) (:class:`_Data`).

    They are histograms for whole-number counts (``histogram=None``: when at most
    :data:`_HIST_MAX` trials per question, and at most ``max(4M, 64)``), weighted atoms
    otherwise. An integer array is whole counts: not copied, not checked.
    """
    whole = arr.dtype.kind in "iu"
    # the category axis is short: slices of it, not reductions over it (several times faster)
    total = arr[..., 0].astype(np.int64 if whole else np.float64)
    for k in range(1, arr.shape[-1]):
        total += arr[..., k]
    answered = total > 0  # questions without trials contribute no term
    questions = answered.sum(axis=1).astype(np.float64)
    if histogram is None:
        d = float(total.max(initial=0.0))
        small = d <= min(_HIST_MAX, max(4 * arr.shape[1], 64))
        histogram = small and (whole or bool(np.all(total == np.floor(total))))
        histogram = histogram and (whole or bool(np.all(arr == np.floor(arr))))
    if histogram:
        d = int(total.max(initial=0.0))
        k = arr.shape[-1]
        columns = [np.asarray(arr[..., i], dtype=np.int64) for i in range(k)]
        x_total, mult_total = _whole_totals(total, d)
        if 4 * (x_total.shape[1] + 1) < d:
            # few distinct totals (e.g. every question N trials): their sum by log-gammas, one
            # pair per distinct total, instead of d logarithms
            hist = _exceedances(columns, d)
        else:
            hist = _exceedances([*columns, total.astype(np.int64)], d)
            x_total = mult_total = None
        # the summed counts of each category: sum_q n_qk = sum_j H_kj
        pooled = hist[:, :k].sum(axis=-1)
        return _Data(hist, None, None, x_total, mult_total, questions, pooled)
    arr, total = arr.astype(np.float64, copy=False), total.astype(np.float64, copy=False)
    pooled = np.stack([arr[..., k].sum(axis=1) for k in range(arr.shape[-1])], axis=-1)
    x, mult, top = _atoms(arr)
    d = float(total.max(initial=0.0))
    if d <= _HIST_MAX and np.all(total == np.floor(total)):  # whole totals (N trials): few
        x_total, mult_total = _whole_totals(total, int(d))
    else:
        x_total, mult_total = (v[:, 0] for v in _atoms(total[..., None])[:2])
    return _Data(None, x, mult, x_total, mult_total, questions, pooled, top)


def _trigamma(x: NDArray) -> NDArray:
    r""":math:`\psi_1(x)` for x > 0, by a recurrence and the asymptotic series.

    Eight steps of :math:`\psi_1(x) = \psi_1(x + 1) + 1/x^2`, then the asymptotic series
    :math:`\psi_1(y) \sim 1/y + 1/(2y^2) + \sum_k B_{2k}/y^{2k+1}` (Abramowitz and Stegun,
    "Handbook of Mathematical Functions", 6.4.12) through :math:`y^{-15}`, whose next term is
    below 3e-14 of the value for y >= 8. About four times faster than
    ``scipy.special.zeta(2, x)``; agrees with it to 1e-13 (tested).
    """
    acc = np.zeros_like(x)
    y = x.copy()
    for _ in range(8):
        acc += 1.0 / (y * y)
        y += 1.0
    r = 1.0 / y
    r2 = r * r
    tail = -691.0 / 2730.0 + r2 * 7.0 / 6.0
    tail = 1.0 / 6.0 + r2 * (
        -1.0 / 30.0 + r2 * (1.0 / 42.0 + r2 * (-1.0 / 30.0 + r2 * (5.0 / 66.0 + r2 * tail)))
    )
    return acc + r + r2 * (0.5 + r * tail)


def _signed(a: NDArray) -> tuple[NDArray, NDArray]:
    """The arguments (a_1..a_K, s) of the K + 1 sums, and their signs."""
    b = np.concatenate([a, a.sum(axis=-1, keepdims=True)], axis=-1)
    sign = np.ones(b.shape[-1])
    sign[-1] = -1.0
    return b, sign


#: histograms with at most this many trials are summed one trial at a time (contiguous
#: slices), longer ones by one product over the trials' axis
_SLICED_TRIALS = 16


def _log_sums(b: NDArray, hist: NDArray, log_b: NDArray | None = None) -> NDArray:
    r""":math:`\sum_j H_{gkj}\log(b_{gk} + j)` for ``b`` (..., G, R) and ``hist`` (G, R, D).

    A few trials are summed one slice at a time (no (..., G, R, D) array, no reduction over a
    short axis), many by one contraction. ``log_b``: :math:`\log b`, if known (the j = 0 term).
    """
    d = hist.shape[-1]
    if d <= _SLICED_TRIALS:
        out = hist[..., 0] * (np.log(b) if log_b is None else log_b)
        term = np.empty(b.shape)
        for j in range(1, d):
            np.add(b, float(j), out=term)
            np.log(term, out=term)
            term *= np.ascontiguousarray(hist[..., j])
            out += term
        return out
    logs = b[..., None] + np.arange(d, dtype=np.float64)
    np.log(logs, out=logs)
    return np.einsum("...gkd,gkd->...gk", logs, hist)


def _loglik(
    eta: NDArray, data: _Data, a: NDArray | None = None, log_s: NDArray | None = None
) -> NDArray:
    """Dirichlet-multinomial log marginal likelihood; eta (..., G, K).

    ``a`` = exp(eta) and ``log_s`` = log(sum(a)), if known.
    """
    if a is None:
        a = np.exp(eta)
    if data.hist is not None:
        if data.x_total is not None:
            piece = _log_sums(a, data.hist, eta)
            cat = _sum_last(piece)
        else:  # the totals' histogram too: the arguments (a_1..a_K, s) and their logs
            k = a.shape[-1]
            b, log_b = np.empty((*a.shape[:-1], k + 1)), np.empty((*a.shape[:-1], k + 1))
            b[..., :k], log_b[..., :k] = a, eta
            b[..., k] = _sum_last(a)
            log_b[..., k] = np.log(b[..., k]) if log_s is None else log_s
            piece = _log_sums(b, data.hist, log_b)
            return _sum_last(piece[..., :-1]) - piece[..., -1]
    else:
        cat = (data.mult * gammaln(a[..., None] + data.x)).sum(axis=(-2, -1)) - (
            data.mult.sum(axis=-1) * gammaln(a)
        ).sum(axis=-1)
    s = _sum_last(a)
    tot = _sum_last(data.mult_total * gammaln(s[..., None] + data.x_total)) - _sum_last(
        data.mult_total
    ) * gammaln(s)
    return cat - tot


def _sums(u: NDArray, data: _Data) -> NDArray:
    """The K + 1 one-dimensional sums of :class:`_Data` (categories, then the totals).

    Each is at its own argument ``b = exp(u)``, ``u`` of shape (..., G, K + 1).
    """
    b = np.exp(u)
    out = np.empty(u.shape)
    if data.hist is not None:
        rows = data.hist.shape[-2]  # K, or K + 1 with the totals' histogram
        out[..., :rows] = _log_sums(b[..., :rows], data.hist, u[..., :rows])
    else:
        x, w = data.x, data.mult
        out[..., :-1] = np.einsum("...gka,gka->...gk", gammaln(b[..., :-1, None] + x), w)
        out[..., :-1] -= _sum_last(w) * gammaln(b[..., :-1])
    if data.x_total is not None:
        s = b[..., -1]
        out[..., -1] = _sum_last(data.mult_total * gammaln(s[..., None] + data.x_total))
        out[..., -1] -= _sum_last(data.mult_total) * gammaln(s)
    return out


#: relative accuracy of the sums interpolated across the quadrature nodes
_INTERP_EPS = 1e-15


def _loglik_nodes(
    eta: NDArray,
    data: _Data,
    reach: NDArray,
    a: NDArray | None = None,
    log_s: NDArray | None = None,
) -> NDArray:
    r""":func:`_loglik` at the quadrature nodes ``eta`` (J, G, K).

    Each one-dimensional sum is interpolated across the nodes when that is cheaper than
    evaluating it at every node.

    Each sum is a function of :math:`u = \log b` alone (b = :math:`a_k`, or s for the
    totals), analytic in the strip :math:`|\mathrm{Im}\,u| < \pi` (the map
    :math:`u \mapsto e^u` takes the strip onto the plane cut along the negative axis, where
    :math:`\log(b + j)` and :math:`\log\Gamma(b + x)` are analytic). On the interval
    :math:`[u_-, u_+]` of half-width h that the nodes span, its Chebyshev interpolant in P
    points errs by at most :math:`4M\rho^{-(P-1)}/(\rho - 1)` (Trefethen, "Approximation
    Theory and Approximation Practice", Thm 8.2), :math:`\rho` the Bernstein ellipse inside
    the strip (semi-minor axis :math:`0.9\pi/h`) and M the size of the sum on it; P is chosen
    for a relative error :data:`_INTERP_EPS`, per group: a narrow hyperposterior (many
    questions) needs about 15 points for 49 nodes. Groups for which that is not cheaper
    (few terms per sum, or a wide hyperposterior) are evaluated at every node. ``reach``
    (G,): a bound on the half-width of every argument's range over the nodes (of the
    totals' too: :math:`\log s` is 1-Lipschitz in the :math:`\log a_k`), to decide before
    any work. ``a`` = exp(eta) and ``log_s`` = log(sum(a)), if the caller has them.
    """
    if a is None or log_s is None:
        a = np.exp(eta)
        log_s = np.log(_sum_last(a))

    def needed(half: NDArray) -> NDArray:
        minor = 0.9 * np.pi / np.maximum(half, 1e-12)
        rho = minor + np.sqrt(minor * minor + 1.0)
        return 1 + np.ceil(np.log(4.0 / ((rho - 1.0) * _INTERP_EPS)) / np.log(rho)).astype(int)

    n_nodes = eta.shape[0]
    # cost per sum, in logarithms: a log-gamma costs about four; Clenshaw's three operations
    # per point and node about one and a half
    terms = data.hist.shape[-1] if data.hist is not None else 4 * data.x.shape[-1]
    points = needed(reach)
    cheaper = points * terms + 1.5 * n_nodes * points < 0.7 * n_nodes * terms
    if not cheaper.any():
        return _loglik(eta, data, a, log_s)
    out = np.empty(eta.shape[:2])
    if not cheaper.all():
        rest = np.flatnonzero(~cheaper)
        rows = _Data(*(_rows(f, rest) for f in data))
        out[:, rest] = _loglik(eta[:, rest], rows, a[:, rest], log_s[:, rest])
    sel = np.flatnonzero(cheaper)
    sub = _Data(*(_rows(f, sel) for f in data))
    u = np.concatenate([eta[:, sel], log_s[:, sel, None]], axis=-1)
    lo, hi = u.min(axis=0), u.max(axis=0)  # (G', K + 1)
    mid, half = 0.5 * (hi + lo), np.maximum(0.5 * (hi - lo), 1e-12)
    n_points = int(needed(half.max(axis=-1)).max())
    theta = np.pi * (np.arange(n_points) + 0.5) / n_points
    values = _sums(mid + half * np.cos(theta)[:, None, None], sub)  # (P, G', K + 1)
    # Chebyshev coefficients (a discrete cosine transform), then Clenshaw's recurrence
    basis = np.cos(np.outer(np.arange(n_points), theta)) * (2.0 / n_points)
    basis[0] *= 0.5
    coef = np.einsum("np,pgk->ngk", basis, values)
    t = (u - mid) / half
    t2 = 2.0 * t
    b1, b2 = np.zeros(t.shape), np.zeros(t.shape)
    for c in coef[:0:-1]:
        b1, b2 = t2 * b1 - b2 + c, b1
    f = t * b1 - b2 + coef[0]  # (J, G', K + 1)
    out[:, sel] = _sum_last(f[..., :-1]) - f[..., -1]
    return out


def _rows(field: NDArray | None, groups: NDArray) -> NDArray | None:
    """The rows of some groups of one field of :class:`_Data`."""
    return None if field is None else field[groups]


def _derivatives(eta: NDArray, data: _Data):
    """Gradient and Hessian of the log likelihood in eta, for eta of shape (G, K)."""
    a = np.exp(eta)
    k = a.shape[-1]
    s = a.sum(axis=-1, keepdims=True)
    first, second = [], []  # d/db and d2/db2 of each sum: categories, then the totals
    if data.hist is not None:
        b = a if data.x_total is not None else _signed(a)[0]  # (G, K [+ 1])
        j = np.arange(data.hist.shape[-1], dtype=np.float64)
        inv = 1.0 / (b[..., None] + j)  # (G, K [+ 1], D)
        hi = data.hist * inv
        first.append(hi.sum(axis=-1))
        second.append(-(hi * inv).sum(axis=-1))
    atoms = [] if data.hist is not None else [(a, data.x, data.mult)]
    if data.x_total is not None:  # the totals as atoms (values and weights)
        atoms.append((s, data.x_total[:, None], data.mult_total[:, None]))
    for arg, x, w in atoms:
        wsum = w.sum(axis=-1)
        first.append((w * digamma(arg[..., None] + x)).sum(axis=-1) - wsum * digamma(arg))
        second.append((w * _trigamma(arg[..., None] + x)).sum(axis=-1) - wsum * _trigamma(arg))
    first, second = np.concatenate(first, axis=-1), np.concatenate(second, axis=-1)
    g_alpha = first[:, :k] - first[:, k:]
    h_alpha = -second[:, k, None, None] * np.ones((k, k)) + second[:, :k, None] * np.eye(k)
    grad = a * g_alpha
    hess = a[:, :, None] * a[:, None, :] * h_alpha + np.eye(k) * grad[:, :, None]
    return grad, hess


def _objective(eta, data, kappa_prior):
    a = np.exp(eta)
    log_s = np.log(_sum_last(a))
    return _loglik(eta, data, a, log_s) + _hyper_value(eta, kappa_prior, log_s)


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


def _newton(data: _Data, kappa_prior, max_iter: int = 100, tol: float = 1e-8):
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
    hyper = tuple(np.broadcast_to(np.asarray(x, dtype=float), (g,)) for x in kappa_prior)
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
            sub = _Data(*(_rows(x, keep) for x in sub))
            sub_hyper = tuple(x[keep] for x in sub_hyper)
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


# --------------------------------------------------------------------------- quadrature


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


#: the coarse panel of :func:`_coarsen` reaches at most 1 / _COARSE of the smallest argument
_COARSE = 2.0


def _coarsen(data: _Data, low: NDArray) -> _Data:
    r"""The atoms of :func:`_atoms` for arguments :math:`b \ge` ``low`` (G, K) only.

    Restricting the arguments leaves fewer of them; ``low`` is the quadrature nodes' smallest
    :math:`a_k`.

    The dyadic panels :math:`(c, 2c]` of :func:`_atoms` are as fine near zero as they are
    because :math:`f(x) = \log\Gamma(b + x) - \log\Gamma(b)` has its singularity at
    :math:`x = -b`, which may lie next to zero. For :math:`b \ge` ``low`` the panels below
    :math:`c^* = X 2^{-i} \le` ``low`` / :data:`_COARSE` (X the largest value, the panels'
    scale) are one panel :math:`[0, c^*]`, whose centre lies :math:`c^*/2 + b \ge 5c^*/2`
    from the singularity, five half-widths (a dyadic panel: three), so no larger error bound
    (Trefethen, "Approximation Theory and Approximation Practice", Thm 8.2). Its Chebyshev
    weights are computed from the atoms it replaces: each fine panel's atoms integrate every
    polynomial of degree below :data:`_PANEL_POINTS` over its values exactly, the coarse
    panel's Lagrange basis among them, so the weights are those the values themselves would
    give. Groups with at most :data:`_PANEL_POINTS` atoms below :math:`c^*` keep them.
    """
    if data.x is None or data.top is None:
        return data
    x, w, top = data.x, data.mult, data.top[..., None]  # (G, K, A), (G, K, 1)
    pts = _PANEL_POINTS
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.ceil(np.log2(_COARSE * top / low[..., None]))
    steps = np.where(top > 0, np.maximum(np.nan_to_num(steps, nan=0.0, posinf=0.0), 0.0), 0.0)
    cut = top * 2.0**-steps  # (G, K, 1): a panel boundary at most low (or the scale itself)
    below = (x <= cut) & (w != 0.0)
    merge = below.sum(axis=-1) > pts  # (G, K)
    if not merge.any():
        return data
    below &= merge[..., None]
    g, k, _ = x.shape
    rows = np.arange(g * k).reshape(g, k)
    keep = (w != 0.0) & ~below
    own_keep = np.broadcast_to(rows[..., None], x.shape)[keep]
    sel = np.flatnonzero(merge.ravel())
    xb, wb = x.reshape(g * k, -1)[sel], np.where(below, w, 0.0).reshape(g * k, -1)[sel]
    c = cut.reshape(g * k)[sel][:, None]
    t = np.clip(2.0 * xb / c - 1.0, -1.0, 1.0)
    n = np.arange(pts)
    tp = np.pi * (n + 0.5) / pts
    # the weighted Chebyshev moments sum_a w_a T_n(t_a) (S, n), T_n by its three-term
    # recurrence (a cosine of an arccosine per atom and degree cost 3 ms on a 93 x 1136 board)
    moments = np.empty((t.shape[0], pts))
    prev, cur = np.ones_like(t), t
    moments[:, 0] = wb.sum(axis=-1)
    for i in range(1, pts):
        moments[:, i] = np.einsum("sa,sa->s", wb, cur)
        prev, cur = cur, 2.0 * t * cur - prev  # T_{n+1} = 2t T_n - T_{n-1}
    basis = np.cos(np.outer(n, tp)) * np.where(n == 0, 1.0, 2.0)[:, None] / pts  # (n, p)
    wts = np.einsum("sn,np->sp", moments, basis)
    new_x = 0.5 * c * (1.0 + np.cos(tp))[None, :]  # (S, P)
    own = np.concatenate([own_keep, np.repeat(sel, pts)])
    xs, ws = _pad(
        own, np.concatenate([x[keep], new_x.ravel()]), np.concatenate([w[keep], wts.ravel()]), g * k
    )
    return data._replace(x=xs.reshape(g, k, -1), mult=ws.reshape(g, k, -1))


def _integrate(eta_hat, neg_h, data: _Data, kappa_prior, per_dim=None):
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
    counts: NDArray, alpha: NDArray, cov: NDArray, kappa_prior: tuple[float, float]
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


# --------------------------------------------------------------------------- public


def _check_counts(counts: ArrayLike) -> NDArray:
    """The counts as (L, M, C + 1), checked finite and >= 0.

    Integer arrays stay as they are (whole counts, not copied), anything else becomes floats.
    """
    arr = np.asarray(counts)
    if arr.dtype.kind not in "iu":
        arr = np.asarray(arr, dtype=float)
    if arr.ndim not in (2, 3) or arr.shape[-1] < 2:
        raise ValueError(
            f"counts have shape {arr.shape}; expected (M, C + 1) or (L, M, C + 1) with C >= 1."
        )
    finite = arr.dtype.kind in "iu" or np.isfinite(arr).all()
    if not (finite and (arr.dtype.kind == "u" or arr.min(initial=0) >= 0)):
        raise ValueError("counts must be finite and >= 0.")
    return arr if arr.ndim == 3 else arr[None]


def fit_prior(
    counts: ArrayLike,
    *,
    pool: Pool = "model",
    integrated: bool = True,
    kappa_prior: tuple[float, float] | None = None,
    nodes_per_dim: int | None = None,
) -> FittedPrior:
    r"""Learn the Dirichlet prior of the questions from their counts (see the module docstring).

    Parameters
    ----------
    counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
        Category counts per question (and model); fractional counts are allowed. Questions
        without trials contribute nothing.
    pool : {"board", "model", "benchmark"}, keyword-only
        (default ``"model"`` here, the low-level function; :class:`Prior`, the library's
        functions and every command default to ``"board"``.)
        One prior per model (``"model"``), one per model whose concentration's hyperprior is
        first updated by the other models on the same questions (``"board"``: binary results
        of at least two models sharing questions, :mod:`bayes_eval.posteriors.board`; else as
        ``"model"``), or one for all models of the benchmark (``"benchmark"``).
    integrated : bool, keyword-only
        Integrate over the hyperparameters (``"empirical"``) or plug in their mode
        (``"empirical-plugin"``).
    kappa_prior : (float, float) or (array, array), optional, keyword-only
        Median and log-sd of the log-normal hyperprior on the concentration: numbers, or one
        each per model (``pool="model"``/``"board"``). Default: :data:`KAPPA_PRIOR`.
    nodes_per_dim : int, optional, keyword-only
        Gauss-Hermite points per dimension of :math:`\log a`. Default: 11 for binary data, 7
        for three categories, 5 for four, 3 for five (7, 5, 3, 3 when every group has at least
        100 questions with data and at least 3 counts in each category, where the
        hyperposterior is close to Gaussian), a 256-point scrambled Sobol sample (widened
        1.5 times) beyond five categories.

    Returns
    -------
    FittedPrior
        The nodes and weights of the hyperposterior (one node, its mode, when
        ``integrated=False``), the mode ``alpha`` of each group and its Laplace covariance.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.3, 0.6, size=4000)
    >>> counts = np.stack([10 - (k := rng.binomial(10, p)), k], axis=-1)
    >>> fit = fit_prior(counts, integrated=False)
    >>> np.round(fit.alpha[0], 2)  # category 0 (fail) then 1 (success)
    array([0.59, 0.3 ])
    """
    arr = _check_counts(counts)
    if pool not in POOLS:
        raise ValueError(f"pool is {shown(pool)}; expected one of {list(POOLS)}.")
    if kappa_prior is None:
        kappa_prior = KAPPA_PRIOR
    if pool == "benchmark":
        arr = arr.reshape(1, -1, arr.shape[-1])
    try:
        med, sd = (
            np.broadcast_to(np.asarray(x, dtype=float), (arr.shape[0],)).copy() for x in kappa_prior
        )
    except (TypeError, ValueError):
        med = sd = np.full(1, np.nan)
    if not (
        np.all(med > 0) and np.all(sd > 0) and np.isfinite(med).all() and np.isfinite(sd).all()
    ):
        raise ValueError(
            f"kappa_prior is {shown(kappa_prior)}; expected (median > 0, log-sd > 0): numbers, "
            f"or one each per group ({arr.shape[0]})."
        )
    hyper = (med, sd)
    if pool == "board":
        from bayes_eval.posteriors.board import board_concentration

        board = board_concentration(arr.astype(np.float64, copy=False), hyper)
        if board is not None:
            hyper = (board.median, board.log_sd)
    data = _compress(arr)
    eta, neg_h, converged = _newton(data, hyper)
    alpha = np.exp(eta)
    cov = np.linalg.inv(neg_h)
    kappa = np.stack(hyper, axis=-1)
    if not integrated:
        return FittedPrior(
            "empirical",
            alpha[None],
            np.ones((1, alpha.shape[0])),
            alpha,
            pool,
            converged,
            cov,
            kappa,
        ).plug_in()
    nodes, weights = _integrate(eta, neg_h, data, hyper, nodes_per_dim)
    return FittedPrior("empirical", nodes, weights, alpha, pool, converged, cov, kappa)


def _fixed(kind: str, alpha: NDArray) -> FittedPrior:
    if kind == "fixed" and np.all(alpha == 1.0):
        kind = "uniform"
    elif kind == "fixed" and np.all(alpha == 0.5):
        kind = "jeffreys"
    a = alpha[None, None, :]
    cov = np.zeros((1, alpha.size, alpha.size))
    return FittedPrior(kind, a, np.ones((1, 1)), a[0], None, np.ones(1, dtype=bool), cov)


#: The prior of every command of the CLI (and of :func:`bayes_eval.ranking.leaderboard`):
#: learned per model and integrated over its hyperparameters (calibrated on real benchmarks).
#: The scorio-named functions keep the paper's and scorio's ``"uniform"``.
DEFAULT_PRIOR = "empirical"


def _frozen(x: ArrayLike | None, dtype=None) -> NDArray | None:
    """A read-only copy (the prior never aliases an array the caller may change)."""
    if x is None:
        return None
    arr = np.array(x, dtype=dtype, copy=True)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Prior:
    r"""The per-question prior of the closed form, validated once and carried everywhere.

    Every question gets :math:`\pi_\alpha \sim \mathrm{Dir}(a + \lambda n^0_\alpha)`:
    :math:`a` is fixed (uniform, Jeffreys, a number or a vector) or learned from the
    questions (``"empirical"``: integrated over its hyperparameters; ``"empirical-plugin"``:
    the posterior mode plugged in; see the module docstring), and :math:`n^0_\alpha` are the
    counts of earlier runs ``R0`` of the same questions, weighted by the ``discount``
    :math:`\lambda \in (0, 1]` (the power prior of Ibrahim and Chen, "Power prior
    distributions for regression models", which for a multinomial likelihood and a
    Dirichlet prior is again a Dirichlet; :math:`\lambda = 1` is eq. 6 of Hariri et al.,
    "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").

    Immutable: arrays are read-only copies. Build it from the user's words with
    :meth:`parse`; :attr:`label` prints the same way in every output.

    Attributes
    ----------
    kind : {"uniform", "jeffreys", "fixed", "empirical", "empirical-plugin"}
        Which prior (default ``"uniform"``); a fixed concentration of 1 or 1/2 for every
        category is named ``"uniform"`` or ``"jeffreys"``.
    alpha : ndarray or None
        ``"fixed"``: the concentration, a scalar (every category) or one per category.
    pool : {"board", "model", "benchmark"}
        Learned priors: one per model, its concentration's hyperprior updated by the other
        models on the same questions (``"board"``, the default; as ``"model"`` for one model
        or rubric data); one per model; or one shared by all models of the results.
    runs, runs_mask : ndarray or None
        Earlier runs ``R0`` (``(M, D)`` or ``(L, M, D)``, labels as ``R``) and their missing
        trials (True = missing).
    discount : float
        Weight :math:`\lambda` of the earlier runs' counts, in (0, 1].
    source : str or None
        Where the earlier runs came from (a file name), for the label.
    kappa_prior : (float, float) or None
        Median and log-sd of the hyperprior on the concentration (learned priors); None:
        :data:`KAPPA_PRIOR`.
    name : str
        The argument the user gave it as (``"prior"``, ``"alpha0"``), for messages.

    Examples
    --------
    >>> from bayes_eval.posteriors.priors import Prior
    >>> Prior().label
    'uniform'
    >>> Prior("fixed", alpha=[1.0, 3.0]).label
    'Dirichlet(1, 3)'
    >>> Prior("fixed", alpha=0.5).kind  # the named priors, named
    'jeffreys'
    """

    kind: str = "uniform"
    alpha: NDArray[np.float64] | None = None
    pool: str = "board"
    runs: NDArray | None = field(default=None, repr=False)
    runs_mask: NDArray[np.bool_] | None = field(default=None, repr=False)
    discount: float = 1.0
    source: str | None = None
    kappa_prior: tuple[float, float] | None = None
    #: the argument the user gave it as (``prior``, ``alpha0``), for messages
    name: str = field(default="prior", repr=False)

    def __post_init__(self) -> None:  # noqa: C901 - one check per field of the prior, each with its message
        kinds = (*PRIOR_KINDS, "fixed")
        if self.kind not in kinds:
            raise ValueError(f"prior kind is {shown(self.kind)}; expected one of {list(kinds)}.")
        if self.pool not in POOLS:
            raise ValueError(f"pool is {shown(self.pool)}; expected one of {list(POOLS)}.")
        if (self.kind == "fixed") != (self.alpha is not None):
            raise ValueError("alpha is given exactly for a fixed prior (kind='fixed').")
        if self.alpha is not None:
            alpha = np.asarray(self.alpha, dtype=np.float64)
            if alpha.ndim > 1 or alpha.size == 0:
                raise ValueError(
                    f"{self.name} is {shown(self.alpha)}; expected a positive number or a vector "
                    "of C + 1 positive numbers."
                )
            if not (np.isfinite(alpha).all() and (alpha > 0).all()):
                raise ValueError(f"{self.name} is {shown(self.alpha)}; expected finite values > 0.")
            if alpha.ndim == 0 and float(alpha) in (1.0, 0.5):  # the named priors, named
                object.__setattr__(self, "kind", "uniform" if alpha == 1.0 else "jeffreys")
                object.__setattr__(self, "alpha", None)
            else:
                object.__setattr__(self, "alpha", _frozen(alpha, np.float64))
        d = self.discount
        if isinstance(d, bool) or not isinstance(d, (int, float, np.floating)) or not 0 < d <= 1:
            raise ValueError(
                f"discount is {shown(d)}; expected a weight in (0, 1] for the earlier runs."
            )
        object.__setattr__(self, "discount", float(d))
        if self.kappa_prior is not None:
            try:
                med, sd = (float(x) for x in self.kappa_prior)
            except (TypeError, ValueError):
                med = sd = float("nan")
            if not (med > 0 and sd > 0):
                raise ValueError(
                    f"kappa_prior is {shown(self.kappa_prior)}; expected (median > 0, log-sd > 0)."
                )
            object.__setattr__(self, "kappa_prior", (med, sd))
        if self.runs is None and self.runs_mask is not None:
            raise ValueError("runs_mask is given without runs (R0).")
        if self.runs is not None:
            runs = self.runs
            if isinstance(runs, np.ma.MaskedArray):
                mask = np.ma.getmaskarray(runs)
                runs = np.ma.getdata(runs)
                if self.runs_mask is not None:
                    mask = mask | np.asarray(self.runs_mask, dtype=bool)
                object.__setattr__(self, "runs_mask", mask)
            object.__setattr__(self, "runs", _frozen(runs))
        if self.runs_mask is not None:
            object.__setattr__(self, "runs_mask", _frozen(self.runs_mask, bool))

    # ----------------------------------------------------------------- construction

    @classmethod
    def parse(
        cls,
        spec: PriorSpec | Prior | None = None,
        *,
        pool: Pool | None = None,
        runs: ArrayLike | None = None,
        runs_mask: ArrayLike | None = None,
        discount: float | None = None,
        source: str | None = None,
        name: str = "prior",
    ) -> Prior:
        """The prior from the user's words.

        Parameters
        ----------
        spec : str, float, array_like or Prior
            ``"uniform"`` (Dirichlet(1, ..., 1), the paper's), ``"jeffreys"``
            (Dirichlet(1/2, ..., 1/2)), ``"empirical"`` (learned, integrated),
            ``"empirical-plugin"`` (learned, plugged in), a positive number (every category),
            a vector of C + 1 positive numbers, or a :class:`Prior` (returned as it is, with
            the other options applied). ``None``: the default, ``"empirical"``.
        pool, runs, runs_mask, discount, source
            As the attributes; ``None`` keeps the default (or the given Prior's value).

        Raises
        ------
        ValueError
            For an unknown name, a non-positive concentration, ``pool`` with a fixed prior or
            a bad ``discount``.

        Examples
        --------
        >>> from bayes_eval.posteriors.priors import Prior
        >>> Prior.parse("uniform").label
        'uniform'
        >>> Prior.parse([0.5, 2]).label
        'Dirichlet(0.5, 2)'
        >>> Prior.parse("empirical", pool="model").label
        'empirical (per model, integrated)'
        """
        if isinstance(spec, Prior):
            base = spec
        elif spec is None:
            base = _NAMED[DEFAULT_PRIOR]
        elif isinstance(spec, str):
            if spec not in PRIOR_KINDS:
                raise ValueError(
                    f"prior is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers."
                )
            base = _NAMED[spec]
        else:
            try:  # Python's bools kept as such, to be refused
                given = np.asarray(spec, dtype=None if isinstance(spec, np.ndarray) else object)
            except (TypeError, ValueError):  # ragged: refused below
                given = np.asarray([], dtype=object)
            given = given.ravel()
            if given.dtype == np.bool_ or any(isinstance(v, (bool, np.bool_)) for v in given):
                raise ValueError(
                    f"{name} is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers (not True/False)."
                )
            try:
                alpha = np.asarray(spec, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name} is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers."
                ) from None
            base = cls("fixed", alpha=alpha, name=name)
        changes = {
            k: v
            for k, v in (("runs", runs), ("runs_mask", runs_mask), ("discount", discount))
            if v is not None
        }
        if source is not None:
            changes["source"] = source
        if pool is not None and pool not in POOLS:
            raise ValueError(f"pool is {shown(pool)}; expected one of {list(POOLS)}.")
        if pool is not None and pool != base.pool:
            if not base.learned:
                raise ValueError(
                    f"pool is {shown(pool)} with the fixed prior {base.label!r}; pool applies to "
                    "learned priors ('empirical', 'empirical-plugin') only."
                )
            changes["pool"] = pool
        if not changes:
            return base
        fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
        return cls(**{**fields, **changes})

    # ----------------------------------------------------------------- description

    @property
    def learned(self) -> bool:
        """Whether the prior is learned from the questions."""
        return self.kind in ("empirical", "empirical-plugin")

    @property
    def label(self) -> str:
        """One line naming the prior, the same in every table, header and JSON.

        For example ``uniform``, ``jeffreys``, ``Dirichlet(0.5, 2)``,
        ``empirical (per model, integrated)``, ..., followed by ``+ earlier runs`` (with their
        source and discount) when there are any.
        """
        if self.kind in ("uniform", "jeffreys"):
            text = self.kind
        elif self.kind == "fixed" and np.all(self.alpha == 1.0):
            text = "uniform"
        elif self.kind == "fixed" and np.all(self.alpha == 0.5):
            text = "jeffreys"
        elif self.kind == "fixed":
            a = np.atleast_1d(self.alpha)
            text = "Dirichlet(" + ", ".join(f"{x:g}" for x in a) + ")"
        else:
            how = "integrated" if self.kind == "empirical" else "plug-in"
            text = f"empirical ({_SCOPE[self.pool]}, {how})"
        if self.runs is not None or self.source:
            extra = [self.source] if self.source else []
            if self.discount != 1.0:
                extra.append(f"discount {self.discount:g}")
            text += " + earlier runs" + (f" ({', '.join(extra)})" if extra else "")
        return text

    def __str__(self) -> str:
        return self.label

    def to_dict(self) -> dict[str, object]:
        """JSON-ready description of the prior.

        It holds ``label``, ``kind``, ``alpha`` (fixed priors), ``pool`` (learned),
        ``earlier_runs`` and ``discount``.
        """
        out: dict[str, object] = {"label": self.label, "kind": self.kind}
        if self.alpha is not None:
            out["alpha"] = np.atleast_1d(self.alpha).tolist()
        if self.learned:
            out["pool"] = self.pool
        out["earlier_runs"] = self.source or (None if self.runs is None else True)
        if out["earlier_runs"] is not None:
            out["discount"] = self.discount
        return out

    # ----------------------------------------------------------------- against data

    def fit(self, counts: ArrayLike) -> FittedPrior:
        """Quadrature nodes of the Dirichlet parameter for the given counts.

        The counts are those of the results plus the discounted earlier runs. The nodes are one
        node for a fixed prior, the learned hyperposterior otherwise (:func:`fit_prior`).

        Parameters
        ----------
        counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
            Category counts per question (and model).

        Returns
        -------
        FittedPrior
            The nodes of the Dirichlet parameter and their weights.
        """
        if not self.learned:  # a fixed prior needs only the number of categories
            arr = np.asarray(counts)
            if arr.ndim not in (2, 3) or arr.shape[-1] < 2:
                _check_counts(arr)  # raises the message
            return _fixed_prior(self.kind, arr.shape[-1], self.alpha, self.name)
        return fit_prior(
            _check_counts(counts),
            pool=self.pool,  # type: ignore[arg-type]
            integrated=self.kind == "empirical",
            kappa_prior=self.kappa_prior,
        )


def _fixed_prior(kind: str, k: int, alpha, name: str) -> FittedPrior:
    """The one node of a fixed prior for ``k`` categories.

    The named ones are cached: they are built on every call of the scorio-named functions.
    """
    if kind in ("uniform", "jeffreys"):
        key = (kind, k)
        if key not in _FIXED:
            fitted = _fixed(kind, np.full(k, 1.0 if kind == "uniform" else 0.5))
            for arr in fitted[1:4] + fitted[5:7]:
                arr.setflags(write=False)  # shared: nobody may change it
            _FIXED[key] = fitted
        return _FIXED[key]
    from bayes_eval.inputs import check_alpha0

    try:
        values = check_alpha0(alpha, k)
    except ValueError as exc:
        raise ValueError(str(exc).replace("alpha0", name)) from None
    return _fixed("fixed", values)


_FIXED: dict[tuple[str, int], FittedPrior] = {}


#: The named priors without options, built once (``Prior.parse`` returns them).
_NAMED = {kind: Prior(kind) for kind in PRIOR_KINDS}


def resolve_prior(
    prior: PriorSpec | Prior,
    counts: ArrayLike,
    *,
    pool: Pool = "model",
    kappa_prior: tuple[float, float] | None = None,
) -> FittedPrior:
    """Quadrature nodes of ``prior`` (a :class:`Prior` or its words) for the given counts.

    This is ``Prior.parse(prior, pool=...).fit(counts)`` (``pool`` for learned priors only).

    Parameters
    ----------
    prior : str, float, array_like or Prior
        As in :meth:`Prior.parse`.
    counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
        Category counts per question (and model), those of earlier runs included.
    pool, kappa_prior
        As in :func:`fit_prior` (learned priors only).

    Returns
    -------
    FittedPrior
        One node for a fixed prior, the hyperposterior's nodes for a learned one.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])
    >>> resolve_prior("jeffreys", counts).alpha.tolist()
    [[0.5, 0.5]]
    >>> resolve_prior("empirical-plugin", counts, pool="benchmark").label
    'empirical (benchmark-pooled, plug-in)'
    """
    spec = Prior.parse(prior)
    if spec.learned:
        spec = Prior.parse(spec, pool=pool)
        if kappa_prior != spec.kappa_prior:
            spec = Prior(
                **{
                    **{f: getattr(spec, f) for f in spec.__dataclass_fields__},
                    "kappa_prior": kappa_prior,
                }
            )
    return spec.fit(counts)
