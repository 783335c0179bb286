r"""The posterior of a weighted score: one object that every estimator and command asks.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.2-2.5, Algorithm 1 and Appendix A. For question :math:`\alpha` with category probabilities
:math:`\pi_\alpha` on the simplex and rubric weights :math:`w`, the target is

.. math:: \bar\pi = \frac{1}{M}\sum_{\alpha=1}^{M}\sum_{k=0}^{C} w_k\,\pi_{\alpha k},

the mean score over the benchmark's own M questions (the estimand *these questions*,
:data:`THESE_QUESTIONS`). With the prior :math:`\mathrm{Dir}(a + \lambda n^0_\alpha)` of
:class:`~bayes_eval.posteriors.priors.Prior` (``a = 1``: the paper's uniform prior;
:math:`n^0_\alpha` the counts of earlier runs ``R0``, :math:`\lambda` their discount) and the
counts :math:`n_{\alpha k}` of ``R``, question :math:`\alpha` has the posterior
:math:`\mathrm{Dir}(\nu_\alpha)`, :math:`\nu_\alpha = a + \lambda n^0_\alpha + n_\alpha`,
:math:`T_\alpha = \sum_k\nu_{\alpha k}`. The questions are independent a posteriori, so

.. math::
    \mu = w_0 + \frac{1}{M}\sum_\alpha \sum_j \frac{\nu_{\alpha j}}{T_\alpha}(w_j - w_0),
    \qquad
    \sigma^2 = \frac{1}{M^2}\sum_\alpha \frac{1}{T_\alpha + 1}
      \sum_j \frac{\nu_{\alpha j}}{T_\alpha}\big(w_j - \bar w_\alpha\big)^2

(eq. 15 of Appendix A with a per-question :math:`T_\alpha` for missing trials, a general
prior and the centred inner variance, :math:`\bar w_\alpha = \sum_j \nu_{\alpha j}w_j /
T_\alpha`). Under a learned prior :math:`a` has a posterior of its own, computed by
quadrature (:mod:`bayes_eval.posteriors.priors`): the posterior of :math:`\bar\pi` is the
mixture of the above over the nodes :math:`a_j` with weights :math:`\omega_j`,
:math:`\mu = \sum_j\omega_j\mu_j`, :math:`\sigma^2 = \sum_j\omega_j(\sigma_j^2 + (\mu_j -
\mu)^2)`. One prior is learned per model (``pool="model"``: the models are independent a
posteriori; ``pool="board"``, the default: the same, each model's concentration hyperprior
first estimated from the whole board, an empirical-Bayes step after which the models are
independent given the data) or one for all (``pool="benchmark"``: they share the nodes, so
their comparisons mix over the common node).

:func:`posterior` validates the data once and returns a :class:`Posterior`, which answers
without recomputing: :attr:`~Posterior.mean`, :attr:`~Posterior.sd`,
:meth:`~Posterior.interval` (normal, §2.5, or the exact quantiles of
:mod:`bayes_eval.posteriors.exact`), :meth:`~Posterior.prob_better` (the ranking confidence
:math:`\rho` of §2.5, or its exact value), :meth:`~Posterior.draws`, the Pass family
(:meth:`~Posterior.pass_metric`, Appendix H) and :meth:`~Posterior.to_datatree`. It is
vectorised over a leading model axis. The scorio-named functions
(:func:`bayes_eval.bayes`, :func:`bayes_eval.bayes_ci`, ...) are thin wrappers over it.

**The other estimand.** *New questions from the same source* (the population the questions
were drawn from; Miller, "Adding Error Bars to Evals: A Statistical Approach to Language
Model Evaluations") is a different quantity: the questions are then a sample, and
question-sampling noise is shared by every model on them. It is answered by the paired
comparisons of :mod:`bayes_eval.ranking.paired` (:data:`NEW_QUESTIONS`); every output that
compares or ranks models names its estimand (:data:`ESTIMANDS`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

from bayes_eval.inputs import (
    Tally,
    check_bounds,
    check_confidence,
    check_memory,
    check_tau,
    fractional_tally,
    grade_trials,
    prior_counts,
    shown,
    tally,
    unique_rows,
)
from bayes_eval.posteriors.exact import (
    exact_interval,
    exact_posterior,
    lattice_step,
    mixture_interval,
    on_one_lattice,
    prob_greater,
)
from bayes_eval.posteriors.intervals import (
    CredibleInterval,
    Estimate,
    as_estimate,
    clip_interval,
    mixture_moments,
    mixture_support,
    normal_interval,
)
from bayes_eval.posteriors.joint import (
    DISPERSION_PRIOR,
    JOINT_MODEL,
    JointPosterior,
    beta_interval,
    joint_posterior,
)
from bayes_eval.posteriors.latent_pass import PassPosterior, pass_law
from bayes_eval.posteriors.priors import (
    DEFAULT_PRIOR,
    KAPPA_PRIOR,
    FittedPrior,
    Prior,
    PriorSpec,
    _fine_grid,
)

__all__ = [
    "BOARD_MODEL",
    "ESTIMANDS",
    "INTERVAL_KINDS",
    "JOINT_PRIOR",
    "NEW_QUESTIONS",
    "PROB_METHODS",
    "THESE_QUESTIONS",
    "BayesResult",
    "BoardLink",
    "DirichletPosterior",
    "Interval",
    "Posterior",
    "QuestionMoments",
    "TotalSums",
    "check_interval",
    "posterior",
    "sums_moments",
    "total_sums",
]

#: The estimand of the closed form: the mean score over the benchmark's own questions.
THESE_QUESTIONS = "these questions"
#: The population estimand: the mean score on new questions from the same source.
NEW_QUESTIONS = "new questions"
#: Each estimand in one sentence, for help texts and JSON.
ESTIMANDS = {
    THESE_QUESTIONS: "the mean score over the benchmark's own questions, the only noise being "
    'the trials (Bayes@N of Hariri et al., "Don\'t Pass@k")',
    NEW_QUESTIONS: "the mean score on new questions from the same source: the questions are a "
    'sample, shared by every model (Miller, "Adding Error Bars to Evals")',
}

#: (model, question) cells above which the moments are computed in blocks of models
_BLOCK_CELLS = 1 << 20
#: Heaviest nodes of a learned prior used by the exact computations (worst case measured,
#: rubric M = 12, N = 3: quantiles within 0.01 posterior sd of those of all nodes)
_EXACT_NODES = 48
#: Grid points of the mixture CDFs in the exact P(A > B) under a learned prior
_GRID = 4097

Interval = Literal["auto", "normal", "exact"]
#: the interval kinds of :meth:`Posterior.interval`
INTERVAL_KINDS = ("auto", "normal", "exact")
#: ``kind="auto"`` of a model's own posterior is exact when the mean lies within this many
#: posterior sd of an end of the support (the normal interval's error there is a sizeable
#: share of an sd: its law is skewed), normal elsewhere
_AUTO_EXACT_SDS = 6.0


#: the methods of :meth:`Posterior.prob_better`
PROB_METHODS = ("board", "normal", "exact")
#: what :meth:`Posterior.prob_better` computes with ``method="board"`` (its label)
BOARD_MODEL = JOINT_MODEL
#: the prior of a board's joint posterior, as every output names it
JOINT_PRIOR = "learned: " + JOINT_MODEL


def check_interval(kind: str, kinds: tuple[str, ...] = INTERVAL_KINDS) -> str:
    """Validate the kind of interval (one of ``kinds``).

    Parameters
    ----------
    kind : str
        The ``interval=`` argument.
    kinds : tuple of str, optional
        The kinds allowed, default :data:`INTERVAL_KINDS` (``"auto"``, ``"normal"``,
        ``"exact"``).

    Returns
    -------
    str
        ``kind`` itself.

    Raises
    ------
    ValueError
        ``kind`` is not one of ``kinds``.

    Examples
    --------
    >>> check_interval("exact")
    'exact'
    >>> check_interval("auto", ("normal", "exact"))
    Traceback (most recent call last):
        ...
    ValueError: interval is 'auto'; expected one of 'normal', 'exact'.
    """
    if kind not in kinds:
        raise ValueError(
            f"interval is {shown(kind)}; expected one of {', '.join(map(repr, kinds))}."
        )
    return kind


class BayesResult(NamedTuple):
    r"""Posterior mean and sd of pi-bar (eq. 15); unpacks as ``mu, sigma``.

    Attributes
    ----------
    mu : float or ndarray
        :math:`\mu = E[\bar\pi \mid R]`.
    sigma : float or ndarray
        :math:`\sigma = \mathrm{sd}[\bar\pi \mid R]`.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> res = posterior(R, [0.0, 0.5, 1.0], prior="uniform").moments()
    >>> type(res).__name__, res._fields
    ('BayesResult', ('mu', 'sigma'))
    >>> mu, sigma = res
    >>> round(mu, 4), round(sigma, 4)
    (0.5625, 0.092)
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

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> qm = posterior(R, [0.0, 0.5, 1.0], prior="uniform").dirichlet.question_moments()
    >>> qm.mean.round(4).tolist(), qm.var.round(4).tolist()
    ([0.5625, 0.5625], [0.0169, 0.0169])
    """

    mean: NDArray[np.float64]
    var: NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class DirichletPosterior:
    r"""Per-question Dirichlet posteriors of one results array (or a batch of L of them).

    Attributes
    ----------
    nu : ndarray, shape ``(..., M, C + 1)``
        Posterior concentrations :math:`\nu_{\alpha k}`.
    w : ndarray, shape ``(C + 1,)``
        Rubric weights.
    tally : Tally
        The counts of ``R`` the posterior was built from.
    answered : ndarray of bool, shape ``(..., M)``, or None
        With ``answered_only``: the questions each model has a trial of; pi-bar is the mean
        over those (None: over all M questions).

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> dpost = posterior(R, [0.0, 0.5, 1.0], prior="uniform").dirichlet
    >>> dpost.nu.tolist()  # counts (1, 2, 2) of each question plus Dirichlet(1, 1, 1)
    [[2.0, 3.0, 3.0], [2.0, 3.0, 3.0]]
    >>> mu, sigma = dpost.moments()
    >>> round(float(mu), 4), round(float(sigma), 4)
    (0.5625, 0.092)
    """

    nu: NDArray[np.float64]
    w: NDArray[np.float64]
    tally: Tally
    answered: NDArray[np.bool_] | None = None

    @property
    def total(self) -> NDArray[np.float64]:
        r""":math:`T_\alpha = \sum_k \nu_{\alpha k}`, shape ``(..., M)``."""
        return self.nu.sum(axis=-1)

    def question_moments(self) -> QuestionMoments:
        r"""Posterior mean and variance of :math:`w\cdot\pi_\alpha` per question.

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
        """Posterior mean ``mu`` and standard deviation ``sigma`` of pi-bar (eq. 15).

        They are arrays of the leading shape of ``nu`` (over each model's answered questions
        when ``answered`` is set: M replaced by its own :math:`M_l`).
        """
        if self.nu[..., 0].size > _BLOCK_CELLS and self.nu.ndim == 3:
            # a large leaderboard: blocks of models, so the per-question terms never exist
            # for all (model, question) at once (one pass over the data, bounded memory)
            per = max(1, _BLOCK_CELLS // self.nu.shape[1])
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


class TotalSums(NamedTuple):
    r"""The statistics of the per-question posterior moments of a batch of count arrays.

    There is one row per model and distinct total :math:`N` of its answered questions
    (:func:`total_sums`; :func:`sums_moments` turns them into moments under any prior).

    Attributes
    ----------
    owner : ndarray of int, shape ``(P,)``
        The model of each row.
    total : ndarray, shape ``(P,)``
        Its total :math:`N` (trials of each of the row's questions).
    q, s1, s2, s11 : ndarray, shape ``(P,)``
        Sums over the row's questions of 1, :math:`n\cdot d`, :math:`n\cdot d^2` and
        :math:`(n\cdot d)^2` (:math:`d = w - w_0`).
    per_model : ndarray, shape ``(L,)``
        Questions each model's pi-bar averages over.
    shape : tuple of int
        The leading (model) shape of the data: ``()`` or ``(L,)``.

    Examples
    --------
    Two questions of 5 trials with counts (1, 2, 2) each, weights (0, 1/2, 1): one row,
    :math:`S_1 = 2 (2 \cdot 0.5 + 2 \cdot 1) = 6`:

    >>> import numpy as np
    >>> sums = total_sums(np.array([[1, 2, 2], [1, 2, 2]]), np.array([0.0, 0.5, 1.0]))
    >>> sums.total.tolist(), sums.q.tolist(), sums.s1.tolist(), sums.s11.tolist()
    ([5.0], [2.0], [6.0], [18.0])
    """

    owner: NDArray[np.int64]
    total: NDArray[np.float64]
    q: NDArray[np.float64]
    s1: NDArray[np.float64]
    s2: NDArray[np.float64]
    s11: NDArray[np.float64]
    per_model: NDArray[np.int64]
    shape: tuple[int, ...]


def total_sums(
    data: NDArray, w: NDArray[np.float64], answered: NDArray[np.bool_] | None = None
) -> TotalSums:
    r"""The four sums per model and distinct total that the posterior moments of pi-bar need.

    They serve under any Dirichlet prior (:class:`TotalSums`, :func:`sums_moments`): one pass
    over the counts ``data`` (``(M, C + 1)`` or ``(L, M, C + 1)``, whole or fractional; integer
    arrays are not copied to floats), ``answered`` (same leading shape) the questions each
    model's pi-bar averages over (None: all).

    Parameters
    ----------
    data : numpy.ndarray of shape (M, C + 1) or (L, M, C + 1)
        Category counts per question (and model), whole or fractional.
    w : numpy.ndarray of shape (C + 1,)
        Rubric weights.
    answered : numpy.ndarray of bool, shape (M,) or (L, M), optional
        The questions each model's pi-bar averages over; None (default): all.

    Returns
    -------
    TotalSums
        One row per model and distinct total N of its questions (one per model when every
        question has the same total).

    Examples
    --------
    Two models, two binary questions of 4 trials each:

    >>> import numpy as np
    >>> counts = np.array([[[1, 3], [3, 1]], [[0, 4], [2, 2]]])
    >>> sums = total_sums(counts, np.array([0.0, 1.0]))
    >>> sums.owner.tolist(), sums.total.tolist(), sums.s1.tolist(), sums.shape
    ([0, 1], [4.0, 4.0], [4.0, 6.0], (2,))
    """
    d3 = data if data.ndim == 3 else data[None]
    n_models, m, _ = d3.shape
    ans = np.ones((n_models, m), bool) if answered is None else answered.reshape(n_models, m)
    per_model = ans.sum(axis=1)
    d = w - w[0]
    whole = np.issubdtype(d3.dtype, np.integer)
    # the category axis is short: slices of it, not reductions over it (d[0] = 0)
    tot = d3[..., 0].astype(np.int64 if whole else np.float64)
    x1, x2 = np.zeros(d3.shape[:-1]), np.zeros(d3.shape[:-1])
    for k in range(1, d.size):
        tot += d3[..., k]
        if d[k] != 0.0:
            x1 += d[k] * d3[..., k]
            x2 += d[k] * d[k] * d3[..., k]
    if answered is None and m > 0 and (tot == tot[:, :1]).all():
        # every question of a model has the same total (N trials each): one row per model,
        # its sums along the questions (no keys, no bincount)
        q = np.full(n_models, float(m))
        s1, s2, s11 = x1.sum(axis=-1), x2.sum(axis=-1), np.einsum("lm,lm->l", x1, x1)
        n_tot = tot[:, 0].astype(np.float64)
        return TotalSums(np.arange(n_models), n_tot, q, s1, s2, s11, per_model, data.shape[:-2])
    if answered is None:
        owner = np.repeat(np.arange(n_models), m)
        tot, x1, x2 = tot.ravel(), x1.ravel(), x2.ravel()
    else:
        owner = np.broadcast_to(np.arange(n_models)[:, None], ans.shape)[ans]
        tot, x1, x2 = tot[ans], x1[ans], x2[ans]
    span = int(tot.max(initial=0)) + 1
    if span <= 4096 and (whole or np.all(tot == np.floor(tot))):
        # whole totals: direct codes, no hashing
        code = owner * span + tot.astype(np.int64, copy=False)
        q, s1, s2, s11 = (
            np.bincount(code, weights=v, minlength=n_models * span) for v in (None, x1, x2, x1 * x1)
        )
        used = np.flatnonzero(q)
        q, s1, s2, s11 = (v[used].astype(np.float64) for v in (q, s1, s2, s11))
        own, n_tot = used // span, (used % span).astype(np.float64)
    else:
        keys, inverse, _ = unique_rows(np.stack([owner, tot], axis=1), sort=False)
        size = keys.shape[0]
        q, s1, s2, s11 = (
            np.bincount(inverse, weights=v, minlength=size)
            for v in (np.ones_like(x1), x1, x2, x1 * x1)
        )
        own, n_tot = keys[:, 0].astype(np.int64), keys[:, 1]
    return TotalSums(own, n_tot, q, s1, s2, s11, per_model, data.shape[:-2])


def sums_moments(
    sums: TotalSums, nodes: NDArray[np.float64], w: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Mean and sd of pi-bar under each node, shape ``(J, ...)``.

    Under node :math:`a` a question with counts :math:`n` (total N) has
    :math:`\nu = n + a`, :math:`T = N + s`, mean :math:`E_\alpha = \nu\cdot d/T` and variance
    :math:`V_\alpha = (\nu\cdot d^2 - (\nu\cdot d)^2/T)/(T(T + 1))` (:math:`d = w - w_0`), so
    their sums over the questions of one total N need only the sums of 1, :math:`n\cdot d`,
    :math:`n\cdot d^2` and :math:`(n\cdot d)^2` over them (:func:`total_sums`): with
    :math:`A_1 = a\cdot d`, :math:`A_2 = a\cdot d^2`, :math:`\sum E = (S_1 + Q A_1)/T` and
    :math:`\sum V = (S_2 + Q A_2 - (S_{11} + 2A_1S_1 + QA_1^2)/T)/(T(T + 1))`. Four numbers
    per model and distinct total, however many distinct (e.g. graded) count vectors (eq. 15
    of Hariri et al., "Don't Pass@k", summed by totals). ``nodes``: ``(J, G, C + 1)``, G = 1
    (shared by every model) or one per model.

    Parameters
    ----------
    sums : TotalSums
        The sums of the counts, from :func:`total_sums`.
    nodes : numpy.ndarray of shape (J, G, C + 1)
        Dirichlet prior parameters of the J nodes, for G = 1 group or one per model.
    w : numpy.ndarray of shape (C + 1,)
        Rubric weights (those ``sums`` were built with).

    Returns
    -------
    mean, sd : numpy.ndarray of shape (J,) or (J, L)
        Posterior mean and sd of each model's pi-bar under each node.

    Examples
    --------
    The counts of :func:`total_sums` under the uniform and the Jeffreys prior (two nodes):

    >>> import numpy as np
    >>> w = np.array([0.0, 1.0])
    >>> sums = total_sums(np.array([[[1, 3], [3, 1]], [[0, 4], [2, 2]]]), w)
    >>> mean, sd = sums_moments(sums, np.array([[[1.0, 1.0]], [[0.5, 0.5]]]), w)
    >>> mean.round(4).tolist()
    [[0.5, 0.6667], [0.5, 0.7]]
    >>> sd.shape
    (2, 2)
    """
    own, n_tot, q, s1, s2, s11 = sums[:6]
    n_models, size = sums.per_model.size, own.size
    d = w - w[0]
    # A_1, A_2 and s of every node (J, G), by slices of the short category axis, then the
    # rows' (J, P): one row per model (every question N trials) needs no gather
    a1, a2, s = np.zeros(nodes.shape[:2]), np.zeros(nodes.shape[:2]), nodes[..., 0].copy()
    for k in range(1, d.size):
        s += nodes[..., k]
        if d[k] != 0.0:
            a1 += d[k] * nodes[..., k]
            a2 += d[k] * d[k] * nodes[..., k]
    if nodes.shape[1] == 1:
        a1, a2, s = a1[:, :1], a2[:, :1], s[:, :1]  # (J, 1): broadcast over the rows
    elif not (size == nodes.shape[1] and np.array_equal(own, np.arange(size))):
        a1, a2, s = a1[:, own], a2[:, own], s[:, own]
    t = s + n_tot
    mean = (s1 + q * a1) / t
    var = (s2 + q * a2 - (s11 + 2.0 * a1 * s1 + q * a1 * a1) / t) / (t * (t + 1.0))
    shape = (nodes.shape[0], *sums.shape)
    if size == n_models and np.array_equal(own, np.arange(n_models)):
        # one total per model (every question N trials): the rows are the models
        mu, var_sum = mean, var
    else:
        # the sums per model: a sparse (models x keys) indicator (a dense one is quadratic)
        from scipy.sparse import csr_matrix

        member = csr_matrix((np.ones(size), (own, np.arange(size))), shape=(n_models, size))
        mu, var_sum = (member @ mean.T).T, (member @ var.T).T
    mu = (w[0] + mu / sums.per_model).reshape(shape)
    return mu, (np.sqrt(np.maximum(var_sum, 0.0)) / sums.per_model).reshape(shape)


def _node_moments(data, nodes, w, answered):
    """Mean and sd of pi-bar under each node, shape ``(J, ...)``.

    They are :func:`sums_moments` of :func:`total_sums`.
    """
    return sums_moments(total_sums(data, w, answered), nodes, w)


class BoardLink(NamedTuple):
    """The leaderboard a posterior's models sit on, for the joint posterior.

    It serves the joint posterior of :mod:`~bayes_eval.posteriors.joint`: the binary counts of
    every model of the board, the questions each one's pi-bar averages over, and which of the
    board's models this posterior holds (an index array, or one int). Selections of one
    posterior share ``counts`` (the same array): they are one board, fitted once
    (:func:`~bayes_eval.posteriors.joint.joint_posterior` keeps its last results).

    Attributes
    ----------
    counts : ndarray, shape ``(L, M, 2)``
        Binary counts (failures, successes) of every model of the board.
    answered : ndarray of bool, shape ``(L, M)``, or None
        The questions each model's pi-bar averages over (None: all).
    index : ndarray of int, or int
        The board's models this posterior holds.

    Examples
    --------
    A batch of binary results under the default prior sits on a board:

    >>> import numpy as np
    >>> R = np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]])
    >>> post = posterior(R)
    >>> link = post.board
    >>> type(link).__name__, link.counts.shape, link.index.tolist()
    ('BoardLink', (2, 2, 2), [0, 1])
    >>> link.same_board(post[1:].board)  # a selection stays on its board
    True
    """

    counts: NDArray[np.float64]
    answered: NDArray[np.bool_] | None
    index: NDArray[np.int64]

    def result(self) -> JointPosterior | None:
        """The joint posterior of the board (None when the board model does not apply)."""
        return joint_posterior(self.counts, self.answered)

    def same_board(self, other: BoardLink | None) -> bool:
        """Whether ``other`` links to this very board (selected from one posterior)."""
        return other is not None and other.counts is self.counts


@dataclass(frozen=True, eq=False)
class Posterior:
    r"""The posterior of pi-bar (each model's mean score over these questions).

    It is the posterior of one model or a batch of L models: ``print(post)`` shows it as a
    short table.

    Ask it: :attr:`mean`, :attr:`sd`, :meth:`interval`, :meth:`prob_better`,
    :meth:`draws`, :meth:`summary` (a DataFrame) or :meth:`to_dict`, the Pass family
    (:meth:`pass_at_k`, ...), :meth:`to_datatree`; ``post["model"]`` selects models. Built by
    :func:`posterior`; immutable, and every answer is computed once and kept.

    On a board of binary results under the default prior every number comes from the joint
    posterior of the board model (:attr:`joint`, :mod:`bayes_eval.posteriors.joint`), with
    each model's own closed form beside it (:attr:`closed_form`). Otherwise it is the closed
    form of Hariri et al. (§2.3, App. A): under a fixed prior a product of per-question
    Dirichlet posteriors :math:`\mathrm{Dir}(\nu_\alpha)`; under a learned prior, the
    mixture of those over the J quadrature nodes of the hyperparameters (module docstring).

    Attributes
    ----------
    data : ndarray, shape ``(..., M, C + 1)``
        Counts of ``R`` plus the discounted counts of the prior's earlier runs.
    fitted : FittedPrior
        The prior resolved against ``data``: nodes ``(J, G, C + 1)`` and their posterior
        weights ``(J, G)``, one group per model (G = L) or shared (G = 1).
    w : ndarray, shape ``(C + 1,)``
        Rubric weights.
    tally : Tally
        The counts of ``R`` alone.
    prior : Prior
        The prior as the user gave it (its :attr:`~Prior.label` names it).
    answered : ndarray of bool, shape ``(..., M)``, or None
        With ``answered_only``: the questions each model has a trial of; pi-bar is the mean
        over those. None: over all M questions.
    fractional : bool
        Whether ``R`` held graded scores counted fractionally.
    grade_trials : ndarray or None
        With ``fractional``: the Bernoulli trials one grade counts for, per model
        (:func:`bayes_eval.inputs.grade_trials`; 1 for all-or-nothing grades).
    models : tuple of str or None
        Names of the models of a batch (for labelled output).
    board : BoardLink or None
        The leaderboard of a joint posterior (binary results of several models under the
        default learned prior), else None.
    estimand : str
        :data:`THESE_QUESTIONS`: pi-bar is the mean over these M questions.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> R = np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]])
    >>> post = posterior(R, prior="uniform")  # the paper's prior
    >>> post.mean.round(4).tolist(), post.sd.round(4).tolist()
    ([0.6, 0.7], [0.1414, 0.1291])
    >>> round(float(post.prob_better()[1, 0]), 4)
    0.6992
    """

    data: NDArray[np.float64]
    fitted: FittedPrior
    w: NDArray[np.float64]
    tally: Tally
    prior: Prior
    answered: NDArray[np.bool_] | None = None
    fractional: bool = False
    models: tuple[str, ...] | None = None
    board: BoardLink | None = field(default=None, repr=False)
    grade_trials: NDArray[np.float64] | None = None

    estimand = THESE_QUESTIONS

    @classmethod
    def from_tally(
        cls, tally: Tally, w: ArrayLike | None = None, *, prior: PriorSpec | Prior = "uniform"
    ) -> Posterior:
        """The posterior of counts already tallied (complete questions; ``w`` default binary).

        The prior's earlier runs are tallied against them.
        """
        spec = Prior.parse(prior)
        weights = np.array([0.0, 1.0]) if w is None else np.asarray(w, dtype=float)
        data = tally.counts.astype(np.float64, copy=False)
        if spec.runs is not None:
            data = data + spec.discount * prior_counts(
                spec.runs, tally, mask=spec.runs_mask, source=spec.source
            )
        return cls(data=data, fitted=spec.fit(data), w=weights, tally=tally, prior=spec)

    # ------------------------------------------------------------------ structure

    @property
    def batched(self) -> bool:
        """Whether there is a leading model axis."""
        return self.data.ndim == 3

    @property
    def n_models(self) -> int:
        """L (1 without a model axis)."""
        return self.data.shape[0] if self.batched else 1

    @property
    def n_nodes(self) -> int:
        """J, the nodes of the prior (1 for a fixed or plug-in prior)."""
        return int(self.fitted.nodes.shape[0])

    @property
    def concentration_unidentified(self) -> NDArray[np.bool_]:
        """Per model, whether a learned prior's concentration is informed by its hyperprior alone.

        The shape is ``(L,)`` (``(1,)`` without a model axis). The concentration is informed by
        the hyperprior alone when every question of the model has at most one trial (the
        likelihood of one trial does not depend on how alike the questions are) and no board
        updated the hyperprior (one model, rubric data, or ``pool="model"``/``"benchmark"``).
        Always False for fixed priors.
        """
        if self.joint is not None:
            return np.full(self.n_models, not self.joint.dispersion_identified)
        if not self.prior.learned or self.fitted.kappa_prior is None:
            return np.zeros(self.n_models, dtype=bool)
        counts = self.data if self.batched else self.data[None]
        single = (counts.sum(axis=-1) <= 1.0).all(axis=-1)  # (L,)
        given = self.prior.kappa_prior or KAPPA_PRIOR
        base = np.asarray(given, dtype=float)
        board = np.any(self.fitted.kappa_prior != base, axis=-1)  # (G,)
        return single & ~np.broadcast_to(board, single.shape)

    def concentration_note(self) -> str | None:
        """One line when :attr:`concentration_unidentified` holds for some model, else None.

        The line says what the interval then rests on and what would identify it.
        """
        lost = self.concentration_unidentified
        if not lost.any():
            return None
        if self.joint is not None:
            med, sd = DISPERSION_PRIOR
            return (
                "note: with one trial per question the board model's Beta dispersion (how far "
                "a model's rate on a question strays from ability minus difficulty) is not "
                f"identified: it keeps its hyperprior (log-normal, median {med:g}, log-sd "
                f"{sd:g}, learned from real leaderboards with repeated trials), which the "
                "intervals rest on; a second trial of some questions identifies it."
            )
        who = "the model" if lost.size == 1 else f"{int(lost.sum())} of {lost.size} models"
        return (
            f"note: the prior's concentration is not identified for {who} (one trial per "
            "question, and no board of other models on the same questions informs it): the "
            "intervals rest on the weakly informative hyperprior and are likely wider than the "
            "data need (1.1-2.3 times the error on real benchmarks: bayes-eval validate "
            "hyperprior); a second trial or other models on the same questions identify it."
        )

    @property
    def shared_nodes(self) -> bool:
        """Whether the models of a batch share the nodes of one learned prior.

        Their posteriors are then dependent through it.
        """
        return self.n_nodes > 1 and self.fitted.nodes.shape[1] == 1 and self.n_models > 1

    @cached_property
    def joint(self) -> JointPosterior | None:
        """The joint posterior of the board this posterior's models sit on, or None.

        The joint posterior is that of :mod:`~bayes_eval.posteriors.joint`; with None, every
        number comes from the models' own (closed-form) posteriors.
        """
        return None if self.board is None else self.board.result()

    @property
    def _joint_index(self) -> NDArray[np.int64] | int:
        return self.board.index  # type: ignore[union-attr]

    @cached_property
    def closed_form(self) -> Posterior:
        """The per-model closed form of the same data and prior (Hariri et al., §2.3, App. A).

        It is each model's own posterior under its learned prior (its concentration informed by
        the board, :mod:`~bayes_eval.posteriors.board`), without the board model. On a board it
        is the diagnostic beside the joint numbers and the posterior of the Pass family;
        elsewhere it is this posterior.
        """
        if self.board is None:
            return self
        return dataclasses.replace(self, board=None)

    @property
    def prior_label(self) -> str:
        """The prior every number of this posterior was computed under, in one line.

        It is the board model when the joint posterior applies, else :attr:`Prior.label`.
        """
        if self.joint is not None:
            return JOINT_PRIOR
        return self.prior.label

    @cached_property
    def weights(self) -> NDArray[np.float64]:
        """Node weights, shape ``(J, ...)`` (``(J, L)`` for a batch, ``(J,)`` for one model)."""
        wts = self.fitted.weights
        if not self.batched:
            return wts[:, 0]
        return np.broadcast_to(wts, (wts.shape[0], self.n_models))

    @cached_property
    def _alpha(self) -> NDArray[np.float64]:
        """Prior concentrations per node broadcast over the data: ``(J, ..., 1, C + 1)``."""
        nodes = self.fitted.nodes
        return nodes[:, 0, None, :] if not self.batched else nodes[:, :, None, :]

    @property
    def nu(self) -> NDArray[np.float64]:
        """Posterior concentrations, of shape ``(..., M, C + 1)`` or ``(J, ..., M, C + 1)``.

        The first is with one node, the second for a mixture (built on demand: J times the data).
        """
        nu = self.data[None] + self._alpha
        return nu[0] if self.n_nodes == 1 else nu

    @property
    def dirichlet(self) -> DirichletPosterior:
        """The per-question Dirichlet posteriors (one node only: a fixed or plug-in prior)."""
        if self.n_nodes != 1:
            raise ValueError(
                f"the prior {self.prior.label!r} is a mixture over {self.n_nodes} nodes; a single "
                "Dirichlet posterior needs a fixed or plug-in prior."
            )
        return DirichletPosterior(self.nu, self.w, self.tally, self.answered)

    def __len__(self) -> int:
        return self.n_models

    def _model_index(self, index) -> int | NDArray[np.intp]:
        """Positions of the models ``index`` selects.

        ``index`` is a name, a position, a slice, or a list (or array) of names, positions or
        booleans. A wrong type is a TypeError, an unknown name or a position out of range a
        ValueError or IndexError, in our words.
        """
        L = self.n_models
        what = "a model name, a position (int), a slice, or a list of names or positions"
        if isinstance(index, slice):
            return np.arange(L)[index]
        if isinstance(index, (str, np.str_)):
            index = str(index)
        if isinstance(index, (list, tuple, np.ndarray)):
            keys = list(np.asarray(index, dtype=object).ravel()) if len(index) else []
            if isinstance(index, np.ndarray) and index.dtype == np.bool_:
                if index.shape != (L,):
                    raise IndexError(
                        f"a boolean selection has shape {index.shape}; expected ({L},), one per "
                        "model."
                    )
                return np.flatnonzero(index)
            return np.array([self._model_index(k) for k in keys], dtype=np.intp)
        if isinstance(index, str):
            names = self.models or ()
            if index not in names:
                raise ValueError(f"model {shown(index)} is not one of {list(names)}.")
            return names.index(index)
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(
                f"models are selected by {what}; got {type(index).__name__} {shown(index)}."
            )
        if not -L <= int(index) < L:
            raise IndexError(f"model position {int(index)} is out of range for {L} models.")
        return int(index) % L

    def __getitem__(self, index: int | slice | ArrayLike) -> Posterior:
        """The posterior of some models of a batch (an int keeps no model axis).

        Nothing is refitted: a benchmark-pooled prior stays the one learned from every model.
        """
        if not self.batched:
            raise ValueError("this posterior has no model axis to select from.")
        idx = self._model_index(index)
        one = np.ndim(idx) == 0
        sel = (lambda x: x[idx]) if not one else (lambda x: x[int(idx)])
        nodes, wts = self.fitted.nodes, self.fitted.weights
        if nodes.shape[1] == self.n_models and self.n_models > 1:
            g = np.atleast_1d(idx)
            fitted = self.fitted._replace(
                nodes=nodes[:, g],
                weights=wts[:, g],
                alpha=self.fitted.alpha[g],
                converged=self.fitted.converged[g],
                log_alpha_cov=self.fitted.log_alpha_cov[g],
                kappa_prior=(
                    None if self.fitted.kappa_prior is None else self.fitted.kappa_prior[g]
                ),
            )
        else:
            fitted = self.fitted
        counts, trials = sel(self.tally.counts), sel(self.tally.n_trials)
        tal = Tally(counts, trials, self.tally.n_categories, not one)
        models = None
        if self.models is not None:
            models = (self.models[int(idx)],) if one else tuple(self.models[i] for i in idx)
        return Posterior(
            data=sel(self.data),
            fitted=fitted,
            w=self.w,
            tally=tal,
            prior=self.prior,
            answered=None if self.answered is None else sel(self.answered),
            fractional=self.fractional,
            models=None if one else models,
            board=None if self.board is None else self.board._replace(index=sel(self.board.index)),
            grade_trials=None if self.grade_trials is None else sel(self.grade_trials),
        )

    # ------------------------------------------------------------------ moments

    @cached_property
    def node_moments(self) -> BayesResult:
        """Mean and sd of pi-bar under each node, arrays of shape ``(J, ...)``.

        Computed once per distinct count vector of each model (a binary benchmark with N trials
        has at most N + 1).
        """
        if self.n_nodes == 1:
            mu, sigma = self.dirichlet.moments()
            return BayesResult(np.asarray(mu)[None], np.asarray(sigma)[None])
        mu, sigma = _node_moments(self.data, self.fitted.nodes, self.w, self.answered)
        return BayesResult(mu, sigma)

    @cached_property
    def _moments(self) -> BayesResult:
        joint = self.joint
        if joint is not None:
            idx = self._joint_index
            return BayesResult(joint.mean[idx], joint.sd[idx])
        mu, sigma = self.node_moments
        if self.n_nodes == 1:
            return BayesResult(mu[0], sigma[0])
        return BayesResult(*mixture_moments(mu, sigma, self.weights))

    @property
    def mean(self) -> Estimate:
        r""":math:`\mu = E[\bar\pi \mid R]`: a float, or an array of shape ``(L,)``."""
        return as_estimate(self._moments.mu)

    @property
    def sd(self) -> Estimate:
        r""":math:`\sigma = \mathrm{sd}[\bar\pi \mid R]`: a float, or an array of shape ``(L,)``."""
        return as_estimate(self._moments.sigma)

    def moments(self) -> BayesResult:
        """``(mu, sigma)`` as :class:`BayesResult` (floats, or arrays of shape ``(L,)``)."""
        return BayesResult(self.mean, self.sd)

    def question_moments(self) -> QuestionMoments:
        """Mean (relative to ``w[0]``) and variance of each question's score (one node)."""
        return self.dirichlet.question_moments()

    @property
    def support(self) -> tuple[float, float]:
        """``(min w, max w)``: the range of pi-bar."""
        return float(self.w.min()), float(self.w.max())

    # ------------------------------------------------------------------ intervals

    def interval(
        self,
        confidence: float = 0.95,
        *,
        kind: Interval = "auto",
        bounds: tuple[float, float] | Literal["support"] | None = None,
    ) -> CredibleInterval:
        r"""Central credible interval of pi-bar.

        ``kind="auto"`` (the default): the posterior's own law. On a board with the joint
        posterior (:mod:`~bayes_eval.posteriors.joint`), the equal-tailed interval of each
        model's marginal (a mixture of Betas on the support); for a model's own posterior,
        where the mean lies within six posterior sd of an end of the support (there the law
        is skewed and the normal interval misses by a sizeable share of an sd, or leaves the
        support) the exact interval, or for graded scores under a learned prior the Beta on
        the support with the posterior's mean and sd; elsewhere the normal one. It never
        leaves the support and is never clipped to it (:meth:`interval_kinds` says which law
        each model got).
        ``kind="normal"`` (the paper's and scorio's): :math:`\mu \mp z\sigma`,
        :math:`z = \Phi^{-1}(1/2 + \mathrm{confidence}/2)` (Hariri et al., §2.5); it can
        cross an end of the support (``bounds`` clips it).
        ``kind="exact"``: the equal-tailed interval of the exact posterior of pi-bar
        (:mod:`bayes_eval.posteriors.exact`) of each model's own posterior; a joint
        posterior has no exact law (use ``"auto"``, or :attr:`closed_form` for the
        per-model diagnostic). Under a fixed prior its endpoints are within 1e-4 posterior
        sd of the exact quantiles; under a learned prior the law is a mixture over the
        hyperparameters (:func:`~bayes_eval.posteriors.exact.mixture_interval`).

        Parameters
        ----------
        confidence : float
            Credibility level in (0, 1).
        kind : {"auto", "normal", "exact"}, keyword-only
        bounds : (float, float) or "support", optional, keyword-only
            Clip both endpoints into ``[lo, hi]`` (scorio's rule); ``"support"`` clips into
            ``[min w, max w]``.

        Returns
        -------
        CredibleInterval
            ``(lo, hi)``: floats, or arrays of shape ``(L,)``.
        """
        confidence = check_confidence(confidence)
        check_interval(kind)
        bounds = self.support if isinstance(bounds, str) and bounds == "support" else bounds
        bounds = check_bounds(bounds)  # type: ignore[arg-type]
        key = ("interval", confidence, kind)
        if key not in self._cache:
            self._cache[key] = self._interval(confidence, kind)
        lo, hi = clip_interval(*self._cache[key], bounds)
        return CredibleInterval(as_estimate(lo), as_estimate(hi))

    def _interval(self, confidence: float, kind: str):
        mu, sigma = self._moments
        if kind == "normal":
            return normal_interval(mu, sigma, confidence)
        joint = self.joint
        if joint is not None:
            if kind == "exact":
                raise ValueError(
                    "the joint posterior of a board has no exact law: its intervals are its "
                    "marginals (kind='auto'); the exact interval of each model's own posterior "
                    "is closed_form.interval(kind='exact')."
                )
            lo, hi = joint.interval(confidence)
            idx = self._joint_index
            return lo[idx], hi[idx]
        if kind == "exact":
            return self._exact(confidence)
        # auto: near an end of the support the exact law (or, where it costs seconds, the Beta
        # with the posterior's mean and sd), normal elsewhere
        lo_s, hi_s = self.support
        mu_a, sd_a = np.asarray(mu, float), np.asarray(sigma, float)
        near = (mu_a - _AUTO_EXACT_SDS * sd_a < lo_s) | (mu_a + _AUTO_EXACT_SDS * sd_a > hi_s)
        lo, hi = (np.array(x, dtype=float) for x in normal_interval(mu_a, sd_a, confidence))
        if np.any(near):
            if not self._exact_is_cheap:
                b_lo, b_hi = beta_interval(mu_a, sd_a, confidence, lo_s, hi_s)
                return np.where(near, b_lo, lo), np.where(near, b_hi, hi)
            if not self.batched:
                return self._exact(confidence)
            which = np.flatnonzero(near)
            e_lo, e_hi = self[which]._exact(confidence)
            lo[which], hi[which] = e_lo, e_hi
        return lo, hi

    @property
    def _exact_is_cheap(self) -> bool:
        """Whether the exact law takes milliseconds.

        It does for a fixed prior (one lattice convolution), or for binary and rubric results
        under a learned prior (one shared lattice,
        :func:`~bayes_eval.posteriors.exact.mixture_interval`); graded scores under a learned
        prior and rubric levels closer than 1/4096 of the range take longer.
        """
        return self.n_nodes == 1 or (not self.fractional and on_one_lattice(self.w))

    def interval_kinds(self) -> NDArray[np.str_]:
        """Per model, the law ``interval(kind="auto")`` reports.

        It is ``"joint"`` (the joint posterior's marginal), ``"exact"``, ``"beta"`` (the Beta on
        the support with the posterior's mean and sd, where the exact law would take seconds) or
        ``"normal"``.
        """
        n = self.n_models
        if self.joint is not None:
            return np.full(n, "joint")
        lo_s, hi_s = self.support
        mu, sd = (np.atleast_1d(np.asarray(x, float)) for x in self._moments)
        near = (mu - _AUTO_EXACT_SDS * sd < lo_s) | (mu + _AUTO_EXACT_SDS * sd > hi_s)
        return np.where(near, "exact" if self._exact_is_cheap else "beta", "normal")

    def _exact(self, confidence: float):
        key = ("exact", confidence)
        if key not in self._cache:
            if self.n_nodes > 1:
                self._cache[key] = self._exact_mixture_interval(confidence)
            else:
                self._cache[key] = self._exact_interval(confidence)
        return self._cache[key]

    @cached_property
    def _cache(self) -> dict:
        return {}

    def _exact_interval(self, confidence: float):
        """Exact interval with one node, over each model's answered questions."""
        nu = self.nu
        if self.answered is None or self.answered.all():
            return exact_interval(nu, self.w, confidence)
        m, k = nu.shape[-2:]
        flat, answered = nu.reshape(-1, m, k), self.answered.reshape(-1, m)
        ends = [exact_interval(flat[i][answered[i]], self.w, confidence) for i in range(len(flat))]
        shape = nu.shape[:-2]
        return tuple(np.array([e[j] for e in ends], dtype=float).reshape(shape) for j in (0, 1))

    def _mixture_laws(self, model: int, limit: int = _EXACT_NODES):
        """Exact laws of the heaviest nodes of one model and their weights.

        They are computed once: the exact interval and the exact P(better) share them.
        """
        key = ("laws", model, limit)
        if key not in self._cache:
            self._cache[key] = self._build_mixture_laws(model, limit)
        return self._cache[key]

    def _build_mixture_laws(self, model: int, limit: int):
        nu = self.data.reshape(-1, *self.data.shape[-2:])[model]
        wts = self.weights.reshape(self.n_nodes, -1)[:, model]
        g = model if self.fitted.nodes.shape[1] > 1 else 0
        rows = slice(None)
        if self.answered is not None:
            rows = self.answered.reshape(-1, self.data.shape[-2])[model]
        keep = mixture_support(wts, 1.0 - 1e-4)[:limit]
        laws = [exact_posterior(nu[rows] + self.fitted.nodes[j, g], self.w) for j in keep]
        return laws, wts[keep]

    def _single_law(self, model: int, node: int = 0) -> NDArray[np.float64]:
        """Posterior concentrations of one model (answered questions) under one node."""
        data = self.data.reshape(-1, *self.data.shape[-2:])[model]
        g = model if self.fitted.nodes.shape[1] > 1 else 0
        nu = data + self.fitted.nodes[node, g]
        if self.answered is not None:
            nu = nu[self.answered.reshape(-1, self.data.shape[-2])[model]]
        return nu

    def _exact_mixture_interval(self, confidence: float):
        """Equal-tailed interval under the learned prior, per model.

        It is :func:`~bayes_eval.posteriors.exact.mixture_interval`: a fine grid of the
        hyperposterior when the prior was fitted to this model's counts alone.
        """
        ends = np.empty((self.n_models, 2))
        data = self.data.reshape(-1, *self.data.shape[-2:])
        wts = self.weights.reshape(self.n_nodes, -1)
        for i in range(self.n_models):
            g = i if self.fitted.nodes.shape[1] > 1 else 0
            key = ("fine", g)
            if key not in self._cache:
                fine = None
                # the hyperprior the fit used (per group when a board updated it)
                hyper = getattr(self.fitted, "kappa_prior", None)
                hyper = self.prior.kappa_prior if hyper is None else tuple(hyper[g])
                if self.fitted.nodes.shape[1] > 1 or self.n_models == 1:
                    fine = _fine_grid(
                        data[i], self.fitted.alpha[g], self.fitted.log_alpha_cov[g], hyper
                    )
                self._cache[key] = fine
            rows = slice(None)
            if self.answered is not None:
                rows = self.answered.reshape(-1, self.data.shape[-2])[i]
            ends[i] = mixture_interval(
                data[i][rows],
                self.w,
                confidence,
                self.fitted.nodes[:, g],
                wts[:, i],
                fine=self._cache[key],
            )
        shape = self.data.shape[:-2]
        return ends[:, 0].reshape(shape), ends[:, 1].reshape(shape)

    # ------------------------------------------------------------------ comparisons

    @property
    def has_board(self) -> bool:
        """Whether this posterior's numbers come from the joint posterior of a board.

        The joint posterior is :attr:`joint`; it applies with the learned prior pooled over the
        board (the default) on binary results of two or more models with a question in common,
        without earlier runs.
        """
        return self.joint is not None

    def prob_method(self, method: str | None = None) -> str:
        """The method :meth:`prob_better` uses for ``method``.

        None means ``"board"`` on a board, else ``"normal"``; a bad or unavailable one is a
        ValueError.
        """
        if method is None:
            method = "board" if self.has_board else "normal"
        if method not in PROB_METHODS:
            raise ValueError(
                f"method is {shown(method)}; expected one of {', '.join(map(repr, PROB_METHODS))}."
            )
        if method == "board" and not self.has_board:
            raise ValueError(
                "method='board' needs the joint posterior of a board: the learned prior pooled "
                "over the board (prior 'empirical', pool 'board', the default) on binary results "
                "of two or more models sharing a question, without earlier runs."
            )
        return method

    def prob_label(self, method: str | None = None) -> str:
        """One line naming what :meth:`prob_better` computes with ``method``.

        It names the joint posterior of the board
        (:data:`BOARD_MODEL <bayes_eval.posteriors.joint.JOINT_MODEL>`), or the models' own
        posteriors under the prior's label.
        """
        if self.prob_method(method) == "board":
            return BOARD_MODEL
        return self.closed_form.prior.label

    def prob_better(
        self, other: Posterior | None = None, *, method: str | None = None
    ) -> float | NDArray[np.float64]:
        r"""Posterior probability that pi-bar of one model exceeds another's.

        ``other=None``: the matrix :math:`P(\bar\pi_i > \bar\pi_j)` over the models of
        this batch, shape ``(L, L)``, 1/2 on the diagonal. ``other`` a posterior (one model,
        or a batch of the same L): :math:`P(\bar\pi_{\mathrm{self}} >
        \bar\pi_{\mathrm{other}})`, element by element.

        The default is the posterior every other number of this object comes from, so the
        model with the larger :attr:`mean` always has :math:`P \ge 1/2`:

        * ``method="board"`` (on a board: :attr:`joint`): :math:`\Phi(E[D]/\mathrm{sd}[D])`
          for :math:`D = \bar\pi_i - \bar\pi_j` with its mean and variance under the joint
          posterior (:mod:`~bayes_eval.posteriors.joint`), the covariance the shared questions
          induce included. ``other`` must come from the same board (``post[...]``).
        * ``method="normal"`` (elsewhere): the same with the models' own posteriors, which are
          independent given the data: the ranking confidence :math:`\rho = \Phi(z)`,
          :math:`z = (\mu_i - \mu_j)/\sqrt{\sigma_i^2 + \sigma_j^2}` of Hariri et al.,
          §2.5; models that share a benchmark-pooled prior mix over its common nodes (law of
          total variance of D).
        * ``method="exact"``: the exact posterior of each model's own posterior
          (:mod:`bayes_eval.posteriors.exact`: the lattice convolution of two laws for fixed
          priors, per common node for a shared learned prior, :math:`\int F_j\,dF_i` of two
          mixture CDFs for independent learned priors). Not used by any leaderboard: with
          skewed laws its sign can disagree with the order of the means.

        On a board ``"normal"`` and ``"exact"`` are computed on :attr:`closed_form` (a
        diagnostic beside the joint numbers). The estimand is :data:`THESE_QUESTIONS`;
        :meth:`prob_label` names what was computed.

        Returns
        -------
        float or ndarray
        """
        if other is None:
            if not self.batched:
                raise ValueError(
                    "prob_better() without another posterior compares the models of a batch; "
                    "this posterior has one model."
                )
            method = self.prob_method(method)
            if method == "board":
                idx = self._joint_index
                return self.joint.prob_better()[np.ix_(idx, idx)]  # type: ignore[union-attr]
            return self.closed_form._matrix(method)
        if not isinstance(other, Posterior):
            raise ValueError(
                f"other is a {type(other).__name__}; expected a Posterior (bayes_eval.posterior)."
            )
        if other.w.shape != self.w.shape or not np.allclose(other.w, self.w):
            raise ValueError(
                f"the two posteriors have weights {shown(self.w)} and {shown(other.w)}; "
                "compare scores on the same rubric."
            )
        if self.batched and other.batched and self.n_models != other.n_models:
            raise ValueError(
                f"the posteriors have {self.n_models} and {other.n_models} models; expected the "
                "same number, or one model on either side."
            )
        same_board = self.board is not None and self.board.same_board(other.board)
        if method is None:
            method = "board" if same_board and self.has_board else "normal"
        method = self.prob_method(method)
        if method == "board":
            if not same_board:
                raise ValueError(
                    "method='board' compares models of one board: select both from one "
                    "posterior (post['a'], post['b'])."
                )
            full = self.joint.prob_better()  # type: ignore[union-attr]
            out = full[self.board.index, other.board.index]  # type: ignore[union-attr]
            return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=float)
        mine, theirs = self.closed_form, other.closed_form
        n = max(self.n_models, other.n_models)
        idx_a = (lambda i: i) if self.batched else (lambda i: 0)
        idx_b = (lambda i: i) if other.batched else (lambda i: 0)
        out = np.array(
            [_pair_prob(mine, idx_a(i), theirs, idx_b(i), method, False) for i in range(n)]
        )
        return float(out[0]) if not (self.batched or other.batched) else out

    def _matrix(self, method: str) -> NDArray[np.float64]:
        n = self.n_models
        out = np.full((n, n), 0.5)
        if method == "normal":
            mu_j, sd_j = (np.asarray(x).reshape(self.n_nodes, n) for x in self.node_moments)
            wts = self.weights.reshape(self.n_nodes, n)
            if self.shared_nodes:
                d = mu_j[:, :, None] - mu_j[:, None, :]  # (J, L, L)
                v = sd_j[:, :, None] ** 2 + sd_j[:, None, :] ** 2
                mean = np.einsum("j,jab->ab", wts[:, 0], d)
                var = np.einsum("j,jab->ab", wts[:, 0], v + (d - mean) ** 2)
            else:
                mu, sigma = (np.asarray(x).reshape(n) for x in self._moments)
                mean = mu[:, None] - mu[None, :]
                var = sigma[:, None] ** 2 + sigma[None, :] ** 2
            out = _normal_prob(mean, var)
            np.fill_diagonal(out, 0.5)
            return out
        if self.n_nodes > 1 and not self.shared_nodes:  # independent mixtures: one grid
            return self._mixture_matrix()
        laws = None if self.n_nodes > 1 else self._fixed_laws()
        for i in range(n):
            for j in range(i + 1, n):
                p = _pair_prob(self, i, self, j, method, True, laws)
                out[i, j], out[j, i] = p, 1.0 - p
        return out

    def _mixture_matrix(self) -> NDArray[np.float64]:
        r"""Exact :math:`P(\bar\pi_i > \bar\pi_j) = \int F_j\,dF_i` for independent learned priors.

        Every model's mixture CDF is taken on one common grid (steps at most 1/100 of the
        smallest posterior sd, at least 4097 points), then every pair by the trapezoid rule.
        """
        n = self.n_models
        laws = [self._mixture_laws(i) for i in range(n)]
        lo = min(float(d.x[0] - d.step) for ls, _ in laws for d in ls)
        hi = max(float(d.x[-1] + d.step) for ls, _ in laws for d in ls)
        sd_min = float(np.min(np.atleast_1d(self.sd)))
        size = int(np.clip((hi - lo) / max(sd_min / 100, 1e-300), _GRID, 1 << 17)) | 1
        grid = np.linspace(lo, hi, size)
        cdf = np.empty((n, size))
        for i, (ls, wts) in enumerate(laws):
            wts = np.asarray(wts) / np.sum(wts)
            f = np.clip(sum(wt * d.cdf(grid) for wt, d in zip(wts, ls, strict=True)), 0.0, 1.0)
            cdf[i] = np.maximum.accumulate(f)
        mid = 0.5 * (cdf[:, 1:] + cdf[:, :-1])  # F_j at the middle of each cell
        out = np.clip(np.diff(cdf, axis=1) @ mid.T, 0.0, 1.0)  # out[i, j] = int F_j dF_i
        out = 0.5 * (out + 1.0 - out.T)  # exactly complementary
        np.fill_diagonal(out, 0.5)
        return out

    def _fixed_laws(self):
        """Exact laws of every model on one lattice step (fixed or plug-in prior)."""
        nu = self.nu.reshape(-1, *self.data.shape[-2:])
        rows = [slice(None)] * len(nu)
        if self.answered is not None:
            rows = list(self.answered.reshape(len(nu), -1))
        step = lattice_step([nu[i][rows[i]] for i in range(len(nu))], self.w)
        return [exact_posterior(nu[i][rows[i]], self.w, step=step) for i in range(len(nu))]

    # ------------------------------------------------------------------ draws

    def draws(
        self, n: int, *, rng: np.random.Generator | int | None = None, include_pi: bool = False
    ) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64]]:
        r"""``n`` independent draws of pi-bar, shape ``(n, ...)``.

        On a board (:attr:`joint`): joint draws of the joint posterior
        (:meth:`~bayes_eval.posteriors.joint.JointPosterior.draws`). Otherwise exact draws:
        every :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)` is a normalised vector of Gamma
        variates, so :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha` is drawn exactly.
        Under a learned prior every draw first picks a node with its posterior weight (one
        node per model, or one shared by the models of a benchmark-pooled prior).

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator or int, keyword-only
            Generator or seed (0 when None: the draws repeat).
        include_pi : bool, keyword-only
            Also return the draws of every :math:`\pi_\alpha`, shape ``(n, ..., M, C + 1)``.

        Returns
        -------
        ndarray, or (ndarray, ndarray) with ``include_pi``
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n is {shown(n)}; expected a positive integer.")
        per_draw = float(self.n_models if self.batched else 1)
        if include_pi:
            per_draw *= 1.0 + float(np.prod(self.data.shape[-2:]))
        check_memory(  # the draws returned, and the same again while they are made
            2 * 8.0 * float(n) * per_draw,
            f"n = {int(n)} draws" + (" with include_pi" if include_pi else ""),
            "fewer draws",
        )
        rng = np.random.default_rng(0 if rng is None else rng)
        if self.joint is not None:
            if include_pi:
                raise ValueError(
                    "the joint posterior of a board draws pi-bar only; per-question draws "
                    "come from each model's own posterior: closed_form.draws(n, "
                    "include_pi=True)."
                )
            return self.joint.draws(int(n), rng)[:, self._joint_index]
        nu, per_draw = self._draw_nu(int(n), rng)
        bar, pi = _dirichlet_draws(nu, per_draw, int(n), rng, self.w, include_pi, self.answered)
        return (bar, pi) if include_pi else bar

    def _draw_nu(self, n: int, rng: np.random.Generator) -> tuple[NDArray[np.float64], bool]:
        """Concentrations, shared by every draw with one node or one per draw for a mixture.

        With one node (``False``) they are ``(..., M, K)``, shared by every draw; for a mixture
        (``True``) they are ``(n, ..., M, K)``, one per draw.
        """
        if self.n_nodes == 1:
            return self.nu, False
        wts = self.weights.reshape(self.n_nodes, -1)  # (J, L)
        cdf = np.cumsum(wts, axis=0)
        cols = 1 if self.shared_nodes else cdf.shape[1]
        u = rng.random((n, cols)) * cdf[-1, :cols]
        j = (u[:, None, :] >= cdf[None, :, :cols]).sum(axis=1).clip(max=cdf.shape[0] - 1)
        j = np.broadcast_to(j, (n, cdf.shape[1]))
        nodes = self.fitted.nodes  # (J, G, K)
        g = np.arange(cdf.shape[1]) if nodes.shape[1] > 1 else np.zeros(cdf.shape[1], int)
        alpha = nodes[j, g[None, :]]  # (n, L, K)
        data = self.data.reshape(-1, *self.data.shape[-2:])
        nu = data[None] + alpha[:, :, None, :]
        return (nu if self.batched else nu[:, 0]), True

    # ------------------------------------------------------------------ Pass family

    def pass_metric(
        self,
        metric: str,
        k: int,
        *,
        tau: float | None = None,
        confidence: float = 0.95,
        interval: Interval = "normal",
        bounds: tuple[float, float] | None = (0.0, 1.0),
    ) -> PassPosterior:
        r"""Posterior of a latent Pass family metric (Hariri et al., App. H).

        Each question's success probability has the posterior
        :math:`\mathrm{Beta}(a_1 + c_\alpha, a_0 + N_\alpha - c_\alpha)` under this
        posterior's prior (per node of a learned prior; earlier runs add their discounted
        counts); the target is :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)`
        (:mod:`bayes_eval.metrics.passk` has the formulas).

        Parameters
        ----------
        metric : {"pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k"}
        k : int
            ``1 <= k <= N``.
        tau : float, keyword-only
            G-Pass@k_tau's threshold in (0, 1].
        confidence, interval, bounds : keyword-only
            As in :meth:`interval` (``bounds`` default ``(0, 1)``, as scorio).

        Returns
        -------
        PassPosterior
        """
        kinds = {
            "pass_at_k": "pass",
            "pass_hat_k": "hat",
            "g_pass_at_k_tau": "threshold",
            "mg_pass_at_k": "mg",
        }
        if metric not in kinds:
            raise ValueError(f"metric is {shown(metric)}; expected one of {sorted(kinds)}.")
        if self.fractional or self.w.size != 2:
            raise ValueError(
                "the Pass family needs binary results (0/1 per trial); this posterior has "
                + ("graded scores." if self.fractional else f"{self.w.size} categories.")
            )
        if self.answered is not None:
            raise ValueError(
                "the Pass family needs every question answered (k trials or more each); drop "
                "answered_only or select the common questions."
            )
        if metric == "g_pass_at_k_tau":
            if tau is None:
                raise ValueError("metric 'g_pass_at_k_tau' needs tau in (0, 1].")
            tau = check_tau(tau)  # the module functions' check (one validation path)
        elif tau is not None:
            raise ValueError(
                f"tau is {shown(tau)}; only metric 'g_pass_at_k_tau' takes a threshold."
            )
        confidence = check_confidence(confidence)
        check_interval(interval)
        bounds = check_bounds(bounds)
        return pass_law(
            self.data,
            self.tally.n_trials,
            self.fitted,
            kinds[metric],
            k,
            tau,
            confidence=confidence,
            bounds=bounds,
            interval=interval,
        )

    def pass_at_k(self, k: int, **options) -> PassPosterior:
        """Posterior of the latent Pass@k (:meth:`pass_metric`, App. H eq. 21)."""
        return self.pass_metric("pass_at_k", k, **options)

    def pass_hat_k(self, k: int, **options) -> PassPosterior:
        """Posterior of the latent Pass^k (:meth:`pass_metric`, App. H eq. 22)."""
        return self.pass_metric("pass_hat_k", k, **options)

    def g_pass_at_k_tau(self, k: int, tau: float, **options) -> PassPosterior:
        """Posterior of the latent G-Pass@k_tau (:meth:`pass_metric`, App. H eq. 23)."""
        return self.pass_metric("g_pass_at_k_tau", k, tau=tau, **options)

    def mg_pass_at_k(self, k: int, **options) -> PassPosterior:
        """Posterior of the latent mG-Pass@k (:meth:`pass_metric`, App. H eq. 24)."""
        return self.pass_metric("mg_pass_at_k", k, **options)

    # ------------------------------------------------------------------ output

    def summary(self, confidence: float = 0.95, *, kind: Interval = "auto"):
        """One row per model as a ``pandas.DataFrame`` indexed by model (ArviZ's convention).

        Columns are ``mean``, ``sd``, the interval's ``lo`` and ``hi`` and the law it came from
        (``interval``); ``attrs`` name the prior, the estimand and the level. pandas is imported
        here only; :meth:`to_dict` is the same without it.
        """
        import pandas as pd

        doc = self.to_dict(confidence, kind=kind)
        names = doc["models"] if self.batched else [self.models[0] if self.models else "model"]
        rows = {key: np.atleast_1d(doc[col]) for key, col in (("mean", "mu"), ("sd", "sigma"))}
        rows |= {"lo": np.atleast_1d(doc["lo"]), "hi": np.atleast_1d(doc["hi"])}
        rows["interval"] = np.atleast_1d(doc["interval_kind"])
        frame = pd.DataFrame(rows, index=pd.Index(names, name="model"))
        frame.attrs = {k: doc[k] for k in ("prior", "estimand", "confidence")}
        return frame

    def to_dict(self, confidence: float = 0.95, *, kind: Interval = "auto") -> dict:
        """JSON-ready description of the posterior.

        It holds ``prior`` (label), ``estimand``, ``confidence``, ``interval`` (the kind asked
        for) and ``interval_kind`` (per model, the law it came from), ``mu``, ``sigma``, ``lo``,
        ``hi`` (lists for a batch) and ``models``.
        """
        lo, hi = self.interval(confidence, kind=kind)
        kinds = self.interval_kinds() if kind == "auto" else np.full(self.n_models, kind)
        out = {
            "prior": self.prior_label,
            "estimand": self.estimand,
            "confidence": confidence,
            "interval": kind,
            "interval_kind": kinds.tolist() if self.batched else str(kinds[0]),
            "mu": self.mean,
            "sigma": self.sd,
            "lo": lo,
            "hi": hi,
        }
        if self.batched:
            out["models"] = list(self.models or (f"model_{i}" for i in range(self.n_models)))
        if self.grade_trials is not None:
            out["grade_trials"] = self.grade_trials
        return out

    def __repr__(self) -> str:
        """A short table: one line per model (mean, sd, 95% interval).

        The prior and the estimand are shown once.
        """
        names = (
            list(self.models or (f"model_{i}" for i in range(self.n_models)))
            if self.batched
            else [self.models[0] if self.models else "pi-bar"]
        )
        mu, sd = (np.atleast_1d(np.asarray(x, float)) for x in self._moments)
        lo, hi = (np.atleast_1d(np.asarray(x, float)) for x in self.interval(0.95))
        width = min(max(len(n) for n in names), 40)
        lines = [
            f"Posterior of pi-bar: {self.n_models} model{'s' if self.n_models > 1 else ''}, "
            f"{self.data.shape[-2]} questions; prior: {self.prior_label}; estimand: "
            f"{self.estimand}",
            f"  {'model':<{width}}    mean      sd   95% interval",
        ]
        n = len(names)
        shown_rows = list(range(n)) if n <= 20 else [*range(10), None, *range(n - 9, n)]
        for i in shown_rows:
            if i is None:
                lines.append(f"  ... {n - 19} more models")
                continue
            name = names[i] if len(names[i]) <= width else names[i][: width - 1] + "~"
            lines.append(f"  {name:<{width}}  {mu[i]:.4f}  {sd[i]:.4f}  [{lo[i]:.4f}, {hi[i]:.4f}]")
        return "\n".join(lines)

    def to_datatree(
        self,
        *,
        draws: int = 1000,
        chains: int = 4,
        seed: int = 0,
        include_pi: bool = False,
        include_prior: bool = True,
        questions: ArrayLike | None = None,
    ):
        r"""Exact draws as an ArviZ-style ``xarray.DataTree``.

        ``posterior`` holds ``pi_bar`` over ``(chain, draw, model)`` (and ``pi`` over
        ``(chain, draw, model, question, category)`` with ``include_pi``): the layout of a
        NUTS fit of :func:`bayes_eval.models.matching_model`, so ``arviz_stats.summary`` and
        the plots of ``arviz_plots`` apply to both paths. The draws are independent: ``chain``
        only splits them (r-hat 1, ESS the number of draws up to Monte Carlo noise).
        ``include_prior`` adds a ``prior`` group of draws from
        :math:`\mathrm{Dir}(a + \lambda n^0_\alpha)` (fixed priors only: a learned prior has
        no single prior to draw from). xarray only: no ArviZ import.

        Parameters
        ----------
        draws, chains : int, keyword-only
            Draws per chain and chains (``draws * chains`` exact draws).
        seed : int, keyword-only
        include_pi, include_prior : bool, keyword-only
        questions : array_like, optional, keyword-only
            Question labels (default ``0..M-1``).
        """
        import xarray as xr

        for name, value in (("draws", draws), ("chains", chains)):
            if isinstance(value, bool) or int(value) != value or value < 1:
                raise ValueError(f"{name} is {shown(value)}; expected a positive integer.")
        draws, chains = int(draws), int(chains)
        rng, n = np.random.default_rng(seed), draws * chains
        post = self if self.batched else self._as_batch()
        if post.joint is not None:
            if include_pi:
                raise ValueError(
                    "the joint posterior of a board draws pi-bar only; per-question draws "
                    "come from each model's own posterior: closed_form.to_datatree("
                    "include_pi=True)."
                )
            pi_bar, pi = post.draws(n, rng=rng), None
        else:
            nu, per_draw = post._draw_nu(n, rng)
            pi_bar, pi = _dirichlet_draws(nu, per_draw, n, rng, post.w, include_pi, post.answered)
        m = self.data.shape[-2]
        coords = {
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "model": list(post.models or [f"model_{i}" for i in range(post.n_models)]),
            "question": np.arange(m) if questions is None else np.asarray(questions),
            "category": np.arange(self.w.size),
        }

        def group(bar, p):
            data = {"pi_bar": (tuple(coords)[:3], bar.reshape(chains, draws, -1))}
            if p is not None:
                data["pi"] = (tuple(coords), p.reshape(chains, draws, *p.shape[1:]))
            keep = tuple(coords)[: 3 + 2 * (p is not None)]
            return xr.Dataset(data, coords={k: coords[k] for k in keep})

        tree = {"posterior": group(pi_bar, pi)}
        if include_prior and self.n_nodes == 1 and post.joint is None:
            base = post.nu - post.tally.counts  # a + discounted earlier runs, per question
            prior_bar, prior_pi = _dirichlet_draws(base, False, n, rng, post.w, include_pi, None)
            tree["prior"] = group(prior_bar, prior_pi)
        dt = xr.DataTree.from_dict(tree)
        dt.attrs = {
            "estimator": "Bayes@N joint draws" if post.joint is not None else "Bayes@N exact draws",
            "prior": self.prior_label,
            "estimand": self.estimand,
            "seed": int(seed),
        }
        return dt

    def _as_batch(self) -> Posterior:
        """The same one-model posterior, with a model axis of length 1."""
        t = self.tally
        return Posterior(
            data=self.data[None],
            fitted=self.fitted,
            w=self.w,
            tally=Tally(t.counts[None], t.n_trials[None], t.n_categories, True),
            prior=self.prior,
            answered=None if self.answered is None else self.answered[None],
            fractional=self.fractional,
            grade_trials=None if self.grade_trials is None else self.grade_trials[None],
            models=self.models or ("model_0",),
            board=None
            if self.board is None
            else self.board._replace(index=np.atleast_1d(self.board.index)),
        )


def _normal_prob(mean: ArrayLike, var: ArrayLike) -> NDArray[np.float64]:
    """``Phi(mean / sqrt(var))`` with the limits of a zero variance (1, 0 or 1/2)."""
    mean, var = np.asarray(mean, float), np.asarray(var, float)
    sd = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.sign(mean) * np.inf)
    return ndtr(np.where((sd == 0) & (mean == 0), 0.0, z))


def _pair_prob(a: Posterior, i: int, b: Posterior, j: int, method: str, same: bool, laws=None):
    """``P(pi-bar of model i of a > pi-bar of model j of b)``; ``same``: a is b."""
    mu_a, sd_a = (np.asarray(x).reshape(a.n_nodes, -1)[:, i] for x in a.node_moments)
    mu_b, sd_b = (np.asarray(x).reshape(b.n_nodes, -1)[:, j] for x in b.node_moments)
    wa = a.weights.reshape(a.n_nodes, -1)[:, i]
    wb = b.weights.reshape(b.n_nodes, -1)[:, j]
    shared = same and a.shared_nodes
    if method == "normal":
        if shared:
            d = mu_a - mu_b
            mean = float(wa @ d)
            var = float(wa @ (sd_a**2 + sd_b**2 + (d - mean) ** 2))
        else:
            (ma, sa), (mb, sb) = mixture_moments(mu_a, sd_a, wa), mixture_moments(mu_b, sd_b, wb)
            mean, var = float(ma - mb), float(sa**2 + sb**2)
        return float(_normal_prob(mean, var))
    if a.n_nodes == 1 and b.n_nodes == 1:
        if laws is not None:
            return prob_greater(laws[i], laws[j])
        la, lb = a._single_law(i), b._single_law(j)
        step = lattice_step([la, lb], a.w)
        return prob_greater(
            exact_posterior(la, a.w, step=step), exact_posterior(lb, b.w, step=step)
        )
    if shared:  # one common node: the models are independent given it
        keep = mixture_support(wa, 1.0 - 1e-4)[:_EXACT_NODES]
        total = 0.0
        for node in keep:
            la, lb = a._single_law(i, node), b._single_law(j, node)
            step = lattice_step([la, lb], a.w)
            pa = exact_posterior(la, a.w, step=step)
            total += wa[node] * prob_greater(pa, exact_posterior(lb, b.w, step=step))
        return total / float(wa[keep].sum())
    laws_a, wts_a = a._mixture_laws(i)
    laws_b, wts_b = b._mixture_laws(j)
    return _mixture_prob(laws_a, wts_a, laws_b, wts_b)


def _mixture_prob(laws_a, wts_a, laws_b, wts_b) -> float:
    r""":math:`P(A > B) = \int F_B\,dF_A` for independent mixtures, on a common grid."""
    lo = min(float(d.x[0] - d.step) for d in (*laws_a, *laws_b))
    hi = max(float(d.x[-1] + d.step) for d in (*laws_a, *laws_b))
    grid = np.linspace(lo, hi, _GRID)
    wa, wb = np.asarray(wts_a) / np.sum(wts_a), np.asarray(wts_b) / np.sum(wts_b)
    fa = np.clip(sum(w * d.cdf(grid) for w, d in zip(wa, laws_a, strict=True)), 0.0, 1.0)
    fb = np.clip(sum(w * d.cdf(grid) for w, d in zip(wb, laws_b, strict=True)), 0.0, 1.0)
    fa, fb = np.maximum.accumulate(fa), np.maximum.accumulate(fb)
    # trapezoid rule for the Stieltjes integral of F_B against dF_A
    return float(np.clip((np.diff(fa) * 0.5 * (fb[1:] + fb[:-1])).sum(), 0.0, 1.0))


def _dirichlet_draws(nu, per_draw: bool, n: int, rng, w, keep_pi: bool, answered):
    """``n`` draws of pi-bar (and pi) from ``Dir(nu)``, the mean over the answered questions.

    ``nu`` is of shape ``(..., M, K)`` shared by every draw, or ``(n, ..., M, K)`` one per draw.
    """
    one = nu[0] if per_draw else nu
    step = max(1, _CHUNK // max(one.size, 1))
    bars, pis = [], []
    for i in range(0, n, step):
        k = min(step, n - i)
        conc = nu[i : i + k] if per_draw else np.broadcast_to(nu, (k, *nu.shape))
        g = rng.standard_gamma(conc)
        pi = g / g.sum(axis=-1, keepdims=True)
        score = pi @ w
        if answered is None:
            bars.append(score.mean(axis=-1))
        else:
            bars.append(np.where(answered, score, 0.0).sum(axis=-1) / answered.sum(axis=-1))
        if keep_pi:
            pis.append(pi)
    return np.concatenate(bars), (np.concatenate(pis) if keep_pi else None)


def posterior(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    mask: ArrayLike | None = None,
    fractional: bool = False,
    answered_only: bool = False,
    models: ArrayLike | None = None,
) -> Posterior:
    r"""Validate the results once and build their posterior under ``prior``.

    The per-question posteriors :math:`\mathrm{Dir}(a + \lambda n^0_\alpha + n_\alpha)` of
    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation"
    (§2.3, Appendix A), under a fixed prior, or their mixture over the nodes of a learned one
    (module docstring).

    Parameters
    ----------
    R : array_like, shape ``(M, N)`` or ``(L, M, N)``
        Category labels ``0..C`` of N trials of M questions (for L models). Boolean arrays
        count as 0/1; a ``numpy.ma.MaskedArray`` marks missing trials. With ``fractional``:
        graded scores in ``[0, 1]`` (NaN = missing trial).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights :math:`(w_0, \dots, w_C)`; ``None``: binary results, ``w = (0, 1)``.
    prior : Prior, str, float or array_like, keyword-only
        A :class:`~bayes_eval.posteriors.priors.Prior` (which also carries earlier runs
        ``R0`` and their discount), or its words: ``"empirical"`` (the default: learned from
        the questions and integrated over its uncertainty, the calibrated choice on real
        benchmarks; on a board of binary results the joint posterior of the board model,
        :mod:`~bayes_eval.posteriors.joint`), ``"uniform"`` (the paper's and scorio's
        Dirichlet(1, ..., 1)), ``"jeffreys"``, ``"empirical-plugin"``, a positive number or a
        vector of C + 1 positive numbers.
    mask : array_like of bool, keyword-only
        ``True`` where a trial of ``R`` is missing.
    fractional : bool, keyword-only
        ``R`` holds graded scores in ``[0, 1]``: each adds ``s`` to the correct and ``1 - s``
        to the wrong count, a quasi-likelihood (:func:`bayes_eval.inputs.fractional_tally`);
        ``w`` must be left out.
    answered_only : bool, keyword-only
        Score each model on the questions it has at least one trial of (an incomplete
        design: the models are then not on the same question set). By default a question
        without any trial is an error.
    models : sequence of str, keyword-only
        Names of the L models (labelled output).

    Returns
    -------
    Posterior
        The posterior of each model's pi-bar, to ask for its mean, sd, intervals,
        ``P(better)``, draws and the Pass family.

    Raises
    ------
    ValueError
        For bad results, weights, prior or mask (the message says what was expected).

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> post = posterior(R, [0.0, 0.5, 1.0], prior="uniform")  # the paper's prior
    >>> round(post.mean, 6), round(post.sd, 6)
    (0.5625, 0.091998)
    >>> [round(x, 4) for x in post.interval(0.95, kind="normal")]
    [0.3822, 0.7428]
    """
    spec = Prior.parse(prior)
    trials_per_grade = None
    if fractional:
        t, weights, n0, trials_per_grade = _fractional(R, w, spec, mask, answered_only)
    else:
        t, weights = tally(R, w, mask=mask, allow_empty_questions=answered_only)
        n0 = None
        if spec.runs is not None:
            n0 = prior_counts(spec.runs, t, mask=spec.runs_mask, source=spec.source)
    answered = _answered(t) if answered_only else None
    data = t.counts.astype(np.float64, copy=False)
    if n0 is not None and np.any(n0):
        data = data + spec.discount * n0
    names = None
    if models is not None:
        given = models if isinstance(models, (str, bytes)) else np.asarray(models, dtype=object)
        if isinstance(given, (str, bytes)) or given.ndim != 1:
            raise ValueError(
                f"models is {shown(models)}; expected a list of names, one per model of R."
            )
        blank = [i for i, m in enumerate(given) if m is None or str(m).strip() in ("", "nan")]
        if blank:
            raise ValueError(
                f"models holds {shown(given[blank[0]])} at position {blank[0]}; expected a name "
                "per model."
            )
        names = tuple(str(m) for m in given)
        if not t.batched or len(names) != t.counts.shape[0]:
            want = t.counts.shape[0] if t.batched else "no"
            raise ValueError(f"models has {len(names)} names; R has {want} models.")
        if len(set(names)) < len(names):
            dup = next(m for i, m in enumerate(names) if m in names[:i])
            where = [i for i, m in enumerate(names) if m == dup]
            raise ValueError(
                f"models holds {shown(dup)} more than once (positions {where}); expected one "
                "distinct name per model."
            )
    link = None
    if (
        spec.learned
        and spec.pool == "board"
        and spec.runs is None
        and not fractional
        and t.batched
        and t.counts.shape[0] >= 2
        and weights.size == 2
        and weights[1] > weights[0]
    ):
        link = BoardLink(t.counts, answered, np.arange(t.counts.shape[0]))
        if link.result() is None:
            link = None
    return Posterior(
        data=data,
        fitted=spec.fit(data),
        w=weights,
        tally=t,
        prior=spec,
        answered=answered,
        fractional=fractional,
        models=names,
        board=link,
        grade_trials=trials_per_grade,
    )


def _fractional(R, w, spec: Prior, mask, answered_only: bool = False):
    """Fractional counts of graded ``R`` (and of the prior's runs) with weights (0, 1)."""
    if w is not None and not np.array_equal(np.asarray(w, dtype=float), [0.0, 1.0]):
        raise ValueError(
            f"w is {shown(w)} with fractional=True; graded scores are counted as fractions of "
            "a correct (w = 1) and a wrong (w = 0) answer: leave w out."
        )
    t = fractional_tally(R, mask=mask, allow_empty_questions=answered_only)
    # each grade counts for the Bernoulli trials its spread is worth (1: all-or-nothing)
    n_eff = grade_trials(R, mask=mask)
    scale = n_eff[..., None, None] if t.batched else n_eff
    t = Tally(t.counts * scale, t.n_trials, t.n_categories, t.batched)
    if spec.runs is None:
        return t, np.array([0.0, 1.0]), None, n_eff
    name = "R0" if spec.source is None else f"--prior-file {spec.source}"
    t0 = fractional_tally(spec.runs, mask=spec.runs_mask, name=name, allow_empty_questions=True)
    if t0.counts.shape[:-1] != t.counts.shape[:-1]:
        raise ValueError(
            f"{name} has {t0.counts.shape[:-1]} (models,) questions; expected those of the "
            f"results, {t.counts.shape[:-1]}."
        )
    return t, np.array([0.0, 1.0]), t0.counts * scale, n_eff


def _answered(t: Tally) -> NDArray[np.bool_]:
    """The questions each model has a trial of; every model needs at least one."""
    answered = t.n_trials > 0
    none = ~answered.any(axis=-1)
    if np.any(none):
        where = f" (model index {int(np.flatnonzero(none)[0])})" if t.batched else ""
        raise ValueError(
            f"R has no observed trial at all{where}; expected every model to answer at least "
            "one question."
        )
    return answered


#: gamma variates drawn at once by :meth:`Posterior.draws` (memory bound)
_CHUNK = 4_000_000
