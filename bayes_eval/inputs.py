r"""Validation of user inputs and the counts every estimator starts from.

The counts: the category tally, the treatments of graded scores, and the distinct count
vectors that compress them.

Every public estimator funnels its arguments through this module, so a bad input gets one
clear ``ValueError`` naming the argument, what was found and what was expected. Nothing the
caller passed is modified: arrays are read, never written.

The tally is the only pass over the raw results: for each (model, question) it counts how
many observed trials fell into each category (Algorithm 1 of Hariri et al., the loop over
``n_{alpha k}``). Missing trials are supported through a boolean mask (``True`` = missing)
or a ``numpy.ma.MaskedArray``; each question then has its own trial count ``N_alpha``.

**Graded scores** in ``[0, 1]``: two treatments for the categorical closed form. The Bayes@N
posterior (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
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

**Distinct count vectors** (:func:`unique_rows`, ``distinct_states``): the closed form's
moments and the learned prior's fit depend on a question only through its count vector, so
large leaderboards are computed once per distinct vector, weighted by how often it occurs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sized
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BINARY_HINT",
    "GRADE_DF_MIN",
    "GRADE_TRIALS_MAX",
    "MEMORY_LIMIT",
    "WEIGHT_LIMIT",
    "LevelScores",
    "Tally",
    "check_alpha0",
    "check_beta_prior",
    "check_bounds",
    "check_confidence",
    "check_k",
    "check_memory",
    "check_tau",
    "exact",
    "fractional_tally",
    "grade_trials",
    "graded_values",
    "labels",
    "levels_bytes",
    "one_dimensional",
    "percent",
    "score_levels",
    "shown",
    "tally",
    "unique_rows",
]


def exact(x: float) -> str:
    """A number as short as it can be written and still be the same float.

    ``0``, ``0.5``, ``1e-06``, but ``1.0000000000000002`` (where ``:g`` would say ``1`` and
    hide why it was refused).

    Parameters
    ----------
    x : float
        The number, as given in a message.

    Returns
    -------
    str
        ``x`` formatted with ``:g`` when that reads back as the same float, else its
        ``repr`` (``str(x)`` for a value that is not a number).

    Examples
    --------
    >>> from bayes_eval.inputs import exact
    >>> exact(0.5), exact(1e-6), exact(1 + 2**-52)
    ('0.5', '1e-06', '1.0000000000000002')
    """
    short = f"{x:g}"
    try:
        return short if float(short) == x else repr(float(x))
    except (TypeError, ValueError):
        return str(x)


def percent(level: float) -> str:
    """A credible level as a percentage, to ten significant digits: ``95%``, ``99.99999%``.

    ``100%`` for a level below 1 only when it is within about ``5e-11`` of 1.

    Parameters
    ----------
    level : float
        The level, e.g. ``0.95``.

    Returns
    -------
    str
        ``100 * level`` to ten significant digits, followed by ``%``.

    Examples
    --------
    >>> from bayes_eval.inputs import percent
    >>> percent(0.95), percent(0.9999999)
    ('95%', '99.99999%')
    """
    return f"{100 * float(level):.10g}%"


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a value as the user wrote it, for messages.

    Numpy scalars and small arrays as plain Python values (``1.5``, not ``np.float64(1.5)``),
    on one line and at most about ``limit`` characters.

    Parameters
    ----------
    value : object
        The value to show.
    limit : int, optional
        The longest text, default 60; a longer one is cut and ends with ``...``.

    Returns
    -------
    str
        The ``repr`` on one line, at most ``limit`` characters.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import shown
    >>> shown(np.float64(1.5)), shown(np.array([1, 2]))
    ('1.5', '[1, 2]')
    >>> shown(list(range(100)), limit=20)
    '[0, 1, 2, 3, 4, 5...'
    """
    if isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, np.ndarray) and value.size <= 20:
        value = value.tolist()
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The largest memory (bytes) one request may need: a request estimated above it is refused
#: before anything is allocated (:func:`check_memory`), naming the size that asks for it.
MEMORY_LIMIT = 4 * 2**30


def _gib(nbytes: float) -> str:
    """``nbytes`` in the largest unit below it (``7.3 TiB``, ``512 MiB``)."""
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def check_memory(nbytes: float, what: str, expected: str, *, limit: float | None = None) -> None:
    """Refuse a request estimated to need more than ``limit`` bytes, before any allocation.

    ``limit`` defaults to :data:`MEMORY_LIMIT`; nothing is allocated before the check.

    Parameters
    ----------
    nbytes : float
        The estimate (a float: it may exceed any integer type).
    what : str
        The request as the user wrote it, e.g. ``"--score-levels 1000000"``.
    expected : str
        What to do instead, e.g. ``"fewer levels"``.
    limit : float, optional
        The largest size allowed, in bytes; default :data:`MEMORY_LIMIT` (4 GiB).

    Raises
    ------
    ValueError
        ``"<what> needs about 7.3 TiB of memory, above the limit of 4 GiB; expected
        <expected>."``

    Examples
    --------
    >>> from bayes_eval.inputs import check_memory
    >>> check_memory(2**20, "--score-levels 5", "fewer levels")  # 1 MiB: accepted
    >>> try:
    ...     check_memory(8 * 2**40, "--score-levels 1000000", "fewer levels")
    ... except ValueError as exc:
    ...     print(exc)
    --score-levels 1000000 needs about 8 TiB of memory, above the limit of 4 GiB; expected
    fewer levels.
    """
    limit = MEMORY_LIMIT if limit is None else limit
    if not nbytes <= limit:
        raise ValueError(
            f"{what} needs about {_gib(nbytes)} of memory, above the limit of {_gib(limit)}; "
            f"expected {expected}."
        )


#: Rows per block in the blocked counting kernel: 512 rows x 1000 trials of int8 = 0.5 MB,
#: which stays in L2 cache together with the boolean scratch array.
_BLOCK_ROWS = 512


def _as_array(values: ArrayLike, name: str) -> np.ndarray:
    """``np.asarray`` with a clear message for ragged or non-numeric input."""
    if isinstance(values, np.ndarray):
        return values
    try:
        return np.asarray(values)
    except ValueError as exc:  # ragged nested sequences in numpy >= 1.24
        lengths = _row_lengths(values)
        detail = f" (row lengths {lengths})" if lengths else ""
        raise ValueError(
            f"{name} has ragged rows{detail}; expected a rectangular array where every question "
            "has the same number of trials. Mark missing trials with a mask "
            "(mask=... or numpy.ma.masked_array) instead of dropping them."
        ) from exc


def _row_lengths(values: object) -> str:
    try:
        lengths = [len(row) for row in cast("Iterable[Sized]", values)]
    except TypeError:
        return ""
    shown = ", ".join(map(str, lengths[:8]))
    return shown + (", ..." if len(lengths) > 8 else "")


def _first_index(flags: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(flags)[0])


@dataclass(frozen=True, slots=True)
class Tally:
    """Category counts of a results array.

    Attributes
    ----------
    counts : ndarray of int64, shape ``(..., M, C + 1)``
        ``counts[..., alpha, k]`` is the number of observed trials of question ``alpha`` in
        category ``k`` (``n_{alpha k}`` in Algorithm 1).
    n_trials : ndarray of int64, shape ``(..., M)``
        Observed trials per question, ``N_alpha`` (equal to ``N`` when nothing is masked).
    n_categories : int
        ``C + 1``.
    batched : bool
        Whether the input had a leading model axis ``L``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import tally
    >>> t, w = tally(np.array([[0, 1, 2, 2], [1, 1, 0, 2]]), w=[0, 0.5, 1])
    >>> t.counts.tolist(), t.n_trials.tolist(), t.n_categories, t.batched
    ([[1, 1, 2], [1, 2, 1]], [4, 4], 3, False)
    """

    counts: NDArray[np.int64]
    n_trials: NDArray[np.int64]
    n_categories: int
    batched: bool


def one_dimensional(name: str, shape: tuple[int, ...]) -> str:
    """The message for a 1-D array of results.

    Which of the two readings is meant is not ours to guess.

    Parameters
    ----------
    name : str
        The argument's name, e.g. ``"R"``.
    shape : tuple of int
        Its shape, ``(n,)``.

    Returns
    -------
    str
        The message, offering both reshapes.

    Examples
    --------
    >>> from bayes_eval.inputs import one_dimensional
    >>> print(one_dimensional("R", (5,)))
    R has shape (5,) (one dimension); expected (M, N) questions x trials or (L, M, N). For one
    question of 5 trials pass R.reshape(1, -1); for 5 questions of one trial each,
    R.reshape(-1, 1).
    """
    return (
        f"{name} has shape {shape} (one dimension); expected (M, N) questions x trials or "
        f"(L, M, N). For one question of {shape[0]} trials pass {name}.reshape(1, -1); for "
        f"{shape[0]} questions of one trial each, {name}.reshape(-1, 1)."
    )


def _validated_results(  # noqa: C901 - one check per way results can be malformed, each with its message
    R: ArrayLike, *, name: str, mask: ArrayLike | None, allow_empty_trials: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Return ``(values, missing)``: an integer array and a boolean mask or ``None``."""
    if R is None:
        raise ValueError(f"{name} is None; expected an array of shape (M, N) or (L, M, N).")
    missing = None
    if isinstance(R, np.ma.MaskedArray):
        missing = np.ma.getmaskarray(R)
        R = np.ma.getdata(R)
    arr = _as_array(R, name)
    if arr.ndim == 1:
        raise ValueError(one_dimensional(name, arr.shape))
    if arr.ndim not in (2, 3):
        raise ValueError(
            f"{name} has {arr.ndim} dimensions (shape {arr.shape}); expected (M, N) for one "
            "model or (L, M, N) for L models."
        )
    if arr.shape[-2] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one question.")
    if arr.shape[-1] == 0 and not allow_empty_trials:
        raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one trial.")
    if arr.ndim == 3 and arr.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one model.")

    if mask is not None:
        user_mask = _as_array(mask, "mask")
        if user_mask.dtype != np.bool_:
            raise ValueError(
                f"mask has dtype {user_mask.dtype}; expected a boolean array (True = missing)."
            )
        if user_mask.ndim == 1 and arr.shape[0] == 1 and user_mask.shape == arr.shape[1:]:
            user_mask = user_mask.reshape(arr.shape)
        if user_mask.shape != arr.shape:
            raise ValueError(
                f"mask has shape {user_mask.shape}; expected the shape of {name}, {arr.shape}."
            )
        missing = user_mask if missing is None else (missing | user_mask)

    kind = arr.dtype.kind
    if kind == "b":
        return arr.view(np.uint8), missing
    if kind in "iu":
        return arr, missing
    if kind == "f":
        nan = np.isnan(arr)
        if missing is None:
            if nan.any():
                raise ValueError(
                    f"{name} contains NaN at index {_first_index(nan)} ({int(nan.sum())} in all); "
                    "expected integer category labels. If these are missing trials, pass "
                    "mask=numpy.isnan(R) or a numpy.ma.masked_array."
                )
        elif (nan & ~missing).any():
            raise ValueError(
                f"{name} contains NaN at index {_first_index(nan & ~missing)} that the mask does "
                "not mark as missing; expected integer labels wherever mask is False."
            )
        filled = np.where(nan, 0.0, arr) if nan.any() else arr
        if not np.isfinite(filled).all():
            raise ValueError(
                f"{name} contains an infinite value at index "
                f"{_first_index(~np.isfinite(filled))}; expected integer category labels."
            )
        frac = filled != np.round(filled)
        if missing is not None:
            frac &= ~missing
        if frac.any():
            idx = _first_index(frac)
            raise ValueError(
                f"{name} contains the non-integer score {float(filled[idx])} at index {idx}; "
                "expected integer category labels 0..C (map graded scores to categories and "
                "give their values in w)."
            )
        return filled.astype(np.int64), missing
    raise ValueError(
        f"{name} has dtype {arr.dtype}; expected integer (or boolean) category labels 0..C."
    )


#: The largest rubric weight in magnitude (the posterior's variance squares the weights and sums
#: them over questions: 1e150 squared leaves eight orders of magnitude below float64's maximum).
WEIGHT_LIMIT = 1e150


def check_weights(w: ArrayLike | None, max_label: int, *, name: str = "R") -> NDArray[np.float64]:
    """Validate the rubric weights against the largest category label seen.

    ``w=None`` means binary scoring, ``w = (0, 1)``, and requires labels in ``{0, 1}``.
    """
    if w is None:
        if max_label > 1:
            raise ValueError(
                f"{name} contains category {max_label} but no weights w were given; binary "
                f"results (0/1) use w=(0, 1), otherwise pass w of length C + 1 = {max_label + 1}."
            )
        return np.array([0.0, 1.0])
    arr = _as_array(w, "w")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"w has shape {arr.shape}; expected a non-empty 1-D vector (w_0..w_C).")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"w has dtype {arr.dtype}; expected real numbers.")
    out = arr.astype(np.float64)
    if not np.isfinite(out).all():
        raise ValueError(f"w contains a non-finite value {shown(out[~np.isfinite(out)][0])}.")
    if np.abs(out).max() > WEIGHT_LIMIT:
        raise ValueError(
            f"w holds {shown(out[np.argmax(np.abs(out))])}; the posterior variance squares the "
            f"weights, which overflows beyond {WEIGHT_LIMIT:g}: expected |w| <= "
            f"{WEIGHT_LIMIT:g} (rescale the rubric; the means, intervals and ranks scale with it)."
        )
    if max_label >= out.size:
        raise ValueError(
            f"w has length {out.size} (categories 0..{out.size - 1}) but {name} contains "
            f"category {max_label}; expected len(w) = C + 1 >= {max_label + 1}."
        )
    return out


def _label_range(values: np.ndarray, missing: np.ndarray | None, name: str) -> int:
    """Check labels are >= 0 and return the largest observed label (0 if none observed)."""
    if values.size == 0:
        return 0
    if missing is None:
        dtype = values.dtype
        if dtype.kind == "u":
            return int(values.max())
        if dtype.kind == "i":  # one pass: negatives show up as >= 2^(bits - 1)
            top = int(values.view(_unsigned(dtype)).max())
            if top < 1 << (8 * dtype.itemsize - 1):
                return top
        lo, hi = int(values.min()), int(values.max())
    else:
        seen = values[~missing]
        if seen.size == 0:
            return 0
        lo, hi = int(seen.min()), int(seen.max())
    if lo < 0:
        bad = (values < 0) if missing is None else ((values < 0) & ~missing)
        raise ValueError(
            f"{name} contains the negative category {lo} at index {_first_index(bad)}; "
            "expected labels 0..C."
        )
    return hi


@functools.cache
def _unsigned(dtype: np.dtype) -> np.dtype:
    """The unsigned integer dtype of the width and byte order of an integer one."""
    return np.dtype(dtype.str.replace("i", "u"))


def _count_block(
    block: np.ndarray, n_categories: int, out: np.ndarray, scratch: np.ndarray
) -> None:
    """Count categories 1..C of an unmasked 2-D block into ``out[:, 1:]`` (uint16 sums)."""
    eq = scratch[: block.shape[0]]
    for k in range(1, n_categories):
        np.equal(block, k, out=eq)
        out[:, k] = eq.view(np.uint8).sum(axis=-1, dtype=np.uint16)


def _category_counts(
    values: np.ndarray, missing: np.ndarray | None, n_categories: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    shape = values.shape
    n = shape[-1]
    flat = values.reshape(int(np.prod(shape[:-1])), n)
    rows = flat.shape[0]
    counts = np.empty((rows, n_categories), dtype=np.int64)
    if missing is None:
        n_trials = np.full(rows, n, dtype=np.int64)
        if n_categories == 2 and values.dtype.itemsize == 1 and n < 2**16:
            counts[:, 1] = flat.view(np.uint8).sum(axis=-1, dtype=np.uint16)
        elif n_categories == 2:
            counts[:, 1] = flat.sum(axis=-1, dtype=np.int64)
        elif n < 2**16:
            scratch = np.empty((min(_BLOCK_ROWS, rows), n), dtype=bool)
            for start in range(0, rows, _BLOCK_ROWS):
                stop = min(start + _BLOCK_ROWS, rows)
                _count_block(flat[start:stop], n_categories, counts[start:stop], scratch)
        else:
            for k in range(1, n_categories):
                counts[:, k] = np.count_nonzero(flat == k, axis=-1)
    else:
        seen = ~missing.reshape(flat.shape)
        n_trials = seen.sum(axis=-1, dtype=np.int64)
        for k in range(1, n_categories):
            counts[:, k] = np.count_nonzero((flat == k) & seen, axis=-1)
    counts[:, 0] = n_trials - counts[:, 1:].sum(axis=-1)
    return counts.reshape(*shape[:-1], n_categories), n_trials.reshape(shape[:-1])


def tally(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    mask: ArrayLike | None = None,
    name: str = "R",
    n_categories: int | None = None,
    allow_empty_trials: bool = False,
    allow_empty_questions: bool = False,
    label_hint: str = "",
) -> tuple[Tally, NDArray[np.float64]]:
    """Validate ``R`` (and ``w``) and count categories per question.

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels ``R[alpha, i]`` in ``0..C``. Booleans count as 0/1. A
        ``numpy.ma.MaskedArray`` marks missing trials.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; ``None`` means binary results with ``w = (0, 1)``.
    mask : array_like of bool, optional
        ``True`` where a trial is missing; same shape as ``R``.
    name : str, optional
        The argument's name in messages, default ``"R"``.
    n_categories : int, optional
        Force ``C + 1`` (used for ``R0``, whose categories are fixed by ``w``); ``w`` is then
        not checked and an empty weight vector is returned.
    allow_empty_trials : bool, optional
        Accept ``N = 0`` trials, default ``False``.
    allow_empty_questions : bool, optional
        Accept a question whose every trial is missing, default ``False``.
    label_hint : str, optional
        Appended to the message for a label beyond ``n_categories``, default ``""``.

    Returns
    -------
    Tally, ndarray
        The counts and the validated weight vector.

    Raises
    ------
    ValueError
        For a wrong shape or dtype, a NaN not marked missing, a label outside ``0..C`` or
        not covered by ``w``, or (unless ``allow_empty_questions``) a question without an
        observed trial.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import tally
    >>> R = np.ma.masked_invalid([[1, 0, np.nan], [1, 1, 1]])  # one missing trial
    >>> t, w = tally(R)
    >>> t.counts.tolist(), t.n_trials.tolist(), w.tolist()
    ([[1, 1], [0, 3]], [2, 3], [0.0, 1.0])
    """
    values, missing = _validated_results(
        R, name=name, mask=mask, allow_empty_trials=allow_empty_trials
    )
    top = _label_range(values, missing, name)
    if n_categories is None:
        weights = check_weights(w, top, name=name)
        n_cat = weights.size
    else:
        weights = np.empty(0)
        n_cat = n_categories
        if top >= n_cat:
            raise ValueError(
                f"{name} contains category {top}; expected labels within 0..{n_cat - 1}"
                f"{label_hint}."
            )
    counts, n_trials = _category_counts(values, missing, n_cat)
    if not allow_empty_questions and values.shape[-1] > 0 and (n_trials == 0).any():
        idx = _first_index(n_trials == 0)
        raise ValueError(
            f"{name} has no observed trial for question index {idx} (every trial masked); "
            "expected at least one trial per question. Drop the question or give it data."
        )
    return Tally(counts, n_trials, n_cat, values.ndim == 3), weights


def labels(
    R: ArrayLike, w: ArrayLike | None = None, *, name: str = "R"
) -> tuple[np.ndarray, NDArray[np.float64], int]:
    """Validate results without missing trials (and ``w``) as :func:`tally` does, uncounted.

    Without counting: ``(values, weights, top)``, the labels as an integer array of shape
    ``(M, N)`` or ``(L, M, N)`` (the input itself where it is one: booleans viewed as
    ``uint8``, no copy), the weight vector and the largest label. For the one-pass moments
    (:mod:`bayes_eval.posteriors.onepass`); a masked array is refused (use :func:`tally`).

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels in ``0..C``, no missing trial.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; ``None`` means binary results with ``w = (0, 1)``.
    name : str, optional
        The argument's name in messages, default ``"R"``.

    Returns
    -------
    values : numpy.ndarray of int
        The labels, of the shape of ``R``.
    weights : numpy.ndarray of float, shape ``(C + 1,)``
        The validated weight vector.
    top : int
        The largest label.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import labels
    >>> values, weights, top = labels(np.array([[True, False], [True, True]]))
    >>> values.dtype.name, values.tolist(), weights.tolist(), top
    ('uint8', [[1, 0], [1, 1]], [0.0, 1.0], 1)
    """
    if isinstance(R, np.ma.MaskedArray):
        raise ValueError(f"{name} is a masked array; expected results without missing trials.")
    values, _ = _validated_results(R, name=name, mask=None)
    top = _label_range(values, None, name)
    return values, check_weights(w, top, name=name), top


def prior_counts(
    R0: ArrayLike | None,
    main: Tally,
    *,
    mask: ArrayLike | None = None,
    source: str | None = None,
) -> NDArray[np.int64]:
    """Tally the prior runs ``R0`` with the categories of the main results.

    ``R0`` must have the same leading shape as ``R``: ``(M, D)`` for ``(M, N)`` results and
    ``(L, M, D)`` for ``(L, M, N)`` results. ``D = 0`` is allowed. ``source`` names where the
    runs came from (e.g. the files of ``--prior-file``), for messages in the user's words.
    """
    if R0 is None:
        return np.zeros_like(main.counts)
    expected = main.counts.shape[:-1]
    arr = R0 if isinstance(R0, np.ma.MaskedArray) else _as_array(R0, "R0")
    if arr.ndim == 1 and len(expected) == 1 and expected[0] == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != len(expected) + 1 or arr.shape[:-1] != expected:
        what = "(M, D)" if len(expected) == 1 else "(L, M, D)"
        raise ValueError(
            f"R0 has shape {np.shape(arr)}; expected {what} with leading shape {expected} to match "
            "R (one row of prior runs per question"
            + (", per model)." if len(expected) == 2 else ").")
        )
    t, _ = tally(
        arr,
        mask=mask,
        name="R0" if source is None else f"--prior-file {source}",
        n_categories=main.n_categories,
        label_hint=" (the categories of w)"
        if source is None
        else " (the score levels of the results)",
        allow_empty_trials=True,
        allow_empty_questions=True,
    )
    return t.counts


def check_alpha0(alpha0: ArrayLike, n_categories: int) -> NDArray[np.float64]:
    """Validate a Dirichlet prior concentration: a positive scalar or one value per category.

    Parameters
    ----------
    alpha0 : float or array_like of float
        The concentration, one number for every category or one per category.
    n_categories : int
        ``C + 1``.

    Returns
    -------
    numpy.ndarray of float, shape ``(C + 1,)``
        The concentration per category.

    Raises
    ------
    ValueError
        For a value that is not finite and positive, or a vector of another length.

    Examples
    --------
    >>> from bayes_eval.inputs import check_alpha0
    >>> check_alpha0(1.0, 3).tolist(), check_alpha0([1, 2, 3], 3).tolist()
    ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    """
    arr = np.asarray(alpha0, dtype=np.float64) if _is_real(alpha0) else None
    if arr is None:
        try:
            arr = np.asarray(alpha0, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"alpha0 is {shown(alpha0)}; expected a positive number or a vector of "
                f"{n_categories} positive numbers."
            ) from exc
    if arr.ndim == 0:
        arr = np.full(n_categories, float(arr))
    if arr.shape != (n_categories,):
        raise ValueError(
            f"alpha0 has shape {arr.shape}; expected a scalar or a vector of length C + 1 = "
            f"{n_categories}."
        )
    if not (np.isfinite(arr).all() and (arr > 0).all()):
        raise ValueError(f"alpha0 is {arr.tolist()}; expected finite values > 0.")
    return arr


def check_beta_prior(alpha0: float, beta0: float) -> tuple[float, float]:
    """Validate the Beta prior of the Pass family posteriors.

    Parameters
    ----------
    alpha0, beta0 : float
        The Beta prior's parameters, finite and positive.

    Returns
    -------
    tuple of float
        ``(alpha0, beta0)`` as floats.

    Raises
    ------
    ValueError
        For a value that is not a finite number > 0.

    Examples
    --------
    >>> from bayes_eval.inputs import check_beta_prior
    >>> check_beta_prior(1, 2)
    (1.0, 2.0)
    """
    out = []
    for name, value in (("alpha0", alpha0), ("beta0", beta0)):
        if not _is_real(value) or not math.isfinite(float(value)) or float(value) <= 0:
            raise ValueError(f"{name} is {shown(value)}; expected a finite number > 0.")
        out.append(float(value))
    return out[0], out[1]


def _is_real(value: object) -> bool:
    return isinstance(value, Real | np.floating | np.integer) and not isinstance(
        value, bool | np.bool_
    )


def check_confidence(confidence: float) -> float:
    """Credibility level of an interval: a number strictly between 0 and 1.

    Parameters
    ----------
    confidence : float
        The level, e.g. ``0.95``.

    Returns
    -------
    float
        ``confidence`` as a float.

    Raises
    ------
    ValueError
        For a value that is not a number strictly between 0 and 1.

    Examples
    --------
    >>> from bayes_eval.inputs import check_confidence
    >>> check_confidence(0.95)
    0.95
    >>> try:
    ...     check_confidence(95)
    ... except ValueError as exc:
    ...     print(exc)
    confidence is 95; expected a probability strictly between 0 and 1 (e.g. 0.95).
    """
    if type(confidence) is float and 0.0 < confidence < 1.0:  # the common case, at once
        return confidence
    if not _is_real(confidence) or not (0.0 < float(confidence) < 1.0):
        raise ValueError(
            f"confidence is {shown(confidence)}; expected a probability strictly between 0 and 1 "
            "(e.g. 0.95)."
        )
    return float(confidence)


def check_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """Optional clipping bounds ``(lo, hi)`` with ``lo <= hi``.

    Parameters
    ----------
    bounds : tuple of float, optional
        ``(lo, hi)``, or ``None`` for no bounds.

    Returns
    -------
    tuple of float or None
        ``(lo, hi)`` as floats, or ``None``.

    Raises
    ------
    ValueError
        For something other than a pair of numbers, or ``lo > hi`` or NaN.

    Examples
    --------
    >>> from bayes_eval.inputs import check_bounds
    >>> check_bounds((0, 1)), check_bounds(None)
    ((0.0, 1.0), None)
    """
    if bounds is None:
        return None
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bounds is {shown(bounds)}; expected None or a pair (lo, hi).") from exc
    if not (lo <= hi) or math.isnan(lo) or math.isnan(hi):
        raise ValueError(f"bounds is {shown(bounds)}; expected lo <= hi.")
    return lo, hi


def check_k(k: int, n_trials: NDArray[np.int64]) -> int:
    """The Pass family's budget ``k``: an integer with ``1 <= k <= N_alpha`` for every question.

    Parameters
    ----------
    k : int
        The budget.
    n_trials : numpy.ndarray of int
        Observed trials per question, ``N_alpha`` (e.g. ``Tally.n_trials``).

    Returns
    -------
    int
        ``k`` as a Python integer.

    Raises
    ------
    ValueError
        For a ``k`` that is not an integer, below 1, or above the smallest ``N_alpha`` (the
        message names that question's index).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import check_k
    >>> check_k(4, np.array([8, 6]))
    4
    >>> try:
    ...     check_k(8, np.array([8, 6]))
    ... except ValueError as exc:
    ...     print(exc)
    k is 8; expected 1 <= k <= N = 6 (the smallest per-question trial count, at index (1,)).
    """
    if isinstance(k, bool | np.bool_) or not isinstance(k, Integral):
        raise ValueError(f"k is {shown(k)}; expected an integer with 1 <= k <= N.")
    k = int(k)
    n_min = int(n_trials.min())
    if k < 1 or k > n_min:
        where = ""
        if k > n_min and n_min != int(n_trials.max()):
            at = _first_index(n_trials == n_min)
            where = f" (the smallest per-question trial count, at index {at})"
        raise ValueError(f"k is {k}; expected 1 <= k <= N = {n_min}{where}.")
    return k


def check_tau(tau: float) -> float:
    """G-Pass threshold ``tau`` in ``(0, 1]`` (Hariri et al., "Don't Pass@k", App. H, eq. 23).

    Parameters
    ----------
    tau : float
        The threshold.

    Returns
    -------
    float
        ``tau`` as a float.

    Raises
    ------
    ValueError
        For a value that is not a number in ``(0, 1]``.

    Examples
    --------
    >>> from bayes_eval.inputs import check_tau
    >>> check_tau(0.5), check_tau(1)
    (0.5, 1.0)
    """
    if not _is_real(tau) or not (0.0 < float(tau) <= 1.0):
        raise ValueError(f"tau is {shown(tau)}; expected a number in (0, 1].")
    return float(tau)


#: Appended to the range error of the Pass family, which is defined for binary results only.
BINARY_HINT = (
    " (the Pass family needs binary results, 0 = fail and 1 = pass; use bayes()/bayes_ci() "
    "with weights w for graded rubrics)"
)


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

    Examples
    --------
    >>> from bayes_eval.inputs import score_levels
    >>> levels = score_levels([[0.1, 0.5, 0.9]], 3)
    >>> type(levels).__name__, levels.R.tolist(), levels.w.tolist(), round(levels.max_shift, 4)
    ('LevelScores', [[0.0, 1.0, 2.0]], [0.0, 0.5, 1.0], 0.1)
    """

    R: NDArray[np.float64]
    w: NDArray[np.float64]
    max_shift: float


def graded_values(scores: ArrayLike, *, name: str = "scores") -> NDArray[np.float64]:
    """``scores`` as floats, checked to lie in ``[0, 1]`` where not NaN (NaN = no trial).

    Parameters
    ----------
    scores : array_like of float
        Graded scores, any shape.
    name : str, optional
        The argument's name in messages, default ``"scores"``.

    Returns
    -------
    numpy.ndarray of float
        The scores, of their own shape.

    Raises
    ------
    ValueError
        For non-numeric input, an infinite value or a value outside ``[0, 1]`` (naming its
        index).

    Examples
    --------
    >>> from bayes_eval.inputs import graded_values
    >>> graded_values([[0, 0.5, float("nan")]]).tolist()
    [[0.0, 0.5, nan]]
    >>> try:
    ...     graded_values([[0.0, 1.5]])
    ... except ValueError as exc:
    ...     print(exc)
    scores contain 1.5 at index (0, 1); expected graded scores in [0, 1] (NaN for a missing trial).
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


def levels_bytes(shape: tuple[int, ...], levels: int) -> float:
    r"""Memory (bytes) that K levels need for results of ``shape`` ``(L, M, N)``.

    The level indices (``L M N``), the count vectors (``L M K``) and the learned prior's Newton
    step (a ``K x K`` Hessian per model, :mod:`bayes_eval.posteriors.priors`), 8 bytes each,
    times 4 for working copies: :math:`32\,(LMN + LMK + LK^2)`.

    Parameters
    ----------
    shape : tuple of int
        The shape of the scores, ``(M, N)`` or ``(L, M, N)``.
    levels : int
        K, the number of levels.

    Returns
    -------
    float
        The estimate in bytes (a float: it may exceed any integer type), for
        :func:`check_memory`.

    Examples
    --------
    >>> from bayes_eval.inputs import levels_bytes
    >>> levels_bytes((2, 30, 80), 5)
    164800.0
    """
    n_models = float(shape[0]) if len(shape) == 3 else 1.0
    questions = float(np.prod([float(x) for x in shape[:-1]]))  # L M
    k = float(levels)
    return 32.0 * (questions * shape[-1] + questions * k + n_models * k * k)


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


def fractional_tally(
    scores: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    name: str = "R",
    allow_empty_questions: bool = False,
) -> Tally:
    r"""Fractional counts of graded scores (module docstring).

    ``counts[..., 1] = sum s``, ``counts[..., 0] = sum (1 - s)`` over the observed trials.

    Parameters
    ----------
    scores : array_like of float, shape ``(M, N)`` or ``(L, M, N)``
        Scores in ``[0, 1]``; NaN or ``mask`` marks a missing trial.
    mask : array_like of bool, optional
        ``True`` where a trial is missing.
    name : str, optional
        The argument's name in messages, default ``"R"``.
    allow_empty_questions : bool, keyword-only
        Accept a question with no observed trial (as :func:`tally`).

    Returns
    -------
    Tally
        Float counts of shape ``(..., M, 2)`` and the observed trials per question.

    Raises
    ------
    ValueError
        For a score outside ``[0, 1]``, a wrong shape, a mask of another shape, or (unless
        ``allow_empty_questions``) a question without an observed trial.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import fractional_tally
    >>> t = fractional_tally(np.array([[0.25, 1.0, 0.5], [0.0, np.nan, 1.0]]))
    >>> t.counts.tolist(), t.n_trials.tolist()
    ([[1.25, 1.75], [1.0, 1.0]], [3, 2])
    """
    if isinstance(scores, np.ma.MaskedArray):
        extra = np.ma.getmaskarray(scores)
        scores = np.ma.getdata(scores)
        mask = extra if mask is None else (np.asarray(mask, dtype=bool) | extra)
    arr = graded_values(scores, name=name)
    if arr.ndim == 1:
        raise ValueError(one_dimensional(name, arr.shape))
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
    if not allow_empty_questions and (n_trials == 0).any():
        idx = _first_index(n_trials == 0)
        raise ValueError(
            f"{name} has no observed score for question index {idx} (every trial missing); "
            "expected at least one score per question. Drop the question or give it data."
        )
    counts = np.empty((*n_trials.shape, 2))  # filled in place: no copy of the scores
    np.add.reduce(arr, axis=-1, where=observed, initial=0.0, out=counts[..., 1])
    np.subtract(n_trials, counts[..., 1], out=counts[..., 0])
    return Tally(counts, n_trials, 2, arr.ndim == 3)


#: Bounds of the effective trials a grade counts for (:func:`grade_trials`): at least one (a
#: grade never varies more than a Bernoulli trial with its mean), at most this many.
GRADE_TRIALS_MAX = 1000.0
#: Degrees of freedom (Satterthwaite's, :func:`grade_trials`) below which the grades'
#: spread is not estimated (one trial each).
GRADE_DF_MIN = 1


def grade_trials(scores: ArrayLike, *, mask: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""How many Bernoulli trials one graded score is worth, per model: :math:`1/\hat\phi`.

    :math:`\hat\phi` is the grades' quasi-binomial dispersion (McCullagh and Nelder,
    "Generalized Linear Models", §4.5: Pearson's statistic over its degrees of freedom).

    A grade :math:`s \in [0, 1]` with mean :math:`p` has variance :math:`\phi\,p(1 - p)`,
    :math:`\phi \le 1`: 1 for all-or-nothing grades, :math:`1/(1 + \nu)` for grades
    Beta(:math:`p\nu, (1 - p)\nu`). Counting it as :math:`n = 1/\phi` trials with :math:`ns`
    successes gives the quasi-likelihood the variance the grades have (counting it as one
    trial charges a Bernoulli's variance, and the intervals are too wide by up to
    :math:`\phi^{-1/2}`).

    * **Repeated grades of a question** (trials): for each model, over the questions with two
      grades or more, :math:`\hat\phi = \sum_q (n_q - 1) s_q^2 / \sum_q (n_q - 1)(\bar s_q
      (1 - \bar s_q) + s_q^2 / n_q)`, a ratio of sums each unbiased for its expectation
      (:math:`E[\bar s (1 - \bar s) + s^2/n] = p(1 - p)`; a sum of per-question ratios was
      biased low by 10-16% at two grades each, the spread entering both its terms). On a
      board of three models or more whose repeated grades show spread, each model's
      :math:`\hat\phi` is shrunk towards the board's by empirical Bayes moderation (Smyth,
      "Linear models and empirical Bayes methods for assessing differential expression in
      microarray experiments", 2004: a prior worth :math:`d_0` degrees of freedom fitted to
      the spread of the models' :math:`\log\hat\phi`), on the degrees of freedom of both: a
      grader's dispersion is shared, and models whose grades disagree keep their own.
    * **One grade per question** on a board of three models or more: the residuals of the
      two-way logistic fit :math:`E[s_{lq}] = \mathrm{expit}(\theta_l - b_q)` (quasi-binomial
      Newton steps), one :math:`\hat\phi` for the board, over :math:`LM - L - M + 1` degrees of
      freedom. A model x question interaction adds to the residuals: then :math:`\hat\phi` is
      too large, and the intervals too wide, never too narrow.
    * Otherwise (a model on its own, or off a moderated board, with fewer than
      ``GRADE_DF_MIN`` degrees of freedom), and for a model whose every grade is 0 or 1
      (such models also stay out of the moderation): 1.

    The degrees of freedom :math:`d` of repeated grades are Satterthwaite's, :math:`d =
    (\sum_q v_q)^2 / \sum_q v_q^2 / (n_q - 1)` with :math:`v_q` the terms of the denominator
    (Satterthwaite, "An approximate distribution of estimates of variance components", 1946):
    a question that every grade solved, or every grade missed, shows no spread and counts for
    nothing, and a few near-even questions count for their own degrees of freedom only. The
    dispersion is then widened to :math:`\tilde\phi = \hat\phi\,(t_{d,0.975} / z_{0.975})^2`
    (:math:`\hat\phi \sim \phi\chi^2_d / d`), so that the 95% interval has about the width of
    the Student t interval on d degrees of freedom, as a variance estimated from d degrees of
    freedom needs (Student, "The probable error of a mean", 1908): 1.29 times
    :math:`\hat\phi` at :math:`d = 10`, 1.06 at 40, 4.8 at 2, 42 at 1. It is fitted to the
    95% level (narrower than the t's at 99%, wider at 80%) and only about, as fewer trials per
    grade also leave each question nearer the learned prior's mean. A plug-in
    :math:`1/\hat\phi` undercovers where few questions show spread (real rates, most of
    them 0 or 1). What is returned is :math:`1/\tilde\phi`, clipped to
    ``[1, GRADE_TRIALS_MAX]``.

    Parameters
    ----------
    scores : array_like of float, shape ``(M, N)`` or ``(L, M, N)``
        Grades in ``[0, 1]``; NaN (or ``mask``) marks a missing trial.
    mask : array_like of bool, optional
        ``True`` where a trial is missing; default only the NaN scores.

    Returns
    -------
    ndarray, shape ``()`` or ``(L,)``
        Trials per grade, per model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import grade_trials
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=(40, 1))  # 40 questions, 5 grades each
    >>> s = np.clip(rng.normal(p, 0.1, size=(40, 5)), 0, 1)
    >>> grade_trials(np.stack([s, (s > 0.5).astype(float)])).round(4).tolist()
    [18.1566, 1.0]
    """
    arr = np.asarray(scores, dtype=float)
    missing = np.isnan(arr) if mask is None else (np.isnan(arr) | np.asarray(mask, bool))
    one = arr.ndim == 2
    y = arr[None] if one else arr
    obs = ~(missing[None] if one else missing)
    y = np.where(obs, y, 0.0)
    n = obs.sum(axis=-1)
    mean = y.sum(axis=-1) / np.maximum(n, 1)
    repeated = n >= 2
    dev = np.where(obs, (y - mean[..., None]) ** 2, 0.0).sum(axis=-1)  # (n_q - 1) s_q^2
    # v_q = (n_q - 1) (m (1 - m) + s^2 / n), each unbiased for (n_q - 1) p_q (1 - p_q):
    # E[m (1 - m) + s^2 / n] = p (1 - p); their sum is the ratio's denominator
    k = np.where(repeated, n - 1, 0)
    v = np.where(repeated, k * mean * (1.0 - mean) + dev / np.maximum(n, 1), 0.0)
    var_fn = v.sum(axis=-1)
    df = _dispersion_df(k, v)
    # all-or-nothing grades have exactly a Bernoulli's variance: one trial each, not an estimate
    binary = ~np.any(obs & (y > 0.0) & (y < 1.0), axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = np.where(var_fn > 0, np.where(repeated, dev, 0.0).sum(axis=-1) / var_fn, np.nan)
    raw = np.where(binary, np.nan, raw)  # nor do they inform the others' moderation
    moderated = _moderated(raw, df) if y.shape[0] >= 3 else None
    if moderated is not None:
        phi, df = moderated
    else:
        enough = (df >= GRADE_DF_MIN) & np.isfinite(raw)
        phi = np.where(enough, raw, np.nan)
        lacking = ~enough
        if lacking.any() and y.shape[0] >= 3:
            board = _board_dispersion(mean, n > 0)
            if board is not None:
                phi[lacking], df[lacking] = board
    from scipy.special import ndtri, stdtrit

    with np.errstate(divide="ignore", invalid="ignore"):  # phi = 0: grades constant
        share = phi * (stdtrit(np.maximum(df, 1.0), 0.975) / ndtri(0.975)) ** 2
        out = np.clip(1.0 / np.where(np.isfinite(share), share, 1.0), 1.0, GRADE_TRIALS_MAX)
    out = np.where(binary, 1.0, out)
    return out[0] if one else out


def _trigamma_inverse(x: float) -> float:
    """The y > 0 with trigamma(y) = x, by Newton's method on 1/trigamma (convex in y)."""
    from scipy.special import polygamma

    y = 0.5 + 1.0 / x
    for _ in range(50):
        tri = float(polygamma(1, y))
        step = tri * (1.0 - tri / x) / float(polygamma(2, y))
        y += step
        if -step / y < 1e-10:
            break
    return y


def _moderated(raw: NDArray, d: NDArray) -> tuple[NDArray, NDArray] | None:
    r"""The models' dispersions shrunk towards the board's, with their degrees of freedom.

    The empirical Bayes moderation of Smyth ("Linear models and empirical Bayes methods for
    assessing differential expression in microarray experiments", 2004, §6.2): with
    :math:`\hat\phi_l \sim \phi_l\chi^2_{d_l}/d_l` and :math:`1/\phi_l \sim
    \phi_0^{-1}\chi^2_{d_0}/d_0` across the models, :math:`d_0` and :math:`\phi_0` are fitted
    by the moments of :math:`\log\hat\phi_l` (digamma and trigamma), and each model gets
    :math:`\tilde\phi_l = (d_0\phi_0 + d_l\hat\phi_l)/(d_0 + d_l)` on :math:`d_0 + d_l`
    degrees of freedom, at most the board's :math:`\sum_l d_l` (models whose grades agree on
    a grader's dispersion pool it fully, :math:`d_0 = \infty`; a model without repeated
    grades that vary gets :math:`\phi_0` on :math:`d_0`). The :math:`\chi^2` law of
    :math:`\hat\phi_l` is Satterthwaite's approximation (grades in [0, 1] vary less than
    normal ones: it errs towards pooling and a larger dispersion, wider intervals). None with
    fewer than three models whose repeated grades show spread.
    """
    from scipy.special import digamma, polygamma

    use = np.isfinite(raw) & (d > 0)  # a model whose grades never vary within a question: 0
    ok = use & (raw > 0)  # the prior is fitted on the logs of the positive ones
    if ok.sum() < 3:
        return None
    half = d[ok] / 2.0
    e = np.log(raw[ok]) - digamma(half) + np.log(half)
    g = int(ok.sum())
    excess = float(np.mean((e - e.mean()) ** 2) * g / (g - 1) - np.mean(polygamma(1, half)))
    total = float(d[use].sum())
    if excess > 0:
        d0 = 2.0 * _trigamma_inverse(excess)
        phi0 = float(np.exp(e.mean() + digamma(d0 / 2.0) - np.log(d0 / 2.0)))
        own_d = np.where(use, d, 0.0)
        phi = (d0 * phi0 + own_d * np.where(use, raw, 0.0)) / (d0 + own_d)
        return phi, np.minimum(d0 + own_d, total)
    phi0 = float(np.exp(e.mean()))
    return np.full(raw.shape, phi0), np.full(raw.shape, total)


def _dispersion_df(k: NDArray, v: NDArray) -> NDArray:
    r"""Satterthwaite's degrees of freedom of the repeated grades' dispersion ratio.

    :math:`\hat\phi = \sum_q d_q / \sum_q v_q` with :math:`d_q` the within-question sum of
    squares (about :math:`\phi v_q \chi^2_{k_q} / k_q`, :math:`k_q = n_q - 1`) and
    :math:`v_q = k_q\,\bar s_q(1 - \bar s_q) + d_q / n_q`, so, approximately (normal theory:
    grades in [0, 1] have lighter tails and a larger true value), :math:`2/\mathrm{CV}^2
    (\hat\phi) = (\sum_q v_q)^2 / \sum_q v_q^2 / k_q`: questions solved or missed by every grade (no
    spread to show) count for nothing, and a few near-even questions for only their own
    degrees of freedom (see :func:`grade_trials`).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        d = v.sum(axis=-1) ** 2 / np.where(k > 0, v**2 / np.maximum(k, 1), 0.0).sum(axis=-1)
    return np.where(np.isfinite(d), d, 0.0)


def _board_dispersion(mean: NDArray, seen: NDArray, steps: int = 25) -> tuple[float, float] | None:
    """Pearson's dispersion of one grade per cell around a two-way logistic fit, with its df.

    See :func:`grade_trials`; None with fewer than ``GRADE_DF_MIN`` degrees of freedom.
    """
    L, M = mean.shape
    df = int(seen.sum()) - L - M + 1
    if df < GRADE_DF_MIN:
        return None
    from scipy.special import expit

    y = np.where(seen, mean, 0.0)
    rate = (y.sum(axis=1) + 0.5) / (seen.sum(axis=1) + 1.0)
    theta = np.log(rate / (1.0 - rate))
    b = np.zeros(M)

    def score(axis: int) -> NDArray:
        """A Newton step's size for theta (``axis=1``) or -b (``axis=0``) at the current fit."""
        p = expit(theta[:, None] - b[None, :])
        g = np.where(seen, y - p, 0.0).sum(axis=axis)
        return g / np.maximum(np.where(seen, p * (1.0 - p), 0.0).sum(axis=axis), 1e-12)

    for _ in range(steps):
        theta = theta + score(1)
        b = b - score(0)
        b = np.clip(b - b.mean(), -30.0, 30.0)
        theta = np.clip(theta, -30.0, 30.0)
    p = expit(theta[:, None] - b[None, :])
    var = np.maximum(p * (1.0 - p), 1e-9)
    return float(np.where(seen, (y - p) ** 2 / var, 0.0).sum() / df), float(df)


def unique_rows(arr: NDArray, *, sort: bool = True) -> tuple[NDArray, NDArray, NDArray]:
    """Distinct rows of a 2-D array, the index of each row's distinct row, and their counts.

    The distinct rows are in lexicographic order when ``sort``; the counts say how often each
    occurs.

    Every column is coded by its distinct values and the codes are combined into one integer
    key, both by hashing (:func:`pandas.factorize`, linear time; pandas comes with xarray),
    so only the distinct rows are sorted; a byte view of the rows is used when the key would
    not fit in 62 bits. Several times faster than :func:`numpy.unique` with ``axis=0``.

    Parameters
    ----------
    arr : numpy.ndarray of shape (M, K)
        The rows, e.g. the count vectors of the questions (compared as float64).
    sort : bool, optional
        Sort the distinct rows lexicographically, default ``True``; else they come in order
        of first occurrence.

    Returns
    -------
    rows : numpy.ndarray of float, shape (U, K)
        The distinct rows.
    inverse : numpy.ndarray of int64, shape (M,)
        For each row, the index of its distinct row: ``rows[inverse]`` gives ``arr`` back.
    counts : numpy.ndarray of int, shape (U,)
        How many rows equal each distinct row.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.inputs import unique_rows
    >>> rows, inverse, counts = unique_rows(np.array([[2, 1], [0, 3], [2, 1]]))
    >>> rows.tolist(), inverse.tolist(), counts.tolist()
    ([[0.0, 3.0], [2.0, 1.0]], [1, 0, 1], [1, 2])
    """
    import pandas as pd

    a = np.ascontiguousarray(arr, dtype=np.float64) + 0.0  # -0.0 and 0.0 are one value
    key = np.zeros(a.shape[0], dtype=np.int64)
    span = 1
    for j in range(a.shape[1]):
        codes, values = pd.factorize(a[:, j], use_na_sentinel=False)
        span *= max(len(values), 1)
        if span >= 2**62:
            view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
            _, first, inverse, counts = np.unique(
                view, return_index=True, return_inverse=True, return_counts=True
            )
            return a[first], inverse.ravel(), counts
        key = key * len(values) + codes
    inverse, distinct = pd.factorize(key)
    first = np.empty(len(distinct), dtype=np.int64)
    first[inverse] = np.arange(a.shape[0])  # any row of a group: they are equal
    rows = a[first]
    counts = np.bincount(inverse, minlength=len(distinct))
    if sort:
        order = np.lexsort(rows.T[::-1])
        position = np.empty_like(order)
        position[order] = np.arange(order.size)
        rows, counts, inverse = rows[order], counts[order], position[inverse]
    return rows, inverse.astype(np.int64, copy=False), counts


def distinct_states(n: NDArray, c: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Distinct ``(N_alpha, c_alpha)`` pairs (trials, successes) of binary results.

    With the inverse index: ``un[inverse], uc[inverse]`` give back ``n, c`` (the Pass family
    computes once per distinct state).
    """
    base = int(n.max()) + 1
    key = n.astype(np.int64) * base + c
    uniq, inverse = np.unique(key.ravel(), return_inverse=True)
    return uniq // base, uniq % base, inverse.reshape(n.shape)
