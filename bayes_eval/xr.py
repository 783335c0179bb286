"""xarray front end: labelled results in, labelled posteriors out.

Results are a ``DataArray`` with dims ``("model", "question", "trial")`` (or without
``model`` for one model); prior runs ``R0`` use ``("model", "question", "trial")`` too and are
aligned to ``R`` by label. Outputs are ``Dataset`` objects whose variables are DataArrays over
``model`` (and ``k`` for the Pass family, ``model_bis`` for pairwise matrices).

Missing trials are ``NaN``: an error unless ``skipna=True`` says NaN marks a missing trial.

Examples
--------
>>> import numpy as np, xarray as xr
>>> from bayes_eval import xr as bxr
>>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
>>> ds = bxr.bayes_ci(R)
>>> [round(float(v), 4) for v in ds["mu"]]
[0.6, 0.7]
"""

from __future__ import annotations

import numpy as np
import xarray as xr

import bayes_eval.avg_at_n as _avg
import bayes_eval.bayes_at_n as _bayes
import bayes_eval.pass_family as _pass
from bayes_eval.inputs import shown
from bayes_eval.priors import Pool, PriorSpec, resolve_prior
from bayes_eval.ranking import (
    confidence_to_z,
    pairwise_confidence,
    pairwise_z,
    rank,
    rank_interval,
    rank_with_ci,
)
from bayes_eval.xr_base import (
    _aligned_prior,
    _dataset,
    _model_coords,
    _unpack,
    results_array,
)
from bayes_eval.xr_tree import posterior_tree

__all__ = [
    "avg_ci",
    "bayes",
    "bayes_ci",
    "pass_family_ci",
    "posterior_tree",
    "prior_table",
    "rank_table",
    "results_array",
]


def bayes(
    R: xr.DataArray,
    w=None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec = "uniform",
    pool: Pool = "model",
    alpha0=None,
    skipna: bool = False,
) -> xr.Dataset:
    """Bayes@N ``mu`` and ``sigma`` per model (see :func:`bayes_eval.bayes`)."""
    R, values, mask = _unpack(R, skipna)
    r0, r0_mask = _aligned_prior(R0, R)
    mu, sigma = _bayes.bayes(
        values, w, r0, prior=prior, pool=pool, alpha0=alpha0, mask=mask, R0_mask=r0_mask
    )
    return _dataset(R, ("mu", "sigma"), (mu, sigma), {"estimator": "Bayes@N"})


def prior_table(
    R: xr.DataArray,
    w=None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec = "empirical",
    pool: Pool = "model",
    skipna: bool = False,
    fractional: bool = False,
    answered_only: bool = False,
) -> xr.Dataset:
    r"""The per-question prior each model's posterior used.

    Variables over ``model``: ``prior`` (label), ``prior_alpha`` over ``(model, category)``
    (the fixed prior, or the mode of a learned one), ``prior_kappa`` (its concentration
    :math:`\kappa = \sum_k a_k`: small means questions are solved always or never) and
    ``prior_converged``. See :mod:`bayes_eval.priors`.
    """
    R, values, mask = _unpack(R, skipna)
    r0, r0_mask = _aligned_prior(R0, R)
    post = _bayes.posterior(
        values,
        w,
        r0,
        prior=prior,
        pool=pool,
        mask=mask,
        R0_mask=r0_mask,
        fractional=fractional,
        answered_only=answered_only,
    )
    return _prior_dataset(R, post, prior, pool)


def _prior_dataset(R: xr.DataArray, post, prior: PriorSpec, pool: Pool) -> xr.Dataset:
    """The variables of :func:`prior_table` from a built posterior."""
    if isinstance(post, _bayes.MixturePosterior):
        fitted = post.prior
    else:  # a fixed prior (or a learned one that came out as a single node)
        fitted = resolve_prior(prior, np.zeros((1, post.w.size)), pool=pool)
    n_models = R.sizes.get("model", 1)
    alpha = np.broadcast_to(fitted.alpha, (n_models, fitted.alpha.shape[-1]))
    conv = np.broadcast_to(fitted.converged, (n_models,))
    label = np.full(n_models, fitted.label, dtype=object)
    dims = ("model",) if "model" in R.dims else ()
    squeeze = (lambda x: x) if dims else (lambda x: x[0])
    ds = xr.Dataset(
        {
            "prior": (dims, squeeze(label).astype(str)),
            "prior_alpha": ((*dims, "category"), squeeze(alpha)),
            "prior_kappa": (dims, squeeze(alpha.sum(axis=-1))),
            "prior_converged": (dims, squeeze(conv)),
        },
        coords=_model_coords(R),
    )
    ds.attrs["prior"] = fitted.label
    return ds


def bayes_ci(
    R: xr.DataArray,
    w=None,
    R0: xr.DataArray | None = None,
    *,
    confidence: float = 0.95,
    bounds=None,
    interval: str = "normal",
    prior: PriorSpec = "uniform",
    pool: Pool = "model",
    alpha0=None,
    skipna: bool = False,
    fractional: bool = False,
    answered_only: bool = False,
) -> xr.Dataset:
    """Bayes@N ``mu``, ``sigma``, ``lo``, ``hi`` per model (see :func:`bayes_eval.bayes_ci`;
    ``fractional`` for graded scores, ``answered_only`` for incomplete designs)."""
    R, values, mask = _unpack(R, skipna)
    r0, r0_mask = _aligned_prior(R0, R)
    out = _bayes.bayes_ci(
        values,
        w,
        r0,
        confidence=confidence,
        bounds=bounds,
        interval=interval,
        prior=prior,
        pool=pool,
        alpha0=alpha0,
        mask=mask,
        R0_mask=r0_mask,
        fractional=fractional,
        answered_only=answered_only,
    )
    attrs = {"estimator": "Bayes@N", "confidence": confidence, "interval": interval}
    return _dataset(R, ("mu", "sigma", "lo", "hi"), out, attrs)


def avg_ci(
    R: xr.DataArray,
    w=None,
    *,
    confidence: float = 0.95,
    bounds=None,
    interval: str = "normal",
    prior: PriorSpec = "uniform",
    pool: Pool = "model",
    scale: str = "pi_bar",
    alpha0=None,
    skipna: bool = False,
) -> xr.Dataset:
    """avg@N ``a`` with ``sigma``, ``lo``, ``hi`` per model: the posterior of pi-bar, or the
    paper's latent scale with ``scale="latent"`` (see :func:`bayes_eval.avg_ci`)."""
    R, values, mask = _unpack(R, skipna)
    out = _avg.avg_ci(
        values,
        w,
        confidence=confidence,
        bounds=bounds,
        interval=interval,
        prior=prior,
        pool=pool,
        scale=scale,
        alpha0=alpha0,
        mask=mask,
    )
    attrs = {"estimator": "avg@N", "confidence": confidence, "interval": interval, "scale": scale}
    return _dataset(R, ("a", "sigma", "lo", "hi"), out, attrs)


_PASS = {
    "pass_at_k": (_pass.pass_at_k, _pass.pass_at_k_ci),
    "pass_hat_k": (_pass.pass_hat_k, _pass.pass_hat_k_ci),
    "mg_pass_at_k": (_pass.mg_pass_at_k, _pass.mg_pass_at_k_ci),
    "g_pass_at_k_tau": (_pass.g_pass_at_k_tau, _pass.g_pass_at_k_tau_ci),
}


def pass_family_ci(
    R: xr.DataArray,
    k,
    *,
    metric: str = "pass_at_k",
    tau: float | None = None,
    confidence: float = 0.95,
    bounds=(0.0, 1.0),
    interval: str = "normal",
    prior: PriorSpec = "uniform",
    pool: Pool = "model",
    alpha0: float | None = None,
    beta0: float | None = None,
    skipna: bool = False,
) -> xr.Dataset:
    """A Pass family metric for one or several ``k``: variables ``estimate`` (the unbiased
    point estimate from the trials), ``posterior_mean`` (the posterior mean of the latent
    metric under ``prior``: a different quantity, see :mod:`bayes_eval.pass_family`),
    ``sigma``, ``lo``, ``hi`` over ``(model, k)``.

    ``metric`` is one of ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau`` (needs ``tau``),
    ``mg_pass_at_k``.
    """
    if metric not in _PASS:
        raise ValueError(f"metric is {shown(metric)}; expected one of {sorted(_PASS)}.")
    point_fn, ci_fn = _PASS[metric]
    extra = (tau,) if metric == "g_pass_at_k_tau" else ()
    if metric == "g_pass_at_k_tau" and tau is None:
        raise ValueError("metric 'g_pass_at_k_tau' needs tau in (0, 1].")
    R, values, mask = _unpack(R, skipna)
    ks = np.atleast_1d(k)
    cols = {"estimate": [], "posterior_mean": [], "sigma": [], "lo": [], "hi": []}
    for kk in ks:
        kk = int(kk)
        cols["estimate"].append(point_fn(values, kk, *extra, mask=mask))
        out = ci_fn(
            values,
            kk,
            *extra,
            confidence=confidence,
            bounds=bounds,
            interval=interval,
            prior=prior,
            pool=pool,
            alpha0=alpha0,
            beta0=beta0,
            mask=mask,
        )
        for name, v in zip(("posterior_mean", "sigma", "lo", "hi"), out, strict=True):
            cols[name].append(v)
    dims = ("k", "model") if "model" in R.dims else ("k",)
    coords = {"k": ks, **_model_coords(R)}
    ds = xr.Dataset({n: (dims, np.asarray(v)) for n, v in cols.items()}, coords=coords)
    ds.attrs = {
        "metric": metric,
        "confidence": confidence,
        "interval": interval,
        **({"tau": tau} if tau else {}),
    }
    return ds.transpose(*(("model", "k") if "model" in R.dims else ("k",)))


def rank_table(
    R: xr.DataArray,
    w=None,
    R0: xr.DataArray | None = None,
    *,
    confidence: float = 0.95,
    interval: str = "normal",
    prior: PriorSpec = "empirical",
    pool: Pool = "model",
    alpha0=None,
    skipna: bool = False,
    fractional: bool = False,
    answered_only: bool = False,
) -> xr.Dataset:
    """Everything a leaderboard needs, per model: Bayes@N with interval, rank by ``mu``
    (competition), CI-aware rank (Hariri et al., "Don't Pass@k", §2.7.1, dense, z threshold
    ``Phi^{-1}(confidence)``), the non-chaining rank interval, pairwise ``z`` and
    ``P(row > column)`` over ``(model, model_bis)``, and the prior every row used
    (:func:`prior_table`).

    Intervals are clipped into the support of pi-bar, ``[min w, max w]``. ``questions``
    counts the questions each model has a trial of; with ``answered_only`` each model is
    scored on those alone (then the scores are not on one question set), and ``fractional``
    reads graded scores (:mod:`bayes_eval.graded`). The default prior is ``"empirical"``,
    learned per model and integrated over its uncertainty (:mod:`bayes_eval.priors`), whose
    intervals hold their coverage on real benchmarks; ``prior="uniform"`` reproduces the
    paper.
    """
    if "model" not in R.dims:
        raise ValueError("rank_table needs several models: R must have a 'model' dim.")
    if alpha0 is not None:
        prior = "uniform" if prior == "empirical" else prior
    R, values, mask = _unpack(R, skipna)
    r0, r0_mask = _aligned_prior(R0, R)
    spec = alpha0 if alpha0 is not None else prior
    post = _bayes.posterior(
        values,
        w,
        r0,
        prior=spec,
        pool=pool,
        mask=mask,
        R0_mask=r0_mask,
        fractional=fractional,
        answered_only=answered_only,
    )
    out = _bayes.posterior_ci(post, confidence=confidence, bounds="support", interval=interval)
    attrs = {"estimator": "Bayes@N", "confidence": confidence, "interval": interval}
    ds = _dataset(R, ("mu", "sigma", "lo", "hi"), out, attrs)
    ds = ds.merge(_prior_dataset(R, post, spec, pool))
    observed = ~np.isnan(values) if values.dtype.kind == "f" else np.ones(values.shape, bool)
    if mask is not None:
        observed &= ~mask
    ds["questions"] = ("model", observed.any(axis=-1).sum(axis=-1))
    ds.attrs["prior"] = str(ds["prior"].values[0]) if ds.sizes["model"] else ""
    mu, sigma = ds["mu"].values, ds["sigma"].values
    z_thr = confidence_to_z(confidence)
    lower, upper = rank_interval(mu, sigma, z_threshold=z_thr)
    ds["rank"] = ("model", rank(mu))
    ds["rank_ci"] = ("model", rank_with_ci(mu, sigma, z_threshold=z_thr))
    ds["rank_lower"] = ("model", lower)
    ds["rank_upper"] = ("model", upper)
    coords = {"model_bis": ds["model"].values}
    ds["z"] = xr.DataArray(pairwise_z(mu, sigma), dims=("model", "model_bis"), coords=coords)
    ds["prob_better"] = xr.DataArray(
        pairwise_confidence(mu, sigma), dims=("model", "model_bis"), coords=coords
    )
    ds.attrs["z_threshold"] = z_thr
    return ds
