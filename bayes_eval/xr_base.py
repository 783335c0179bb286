"""Shared pieces of the xarray front end (:mod:`bayes_eval.xr`): the standard dims, labelled
results from arrays, unpacking a ``DataArray`` into values and a missing-trial mask, and the
alignment of prior runs ``R0`` to ``R`` by label."""

from __future__ import annotations

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

__all__ = ["results_array"]

_DIMS = ("model", "question", "trial")


def results_array(R: ArrayLike, *, models=None, questions=None) -> xr.DataArray:
    """Wrap a ``(L, M, N)`` or ``(M, N)`` array as a DataArray with the standard dims."""
    arr = np.asarray(R)
    dims = _DIMS if arr.ndim == 3 else _DIMS[1:]
    coords = {}
    if models is not None and arr.ndim == 3:
        coords["model"] = list(models)
    if questions is not None:
        coords["question"] = list(questions)
    return xr.DataArray(arr, dims=dims, coords=coords)


def _unpack(R: xr.DataArray, skipna: bool, name: str = "R"):
    if not isinstance(R, xr.DataArray):
        raise ValueError(f"{name} is a {type(R).__name__}; expected an xarray.DataArray.")
    want = _DIMS if "model" in R.dims else _DIMS[1:]
    if set(R.dims) != set(want):
        raise ValueError(f"{name} has dims {R.dims}; expected {_DIMS} or {_DIMS[1:]}.")
    R = R.transpose(*want)
    values = R.values
    mask = None
    if not skipna and values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(
            f"{name} contains NaN ({int(np.isnan(values).sum())} entries); expected integer "
            "labels. If NaN marks missing trials, pass skipna=True."
        )
    if skipna and values.dtype.kind == "f":
        mask = np.isnan(values)
        if not mask.any():
            mask = None
    return R, values, mask


def _model_coords(R: xr.DataArray):
    return {"model": R["model"].values} if "model" in R.dims else {}


def _dataset(R: xr.DataArray, names, values, attrs) -> xr.Dataset:
    dims = ("model",) if "model" in R.dims else ()
    data = {n: (dims, np.asarray(v)) for n, v in zip(names, values, strict=True)}
    return xr.Dataset(data, coords=_model_coords(R), attrs=attrs)


def _aligned_prior(R0: xr.DataArray | None, R: xr.DataArray):
    """Align R0 to R's models and questions; absent entries become masked (D_alpha = 0)."""
    if R0 is None:
        return None, None
    R0, _, _ = _unpack(R0, skipna=True, name="R0")
    if ("model" in R.dims) != ("model" in R0.dims):
        raise ValueError("R0 must have a 'model' dim exactly when R has one.")
    extra_q = np.setdiff1d(R0["question"].values, R["question"].values)
    if extra_q.size:
        raise ValueError(
            f"R0 has questions that R does not have ({extra_q[:5].tolist()}); expected R0's "
            "questions to be a subset of R's."
        )
    indexers = {"question": R["question"].values}
    if "model" in R.dims:
        indexers["model"] = R["model"].values
    aligned = R0.astype(float).reindex(indexers)
    values = aligned.values
    mask = np.isnan(values)
    return np.where(mask, 0, values).astype(np.int64), mask if mask.any() else None
