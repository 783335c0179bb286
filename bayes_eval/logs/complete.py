"""Complete results (no failed or missing trial) as integer arrays.

They serve the analyses that need every trial (prior elicitation's sensitivity report).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

__all__ = ["complete_results", "read_results"]


def read_results(
    files: str | Sequence[str], format: str | None = None, **options: Any
) -> xr.DataArray:
    """``R[model, question, trial]`` of a log of any format (NaN = failed or missing).

    Parameters
    ----------
    files : str or sequence of str
        The log's files or folders, or ``dataset:NAME`` for a shipped dataset.
    format : str, optional
        The log's format (one of :data:`bayes_eval.logs.read.FORMATS`); default detected
        from the files.
    **options
        The format reader's options, passed to :func:`bayes_eval.logs.read.read_eval_log`.

    Returns
    -------
    xarray.DataArray
        The scores with dims ``model``, ``question``, ``trial``.

    Examples
    --------
    >>> from bayes_eval.logs.complete import read_results
    >>> R = read_results("dataset:taubench_airline_gpt4o")
    >>> dict(R.sizes)
    {'model': 1, 'question': 50, 'trial': 4}
    """
    from bayes_eval.logs import read_eval_log

    return read_eval_log(files, format=format, **options).results()


def complete_results(
    R: xr.DataArray, *, source: str = "the results", purpose: str = "this analysis"
) -> tuple[NDArray[np.int64], list[str]]:
    """``R`` as an integer array ``(model, question, trial)`` with its model names.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial`` in this order (NaN = failed or
        missing), e.g. from :func:`bayes_eval.logs.complete.read_results`.
    source : str, optional
        How the message names ``R``, default ``"the results"``.
    purpose : str, optional
        What needs complete results, for the message; default ``"this analysis"``.

    Returns
    -------
    R : numpy.ndarray of int64, shape (L, M, N)
        The categories.
    models : list of str
        The model names, along the first axis.

    Raises
    ------
    ValueError
        When a trial is missing or failed (naming ``source`` and ``purpose``).

    Examples
    --------
    >>> from bayes_eval.logs.complete import complete_results, read_results
    >>> R, models = complete_results(read_results("dataset:taubench_airline_gpt4o"))
    >>> R.shape, R.dtype.name, models
    ((1, 50, 4), 'int64', ['gpt-4o'])
    """
    if np.isnan(R.values).any():
        raise ValueError(f"{source}: {purpose} needs complete results (no missing trials).")
    return R.values.astype(np.int64), [str(m) for m in R["model"].values]
