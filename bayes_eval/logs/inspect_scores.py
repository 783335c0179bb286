r"""Per-epoch Inspect AI scores as Bayes@N results (the computation behind the Inspect metric).

An Inspect AI evaluation run with ``--epochs N`` scores every sample N times. This module
turns those scores, one ``(sample id, value)`` pair per sample and epoch, into the results
matrix of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation" (§2.2): questions are the sample ids, trials are the epochs, and asks the
posterior for Bayes@N, :math:`\mu = E[\bar\pi \mid R]` with
:math:`\bar\pi = \frac1M \sum_\alpha w \cdot \pi_\alpha`, its sd and a central credible
interval (:func:`bayes_eval.metrics.bayes.bayes_ci`). It needs neither Inspect nor pandas;
:mod:`bayes_eval.logs.inspect_metric` wraps it as an Inspect metric.

**Values.** A score value becomes a number in ``[0, 1]`` as Inspect's ``value_to_float``
does it: the letters C (correct) 1, P (partial) 0.5, I (incorrect) and N (no answer) 0,
booleans, ``"yes"``/``"true"`` 1, ``"no"``/``"false"`` 0, numbers and numeric strings as they
are; any other string, a list, a dict or a number outside ``[0, 1]`` is refused (Inspect
would log a warning and count it 0). NaN, Inspect's unscored sentinel, is a missing trial.

**Categories and weights.** If every value lies on the grid :math:`k/(K-1)` of some
:math:`K \le 5` (the smallest such K is used: K = 2 for 0/1 or C/I scores, K = 3 when a P
or a 0.5 occurs, K = 5 for quarters), the values are categories ``0..K-1`` with weights
:math:`w_k = k/(K-1)`, so the weighted score is the value itself and C/P/I scores get
Inspect's weights (0, 0.5, 1): the same categories and weights as the log reader
(:mod:`bayes_eval.logs.inspect_ai`) gives the log. (Finer grids are graded: a Dirichlet
over many categories needs many epochs per sample, and the learned prior's quadrature grows
with the number of categories.) ``levels=K`` rounds to K levels instead
(:func:`bayes_eval.inputs.score_levels`). Values on no such grid are graded scores: each
adds ``s`` to the correct and ``1 - s`` to the wrong count (``fractional=True``, a
quasi-likelihood).

**Missing epochs.** A sample with fewer scored epochs than another has fewer trials
(per-question :math:`T_\alpha`); a sample with no scored epoch is not among the questions.
The estimand is *these questions*: the mean over the questions that were run, with the
uncertainty of a finite number of epochs on each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import graded_values, score_levels, shown
from bayes_eval.logs.inspect_ai import LETTER_VALUES
from bayes_eval.metrics.bayes import BayesCIResult, bayes_ci, prior_of
from bayes_eval.posteriors.posterior import Interval, check_interval
from bayes_eval.posteriors.priors import Pool, Prior, PriorSpec

__all__ = [
    "ESTIMAND",
    "MAX_GRID_LEVELS",
    "EpochResults",
    "epoch_bayes_ci",
    "epoch_results",
    "score_value",
]

#: The estimand of Bayes@N (Hariri et al., §2.2): the mean score on the questions that were run.
ESTIMAND = "these questions"
#: The largest number of evenly spaced levels read as categories; finer scores are graded.
MAX_GRID_LEVELS = 5
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_GRID_TOL = 1e-9


class EpochResults(NamedTuple):
    """Per-epoch scores as a results matrix.

    Attributes
    ----------
    questions : ndarray of str, shape ``(M,)``
        The sample ids (as text, sorted), one row each.
    R : ndarray, shape ``(M, N)``
        Category labels ``0..K-1`` (int) or, when ``fractional``, graded scores in ``[0, 1]``
        (float, NaN for a missing trial); N is the largest number of scored epochs.
    w : ndarray or None
        The weights :math:`k/(K-1)` of the categories; None when ``fractional``.
    mask : ndarray of bool or None
        ``True`` where a question has fewer scored epochs than N; None when none is missing.
    fractional : bool
        Whether ``R`` holds graded scores (each adds ``s`` and ``1 - s`` to the counts).

    Examples
    --------
    >>> from bayes_eval.logs.inspect_scores import epoch_results
    >>> found = epoch_results(["a", "a", "b"], [0.3, 0.7, 0.9])  # graded: on no grid
    >>> found.questions.tolist(), found.R.tolist(), found.w, found.fractional
    (['a', 'b'], [[0.3, 0.7], [0.9, nan]], None, True)
    >>> found.mask.tolist()  # sample b has one scored epoch of two
    [[False, False], [False, True]]
    """

    questions: NDArray[np.str_]
    R: NDArray
    w: NDArray[np.float64] | None
    mask: NDArray[np.bool_] | None
    fractional: bool


def score_value(value: object) -> float:
    """One Inspect score value as a number (module docstring: Values); NaN stays NaN.

    Parameters
    ----------
    value : object
        A score's value: a letter C/P/I/N, ``"yes"``/``"no"``/``"true"``/``"false"``, a
        boolean, a number or a numeric string.

    Returns
    -------
    float
        The value as a number (not checked to lie in ``[0, 1]``: :func:`epoch_results` does).

    Raises
    ------
    ValueError
        For a string that is no letter, yes/no/true/false or number, a list, a dict, or
        another type.

    Examples
    --------
    >>> from bayes_eval.logs.inspect_scores import score_value
    >>> score_value("C"), score_value("P"), score_value(False), score_value("0.25")
    (1.0, 0.5, 0.0, 0.25)
    """
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.upper() in LETTER_VALUES:
            return LETTER_VALUES[text.upper()]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            return float(text)
        except ValueError:
            pass
        raise ValueError(
            f"score value {shown(value)} is not C/P/I/N, yes/no, true/false or a number; "
            "expected a scalar score (or pass to_float=...)."
        )
    hint = (
        " (a scorer with dict values takes this metric per key: metrics={key: [bayes_at_n()]})"
        if isinstance(value, dict)
        else ""
    )
    raise ValueError(
        f"score value {shown(value)} is a {type(value).__name__}; expected a number, a boolean "
        f"or C/P/I/N{hint}."
    )


def _grid_levels(values: NDArray[np.float64]) -> int | None:
    """The smallest K <= MAX_GRID_LEVELS with every value on ``k/(K-1)``, or None."""
    distinct = np.unique(values)
    steps = np.arange(1, MAX_GRID_LEVELS)
    scaled = distinct[:, None] * steps  # (values, steps)
    on_grid = np.all(np.abs(scaled - np.round(scaled)) <= _GRID_TOL, axis=0)
    return int(steps[np.argmax(on_grid)]) + 1 if on_grid.any() else None


def epoch_results(
    sample_ids: Sequence[object],
    values: ArrayLike,
    *,
    levels: int | None = None,
) -> EpochResults:
    """Arrange per-epoch scores as questions x trials (module docstring).

    Parameters
    ----------
    sample_ids : sequence of str or int, length n
        The sample of each score (one entry per sample and epoch; the order is free).
    values : array_like of float, shape ``(n,)``
        The score values as numbers in ``[0, 1]`` (:func:`score_value`); NaN = not scored.
    levels : int, optional
        K >= 2: round the values to K evenly spaced levels. Default: the smallest grid of at
        most :data:`MAX_GRID_LEVELS` levels that holds every value exactly, else graded.

    Returns
    -------
    EpochResults
        The sample ids, the results ``(M, N)``, the weights, the mask of missing epochs and
        whether the scores are graded.

    Raises
    ------
    ValueError
        For lengths that differ, a value outside ``[0, 1]``, or no scored value at all.

    Examples
    --------
    >>> from bayes_eval.logs.inspect_scores import epoch_results, score_value
    >>> values = [score_value(v) for v in ["C", "C", "I", "I", "P", "C"]]  # C/P/I: 3 levels
    >>> found = epoch_results([1, 1, 1, 2, 2, 2], values)
    >>> found.questions.tolist(), found.R.tolist(), found.w.tolist(), found.mask
    (['1', '2'], [[2, 2, 0], [0, 1, 2]], [0.0, 0.5, 1.0], None)
    """
    ids = np.array([str(i) for i in sample_ids], dtype=str)
    v = graded_values(values, name="score values").ravel()
    if ids.shape != v.shape:
        raise ValueError(
            f"{ids.size} sample ids and {v.size} score values; expected one id per value."
        )
    keep = ~np.isnan(v)
    if not keep.any():
        raise ValueError("no scored epoch (every value is NaN or there are none).")
    ids, v = ids[keep], v[keep]
    questions, q = np.unique(ids, return_inverse=True)
    counts = np.bincount(q)
    order = np.argsort(q, kind="stable")
    starts = np.cumsum(counts) - counts
    trial = np.empty_like(q)
    trial[order] = np.arange(q.size) - starts[q[order]]
    shape = (questions.size, int(counts.max()))
    observed = np.zeros(shape, dtype=bool)
    observed[q, trial] = True
    mask = None if observed.all() else ~observed
    if levels is not None:
        scaled = score_levels(v, levels)
        labels, w = scaled.R.astype(np.int64), scaled.w
    else:
        k = _grid_levels(v)
        if k is None:
            R = np.full(shape, np.nan)
            R[q, trial] = v
            return EpochResults(questions, R, None, mask, True)
        labels, w = np.round(v * (k - 1)).astype(np.int64), np.linspace(0.0, 1.0, k)
    R = np.zeros(shape, dtype=np.int64)
    R[q, trial] = labels
    return EpochResults(questions, R, w, mask, False)


def epoch_bayes_ci(
    sample_ids: Sequence[object],
    values: Sequence[object] | ArrayLike,
    *,
    prior: PriorSpec | Prior = "empirical",
    pool: Pool | None = None,
    confidence: float = 0.95,
    interval: Interval = "auto",
    bounds: tuple[float, float] | Literal["support"] | None = "support",
    levels: int | None = None,
    to_float: Callable[[Any], float] | None = None,
) -> BayesCIResult:
    r"""Bayes@N and its credible interval from per-epoch scores.

    It applies :func:`epoch_results`, then :func:`~bayes_eval.metrics.bayes.bayes_ci` (Hariri
    et al., "Don't Pass@k", §2.2-2.5).

    Parameters
    ----------
    sample_ids : sequence of str or int
        The sample of each score, one entry per sample and epoch.
    values : sequence
        The score values (letters, booleans, numbers): :func:`score_value`, or ``to_float``.
    prior : str, float or array_like
        As in :func:`bayes_eval.bayes`; default ``"empirical"``, the learned prior the
        command line uses (on one model it is learned from the model's own questions).
    pool : {"board", "model", "benchmark"}, optional
        As in :func:`bayes_eval.bayes`.
    confidence : float
        Credibility level in ``(0, 1)``.
    interval : {"auto", "normal", "exact"}
        ``"auto"`` (default, as everywhere in the package): the posterior's own law, exact
        near 0 or 1 and normal elsewhere; ``"normal"``: ``mu -/+ z sigma``; ``"exact"``: the
        equal-tailed interval of the exact posterior (fast for binary scores; seconds or more
        for three or more categories under the learned prior).
    bounds : (float, float), "support" or None
        Clip the interval into ``[lo, hi]``; ``"support"`` (default here) into
        ``[min w, max w]`` = ``[0, 1]``, which the normal interval can cross with a few
        questions; None: no clipping (scorio's and :func:`bayes_ci`'s default).
    levels : int, optional
        As in :func:`epoch_results`.
    to_float : callable, optional
        Value -> number, e.g. Inspect's ``value_to_float(correct=...)``; default
        :func:`score_value`.

    Returns
    -------
    BayesCIResult
        ``(mu, sigma, lo, hi)`` of :math:`\bar\pi` on these questions.

    Examples
    --------
    >>> from bayes_eval.logs.inspect_scores import epoch_bayes_ci
    >>> ids = [0, 0, 0, 1, 1, 1, 2, 2, 2]  # three samples, three epochs each
    >>> values = ["C", "C", "I", "I", "P", "C", "C", "C", "C"]
    >>> [round(float(x), 4) for x in epoch_bayes_ci(ids, values, prior="uniform")]
    [0.6111, 0.0903, 0.4277, 0.7798]
    """
    convert = score_value if to_float is None else to_float
    numbers = np.array([convert(x) for x in cast(Iterable[object], values)], dtype=np.float64)
    spec = prior_of(prior, pool=pool)
    found = epoch_results(sample_ids, numbers, levels=levels)
    return bayes_ci(
        found.R,
        found.w,
        prior=spec,
        confidence=confidence,
        interval=cast(Interval, check_interval(interval)),
        bounds=bounds,
        mask=found.mask,
        fractional=found.fractional,
    )
