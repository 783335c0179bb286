r"""Paired comparisons: models that answered the same questions, compared question by question.

Two models evaluated on the same questions are correlated through the questions: a hard
question is hard for both. Comparing their scores as if they were independent ignores that
and is too wide. This module compares every pair both ways, for the mean score of a model on
the population of questions the benchmark samples (its expected score on a new question).

**Binary results, one trial per question.** Each question gives the pair one of four joint
outcomes: both right, only A right, only B right, both wrong. With a Dirichlet prior
:math:`\mathrm{Dir}(a_{11}, a_{10}, a_{01}, a_{00})` on their probabilities and counts
:math:`n_{11}, n_{10}, n_{01}, n_{00}`, the posterior is
:math:`\mathrm{Dir}(a + n)`, and A is better than B when :math:`\pi_{10} > \pi_{01}` (the
difference of the two accuracies is :math:`\pi_{10} - \pi_{01}`). Given the discordant mass,
the share of "only A" is :math:`\mathrm{Beta}(a_{10} + n_{10}, a_{01} + n_{01})`, so

.. math:: P(A > B \mid R) = P\big(\mathrm{Beta}(a_{10} + n_{10},\ a_{01} + n_{01}) > \tfrac12\big)

exactly; with the uniform prior, :math:`P(\mathrm{Beta}(1 + n_{10}, 1 + n_{01}) > 1/2)`. The
independent comparison uses each model's own posterior,
:math:`\mathrm{Beta}(1 + k, 1 + M - k)` under the uniform prior, as if the models had been
evaluated on different questions (Bowyer, Aitchison and Ivanova, "Position: Don't use the
Central Limit Theorem in LLM evaluations with fewer than a few hundred datapoints", whose
``bayes_evals`` package estimates the paired probability by importance sampling under a
bivariate-Gaussian copula instead).

**N trials per question, rubric and graded scores.** Let :math:`s_{q}` be a model's mean
score on question q, scaled to ``[0, 1]`` (:func:`question_scores`), and
:math:`d_q = s^A_q - s^B_q \in [-1, 1]`. The joint outcome of a question is now the pair
:math:`(s^A_q, s^B_q)`; put a Dirichlet over the outcomes that occur plus the four corner
outcomes of the binary table, with prior mass :math:`a` on each corner and none elsewhere
(the Bayesian bootstrap of Rubin, "The Bayesian bootstrap", 1981, with the binary table's
prior). The difference of the two mean scores is
:math:`D = \sum_v v\,\pi_v` over the distinct values :math:`v` of d, and with
:math:`\pi = G / \sum G`, :math:`G_v \sim \mathrm{Gamma}(m_v)` independent
(:math:`m_v` = questions with :math:`d_q = v` plus the corner masses :math:`a_{10}` at
:math:`+1` and :math:`a_{01}` at :math:`-1`),

.. math:: P(A > B \mid R) = P\Big(\sum_v v\,G_v > 0\Big),

which the Gil-Pelaez/Imhof inversion of :func:`bayes_eval.posteriors.exact.dirichlet_functional_cdf`
computes exactly (questions with :math:`d_q = 0` drop out, as :math:`n_{11}` and
:math:`n_{00}` do above). With one trial and binary results the only values are
:math:`\pm1` and this is the Beta formula above. The trials' noise is part of each
:math:`d_q`, so the spread of D includes it. The independent comparison is the same
construction on each model alone (corners 0 and 1). Beyond ``exact_levels`` distinct values
(graded scores on hundreds of questions) a normal approximation with the exact mean and
variance of D is used, and said.

**Learned priors.** The paired comparison is decided by how the discordant questions split
between "only A" and "only B", so its learned prior is a prior on that split, learned on
the splits: a symmetric :math:`\mathrm{Beta}(\kappa/2, \kappa/2)` (symmetric so that
``P(A > B) = 1 - P(B > A)``), :math:`\kappa` learned from the discordant counts of every pair
of the board by the Beta-binomial marginal likelihood under the hyperprior
:math:`\log\kappa \sim N(\log 5, 1.5^2)` (:data:`SPLIT_KAPPA_PRIOR`), and
integrated over (``_split_prior``); the corner masses are then :math:`\kappa/2` each. On
a board of close models the splits sit near one half and the learned prior says so; a
board with wide gaps learns a small :math:`\kappa`, close to the uniform prior's 2.
The independent comparison's corners come from the models' (wrong, right) tables, pooled
over the benchmark, as :mod:`bayes_eval.posteriors.priors` learns them.

Differences that are not one binary result per question (several trials, rubrics, graded
scores) have no split to learn a prior on. There a learned prior puts
:math:`\delta \sim N(0, \tau^2)` on every pair's difference of mean scores, :math:`\tau`
learned over the board's pairs and integrated out (:mod:`bayes_eval.ranking.difference_prior`),
on the normal likelihood of the pair's mean difference, :math:`\bar d \sim N(\delta, V)` with
:math:`V = s^2/n` (:math:`s^2` the sample variance of the n differences, divisor
:math:`n - 1`: the usual standard error; no corners, the prior takes their place):
:math:`P(A > B \mid \tau, R) = \Phi\big(\bar d\,\tau / (\sqrt V \sqrt{\tau^2 + V})\big)`.
The Bayesian bootstrap's variance, :math:`(n - 1)/(n + 1)` of it, was overconfident for close
models (``bayes-eval validate pairs``), and the uniform corners without the prior overstated
the differences between close models. The independent comparison keeps its corners;
``bayes-eval validate pairs`` measures it beside the paired one. It is not calibrated: on
shared questions it ignores the pairing (its variance overstates the difference's, its prior
on each model's score overstates close models' differences; the errors partly cancel), and
where each model answered its own questions it is overconfident for close models. It is
computed on request (``independent=True``) and the commands do not print it.

This module holds the model's public face: the scores, priors, clusters and the
:class:`PairedComparison` result. The matrices for questions drawn independently are
:mod:`bayes_eval.ranking.paired_matrices`, their exact computations (Gil-Pelaez/Imhof
inversions of Dirichlet linear forms) :mod:`bayes_eval.ranking.paired_exact`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from bayes_eval import xr as bxr
from bayes_eval.inputs import shown, tally
from bayes_eval.posteriors.intervals import mixture_support
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec, resolve_prior
from bayes_eval.ranking.claims import board_claims, claims_document
from bayes_eval.ranking.difference_prior import (
    DIFFERENCE_TAU_POWER,
    normal_logm,
    shrink_z,
    shrunk_t,
    tau_posterior,
)
from bayes_eval.ranking.paired_exact import _levels, _sign_probs
from bayes_eval.ranking.paired_matrices import _heaviest, _independent, _paired, _Prior

__all__ = [
    "SPLIT_KAPPA_PRIOR",
    "PairedComparison",
    "cluster_codes",
    "compare_pairs",
    "leaderboard_pairs",
    "paired_probability",
    "question_scores",
    "table_prior",
]


#: Distinct values of d (or of a model's scores) up to which probabilities are exact.
EXACT_LEVELS = 256
_NODES = 16  # heaviest hyperparameter nodes of a learned prior used by the exact paths


class PairedComparison(NamedTuple):
    """``P(row better than column)`` for every pair of models, for both estimands.

    Attributes
    ----------
    models : tuple of str
        The model names, in the order of the matrices' rows and columns.
    independent : ndarray, shape ``(L, L)``, or None
        Estimand *new questions* (:func:`compare_pairs`): each model's own posterior of its
        mean score on the population of questions, unpaired (NaN on the diagonal); None
        where it was not asked for (``independent=False``). It ignores that the models answered
        the same questions, so it is not calibrated there, and with close models it is
        overconfident even where each model answered its own questions; the commands do not
        print it (the documentation's Validation page).
    paired : ndarray, shape ``(L, L)``
        Estimand *new questions*: the joint posterior of the pair's outcomes question by
        question. NaN on the diagonal and for pairs without a shared question.
    shared : ndarray of int, shape ``(L, L)``
        Questions both models answered (the paired comparison's data).
    prior : str
        The prior of the new-questions matrices (a label; of the joint table for ``paired``).
    method : dict of str to str
        ``"exact"``, ``"normal"`` or ``"exact and normal"`` for each matrix.
    these_questions : ndarray, shape ``(L, L)``, or None
        Estimand *these questions*: :meth:`Posterior.prob_better
        <bayes_eval.posteriors.posterior.Posterior.prob_better>` of the models' posteriors
        (what ``bayes-eval rank`` and ``plan`` report), NaN on the diagonal
        (:func:`leaderboard_pairs`).
    these_prior : str or None
        The per-question prior of ``these_questions`` (a label).
    clusters : int or None
        The number of question clusters of the new-questions matrices (None: no clusters).
    these_from : str or None
        What ``these_questions`` was computed from (:meth:`Posterior.prob_label
        <bayes_eval.posteriors.posterior.Posterior.prob_label>`): the board model, or the
        models' own posteriors under ``these_prior``.
    independent_prior : str or None
        The prior of ``independent`` where it differs from ``prior`` (each model's own: the
        learned prior of its table, or the flat corners where ``paired`` has the learned
        normal prior on a pair's difference); None: ``prior``, or no ``independent``.
    claims : dict or None
        The claims of the board on these questions, JSON-ready
        (:func:`~bayes_eval.ranking.claims.claims_document`: the orderings at a posterior
        expected FDR, P(best), P(top k), expected ranks, simultaneous rank intervals), the
        same as ``bayes-eval rank`` states.
    difference_prior : bool
        Whether ``paired`` has the learned normal prior N(0, tau^2) on each pair's
        difference (graded scores, several trials or clusters under a learned prior) rather
        than a prior on the joint table.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> R = xr.DataArray(rng.binomial(1, [[[0.3]], [[0.6]], [[0.8]]], size=(3, 20, 2)),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> pc = leaderboard_pairs(R, prior="uniform", pair_prior="uniform")
    >>> pc.models, pc.shared[0].tolist()
    (('b', 'c', 'a'), [20, 20, 20])
    >>> pc.estimands
    {'these_questions': 'these questions', 'paired': 'new questions'}
    >>> {k: round(v, 4) if isinstance(v, float) else v for k, v in pc.adjacent()[0].items()}
    {'model': 'b', 'next': 'c', 'shared': 20, 'these_questions': 0.5, 'paired': 0.4894}
    """

    models: tuple[str, ...]
    independent: NDArray[np.float64] | None
    paired: NDArray[np.float64]
    shared: NDArray[np.int64]
    prior: str
    method: dict[str, str]
    these_questions: NDArray[np.float64] | None = None
    these_prior: str | None = None
    clusters: int | None = None
    these_from: str | None = None
    claims: dict | None = None
    independent_prior: str | None = None
    difference_prior: bool = False

    @property
    def cluster_treatment(self) -> str:
        """How the new-questions matrices treat the questions.

        As independent draws, or drawn in clusters (the cluster-level t model of
        :func:`compare_pairs`).
        """
        if self.clusters is None:
            return "questions drawn independently (no clusters)"
        return f"questions drawn in {self.clusters} clusters (t model over clusters)"

    @property
    def estimands(self) -> dict[str, str]:
        """The estimand of each matrix."""
        from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS

        out = {"paired": NEW_QUESTIONS}
        if self.independent is not None:
            out["independent"] = NEW_QUESTIONS
        if self.these_questions is not None:
            out = {"these_questions": THESE_QUESTIONS, **out}
        return out

    def to_dict(self) -> dict[str, object]:
        """The comparison as a JSON-ready dict.

        Keys: ``models``, the matrices (rows of P(row better than column), None on the diagonal and
        where undefined): ``these_questions`` (with a posterior), ``paired`` and, where computed,
        ``independent`` (new questions); ``estimand`` (of each matrix), ``prior`` (of each),
        ``shared``, ``method``.
        """

        def rows(m: NDArray) -> list[list[float | None]]:
            return [[float(v) if np.isfinite(v) else None for v in row] for row in m]

        out: dict[str, object] = {"models": list(self.models)}
        if self.these_questions is not None:
            out["these_questions"] = rows(self.these_questions)
            out["these_questions_from"] = self.these_from
        unpaired = self.independent
        out.update(
            {
                "paired": rows(self.paired),
                **({"independent": rows(unpaired)} if unpaired is not None else {}),
                "estimand": self.estimands,
                "prior": (
                    {"these_questions": self.these_prior} if self.these_prior is not None else {}
                )
                | {"paired": self.prior}
                | (
                    {"independent": self.independent_prior or self.prior}
                    if unpaired is not None
                    else {}
                ),
                "shared": self.shared.tolist(),
                "method": dict(self.method),
                "clusters": {"count": self.clusters, "treatment": self.cluster_treatment},
            }
        )
        if self.claims is not None:
            out.update(self.claims)
        return out

    def adjacent(self) -> list[dict[str, object]]:
        """Each model against the next one in the order of :attr:`models`.

        Keys: ``model``, ``next``, ``shared``, ``these_questions`` (with a posterior), ``paired``
        and, where computed, ``independent`` (None where undefined).
        """
        out = []

        def val(m: NDArray, i: int) -> float | None:
            v = m[i, i + 1]
            return float(v) if np.isfinite(v) else None

        for i in range(len(self.models) - 1):
            row: dict[str, object] = {
                "model": self.models[i],
                "next": self.models[i + 1],
                "shared": int(self.shared[i, i + 1]),
            }
            if self.these_questions is not None:
                row["these_questions"] = val(self.these_questions, i)
            row["paired"] = val(self.paired, i)
            if self.independent is not None:
                row["independent"] = val(self.independent, i)
            out.append(row)
        return out


def question_scores(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    mask: ArrayLike | None = None,
    fractional: bool = False,
) -> NDArray[np.float64]:
    r"""Each model's mean score per question, scaled to ``[0, 1]``; NaN where unanswered.

    Categories: :math:`s_q = \frac1{N_q}\sum_i (w_{R_{qi}} - w_{\min}) / (w_{\max} -
    w_{\min})`; graded scores (``fractional``): the mean of the scores.

    Parameters
    ----------
    R : array_like, shape ``(L, M, N)`` or ``(M, N)``
        Categories ``0..C`` (or graded scores in [0, 1] with ``fractional``); NaN or
        ``mask`` marks a missing trial.
    w : array_like, optional
        Rubric weights (binary by default).
    mask : array_like of bool, optional
        ``True`` where a trial of ``R`` is missing (besides NaN); default None.
    fractional : bool, optional
        ``R`` holds graded scores in [0, 1]; default False.

    Returns
    -------
    numpy.ndarray of shape ``(L, M)`` or ``(M,)``
        The mean scaled score of each model on each question; NaN for a question without
        any trial.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[[1, 1], [0, 1], [1, 0]], [[0, 0], [1, 0], [1, 1]]])
    >>> question_scores(R).tolist()
    [[1.0, 0.5, 0.5], [0.0, 0.5, 1.0]]
    >>> question_scores(np.array([[2, 1], [0, np.nan]]), [0, 0.5, 1]).tolist()
    [0.75, 0.0]
    >>> question_scores(np.array([[0.25, 0.75], [1.0, np.nan]]), fractional=True).tolist()
    [0.5, 1.0]
    """
    values = np.asarray(R, dtype=float)
    seen = ~np.isnan(values)
    if mask is not None:
        seen &= ~np.asarray(mask, dtype=bool)
    if fractional:
        from bayes_eval.inputs import graded_values

        values = graded_values(np.where(seen, values, np.nan), name="R")
        with np.errstate(invalid="ignore"):
            return np.where(seen, values, 0.0).sum(-1) / np.where(
                seen.any(-1), seen.sum(-1), np.nan
            )
    t, weights = tally(np.where(seen, values, 0), w, mask=~seen, allow_empty_questions=True)
    span = float(weights.max() - weights.min())
    if span <= 0:
        raise ValueError(f"w is {shown(weights)}; expected weights that are not all equal.")
    scaled = (weights - weights.min()) / span
    with np.errstate(invalid="ignore", divide="ignore"):
        return (t.counts @ scaled) / np.where(t.n_trials > 0, t.n_trials, np.nan)


def paired_probability(
    s_a: ArrayLike,
    s_b: ArrayLike,
    *,
    prior: tuple[float, float] = (1.0, 1.0),
    exact_levels: int = EXACT_LEVELS,
) -> float:
    r"""``P(A > B)`` from two models' scores on the same questions (module docstring).

    Parameters
    ----------
    s_a, s_b : array_like, shape ``(M,)``
        Mean scores in ``[0, 1]`` of A and B on the questions both answered.
    prior : (float, float), keyword-only
        Prior masses :math:`a_{10}` (only A right) and :math:`a_{01}` (only B right); the
        uniform Dirichlet(1, 1, 1, 1) gives (1, 1).
    exact_levels : int, keyword-only
        Exact computation up to this many distinct values of the differences (with the two
        corners); a normal approximation with the exact mean and variance beyond; default
        256.

    Returns
    -------
    float
        The posterior probability that A's mean score on the population of questions is
        above B's.

    Examples
    --------
    Binary, one trial: 7 questions only A solved, 2 only B, under the uniform prior:
    :math:`P(\mathrm{Beta}(8, 3) > 1/2)`.

    >>> a = [1] * 7 + [0] * 2 + [1] * 5
    >>> b = [0] * 7 + [1] * 2 + [1] * 5
    >>> round(paired_probability(a, b), 6)
    0.945312

    Mean scores of several trials (the Bayesian bootstrap with the uniform corners; one pair
    alone has no board to learn a prior on):

    >>> round(paired_probability([1, 0.5, 0.75, 1], [0.5, 0.5, 0.25, 0.75]), 4)
    0.8222
    """
    d = np.asarray(s_a, dtype=float) - np.asarray(s_b, dtype=float)
    if d.ndim != 1 or np.isnan(d).any() or (np.abs(d) > 1).any():
        raise ValueError("s_a and s_b must be equal-length vectors of scores in [0, 1].")
    levels, counts = _levels(np.concatenate([d, [-1.0, 1.0]]))
    counts = counts - np.isin(levels, (-1.0, 1.0))  # the corners are prior mass
    corners = np.array([[float(prior[0]), float(prior[1])]])
    return float(_sign_probs(levels, counts, corners, exact_levels)[0][0])


def cluster_codes(
    cluster: ArrayLike | Mapping[object, object],
    questions: Sequence[object] | None = None,
    *,
    n_questions: int | None = None,
) -> tuple[NDArray[np.int64], tuple[str, ...]]:
    """The cluster of every question as integer codes ``0..G-1`` and the ``G`` labels.

    Parameters
    ----------
    cluster : array_like of shape ``(M,)``, or mapping
        A label per question (in the order of the questions), or a mapping question ->
        label (then ``questions`` names the M questions). Labels are compared as text.
    questions : sequence, optional
        The question labels, in order (needed with a mapping; used in messages).
    n_questions : int, optional
        M, checked against the length of an array ``cluster``.

    Returns
    -------
    codes : numpy.ndarray of int, shape ``(M,)``
        The cluster of each question, an index into ``labels``.
    labels : tuple of str
        The G cluster labels, sorted as text.

    Raises
    ------
    ValueError
        A length that is not M, a question without a cluster (missing from the mapping,
        None or NaN), or a single cluster: with one cluster the questions are one draw of
        the source, and nothing about new questions can be learned from them.

    Examples
    --------
    >>> codes, labels = cluster_codes(["x", "y", "x", "z"])
    >>> codes.tolist(), labels
    ([0, 1, 0, 2], ('x', 'y', 'z'))
    >>> codes, labels = cluster_codes({"q1": "b", "q2": "a", "q3": "b"}, ["q1", "q2", "q3"])
    >>> codes.tolist(), labels
    ([1, 0, 1], ('a', 'b'))
    """
    names = None if questions is None else [str(q) for q in questions]
    if isinstance(cluster, Mapping):
        if names is None:
            raise ValueError("cluster is a mapping question -> label; pass the questions too.")
        table = {str(k): v for k, v in cluster.items()}
        missing = next((q for q in names if q not in table), None)
        if missing is not None:
            raise ValueError(
                f"question {shown(missing)} has no cluster; expected every question in the "
                "mapping question -> cluster."
            )
        raw = [table[q] for q in names]
    else:
        arr = np.asarray(cluster, dtype=object)
        if arr.ndim != 1:
            raise ValueError(
                f"cluster has shape {arr.shape}; expected one label per question (M,)."
            )
        raw = arr.tolist()
    m = n_questions if n_questions is not None else (len(names) if names is not None else None)
    if m is not None and len(raw) != m:
        raise ValueError(f"cluster has {len(raw)} labels; expected one per question ({m}).")
    for i, v in enumerate(raw):
        if v is None or (isinstance(v, float) and np.isnan(v)) or str(v).strip() == "":
            q = names[i] if names is not None else i
            raise ValueError(f"question {shown(q)} has no cluster label; expected one.")
    labels, codes = np.unique(np.array([str(v) for v in raw], dtype=object), return_inverse=True)
    if labels.size < 2:
        raise ValueError(
            f"every question is in one cluster ({shown(str(labels[0]))}); with one cluster "
            "the questions are a single draw of the source and nothing about new questions "
            "can be learned: expected at least two clusters."
        )
    return codes.astype(np.int64), tuple(str(x) for x in labels)


def cluster_sums(
    scores: NDArray, answered: NDArray, codes: NDArray
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per model and cluster: the sum of the per-question scores and the number answered.

    The sums ``T`` and the numbers of questions answered ``n`` are both of shape ``(L, G)`` (one
    matrix product each).
    """
    onehot = np.zeros((codes.size, int(codes.max()) + 1))
    onehot[np.arange(codes.size), codes] = 1.0
    return np.where(answered, scores, 0.0) @ onehot, answered.astype(float) @ onehot


def cluster_values(totals: NDArray, sizes: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    r"""The linearised cluster values of the question-weighted mean, per row.

    For a row (a model, or a pair's differences) with cluster sums :math:`T_g` over
    :math:`n_g` questions (clusters with :math:`n_g = 0` left out), :math:`M = \sum_g n_g`,
    :math:`\bar x = \sum_g T_g / M` and :math:`G` the clusters with questions,

    .. math:: v_g = \bar x + \frac{G}{M}\,(T_g - n_g \bar x),

    whose mean is :math:`\bar x` and whose sample variance over G is G times Miller's
    cluster-robust variance of :math:`\bar x` (Miller, "Adding Error Bars to Evals", eq. for
    clustered standard errors); with equal cluster sizes :math:`v_g` is the cluster's mean.

    Returns
    -------
    mean, scale, df : ndarray, shape ``(rows,)``
        :math:`\bar x`, :math:`s_v / \sqrt G` and :math:`G - 1` (NaN scale with fewer
        than two clusters).
    """
    T, n = np.atleast_2d(totals).astype(float), np.atleast_2d(sizes).astype(float)
    seen = n > 0
    G = seen.sum(axis=1)
    M = n.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = T.sum(axis=1) / M
        dev = np.where(seen, (G / M)[:, None] * (T - n * mean[:, None]), 0.0)
        var = (dev**2).sum(axis=1) / (G - 1)
        scale = np.where(G >= 2, np.sqrt(var / G), np.nan)
    return mean, scale, (G - 1).astype(float)


def _t_prob(mean: NDArray, scale: NDArray, df: NDArray) -> NDArray:
    """``P(delta > 0)`` for ``delta ~ t_df(mean, scale)``.

    A point mass when the scale is 0 (every cluster says the same), NaN without a scale.
    """
    from scipy.special import stdtr

    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(scale > 0, mean / np.where(scale > 0, scale, 1.0), 0.0)
        p = np.where(scale > 0, stdtr(np.maximum(df, 1.0), z), 0.5 + 0.5 * np.sign(mean))
    return np.where(np.isfinite(scale), p, np.nan)


_LEARNED = ("empirical", "empirical-plugin")  # the priors learned over the board


#: (median, log-sd) of the log-normal hyperprior on the learned split prior's concentration.
SPLIT_KAPPA_PRIOR = (5.0, 1.5)
#: Nodes of the learned split prior's concentration (log-spaced over +-6 sd of its hyperprior).
_SPLIT_NODES = 97


def _split_prior(prior: str, discordant: NDArray) -> _Prior:
    r"""The learned prior of the split of discordant questions.

    A symmetric :math:`\mathrm{Beta}(\kappa/2, \kappa/2)` on
    :math:`s = \pi_{10}/(\pi_{10} + \pi_{01})`, learned from the discordant counts
    ``(only A, only B)`` of every pair of the board (soft counts
    :math:`\sum_q s^A_q(1 - s^B_q)` for graded scores), with the weakly informative
    hyperprior :data:`SPLIT_KAPPA_PRIOR`, :math:`\log\kappa \sim N(\log 5, 1.5^2)` (the split of a
    pair's discordant questions is not a question's success rate: the meta-analytic hyperprior of
    the per-question prior does not apply). ``"empirical"`` integrates over :math:`\kappa` (a
    97-node grid in :math:`\log\kappa`, weights :math:`\propto` hyperprior x Beta-binomial marginal
    likelihood); ``"empirical-plugin"`` takes the mode. The corner masses of a node are
    :math:`(\kappa/2, \kappa/2)`.
    """
    from scipy.special import betaln, logsumexp

    med, sd = SPLIT_KAPPA_PRIOR
    log_k = np.linspace(np.log(med) - 6 * sd, np.log(med) + 6 * sd, _SPLIT_NODES)
    half = np.exp(log_k) / 2
    plus, minus = discordant[:, 0], discordant[:, 1]
    loglik = (
        betaln(half[:, None] + plus, half[:, None] + minus) - betaln(half, half)[:, None]
    ).sum(1)
    log_w = -0.5 * ((log_k - np.log(med)) / sd) ** 2 + loglik
    wts = np.exp(log_w - logsumexp(log_w))
    if prior == "empirical-plugin":
        top = int(np.argmax(wts))
        masses, wts = np.array([[half[top], half[top]]]), np.ones(1)
        return _Prior(masses, wts, "empirical-plugin (split of discordant questions, board)")
    order = mixture_support(wts)
    wts = wts[order] / wts[order].sum()
    masses = np.stack([half[order], half[order]], -1)
    return _Prior(masses, wts, "empirical (split of discordant questions, board, integrated)")


def _corner_prior(prior: PriorSpec, tables: NDArray, split: bool) -> _Prior:
    """The prior masses of the two corners that decide the comparison.

    The corners are (only A, only B) for the pairs' discordant counts ``(only A, only B)``, or
    (right, wrong) for the models' (wrong, right) tables; fixed or learned over the benchmark (one
    node per hyperparameter node, heaviest first). A learned paired prior is a prior on the split of
    the discordant questions, learned on those splits (:func:`_split_prior`).
    """
    if split and isinstance(prior, str) and prior in ("empirical", "empirical-plugin"):
        return _split_prior(prior, tables)
    if isinstance(prior, str) and prior in ("empirical", "empirical-plugin"):
        fitted = resolve_prior(prior, tables[None], pool="benchmark")
        nodes, wts = fitted.nodes[:, 0], fitted.weights[:, 0]
        order = mixture_support(wts, 1.0)
        nodes, wts = nodes[order], wts[order]
        return _Prior(
            nodes[:, ::-1], wts, fitted.label.replace("per model, ", "")
        )  # (right, wrong)
    fitted = resolve_prior(prior, np.zeros((1, 4 if split else 2)))
    a = fitted.alpha[0]
    masses = np.array([[a[1], a[2]]]) if split else np.array([[a[1], a[0]]])
    return _Prior(masses, np.ones(1), fitted.label)


def _table_priors(
    scores: NDArray, answered: NDArray, prior: PriorSpec, values: NDArray
) -> tuple[_Prior, _Prior]:
    """The corner priors of the new-questions matrices: of each pair's table, of each model's.

    A learned prior is learned on the board (every pair's discordant counts, every model's
    table); on graded scores or means of several trials (``values``: the results) the uniform
    corners replace it (:func:`compare_pairs`).
    """
    x = np.where(answered, scores, 0.0)
    y = np.where(answered, 1.0 - scores, 0.0)
    upper = np.triu_indices(len(scores), 1)
    discordant = np.stack([(x @ y.T)[upper], (y @ x.T)[upper]], axis=-1)  # (only A, only B)
    binary = bool(np.all((x == 0) | (x == 1)))
    # graded scores or differences: the corners are the Bayesian bootstrap's prior mass at the
    # ends, not a prior on a binary split or a (wrong, right) table, so priors learned on soft
    # counts are no priors for them (measured by `validate pairs` at N = 4 trials: ECE 0.13
    # for either matrix, against 0.008 and 0.04 with the uniform corners)
    learned = isinstance(prior, str) and prior in _LEARNED
    graded_learned = learned and not binary
    kind = "uniform" if graded_learned else prior
    pair_prior = _corner_prior(kind, discordant, split=True)
    model_prior = _corner_prior(kind, np.stack([y.sum(1), x.sum(1)], -1), split=False)
    if graded_learned:
        why = (
            "per-question means of several trials"
            if np.all((values == 0) | (values == 1) | np.isnan(values))
            else "graded scores"
        )
        pair_prior = pair_prior._replace(
            label=f"uniform (the learned split prior needs one binary result per question; "
            f"these are {why})"
        )
    return pair_prior, model_prior


def _paired_clusters(
    scores: NDArray, answered: NDArray, codes: NDArray, learned: str | None
) -> tuple[NDArray, float | None]:
    """P(row > column) under the cluster-level t model (:func:`compare_pairs`).

    Each pair is compared on the questions both answered. ``learned`` (``"empirical"`` or
    ``"empirical-plugin"``) puts the learned normal prior on each pair's difference
    (:mod:`bayes_eval.ranking.difference_prior`; returned with tau's posterior median or
    mode), None the flat one.
    """
    n = scores.shape[0]
    out = np.full((n, n), np.nan)
    i, j = np.triu_indices(n, 1)
    both = answered[i] & answered[j]  # (pairs, M)
    diff = np.where(both, scores[i] - scores[j], 0.0)
    tot, size = cluster_sums(diff, both, codes)
    mean, scale, df = cluster_values(tot, size)
    p, tau = _t_prob(mean, scale, df), None
    if learned is not None:
        shrunk, ok, tau = shrunk_t(mean, scale, df, n, learned == "empirical-plugin")
        p = np.where(ok, shrunk, p)  # point masses (scale 0) and NaN as without the prior
    out[i, j], out[j, i] = p, 1.0 - p
    return out, tau


def compare_pairs(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    mask: ArrayLike | None = None,
    fractional: bool = False,
    prior: PriorSpec = "uniform",
    models: list[str] | None = None,
    exact_levels: int = EXACT_LEVELS,
    cluster: ArrayLike | None = None,
    independent: bool = True,
) -> PairedComparison:
    r"""``P(row better than column)`` for every pair of models, independent and paired.

    See the module docstring for the model. Both matrices compare the models' mean scores on
    the population of questions; the paired one uses the questions both models answered,
    the independent one each model's own questions.

    **Clustered questions** (``cluster``). When questions come in groups (passages,
    subjects, templates) the groups, not the questions, are the independent draws from the
    source: a group's questions share its noise, and treating them as independent makes
    every new-questions statement too sure (Miller, "Adding Error Bars to Evals: A
    Statistical Approach to Language Model Evaluations", 2024: clustered standard errors).
    Each pair's per-question differences are summed by cluster and linearised
    (``cluster_values``: :math:`v_g`, whose mean is the mean difference
    :math:`\bar d` and whose spread is Miller's cluster-robust one); with the normal
    model :math:`v_g \sim N(\delta, \sigma^2)` and the Jeffreys prior
    :math:`p(\delta, \sigma) \propto 1/\sigma` the posterior of the population difference
    is Student's :math:`t_{G-1}(\bar d, s_v/\sqrt G)` (Box and Tiao, "Bayesian Inference
    in Statistical Analysis", 2.4), so with a flat prior on :math:`\delta` (``prior``
    ``"uniform"``, ``"jeffreys"`` or a number)

    .. math:: P(A > B \mid R) = F_{t_{G-1}}\big(\sqrt G\,\bar d / s_v\big).

    A learned ``prior`` (``"empirical"``, the default of the commands) puts
    :math:`\delta \sim N(0, \tau^2)` on every pair's difference, with :math:`\tau` (the
    spread of the differences between the board's models) learned over the board's pairs,
    as the learned split prior is without clusters: writing
    :math:`\mathrm{se}^2 = \sigma^2/G` and :math:`\nu = G - 1`, :math:`s_v^2\nu/\sigma^2
    \sim \chi^2_\nu`, each pair's

    .. math:: P(\delta > 0 \mid \tau, R) = \frac{E\big[N(\bar d; 0, \tau^2 +
              \mathrm{se}^2)\,\Phi\big(\bar d\,\tau / (\mathrm{se}\sqrt{\tau^2 +
              \mathrm{se}^2})\big)\big]}{E\big[N(\bar d; 0, \tau^2 + \mathrm{se}^2)\big]}

    (expectations over the :math:`\chi^2_\nu` of the Jeffreys posterior of :math:`\sigma`,
    by Simpson's rule in the log of its Gamma variable); the denominators
    :math:`m_{AB}(\tau)`, each pair's marginal likelihood, give
    :math:`p(\tau \mid R) \propto \tau^{1/4} \prod_{A<B} m_{AB}(\tau)^{2/L}` on ``(0, 1]``
    (the power :math:`2/L` makes the product of the :math:`L(L-1)/2` correlated pairs
    the exact likelihood of the :math:`L - 1` contrasts when
    every pair's se is the same), and :math:`\tau` is integrated out (Simpson's rule on 241
    log-spaced nodes; ``"empirical-plugin"``: plugged in at its posterior mode). The flat
    prior overstates the differences between close models; the hyperprior's power 1/4
    (:data:`~bayes_eval.ranking.difference_prior.DIFFERENCE_TAU_POWER`) lies between uniform
    on :math:`\tau` (which shrinks too much where the models are spread) and uniform on
    :math:`\tau^2` (too little for close models); its calibration is measured by
    ``bayes-eval validate clusters`` and ``bayes-eval validate pairs`` (the documentation's
    Validation page).

    Why not the Bayesian bootstrap over clusters, the clustered form of the Dirichlet
    above: its posterior spread is :math:`(G-1)/(G+1)` of the sample variance over G with
    normal tails, and clusters are few (5 to 30); on the boards of ``bayes-eval validate
    clusters`` (M = 60; development runs) its 95% intervals covered 0.80-0.86 with 5
    clusters, and with the uniform corners as pseudo-clusters 0.997-1.00 with sd/RMSE 1.3-2.0
    and a P(better) ECE of 0.13, while the t model covers 0.94-0.96 in every cell. The
    independent matrix compares the models' own t posteriors under the flat prior (Welch's
    degrees of freedom).
    The these-questions estimand does not change with clusters.

    Parameters
    ----------
    R : array_like, shape ``(L, M, N)``
        Categories ``0..C`` (graded scores in [0, 1] with ``fractional``); NaN or ``mask``
        marks a missing trial, a question without any trial is one the model did not answer.
    w : array_like, optional
        Rubric weights (binary by default); scores are scaled to ``[0, 1]``.
    mask : array_like of bool, optional
        ``True`` where a trial of ``R`` is missing (besides NaN); default None.
    fractional : bool, keyword-only
        ``R`` holds graded scores.
    prior : str, float or array_like, keyword-only
        ``"uniform"`` (Dirichlet(1, 1, 1, 1) on the joint table: the Beta formula of the
        module docstring), ``"jeffreys"`` (1/2 each), a number, or ``"empirical"`` /
        ``"empirical-plugin"`` (learned over the benchmark, :mod:`bayes_eval.posteriors.priors`).
        With ``cluster``, a learned prior is the learned normal prior on each pair's
        difference (above) and any other the flat one.
    models : list of str, optional
        Names (default ``model_0``, ...).
    exact_levels : int, keyword-only
        Exact computation up to this many distinct values of d (per pair) or of the scores
        (per model); a normal approximation beyond (said in ``method``).
    cluster : array_like, shape ``(M,)``, keyword-only
        The cluster label of every question (:func:`cluster_codes`); None: the questions
        are independent draws. A pair that shares questions in fewer than two clusters
        gets NaN.
    independent : bool, keyword-only
        False skips the unpaired matrix (``independent`` None; its exact path is the costly
        one).

    Returns
    -------
    PairedComparison
        The ``independent`` and ``paired`` matrices of P(row better than column) on new
        questions, the shared question counts, the prior and the method of each matrix.

    Raises
    ------
    ValueError
        For fewer than two models, a model without any answered question, bad ``R``, or a
        bad ``cluster`` (:func:`cluster_codes`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.8]], [[0.6]], [[0.3]]], size=(3, 20, 4))
    >>> pc = compare_pairs(R, models=["a", "b", "c"])
    >>> pc.paired.round(4).tolist()
    [[nan, 0.9883, 0.9993], [0.0117, nan, 0.954], [0.0007, 0.046, nan]]
    >>> pc.independent.round(4).tolist()
    [[nan, 0.9965, 1.0], [0.0035, nan, 0.9873], [0.0, 0.0127, nan]]
    >>> pc = compare_pairs(R, models=["a", "b", "c"], cluster=np.repeat(np.arange(5), 4))
    >>> pc.method, pc.clusters
    ({'paired': 't', 'independent': 't (Welch)'}, 5)
    """
    values = np.asarray(R, dtype=float)
    if values.ndim != 3 or values.shape[0] < 2:
        raise ValueError(
            f"R has shape {values.shape}; expected (L, M, N) with at least two models."
        )
    scores = question_scores(values, w, mask=mask, fractional=fractional)
    answered = ~np.isnan(scores)
    names = tuple(models) if models is not None else tuple(f"model_{i}" for i in range(len(values)))
    if len(names) != len(values):
        raise ValueError(f"models has {len(names)} names; expected {len(values)}.")
    if not answered.any(axis=1).all():
        i = int(np.flatnonzero(~answered.any(axis=1))[0])
        raise ValueError(f"model {shown(names[i])} answered no question; expected at least one.")
    if cluster is not None:
        return _compare_clusters(
            scores,
            answered,
            cluster_codes(cluster, n_questions=values.shape[1])[0],
            names,
            independent,
            prior,
        )
    pair_prior, model_prior = _table_priors(scores, answered, prior, values)
    binary = bool(np.all((scores == 0) | (scores == 1) | ~answered))
    paired, paired_method = _paired(
        scores, answered, pair_prior if binary else _heaviest(pair_prior, _NODES), exact_levels
    )
    unpaired: NDArray[np.float64] | None = None
    if independent:
        unpaired, exact = _independent(
            scores, answered, _heaviest(model_prior, _NODES), exact_levels
        )
        np.fill_diagonal(unpaired, np.nan)
    label, on_difference = pair_prior.label, False
    learned = prior if isinstance(prior, str) and prior in _LEARNED else None
    if not binary and learned is not None:  # the learned normal prior on the difference
        on_difference = True
        paired, tau = _shrunk_graded(scores, answered, paired, learned)
        label = _graded_label(tau, learned)
        paired_method = "normal (mean difference, standard error s/sqrt(n)) with the learned prior"
    shared = answered.astype(np.int64) @ answered.T.astype(np.int64)
    # mixtures over a prior's nodes can round past 1 (by 2e-16): probabilities stay in [0, 1]
    return PairedComparison(
        models=names,
        independent=None if unpaired is None else np.clip(unpaired, 0.0, 1.0),
        paired=np.clip(paired, 0.0, 1.0),
        shared=shared,
        prior=label,
        method={"paired": paired_method}
        | ({"independent": "exact" if exact else "normal"} if independent else {}),
        independent_prior=model_prior.label if independent and model_prior.label != label else None,
        difference_prior=on_difference,
    )


def _compare_clusters(
    scores: NDArray,
    answered: NDArray,
    codes: NDArray,
    names: tuple[str, ...],
    unpaired: bool,
    prior: PriorSpec,
) -> PairedComparison:
    """:func:`compare_pairs` with clustered questions (its docstring)."""
    learned = prior if isinstance(prior, str) and prior in _LEARNED else None
    paired, tau = _paired_clusters(scores, answered, codes, learned)
    independent: NDArray[np.float64] | None = None
    if unpaired:  # each model's own t posterior; the difference of the two by Welch's rule
        mean, scale, df = cluster_values(*cluster_sums(scores, answered, codes))
        var = scale[:, None] ** 2 + scale[None] ** 2
        with np.errstate(invalid="ignore", divide="ignore"):
            welch = var**2 / (scale[:, None] ** 4 / df[:, None] + scale[None] ** 4 / df[None])
        independent = _t_prob(mean[:, None] - mean[None], np.sqrt(var), welch)
        np.fill_diagonal(independent, np.nan)
    shared = answered.astype(np.int64) @ answered.T.astype(np.int64)
    return PairedComparison(
        models=names,
        independent=independent,
        paired=paired,
        shared=shared,
        prior=CLUSTER_PRIOR
        if tau is None
        else f"{_difference_prior_label(tau, learned)} and Jeffreys on the cluster-level sd",
        method={"paired": "t" if tau is None else "t with a learned normal prior on the difference"}
        | ({"independent": "t (Welch)"} if unpaired else {}),
        clusters=int(codes.max()) + 1,
        independent_prior=None if tau is None or not unpaired else CLUSTER_PRIOR,
        difference_prior=tau is not None,
    )


#: How the clustered comparisons name their prior.
CLUSTER_PRIOR = "Jeffreys on the cluster-level normal model (mean and sd of the cluster values)"


def _difference_prior_label(tau: float, kind: str | None) -> str:
    """How the comparisons name their learned normal prior on a pair's difference.

    ``tau`` is the learned sd of a pair's difference: its posterior median (``kind``
    ``"empirical"``) or its mode (``"empirical-plugin"``, plugged in).
    """
    how = "plugged in at its mode" if kind == "empirical-plugin" else "posterior median"
    return (
        f"learned normal N(0, tau^2) on each pair's difference (tau learned over the board's "
        f"pairs: {how} {tau:.3g}; hyperprior p(tau) ~ tau^{DIFFERENCE_TAU_POWER:g} on (0, 1])"
    )


#: Fewer shared questions than this keep the flat prior's probability (the uniform corners):
#: the sample variance of so few differences is no usable standard error.
_MIN_SHARED = 5


def _difference_moments(scores: NDArray, answered: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    r"""Mean difference (row minus column) and its squared standard error, pair by pair.

    Over the n questions both answered, :math:`\bar d = \sum_q d_q / n` and
    :math:`V = s^2/n = (\overline{d^2} - \bar d^2)/(n - 1)` (:math:`s^2` the sample variance,
    divisor n - 1), as ``(L, L)`` matrices with n. Sums that cancel are exactly 0 and
    variances of rounding size (at most 1e-12 of the second moment) are 0: every difference
    equal.
    """
    a = answered.astype(float)
    x = np.where(answered, scores, 0.0)
    n, s1 = a @ a.T, x @ a.T - a @ x.T
    s2 = (x**2) @ a.T + a @ (x**2).T - 2.0 * (x @ x.T)
    _, mean, var = _mean_and_se2(s1, s2, n)
    return mean, var, n


def _mean_and_se2(s1: NDArray, s2: NDArray, n: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    r"""From sums of n differences and of their squares: the sum, the mean and :math:`s^2/n`.

    :math:`\bar d = s_1/n` and :math:`V = (s_2/n - \bar d^2)/(n - 1)`, elementwise. Sums that
    cancel (at most 1e-12 n) are exactly 0 (returned), and a spread of rounding size (at most
    1e-12 of the second moment: every difference equal) is V = 0; n = 0 gives NaN. Shared by
    the paired matrix and the plan of new questions, which must agree to the last digit.
    """
    s1 = np.where(np.abs(s1) <= 1e-12 * np.maximum(n, 1.0), 0.0, s1)  # equal sums: exactly 0
    with np.errstate(invalid="ignore", divide="ignore"):  # no shared question: NaN
        mean, second = s1 / n, s2 / n
        spread = second - mean**2
        var = np.where(spread > 1e-12 * second, spread, 0.0) / np.maximum(n - 1.0, 1.0)
    return s1, mean, var


def _graded_label(tau: float, kind: str) -> str:
    """How the paired matrix of graded scores names its learned prior."""
    return (
        f"{_difference_prior_label(tau, kind)}, on the normal likelihood of each pair's mean "
        "difference, standard error s/sqrt(n), without corners (the learned split prior needs "
        "one binary result per question)"
    )


def _graded_tau(
    scores: NDArray, answered: NDArray, kind: str
) -> tuple[NDArray, float, NDArray, NDArray, NDArray]:
    """Tau's weights and summary learned from the pairs' mean differences and standard errors.

    The normal likelihood of each pair's mean difference without corners (the normal prior
    takes their place; :func:`_difference_moments`). The pairs that share at least
    ``_MIN_SHARED`` questions and whose differences are not all equal enter (``ok``, upper
    triangle). Also returns the pairs' means and variances ``(L, L)``.
    """
    i, j = np.triu_indices(len(scores), 1)
    mean, var, n = _difference_moments(scores, answered)
    ok = (n[i, j] >= _MIN_SHARED) & (var[i, j] > 0)
    logm = normal_logm(mean[i, j][ok], var[i, j][ok])
    weight, tau = tau_posterior(logm, len(scores), kind == "empirical-plugin")
    return weight, tau, mean, var, ok


def _shrunk_graded(
    scores: NDArray, answered: NDArray, paired: NDArray, kind: str
) -> tuple[NDArray, float]:
    r"""The paired matrix of graded scores under the learned normal prior on the difference.

    Each pair's likelihood is the normal law of its mean difference :math:`\bar d` with
    variance :math:`V = s^2/n` (:func:`_difference_moments`; no corners: the learned prior
    replaces them), so :math:`P = \Phi(\bar d\,\tau / (\sqrt V \sqrt{\tau^2 + V}))`
    averaged over tau (:mod:`bayes_eval.ranking.difference_prior`). A pair whose differences
    are all equal (V = 0) or that share fewer than ``_MIN_SHARED`` questions keeps its flat
    probability. The independent matrix keeps its flat prior: it ignores the pairing, so its
    variance overstates the difference's.
    """
    i, j = np.triu_indices(len(scores), 1)
    weight, tau, mean, var, ok = _graded_tau(scores, answered, kind)
    out = paired.copy()
    m, v = mean[i, j][ok], var[i, j][ok]
    p = shrink_z(m / np.sqrt(v), v, weight)
    out[i[ok], j[ok]], out[j[ok], i[ok]] = p, 1.0 - p
    return out, tau


def table_prior(kind: str) -> str:
    """The prior of the joint table for a per-question prior of kind ``kind``.

    It is chosen as ``bayes-eval pairs --prior-kind`` chooses it: a learned prior gives the learned
    split prior of the same kind, Jeffreys gives Jeffreys, anything else the uniform one.

    Parameters
    ----------
    kind : str
        The kind of the per-question prior (``"uniform"``, ``"jeffreys"``, ``"empirical"``,
        ``"empirical-plugin"``, ...).

    Returns
    -------
    str
        The ``prior`` of :func:`compare_pairs` for the joint table.

    Examples
    --------
    >>> table_prior("empirical"), table_prior("jeffreys"), table_prior("uniform")
    ('empirical', 'jeffreys', 'uniform')
    >>> table_prior("empirical-plugin"), table_prior("fixed")
    ('empirical-plugin', 'uniform')
    """
    return kind if kind in ("empirical", "empirical-plugin", "jeffreys") else "uniform"


def leaderboard_pairs(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    fractional: bool = False,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    pair_prior: PriorSpec = DEFAULT_PRIOR,
    answered_only: bool = False,
    exact_levels: int = EXACT_LEVELS,
    cluster: ArrayLike | Mapping[object, object] | None = None,
    fdr: float = 0.05,
    top: int | None = None,
    draws: int | None = None,
    seed: int = 0,
    independent: bool = False,
) -> PairedComparison:
    """Every pair of the models of ``R[model, question, trial]``, for both estimands.

    NaN in ``R`` means no trial; the pairs are those ``bayes-eval pairs`` prints.

    ``cluster`` (a label per question of ``R``, or a mapping question label -> cluster)
    makes the new-questions matrices draw clusters, not questions
    (:func:`compare_pairs`); it does not change *these questions*, whose truth is a function
    of these questions whatever the way they were drawn.

    *These questions*: :meth:`Posterior.prob_better
    <bayes_eval.posteriors.posterior.Posterior.prob_better>` of the board's posterior under
    ``prior`` (with the earlier runs ``R0``; on a board of binary results the joint posterior),
    the number ``rank`` and ``plan`` report. *New questions*: :func:`compare_pairs` under
    ``pair_prior``, the prior of the joint table: by default the learned prior of the split of
    discordant questions (binary results with one trial; for graded differences the learned
    normal prior on each pair's difference), which ``bayes-eval validate pairs`` measures
    (module docstring). The models are ordered by their posterior mean, best first, as
    ``rank`` orders them; ``answered_only`` scores each
    model on the questions it answered (an incomplete design). ``fdr``, ``top``, ``draws``
    and ``seed``: the claims of the board on these questions, as ``rank`` states them
    (:func:`~bayes_eval.ranking.claims.board_claims`).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``: categories ``0..C`` (graded
        scores with ``fractional``); NaN marks a missing trial.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior of
        *these questions*.
    fractional : bool, optional
        ``R`` holds graded scores in [0, 1]; default False.
    prior : Prior or str, optional
        The per-question prior of *these questions*; default ``"empirical"``.
    pair_prior : str, float or array_like, optional
        The prior of the joint table of the new-questions matrices (``prior`` of
        :func:`compare_pairs`); default ``"empirical"``, the learned split prior.
    answered_only : bool, optional
        Score each model on the questions it answered; default False.
    exact_levels : int, optional
        Exact new-questions probabilities up to this many distinct values; default 256.
    cluster : array_like of shape ``(M,)``, or mapping, optional
        The cluster of every question (:func:`cluster_codes`); default None, questions
        drawn independently.
    fdr : float, optional
        Posterior expected false discovery rate of the board's claims; default 0.05.
    top : int, optional
        Also report P(in the top ``top``) per model; default None.
    draws : int, optional
        Joint posterior draws of the claims; default None, a size chosen from the number
        of models (:func:`bayes_eval.ranking.claims.default_draws`).
    seed : int, optional
        Seed of those draws; default 0.
    independent : bool, optional
        Also compute the unpaired new-questions matrix (:func:`compare_pairs`), which ignores
        the pairing and is not calibrated (the commands do not print it); default False.

    Returns
    -------
    PairedComparison
        The models best first, the matrices (``these_questions``, ``paired`` and, if asked
        for, ``independent``), their priors and methods, and the board's ``claims``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> pc = leaderboard_pairs(R, prior="uniform", pair_prior="uniform")
    >>> pc.models  # best first
    ('b', 'a')
    >>> round(float(pc.these_questions[0, 1]), 4)  # P(b better than a), these questions
    0.6992
    """
    R = R.transpose("model", "question", "trial")
    labels = None
    if cluster is not None:
        codes, groups = cluster_codes(
            cluster, [str(q) for q in R["question"].values], n_questions=R.sizes["question"]
        )
        labels = np.asarray(groups, dtype=object)[codes]
    post = bxr.posterior(
        R,
        w,
        R0,
        skipna=True,
        prior=prior,
        fractional=fractional,
        answered_only=answered_only,
    )
    if post.n_models < 2:
        raise ValueError(
            f"the results have {post.n_models} model; pairs compares two or more models."
        )
    order = np.argsort(-np.asarray(post.mean), kind="stable")
    method = post.prob_method()  # the posterior every other number of the board comes from
    full = np.array(post.prob_better(method=method), dtype=float)
    board = board_claims(post, full, q=fdr, top=top or 1, draws=draws, seed=seed)
    claims = claims_document(board, [str(m) for m in R["model"].values], post.estimand, top=top)
    these = full[np.ix_(order, order)]
    np.fill_diagonal(these, np.nan)
    values = R.values.astype(float)[order]
    names = [str(m) for m in R["model"].values[order]]
    pc = compare_pairs(
        values,
        w,
        fractional=fractional,
        prior=pair_prior,
        models=names,
        exact_levels=exact_levels,
        cluster=labels,
        independent=independent,
    )
    return pc._replace(
        these_questions=these,
        these_prior=post.prior_label,
        these_from=post.prob_label(method),
        claims=claims,
    )
