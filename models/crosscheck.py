r"""Cross-check of the closed form against NUTS and exact Dirichlet Monte Carlo.

For L models, :func:`crosscheck` samples :func:`bayes_eval.models.matching_model` with NUTS
and puts three estimates of each model's posterior mean and sd of pi-bar side by side:

* the closed form (Hariri et al., "Don't Pass@k", eq. 15),
* NUTS, with Monte Carlo standard errors (MCSE) from ArviZ,
* exact Dirichlet Monte Carlo in numpy (independent Gamma draws normalised per question).

For every pair of models it compares the Gaussian ranking confidence
:math:`\rho = \Phi((\mu_a-\mu_b)/\sqrt{\sigma_a^2+\sigma_b^2})` (§2.5) with the posterior
:math:`P(\bar\pi_a > \bar\pi_b)` estimated from the NUTS draws and computed exactly
(:mod:`bayes_eval.posteriors.exact`).

Verdicts: a model row passes when the NUTS and Monte Carlo mean and sd are within
``z_tol = 4`` standard errors of the closed form, r-hat of ``pi_bar`` <= 1.01 (PyMC's
threshold), its bulk and tail ESS >= 400 (PyMC's 100 per chain with its default 4 chains,
whatever the number of chains here) and there were no divergences; ``failed_checks`` names
what failed. The worst r-hat and smallest ESS over the individual ``pi`` are reported
alongside (``r_hat_pi_max``, ``ess_bulk_pi_min``). R-hat, ESS and divergences are those of
:func:`bayes_eval.models.diagnostics` (per element:
:func:`~bayes_eval.models.sampling.element_diagnostics`); the whole fit's diagnostics are in
``idata.attrs``. A pair passes when the NUTS probability is within
``4 MCSE + 0.002`` of the exact one (0.002: the lattice accuracy of the exact computation).
The Gaussian approximation is *reported* against the exact value, not judged: it is an
approximation. Nothing that fails is dropped.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import pymc as pm
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.inputs import Tally, check_memory
from bayes_eval.models.hierarchical import hierarchical_model
from bayes_eval.models.matching import matching_model
from bayes_eval.models.model_data import model_data
from bayes_eval.models.sampling import (
    RHAT_MAX,
    Diagnostics,
    element_diagnostics,
    model_info,
    sample,
)
from bayes_eval.nuts import NutsSettings
from bayes_eval.posteriors.posterior import Posterior
from bayes_eval.posteriors.priors import Prior, PriorSpec

__all__ = ["CrossCheck", "crosscheck", "matching_pymc_model"]

#: Smallest bulk and tail ESS of a model's ``pi_bar`` (over all chains) for its row to pass.
ESS_MIN = 400.0
Z_TOL = 4.0
EXACT_TOL = 0.002


@dataclass
class CrossCheck:
    """Result of :func:`~bayes_eval.models.crosscheck.crosscheck`.

    Attributes
    ----------
    idata : xarray.DataTree
        The NUTS run, with the groups ``closed_form``, ``crosscheck_models`` and
        ``crosscheck_pairs`` added.
    models : xarray.Dataset
        One row per model (dim ``model``).
    pairs : xarray.Dataset
        One entry per ordered pair (dims ``model``, ``model_bis``).

    Examples
    --------
    >>> from bayes_eval.models import CrossCheck
    >>> [name for name in CrossCheck.__dataclass_fields__]
    ['idata', 'models', 'pairs']

    :func:`~bayes_eval.models.crosscheck.crosscheck` returns one (its example runs NUTS).
    """

    idata: xr.DataTree
    models: xr.Dataset
    pairs: xr.Dataset

    @property
    def passed(self) -> bool:
        """True when every model row and every pair passed."""
        return bool(self.models["passed"].all() and self.pairs["passed"].all())

    def to_dict(self) -> dict:
        """Plain-Python summary for JSON output."""
        rows = []
        for name in self.models["model"].values:
            row = self.models.sel(model=name)
            rows.append(
                {k: _py(row[k].values) for k in self.models.data_vars} | {"model": str(name)}
            )
        pairs = []
        names = list(self.pairs["model"].values)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                cell = self.pairs.sel(model=a, model_bis=b)
                pairs.append(
                    {k: _py(cell[k].values) for k in self.pairs.data_vars}
                    | {"a": str(a), "b": str(b)}
                )
        return {
            "prior": str(self.models.attrs.get("prior", "")),
            "estimand": str(self.models.attrs.get("estimand", "")),
            "pymc_model": str(self.models.attrs.get("pymc_model", "")),
            "passed": self.passed,
            "divergences": int(self.models.attrs["divergences"]),
            "models": rows,
            "pairs": pairs,
        }


#: Exact draws per call of :meth:`Posterior.draws` in :func:`_exact_draws` (an interrupt waits
#: for at most one chunk, well under a second).
_EXACT_CHUNK = 20_000


def _exact_draws(closed: Posterior, n: int, rng: np.random.Generator, stop: threading.Event):
    """``n`` exact draws of pi-bar, shape ``(L, n)``; None once ``stop`` is set.

    The draws come in chunks of :data:`_EXACT_CHUNK` that continue one random stream (under a fixed
    prior the same draws as one call).
    """
    parts = []
    for start in range(0, n, _EXACT_CHUNK):
        if stop.is_set():
            return None
        parts.append(np.asarray(closed.draws(min(_EXACT_CHUNK, n - start), rng=rng)))
    return np.concatenate(parts).T


def _py(value):
    value = np.asarray(value)
    if value.dtype == bool:
        return bool(value)
    if value.dtype.kind in "USO":
        return str(value)
    x = float(value)
    return None if np.isnan(x) else x


def matching_pymc_model(
    R: ArrayLike,
    w: ArrayLike | None,
    R0: ArrayLike | None,
    prior: Prior,
    *,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
):
    """The PyMC model whose posterior is the closed form's under ``prior``.

    The matching model for a fixed prior (earlier runs weighted by their discount, the power prior
    ``a0``), the hierarchical model for the learned prior integrated over its hyperparameters (one
    per model: the same hyperprior as the quadrature). For rubric results with repeated trials
    the closed form of every other command then moves the concentration to the score's
    within-question variance (:func:`~bayes_eval.posteriors.priors.fit_prior` with ``w``), which
    no sampler reproduces; the cross-check compares NUTS with the quadrature before that step.

    Parameters
    ----------
    R : array_like of int or xarray.DataArray, shape ``(M, N)`` or ``(L, M, N)``
        Results, categories 0..C.
    w : array_like or None
        Rubric weights (None: binary ``(0, 1)``).
    R0 : array_like or None
        Earlier runs on the same questions (fixed priors only).
    prior : Prior
        The closed form's prior (:class:`bayes_eval.posteriors.priors.Prior`).
    mask : array_like of bool, optional, keyword-only
        True where a trial is missing.
    models : list of str, optional, keyword-only
        Names of the L models.

    Returns
    -------
    pymc.Model
        A :func:`~bayes_eval.models.matching.matching_model` (fixed prior: ``alpha0`` and
        the discount ``a0``) or a :func:`~bayes_eval.models.hierarchical.hierarchical_model`
        (the learned prior, with its ``kappa`` hyperprior).

    Raises
    ------
    ValueError
        For a plug-in or benchmark-pooled learned prior, or a learned prior with earlier
        runs: no PyMC model here matches them.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import Prior
    >>> from bayes_eval.models.crosscheck import matching_pymc_model
    >>> R = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]])
    >>> [v.name for v in matching_pymc_model(R, None, None, Prior.parse("jeffreys")).free_RVs]
    ['pi']
    >>> [v.name for v in matching_pymc_model(R, None, None, Prior.parse("empirical")).free_RVs]
    ['beta_top', 'log_kappa']
    """
    if not prior.learned:
        alpha0 = 1.0 if prior.kind == "uniform" else 0.5 if prior.kind == "jeffreys" else None
        return matching_model(
            R,
            w,
            R0,
            alpha0=prior.alpha if alpha0 is None else alpha0,
            a0=prior.discount,
            mask=mask,
            models=models,
        )
    if prior.kind != "empirical" or prior.pool == "benchmark" or R0 is not None:
        raise ValueError(
            f"no PyMC model matches the prior {prior.label!r}: the cross-check has the matching "
            "model (fixed priors, earlier runs) and the hierarchical model (the learned prior, "
            "per model, integrated, without earlier runs)."
        )
    kappa_prior = prior.kappa_prior
    if prior.pool == "board":  # each model's hyperprior as the board updated it
        counts = model_data(R, w, None, mask=mask, models=models).counts
        per_model = prior.fit(counts).kappa_prior
        kappa_prior = (per_model[:, 0], per_model[:, 1])
    return hierarchical_model(R, w, kappa_prior=kappa_prior, mask=mask, models=models)


def crosscheck(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    prior: PriorSpec | Prior = "uniform",
    alpha0: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
    nuts: NutsSettings | None = None,
    mc_draws: int = 200_000,
    **legacy: Any,
) -> CrossCheck:
    """NUTS and exact Monte Carlo against the closed form, for L models (module docstring).

    Parameters
    ----------
    R, w, R0, mask, models
        As in :func:`bayes_eval.models.matching_model`.
    prior : Prior or its words, keyword-only
        The closed form's prior (:func:`bayes_eval.posterior`); the PyMC model is the one
        that matches it (:func:`~bayes_eval.models.crosscheck.matching_pymc_model`).
    alpha0 : float or array_like, optional, keyword-only
        The older name of a fixed prior (a Dirichlet concentration); when given it replaces
        ``prior``.
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        The NUTS settings, passed to :func:`bayes_eval.models.sample` (unset values: the
        model's own, 1,000 draws and tuning steps with PyMC's sampler). Raise
        ``target_accept`` when a fit diverges. Its seed also seeds the exact Monte Carlo.
    mc_draws : int, keyword-only
        Exact Monte Carlo draws per model (:meth:`Posterior.draws
        <bayes_eval.posteriors.posterior.Posterior.draws>`).
    **legacy : Any
        Deprecated: the NUTS settings one by one (``draws=...``), as before ``nuts``.

    Returns
    -------
    CrossCheck
        The fit, one row per model (closed form, NUTS and exact Monte Carlo, with their
        z-scores, diagnostics and ``passed``) and one entry per pair.

    Examples
    --------
    A toy run (one short chain: the closed form matches, but the convergence checks fail
    and say so; the warning is silenced here):

    >>> import warnings
    >>> import numpy as np
    >>> from bayes_eval.models import crosscheck
    >>> from bayes_eval.nuts import NutsSettings
    >>> R = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     check = crosscheck(R, nuts=NutsSettings(draws=100, tune=50, chains=1), mc_draws=2000)
    >>> check.models["mu"].values.round(4).tolist(), check.passed
    ([0.5556], False)
    >>> check.models["failed_checks"].values.tolist()
    ['r_hat, ess_bulk, ess_tail']
    """
    if isinstance(mc_draws, bool) or not isinstance(mc_draws, (int, np.integer)) or mc_draws < 2:
        raise ValueError(f"mc_draws is {mc_draws!r}; expected an integer of at least 2.")
    settings = NutsSettings.from_call(nuts, legacy, owner="crosscheck")
    settings = settings.resolved(draws=1000, tune=1000, sampler="pymc")
    if alpha0 is not None:
        prior = Prior.parse(alpha0, name="alpha0")
    spec = Prior.parse(prior)
    model = matching_pymc_model(R, w, R0, spec, mask=mask, models=models)
    info = model_info(model)
    n_models = int(np.shape(info.data.counts)[0]) if np.ndim(info.data.counts) == 3 else 1
    check_memory(  # the exact draws, their transpose and a working copy, before sampling
        8.0 * 3 * float(mc_draws) * n_models,
        f"--mc-draws {mc_draws} on {n_models} model(s)",
        "fewer exact draws (the default 200000 gives the Monte Carlo mean to about 0.1%)",
    )
    data = info.data
    tally = Tally(data.counts, data.n_trials, data.counts.shape[-1], True)
    total = np.asarray(data.counts, float) + spec.discount * np.asarray(data.prior_counts, float)
    fitted = spec.fit(total)
    label = spec.label
    rubric = total.shape[-1] > 2  # binary results: the step never moves (no second fit)
    if (
        spec.learned
        and rubric
        and not np.array_equal(fitted.alpha, spec.fit(total, w=data.w).alpha)
    ):
        # the rubric's within-variance step moved the other commands' prior: not compared here
        label += ", before the rubric's within-question variance step"
    closed = Posterior(data=total, fitted=fitted, w=data.w, tally=tally, prior=spec)
    idata, mc = _sample_beside_exact(model, settings, closed, int(mc_draws))
    coords = {"model": data.coords["model"]}
    idata["closed_form"] = xr.DataTree(
        xr.Dataset(
            {"mu": ("model", np.asarray(closed.mean)), "sigma": ("model", np.asarray(closed.sd))},
            coords=coords,
            attrs={"prior": label, "estimand": closed.estimand},
        )
    )
    rows = _model_rows(closed, idata, mc, coords)
    rows.attrs |= {
        "mc_draws": int(mc_draws),
        "sampler": settings.sampler,
        "draws": settings.draws,
        "chains": settings.chains,
        "prior": label,
        "estimand": closed.estimand,
        "pymc_model": info.kind,
    }
    pairs = _pair_rows(closed, idata["posterior"]["pi_bar"], coords)
    idata["crosscheck_models"] = xr.DataTree(rows)
    idata["crosscheck_pairs"] = xr.DataTree(pairs)
    return CrossCheck(idata=idata, models=rows, pairs=pairs)


def _sample_beside_exact(
    model: pm.Model, settings: NutsSettings, closed: Posterior, mc_draws: int
) -> tuple[xr.DataTree, np.ndarray]:
    """NUTS on ``model`` and ``mc_draws`` exact draws of ``closed`` per model, side by side.

    The exact draws run in a thread while NUTS compiles and samples: NumPy releases the GIL in
    its loops, and the compilation keeps one core only. Returns the fit and the exact draws
    ``(L, mc_draws)``.
    """
    # on the 11 x 30 x 80 cross-check the 200,000 draws (4-5 s) disappear from the wall time
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=1)
    rng = np.random.default_rng([int(settings.seed), 7])
    exact = pool.submit(_exact_draws, closed, mc_draws, rng, stop)
    try:
        idata = sample(model, settings)
        mc = exact.result()  # (L, n)
    finally:
        stop.set()  # an interrupted or failed fit: the thread stops after its current chunk
        pool.shutdown(wait=False, cancel_futures=True)
    return idata, mc


def _model_rows(closed: Posterior, idata: xr.DataTree, mc: np.ndarray, coords: dict) -> xr.Dataset:
    """One row per model: closed form, NUTS and exact Monte Carlo, z-scores and checks."""
    mu, sigma = np.asarray(closed.mean), np.asarray(closed.sd)
    posterior = idata["posterior"].to_dataset()
    pi_bar = posterior["pi_bar"]
    nuts_mean = pi_bar.mean(("chain", "draw")).values
    nuts_sd = pi_bar.std(("chain", "draw")).values
    mcse_mean = az.mcse(posterior[["pi_bar"]], method="mean")["pi_bar"].values
    mcse_sd = az.mcse(posterior[["pi_bar"]], method="sd")["pi_bar"].values
    conv = element_diagnostics(pi_bar)
    ess_bulk, ess_tail, rhat = (conv[k].values for k in ("ess_bulk", "ess_tail", "r_hat"))
    conv_pi = element_diagnostics(posterior["pi"])
    rhat_pi = conv_pi["r_hat"].max(("question", "category")).values
    ess_pi = conv_pi["ess_bulk"].min(("question", "category")).values
    divergences = Diagnostics.from_attrs(idata.attrs).divergences  # stored by sample()
    n_mc = mc.shape[1]
    mc_mean, mc_sd = mc.mean(1), mc.std(1)
    z_mean = (nuts_mean - mu) / mcse_mean
    z_sd = (nuts_sd - sigma) / mcse_sd
    z_mc_mean = (mc_mean - mu) / (mc_sd / np.sqrt(n_mc))
    z_mc_sd = (mc_sd - sigma) / (mc_sd / np.sqrt(2 * n_mc))  # normal-theory SE of an sd
    checks = {
        "z_mean": np.abs(z_mean) < Z_TOL,
        "z_sd": np.abs(z_sd) < Z_TOL,
        "z_mc_mean": np.abs(z_mc_mean) < Z_TOL,
        "z_mc_sd": np.abs(z_mc_sd) < Z_TOL,
        "r_hat": rhat <= RHAT_MAX,
        "ess_bulk": ess_bulk >= ESS_MIN,
        "ess_tail": ess_tail >= ESS_MIN,
        "divergences": np.full(mu.size, divergences == 0),
    }
    passed = np.logical_and.reduce(list(checks.values()))
    reason = np.array(
        [", ".join(k for k, ok in checks.items() if not ok[i]) for i in range(mu.size)]
    )
    columns = {
        "mu": mu,
        "sigma": sigma,
        "nuts_mean": nuts_mean,
        "nuts_sd": nuts_sd,
        "mcse_mean": mcse_mean,
        "mcse_sd": mcse_sd,
        "z_mean": z_mean,
        "z_sd": z_sd,
        "mc_mean": mc_mean,
        "mc_sd": mc_sd,
        "z_mc_mean": z_mc_mean,
        "z_mc_sd": z_mc_sd,
        "r_hat": rhat,
        "r_hat_pi_max": rhat_pi,
        "ess_bulk": ess_bulk,
        "ess_tail": ess_tail,
        "ess_bulk_pi_min": ess_pi,
        "passed": passed,
        "failed_checks": reason,
    }
    return xr.Dataset(
        {k: ("model", v) for k, v in columns.items()},
        coords=coords,
        attrs={
            "divergences": divergences,
            "z_tol": Z_TOL,
            "r_hat_max": RHAT_MAX,
            "ess_min": ESS_MIN,
        },
    )


def _pair_rows(closed: Posterior, pi_bar: xr.DataArray, coords: dict) -> xr.Dataset:
    """One entry per ordered pair: Gaussian rho, NUTS draws with MCSE, exact P(better)."""
    rho = np.asarray(closed.prob_better(method="normal"))
    p_exact = np.asarray(closed.prob_better(method="exact"))
    draws_arr = pi_bar.transpose("chain", "draw", "model").values
    n_models = draws_arr.shape[-1]
    p_nuts = np.full((n_models, n_models), np.nan)
    mcse_p = np.full((n_models, n_models), np.nan)
    for i in range(n_models):
        for j in range(n_models):
            if i == j:
                continue
            ind = (draws_arr[..., i] > draws_arr[..., j]).astype(float)
            p = ind.mean()
            p_nuts[i, j] = p
            if 0.0 < p < 1.0:
                ess = float(az.ess(xr.Dataset({"x": (("chain", "draw"), ind)}), method="bulk")["x"])
                mcse_p[i, j] = np.sqrt(p * (1 - p) / ess)
            else:
                mcse_p[i, j] = 0.0
    pair_ok = np.abs(p_nuts - p_exact) <= Z_TOL * mcse_p + EXACT_TOL
    np.fill_diagonal(pair_ok, True)
    pdims = ("model", "model_bis")
    return xr.Dataset(
        {
            "rho_normal": (pdims, np.where(np.eye(n_models, dtype=bool), np.nan, rho)),
            "p_nuts": (pdims, p_nuts),
            "mcse_p_nuts": (pdims, mcse_p),
            "p_exact": (pdims, p_exact),
            "normal_minus_exact": (pdims, rho - p_exact),
            "passed": (pdims, pair_ok),
        },
        coords={"model": coords["model"], "model_bis": coords["model"]},
        attrs={"tolerance": f"|p_nuts - p_exact| <= {Z_TOL} MCSE + {EXACT_TOL}"},
    )
