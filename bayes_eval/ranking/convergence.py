r"""Ranking stability as trials accumulate: tau-versus-n curves and convergence@n.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
judge an evaluation metric by how fast the ranking it induces from the first ``n`` trials
agrees with a gold standard (§2.7, §3.3, Figs. 1, 2, 4, 9-11):

* **tau versus n**: Kendall's tau_b with the gold ranking, averaged over replicates;
* **convergence@n** (App. I.1): for one replicate, the smallest ``s <= N_max - 1`` such that
  the ranking after ``s`` trials equals the gold ranking and stays equal after every later
  trial up to ``N_max``; "no convergence" (coded ``-1``) when there is none.

Replicates come from independent results matrices (:func:`prefix_counts` with
``scheme="given"``) or from bootstrapping one matrix: ``"column"`` resamples trial indices
(each model its own), ``"row"`` resamples the answers of every question independently.
With ``replace=False`` the column scheme permutes the trials, so the full ``N_max`` ranking
*is* the gold standard (Bayes@N_max of the data) and convergence@n is exactly App. I.1's.

Methods are named by strings (:func:`parse_method`, below). All work is vectorised over
replicates, steps, models and questions and chunked over replicates to bound memory.

**Two scoring paths, one answer.** This module holds the plain reference path: the Pass
family's scores are sums of the float tables of :func:`score_table` (:func:`step_scores`),
compared after rounding to ``TIE_DIGITS``. :func:`stability` runs the fast path of
:mod:`bayes_eval.ranking.convergence_packed` instead whenever it is exact (bit-packed integer
tables: the same taus, matches and convergence@n, faster), and this one
otherwise. The replicates' draws are :mod:`bayes_eval.ranking.convergence_draws`, and both
paths end in the pair-counting agreement of :mod:`bayes_eval.ranking.convergence_agreement`.

**The methods** whose rankings are followed, and their scores.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.7 and Fig. 2: ``"bayes"`` (Bayes@N, the same ranking as avg@N, §2.6), ``"pass_at_k:K"``,
``"pass_hat_k:K"``, ``"g_pass_at_k_tau:K:TAU"``, ``"mg_pass_at_k:K"``. For the Pass family
each question's unbiased estimate for (s trials, c successes),
:math:`\sum_j A_j\,\mathrm{Hyp}(j; s, c, k)` with the credits :math:`A_j` of App. H eqs.
21-24, comes from a table computed once (:func:`score_table`); a step with fewer than ``k``
trials has no ranking (NaN).

**Agreement of rankings** with a gold standard: Kendall's tau_b and exact ranking match.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
App. I.1. For two score vectors over the same L items, every pair ``i < j`` is concordant
(same order in both), discordant (opposite order) or tied in either. With
:math:`n_0 = L(L-1)/2` and :math:`n_1, n_2` the pairs tied in the first and second ranking,

.. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

(Kendall, "The treatment of ties in ranking problems"; ``scipy.stats.kendalltau`` with
``variant='b'``, the paper's choice). Everything here works
on the *pair signs* :math:`\mathrm{sign}(x_i - x_j)`, vectorised over any leading axes
(replicates, steps), so that millions of rankings cost a few array operations.

Scores are compared after rounding to 12 significant digits (``TIE_DIGITS``): two models
whose scores agree that far are tied. Without this, sums of identical terms in another
order differ in the last bit and break ties at random.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import hypergeom

from bayes_eval.inputs import shown
from bayes_eval.posteriors.latent_pass import mg_credit, tau_threshold, threshold_credit
from bayes_eval.ranking import convergence_packed
from bayes_eval.ranking.convergence_agreement import _agreement, _BlockResults, _Gold
from bayes_eval.ranking.convergence_draws import _prefix_counts

__all__ = [
    "DEFAULT_METHODS",
    "TIE_DIGITS",
    "ConvergencePMF",
    "Method",
    "Stability",
    "TauInterval",
    "convergence_at_n",
    "convergence_pmf",
    "flat_index",
    "kendall_tau_b",
    "pair_signs",
    "parse_method",
    "prefix_counts",
    "random_subsets",
    "ranking_matches",
    "score_table",
    "stability",
    "step_scores",
    "tau_interval",
]

#: Hariri et al., "Don't Pass@k", Fig. 2: Bayes@N, Pass@2/4/8, Pass^k, G-Pass@k_tau
#: (tau = 0.5), mG-Pass@k. The paper does not state k for the last three; k = 4 here.
DEFAULT_METHODS = (
    "bayes",
    "pass_at_k:2",
    "pass_at_k:4",
    "pass_at_k:8",
    "pass_hat_k:4",
    "g_pass_at_k_tau:4:0.5",
    "mg_pass_at_k:4",
)


def prefix_counts(
    R: ArrayLike,
    *,
    scheme: str = "column",
    replicates: int = 1000,
    replace: bool = True,
    chunk: int = 100,
    seed: int | np.random.Generator = 0,
    totals_only: bool = False,
) -> Iterator[NDArray[np.int16]]:
    """Successes of the first s trials, per replicate, model, step and question.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(L, M, N)``, or ``(B, L, M, N)`` for ``scheme="given"``
    scheme : {"column", "row", "given"}
        Column bootstrap (resample trial indices per model), row bootstrap (resample each
        question's answers), or the given independent matrices.
    replicates : int
        Bootstrap replicates (ignored for ``"given"``).
    replace : bool
        Resample with replacement (bootstrap) or permute (``False``).
    chunk : int
        Replicates per yielded block (100 keeps a block in cache).
    seed : int or Generator
        Seed of the resampling (default 0).
    totals_only : bool
        Column scheme only: sum the questions first and yield shape ``(b, L, N, 1)``, which
        is all Bayes@N needs (same random indices, so the same replicates).

    Returns
    -------
    iterator of ndarray of int16, shape ``(b, L, N, M)``
        Blocks of replicates, drawn lazily: ``out[r, l, s - 1, alpha]`` = successes of model
        l on question alpha in its first s trials.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.2]], [[0.5]], [[0.8]]], size=(3, 10, 4))
    >>> [block.shape for block in prefix_counts(R, replicates=250, seed=0)]
    [(100, 3, 4, 10), (100, 3, 4, 10), (50, 3, 4, 10)]
    >>> next(prefix_counts(R, replicates=2, seed=0, totals_only=True))[0, :, :, 0].tolist()
    [[1, 4, 7, 10], [6, 9, 12, 15], [9, 13, 18, 22]]
    """
    return _prefix_counts(
        R,
        scheme=scheme,
        replicates=replicates,
        replace=replace,
        chunk=chunk,
        seed=seed,
        totals_only=totals_only,
    )


def _gold(gold: NDArray) -> _Gold:
    """The gold ranking as :func:`_agreement` reads it, its scores rounded to ``TIE_DIGITS``."""
    g = _round(np.asarray(gold, dtype=float))
    order = np.argsort(g, kind="stable")
    gs = g[order]
    w = np.concatenate([np.zeros(0)] + [np.sign(gs[d:] - gs[:-d]) for d in range(1, gs.size)])
    return _Gold(order, w, float(np.count_nonzero(w)))


def _tau_and_match(scores: NDArray, gold: _Gold) -> tuple[NDArray, NDArray]:
    """Kendall tau_b and exact-match flags of score vectors ``(..., L)``, by :func:`_agreement`.

    The scores are rounded to ``TIE_DIGITS`` as :func:`pair_signs` does.
    """
    x = _round(np.asarray(scores, dtype=float))
    lead, L = x.shape[:-1], x.shape[-1]
    xt = np.ascontiguousarray(x.reshape(-1, L)[:, gold.order].T)
    tau, match = _agreement(xt, gold)
    return tau.reshape(lead), match.reshape(lead)


def convergence_at_n(matches: ArrayLike) -> NDArray[np.int64]:
    """convergence@n from exact-match indicators, App. I.1.

    Parameters
    ----------
    matches : array_like of bool, shape ``(..., N_max)``
        ``matches[..., s - 1]``: the ranking after s trials equals the gold ranking.

    Returns
    -------
    ndarray of int, shape ``(...)``
        The smallest ``s <= N_max - 1`` with a match at every step from s to N_max, or ``-1``
        (no convergence).

    Examples
    --------
    >>> convergence_at_n([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 0], [1, 1, 1, 1]]).tolist()
    [2, 3, -1, 1]
    """
    m = np.asarray(matches, dtype=bool)
    n = m.shape[-1]
    suffix_all = np.flip(np.logical_and.accumulate(np.flip(m, axis=-1), axis=-1), axis=-1)
    ok = suffix_all[..., : n - 1]  # s <= N_max - 1
    first = np.argmax(ok, axis=-1)
    return np.where(ok.any(axis=-1), first + 1, -1)


class ConvergencePMF(NamedTuple):
    """Distribution of convergence@n over replicates; unpacks as ``pmf, no_convergence``.

    Attributes
    ----------
    pmf : ndarray, shape ``(n_max,)``
        ``pmf[n - 1]``: the fraction of replicates with convergence@n = n, n = 1..n_max.
    no_convergence : float
        The fraction with no convergence (coded ``-1``); ``pmf.sum() + no_convergence = 1``.

    Examples
    --------
    >>> pmf, no_convergence = convergence_pmf([1, 2, 2, -1], 4)
    >>> pmf.tolist(), no_convergence
    ([0.25, 0.5, 0.0, 0.0], 0.25)
    """

    pmf: NDArray[np.float64]
    no_convergence: float


def convergence_pmf(values: ArrayLike, n_max: int) -> ConvergencePMF:
    """PMF of convergence@n over n = 1..n_max, and the probability of no convergence.

    convergence@n is App. I.1 of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large
    Language Model Evaluation" (:func:`convergence_at_n`); the PMF is the histogram of Figs.
    9-11 there.

    Parameters
    ----------
    values : array_like of int
        convergence@n per replicate (``-1``: no convergence), any shape.
    n_max : int
        Largest number of trials.

    Returns
    -------
    ConvergencePMF
        ``(pmf, no_convergence)``.

    Examples
    --------
    >>> c = convergence_pmf([1, 2, 2, -1], 4)
    >>> c.pmf.tolist(), c.no_convergence
    ([0.25, 0.5, 0.0, 0.0], 0.25)
    """
    v = np.asarray(values).ravel()
    if v.size == 0:
        raise ValueError("no convergence@n values given.")
    counts = np.bincount(v[v > 0], minlength=n_max + 1)[1:]
    return ConvergencePMF(counts / v.size, float(np.mean(v < 0)))


@dataclass
class Stability:
    """Result of :func:`stability` for several methods.

    Attributes
    ----------
    methods : list of str
        The method names, as given (:func:`parse_method`).
    tau_mean, tau_se : ndarray, shape ``(n_methods, N)``
        Mean of Kendall tau_b over replicates at each number of trials, and its Monte Carlo
        standard error (NaN where a method is undefined, ``n < k``).
    tau : ndarray of float32, shape ``(n_methods, B, N)`` or None
        Every replicate's tau (kept when ``keep_tau``).
    convergence : ndarray of int, shape ``(n_methods, B)``
        convergence@n per replicate (``-1``: no convergence).
    worst_scores : ndarray, shape ``(n_methods, N, L)``
        Score trajectory of the worst replicate (latest convergence, or none).
    worst_replicate : ndarray of int, shape ``(n_methods,)``
        The index of that replicate, per method.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.2]], [[0.5]], [[0.8]]], size=(3, 10, 4))
    >>> st = stability(R, ["bayes", "pass_at_k:2"], replicates=50, seed=0)
    >>> st.methods, st.tau.shape, st.convergence.shape, st.worst_scores.shape
    (['bayes', 'pass_at_k:2'], (2, 50, 4), (2, 50), (2, 4, 3))
    """

    methods: list[str]
    tau_mean: NDArray[np.float64]
    tau_se: NDArray[np.float64]
    tau: NDArray[np.float32] | None
    convergence: NDArray[np.int64]
    worst_scores: NDArray[np.float64]
    worst_replicate: NDArray[np.int64]


def _worst_key(conv: NDArray, n_max: int) -> NDArray:
    return np.where(conv < 0, n_max + 1, conv)


def stability(
    R: ArrayLike,
    methods: Sequence[str] = DEFAULT_METHODS,
    gold: ArrayLike | None = None,
    *,
    scheme: str = "column",
    replicates: int = 1000,
    replace: bool = True,
    chunk: int = 100,
    seed: int | np.random.Generator = 0,
    keep_tau: bool = True,
    progress: bool = False,
) -> Stability:
    """tau-versus-n curves and convergence@n of several methods over replicates.

    Kendall's tau_b with the gold ranking at every number of trials and convergence@n per
    replicate (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation", §2.7, §3.3 and App. I.1; module docstring).

    Parameters
    ----------
    R : array_like of {0, 1}
        ``(L, M, N)`` for the bootstraps, ``(B, L, M, N)`` for ``scheme="given"``.
    methods : sequence of str
        See :func:`parse_method`; default :data:`DEFAULT_METHODS`.
    gold : array_like, shape ``(L,)``, optional
        Gold-standard scores; default Bayes@N_max of ``R`` (total successes per model,
        the same ranking as avg@N_max), as in Hariri et al., "Don't Pass@k", §2.7.
    scheme, replicates, replace, chunk, seed
        See :func:`prefix_counts`.
    keep_tau : bool
        Keep every replicate's tau (needed for bootstrap intervals of tau).
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    Stability
        Per method: the mean tau_b curve and its standard error, every replicate's tau (with
        ``keep_tau``), convergence@n per replicate and the worst replicate.

    Notes
    -----
    Bayes@N and the Pass family are scored by the fast path of
    :mod:`bayes_eval.ranking.convergence_packed`: integer tables, several methods packed to
    a 63-bit word, up to four words per look-up, so equal scores are exactly equal; when a
    run is long enough to repay them, the questions are looked up two by two, which halves
    the look-ups and the sums. A method whose credits are not small fractions falls back to
    the reference path, :func:`score_table` with scores rounded to ``TIE_DIGITS``; both give
    the same numbers. Kendall's tau and the exact match of every ranking come from the pairs
    of models in gold order (:mod:`bayes_eval.ranking.convergence_agreement`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.2]], [[0.5]], [[0.8]]], size=(3, 10, 4))
    >>> st = stability(R, ["bayes", "pass_at_k:2"], replicates=50, seed=0)
    >>> st.tau_mean.round(4).tolist()
    [[0.8769, 0.955, 0.9733, 0.983], [nan, 0.776, 0.9333, 0.8667]]
    >>> convergence_pmf(st.convergence[0], 4).pmf.tolist()
    [0.52, 0.34, 0.1, 0.0]
    """
    arr = np.asarray(R)
    if arr.size == 0 or not np.isin(arr, (0, 1)).all():
        raise ValueError("R must be a non-empty binary array (0 = fail, 1 = pass).")
    if gold is None:
        base = arr if arr.ndim == 3 else arr[0]
        gold = base.sum(axis=(1, 2)).astype(float)
    gold = np.asarray(gold, dtype=float)
    parsed = [parse_method(m) for m in methods]
    n_max = arr.shape[-1]
    if n_max < 2:
        raise ValueError(
            f"the results have {n_max} trial per question; convergence@n compares the ranking "
            "after s trials with the one after all N, for s < N: expected at least 2 trials."
        )
    total = arr.shape[0] if scheme == "given" else int(replicates)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=f"{scheme} replicates", unit="rep")
    gk = _gold(gold)
    summary = _Summary(len(parsed), n_max, gold.size, keep_tau)
    draws = dict(scheme=scheme, replicates=total, replace=replace, chunk=chunk, seed=seed)
    for tau, match, scores_of in _blocks(arr, parsed, gk, draws):
        summary.add(tau, match, scores_of)
        if bar is not None:
            bar.update(tau.shape[1])
    if bar is not None:
        bar.close()
    return summary.result([m.name for m in parsed])


def _blocks(
    arr: NDArray, parsed: Sequence[Method], gold: _Gold, draws: dict
) -> Iterator[_BlockResults]:
    """The block results of every method: the packed fast path where exact, else the reference.

    Bayes@N alone under the column scheme needs only the total successes: the reference path
    reads those (``totals_only``). The fast path (:mod:`bayes_eval.ranking.convergence_packed`)
    gives the reference's numbers; it is not taken when a method's table is not exact in
    integers (``_packed_tables`` is None).
    """
    n_max = arr.shape[-1]
    bayes_only = all(m.kind == "bayes" for m in parsed) and draws["scheme"] == "column"
    # fast path for speed: the Pass family on 10^5 replicates of 11 x 30 x 80 in seconds
    # (benchmarks/bench_convergence.py, issue 28); same numbers as _float_blocks
    packed = None if bayes_only else convergence_packed._packed_tables(parsed, n_max, arr.shape[-2])
    if packed is None:
        return _float_blocks(arr, parsed, gold, bayes_only, draws)
    return convergence_packed._packed_blocks(arr, parsed, gold, packed, draws)


class _Summary:
    """The running sums of :func:`stability` over blocks of replicates, every method at once.

    Per method and step: the sum of tau, of its square and the count of defined taus; per
    replicate convergence@n (and tau, with ``keep_tau``); per method the worst replicate
    (latest convergence, or none; the first one met on a tie) and its scores.
    """

    def __init__(self, n_methods: int, n_max: int, n_models: int, keep_tau: bool) -> None:
        self.n_max = n_max
        self.keep_tau = keep_tau
        self.sums = np.zeros((n_methods, n_max))
        self.sq = np.zeros((n_methods, n_max))
        self.cnt = np.zeros((n_methods, n_max))
        self.taus: list[NDArray] = []
        self.convs: list[NDArray] = []
        self.worst_key = np.full(n_methods, -1)
        self.worst_scores = np.full((n_methods, n_max, n_models), np.nan)
        self.worst_rep = np.zeros(n_methods, dtype=np.int64)
        self.offset = 0

    def add(self, tau: NDArray, match: NDArray, scores_of: list[Callable[[int], NDArray]]) -> None:
        """Add one block: tau and match flags ``(methods, b, N)``, the scores of replicate j."""
        good = ~np.isnan(tau)
        self.sums += np.where(good, tau, 0.0).sum(axis=1)
        self.sq += np.where(good, tau**2, 0.0).sum(axis=1)
        self.cnt += good.sum(axis=1)
        conv = convergence_at_n(match)
        self.convs.append(conv)
        if self.keep_tau:
            self.taus.append(tau.astype(np.float32))
        key = _worst_key(conv, self.n_max)
        j = np.argmax(key, axis=1)
        for i in np.flatnonzero(key[np.arange(len(key)), j] > self.worst_key):
            self.worst_key[i] = key[i, j[i]]
            self.worst_scores[i] = scores_of[i](int(j[i]))
            self.worst_rep[i] = self.offset + j[i]
        self.offset += tau.shape[1]

    def result(self, methods: list[str]) -> Stability:
        """The :class:`Stability` of the blocks added."""
        sums, sq, cnt = self.sums, self.sq, self.cnt
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = sums / cnt
            se = np.sqrt(np.maximum(sq / cnt - mean**2, 0.0) / np.maximum(cnt - 1, 1))
        return Stability(
            methods=methods,
            tau_mean=np.where(cnt > 0, mean, np.nan),
            tau_se=np.where(cnt > 1, se, np.nan),
            tau=np.concatenate(self.taus, axis=1) if self.keep_tau else None,
            convergence=np.concatenate(self.convs, axis=1),
            worst_scores=self.worst_scores,
            worst_replicate=self.worst_rep,
        )


def _float_blocks(
    arr: NDArray, parsed: Sequence[Method], gold: _Gold, bayes_only: bool, draws: dict
) -> Iterator[_BlockResults]:
    """Per block of replicates, ``_BlockResults`` from float tables: the reference path.

    It holds tau and the match flags of every method ``(methods, b, N)`` and the scores of
    replicate j ``(N, L)``: the Pass family's scores are sums of :func:`score_table` values
    (:func:`step_scores`), compared after rounding to ``TIE_DIGITS`` (:func:`_tau_and_match`).
    Plain and slow; the packed path of :mod:`bayes_eval.ranking.convergence_packed` gives the
    same numbers faster, and this one serves the methods it cannot hold exactly.
    """
    n_max = arr.shape[-1]
    tables = {m.name: score_table(m, n_max) for m in parsed if m.kind != "bayes"}
    for block in prefix_counts(arr, totals_only=bayes_only, **draws):
        flat = None if bayes_only or not tables else flat_index(block)
        tau, match = [], []
        scores_of: list[Callable[[int], NDArray]] = []
        for m in parsed:
            scores = step_scores(block, m, tables.get(m.name), flat).transpose(0, 2, 1)
            t, matched = _tau_and_match(scores, gold)  # scores: (b, N, L)
            tau.append(t)
            match.append(matched)
            scores_of.append(cast(Callable[[int], NDArray], scores.__getitem__))
        yield np.stack(tau), np.stack(match), scores_of


class TauInterval(NamedTuple):
    """Percentile bootstrap interval of Kendall's tau at each n; unpacks as ``lo, hi``.

    Attributes
    ----------
    lo, hi : ndarray, shape ``(..., N)``
        The ``(1 - confidence)/2`` and ``(1 + confidence)/2`` quantiles of the replicate taus
        (NaN where a method is undefined).

    Examples
    --------
    >>> lo, hi = tau_interval([[0.2, 1.0], [0.6, 1.0], [1.0, 1.0]], 0.5)
    >>> lo.round(4).tolist(), hi.round(4).tolist()
    ([0.4, 1.0], [0.8, 1.0])
    """

    lo: NDArray[np.float64]
    hi: NDArray[np.float64]


def tau_interval(tau: ArrayLike, confidence: float = 0.95) -> TauInterval:
    """Percentile bootstrap interval of Kendall's tau over replicates, at each n.

    Not in Hariri et al., "Don't Pass@k": it shows how far the ranking at n trials can be from
    the gold standard under resampling, next to the mean curve.

    Parameters
    ----------
    tau : array_like, shape ``(..., B, N)``
        Replicate taus (:attr:`Stability.tau`).
    confidence : float
        Central mass of the interval.

    Returns
    -------
    TauInterval
        ``(lo, hi)``, each of shape ``(..., N)``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.2]], [[0.5]], [[0.8]]], size=(3, 10, 4))
    >>> st = stability(R, ["bayes", "pass_at_k:2"], replicates=50, seed=0)
    >>> ti = tau_interval(st.tau, 0.9)
    >>> ti.lo.round(4).tolist()
    [[0.3333, 0.8165, 1.0, 1.0], [nan, 0.3333, 0.3333, 0.3333]]
    """
    import warnings

    t = np.asarray(tau, dtype=float)
    with warnings.catch_warnings():  # steps where a method is undefined are all-NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanquantile(t, 0.5 - confidence / 2, axis=-2)
        hi = np.nanquantile(t, 0.5 + confidence / 2, axis=-2)
    return TauInterval(lo, hi)


def random_subsets(
    n_models: int, size: int, count: int, *, seed: int | np.random.Generator = 0
) -> list[NDArray[np.int64]]:
    """``count`` distinct random subsets of ``size`` models.

    They are drawn as the subsets of Hariri et al., "Don't Pass@k", Fig. 4 / Tables 9-11.

    Parameters
    ----------
    n_models, size, count : int
        ``2 <= size <= n_models``; ``count`` at most the number of such subsets.
    seed : int or Generator, keyword-only
        Seed of the draws (default 0).

    Returns
    -------
    list of ndarray
        Sorted index arrays, in lexicographic order.

    Examples
    --------
    >>> [s.tolist() for s in random_subsets(5, 3, 2, seed=0)]
    [[0, 3, 4], [2, 3, 4]]
    """
    from math import comb

    if not 2 <= size <= n_models:
        raise ValueError(f"size is {size}; expected 2 <= size <= {n_models}.")
    if count > comb(n_models, size):
        raise ValueError(f"count is {count}; only {comb(n_models, size)} subsets of {size} exist.")
    rng = np.random.default_rng(seed)
    seen: set[tuple[int, ...]] = set()
    while len(seen) < count:
        seen.add(tuple(sorted(rng.choice(n_models, size=size, replace=False).tolist())))
    return [np.array(s) for s in sorted(seen)]


@dataclass(frozen=True)
class Method:
    """A parsed method name (:func:`parse_method`).

    Attributes
    ----------
    name : str
        The name as given.
    kind : {"bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k"}
    k : int
        Attempts of a Pass family metric (0 for bayes).
    tau : float
        Threshold of G-Pass@k_tau (1 otherwise).

    Examples
    --------
    >>> m = parse_method("g_pass_at_k_tau:4:0.5")
    >>> m.kind, m.k, m.tau, m.credit.tolist()
    ('g_pass_at_k_tau', 4, 0.5, [0.0, 0.0, 1.0, 1.0, 1.0])
    """

    name: str
    kind: str
    k: int = 0
    tau: float = 1.0

    @property
    def credit(self) -> NDArray[np.float64]:
        """Credit for j = 0..k successes among k attempts.

        See App. H eqs. 21-24 and :mod:`bayes_eval.metrics.passk`.
        """
        if self.kind == "pass_at_k":
            return threshold_credit(self.k, 1)
        if self.kind == "pass_hat_k":
            return threshold_credit(self.k, self.k)
        if self.kind == "g_pass_at_k_tau":
            return threshold_credit(self.k, tau_threshold(self.tau, self.k))
        if self.kind == "mg_pass_at_k":
            return mg_credit(self.k)
        raise ValueError(f"{self.name} has no credit vector")


def parse_method(name: str) -> Method:
    """Parse ``"bayes"``, ``"pass_at_k:4"``, ``"g_pass_at_k_tau:4:0.5"``, ...

    Parameters
    ----------
    name : str
        ``"bayes"``, ``"pass_at_k:K"``, ``"pass_hat_k:K"``, ``"g_pass_at_k_tau:K:TAU"``
        (0 < TAU <= 1) or ``"mg_pass_at_k:K"`` with an integer K >= 1.

    Returns
    -------
    Method
        The kind of metric, its ``k`` and ``tau``.

    Raises
    ------
    ValueError
        Any other name.

    Examples
    --------
    >>> parse_method("pass_at_k:4")
    Method(name='pass_at_k:4', kind='pass_at_k', k=4, tau=1.0)
    >>> parse_method("bayes").kind
    'bayes'
    """
    parts = name.split(":")
    kind = parts[0]
    try:
        if kind == "bayes" and len(parts) == 1:
            return Method(name, kind)
        if kind in ("pass_at_k", "pass_hat_k", "mg_pass_at_k") and len(parts) == 2:
            k = int(parts[1])
            if k >= 1:
                return Method(name, kind, k)
        if kind == "g_pass_at_k_tau" and len(parts) == 3:
            k, tau = int(parts[1]), float(parts[2])
            if k >= 1 and 0 < tau <= 1:
                return Method(name, kind, k, tau)
    except ValueError:
        pass
    raise ValueError(
        f"method {shown(name)} is not understood; expected 'bayes', 'pass_at_k:K', 'pass_hat_k:K', "
        "'g_pass_at_k_tau:K:TAU' (0 < TAU <= 1) or 'mg_pass_at_k:K' with an integer K >= 1."
    )


def score_table(method: Method, n_max: int) -> NDArray[np.float64]:
    r"""Per-question unbiased estimate for every (s trials, c successes).

    :math:`\sum_j A_j\,\mathrm{Hyp}(j; s, c, k)` with the credits :math:`A_j` of
    ``method`` (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation", App. H eqs. 21-24).

    Parameters
    ----------
    method : Method
        A Pass family method.
    n_max : int
        Largest number of trials.

    Returns
    -------
    ndarray, shape ``(n_max + 1, n_max + 1)``
        ``table[s, c]``; NaN where ``s < k`` or ``c > s``.

    Examples
    --------
    >>> score_table(parse_method("pass_at_k:2"), 3).round(4).tolist()
    [[nan, nan, nan, nan], [nan, nan, nan, nan], [0.0, 1.0, 1.0, nan], [0.0, 0.6667, 1.0, 1.0]]
    """
    table = np.full((n_max + 1, n_max + 1), np.nan)
    s = np.arange(method.k, n_max + 1)
    if s.size == 0:
        return table
    ss, cc = np.meshgrid(s, np.arange(n_max + 1), indexing="ij")
    valid = cc <= ss
    credit = method.credit
    j = np.arange(method.k + 1)
    pmf = hypergeom.pmf(j[None, :], ss[valid][:, None], cc[valid][:, None], method.k)
    values = np.full(ss.shape, np.nan)
    values[valid] = pmf @ credit
    table[method.k :] = values
    return table


def flat_index(counts: NDArray[np.int16]) -> NDArray[np.intp]:
    """Index of (s, c) into a flattened :func:`score_table`, shared by the Pass methods.

    Parameters
    ----------
    counts : ndarray of int16, shape ``(b, L, N, M)``
        Prefix successes (:func:`bayes_eval.ranking.convergence.prefix_counts`).

    Returns
    -------
    ndarray of intp, the shape of ``counts``
        ``s * (N + 1) + c`` for the c successes of the first s trials.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([1, 1, 2], dtype=np.int16).reshape(1, 1, 3, 1)
    >>> flat_index(counts).ravel().tolist()
    [5, 9, 14]
    """
    n = counts.shape[2]
    row = (np.arange(1, n + 1, dtype=np.intp) * (n + 1))[None, None, :, None]
    return counts.astype(np.intp) + row


def step_scores(
    counts: NDArray[np.int16],
    method: Method,
    table: NDArray | None = None,
    flat: NDArray[np.intp] | None = None,
) -> NDArray:
    """Scores of every model at every step.

    Bayes@N ranks by total successes (rank-equivalent to mu under the uniform prior: Hariri
    et al., "Don't Pass@k", §2.6 and eq. 19); the Pass family sums the per-question table
    values (a mean up to the factor 1/M).

    Parameters
    ----------
    counts : ndarray of int16, shape ``(b, L, N, M)``
        Prefix successes (:func:`bayes_eval.ranking.convergence.prefix_counts`).
    method : Method
        The parsed method (:func:`parse_method`).
    table, flat : ndarray, optional
        :func:`score_table` and :func:`flat_index`, when already computed.

    Returns
    -------
    ndarray, shape ``(b, L, N)``
        The score of every model after each number of trials (NaN where ``s < k``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.2]], [[0.5]], [[0.8]]], size=(3, 10, 4))
    >>> counts = next(prefix_counts(R, replicates=2, seed=0))
    >>> step_scores(counts, parse_method("bayes"))[0].tolist()
    [[1.0, 4.0, 7.0, 10.0], [6.0, 9.0, 12.0, 15.0], [9.0, 13.0, 18.0, 22.0]]
    >>> step_scores(counts, parse_method("pass_at_k:2"))[0].round(4).tolist()
    [[nan, 3.0, 3.0, 3.5], [nan, 8.0, 6.3333, 5.5], [nan, 10.0, 8.3333, 7.5]]
    """
    if method.kind == "bayes":
        return counts.sum(axis=-1, dtype=np.int64).astype(float)
    if table is None:
        table = score_table(method, counts.shape[2])
    if flat is None:
        flat = flat_index(counts)
    return np.take(table.ravel(), flat).sum(axis=-1)


TIE_DIGITS = 12


def _round(x: NDArray) -> NDArray:
    scale = np.nanmax(np.abs(x)) if np.isfinite(x).any() else 1.0
    if not np.isfinite(scale) or scale == 0:
        return x
    digits = TIE_DIGITS - int(np.floor(np.log10(scale)))
    return np.round(x, digits)


def pair_signs(scores: ArrayLike) -> NDArray[np.int8]:
    """``sign(x_i - x_j)`` for all pairs ``i < j`` of the last axis.

    The concordance of a pair is the product of its signs in two rankings (module
    docstring). NaN scores (a method undefined at this step) give sign 0 for all their pairs
    and are flagged by :func:`kendall_tau_b` as NaN.

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
        Compared after rounding to ``TIE_DIGITS`` significant digits.

    Returns
    -------
    ndarray of int8, shape ``(..., L(L-1)/2)``
        Pairs in the order of ``numpy.triu_indices(L, 1)``.

    Examples
    --------
    >>> pair_signs([0.3, 0.5, 0.5]).tolist()
    [-1, -1, 0]
    >>> pair_signs([[1, 2, 3], [3, 2, 1]]).tolist()
    [[-1, -1, -1], [1, 1, 1]]
    """
    x = _round(np.asarray(scores, dtype=float))
    i, j = np.triu_indices(x.shape[-1], k=1)
    with np.errstate(invalid="ignore"):
        return np.sign(x[..., i] - x[..., j]).astype(np.int8)


def kendall_tau_b(scores: ArrayLike, gold: ArrayLike) -> NDArray[np.float64]:
    """Kendall's tau_b between each score vector (last axis) and the gold scores.

    The formula of the module docstring (Kendall, "The treatment of ties in ranking
    problems"), as used by Hariri et al., "Don't Pass@k", App. I.1.

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
        Higher is better. Leading axes are replicates, steps, ...
    gold : array_like, shape ``(L,)``
        Gold-standard scores (ties allowed, e.g. equal true pi-bar).

    Returns
    -------
    ndarray, shape ``(...)``
        tau_b; NaN where a score vector contains NaN or is constant.

    Examples
    --------
    >>> kendall_tau_b([[1, 2, 3], [3, 2, 1], [1, 1, 2]], [1, 2, 3]).round(4).tolist()
    [1.0, -1.0, 0.8165]
    """
    scores = np.asarray(scores, dtype=float)
    gold = np.asarray(gold, dtype=float)
    if gold.ndim != 1 or scores.shape[-1] != gold.size:
        raise ValueError(
            f"gold has shape {gold.shape} and scores {scores.shape}; expected gold of shape (L,) "
            "and scores (..., L)."
        )
    if gold.size < 2:
        raise ValueError("Kendall's tau needs at least two items.")
    sg = pair_signs(gold).astype(np.int64)
    sx = pair_signs(scores)
    concordance = (sx * sg).sum(axis=-1, dtype=np.int64)
    untied_gold = np.count_nonzero(sg)
    untied_x = np.count_nonzero(sx, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt(float(untied_gold) * untied_x)
    bad = np.isnan(scores).any(axis=-1) | (untied_x == 0) | (untied_gold == 0)
    tau = np.where(bad, np.nan, tau)
    return tau


def ranking_matches(scores: ArrayLike, gold: ArrayLike) -> NDArray[np.bool_]:
    """Whether each ranking equals the gold ranking exactly.

    Every pair in the same order, ties where and only where the gold has ties: the match of
    convergence@n (Hariri et al., "Don't Pass@k", App. I.1).

    Parameters
    ----------
    scores : array_like, shape ``(..., L)``
        Score vectors, higher is better (compared after rounding to ``TIE_DIGITS``).
    gold : array_like, shape ``(L,)``
        Gold-standard scores (ties allowed).

    Returns
    -------
    ndarray of bool, shape ``(...)``
        NaN scores never match.

    Examples
    --------
    >>> import numpy as np
    >>> ranking_matches([[1, 2, 3], [1, 2, 2], [np.nan, 2, 3]], [1, 2, 3]).tolist()
    [True, False, False]
    >>> ranking_matches([1, 2, 2], [0, 5, 5]).tolist()  # ties where the gold has them
    True
    """
    scores = np.asarray(scores, dtype=float)
    sg = pair_signs(gold)
    same = (pair_signs(scores) == sg).all(axis=-1)
    return same & ~np.isnan(scores).any(axis=-1)
