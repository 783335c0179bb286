r"""The comparisons behind :meth:`Posterior.prob_better`: :math:`P(\bar\pi_A > \bar\pi_B)`.

Of the models' own posteriors (the closed form of Hariri et al., "Don't Pass@k: A Bayesian
Framework for Large Language Model Evaluation", §2.5; a board's joint posterior compares in
:mod:`~bayes_eval.posteriors.joint`):

* ``"normal"``: the ranking confidence :math:`\rho = \Phi(E[D]/\mathrm{sd}[D])` of
  :math:`D = \bar\pi_A - \bar\pi_B`. Models with their own priors are independent given the
  data, :math:`E[D] = \mu_A - \mu_B`, :math:`\mathrm{Var}[D] = \sigma_A^2 + \sigma_B^2`;
  models sharing the nodes :math:`a_j` (weights :math:`\omega_j`) of a benchmark-pooled prior
  are independent given the node, so :math:`E[D] = \sum_j\omega_j d_j` and
  :math:`\mathrm{Var}[D] = \sum_j\omega_j(\sigma_{Aj}^2 + \sigma_{Bj}^2 + (d_j - E[D])^2)`
  (law of total variance, :math:`d_j = \mu_{Aj} - \mu_{Bj}`).
* ``"exact"``: the exact laws of :mod:`~bayes_eval.posteriors.model_laws`: the lattice
  convolution of two laws for fixed priors (:func:`~bayes_eval.posteriors.exact.prob_greater`),
  its mixture over the common node for a shared learned prior, and
  :math:`\int F_B\,dF_A` of the two mixture CDFs on a common grid (trapezoid rule) for
  independent learned priors.

The functions take the posterior through ``_Compared``, the part of
:class:`~bayes_eval.posteriors.posterior.Posterior` they read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

from bayes_eval.inputs import shown
from bayes_eval.posteriors.exact import ExactPosterior, exact_posterior, lattice_step, prob_greater
from bayes_eval.posteriors.intervals import Estimate, mixture_moments, mixture_support
from bayes_eval.posteriors.model_laws import _EXACT_NODES

__all__: list[str] = []

#: Grid points of the mixture CDFs in the exact P(A > B) under a learned prior
_GRID = 4097


class _Compared(Protocol):
    """What the comparisons read of a posterior (its models' own, closed-form, posterior)."""

    @property
    def n_nodes(self) -> int: ...

    @property
    def n_models(self) -> int: ...

    @property
    def batched(self) -> bool: ...

    @property
    def shared_nodes(self) -> bool: ...

    @property
    def w(self) -> NDArray[np.float64]: ...

    @property
    def weights(self) -> NDArray[np.float64]: ...

    @property
    def node_moments(self) -> tuple[Any, Any]: ...

    @property
    def _moments(self) -> tuple[Any, Any]: ...

    @property
    def sd(self) -> Estimate: ...

    def _single_law(self, model: int, node: int = 0) -> NDArray[np.float64]: ...

    def _mixture_laws(
        self, model: int, limit: int = _EXACT_NODES
    ) -> tuple[list[ExactPosterior], NDArray[np.float64]]: ...

    def _fixed_laws(self) -> list[ExactPosterior]: ...


def _check_pair(a: _Compared, b: _Compared) -> None:
    """Whether ``a`` and ``b`` can be compared model by model (a ValueError when not).

    They need the same rubric weights, and the same number of models unless one side has one.
    """
    if b.w.shape != a.w.shape or not np.allclose(b.w, a.w):
        raise ValueError(
            f"the two posteriors have weights {shown(a.w)} and {shown(b.w)}; "
            "compare scores on the same rubric."
        )
    if a.batched and b.batched and a.n_models != b.n_models:
        raise ValueError(
            f"the posteriors have {a.n_models} and {b.n_models} models; expected the "
            "same number, or one model on either side."
        )


def _normal_prob(mean: ArrayLike, var: ArrayLike) -> NDArray[np.float64]:
    """``Phi(mean / sqrt(var))`` with the limits of a zero variance (1, 0 or 1/2)."""
    mean, var = np.asarray(mean, float), np.asarray(var, float)
    sd = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.sign(mean) * np.inf)
    return np.asarray(ndtr(np.where((sd == 0) & (mean == 0), 0.0, z)))


def _node_parts(
    post: _Compared, model: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Mean, sd and weight of each node of one model, each of shape ``(J,)``."""
    mu, sd = (np.asarray(x).reshape(post.n_nodes, -1)[:, model] for x in post.node_moments)
    return mu, sd, post.weights.reshape(post.n_nodes, -1)[:, model]


def _normal_engine(
    a: tuple[NDArray[np.float64], ...], b: tuple[NDArray[np.float64], ...], shared: bool
) -> NDArray[np.float64]:
    r"""The one normal P(better): ``Phi(E[D] / sd[D])`` of ``D = pi-bar_A - pi-bar_B``.

    ``a`` and ``b`` are (node means, node sds, node weights), each of shape ``(J, ...)`` and
    broadcastable against each other (a pair: ``(J,)``; a batch: ``(J, L, 1)`` against
    ``(J, 1, L)``). ``shared``: one common node for both (the law of total variance of D over
    it); otherwise independent mixtures, each reduced to its mean and variance.
    """
    (mu_a, sd_a, wa), (mu_b, sd_b, wb) = a, b
    if shared:
        d = mu_a - mu_b
        mean = np.sum(wa * d, axis=0)
        var = np.sum(wa * (sd_a**2 + sd_b**2 + (d - mean) ** 2), axis=0)
    else:
        (ma, sa), (mb, sb) = mixture_moments(mu_a, sd_a, wa), mixture_moments(mu_b, sd_b, wb)
        mean, var = ma - mb, sa**2 + sb**2
    return _normal_prob(mean, var)


def _pair_normal(a: _Compared, i: int, b: _Compared, j: int, shared: bool) -> float:
    """``method="normal"`` of model i of a and model j of b (:func:`_normal_engine`)."""
    return float(_normal_engine(_node_parts(a, i), _node_parts(b, j), shared))


def _lattice_prob(
    a: _Compared, la: NDArray[np.float64], b: _Compared, lb: NDArray[np.float64]
) -> float:
    """Exact ``P(A > B)`` of two one-node posteriors (concentrations ``la``, ``lb``)."""
    step = lattice_step([la, lb], a.w)
    return prob_greater(exact_posterior(la, a.w, step=step), exact_posterior(lb, b.w, step=step))


def _pair_prob(
    a: _Compared,
    i: int,
    b: _Compared,
    j: int,
    method: str,
    same: bool,
    laws: Sequence[ExactPosterior] | None = None,
) -> float:
    """``P(pi-bar of model i of a > pi-bar of model j of b)``; ``same``: a is b.

    ``laws``: the exact laws of every model of ``a`` on one lattice (fixed prior, ``same``).
    """
    shared = same and a.shared_nodes
    if method == "normal":
        return _pair_normal(a, i, b, j, shared)
    if a.n_nodes == 1 and b.n_nodes == 1:
        if laws is not None:
            return prob_greater(laws[i], laws[j])
        return _lattice_prob(a, a._single_law(i), b, b._single_law(j))
    if shared:  # one common node: the models are independent given it
        wa = a.weights.reshape(a.n_nodes, -1)[:, i]
        keep = mixture_support(wa, 1.0 - 1e-4)[:_EXACT_NODES]
        total = 0.0
        for node in keep:
            la, lb = a._single_law(i, node), b._single_law(j, node)
            total += wa[node] * _lattice_prob(a, la, b, lb)
        return total / float(wa[keep].sum())
    sd_min = min(float(np.atleast_1d(a.sd)[i]), float(np.atleast_1d(b.sd)[j]))
    return float(_mixture_table([a._mixture_laws(i), b._mixture_laws(j)], sd_min)[0, 1])


def _mixture_cdf(
    laws: Sequence[ExactPosterior], wts: NDArray[np.float64], grid: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The CDF of a mixture of exact laws on ``grid`` (weights normalised, made monotone)."""
    wn = np.asarray(wts) / np.sum(wts)
    f = np.clip(sum(wt * d.cdf(grid) for wt, d in zip(wn, laws, strict=True)), 0.0, 1.0)
    return np.asarray(np.maximum.accumulate(f), dtype=float)


def _mixture_table(
    laws: Sequence[tuple[Sequence[ExactPosterior], NDArray[np.float64]]], sd_min: float
) -> NDArray[np.float64]:
    r"""Exact :math:`P(\bar\pi_i > \bar\pi_j) = \int F_j\,dF_i` of independent mixtures.

    The one engine of the learned prior's exact comparisons, for a batch and for a pair alike:
    every mixture CDF on one common grid (steps at most 1/100 of the smallest posterior sd
    ``sd_min``, at least 4097 points), every pair by the trapezoid rule, made exactly
    complementary; 1/2 on the diagonal.
    """
    lo = min(float(d.x[0] - d.step) for ls, _ in laws for d in ls)
    hi = max(float(d.x[-1] + d.step) for ls, _ in laws for d in ls)
    size = int(np.clip((hi - lo) / max(sd_min / 100, 1e-300), _GRID, 1 << 17)) | 1
    grid = np.linspace(lo, hi, size)
    cdf = np.empty((len(laws), size))
    for i, (ls, wts) in enumerate(laws):
        cdf[i] = _mixture_cdf(ls, wts, grid)
    mid = 0.5 * (cdf[:, 1:] + cdf[:, :-1])  # F_j at the middle of each cell
    out = np.clip(np.diff(cdf, axis=1) @ mid.T, 0.0, 1.0)  # out[i, j] = int F_j dF_i
    out = 0.5 * (out + 1.0 - out.T)  # exactly complementary
    np.fill_diagonal(out, 0.5)
    return out


def _normal_matrix(post: _Compared) -> NDArray[np.float64]:
    """``method="normal"`` for every pair of the models of a batch (:func:`_normal_engine`)."""
    n = post.n_models
    mu, sd = (np.asarray(x, float).reshape(post.n_nodes, n) for x in post.node_moments)
    wts = post.weights.reshape(post.n_nodes, n)
    rows, cols = ((x[:, :, None] for x in (mu, sd, wts)), (x[:, None, :] for x in (mu, sd, wts)))
    out = _normal_engine(tuple(rows), tuple(cols), post.shared_nodes)
    np.fill_diagonal(out, 0.5)
    return out


def _prob_matrix(post: _Compared, method: str) -> NDArray[np.float64]:
    r""":math:`P(\bar\pi_i > \bar\pi_j)` over the models of a batch, 1/2 on the diagonal."""
    if method == "normal":
        return _normal_matrix(post)
    if post.n_nodes > 1 and not post.shared_nodes:  # independent mixtures: one grid
        return _mixture_matrix(post)
    n = post.n_models
    out = np.full((n, n), 0.5)
    laws = None if post.n_nodes > 1 else post._fixed_laws()
    for i in range(n):
        for j in range(i + 1, n):
            p = _pair_prob(post, i, post, j, method, True, laws)
            out[i, j], out[j, i] = p, 1.0 - p
    return out


def _mixture_matrix(post: _Compared) -> NDArray[np.float64]:
    """Exact P(better) of every pair of a batch under independent learned priors."""
    laws = [post._mixture_laws(i) for i in range(post.n_models)]
    return _mixture_table(laws, float(np.min(np.atleast_1d(post.sd))))


def _elementwise(mine: _Compared, theirs: _Compared, method: str) -> float | NDArray[np.float64]:
    """``P(self > other)`` model by model (one model on a side is compared with every one)."""
    n = max(mine.n_models, theirs.n_models)
    idx_a: Callable[[int], int] = (lambda i: i) if mine.batched else (lambda i: 0)
    idx_b: Callable[[int], int] = (lambda i: i) if theirs.batched else (lambda i: 0)
    out = np.array([_pair_prob(mine, idx_a(i), theirs, idx_b(i), method, False) for i in range(n)])
    return float(out[0]) if not (mine.batched or theirs.batched) else out
