r"""Claims about a whole leaderboard: ordered pairs at an FDR, P(best), P(top k) and ranks.

The claims are ordered pairs at a posterior expected false discovery rate, P(best), P(in the
top k), expected ranks and simultaneous rank intervals.

A leaderboard of L models states many orderings at once. Every statement here is read from
one posterior of the models' scores :math:`\bar\pi = (\bar\pi_1, \dots, \bar\pi_L)` for one
estimand (:data:`~bayes_eval.posteriors.posterior.THESE_QUESTIONS` for a board's joint
posterior):

* **Claims** (:func:`fdr_claims`). For each unordered pair take the orientation with
  :math:`v_{ab} = P(\bar\pi_a > \bar\pi_b \mid \text{data}) \ge 1/2`. A set D of such ordered
  pairs has the posterior expected false discovery proportion

  .. math:: \mathrm{FDR}(D) = \frac{1}{|D|} \sum_{(a, b) \in D} (1 - v_{ab})

  (linearity of expectation: exact given the pair probabilities). The rule claims the largest
  set with :math:`\mathrm{FDR}(D) \le q`: the pairs sorted by :math:`v` and the longest prefix
  within q, which is the largest such set because the running mean of the sorted
  :math:`1 - v` never decreases (Newton, Noueiry, Sarkar and Ahlquist, "Detecting
  differential gene expression with a semiparametric hierarchical mixture method", 2004;
  Müller, Parmigiani and Rice, "FDR and Bayesian multiple comparisons rules", 2006). It
  promises the *posterior expected* FDR; the realised FDR over repeated boards is at most q
  only where the pair probabilities are calibrated. **Tie groups** are what the claims leave
  unresolved: the connected parts of the graph joining two models when neither is ordered
  above the other by the claims or by a chain of claims (the transitive closure).
* **Whole-board probabilities** (:func:`rank_probabilities`), from joint posterior draws:
  :math:`P(\text{best})`, :math:`P(\text{rank} \le k)`, the expected rank and the rank
  distribution; a tie within a draw shares its places equally among the tied models.
* **Simultaneous rank intervals** (:func:`simultaneous_rank_intervals`): an interval of
  ranks for every model that contains all the models' ranks at once in at least the given
  share of the draws, by trimming the same number of order statistics from each model's
  rank draws (Besag, Green, Higdon and Mengersen, "Bayesian computation and stochastic
  systems", 1995, §6). Per-model 95% intervals cover jointly much less than 95% when L is
  large.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import check_memory, shown

if TYPE_CHECKING:
    from bayes_eval.posteriors.posterior import Posterior

__all__ = [
    "BoardClaims",
    "Claims",
    "RankIntervals",
    "RankProbabilities",
    "board_claims",
    "claimed_prefix",
    "claims_document",
    "claims_rule",
    "default_draws",
    "fdr_claims",
    "psd_root",
    "rank_joint_rule",
    "rank_probabilities",
    "score_moments",
    "simultaneous_rank_intervals",
    "tie_group_order",
]

_COMPLEMENT_TOL = 1e-6  # P(a > b) + P(b > a) may differ from 1 by this much (rounding)


class Claims(NamedTuple):
    r"""The ordered pairs claimed at a posterior expected FDR (:func:`fdr_claims`).

    Attributes
    ----------
    better, worse : ndarray of int, shape ``(D,)``
        Model indices of each claim "better > worse", the most probable first.
    prob : ndarray, shape ``(D,)``
        :math:`P(\bar\pi_{\mathrm{better}} > \bar\pi_{\mathrm{worse}})` of each claim.
    expected_fdr : float
        The claims' posterior expected false discovery proportion (0 for no claim).
    q : float
        The level the rule kept ``expected_fdr`` within.
    groups : list of ndarray of int
        The tie groups: models that the claims do not order, each group a connected part,
        listed best first in the claims' order, each group's members by
        :func:`tie_group_order`.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.5, 0.99, 0.999], [0.01, 0.5, 0.8], [0.001, 0.2, 0.5]])
    >>> c = fdr_claims(p, q=0.05)
    >>> c.better.tolist(), c.worse.tolist(), round(c.expected_fdr, 4)
    ([0, 0], [2, 1], 0.0055)
    >>> print(c)
    2 claims at posterior expected FDR 0.0055 (q = 0.05); 2 tie groups
      0 > 2  P = 0.9990
      0 > 1  P = 0.9900
    """

    better: NDArray[np.int64]
    worse: NDArray[np.int64]
    prob: NDArray[np.float64]
    expected_fdr: float
    q: float
    groups: list[NDArray[np.int64]]

    def records(self, names: ArrayLike | None = None) -> list[dict]:
        """The claims as ``{"better": A, "worse": B, "prob": P}`` records.

        Models are given by name, or by index when ``names`` is None.
        """
        label = (lambda i: int(i)) if names is None else (lambda i: str(np.asarray(names)[i]))
        return [
            {"better": label(a), "worse": label(b), "prob": float(p)}
            for a, b, p in zip(self.better, self.worse, self.prob, strict=True)
        ]

    def __str__(self) -> str:
        head = f"{self.better.size} claims at posterior expected FDR {self.expected_fdr:.4f} "
        head += f"(q = {self.q:g}); {len(self.groups)} tie groups"
        rows = [f"  {a} > {b}  P = {p:.4f}" for a, b, p in zip(*self[:3], strict=True)]
        return "\n".join([head, *rows])


def _check_prob(prob: ArrayLike) -> NDArray[np.float64]:
    p = np.asarray(prob, dtype=float)
    if p.ndim != 2 or p.shape[0] != p.shape[1] or p.shape[0] < 1:
        raise ValueError(
            f"prob has shape {p.shape}; expected a square (L, L) matrix of P(model i better "
            "than model j)."
        )
    if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise ValueError("prob has entries outside [0, 1]; expected probabilities.")
    off = ~np.eye(p.shape[0], dtype=bool)
    if (np.abs(p + p.T - 1.0)[off] > _COMPLEMENT_TOL).any():
        raise ValueError(
            "prob is not a matrix of P(i better than j): P(i > j) + P(j > i) must be 1 for "
            "every pair of models."
        )
    return p


def _check_q(q: float, name: str = "q") -> float:
    if isinstance(q, bool) or not isinstance(q, (int, float, np.floating)) or not 0 < q < 1:
        raise ValueError(f"{name} is {shown(q)}; expected a false discovery rate in (0, 1).")
    return float(q)


def fdr_claims(prob: ArrayLike, q: float = 0.05) -> Claims:
    r"""The largest set of ordered pairs with posterior expected FDR at most ``q``.

    With :math:`v_{ab} = P(\bar\pi_a > \bar\pi_b)` oriented so that :math:`v_{ab} \ge 1/2`,
    the claims are the pairs of the longest prefix of the pairs sorted by :math:`v`
    (descending) whose mean of :math:`1 - v` is at most ``q`` (module docstring; Müller,
    Parmigiani and Rice, "FDR and Bayesian multiple comparisons rules", 2006). A pair with
    :math:`v = 1/2` is never claimed.

    Parameters
    ----------
    prob : array_like, shape ``(L, L)``
        :math:`P(\bar\pi_i > \bar\pi_j)` (e.g. :meth:`Posterior.prob_better()
        <bayes_eval.posteriors.posterior.Posterior.prob_better>`); :math:`P_{ij} + P_{ji} = 1`.
    q : float
        The posterior expected false discovery rate, in (0, 1); default 0.05.

    Returns
    -------
    Claims
        ``(better, worse, prob, expected_fdr, q, groups)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.ranking.claims import fdr_claims
    >>> p = np.array([[0.5, 0.99, 0.999], [0.01, 0.5, 0.8], [0.001, 0.2, 0.5]])
    >>> c = fdr_claims(p, q=0.05)
    >>> c.records()
    [{'better': 0, 'worse': 2, 'prob': 0.999}, {'better': 0, 'worse': 1, 'prob': 0.99}]
    >>> [g.tolist() for g in c.groups]
    [[0], [1, 2]]
    """
    p = _check_prob(prob)
    q = _check_q(q)
    n = p.shape[0]
    i, j = np.triu_indices(n, k=1)
    forward = p[i, j] >= 0.5
    better = np.where(forward, i, j)
    worse = np.where(forward, j, i)
    v = np.maximum(p[i, j], p[j, i])
    order = np.lexsort((worse, better, -v))  # most probable first; ties by index
    better, worse, v = better[order], worse[order], v[order]
    running, kept = claimed_prefix(v, q)
    keep = int(kept)
    better, worse, v = better[:keep], worse[:keep], v[:keep]
    fdr = float(running[keep - 1]) if keep else 0.0
    return Claims(better, worse, v, fdr, q, _tie_groups(n, better, worse, p))


def claimed_prefix(ordered: NDArray, q: float) -> tuple[NDArray, NDArray]:
    r"""The rule of :func:`fdr_claims` on pair probabilities sorted in descending order.

    The probabilities are sorted along the last axis (any leading axes: one set of pairs each).
    It gives the running mean of :math:`1 - v` and the number of pairs claimed, the longest
    prefix with that mean at most ``q`` and :math:`v > 1/2`.

    Parameters
    ----------
    ordered : numpy.ndarray of shape (..., D)
        Pair probabilities :math:`v \ge 1/2`, sorted in descending order along the last axis.
    q : float
        The posterior expected false discovery rate, in (0, 1).

    Returns
    -------
    running : numpy.ndarray of shape (..., D)
        The running mean of :math:`1 - v`, the expected FDR of each prefix.
    count : numpy.ndarray of int, shape (...)
        The number of pairs claimed.

    Examples
    --------
    >>> import numpy as np
    >>> running, count = claimed_prefix(np.array([0.999, 0.99, 0.8]), 0.05)
    >>> running.round(4).tolist(), int(count)
    ([0.001, 0.0055, 0.0703], 2)
    >>> claimed_prefix(np.array([[0.999, 0.99, 0.8], [0.9, 0.6, 0.5]]), 0.1)[1].tolist()
    [3, 1]
    """
    running = np.cumsum(1.0 - ordered, axis=-1) / np.arange(1, ordered.shape[-1] + 1)
    return running, np.count_nonzero((running <= q) & (ordered > 0.5), axis=-1)


def psd_root(cov: NDArray) -> NDArray:
    """A square root ``A`` of a covariance matrix, ``A @ A.T == cov``.

    It is computed through the eigen decomposition (rounding's small negative eigenvalues set to
    zero): ``mean + z @ A.T`` for standard normal rows ``z`` are draws of the normal law.

    Parameters
    ----------
    cov : numpy.ndarray of shape (L, L)
        A symmetric positive semi-definite covariance matrix.

    Returns
    -------
    numpy.ndarray of shape (L, L)
        A matrix ``A`` with ``A @ A.T`` equal to ``cov`` (up to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> cov = np.array([[1.0, 0.5], [0.5, 2.0]])
    >>> A = psd_root(cov)
    >>> A.shape, bool(np.allclose(A @ A.T, cov))
    ((2, 2), True)
    """
    evals, evecs = np.linalg.eigh(cov)
    return evecs * np.sqrt(np.clip(evals, 0.0, None))


def _closure(n: int, better: NDArray, worse: NDArray) -> NDArray[np.bool_]:
    """``above[a, b]``: the claims order a above b, directly or through a chain of claims."""
    above = np.zeros((n, n), dtype=bool)
    above[better, worse] = True
    for k in range(n):  # Warshall
        above |= above[:, k, None] & above[None, k, :]
    return above


def tie_group_order(
    members: ArrayLike, better: ArrayLike, worse: ArrayLike, rank: ArrayLike
) -> NDArray[np.int64]:
    """The members of one tie group, listed in the claims' order, otherwise by expected rank.

    The listing is the topological order of the claims between members that takes, at each
    step, the member with the smallest ``rank`` (then index) among those no unlisted member is
    claimed above: a claim "a better than b" always lists a first, and members the claims
    leave unordered keep the order of ``rank``. (When the claims have no cycle their chains
    stay inside the group: a model ordered above one member and below another is in it.
    Claims in a cycle, possible only from pair probabilities no joint law gives, fall back to
    ``rank``.) Listing by expected rank alone could put b above a where the two are nearly
    tied (a claim at P just above 1/2).

    Parameters
    ----------
    members : array_like of int
        The group's models (indices into ``rank``).
    better, worse : array_like of int
        The claims (every claim of the board; those outside the group are ignored).
    rank : array_like of float
        Every model's expected rank (or any key, smaller first).

    Returns
    -------
    ndarray of int
        ``members`` in listing order.

    Examples
    --------
    >>> from bayes_eval.ranking.claims import tie_group_order
    >>> tie_group_order([0, 1, 3], better=[0, 3], worse=[1, 2], rank=[2.1, 2.0, 4.0, 1.9])
    array([3, 0, 1])
    """
    members = np.asarray(members, dtype=np.int64)
    better, worse = np.asarray(better, dtype=np.int64), np.asarray(worse, dtype=np.int64)
    rank = np.asarray(rank, dtype=float)
    k = members.size
    place = np.full(rank.size, -1)
    place[members] = np.arange(k)
    inside = (place[better] >= 0) & (place[worse] >= 0)
    above = np.zeros((k, k), dtype=bool)
    above[place[better[inside]], place[worse[inside]]] = True
    priority = np.empty(k)
    priority[np.lexsort((members, rank[members]))] = np.arange(k)
    waiting = above.sum(axis=0)  # unlisted members claimed above each member
    listed = np.zeros(k, dtype=bool)
    order = np.empty(k, dtype=np.int64)
    for step in range(k):
        ready = ~listed & (waiting == 0)
        if not ready.any():  # a cycle of claims
            ready = ~listed
        pick = int(np.flatnonzero(ready)[np.argmin(priority[ready])])
        order[step], listed[pick] = pick, True
        waiting -= above[pick]
    return members[order]


def _ordered_groups(
    groups: list[NDArray[np.int64]], better: NDArray, worse: NDArray, rank: NDArray
) -> list[NDArray[np.int64]]:
    """Each tie group's members in :func:`tie_group_order`, in the groups' order.

    Only the claims inside a group can order its members, and on a large board almost every
    claim is between groups: they are set aside once, not scanned again for every group.
    """
    label = np.full(np.asarray(rank).size, -1)
    for g, members in enumerate(groups):
        label[members] = g
    better, worse = np.asarray(better, dtype=np.int64), np.asarray(worse, dtype=np.int64)
    inner = (label[better] == label[worse]) & (label[better] >= 0)
    better, worse = better[inner], worse[inner]
    return [tie_group_order(g, better, worse, rank) for g in groups]


def _tie_groups(n: int, better: NDArray, worse: NDArray, p: NDArray) -> list[NDArray[np.int64]]:
    """Connected parts of the graph of pairs the claims leave unordered.

    That graph is the complement of the claims' transitive closure. Every pair across two
    parts is ordered by that closure, all in one direction, so the parts come best first by
    the number of models the closure puts above their top member (the mean expected rank of
    their members breaks ties, which only claims that contradict each other leave); each
    part's members in :func:`tie_group_order`. Sorting by expected rank alone could list a
    part above one the claims put above it where two models are nearly tied.
    """
    above = _closure(n, better, worse)
    open_pair = ~(above | above.T)
    label = np.arange(n)
    for _ in range(n):  # connected parts: propagate the smallest label along open pairs
        new = np.where(open_pair, label[None, :], n).min(axis=1)
        new = np.minimum(label, new)
        if np.array_equal(new, label):
            break
        label = new
    # expected rank under the pairwise probabilities: 1 + sum_j P(j > i)
    rank = 1.0 + (p.sum(axis=0) - 0.5)
    claimed_above = above.sum(axis=0)  # models the claims put above each model
    groups = [np.flatnonzero(label == g) for g in np.unique(label)]
    groups = _ordered_groups(groups, better, worse, rank)
    return sorted(
        groups, key=lambda g: (int(claimed_above[g].min()), float(rank[g].mean()), int(g.min()))
    )


class RankProbabilities(NamedTuple):
    r"""Whole-board probabilities from joint draws (:func:`rank_probabilities`).

    Attributes
    ----------
    p_best : ndarray, shape ``(L,)``
        :math:`P(\text{model has the largest score})`; sums to 1.
    p_top : ndarray, shape ``(L,)``
        :math:`P(\text{rank} \le k)` for ``top`` = k (``p_best`` when k = 1); sums to k.
    expected_rank : ndarray, shape ``(L,)``
        :math:`E[\text{rank}]` (rank 1 is the best); sums to :math:`L(L+1)/2`.
    distribution : ndarray, shape ``(L, L)``
        :math:`P(\text{rank of model } a = r + 1)` in row a, column r; rows and columns
        sum to 1.
    top : int
        The k of ``p_top``.
    draws : int
        The number of joint draws.

    Examples
    --------
    >>> import numpy as np
    >>> draws = np.array([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0], [2.0, 2.0, 1.0]])
    >>> r = rank_probabilities(draws, top=2)
    >>> r.p_top.round(4).tolist(), r.top, r.draws
    ([0.6667, 1.0, 0.3333], 2, 3)
    >>> r.distribution.round(4).tolist()
    [[0.5, 0.1667, 0.3333], [0.1667, 0.8333, 0.0], [0.3333, 0.0, 0.6667]]
    """

    p_best: NDArray[np.float64]
    p_top: NDArray[np.float64]
    expected_rank: NDArray[np.float64]
    distribution: NDArray[np.float64]
    top: int
    draws: int

    def __str__(self) -> str:
        lines = [f"rank probabilities from {self.draws} joint draws (top k = {self.top})"]
        lines.append(f"  {'model':>5s}  {'P(best)':>8s}  {'P(top k)':>8s}  {'E[rank]':>8s}")
        for a in range(self.p_best.size):
            lines.append(
                f"  {a:5d}  {self.p_best[a]:8.4f}  {self.p_top[a]:8.4f}  "
                f"{self.expected_rank[a]:8.3f}"
            )
        return "\n".join(lines)


def _check_draws(draws: ArrayLike) -> NDArray[np.float64]:
    d = np.asarray(draws, dtype=float)
    if d.ndim != 2 or d.shape[0] < 1 or d.shape[1] < 1:
        raise ValueError(
            f"draws has shape {d.shape}; expected (n draws, L models) joint posterior draws."
        )
    if not np.isfinite(d).all():
        raise ValueError("draws contains a non-finite value; expected finite scores.")
    return d


def _check_top(top: int, n_models: int) -> None:
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 1 <= top <= n_models:
        raise ValueError(f"top is {shown(top)}; expected an integer from 1 to {n_models}.")


def _check_level(confidence: float) -> None:
    if not isinstance(confidence, (int, float, np.floating)) or not 0 < confidence < 1:
        raise ValueError(f"confidence is {shown(confidence)}; expected a level in (0, 1).")


def _places(d: NDArray) -> tuple[NDArray, NDArray]:
    """Per draw and model: how many models score strictly higher (g) and how many the same (e).

    The count e includes the model itself; the model holds places g + 1 .. g + e, shared equally.
    """
    n_models = d.shape[1]
    idx = np.argsort(d, axis=1)
    s = np.take_along_axis(d, idx, axis=1)  # ascending
    differs = s[:, 1:] != s[:, :-1]
    g, e = np.empty(d.shape, dtype=np.int32), np.ones(d.shape, dtype=np.int32)
    if differs.all():  # no tie (continuous draws): the places are the positions
        np.put_along_axis(g, idx, np.arange(n_models - 1, -1, -1, dtype=np.int32)[None], axis=1)
        return g, e
    pos = np.broadcast_to(np.arange(n_models), s.shape)
    first = np.concatenate([np.ones((s.shape[0], 1), bool), differs], axis=1)
    last = np.concatenate([differs, np.ones((s.shape[0], 1), bool)], axis=1)
    start = np.maximum.accumulate(np.where(first, pos, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, pos, n_models)[:, ::-1], axis=1)[:, ::-1]
    np.put_along_axis(g, idx, (n_models - 1 - end).astype(np.int32), axis=1)
    np.put_along_axis(e, idx, (end - start + 1).astype(np.int32), axis=1)
    return g, e


def rank_probabilities(draws: ArrayLike, *, top: int = 1) -> RankProbabilities:
    r"""P(best), P(in the top k), expected rank and rank distribution from joint draws.

    For draw s let :math:`g_a` be the number of models scoring strictly higher than model a
    and :math:`e_a` the number scoring the same (a included); a holds the places
    :math:`g_a + 1, \dots, g_a + e_a` with probability :math:`1/e_a` each, so
    :math:`P(\text{rank}_a = r) = \frac1S\sum_s 1\{g_a < r \le g_a + e_a\}/e_a`,
    :math:`P(\text{rank}_a \le k)` its cumulative sum and :math:`E[\text{rank}_a] =
    \frac1S\sum_s (g_a + (e_a + 1)/2)` (module docstring).

    Parameters
    ----------
    draws : array_like, shape ``(S, L)``
        Joint posterior draws of the models' scores (higher is better), e.g.
        :meth:`Posterior.draws <bayes_eval.posteriors.posterior.Posterior.draws>`.
    top : int, keyword-only
        The k of P(in the top k), 1 to L (default 1).

    Returns
    -------
    RankProbabilities
        ``(p_best, p_top, expected_rank, distribution, top, draws)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.ranking.claims import rank_probabilities
    >>> r = rank_probabilities(np.array([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0], [2.0, 2.0, 1.0]]))
    >>> r.p_best.round(4).tolist(), r.expected_rank.round(4).tolist()
    ([0.5, 0.1667, 0.3333], [1.8333, 1.8333, 2.3333])
    """
    d = _check_draws(draws)
    n_models = d.shape[1]
    _check_top(top, n_models)
    return _rank_probabilities(*_places(d), int(top))


def _rank_probabilities(g: NDArray, e: NDArray, top: int) -> RankProbabilities:
    """:func:`rank_probabilities` from the places of every draw (:func:`_places`)."""
    n_draws, n_models = g.shape
    # each draw spreads 1/e over the places g + 1 .. g + e: a difference array per model
    model = np.broadcast_to(np.arange(n_models), g.shape)
    size = n_models * (n_models + 1)
    step = np.bincount((model * (n_models + 1) + g).ravel(), (1.0 / e).ravel(), size)
    step -= np.bincount((model * (n_models + 1) + g + e).ravel(), (1.0 / e).ravel(), size)
    dist = np.cumsum(step.reshape(n_models, n_models + 1), axis=1)[:, :n_models] / n_draws
    cum = np.cumsum(dist, axis=1)
    expected = (g + 0.5 * (e + 1.0)).mean(axis=0)
    return RankProbabilities(cum[:, 0], cum[:, top - 1], expected, dist, int(top), n_draws)


class RankIntervals(NamedTuple):
    """Simultaneous rank intervals (:func:`simultaneous_rank_intervals`).

    Attributes
    ----------
    lo, hi : ndarray of int, shape ``(L,)``
        Each model's interval of ranks (1 is the best).
    confidence : float
        The joint level asked for.
    joint_coverage : float
        The share of the draws in which every model's rank lies in its interval (at least
        ``confidence``).

    Examples
    --------
    >>> import numpy as np
    >>> draws = np.random.default_rng(0).normal([0.8, 0.6, 0.59], 0.05, size=(4000, 3))
    >>> ints = simultaneous_rank_intervals(draws, 0.95)
    >>> ints.lo.tolist(), ints.hi.tolist(), round(ints.joint_coverage, 4)
    ([1, 2, 2], [1, 3, 3], 0.9958)
    """

    lo: NDArray[np.int64]
    hi: NDArray[np.int64]
    confidence: float
    joint_coverage: float


def simultaneous_rank_intervals(draws: ArrayLike, confidence: float = 0.95) -> RankIntervals:
    r"""Rank intervals that hold for all models at once.

    They hold jointly with posterior probability at least ``confidence``.

    Each draw ranks the models (1 the best; tied models share the best of their places, as
    competition ranking does). The rank draws of every model are sorted, and model a's
    interval is :math:`[r_a^{(j)}, r_a^{(S + 1 - j)}]` (its j-th smallest and j-th largest
    rank draw) with the same j for all models, the largest j for which the share of draws
    with every rank inside its interval is still at least ``confidence`` (Besag, Green,
    Higdon and Mengersen, "Bayesian computation and stochastic systems", 1995, §6).

    Parameters
    ----------
    draws : array_like, shape ``(S, L)``
        Joint posterior draws of the models' scores (higher is better).
    confidence : float
        The joint level, in (0, 1); default 0.95.

    Returns
    -------
    RankIntervals
        ``(lo, hi, confidence, joint_coverage)``.

    Examples
    --------
    >>> import numpy as np
    >>> draws = np.random.default_rng(0).normal([0.8, 0.6, 0.59], 0.05, size=(4000, 3))
    >>> ints = simultaneous_rank_intervals(draws, 0.95)
    >>> ints.lo.tolist(), ints.hi.tolist()
    ([1, 2, 2], [1, 3, 3])
    """
    d = _check_draws(draws)
    _check_level(confidence)
    return _joint_intervals(_places(d)[0] + 1, float(confidence))


def _joint_intervals(ranks: NDArray, confidence: float) -> RankIntervals:
    """:func:`simultaneous_rank_intervals` from the rank draws ``(S, L)``."""
    n_draws = ranks.shape[0]
    sorted_ranks = np.sort(ranks, axis=0)

    def coverage(j: int) -> float:
        lo, hi = sorted_ranks[j - 1], sorted_ranks[n_draws - j]
        return float(np.mean(np.all((ranks >= lo) & (ranks <= hi), axis=1)))

    lo_j, hi_j = 1, max(1, n_draws // 2)  # coverage(1) = 1; it falls as j grows
    while lo_j < hi_j:
        mid = (lo_j + hi_j + 1) // 2
        if coverage(mid) >= confidence:
            lo_j = mid
        else:
            hi_j = mid - 1
    lo = sorted_ranks[lo_j - 1].astype(np.int64)
    hi = sorted_ranks[n_draws - lo_j].astype(np.int64)
    return RankIntervals(lo, hi, confidence, coverage(lo_j))


def score_moments(post: Posterior) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""The posterior mean and covariance of the models' scores that P(better) comes from.

    On a board the joint posterior's (:mod:`~bayes_eval.posteriors.joint`); for models that
    share the nodes of one learned prior the law of total covariance over the nodes
    (:math:`\mathrm{Cov}(\bar\pi_a, \bar\pi_b) = \mathrm{Cov}_j(\mu_{ja}, \mu_{jb})` for
    :math:`a \ne b`); otherwise independent models (a diagonal covariance). A normal law with
    these moments gives :math:`P(\bar\pi_a > \bar\pi_b) = \Phi(E[D]/\mathrm{sd}[D])`, the
    number :meth:`Posterior.prob_better
    <bayes_eval.posteriors.posterior.Posterior.prob_better>` prints, so the whole-board
    probabilities drawn from it agree with the pairs.

    Parameters
    ----------
    post : Posterior
        A posterior of several models (a batch).

    Returns
    -------
    (ndarray, ndarray)
        Means ``(L,)`` and covariance ``(L, L)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.posteriors.posterior import posterior
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.9]], [[0.5]], [[0.4]]], size=(3, 20, 2))
    >>> post = posterior(R, prior="uniform")
    >>> mean, cov = score_moments(post)
    >>> mean.round(4).tolist(), np.sqrt(np.diag(cov)).round(4).tolist()
    ([0.6875, 0.4625, 0.5375], [0.0444, 0.0478, 0.0478])
    """
    if post.joint is not None:
        idx = np.atleast_1d(post._joint_index)
        return post.joint.mean[idx], post.joint.cov[np.ix_(idx, idx)]
    n = post.n_models
    if post.shared_nodes:
        mu_j, sd_j = (np.asarray(x).reshape(post.n_nodes, n) for x in post.node_moments)
        wts = np.asarray(post.weights).reshape(post.n_nodes, n)[:, 0]
        mean = wts @ mu_j
        dev = mu_j - mean
        cov = np.einsum("j,ja,jb->ab", wts, dev, dev) + np.diag(wts @ sd_j**2)
        return mean, cov
    mu, sigma = (np.asarray(x, dtype=float).reshape(n) for x in (post.mean, post.sd))
    return mu, np.diag(sigma**2)


def default_draws(n_models: int) -> int:
    """Joint draws for the whole-board probabilities: 10,000, fewer for large boards.

    10,000 draws give P(best) to a Monte Carlo sd of 0.005 at most; large boards get fewer (at
    most 1e6 scores, at least 2,000).

    Parameters
    ----------
    n_models : int
        The number of models L of the board.

    Returns
    -------
    int
        The number of joint draws.

    Examples
    --------
    >>> default_draws(3), default_draws(300), default_draws(10_000)
    (10000, 3333, 2000)
    """
    return int(np.clip(1_000_000 // max(n_models, 1), 2_000, 10_000))


class BoardClaims(NamedTuple):
    """Everything a leaderboard claims as a set (:func:`board_claims`).

    That is, the pairs at a posterior expected FDR, the rank probabilities and the simultaneous
    rank intervals.

    Attributes
    ----------
    claims : Claims
        The ordered pairs at a posterior expected FDR (:func:`fdr_claims`).
    ranks : RankProbabilities
        P(best), P(in the top k), expected ranks (:func:`rank_probabilities`).
    intervals : RankIntervals
        The simultaneous rank intervals (:func:`simultaneous_rank_intervals`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.posteriors.posterior import posterior
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.9]], [[0.5]], [[0.4]]], size=(3, 20, 2))
    >>> post = posterior(R, prior="uniform")
    >>> board = board_claims(post, post.prob_better(), draws=2000, seed=0)
    >>> [type(x).__name__ for x in board]
    ['Claims', 'RankProbabilities', 'RankIntervals']
    """

    claims: Claims
    ranks: RankProbabilities
    intervals: RankIntervals


def board_claims(
    post: Posterior,
    prob: ArrayLike,
    *,
    q: float = 0.05,
    top: int = 1,
    confidence: float = 0.95,
    draws: int | None = None,
    seed: int = 0,
) -> BoardClaims:
    r"""The claims of a leaderboard from one posterior.

    ``prob`` is the P(better) matrix the leaderboard prints (pairs without one, NaN, are
    never claimed); the rank probabilities and the simultaneous rank intervals come from
    ``draws`` joint draws of the normal law with :func:`score_moments` (seeded by ``seed``),
    whose pair probabilities are those of ``prob``.

    Parameters
    ----------
    post : Posterior
        The leaderboard's posterior (several models).
    prob : array_like, shape ``(L, L)``
        Its P(row better than column).
    q : float, keyword-only
        Posterior expected FDR of the claims (default 0.05).
    top : int, keyword-only
        The k of P(in the top k) (default 1).
    confidence : float, keyword-only
        Joint level of the simultaneous rank intervals (default 0.95).
    draws : int, keyword-only
        Joint draws (default :func:`default_draws`).
    seed : int, keyword-only
        Seed of the joint draws (default 0).

    Returns
    -------
    BoardClaims
        ``(claims, ranks, intervals)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.posteriors.posterior import posterior
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.9]], [[0.5]], [[0.4]]], size=(3, 20, 2))
    >>> post = posterior(R, prior="uniform")
    >>> board = board_claims(post, post.prob_better(), draws=2000, seed=0)
    >>> [(c["better"], c["worse"]) for c in board.claims.records()]
    [(0, 1), (0, 2), (2, 1)]
    >>> board.ranks.p_best.round(4).tolist(), board.intervals.lo.tolist()
    ([0.9895, 0.0, 0.0105], [1, 2, 2])
    """
    p = np.array(prob, dtype=float)
    np.fill_diagonal(p, 0.5)
    p = np.where(np.isnan(p), 0.5, p)  # no shared question: no probability, no claim
    claims = fdr_claims(p, q)
    mean, cov = score_moments(post)
    n = default_draws(mean.size) if draws is None else int(draws)
    if n < 1:
        raise ValueError(f"draws is {shown(draws)}; expected a positive number of joint draws.")
    # the draws, their ranks and the places (six arrays of S x L)
    check_memory(6 * 8.0 * n * mean.size, f"{n} joint draws of {mean.size} models", "fewer draws")
    rng = np.random.default_rng(seed)
    from bayes_eval.posteriors.joint import one_blas_thread

    with one_blas_thread():  # one small factorisation and product: threads cost more than they gain
        root = psd_root(cov)
        sample = mean[None, :] + rng.standard_normal((n, mean.size)) @ root.T
    _check_top(top, mean.size)
    _check_level(confidence)
    g, e = _places(sample)  # once for both
    ranks = _rank_probabilities(g, e, int(top))
    intervals = _joint_intervals(g + 1, float(confidence))
    return BoardClaims(claims, ranks, intervals)


def claims_rule(q: float) -> str:
    """The claims' rule in words, as every output states it.

    Parameters
    ----------
    q : float
        The posterior expected false discovery rate of the claims.

    Returns
    -------
    str
        The rule, with ``q`` and its reference.

    Examples
    --------
    >>> claims_rule(0.05)
    "the largest set of orderings 'better > worse' whose posterior expected false discovery
    rate (the mean of 1 - P over the set) is at most 0.05 (Müller, Parmigiani and Rice 2006)"
    """
    return (
        "the largest set of orderings 'better > worse' whose posterior expected false "
        f"discovery rate (the mean of 1 - P over the set) is at most {q:g} (Müller, Parmigiani "
        "and Rice 2006)"
    )


def rank_joint_rule(confidence: float, achieved: float) -> str:
    """The simultaneous rank intervals' rule in words.

    Parameters
    ----------
    confidence : float
        The joint level asked for.
    achieved : float
        The share of the draws the intervals cover (``RankIntervals.joint_coverage``).

    Returns
    -------
    str
        The rule, with both levels and its reference.

    Examples
    --------
    >>> rank_joint_rule(0.95, 0.9512)
    'rank intervals holding for all models at once with posterior probability 0.95 (Besag et
    al. 1995; achieved 0.9512 of the draws)'
    """
    return (
        "rank intervals holding for all models at once with posterior probability "
        f"{confidence:g} (Besag et al. 1995; achieved {achieved:.4f} of the draws)"
    )


def claims_document(
    board: BoardClaims, names: list[str], estimand: str, *, top: int | None = None
) -> dict:
    """The board's claims as a JSON-ready document.

    It holds the claims (``{"better", "worse", "prob"}`` with model names), ``fdr``,
    ``claims_expected_fdr``, ``claims_estimand``, ``claims_rule``, ``tie_groups`` (names),
    ``top``, and per model (name -> value) ``p_best``, ``p_top`` (with ``top``),
    ``expected_rank`` and ``rank_joint`` ([lo, hi]); ``rank_joint_rule`` and
    ``claims_draws``.

    Parameters
    ----------
    board : BoardClaims
        The board's claims (:func:`board_claims`).
    names : list of str
        The model names, in the order of the posterior.
    estimand : str
        The estimand of the posterior the claims come from.
    top : int, optional
        The k of ``p_top`` (as given to :func:`board_claims`); default None, no ``p_top``.

    Returns
    -------
    dict
        The claims and the whole-board probabilities, keyed by model name.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.posteriors.posterior import posterior
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.9]], [[0.5]], [[0.4]]], size=(3, 20, 2))
    >>> post = posterior(R, prior="uniform")
    >>> board = board_claims(post, post.prob_better(), draws=2000, seed=0)
    >>> doc = claims_document(board, ["a", "b", "c"], post.estimand)
    >>> [(c["better"], c["worse"]) for c in doc["claims"]], doc["tie_groups"]
    ([('a', 'b'), ('a', 'c'), ('c', 'b')], [['a'], ['c'], ['b']])
    >>> doc["rank_joint"], doc["claims_estimand"]
    ({'a': [1, 1], 'b': [2, 3], 'c': [2, 3]}, 'these questions')
    """
    claims, ranks, ints = board
    label = np.asarray(names, dtype=object)
    out = {
        "claims": claims.records(label),
        "fdr": claims.q,
        "claims_expected_fdr": claims.expected_fdr,
        "claims_estimand": estimand,
        "claims_rule": claims_rule(claims.q),
        "tie_groups": [  # each in the claims' order, then by expected rank, as the table's
            [str(label[i]) for i in g]
            for g in _ordered_groups(
                claims.groups, claims.better, claims.worse, ranks.expected_rank
            )
        ],
        "top": top,
        "p_best": {str(n): float(p) for n, p in zip(label, ranks.p_best, strict=True)},
        "expected_rank": {
            str(n): float(r) for n, r in zip(label, ranks.expected_rank, strict=True)
        },
        "rank_joint": {
            str(n): [int(a), int(b)] for n, a, b in zip(label, ints.lo, ints.hi, strict=True)
        },
        "rank_joint_rule": rank_joint_rule(ints.confidence, ints.joint_coverage),
        "claims_draws": ranks.draws,
    }
    if top is not None:
        out["p_top"] = {str(n): float(p) for n, p in zip(label, ranks.p_top, strict=True)}
    return out
