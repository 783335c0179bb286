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

Methods are named by strings: ``"bayes"`` (Bayes@N, the same ranking as avg@N, §2.6),
``"pass_at_k:K"``, ``"pass_hat_k:K"``, ``"g_pass_at_k_tau:K:TAU"``, ``"mg_pass_at_k:K"``.
For the Pass family each question's unbiased estimate for (s trials, c successes) comes from
a table computed once (App. H eqs. 21-24; :mod:`bayes_eval.ranking.convergence`); a step
with fewer than ``k`` trials has no ranking (NaN). All work is vectorised over replicates,
steps, models and questions and chunked over replicates to bound memory. The tables hold
integers over a per-step scale (several methods packed into one 64-bit word, up to four
words read by one look-up), so sums over the questions are exact and equal scores tie
exactly; on long runs the questions are looked up two by two, in tables of the sum of two
questions' values indexed by the pair of counts. Ranking agreement counts the pairs of
models in gold order.

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

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import hypergeom

from bayes_eval.inputs import shown
from bayes_eval.posteriors.latent_pass import mg_credit, tau_threshold, threshold_credit

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

    Yields
    ------
    ndarray of int16, shape ``(b, L, N, M)``
        ``out[r, l, s - 1, alpha]`` = successes of model l on question alpha in its first s
        trials.

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
    rng = np.random.default_rng(seed)
    arr = np.asarray(R)
    if scheme == "given":
        if arr.ndim != 4:
            raise ValueError(f"R has shape {arr.shape}; scheme 'given' expects (B, L, M, N).")
        for start in range(0, arr.shape[0], chunk):
            block = arr[start : start + chunk].transpose(0, 1, 3, 2).astype(np.int16)
            yield np.cumsum(block, axis=2, dtype=np.int16)
        return
    if arr.ndim != 3:
        raise ValueError(f"R has shape {arr.shape}; expected (L, M, N) binary results.")
    n_models, n_q, n = arr.shape
    if scheme not in ("column", "row"):
        raise ValueError(f"scheme is {shown(scheme)}; expected 'column', 'row' or 'given'.")
    t = arr.transpose(0, 2, 1).astype(np.int8)  # (L, N, M)
    if totals_only:
        if scheme != "column":
            raise ValueError("totals_only needs the column scheme.")
        t = t.sum(axis=-1, keepdims=True, dtype=np.int16)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        if scheme == "column":
            idx = _column_draw(rng, b, n_models, n, replace)
            block = t[np.arange(n_models)[None, :, None], idx]  # (b, L, N, M)
        else:
            if replace:
                idx = rng.integers(0, n, size=(b, n_models, n, n_q))
            else:
                idx = rng.permuted(
                    np.broadcast_to(np.arange(n)[:, None], (b, n_models, n, n_q)), axis=2
                )
            block = np.take_along_axis(t[None], idx, axis=2)
        yield np.cumsum(block, axis=2, dtype=np.int16)


def _column_draw(
    rng: np.random.Generator, b: int, n_models: int, n: int, replace: bool
) -> NDArray[np.int64]:
    """Trial indices of ``b`` column-bootstrap replicates, shape ``(b, L, N)``.

    Trials are resampled with replacement, or each model's trials permuted.
    """
    if replace:
        return rng.integers(0, n, size=(b, n_models, n))
    return rng.permuted(np.broadcast_to(np.arange(n), (b, n_models, n)), axis=-1)


class _Gold(NamedTuple):
    """The gold ranking as the agreement kernel reads it.

    It holds the models sorted by their gold score (``order``), the gold sign of every pair
    ``(a, a + d)`` of sorted models, offset by offset (``w``: 1 when strictly ordered, 0 when
    tied) and the number of untied pairs.
    """

    order: NDArray[np.intp]
    w: NDArray[np.float64]
    untied: float


def _gold(gold: NDArray) -> _Gold:
    g = _round(np.asarray(gold, dtype=float))
    order = np.argsort(g, kind="stable")
    gs = g[order]
    w = np.concatenate([np.zeros(0)] + [np.sign(gs[d:] - gs[:-d]) for d in range(1, gs.size)])
    return _Gold(order, w, float(np.count_nonzero(w)))


def _agreement(xt: NDArray, gold: _Gold) -> tuple[NDArray, NDArray]:
    """Kendall tau_b with the gold ranking and exact-match flags of many rankings.

    ``xt`` holds one ranking per column, ``(L, V)``, its rows the models in gold order
    (``gold.order``). With the models sorted by gold score, the pairs ``(a, a + d)`` of
    offset ``d`` compare two row blocks, so the L(L-1)/2 pairs of every ranking are written
    as two boolean arrays (``x_{a+d} > x_a`` and ``<``) by L - 1 comparisons each (a loop
    over offsets, not over data). Counting them gives, per ranking, the untied pairs
    (``n_0 - n_2`` in the module docstring's notation) and the concordance ``n_c - n_d``
    (gold-tied pairs count for neither). A ranking matches the gold one exactly when every
    gold-untied pair is concordant and no other pair is untied:
    ``n_c - n_d = n_0 - n_1 = n_0 - n_2``. Same numbers as comparing all pair signs
    (:func:`kendall_tau_b`, :func:`ranking_matches`); NaN scores (no ranking) give NaN and
    no match.
    """
    L, V = xt.shape
    pairs = L * (L - 1) // 2
    gt = np.empty((pairs, V), dtype=bool)
    lt = np.empty((pairs, V), dtype=bool)
    o = 0
    for d in range(1, L):
        np.greater(xt[d:], xt[:-d], out=gt[o : o + L - d])
        np.less(xt[d:], xt[:-d], out=lt[o : o + L - d])
        o += L - d
    count = _pair_count if pairs < 256 else _pair_count_wide
    n_gt, n_lt = count(gt), count(lt)
    untied = n_gt + n_lt
    conc = n_gt - n_lt
    tied = gold.w == 0
    if tied.any():  # gold-tied pairs are neither concordant nor discordant
        conc = conc - count(gt[tied]) + count(lt[tied])
    nan = np.isnan(xt).any(axis=0) if xt.dtype.kind == "f" else np.zeros(V, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = conc / np.sqrt(gold.untied * untied)
    tau = np.where(nan | (untied == 0) | (gold.untied == 0), np.nan, tau)
    match = ~nan & (conc == gold.untied) & (untied == gold.untied)
    return tau, match


def _pair_count(flags: NDArray[np.bool_]) -> NDArray[np.int64]:
    """True flags per column of a ``(pairs, V)`` boolean array, ``pairs < 256``.

    The flags are summed as bytes (no cast per element), then widened.
    """
    return np.add.reduce(flags.view(np.uint8), axis=0, dtype=np.uint8).astype(np.int64)


def _pair_count_wide(flags: NDArray[np.bool_]) -> NDArray[np.int64]:
    return np.count_nonzero(flags, axis=0).astype(np.int64)


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
    Bayes@N and the Pass family are scored from integer tables (``_integer_table``,
    packed several methods to a 63-bit word, up to four words per look-up), so equal
    scores are exactly equal; when a run is long enough to repay them, the questions are
    looked up two by two (``_pair_tables``), which halves the look-ups and the sums.
    A method whose credits are not small fractions falls back to :func:`score_table` with
    scores rounded to ``TIE_DIGITS``. Kendall's tau and the exact match of every ranking
    come from the pairs of models in gold order (``_agreement``).

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
    sums = np.zeros((len(parsed), n_max))
    sq = np.zeros((len(parsed), n_max))
    cnt = np.zeros((len(parsed), n_max))
    taus: list[NDArray] = []
    convs: list[NDArray] = []
    worst_key = np.full(len(parsed), -1)
    worst_scores = np.full((len(parsed), n_max, gold.size), np.nan)
    worst_rep = np.zeros(len(parsed), dtype=np.int64)
    offset = 0
    bayes_only = all(m.kind == "bayes" for m in parsed) and scheme == "column"
    packed = None if bayes_only else _packed_tables(parsed, n_max, arr.shape[-2])
    draws = dict(scheme=scheme, replicates=total, replace=replace, chunk=chunk, seed=seed)
    if packed is None:
        blocks = _float_blocks(arr, parsed, gk, bayes_only, draws)
    else:
        blocks = _packed_blocks(arr, parsed, gk, packed, draws)
    for tau, match, scores_of in blocks:  # every method at once: (methods, b, N)
        b = tau.shape[1]
        good = ~np.isnan(tau)
        sums += np.where(good, tau, 0.0).sum(axis=1)
        sq += np.where(good, tau**2, 0.0).sum(axis=1)
        cnt += good.sum(axis=1)
        conv = convergence_at_n(match)
        convs.append(conv)
        if keep_tau:
            taus.append(tau.astype(np.float32))
        key = _worst_key(conv, n_max)
        j = np.argmax(key, axis=1)
        for i in np.flatnonzero(key[np.arange(len(parsed)), j] > worst_key):
            worst_key[i] = key[i, j[i]]
            worst_scores[i] = scores_of[i](int(j[i]))
            worst_rep[i] = offset + j[i]
        offset += b
        if bar is not None:
            bar.update(b)
    if bar is not None:
        bar.close()
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / cnt
        se = np.sqrt(np.maximum(sq / cnt - mean**2, 0.0) / np.maximum(cnt - 1, 1))
    return Stability(
        methods=[m.name for m in parsed],
        tau_mean=np.where(cnt > 0, mean, np.nan),
        tau_se=np.where(cnt > 1, se, np.nan),
        tau=np.concatenate(taus, axis=1) if keep_tau else None,
        convergence=np.concatenate(convs, axis=1),
        worst_scores=worst_scores,
        worst_replicate=worst_rep,
    )


#: Per block of b replicates: tau and the exact-match flags of every method, each
#: ``(methods, b, N)``, and per method a function giving replicate j's scores ``(N, L)``.
_BlockResults = tuple[NDArray, NDArray, list[Callable[[int], NDArray]]]


def _float_blocks(
    arr: NDArray, parsed: Sequence[Method], gold: _Gold, bayes_only: bool, draws: dict
) -> Iterator[_BlockResults]:
    """Per block of replicates, ``_BlockResults`` from float tables.

    It holds tau and the match flags of every method ``(methods, b, N)`` and the scores of
    replicate j ``(N, L)``, from float tables (:func:`score_table`) rounded to ``TIE_DIGITS``,
    for the methods :func:`_packed_tables` cannot hold exactly.
    """
    n_max = arr.shape[-1]
    tables = {m.name: score_table(m, n_max) for m in parsed if m.kind != "bayes"}
    for block in prefix_counts(arr, totals_only=bayes_only, **draws):
        flat = None if bayes_only or not tables else flat_index(block)
        tau, match, scores_of = [], [], []
        for m in parsed:
            scores = step_scores(block, m, tables.get(m.name), flat).transpose(0, 2, 1)
            t, matched = _tau_and_match(scores, gold)  # scores: (b, N, L)
            tau.append(t)
            match.append(matched)
            scores_of.append(scores.__getitem__)
        yield np.stack(tau), np.stack(match), scores_of


def _packed_block(
    trials: NDArray[np.integer],
    parsed: Sequence[Method],
    gold: _Gold,
    packed: _Packed,
    tables: list[NDArray[np.int64]],
    padded: int,
) -> _BlockResults:
    """One block of :func:`_packed_blocks` from its trials ``(N, M, L, b)``.

    The trials may instead be pair codes ``(N, ceil(M / 2), L, b)`` with the pair ``tables``;
    the models are in gold order (``gold.order``). ``padded`` questions that never succeed
    were added (an odd M in pairs): their table values at count 0 are taken off again (zero
    for Bayes@N and the Pass family, whose credit for no success is 0, but not assumed).
    """
    n_max, _, n_models, b = trials.shape
    counts = np.zeros(trials.shape[1:], dtype=np.intp)  # counts, or the pairs' table rows
    looked = [np.empty((*trials.shape[1:], table.shape[-1]), np.int64) for table in tables]
    sums = [np.empty((n_max, n_models, b, table.shape[-1]), np.int64) for table in tables]
    for s in range(n_max):  # a loop over the steps; each one is vectorised
        counts += trials[s]
        for table, rows, out in zip(tables, looked, sums, strict=True):
            np.take(table[s + 1], counts, axis=0, out=rows, mode="clip")  # c <= s: in range
            np.add.reduce(rows, axis=0, out=out[s])
    if padded:
        for group, out in zip(packed.groups, sums, strict=True):
            out -= padded * group[1:, 0, None, None, :]  # modulo 2^64, like the sums: exact
    tau = np.full((len(parsed), b, n_max), np.nan)
    match = np.zeros((len(parsed), b, n_max), dtype=bool)
    scores_of = []
    for i, m in enumerate(parsed):
        w, shift, bits = packed.word[i], packed.shift[i], packed.bits[i]
        first = max(m.k - 1, 0)  # fewer than k trials: no ranking
        # (L, N - first, b): each ranking's models side by side, as the agreement reads them
        field = sums[w // _GROUP][first:, :, :, w % _GROUP].transpose(1, 0, 2)
        # int32 where the field fits: the comparisons of the agreement read half the bytes
        x = np.empty(field.shape, dtype=np.int32 if bits < 32 else np.int64)
        top = all(packed.word[j] != w or packed.shift[j] < shift for j in range(len(parsed)))
        if shift and top:
            np.right_shift(field, shift, out=x, casting="unsafe")  # < 2^bits: no truncation
        elif not shift:
            np.bitwise_and(field, (1 << bits) - 1, out=x, casting="unsafe")
        else:  # the low 32 bits of the shifted word hold the whole field
            np.right_shift(field, shift, out=x, casting="unsafe")
            x &= (1 << bits) - 1
        agree = _agreement(x.reshape(n_models, -1), gold)  # (L, (N - first) b)
        tau[i, :, first:] = agree[0].reshape(n_max - first, b).T
        match[i, :, first:] = agree[1].reshape(n_max - first, b).T
        scale = packed.scale[i][1:, None]

        def scores(j: int, x: NDArray = x, first: int = first, scale: NDArray = scale) -> NDArray:
            out = np.full((n_max, n_models), np.nan)
            out[first:, gold.order] = x[:, :, j].T / scale[first:]
            return out

        scores_of.append(scores)
    return tau, match, scores_of


def _packed_blocks(
    arr: NDArray, parsed: Sequence[Method], gold: _Gold, packed: _Packed, draws: dict
) -> Iterator[_BlockResults]:
    """As :func:`_float_blocks`, from the packed integer tables.

    Step by step, the running counts of the questions taken two by two (one slab per step, the
    models in gold order) look up one row of up to four words per pair (:func:`_pair_tables`;
    one question at a time, ``_Packed.groups``, when the pair tables would be too large), and
    one sum over the pairs per group serves every method of its words; scores are exact
    integers over a per-step scale, so their ranking needs no rounding, and they are compared
    as integers.
    """
    n_max, n_q, n_models = arr.shape[-1], arr.shape[-2], arr.shape[-3]
    pairs = _pair_tables(packed, n_max, draws["replicates"] * n_models * n_q * n_max)
    if pairs is None:
        tables, stride, padded = packed.groups, 0, 0
    else:
        tables, stride, padded = pairs, n_max + 1, n_q % 2
    for trials in _trial_blocks(arr, models=gold.order, pair_stride=stride, **draws):
        yield _packed_block(trials, parsed, gold, packed, tables, padded)


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


def random_subsets(n_models: int, size: int, count: int, *, seed: int | np.random.Generator = 0):
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


#: Hariri et al., "Don't Pass@k", Fig. 2: Bayes@N, Pass@2/4/8, Pass^k, G-Pass@k_tau
#: (tau = 0.5), mG-Pass@k. The paper does not state k for the last three; k = 4 here.


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


def _integer_table(method: Method, n_max: int) -> tuple[NDArray[np.int64], NDArray] | None:
    r""":func:`score_table` as integers over a per-step scale, or None when not exact.

    With credits :math:`A_j = A'_j / D` (integers :math:`A'_j \ge 0`),
    :math:`T[s, c] = \sum_j A'_j \binom{c}{j}\binom{s-c}{k-j} / (D \binom{s}{k})`: the
    numerator is an integer (``table``, 0 where ``s < k`` or ``c > s``) and the
    denominator is ``scale[s]`` (NaN where ``s < k``). Bayes@N is ``table[s, c] = c`` with
    scale 1. Sums of such integers over the questions are exact in any order, so equal
    scores are equal and ties need no rounding.
    """
    s = np.arange(n_max + 1)
    ss, cc = np.meshgrid(s, s, indexing="ij")
    valid = cc <= ss
    if method.kind == "bayes":
        return np.where(valid, cc, 0).astype(np.int64), np.ones(n_max + 1)
    k = method.k
    credit = method.credit
    fracs = [Fraction(float(a)).limit_denominator(1000) for a in credit]
    den = math.lcm(*(f.denominator for f in fracs))
    a_int = np.array([int(f * den) for f in fracs], dtype=np.int64)
    if (a_int < 0).any() or not np.allclose(a_int / den, credit, rtol=0, atol=1e-12):
        return None
    if math.comb(n_max, k) * int(a_int.sum()) >= 2**52:
        return None  # the sums would not be exact as floats
    if math.comb(n_max, min(k, n_max // 2)) >= 2**62:
        return None  # an intermediate binomial would overflow
    pascal = np.zeros((n_max + 1, k + 1), dtype=np.int64)  # C(n, j), exact
    pascal[:, 0] = 1
    for j in range(1, k + 1):  # Pascal's rule, one column at a time
        pascal[1:, j] = np.cumsum(pascal[:-1, j - 1])
    fails = np.where(valid, ss - cc, 0)
    table = np.zeros(ss.shape, dtype=np.int64)
    for j in np.flatnonzero(a_int):  # the credited numbers of successes among k attempts
        table += a_int[j] * pascal[cc, j] * pascal[fails, k - j]
    table[~valid | (ss < k)] = 0
    scale = np.where(s >= k, den * pascal[s, k].astype(float), np.nan)
    return table, scale


class _Packed(NamedTuple):
    """Integer score tables of several methods packed into 63-bit words.

    ``words[w]`` is an ``(N + 1, N + 1)`` table; method ``i`` holds ``bits[i]`` bits of word
    ``word[i]`` from bit ``shift[i]`` on, and ``scale[i]`` turns its sums into scores.
    ``groups`` holds the same words side by side, up to four to a group (``words[w]`` is
    ``groups[w // 4][..., w % 4]``), each group padded with zero words to 1, 2 or 4 words:
    a row of 8, 16 or 32 bytes per count, which ``numpy.take`` copies by its fixed-size
    fast path, so one look-up per count serves up to four words.
    """

    words: list[NDArray[np.int64]]
    word: list[int]
    shift: list[int]
    bits: list[int]
    scale: list[NDArray]
    groups: list[NDArray[np.int64]]


#: Words per look-up group: 4 int64 words are a 32-byte row, the widest that ``numpy.take``
#: copies with a fixed-size move rather than ``memmove``.
_GROUP = 4


def _packed_tables(methods: Sequence[Method], n_max: int, n_questions: int) -> _Packed | None:
    """Pack the integer tables of ``methods`` (:func:`_integer_table`) into words.

    One table look-up per (replicate, model, step, question) then serves several methods: the
    sum over the questions of a word is the sum of each field, as long as no field's sum (at
    most ``n_questions`` times its largest entry) outgrows its bits. None if a table is not
    exact.
    """
    tables = [_integer_table(m, n_max) for m in methods]
    if any(t is None for t in tables):
        return None
    bits = [(int(t.max()) * n_questions).bit_length() for t, _ in tables]
    if max(bits) > 52:  # a sum must also be exact as a float
        return None
    words: list[NDArray[np.int64]] = []
    used: list[int] = []
    word, shift = [0] * len(methods), [0] * len(methods)
    for i in sorted(range(len(methods)), key=lambda i: -bits[i]):  # first fit, widest first
        w = next((j for j, u in enumerate(used) if u + bits[i] <= 63), len(words))
        if w == len(words):
            words.append(np.zeros(tables[i][0].shape, dtype=np.int64))
            used.append(0)
        words[w] += tables[i][0] << used[w]
        word[i], shift[i] = w, used[w]
        used[w] += bits[i]
    groups = []
    for start in range(0, len(words), _GROUP):
        part = words[start : start + _GROUP]
        width = 1 << (len(part) - 1).bit_length()  # 1, 2 or 4 words
        group = np.zeros((*part[0].shape, width), dtype=np.int64)
        for j, table in enumerate(part):
            group[..., j] = table
        groups.append(group)
    return _Packed(words, word, shift, bits, [scale for _, scale in tables], groups)


#: Largest size of the pair tables (:func:`_pair_tables`), bytes: 17 MB at 80 trials.
_PAIR_BYTES = 32 * 2**20
#: Pair tables are built when the look-ups of a run (replicates x models x questions x
#: steps) are at least this many times their entries (2.1 million at 80 trials): they break
#: even near 4 look-ups per entry (``benchmarks/README.md``).
_PAIR_PAYBACK = 6


def _pair_tables(packed: _Packed, n_max: int, lookups: int) -> list[NDArray[np.int64]] | None:
    """The look-up groups of ``packed`` for two questions at once.

    The table is ``table[s, c1 * (N + 1) + c2] = group[s, c1] + group[s, c2]``, shape
    ``(N + 1, (N + 1)^2, words)``; None when it would outgrow ``_PAIR_BYTES`` or a run of
    ``lookups`` would not repay it (``_PAIR_PAYBACK``). One look-up and one row of the sum over
    questions per pair halve the work per step; the words are added modulo 2^64, so the sums
    over the questions are the exact ones whenever those fit (:func:`_packed_tables`).
    """
    stride = n_max + 1
    entries = sum(stride**3 * group.shape[-1] for group in packed.groups)
    if entries * 8 > _PAIR_BYTES or lookups < _PAIR_PAYBACK * entries:
        return None
    return [
        (group[:, :, None, :] + group[:, None, :, :]).reshape(stride, stride**2, -1)
        for group in packed.groups
    ]


def _trial_blocks(
    arr: NDArray,
    *,
    scheme: str,
    replicates: int,
    replace: bool,
    chunk: int,
    seed: int | np.random.Generator,
    models: NDArray[np.intp] | None = None,
    pair_stride: int = 0,
) -> Iterator[NDArray[np.integer]]:
    """The replicates of :func:`prefix_counts` (the same random draws), trial by trial.

    ``out[s - 1, alpha, l, r]`` is the result (0/1) of the s-th trial of model l on
    question alpha in replicate r, shape ``(N, M, L, b)`` (steps first: the running counts
    of a step are one contiguous slab). ``models`` (an order of the models) lists the
    models along ``l`` in that order; each model keeps its own draws. With
    ``pair_stride``, the questions come two by two (:func:`_pair_codes`): shape
    ``(N, ceil(M / 2), L, b)``.
    """
    if scheme != "column":
        for block in prefix_counts(
            arr, scheme=scheme, replicates=replicates, replace=replace, chunk=chunk, seed=seed
        ):
            if models is not None:
                block = block[:, models]
            trials = np.diff(block, axis=2, prepend=0).astype(np.int8).transpose(2, 3, 1, 0)
            if pair_stride:
                trials = _pair_codes(trials, pair_stride, axis=1)
            yield np.ascontiguousarray(trials)
        return
    if arr.ndim != 3:
        raise ValueError(f"R has shape {arr.shape}; expected (L, M, N) binary results.")
    rng = np.random.default_rng(seed)
    n_models, n_q, n = arr.shape
    # (M, L * N): question rows, each model's trials side by side
    xq = np.ascontiguousarray(arr.transpose(1, 0, 2), dtype=np.int8).reshape(n_q, -1)
    if pair_stride:
        xq = _pair_codes(xq, pair_stride, axis=0)
    first = (np.arange(n_models, dtype=np.intp) * n)[None, :, None]
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        idx = _column_draw(rng, b, n_models, n, replace) + first  # (b, L, N)
        if models is not None:
            idx = idx[:, models]
        yield np.take(xq, idx.transpose(2, 1, 0), axis=1).transpose(1, 0, 2, 3)


def _pair_codes(x: NDArray, stride: int, axis: int) -> NDArray[np.integer]:
    """Two questions' results (0/1) in one number: ``x[2i] * stride + x[2i + 1]`` along ``axis``.

    A question that never succeeds is appended when their number is odd; the codes are int8
    when it holds them. Summed over trials, a code is ``c_{2i} * stride + c_{2i + 1}``: the row
    of the pair's counts in a :func:`_pair_tables` table.
    """
    x = np.moveaxis(x, axis, 0)
    if x.shape[0] % 2:
        x = np.concatenate([x, np.zeros_like(x[:1])])
    dtype = np.int8 if stride + 1 <= np.iinfo(np.int8).max else np.int16
    codes = x[0::2].astype(dtype) * dtype(stride) + x[1::2].astype(dtype)
    return np.ascontiguousarray(np.moveaxis(codes, 0, axis))


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
