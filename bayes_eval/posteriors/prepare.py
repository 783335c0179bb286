r"""The data of :func:`~bayes_eval.posteriors.posterior.posterior`, validated and counted once.

Results ``R`` become the category counts :math:`n_{\alpha k}` of each (model,) question
(:func:`bayes_eval.inputs.tally`; graded scores the fractional counts of
:func:`bayes_eval.inputs.fractional_tally`, each grade weighted by the Bernoulli trials it is
worth), to which a prior's earlier runs ``R0`` add their discounted counts
:math:`\lambda n^0_\alpha`; the names of the models are checked, and whether the models sit on
a board (binary results of several models under the default learned prior pooled over the
board, :mod:`~bayes_eval.posteriors.joint`) is decided here.
"""

from __future__ import annotations

from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import (
    Tally,
    fractional_tally,
    grade_trials,
    prior_counts,
    shown,
    tally,
)
from bayes_eval.posteriors.priors import Prior

__all__: list[str] = []


class _Prepared(NamedTuple):
    """The validated data of one call of ``posterior()``."""

    tally: Tally
    #: rubric weights ``(C + 1,)``
    w: NDArray[np.float64]
    #: counts of ``R`` plus the discounted counts of the prior's earlier runs
    data: NDArray[np.float64]
    #: with ``answered_only``: the questions each model has a trial of
    answered: NDArray[np.bool_] | None
    #: with ``fractional``: the Bernoulli trials one grade counts for, per model
    grade_trials: NDArray[np.float64] | None


def _prepare(
    R: ArrayLike,
    w: ArrayLike | None,
    spec: Prior,
    mask: ArrayLike | None,
    fractional: bool,
    answered_only: bool,
) -> _Prepared:
    """Tally ``R`` (and the prior's earlier runs) once: the data of the posterior."""
    trials_per_grade = None
    n0: NDArray[np.int64] | NDArray[np.float64] | None
    if fractional:
        t, weights, n0, trials_per_grade = _fractional(R, w, spec, mask, answered_only)
    else:
        t, weights = tally(R, w, mask=mask, allow_empty_questions=answered_only)
        n0 = None
        if spec.runs is not None:
            n0 = prior_counts(spec.runs, t, mask=spec.runs_mask, source=spec.source)
    answered = _answered(t) if answered_only else None
    data = t.counts.astype(np.float64, copy=False)
    if n0 is not None and np.any(n0):
        data = data + spec.discount * n0
    return _Prepared(t, weights, data, answered, trials_per_grade)


def _fractional(
    R: ArrayLike,
    w: ArrayLike | None,
    spec: Prior,
    mask: ArrayLike | None,
    answered_only: bool = False,
) -> tuple[Tally, NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64]]:
    """Fractional counts of graded ``R`` (and of the prior's runs) with weights (0, 1).

    Returns the tally, the weights, the counts of the earlier runs (None without) and the
    Bernoulli trials each grade counts for.
    """
    if w is not None and not np.array_equal(np.asarray(w, dtype=float), [0.0, 1.0]):
        raise ValueError(
            f"w is {shown(w)} with fractional=True; graded scores are counted as fractions of "
            "a correct (w = 1) and a wrong (w = 0) answer: leave w out."
        )
    t = fractional_tally(R, mask=mask, allow_empty_questions=answered_only)
    # each grade counts for the Bernoulli trials its spread is worth (1: all-or-nothing)
    n_eff = grade_trials(R, mask=mask)
    scale = n_eff[..., None, None] if t.batched else n_eff
    # Tally.counts is annotated as integers; fractional counts are floats
    counts = cast("NDArray[np.int64]", t.counts * scale)
    t = Tally(counts, t.n_trials, t.n_categories, t.batched)
    if spec.runs is None:
        return t, np.array([0.0, 1.0]), None, n_eff
    name = "R0" if spec.source is None else f"--prior-file {spec.source}"
    t0 = fractional_tally(spec.runs, mask=spec.runs_mask, name=name, allow_empty_questions=True)
    if t0.counts.shape[:-1] != t.counts.shape[:-1]:
        raise ValueError(
            f"{name} has {t0.counts.shape[:-1]} (models,) questions; expected those of the "
            f"results, {t.counts.shape[:-1]}."
        )
    return t, np.array([0.0, 1.0]), t0.counts * scale, n_eff


def _answered(t: Tally) -> NDArray[np.bool_]:
    """The questions each model has a trial of; every model needs at least one."""
    answered = t.n_trials > 0
    none = ~answered.any(axis=-1)
    if np.any(none):
        where = f" (model index {int(np.flatnonzero(none)[0])})" if t.batched else ""
        raise ValueError(
            f"R has no observed trial at all{where}; expected every model to answer at least "
            "one question."
        )
    return answered


def _check_models(models: ArrayLike, t: Tally) -> tuple[str, ...]:
    """The names of the models of ``R``: one distinct, non-blank name per model."""
    given = models if isinstance(models, (str, bytes)) else np.asarray(models, dtype=object)
    if isinstance(given, (str, bytes)) or given.ndim != 1:
        raise ValueError(
            f"models is {shown(models)}; expected a list of names, one per model of R."
        )
    blank = [i for i, m in enumerate(given) if m is None or str(m).strip() in ("", "nan")]
    if blank:
        raise ValueError(
            f"models holds {shown(given[blank[0]])} at position {blank[0]}; expected a name "
            "per model."
        )
    names = tuple(str(m) for m in given)
    if not t.batched or len(names) != t.counts.shape[0]:
        want = t.counts.shape[0] if t.batched else "no"
        raise ValueError(f"models has {len(names)} names; R has {want} models.")
    if len(set(names)) < len(names):
        dup = next(m for i, m in enumerate(names) if m in names[:i])
        where = [i for i, m in enumerate(names) if m == dup]
        raise ValueError(
            f"models holds {shown(dup)} more than once (positions {where}); expected one "
            "distinct name per model."
        )
    return names


def _on_a_board(spec: Prior, fractional: bool, t: Tally, w: NDArray[np.float64]) -> bool:
    """Whether the board model may apply to these data.

    It does for binary results (``w`` increasing) of two or more models under a learned prior
    pooled over the board, without earlier runs.
    """
    return bool(
        spec.learned
        and spec.pool == "board"
        and spec.runs is None
        and not fractional
        and t.batched
        and t.counts.shape[0] >= 2
        and w.size == 2
        and w[1] > w[0]
    )
