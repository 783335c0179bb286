"""Sampling a bayes_eval model with NUTS, and saving/loading the result as NetCDF.

The result is an ``xarray.DataTree`` (ArviZ 1's InferenceData) with the standard groups
``posterior``, ``sample_stats``, ``observed_data`` and ``constant_data``, plus
``closed_form``: the Bayes@N ``mu`` and ``sigma`` for the same data (see each builder's
``reference_note``, stored as the group's ``note`` attribute). Models that integrate ``pi``
out get ``pi`` and ``pi_bar`` added to ``posterior``, drawn exactly from the conditional
Dirichlet with a generator seeded from ``seed``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pymc as pm
import xarray as xr

from bayes_eval.bayes_at_n import DirichletPosterior
from bayes_eval.models.model_data import ModelInfo

__all__ = ["closed_form_dataset", "load", "sample", "save"]

Sampler = Literal["pymc", "nutpie"]


def closed_form_dataset(info: ModelInfo) -> xr.Dataset:
    """``mu``/``sigma`` (and ``mu_<key>``/``sigma_<key>``) over ``model`` for a built model."""
    data = info.data
    out = {}
    for key, nu in info.reference.items():
        post = DirichletPosterior(nu=np.asarray(nu, float), w=data.w, tally=None)  # type: ignore[arg-type]
        mu, sigma = post.moments()
        suffix = f"_{key}" if key else ""
        out[f"mu{suffix}"] = ("model", mu)
        out[f"sigma{suffix}"] = ("model", sigma)
    return xr.Dataset(
        out, coords={"model": data.coords["model"]}, attrs={"note": info.reference_note}
    )


def sample(
    model: pm.Model,
    *,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    seed: int = 0,
    sampler: Sampler = "pymc",
    progressbar: bool = False,
    cores: int | None = None,
    target_accept: float | None = None,
) -> xr.DataTree:
    """Sample a model built by :mod:`bayes_eval.models` with NUTS.

    Parameters
    ----------
    model : pymc.Model
        From :func:`matching_model`, :func:`hierarchical_model`, :func:`crossed_model` or
        :func:`power_prior_model`.
    draws, tune, chains : int, keyword-only
    seed : int, keyword-only
        Seeds the sampler and the exact conditional draws; with
        ``PYTENSOR_FLAGS=numba__fastmath=False`` (set by :mod:`bayes_eval.models` unless you
        chose otherwise) the same seed gives the same draws.
    sampler : {"pymc", "nutpie"}, keyword-only
        PyMC's NUTS or nutpie's.
    progressbar : bool, keyword-only
    cores : int, optional, keyword-only
        Parallel chains (default: PyMC's choice).
    target_accept : float, optional, keyword-only
        NUTS target acceptance rate in (0, 1); default: the model's own (0.8, PyMC's, except
        :func:`crossed_model`, 0.95; see its docstring).

    Returns
    -------
    xarray.DataTree
    """
    info: ModelInfo | None = getattr(model, "bayes_eval_info", None)
    if info is None:
        raise ValueError("model was not built by bayes_eval.models; expected one of its builders.")
    if sampler not in ("pymc", "nutpie"):
        raise ValueError(f"sampler is {sampler!r}; expected 'pymc' or 'nutpie'.")
    for name, value in (("draws", draws), ("tune", tune), ("chains", chains)):
        if int(value) != value or value < (0 if name == "tune" else 1):
            raise ValueError(f"{name} is {value!r}; expected a positive integer.")
    if target_accept is None:
        target_accept = info.target_accept
    if not (isinstance(target_accept, (int, float)) and 0 < target_accept < 1):
        raise ValueError(f"target_accept is {target_accept!r}; expected a number in (0, 1).")
    idata = pm.sample(
        draws=int(draws),
        tune=int(tune),
        chains=int(chains),
        cores=cores,
        random_seed=int(seed),
        nuts_sampler=sampler,
        progressbar=progressbar,
        target_accept=float(target_accept),
        model=model,
        compute_convergence_checks=False,
    )
    if info.conditional is not None:
        rng = np.random.default_rng([int(seed), 20261122])
        posterior = idata["posterior"].to_dataset()
        extra = info.conditional(posterior, rng)
        idata["posterior"] = xr.DataTree(posterior.assign(extra))
    idata["closed_form"] = xr.DataTree(closed_form_dataset(info))
    idata.attrs.update(
        {
            "bayes_eval_model": info.kind,
            "sampler": sampler,
            "seed": int(seed),
            "target_accept": float(target_accept),
        }
    )
    return idata


def save(idata: xr.DataTree, path: str | Path) -> Path:
    """Write a DataTree to NetCDF (h5netcdf)."""
    path = Path(path)
    idata.to_netcdf(path, engine="h5netcdf")
    return path


def load(path: str | Path) -> xr.DataTree:
    """Read a DataTree written by :func:`save` into memory."""
    with xr.open_datatree(Path(path), engine="h5netcdf") as tree:
        return tree.load()
