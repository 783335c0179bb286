r"""Argument checks and warning texts of prior elicitation (:mod:`.elicitation`).

The checks of a statement (``0 < lo < hi < 1``, a probability in (0, 1), the level, M, the
warning ratio, the concentration s) and the texts of the two warnings
(:class:`~bayes_eval.validation.elicitation.ElicitationWarning`): the implied interval of
pi-bar is narrower than ``warn_ratio`` or wider than ``1 / warn_ratio`` times the stated one
(width ratio :math:`(\bar\pi_{hi} - \bar\pi_{lo}) / (hi - lo)`), and the per-category rubric
statements cannot hold together (the shares sum to 1).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

__all__ = []


def _check(lo: float, hi: float, prob: float) -> None:
    if not (0.0 < lo < hi < 1.0):
        raise ValueError(f"interval [{lo}, {hi}] must satisfy 0 < lo < hi < 1.")
    if not (0.0 < prob < 1.0):
        raise ValueError(f"probability is {prob!r}; expected a number in (0, 1).")


def _check_level(level, func: str) -> Literal["question", "benchmark"]:
    if level is None:
        raise TypeError(
            f"{func}() needs level='benchmark' (the statement is about the model's accuracy on "
            "the benchmark, i.e. the prior of pi-bar) or level='question' (it holds for every "
            "single question; pi-bar's prior is then about sqrt(M) times narrower)."
        )
    if level not in ("question", "benchmark"):
        raise ValueError(f"level is {level!r}; expected 'question' or 'benchmark'.")
    return level


def _check_m(n_questions, func: str) -> int:
    if n_questions is None:
        raise TypeError(f"{func}() needs n_questions, the M of the benchmark the prior is for.")
    if isinstance(n_questions, bool) or int(n_questions) != n_questions or n_questions < 1:
        raise ValueError(f"n_questions is {n_questions!r}; expected a positive integer.")
    return int(n_questions)


def _check_ratio(warn_ratio: float) -> float:
    if not (0.0 <= warn_ratio < 1.0):
        raise ValueError(f"warn_ratio is {warn_ratio!r}; expected a number in [0, 1).")
    return float(warn_ratio)


def _check_concentration(s) -> float:
    s = float(s)
    if not (np.isfinite(s) and s > 0):
        raise ValueError(f"concentration is {s!r}; expected a finite number > 0.")
    return s


def _mismatch_message(
    *,
    level: str,
    prob: float,
    n_questions: int,
    depth: float,
    stated: NDArray,
    implied: NDArray,
    ratio: float,
    warn_ratio: float,
) -> str | None:
    """Text of the warning on the implied pi-bar interval; ``None`` when it is not due."""
    lo, hi = implied
    slo, shi = stated
    where = (
        f"the implied {prob:.0%} interval of pi-bar over M = {n_questions} "
        f"questions is [{lo:.3f}, {hi:.3f}]"
    )
    if ratio < warn_ratio:
        return (
            f"{level}-level prior: {where}, {1 / ratio:.1f} times narrower than the "
            f"stated [{slo:.3f}, {shi:.3f}] (width ratio {ratio:.3f}). Each question gets this "
            f"prior independently (worth D = {depth:.1f} trials on every question), so "
            "their mean is nearly fixed. If the statement is about the model's accuracy on "
            "the benchmark, use level='benchmark'."
        )
    if warn_ratio > 0 and ratio > 1 / warn_ratio:
        return (
            f"{level}-level prior: {where}, {ratio:.1f} times wider than the stated "
            f"[{slo:.3f}, {shi:.3f}] (width ratio {ratio:.3f}): with few questions pi-bar "
            "scatters around the benchmark mean m. A larger concentration (questions more "
            "alike) narrows it."
        )
    return None


def _unattainable_message(stated: NDArray, achieved: NDArray, prob: float) -> str:
    """Text of the warning when no Dirichlet meets every category statement.

    The shares sum to one, so the statements constrain each other: for two categories
    ``[lo_0, hi_0]`` fixes ``[1 - hi_0, 1 - lo_0]`` for the other one, and stating
    ``0.5:0.9`` for both asks each share to exceed one half with probability ``prob``.
    """
    gap = np.abs(achieved - stated)
    worst = int(np.argmax(gap.max(axis=1)))
    pairs = "; ".join(
        f"category {c}: stated [{s[0]:.3f}, {s[1]:.3f}], achieved [{a[0]:.3f}, {a[1]:.3f}]"
        for c, (s, a) in enumerate(zip(stated, achieved, strict=True))
    )
    hint = ""
    if len(stated) == 2:
        lo, hi = stated[0]
        hint = (
            f" With two categories the shares are s and 1 - s: category 0 in "
            f"[{lo:.3f}, {hi:.3f}] means category 1 in [{1 - hi:.3f}, {1 - lo:.3f}]."
        )
    return (
        f"the category statements do not hold together: no Dirichlet puts {prob:.0%} of "
        f"every category's share in its interval (the shares sum to 1); the closest one "
        f"misses category {worst} by {gap.max():.3f}. {pairs}.{hint} Restate the "
        "intervals so that they can hold together."
    )
