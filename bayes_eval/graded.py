r"""Graded scores in ``[0, 1]``: two treatments for the categorical closed form.

The Bayes@N posterior (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
Model Evaluation", §2.2-2.4) is built for a few outcome *categories*. A graded score (a
partial-credit grade, a judge's 0-1 score, a BLEU-like value) is not a category: treating its
386 distinct values as 386 categories would give every question a Dirichlet prior with 386
pseudo-counts under the uniform prior, and its single real answer would be swamped. A graded
score therefore needs a stated treatment:

**K levels** (:func:`score_levels`). Round every score to the nearest of K evenly spaced
levels :math:`0, \tfrac1{K-1}, \dots, 1`; the levels are the categories and their values the
rubric weights :math:`w_k = k/(K-1)`. Exact when the scores live on that grid (a 5-point
rubric, K = 5); otherwise the rounding moves a score by at most :math:`\tfrac1{2(K-1)}`, and
the Dirichlet prior over K categories still adds K pseudo-counts per question (use few levels,
or the learned prior, which estimates how concentrated the questions are).

**Fractional counts** (:func:`fractional_tally`). A score :math:`s` adds :math:`s` to the
count of the correct category and :math:`1 - s` to the wrong one, so question
:math:`\alpha` gets the binary posterior
:math:`\mathrm{Beta}(a_1 + \sum_i s_{\alpha i},\ a_0 + \sum_i (1 - s_{\alpha i}))`. This is the
quasi-likelihood of Wedderburn ("Quasi-likelihood functions, generalized linear models, and
the Gauss-Newton method", 1974) for a mean :math:`p_\alpha = E[s]` with the Bernoulli
variance function :math:`p(1 - p)`: the posterior mean of each question's expected score is
right, and its spread is that of a Bernoulli answer of the same mean, which is an upper bound
on the variance of any score in ``[0, 1]`` with that mean (:math:`s^2 \le s`), so intervals are
conservative when graded scores vary less than all-or-nothing ones.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import Tally, shown

__all__ = ["LevelScores", "fractional_tally", "graded_values", "score_levels"]


class LevelScores(NamedTuple):
    """Graded scores rounded to K levels (:func:`score_levels`).

    Attributes
    ----------
    R : ndarray of float, shape of the scores
        Level index ``0..K-1`` per trial (NaN where the score was NaN).
    w : ndarray, shape ``(K,)``
        The level values ``k / (K - 1)``: the rubric weights.
    max_shift : float
        The largest distance between a score and its level (0 on the grid).
    """

    R: NDArray[np.float64]
    w: NDArray[np.float64]
    max_shift: float


def graded_values(scores: ArrayLike, *, name: str = "scores") -> NDArray[np.float64]:
    """``scores`` as floats, checked to lie in ``[0, 1]`` where not NaN (NaN = no trial).

    Raises
    ------
    ValueError
        For non-numeric input, an infinite value or a value outside ``[0, 1]`` (naming its
        index).
    """
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} are not numbers; expected graded scores in [0, 1].") from None
    seen = ~np.isnan(arr)
    bad = seen & ~((arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} contain {shown(float(arr[idx]))} at index {idx}; expected graded scores in "
            "[0, 1] (NaN for a missing trial)."
        )
    return arr


def score_levels(scores: ArrayLike, levels: int) -> LevelScores:
    r"""Round graded scores to ``levels`` evenly spaced levels (module docstring).

    Parameters
    ----------
    scores : array_like of float
        Scores in ``[0, 1]``, NaN for a missing trial; any shape, e.g. ``(L, M, N)``.
    levels : int
        K >= 2: the levels are :math:`k/(K-1)`, :math:`k = 0, \dots, K-1`.

    Returns
    -------
    LevelScores
        ``(R, w, max_shift)``: level indices (categories for :func:`bayes_eval.bayes`), the
        level values as weights, and the largest rounding shift.

    Examples
    --------
    >>> R, w, shift = score_levels([[0.0, 0.26, 1.0]], 5)
    >>> R.tolist(), w.tolist(), round(shift, 2)
    ([[0.0, 1.0, 4.0]], [0.0, 0.25, 0.5, 0.75, 1.0], 0.01)
    """
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 2:
        raise ValueError(f"levels is {shown(levels)}; expected an integer K >= 2.")
    arr = graded_values(scores)
    step = int(levels) - 1
    R = np.round(arr * step)  # NaN stays NaN
    shift = np.abs(arr - R / step)
    max_shift = float(np.nanmax(shift)) if (~np.isnan(arr)).any() else 0.0
    return LevelScores(R, np.linspace(0.0, 1.0, int(levels)), max_shift)


def fractional_tally(scores: ArrayLike, *, mask: ArrayLike | None = None, name: str = "R") -> Tally:
    r"""Fractional counts of graded scores: ``counts[..., 1] = sum s``, ``counts[..., 0] =
    sum (1 - s)`` over the observed trials (module docstring).

    Parameters
    ----------
    scores : array_like of float, shape ``(M, N)`` or ``(L, M, N)``
        Scores in ``[0, 1]``; NaN or ``mask`` marks a missing trial.
    mask : array_like of bool, optional
        ``True`` where a trial is missing.

    Returns
    -------
    Tally
        Float counts of shape ``(..., M, 2)`` and the observed trials per question.

    Raises
    ------
    ValueError
        For a score outside ``[0, 1]``, a wrong shape or a mask of another shape.
    """
    if isinstance(scores, np.ma.MaskedArray):
        extra = np.ma.getmaskarray(scores)
        scores = np.ma.getdata(scores)
        mask = extra if mask is None else (np.asarray(mask, dtype=bool) | extra)
    arr = graded_values(scores, name=name)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim not in (2, 3) or 0 in arr.shape:
        raise ValueError(
            f"{name} has shape {arr.shape}; expected a non-empty (M, N) or (L, M, N) array."
        )
    missing = np.isnan(arr)
    if mask is not None:
        m = np.asarray(mask)
        if m.dtype != np.bool_ or m.shape != arr.shape:
            raise ValueError(
                f"mask has shape {m.shape} and dtype {m.dtype}; expected a boolean array of "
                f"shape {arr.shape} (True = missing)."
            )
        missing = missing | m
    observed = ~missing
    n_trials = observed.sum(axis=-1, dtype=np.int64)
    counts = np.empty((*n_trials.shape, 2))  # filled in place: no copy of the scores
    np.add.reduce(arr, axis=-1, where=observed, initial=0.0, out=counts[..., 1])
    np.subtract(n_trials, counts[..., 1], out=counts[..., 0])
    return Tally(counts, n_trials, 2, arr.ndim == 3)  # type: ignore[arg-type]
