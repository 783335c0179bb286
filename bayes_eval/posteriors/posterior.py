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
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import (
    Tally,
    check_bounds,
    check_confidence,
    prior_counts,
    shown,
)
from bayes_eval.posteriors.comparisons import _check_pair, _elementwise, _prob_matrix
from bayes_eval.posteriors.draws import (
    _check_draws,
    _dirichlet_draws,
    _node_concentrations,
)
from bayes_eval.posteriors.exact import ExactPosterior, on_one_lattice
from bayes_eval.posteriors.export import (
    _check_chains,
    _draws_tree,
    _frame,
    _model_names,
    _table,
)
from bayes_eval.posteriors.identification import (
    _concentration_note,
    _concentration_unidentified,
)
from bayes_eval.posteriors.intervals import (
    CredibleInterval,
    Estimate,
    as_estimate,
    clip_interval,
    mixture_moments,
    normal_interval,
)
from bayes_eval.posteriors.joint import (
    JOINT_MODEL,
    JointPosterior,
    beta_interval,
    joint_posterior,
)
from bayes_eval.posteriors.latent_pass import PassPosterior, pass_law
from bayes_eval.posteriors.model_laws import (
    _EXACT_NODES,
    _exact_interval,
    _exact_mixture_interval,
    _fixed_laws,
    _mixture_laws,
    _near_end,
    _single_law,
)
from bayes_eval.posteriors.moment_sums import _sums_moments, _total_sums
from bayes_eval.posteriors.pass_family import _pass_kind
from bayes_eval.posteriors.prepare import _check_models, _on_a_board, _prepare
from bayes_eval.posteriors.priors import (
    DEFAULT_PRIOR,
    FittedPrior,
    Prior,
    PriorSpec,
)
from bayes_eval.posteriors.selection import _model_index, _select_fitted

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

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

Interval = Literal["auto", "normal", "exact"]
#: the interval kinds of :meth:`Posterior.interval`
INTERVAL_KINDS = ("auto", "normal", "exact")


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
    own, total, q, s1, s2, s11, per_model = _total_sums(data, w, answered)
    return TotalSums(own, total, q, s1, s2, s11, per_model, data.shape[:-2])


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
    mu, sd = _sums_moments(sums[:6], sums.per_model, sums.shape, nodes, w)
    return mu, sd


def _node_moments(
    data: NDArray,
    nodes: NDArray[np.float64],
    w: NDArray[np.float64],
    answered: NDArray[np.bool_] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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

    counts: NDArray[np.int64]
    answered: NDArray[np.bool_] | None
    index: NDArray[np.int64]  # type: ignore[assignment]  # a field may shadow tuple.index

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
        return cls(data=data, fitted=spec.fit(data, w=weights), w=weights, tally=tally, prior=spec)

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
        return _concentration_unidentified(self.data, self.fitted, self.prior)

    def concentration_note(self) -> str | None:
        """One line when :attr:`concentration_unidentified` holds for some model, else None.

        The line says what the interval then rests on and what would identify it.
        """
        return _concentration_note(self.concentration_unidentified, self.joint is not None)

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

    def _model_index(self, index: object) -> int | NDArray[np.intp]:
        """Positions of the models ``index`` selects (:mod:`~bayes_eval.posteriors.selection`)."""
        return _model_index(index, self.models, self.n_models)

    def __getitem__(self, index: int | slice | ArrayLike) -> Posterior:
        """The posterior of some models of a batch (an int keeps no model axis).

        Nothing is refitted: a benchmark-pooled prior stays the one learned from every model.
        """
        if not self.batched:
            raise ValueError("this posterior has no model axis to select from.")
        idx = self._model_index(index)
        one = np.ndim(idx) == 0
        sel = (lambda x: x[idx]) if not one else (lambda x: x[int(idx)])
        fitted = _select_fitted(self.fitted, idx, self.n_models)
        counts, trials = sel(self.tally.counts), sel(self.tally.n_trials)
        tal = Tally(counts, trials, self.tally.n_categories, not one)
        models = None
        if self.models is not None:
            models = tuple(self.models[i] for i in np.atleast_1d(idx))
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
        # the moments of every node are arrays ``(J, ...)``
        mu, sigma = cast("tuple[NDArray[np.float64], NDArray[np.float64]]", self.node_moments)
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
        bounds = check_bounds(bounds)
        key = ("interval", confidence, kind)
        if key not in self._cache:
            self._cache[key] = self._interval(confidence, kind)
        lo, hi = self._cache[key]
        lo, hi = clip_interval(lo, hi, bounds)
        return CredibleInterval(as_estimate(lo), as_estimate(hi))

    def _interval(self, confidence: float, kind: str) -> tuple[ArrayLike, ArrayLike]:
        """The interval of ``kind`` before any clipping (:meth:`interval`)."""
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
        mu_a, sd_a = np.asarray(mu, float), np.asarray(sigma, float)
        near = _near_end(mu_a, sd_a, self.support)
        lo, hi = (np.array(x, dtype=float) for x in normal_interval(mu_a, sd_a, confidence))
        if np.any(near):
            if not self._exact_is_cheap:
                b_lo, b_hi = beta_interval(mu_a, sd_a, confidence, *self.support)
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
        mu, sd = (np.atleast_1d(np.asarray(x, float)) for x in self._moments)
        near = _near_end(mu, sd, self.support)
        return np.where(near, "exact" if self._exact_is_cheap else "beta", "normal")

    def _exact(self, confidence: float) -> tuple[Estimate, Estimate]:
        """The exact interval of each model's own posterior (:mod:`.model_laws`), kept."""
        key = ("exact", confidence)
        if key not in self._cache:
            if self.n_nodes > 1:
                self._cache[key] = _exact_mixture_interval(
                    self.data,
                    self.w,
                    confidence,
                    self.fitted,
                    self.weights.reshape(self.n_nodes, -1),
                    self.prior.kappa_prior,
                    self.answered,
                    self._cache,
                )
            else:
                self._cache[key] = _exact_interval(self.nu, self.answered, self.w, confidence)
        return cast("tuple[Estimate, Estimate]", self._cache[key])

    @cached_property
    def _cache(self) -> dict[Any, Any]:
        return {}

    def _mixture_laws(
        self, model: int, limit: int = _EXACT_NODES
    ) -> tuple[list[ExactPosterior], NDArray[np.float64]]:
        """Exact laws of the heaviest nodes of one model and their weights.

        They are computed once: the exact interval and the exact P(better) share them.
        """
        key = ("laws", model, limit)
        if key not in self._cache:
            wts = self.weights.reshape(self.n_nodes, -1)
            nodes = self.fitted.nodes
            laws = _mixture_laws(self.data, nodes, wts, self.answered, self.w, model, limit)
            self._cache[key] = laws
        return cast("tuple[list[ExactPosterior], NDArray[np.float64]]", self._cache[key])

    def _single_law(self, model: int, node: int = 0) -> NDArray[np.float64]:
        """Posterior concentrations of one model (answered questions) under one node."""
        return _single_law(self.data, self.fitted.nodes, self.answered, model, node)

    def _fixed_laws(self) -> list[ExactPosterior]:
        """Exact laws of every model on one lattice step (fixed or plug-in prior)."""
        return _fixed_laws(self.nu, self.answered, self.w)

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
                joint = self.joint
                assert joint is not None  # prob_method: "board" needs a board
                idx = cast("NDArray[np.int64]", self._joint_index)  # a batch: an index array
                return joint.prob_better()[np.ix_(idx, idx)]
            return _prob_matrix(self.closed_form, method)
        if not isinstance(other, Posterior):
            raise ValueError(
                f"other is a {type(other).__name__}; expected a Posterior (bayes_eval.posterior)."
            )
        _check_pair(self, other)
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
        return _elementwise(self.closed_form, other.closed_form, method)

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
        n = _check_draws(n, self.n_models, int(np.prod(self.data.shape[-2:])), include_pi)
        rng = np.random.default_rng(0 if rng is None else rng)
        if self.joint is not None:
            if include_pi:
                raise ValueError(
                    "the joint posterior of a board draws pi-bar only; per-question draws "
                    "come from each model's own posterior: closed_form.draws(n, "
                    "include_pi=True)."
                )
            return self.joint.draws(n, rng)[:, self._joint_index]
        nu, per_draw = self._draw_nu(n, rng)
        bar, pi = _dirichlet_draws(nu, per_draw, n, rng, self.w, include_pi, self.answered)
        return (bar, cast("NDArray[np.float64]", pi)) if include_pi else bar

    def _draw_nu(self, n: int, rng: np.random.Generator) -> tuple[NDArray[np.float64], bool]:
        """Concentrations, shared by every draw with one node or one per draw for a mixture.

        With one node (``False``) they are ``(..., M, K)``, shared by every draw; for a mixture
        (``True``) they are ``(n, ..., M, K)``, one per draw.
        """
        if self.n_nodes == 1:
            return self.nu, False
        wts = self.weights.reshape(self.n_nodes, -1)  # (J, L)
        nodes, shared = self.fitted.nodes, self.shared_nodes
        return _node_concentrations(self.data, nodes, wts, shared, n, rng), True

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
        kind, tau = _pass_kind(
            metric,
            tau,
            fractional=self.fractional,
            n_categories=self.w.size,
            answered_only=self.answered is not None,
        )
        confidence = check_confidence(confidence)
        check_interval(interval)
        bounds = check_bounds(bounds)
        return pass_law(
            self.data,
            self.tally.n_trials,
            self.fitted,
            kind,
            k,
            tau,
            confidence=confidence,
            bounds=bounds,
            interval=interval,
        )

    def pass_at_k(self, k: int, **options: Any) -> PassPosterior:
        """Posterior of the latent Pass@k (:meth:`pass_metric`, App. H eq. 21)."""
        return self.pass_metric("pass_at_k", k, **options)

    def pass_hat_k(self, k: int, **options: Any) -> PassPosterior:
        """Posterior of the latent Pass^k (:meth:`pass_metric`, App. H eq. 22)."""
        return self.pass_metric("pass_hat_k", k, **options)

    def g_pass_at_k_tau(self, k: int, tau: float, **options: Any) -> PassPosterior:
        """Posterior of the latent G-Pass@k_tau (:meth:`pass_metric`, App. H eq. 23)."""
        return self.pass_metric("g_pass_at_k_tau", k, tau=tau, **options)

    def mg_pass_at_k(self, k: int, **options: Any) -> PassPosterior:
        """Posterior of the latent mG-Pass@k (:meth:`pass_metric`, App. H eq. 24)."""
        return self.pass_metric("mg_pass_at_k", k, **options)

    # ------------------------------------------------------------------ output

    def summary(self, confidence: float = 0.95, *, kind: Interval = "auto") -> pd.DataFrame:
        """One row per model as a ``pandas.DataFrame`` indexed by model (ArviZ's convention).

        Columns are ``mean``, ``sd``, the interval's ``lo`` and ``hi`` and the law it came from
        (``interval``); ``attrs`` name the prior, the estimand and the level. pandas is imported
        here only; :meth:`to_dict` is the same without it.
        """
        doc = self.to_dict(confidence, kind=kind)
        names = doc["models"] if self.batched else [self.models[0] if self.models else "model"]
        return _frame(doc, names)

    def to_dict(self, confidence: float = 0.95, *, kind: Interval = "auto") -> dict[str, Any]:
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
            out["models"] = _model_names(self.models, self.n_models)
        if self.grade_trials is not None:
            out["grade_trials"] = self.grade_trials
        return out

    def __repr__(self) -> str:
        """A short table: one line per model (mean, sd, 95% interval).

        The prior and the estimand are shown once.
        """
        names = (
            _model_names(self.models, self.n_models)
            if self.batched
            else [self.models[0] if self.models else "pi-bar"]
        )
        mu, sd = (np.atleast_1d(np.asarray(x, float)) for x in self._moments)
        lo, hi = (np.atleast_1d(np.asarray(x, float)) for x in self.interval(0.95))
        m = self.data.shape[-2]
        return _table(names, (mu, sd), (lo, hi), m, self.prior_label, self.estimand)

    def to_datatree(
        self,
        *,
        draws: int = 1000,
        chains: int = 4,
        seed: int = 0,
        include_pi: bool = False,
        include_prior: bool = True,
        questions: ArrayLike | None = None,
    ) -> xr.DataTree:
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
        draws, chains = _check_chains(draws, chains)
        rng, n = np.random.default_rng(seed), draws * chains
        post = self if self.batched else self._as_batch()
        if post.joint is not None:
            if include_pi:
                raise ValueError(
                    "the joint posterior of a board draws pi-bar only; per-question draws "
                    "come from each model's own posterior: closed_form.to_datatree("
                    "include_pi=True)."
                )
            pi_bar, pi = cast("NDArray[np.float64]", post.draws(n, rng=rng)), None
        else:
            nu, per_draw = post._draw_nu(n, rng)
            pi_bar, pi = _dirichlet_draws(nu, per_draw, n, rng, post.w, include_pi, post.answered)
        prior = None
        if include_prior and self.n_nodes == 1 and post.joint is None:
            base = post.nu - post.tally.counts  # a + discounted earlier runs, per question
            prior = _dirichlet_draws(base, False, n, rng, post.w, include_pi, None)
        m = self.data.shape[-2]
        return _draws_tree(
            (pi_bar, pi),
            prior,
            chains=chains,
            models=_model_names(post.models, post.n_models),
            questions=np.arange(m) if questions is None else np.asarray(questions),
            n_categories=self.w.size,
            attrs={
                "estimator": (
                    "Bayes@N joint draws" if post.joint is not None else "Bayes@N exact draws"
                ),
                "prior": self.prior_label,
                "estimand": self.estimand,
                "seed": int(seed),
            },
        )

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
    t, weights, data, answered, trials_per_grade = _prepare(
        R, w, spec, mask, fractional, answered_only
    )
    names = None if models is None else _check_models(models, t)
    link = None
    if _on_a_board(spec, fractional, t, weights):
        link = BoardLink(t.counts, answered, np.arange(t.counts.shape[0]))
        if link.result() is None:
            link = None
    return Posterior(
        data=data,
        fitted=spec.fit(data, w=weights),
        w=weights,
        tally=t,
        prior=spec,
        answered=answered,
        fractional=fractional,
        models=names,
        board=link,
        grade_trials=trials_per_grade,
    )
