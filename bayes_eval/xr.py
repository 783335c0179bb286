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
from numpy.typing import ArrayLike

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
) -> xr.Dataset:
    r"""The per-question prior each model's posterior used.

    Variables over ``model``: ``prior`` (label), ``prior_alpha`` over ``(model, category)``
    (the fixed prior, or the mode of a learned one), ``prior_kappa`` (its concentration
    :math:`\kappa = \sum_k a_k`: small means questions are solved always or never) and
    ``prior_converged``. See :mod:`bayes_eval.priors`.
    """
    R, values, mask = _unpack(R, skipna)
    r0, r0_mask = _aligned_prior(R0, R)
    post = _bayes.posterior(values, w, r0, prior=prior, pool=pool, mask=mask, R0_mask=r0_mask)
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
) -> xr.Dataset:
    """Bayes@N ``mu``, ``sigma``, ``lo``, ``hi`` per model (see :func:`bayes_eval.bayes_ci`)."""
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
) -> xr.Dataset:
    """Everything a leaderboard needs, per model: Bayes@N with interval, rank by ``mu``
    (competition), CI-aware rank (Hariri et al., "Don't Pass@k", §2.7.1, dense, z threshold
    ``Phi^{-1}(confidence)``), the non-chaining rank interval, pairwise ``z`` and
    ``P(row > column)`` over ``(model, model_bis)``, and the prior every row used
    (:func:`prior_table`).

    Intervals are clipped into the support of pi-bar, ``[min w, max w]``.
    The default prior is ``"empirical"``, learned per model and integrated over its
    uncertainty (:mod:`bayes_eval.priors`), whose intervals hold their coverage on real
    benchmarks; ``prior="uniform"`` reproduces the paper.
    """
    if "model" not in R.dims:
        raise ValueError("rank_table needs several models: R must have a 'model' dim.")
    if alpha0 is not None:
        prior = "uniform" if prior == "empirical" else prior
    ds = bayes_ci(
        R,
        w,
        R0,
        confidence=confidence,
        bounds="support",
        interval=interval,
        prior=prior,
        pool=pool,
        alpha0=alpha0,
        skipna=skipna,
    )
    ds = ds.merge(
        prior_table(
            R, w, R0, prior=alpha0 if alpha0 is not None else prior, pool=pool, skipna=skipna
        )
    )
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


_CHUNK = 4_000_000  # gamma variates drawn at once by posterior_tree (memory bound)


def _dirichlet_draws(nu: np.ndarray, n: int, rng: np.random.Generator, w, keep_pi: bool):
    """``n`` draws of ``pi ~ Dir(nu)`` (nu of shape ``(..., M, K)`` or ``(n, ..., M, K)``
    already per draw) as ``(pi_bar, pi)``; pi is ``None`` unless ``keep_pi``."""
    per_draw = nu.ndim == 4
    step = max(1, _CHUNK // max(nu[0].size if per_draw else nu.size, 1))
    bars, pis = [], []
    for i in range(0, n, step):
        k = min(step, n - i)
        conc = nu[i : i + k] if per_draw else np.broadcast_to(nu, (k, *nu.shape))
        g = rng.standard_gamma(conc)
        pi = g / g.sum(axis=-1, keepdims=True)
        bars.append((pi @ w).mean(axis=-1))
        if keep_pi:
            pis.append(pi)
    return np.concatenate(bars), (np.concatenate(pis) if keep_pi else None)


def posterior_tree(
    R: xr.DataArray | ArrayLike,
    w=None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec = "uniform",
    pool: Pool = "model",
    draws: int = 1000,
    chains: int = 4,
    seed: int = 0,
    include_pi: bool = False,
    include_prior: bool = True,
    models=None,
    skipna: bool = False,
) -> xr.DataTree:
    r"""Exact draws of the closed-form Bayes@N posterior as an ArviZ-style ``DataTree``.

    Every per-question posterior is :math:`\mathrm{Dir}(\nu_\alpha)`,
    :math:`\nu_\alpha = \alpha_0 + n^0_\alpha + n_\alpha` (Hariri et al., "Don't Pass@k: A
    Bayesian Framework for Large Language Model Evaluation", §2.3), so independent draws of
    :math:`\pi_\alpha` (normalised Gamma variates) give exact draws of
    :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha`. Under a learned prior
    (``"empirical"``) every draw first picks a node of the hyperparameter quadrature with its
    posterior weight, then draws from that node's Dirichlet posteriors (the mixture of
    :mod:`bayes_eval.priors`). The draws are independent: ``chain`` is only a split of them,
    so r-hat is 1 and ESS is the number of draws up to Monte Carlo noise. The tree has the
    layout of a NUTS fit of :func:`bayes_eval.models.matching_model` (same variable names and
    dims), so ``arviz_stats.summary`` and the plots of ``arviz_plots`` (and
    :mod:`bayes_eval.plotting.arviz`) apply to both paths. xarray only: no ArviZ import.

    Parameters
    ----------
    R : DataArray or array_like
        Results with dims ``("model", "question", "trial")`` (or an array, labelled with
        ``models``); one model without a ``model`` dim gets a ``model`` dim of length 1.
    w, R0, prior, pool, skipna
        As in :func:`bayes`.
    draws, chains : int, keyword-only
        Draws per chain and number of chains (``draws * chains`` exact draws).
    seed : int, keyword-only
        Seed of the draws.
    include_pi : bool, keyword-only
        Also store ``pi`` over ``(chain, draw, model, question, category)``.
    include_prior : bool, keyword-only
        Add a ``prior`` group with draws of ``pi_bar`` (and ``pi``) under the prior,
        :math:`\mathrm{Dir}(\alpha_0 + n^0_\alpha)` per question, for posterior-vs-prior plots.
        Only for fixed priors; a learned prior has no single prior to draw from and the group
        is left out.
    models : sequence of str, keyword-only
        Model names when ``R`` is not a DataArray.

    Returns
    -------
    xarray.DataTree
        ``posterior`` (``pi_bar`` over ``(chain, draw, model)``, ``pi``) and ``prior`` groups.
    """
    for name, value in (("draws", draws), ("chains", chains)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} is {shown(value)}; expected a positive integer.")
    if not isinstance(R, xr.DataArray):
        R = results_array(R, models=models)
    R, values, mask = _unpack(R, skipna)
    if "model" not in R.dims:
        R, values, mask = R.expand_dims(model=["model_0"]), values[None], mask
        mask = None if mask is None else mask[None]
        R0 = None if R0 is None else R0.expand_dims(model=["model_0"])
    r0, r0_mask = _aligned_prior(R0, R)
    post = _bayes.posterior(values, w, r0, prior=prior, pool=pool, mask=mask, R0_mask=r0_mask)
    draws, chains = int(draws), int(chains)
    rng, n, weights = np.random.default_rng(seed), draws * chains, post.w
    if isinstance(post, _bayes.MixturePosterior):
        # node per (draw, model) by inverse CDF of the posterior node weights
        cdf = np.cumsum(post.weights, axis=0)  # (J, L)
        u = rng.random((n, cdf.shape[1])) * cdf[-1]
        j = (u[:, None, :] >= cdf[None]).sum(axis=1).clip(max=cdf.shape[0] - 1)  # (n, L)
        nu = post.nu[j, np.arange(cdf.shape[1])[None, :]]  # (n, L, M, K)
        label = post.prior.label
    else:
        nu, label = post.nu, (prior if isinstance(prior, str) else "fixed")
    pi_bar, pi = _dirichlet_draws(nu, n, rng, weights, include_pi)
    coords = {
        "chain": np.arange(chains),
        "draw": np.arange(draws),
        "model": R["model"].values,
        "question": R["question"].values,
        "category": np.arange(weights.size),
    }

    def group(bar, p):
        data = {"pi_bar": (tuple(coords)[:3], bar.reshape(chains, draws, -1))}
        if p is not None:
            data["pi"] = (tuple(coords), p.reshape(chains, draws, *p.shape[1:]))
        return xr.Dataset(
            data, coords={k: coords[k] for k in tuple(coords)[: 3 + 2 * (p is not None)]}
        )

    tree = {"posterior": group(pi_bar, pi)}
    if include_prior and isinstance(post, _bayes.DirichletPosterior):
        base = post.nu - post.tally.counts  # alpha0 + n0 per question
        prior_bar, prior_pi = _dirichlet_draws(base, n, rng, weights, include_pi)
        tree["prior"] = group(prior_bar, prior_pi)
    dt = xr.DataTree.from_dict(tree)
    dt.attrs = {"estimator": "Bayes@N exact draws", "prior": str(label), "seed": int(seed)}
    return dt
