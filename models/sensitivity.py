"""Prior sensitivity: mu, sigma and ranks over a grid of prior strengths.

Four axes, each reported for every model:

* ``alpha0``: the Dirichlet concentration of the base prior (closed form; 1 = uniform);
* ``a0``: the power-prior weight of the prior runs ``R0`` (closed form; needs ``R0``);
* ``depth``: the number D of prior runs used, the first D columns of ``R0`` (closed form;
  Hariri et al., "Don't Pass@k", App. C, study D = 0..16);
* ``kappa``: the median of the log-normal prior on the concentration of
  :func:`bayes_eval.models.hierarchical_model` (NUTS, one fit per grid value).

The result is an ``xarray.Dataset`` with variables ``mu_<axis>``, ``sigma_<axis>`` and
``rank_<axis>`` over ``(model, <axis>)``; :func:`plot_prior_sensitivity` draws it. The NUTS
axis also has the convergence diagnostics of every fit (:func:`bayes_eval.models.diagnostics`,
as :func:`bayes_eval.models.sample` stored them) over ``kappa``: ``converged_kappa``,
``max_rhat_kappa``, ``min_ess_bulk_kappa``, ``min_ess_tail_kappa`` and ``divergences_kappa``.

:func:`sensitivity_report` puts the grid beside the power-scaling sensitivity of one fit per
model kind (:func:`bayes_eval.models.psense.power_scale_sensitivity`, Kallioinen et al.,
"Detecting and diagnosing prior and likelihood sensitivity with power-scaling", 2024): the
grid refits under other priors, power-scaling perturbs the prior of the fit at hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.models.hierarchical import hierarchical_model
from bayes_eval.models.matching import matching_model
from bayes_eval.models.model_data import model_data
from bayes_eval.models.psense import power_scale_sensitivity
from bayes_eval.models.sampling import Diagnostics, sample
from bayes_eval.nuts import NutsSettings
from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import DirichletPosterior
from bayes_eval.posteriors.priors import KAPPA_PRIOR
from bayes_eval.ranking.ranks import rank

__all__ = [
    "SensitivityReport",
    "plot_prior_sensitivity",
    "prior_sensitivity",
    "sensitivity_report",
]


def _closed(nu, w):
    return DirichletPosterior(nu=np.asarray(nu, float), w=w, tally=None).moments()  # type: ignore[arg-type]


def _add_axis(out: dict, axis: str, values, mus, sigmas) -> None:
    mus = np.stack(mus, axis=-1)
    sigmas = np.stack(sigmas, axis=-1)
    ranks = rank(mus, axis=0)  # over models, for every grid value
    out[f"mu_{axis}"] = (("model", axis), mus)
    out[f"sigma_{axis}"] = (("model", axis), sigmas)
    out[f"rank_{axis}"] = (("model", axis), ranks)
    out.setdefault("_coords", {})[axis] = np.asarray(values, dtype=float)


def prior_sensitivity(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    alpha0_grid: Sequence[float] = (0.1, 0.5, 1.0, 2.0, 5.0),
    a0_grid: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
    depth_grid: Sequence[int] | None = None,
    kappa_grid: Sequence[float] | None = None,
    kappa_log_sd: float = KAPPA_PRIOR[1],
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
    nuts: NutsSettings | None = None,
    **legacy: Any,
) -> xr.Dataset:
    """mu, sigma and competition ranks of L models over prior-strength grids (module docstring).

    Parameters
    ----------
    R, w, R0, mask, models
        As in :func:`bayes_eval.models.matching_model`. The ``a0`` and ``depth`` axes need
        ``R0``.
    alpha0_grid : sequence of float, keyword-only
        Dirichlet concentrations of the base prior (all > 0); default 0.1, 0.5, 1, 2, 5.
    a0_grid : sequence of float, keyword-only
        Power-prior weights of ``R0`` in [0, 1]; default 0, 0.25, 0.5, 0.75, 1 (used only
        with ``R0``).
    depth_grid : sequence of int, optional, keyword-only
        Default: 0, 1, 2, 4, ... up to the number of prior columns.
    kappa_log_sd : float, keyword-only
        Log-sd of the ``kappa`` prior on the NUTS axis; default the closed form's,
        ``KAPPA_PRIOR[1]`` (:data:`bayes_eval.posteriors.priors.KAPPA_PRIOR`).
    kappa_grid : sequence of float, optional, keyword-only
        Medians of the log-normal ``kappa`` prior (log-sd ``kappa_log_sd``); ``None`` skips
        the NUTS axis. ``mu_kappa``/``sigma_kappa`` are posterior mean and sd of pi-bar, and
        every fit's diagnostics are stored too (module docstring); a fit that fails a check
        also issues a :class:`~bayes_eval.models.ConvergenceWarning`.
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        The NUTS settings of the ``kappa`` fits (:func:`bayes_eval.models.sample`); unset
        draws and tuning steps are 500 each, with 2 chains by default here
        (``NutsSettings(chains=2)``). Raise ``target_accept`` when a fit diverges.
    **legacy : Any
        Deprecated: the NUTS settings one by one (``draws=...``), as before ``nuts``.

    Returns
    -------
    xarray.Dataset
        ``mu_<axis>``, ``sigma_<axis>`` and ``rank_<axis>`` over ``(model, <axis>)`` for the
        axes ``alpha0``, ``a0`` and ``depth`` (with ``R0``) and ``kappa`` (with
        ``kappa_grid``, plus its fits' diagnostics over ``kappa``); ``attrs``
        ``kappa_log_sd``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import prior_sensitivity
    >>> R = np.array([[[0, 1, 1, 1], [1, 1, 0, 1]], [[1, 1, 1, 1], [0, 1, 1, 1]]])  # 2 models
    >>> R0 = np.array([[[1, 1], [0, 1]], [[1, 0], [1, 1]]])  # 2 prior runs each
    >>> grid = prior_sensitivity(R, R0=R0, models=["a", "b"])
    >>> dict(grid.sizes)
    {'model': 2, 'alpha0': 5, 'a0': 5, 'depth': 3}
    >>> grid["mu_alpha0"].sel(model="a").values.round(4).tolist()
    [0.7381, 0.7, 0.6667, 0.625, 0.5714]
    >>> grid["rank_alpha0"].values.tolist()  # b ranks first under every alpha0
    [[2, 2, 2, 2, 2], [1, 1, 1, 1, 1]]
    """
    settings = NutsSettings.from_call(
        NutsSettings(chains=2) if nuts is None else nuts, legacy, owner="prior_sensitivity"
    )
    settings = settings.resolved(draws=500, tune=500, sampler="pymc")
    data = model_data(R, w, R0, mask=mask, models=models)
    out: dict = {}
    mus, sigmas = [], []
    for a in alpha0_grid:
        if not a > 0:
            raise ValueError(f"alpha0_grid contains {a!r}; expected values > 0.")
        mu, sigma = _closed(data.counts + a, data.w)
        mus.append(mu)
        sigmas.append(sigma)
    _add_axis(out, "alpha0", alpha0_grid, mus, sigmas)
    if R0 is not None:
        mus, sigmas = [], []
        for a0 in a0_grid:
            if not 0.0 <= a0 <= 1.0:
                raise ValueError(f"a0_grid contains {a0!r}; expected values in [0, 1].")
            mu, sigma = _closed(data.counts + data.alpha0 + a0 * data.prior_counts, data.w)
            mus.append(mu)
            sigmas.append(sigma)
        _add_axis(out, "a0", a0_grid, mus, sigmas)
        r0 = np.asarray(R0.values if isinstance(R0, xr.DataArray) else R0)
        d_max = r0.shape[-1]
        if depth_grid is None:
            depth_grid = sorted({0, *[d for d in (1, 2, 4, 8, 16, 32, 64) if d <= d_max], d_max})
        mus, sigmas = [], []
        for d in depth_grid:
            if not 0 <= d <= d_max:
                raise ValueError(f"depth_grid contains {d!r}; expected 0..{d_max} (columns of R0).")
            sub = model_data(R, w, r0[..., :d], mask=mask, models=models) if d else data
            n0 = sub.prior_counts if d else np.zeros_like(data.counts)
            mu, sigma = _closed(data.counts + data.alpha0 + n0, data.w)
            mus.append(mu)
            sigmas.append(sigma)
        _add_axis(out, "depth", depth_grid, mus, sigmas)
    if kappa_grid is not None:
        mus, sigmas, diags = [], [], []
        for median in kappa_grid:
            model = hierarchical_model(
                R, w, kappa_prior=(median, kappa_log_sd), mask=mask, models=models
            )
            idata = sample(model, settings)
            pi_bar = idata["posterior"]["pi_bar"]
            mus.append(pi_bar.mean(("chain", "draw")).values)
            sigmas.append(pi_bar.std(("chain", "draw")).values)
            diags.append(Diagnostics.from_attrs(idata.attrs))
        _add_axis(out, "kappa", kappa_grid, mus, sigmas)
        for field in ("converged", "max_rhat", "min_ess_bulk", "min_ess_tail", "divergences"):
            out[f"{field}_kappa"] = ("kappa", [getattr(d, field) for d in diags])
    coords = {"model": data.coords["model"], **out.pop("_coords")}
    return xr.Dataset(out, coords=coords, attrs={"kappa_log_sd": kappa_log_sd})


class SensitivityReport(NamedTuple):
    """The prior-strength grid and the power-scaling sensitivity of pi-bar.

    The grid is :func:`~bayes_eval.models.sensitivity.prior_sensitivity`; the power-scaling
    sensitivity of pi-bar is over ``(fit, component, model)`` with ``pi_bar_diagnosis`` over
    ``(fit, model)`` (:func:`~bayes_eval.models.psense.power_scale_sensitivity`).

    Attributes
    ----------
    grid : xarray.Dataset
        mu, sigma and ranks over the prior-strength grids.
    psense : xarray.Dataset
        ``pi_bar`` over ``(fit, component, model)`` and ``pi_bar_diagnosis`` over
        ``(fit, model)``.

    Examples
    --------
    >>> from bayes_eval.models.sensitivity import SensitivityReport
    >>> SensitivityReport._fields
    ('grid', 'psense')
    """

    grid: xr.Dataset
    psense: xr.Dataset


def sensitivity_report(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    fits: Sequence[str] = ("matching", "hierarchical"),
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
    nuts: NutsSettings | None = None,
    **grid_options: Any,
) -> SensitivityReport:
    """A prior-strength grid beside the power-scaling sensitivity of pi-bar.

    The grid is that of :func:`~bayes_eval.models.sensitivity.prior_sensitivity`.

    Parameters
    ----------
    R, w, R0, mask, models
        As in :func:`prior_sensitivity`.
    fits : sequence of {"matching", "hierarchical"}, keyword-only
        Models fitted with NUTS for the power-scaling part (one fit each).
    alpha0 : float or array_like, keyword-only
        Base prior of the matching fit (1: the uniform prior, which is flat, so its prior
        sensitivity is exactly 0; an elicited ``alpha`` gives a non-trivial check).
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        For the power-scaling fits (and the ``kappa`` axis of the grid); unset values are
        the model's own (1,000 draws and tuning steps, PyMC's sampler).
    **grid_options : Any
        Passed on to :func:`prior_sensitivity` (``alpha0_grid``, ``kappa_grid``, ...). NUTS
        settings given one by one here (``draws=...``) are deprecated.

    Returns
    -------
    SensitivityReport
        The grid, and the power-scaling sensitivity of every fit in ``fits``.

    Examples
    --------
    A toy run (one short chain, so its convergence warning is silenced here); the uniform
    prior is flat, so its prior sensitivity is exactly 0:

    >>> import warnings
    >>> import numpy as np
    >>> from bayes_eval.models import sensitivity_report
    >>> from bayes_eval.nuts import NutsSettings
    >>> R = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     nuts = NutsSettings(draws=100, tune=50, chains=1)
    ...     report = sensitivity_report(R, fits=("matching",), nuts=nuts)
    >>> list(report.grid.data_vars), report.psense["pi_bar"].dims
    (['mu_alpha0', 'sigma_alpha0', 'rank_alpha0'], ('fit', 'component', 'model'))
    >>> report.psense["pi_bar"].sel(component="prior").values.tolist()
    [[0.0]]
    """
    unknown = sorted(set(fits) - {"matching", "hierarchical"})
    if unknown or not fits:
        raise ValueError(f"fits is {list(fits)!r}; expected 'matching' and/or 'hierarchical'.")
    fields = set(NutsSettings().kwargs())
    legacy = {k: grid_options.pop(k) for k in list(grid_options) if k in fields}
    settings = NutsSettings.from_call(nuts, legacy, owner="sensitivity_report")
    settings = settings.resolved(draws=1000, tune=1000, sampler="pymc")
    grid = prior_sensitivity(R, w, R0, mask=mask, models=models, nuts=settings, **grid_options)
    parts = []
    for fit in fits:
        if fit == "matching":
            model = matching_model(R, w, R0, alpha0=alpha0, mask=mask, models=models)
        else:
            model = hierarchical_model(R, w, mask=mask, models=models)
        idata = sample(model, settings)
        parts.append(power_scale_sensitivity(idata, model, var_names=("pi_bar",)))
    ps = xr.concat(parts, dim="fit", combine_attrs="drop_conflicts")
    return SensitivityReport(grid, ps.assign_coords(fit=list(fits)))


def plot_prior_sensitivity(ds: xr.Dataset | SensitivityReport, path: str | Path) -> Path:
    """One panel per axis: mu -/+ sigma of every model against the prior strength (PNG).

    For a :class:`SensitivityReport`, a last panel with the power-scaling sensitivity of pi-bar
    (prior and likelihood per fit and model, the 0.05 threshold dashed).

    Parameters
    ----------
    ds : xarray.Dataset or SensitivityReport
        The grid of :func:`~bayes_eval.models.sensitivity.prior_sensitivity`, or a report of
        :func:`~bayes_eval.models.sensitivity.sensitivity_report`.
    path : str or pathlib.Path
        The PNG file to write.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import prior_sensitivity
    >>> R = np.array([[[0, 1, 1, 1], [1, 1, 0, 1]], [[1, 1, 1, 1], [0, 1, 1, 1]]])  # 2 models
    >>> R0 = np.array([[[1, 1], [0, 1]], [[1, 0], [1, 1]]])  # 2 prior runs each
    >>> grid = prior_sensitivity(R, R0=R0, models=["a", "b"])
    >>> import os
    >>> import tempfile
    >>> from bayes_eval.models.sensitivity import plot_prior_sensitivity
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = plot_prior_sensitivity(grid, os.path.join(tmp, "sensitivity.png"))
    ...     print(path.name, path.exists())
    sensitivity.png True
    """
    plt = pyplot()

    ps = ds.psense if isinstance(ds, SensitivityReport) else None
    ds = ds.grid if isinstance(ds, SensitivityReport) else ds
    axes_names = [a for a in ("alpha0", "a0", "depth", "kappa") if f"mu_{a}" in ds]
    n_panels = len(axes_names) + (ps is not None)
    fig, axes = plt.subplots(1, n_panels, figsize=(4.2 * n_panels, 3.8), squeeze=False)
    labels = {
        "alpha0": "Dirichlet alpha0",
        "a0": "power prior a0",
        "depth": "prior depth D",
        "kappa": "median of kappa prior",
    }
    for ax, name in zip(axes[0][: len(axes_names)], axes_names, strict=True):
        x = ds[name].values
        for m in ds["model"].values:
            mu = ds[f"mu_{name}"].sel(model=m).values
            sd = ds[f"sigma_{name}"].sel(model=m).values
            ax.plot(x, mu, marker="o", label=str(m))
            ax.fill_between(x, mu - sd, mu + sd, alpha=0.15)
        if name in ("alpha0", "kappa"):
            ax.set_xscale("log")
        ax.set_xlabel(labels[name])
        ax.set_ylabel("posterior mean of pi-bar (± sd)")
    axes[0][len(axes_names) - 1].legend(fontsize=7, loc="best")
    if ps is not None:
        _plot_psense(axes[0][-1], ps)
    fig.suptitle("Prior sensitivity")
    fig.tight_layout()
    return save_png(fig, path)


def _plot_psense(ax, ps: xr.Dataset) -> None:
    """Bars of prior and likelihood sensitivity of pi-bar per (fit, model)."""
    labels, prior, like = [], [], []
    for fit in ps["fit"].values:
        for m in ps["model"].values:
            v = ps["pi_bar"].sel(fit=fit, model=m)
            labels.append(f"{fit}\n{m}")
            prior.append(float(v.sel(component="prior")))
            like.append(float(v.sel(component="likelihood")))
    x = np.arange(len(labels))
    ax.bar(x - 0.2, prior, 0.4, label="prior")
    ax.bar(x + 0.2, like, 0.4, label="likelihood")
    ax.axhline(ps.attrs.get("threshold", 0.05), color="0.3", ls="--", lw=1)
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("power-scaling sensitivity of pi-bar")
    ax.legend(fontsize=7)
