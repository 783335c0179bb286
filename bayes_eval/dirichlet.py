r"""The per-question Dirichlet posteriors behind Bayes@N and their moments.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.3 and Appendix A: question :math:`\alpha` has the posterior
:math:`\mathrm{Dir}(\nu_\alpha)`; pi-bar, the mean of :math:`w\cdot\pi_\alpha` over the
questions, has the mean and variance of eq. 15 (:meth:`DirichletPosterior.moments`). Under a
learned prior the posterior is a mixture of such posteriors over quadrature nodes
(:class:`MixturePosterior`, :mod:`bayes_eval.priors`). Built by
:func:`bayes_eval.bayes_at_n.posterior`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from bayes_eval.inputs import Tally
from bayes_eval.priors import FittedPrior, mixture_moments
from bayes_eval.rows import distinct_rows_by_group

__all__ = ["BayesResult", "DirichletPosterior", "MixturePosterior", "QuestionMoments"]

#: (model, question) cells above which the moments are computed in blocks of models
_LARGE = 1 << 20
#: A float for one model, an array of shape ``(L,)`` for a batch of L models.
Estimate = float | NDArray[np.float64]


class BayesResult(NamedTuple):
    r"""Posterior mean and sd of pi-bar (eq. 15); unpacks as ``mu, sigma``.

    Attributes
    ----------
    mu : float or ndarray
        :math:`\mu = E[\bar\pi \mid R]`.
    sigma : float or ndarray
        :math:`\sigma = \mathrm{sd}[\bar\pi \mid R]`.
    """

    mu: Estimate
    sigma: Estimate


class QuestionMoments(NamedTuple):
    r"""Posterior mean and variance of each question's score; unpacks as ``mean, var``.

    Attributes
    ----------
    mean : ndarray, shape ``(..., M)``
        :math:`\sum_j p_{\alpha j}(w_j - w_0)`, :math:`p = \nu/T`: the mean of
        :math:`w\cdot\pi_\alpha` *relative to* :math:`w_0`.
    var : ndarray, shape ``(..., M)``
        :math:`\mathrm{Var}[w\cdot\pi_\alpha \mid R]
        = \sum_j p_{\alpha j}(w_j - \bar w_\alpha)^2 / (T_\alpha + 1)`.
    """

    mean: NDArray[np.float64]
    var: NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class DirichletPosterior:
    """Per-question Dirichlet posteriors of one results array (or a batch of L of them).

    Attributes
    ----------
    nu : ndarray, shape ``(..., M, C + 1)``
        Posterior concentrations :math:`\\nu_{\\alpha k}`.
    w : ndarray, shape ``(C + 1,)``
        Rubric weights.
    tally : Tally
        The counts of ``R`` the posterior was built from.
    answered : ndarray of bool, shape ``(..., M)``, or None
        With ``answered_only``: the questions each model has a trial of; pi-bar is the mean
        over those (None: over all M questions).
    """

    nu: NDArray[np.float64]
    w: NDArray[np.float64]
    tally: Tally
    answered: NDArray[np.bool_] | None = None

    @property
    def total(self) -> NDArray[np.float64]:
        """:math:`T_\\alpha = \\sum_k \\nu_{\\alpha k}`, shape ``(..., M)``."""
        return self.nu.sum(axis=-1)

    def question_moments(self) -> QuestionMoments:
        """Posterior mean and variance of :math:`w\\cdot\\pi_\\alpha` per question.

        Returns the means *relative to* ``w[0]`` (``sum_j p_j (w_j - w_0)``) and the variances
        (the terms of eq. 15) as :class:`QuestionMoments`.
        """
        d = self.w - self.w[0]
        total = self.total
        if d.size == 2:  # Beta posterior: mean d1 p1, variance d1^2 p1 (1 - p1) / (T + 1)
            p1 = self.nu[..., 1] / total
            var = d[1] ** 2 * p1 * (self.nu[..., 0] / total) / (total + 1.0)
            return QuestionMoments(d[1] * p1, var)
        # loop over the (few) categories: contiguous slices beat a (..., K) @ (K,) product
        nu = np.moveaxis(self.nu, -1, 0)
        mean = sum(nu[k] * d[k] for k in range(d.size) if d[k] != 0.0) / total
        var = sum(nu[k] * (d[k] - mean) ** 2 for k in range(d.size)) / (total * (total + 1.0))
        return QuestionMoments(mean, var)

    def moments(self) -> BayesResult:
        """Posterior mean ``mu`` and standard deviation ``sigma`` of pi-bar (eq. 15), as
        arrays of the leading shape of ``nu`` (over each model's answered questions when
        ``answered`` is set: M replaced by its own :math:`M_l`)."""
        if self.nu[..., 0].size > _LARGE and self.nu.ndim == 3:
            # a large leaderboard: blocks of models, so the per-question terms never exist
            # for all (model, question) at once (one pass over the data, bounded memory)
            per = max(1, _LARGE // self.nu.shape[1])
            parts = [self._direct(slice(i, i + per)) for i in range(0, self.nu.shape[0], per)]
            return BayesResult(*(np.concatenate(x) for x in zip(*parts, strict=True)))
        return self._direct(slice(None))

    def _direct(self, rows: slice) -> BayesResult:
        """Moments of the leading rows ``rows`` (a view: no copy)."""
        answered = None if self.answered is None else self.answered[rows]
        mean, var = DirichletPosterior(self.nu[rows], self.w, self.tally).question_moments()
        if answered is None:
            m = mean.shape[-1]
            return BayesResult(self.w[0] + mean.mean(axis=-1), np.sqrt(var.sum(axis=-1)) / m)
        m = answered.sum(axis=-1)
        mu = self.w[0] + np.where(answered, mean, 0.0).sum(axis=-1) / m
        return BayesResult(mu, np.sqrt(np.where(answered, var, 0.0).sum(axis=-1)) / m)


@dataclass(frozen=True, slots=True)
class MixturePosterior:
    """The posterior under a learned prior: a mixture of Dirichlet posteriors over the nodes
    of the hyperparameters (see :mod:`bayes_eval.priors`).

    Node ``j`` gives question alpha the posterior ``Dir(a_j + n_alpha)``; the
    concentrations of every node are
    :attr:`nu`, built on demand (J times the data: the moments never build them).

    Attributes
    ----------
    data : ndarray, shape ``(..., M, C + 1)``
        Counts of ``R`` plus those of the prior runs ``R0``.
    nodes : ndarray, shape ``(J, G, C + 1)``
        Prior concentrations :math:`a_j` of each node, for every model (G = L) or shared
        (G = 1).
    weights : ndarray, shape ``(J, ...)``
        Posterior weights of the nodes (sum to 1 over J).
    w : ndarray, shape ``(C + 1,)``
    tally : Tally
    prior : FittedPrior
        The resolved prior (its ``label`` names it).
    answered : ndarray of bool, shape ``(..., M)``, or None
        As in :class:`DirichletPosterior`.
    """

    data: NDArray[np.float64]
    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]
    w: NDArray[np.float64]
    tally: Tally
    prior: FittedPrior
    answered: NDArray[np.bool_] | None = None

    @property
    def nu(self) -> NDArray[np.float64]:
        """Posterior concentrations of every node, shape ``(J, ..., M, C + 1)``."""
        if self.data.ndim == 2:
            return self.data[None] + self.nodes[:, 0, None, :]
        return self.data[None] + self.nodes[:, :, None, :]

    def component(self) -> DirichletPosterior:
        """All nodes as one batch of Dirichlet posteriors (leading axis J)."""
        return DirichletPosterior(nu=self.nu, w=self.w, tally=self.tally, answered=self.answered)

    def moments(self) -> BayesResult:
        """Mixture mean and sd of pi-bar (law of total variance over the nodes).

        The per-node moments are sums over questions of terms that depend on a question only
        through its count vector, so they are computed once per distinct count vector of each
        model (a binary benchmark with N trials has at most N + 1) and weighted by how often
        it occurs."""
        mu, sigma = _node_moments(self.data, self.nodes, self.w, self.answered)
        return BayesResult(*mixture_moments(mu, sigma, self.weights))


def _node_moments(data, nodes, w, answered):
    """Mean and sd of pi-bar under each node, shape ``(J, ...)``, from the distinct count
    vectors of each model (one node at a time: memory of the order of the distinct rows)."""
    d3 = data if data.ndim == 3 else data[None]
    n_models, m, _ = d3.shape
    ans = None if answered is None else answered.reshape(n_models, m)
    owner, rows, mult = distinct_rows_by_group(d3, ans)
    per_model = np.full(n_models, m) if ans is None else ans.sum(axis=1)
    n_nodes = nodes.shape[0]
    mu = np.empty((n_nodes, n_models))
    var_sum = np.empty((n_nodes, n_models))
    which = owner if nodes.shape[1] > 1 else np.zeros_like(owner)
    for j in range(n_nodes):  # J quadrature nodes, each vectorised over every row
        post = DirichletPosterior(rows + nodes[j, which], w, None)  # type: ignore[arg-type]
        mean, var = post.question_moments()
        mu[j] = np.bincount(owner, weights=mean * mult, minlength=n_models)
        var_sum[j] = np.bincount(owner, weights=var * mult, minlength=n_models)
    shape = (n_nodes, *data.shape[:-2])
    mu = (w[0] + mu / per_model).reshape(shape)
    return mu, (np.sqrt(var_sum) / per_model).reshape(shape)
