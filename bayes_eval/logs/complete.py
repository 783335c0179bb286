"""Complete results (no failed or missing trial) as integer arrays, for the analyses that
need every trial (prior elicitation's sensitivity report)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from numpy.typing import NDArray

__all__ = ["complete_results", "read_results"]


def read_results(files: str | Sequence[str], format: str | None = None, **options) -> xr.DataArray:
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
