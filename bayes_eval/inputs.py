"""Validation of user inputs and the category tally that every estimator starts from.

Every public estimator funnels its arguments through this module, so a bad input gets one
clear ``ValueError`` naming the argument, what was found and what was expected. Nothing the
caller passed is modified: arrays are read, never written.

The tally is the only pass over the raw results: for each (model, question) it counts how
many observed trials fell into each category (Algorithm 1 of Hariri et al., the loop over
``n_{alpha k}``). Missing trials are supported through a boolean mask (``True`` = missing)
or a ``numpy.ma.MaskedArray``; each question then has its own trial count ``N_alpha``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BINARY_HINT",
    "Tally",
    "check_alpha0",
    "check_beta_prior",
    "check_bounds",
    "check_confidence",
    "check_k",
    "check_tau",
    "shown",
    "tally",
]


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a value as the user wrote it, for messages: numpy scalars and small arrays
    as plain Python values (``1.5``, not ``np.float64(1.5)``), on one line and at most about
    ``limit`` characters."""
    if isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, np.ndarray) and value.size <= 20:
        value = value.tolist()
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        lengths = [len(row) for row in values]  # type: ignore[union-attr]
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
    """

    counts: NDArray[np.int64]
    n_trials: NDArray[np.int64]
    n_categories: int
    batched: bool


def _validated_results(
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
        arr = arr.reshape(1, -1)
        if missing is not None:
            missing = missing.reshape(1, -1)
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
        if values.dtype == np.uint8:
            return int(values.max())
        if values.dtype == np.int8:
            top = int(values.view(np.uint8).max())  # negatives show up as >= 128
            if top < 128:
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
    n_categories : int, optional
        Force ``C + 1`` (used for ``R0``, whose categories are fixed by ``w``).

    Returns
    -------
    Tally, ndarray
        The counts and the validated weight vector.
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


def prior_counts(
    R0: ArrayLike | None, main: Tally, *, mask: ArrayLike | None = None
) -> NDArray[np.int64]:
    """Tally the prior runs ``R0`` with the categories of the main results.

    ``R0`` must have the same leading shape as ``R``: ``(M, D)`` for ``(M, N)`` results and
    ``(L, M, D)`` for ``(L, M, N)`` results. ``D = 0`` is allowed.
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
        name="R0",
        n_categories=main.n_categories,
        label_hint=" (the categories of w)",
        allow_empty_trials=True,
        allow_empty_questions=True,
    )
    return t.counts


def check_alpha0(alpha0: ArrayLike, n_categories: int) -> NDArray[np.float64]:
    """Validate a Dirichlet prior concentration: a positive scalar or one value per category."""
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
    """Validate the Beta prior of the Pass family posteriors."""
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
    """Credibility level of an interval: a number strictly between 0 and 1."""
    if not _is_real(confidence) or not (0.0 < float(confidence) < 1.0):
        raise ValueError(
            f"confidence is {shown(confidence)}; expected a probability strictly between 0 and 1 "
            "(e.g. 0.95)."
        )
    return float(confidence)


def check_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """Optional clipping bounds ``(lo, hi)`` with ``lo <= hi``."""
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
    """The Pass family's budget ``k``: an integer with ``1 <= k <= N_alpha`` for every question."""
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
    """G-Pass threshold ``tau`` in ``(0, 1]`` (Hariri et al., "Don't Pass@k", App. H, eq. 23)."""
    if not _is_real(tau) or not (0.0 < float(tau) <= 1.0):
        raise ValueError(f"tau is {shown(tau)}; expected a number in (0, 1].")
    return float(tau)


#: Appended to the range error of the Pass family, which is defined for binary results only.
BINARY_HINT = (
    " (the Pass family needs binary results, 0 = fail and 1 = pass; use bayes()/bayes_ci() "
    "with weights w for graded rubrics)"
)
