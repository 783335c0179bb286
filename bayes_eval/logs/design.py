"""Incomplete designs: which questions each model answered, and what to rank them on.

Real leaderboards are rarely complete: models are added over time while the question set
grows, and a few models are run on a subset only. The closed form of Hariri et al. ("Don't
Pass@k: A Bayesian Framework for Large Language Model Evaluation") scores a model on a fixed
question set, so models ranked together must either share one (``"common"``: the questions
every model answered) or be scored each on its own (``"all"``: a model's pi-bar is the mean
over the questions it answered, and the scores are no longer on the same question set). The
crossed model (:func:`bayes_eval.models.crossed_model`) puts every model on the full question
set through shared question difficulties.

:func:`select_questions` applies the choice to ``R[model, question, trial]`` (NaN = no trial)
and reports what it did; ``"error"`` refuses an incomplete design with a message that names
the choices.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple, SupportsInt

import numpy as np
import xarray as xr

from bayes_eval.inputs import shown

__all__ = ["QUESTION_MODES", "QuestionSelection", "answered", "select_questions"]


QuestionMode = Literal["error", "common", "all"]
#: The choices of ``questions=`` (``--questions``).
QUESTION_MODES = ("error", "common", "all")


class QuestionSelection(NamedTuple):
    """What :func:`select_questions` kept.

    Attributes
    ----------
    R : xarray.DataArray
        The results on the kept questions.
    R0 : xarray.DataArray or None
        The prior runs on the kept questions.
    mode : str
        ``"error"``, ``"common"`` or ``"all"``.
    total : int
        Questions in the input.
    kept : int
        Questions kept.
    answered : dict of str to int
        Questions each model answered in the input (at least one scored trial).
    covered : dict of str to int
        Questions each model is scored on after the selection.
    dropped : dict of str to int
        Answered questions of each model that ``"common"`` dropped (zeros otherwise).
    complete : bool
        Whether every model answered every kept question.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.logs.design import select_questions
    >>> R = xr.DataArray([[[1.0], [0.0], [1.0]], [[1.0], [np.nan], [0.0]]],
    ...                  dims=("model", "question", "trial"),
    ...                  coords={"model": ["a", "b"], "question": ["q1", "q2", "q3"]})
    >>> sel = select_questions(R, "common")
    >>> sel.R["question"].values.tolist(), sel.answered, sel.covered
    (['q1', 'q3'], {'a': 3, 'b': 2}, {'a': 2, 'b': 2})
    >>> sel.summary()["complete"]
    True
    """

    R: xr.DataArray
    R0: xr.DataArray | None
    mode: str
    total: int
    kept: int
    answered: dict[str, int]
    covered: dict[str, int]
    dropped: dict[str, int]
    complete: bool

    def summary(self) -> dict[str, object]:
        """JSON-ready description (everything but the arrays)."""
        return {k: v for k, v in self._asdict().items() if k not in ("R", "R0")}


def answered(R: xr.DataArray) -> xr.DataArray:
    """Boolean ``(model, question)``: the pairs with at least one scored trial (not NaN).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial`` (any order); NaN = no trial.

    Returns
    -------
    xarray.DataArray of bool
        Dims ``model``, ``question``: whether the model answered the question.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.logs.design import answered
    >>> R = xr.DataArray([[[1.0], [0.0]], [[1.0], [np.nan]]], dims=("model", "question", "trial"),
    ...                  coords={"model": ["a", "b"], "question": ["q1", "q2"]})
    >>> answered(R).values.tolist()
    [[True, True], [True, False]]
    """
    R = R.transpose("model", "question", "trial")
    seen = ~np.isnan(R.values.astype(float))
    return xr.DataArray(
        seen.any(axis=-1),
        dims=("model", "question"),
        coords={"model": R["model"].values, "question": R["question"].values},
    )


def _per_model(names: Iterable[object], values: Iterable[SupportsInt]) -> dict[str, int]:
    """Model name -> count."""
    return {str(m): int(v) for m, v in zip(names, values, strict=True)}


def _choice(option: str, value: str) -> str:
    """``--questions common`` for a command-line option, ``questions='common'`` otherwise."""
    return f"{option} {value}" if option.startswith("-") else f"{option}={value!r}"


def select_questions(
    R: xr.DataArray,
    questions: QuestionMode = "error",
    *,
    R0: xr.DataArray | None = None,
    source: str = "the results",
    option: str = "questions",
) -> QuestionSelection:
    """Choose the questions to rank on (module docstring).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model, question, trial``; NaN = no trial.
    questions : {"error", "common", "all"}
        ``"error"`` (default): refuse unless every model answered every question;
        ``"common"``: keep the questions every model answered; ``"all"``: keep every question
        (each model is then scored on the questions it answered).
    R0 : xarray.DataArray, optional
        Prior runs, reduced to the kept questions.
    source : str, keyword-only
        How messages name ``R``.
    option : str, keyword-only
        How messages name this choice (``"--questions"`` from the command line).

    Returns
    -------
    QuestionSelection
        The kept results (and prior runs), and what each model answered and is scored on.

    Raises
    ------
    ValueError
        With ``"error"`` for an incomplete design, with ``"common"`` when no question is
        answered by every model, for an unknown mode, or when some model answered nothing.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray([[[1.0], [0.0], [1.0]], [[1.0], [np.nan], [0.0]]],
    ...                  dims=("model", "question", "trial"),
    ...                  coords={"model": ["a", "b"], "question": ["q1", "q2", "q3"]})
    >>> sel = select_questions(R, "common")
    >>> sel.kept, sel.dropped
    (2, {'a': 1, 'b': 0})
    """
    if questions not in QUESTION_MODES:
        raise ValueError(f"{option} is {shown(questions)}; expected one of {list(QUESTION_MODES)}.")
    if "model" not in R.dims:
        R = R.expand_dims(model=["model_0"])
    seen = answered(R)
    names = seen["model"].values
    per_model = seen.values.sum(axis=1)
    total = int(seen.sizes["question"])
    nothing = per_model == 0
    if nothing.any():
        raise ValueError(
            f"{source}: model {shown(str(names[np.flatnonzero(nothing)[0]]))} has no scored "
            "attempt at all; expected every model to answer at least one question."
        )
    everyone = seen.values.all(axis=0)
    complete = bool(everyone.all())
    counts = _per_model(names, per_model)
    if questions == "error" and not complete:
        _refuse_incomplete(seen, everyone, source, option)
    if questions == "common" and not complete:
        if not everyone.any():
            raise ValueError(
                f"{source}: no question is answered by every one of the {names.size} models; "
                f"expected some common questions for {_choice(option, 'common')}: use "
                f"{_choice(option, 'all')} (each model on its own questions) or the crossed "
                "model (one scale for all)."
            )
        keep = seen["question"].values[everyone]
        R = R.sel(question=keep)
        if R0 is not None:
            R0 = R0.sel(question=[q for q in keep if q in set(R0["question"].values)])
        dropped = _per_model(names, per_model - everyone.sum())
        covered = dict.fromkeys(counts, int(everyone.sum()))
        return QuestionSelection(
            R, R0, "common", total, int(everyone.sum()), counts, covered, dropped, True
        )
    zeros = dict.fromkeys(counts, 0)
    return QuestionSelection(R, R0, questions, total, total, counts, counts, zeros, complete)


def _refuse_incomplete(seen: xr.DataArray, everyone: np.ndarray, source: str, option: str) -> None:
    missing = ~seen.values
    m, q = np.argwhere(missing)[0]
    per_model = seen.values.sum(axis=1)
    n = int(missing.sum())
    raise ValueError(
        f"{source}: model {shown(str(seen['model'].values[m]))} has no scored attempt on "
        f"question {shown(str(seen['question'].values[q]))} ({n} such pair{'s' if n > 1 else ''}; "
        f"the models answered {int(per_model.min())} to {int(per_model.max())} of "
        f"{seen.sizes['question']} questions); expected every model to answer every question. "
        f"Choose {_choice(option, 'common')} (rank on the {int(everyone.sum())} questions every "
        f"model answered) or {_choice(option, 'all')} (each model on the questions it "
        "answered)."
    )
