"""Complete results (no failed or missing trial) as integer arrays, for the analyses that
need every trial: sample-size planning, prior elicitation's sensitivity report, the
convergence study."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from numpy.typing import NDArray

__all__ = ["complete_pair", "complete_results", "read_results"]


def read_results(
    files: str | Sequence[str], format: str | None = None, **options
) -> xr.DataArray:
    """``R[model, question, trial]`` of a log of any format (NaN = failed or missing)."""
    from bayes_eval.logs import read_eval_log

    return read_eval_log(files, format=format, **options).results()


def complete_results(
    R: xr.DataArray, *, source: str = "the results", purpose: str = "this analysis"
) -> tuple[NDArray[np.int64], list[str]]:
    """``R`` as an integer array ``(model, question, trial)`` with its model names.

    Raises
    ------
    ValueError
        When a trial is missing or failed (naming ``source`` and ``purpose``).
    """
    if np.isnan(R.values).any():
        raise ValueError(f"{source}: {purpose} needs complete results (no missing trials).")
    return R.values.astype(np.int64), [str(m) for m in R["model"].values]


def complete_pair(
    R: xr.DataArray, model_a: str, model_b: str, *, source: str = "the results"
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The complete ``(question, trial)`` results of two different models of ``R``.

    Raises
    ------
    ValueError
        For a model not in ``R``, the same model twice, or a missing trial of either.
    """
    names = [str(m) for m in R["model"].values]
    for name in (model_a, model_b):
        if name not in names:
            raise ValueError(f"model {name!r} is not in {source}; expected one of {names}.")
    if model_a == model_b:
        raise ValueError(f"model_a and model_b are both {model_a!r}; expected two models.")
    pair = R.sel(model=[model_a, model_b])
    if np.isnan(pair.values).any():
        raise ValueError("planning needs complete results (no missing trials) for both models.")
    values = pair.values.astype(np.int64)
    return values[0], values[1]
