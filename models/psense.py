r"""Power-scaling prior and likelihood sensitivity of a fit (arviz-stats ``psense``).

Kallioinen, Paananen, Bürkner and Vehtari, "Detecting and diagnosing prior and likelihood
sensitivity with power-scaling" (Stat. Comput. 34, 57, 2024): raise the prior (or the
likelihood) to a power :math:`\alpha` near 1, reweight the posterior draws by Pareto-smoothed
importance sampling and measure how far each posterior marginal moves (the cumulative
Jensen-Shannon distance per unit :math:`\log\alpha`, at :math:`\alpha = 0.99, 1.01`). Values
at or above 0.05 mark a sensitive component; arviz-stats' ``psense_summary`` diagnoses
"potential prior-data conflict" (both sensitive) and "potential strong prior / weak
likelihood" (prior sensitive, likelihood not). The grid of
:func:`bayes_eval.models.prior_sensitivity` refits under other priors; this needs one fit.

What is power-scaled, per model of :mod:`bayes_eval.models`:

* ``matching`` / fixed-``a0`` power prior: the prior is :math:`\mathrm{Dir}(\alpha_0 + a_0 n^0)`
  on every ``pi``, the likelihood the multinomial of the counts. The uniform prior
  :math:`\mathrm{Dir}(1)` is flat: power-scaling it changes nothing, and its sensitivity is
  reported as exactly 0 (arviz-stats cannot fit its Pareto tail to equal weights).
* ``hierarchical``: the sampled model is the marginal one, so the prior is the hyperprior of
  ``beta`` and ``kappa`` and the likelihood the Dirichlet-multinomial marginal of the counts
  (``pi`` integrated out). ``pi`` and ``pi_bar`` are drawn exactly given each draw of the
  hyperparameters; reweighting those joint draws by weights that depend only on the
  hyperparameters is exact importance sampling for the power-scaled hyperprior, so their
  sensitivity is that of pi-bar to the hyperprior (Kallioinen et al.'s selective
  power-scaling of the top-level prior). Likewise the likelihood sensitivity of ``pi_bar``
  counts only the data's influence through ``beta`` and ``kappa``: the per-question
  multinomial terms that act on ``pi`` given them are not scaled, so it is smaller than the
  matching model's (0.004 against 0.11 on ``phi4_aime25``) and is not a measure of how
  informative the data are about pi-bar.
* learned power prior: the prior is the Beta prior of ``a0``, the likelihood the
  Dirichlet-multinomial of the counts given ``a0``.
* ``crossed``: every prior term (shared difficulties included) and every binomial term;
  the models share the difficulties, so sensitivity is computed jointly, not per model.

Where every log-prior and log-likelihood term has a ``model`` dim (all but ``crossed``) the
models are a priori and a posteriori independent, and each model's sensitivity is computed
from its own prior and likelihood alone (``per_model``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pymc as pm
import xarray as xr

__all__ = ["DIAGNOSES", "power_scale_sensitivity"]

#: The diagnoses of ``arviz_stats.psense_summary``, in the order of its rule.
DIAGNOSES = ("potential prior-data conflict", "potential strong prior / weak likelihood", "✓")


def _diagnose(prior: np.ndarray, likelihood: np.ndarray, threshold: float) -> np.ndarray:
    """The rule of ``arviz_stats.psense_summary`` applied elementwise."""
    conflict = (prior >= threshold) & (likelihood >= threshold)
    strong = (prior > threshold) & (likelihood < threshold)
    return np.where(conflict, DIAGNOSES[0], np.where(strong, DIAGNOSES[1], DIAGNOSES[2]))


def _with_log_densities(idata: xr.DataTree, model: pm.Model | None) -> xr.DataTree:
    """A new tree with ``posterior``, ``log_prior`` and ``log_likelihood`` (input untouched)."""
    groups = {"posterior": idata["posterior"].to_dataset()}
    for kind, group in (("prior", "log_prior"), ("likelihood", "log_likelihood")):
        if group in idata.children:
            groups[group] = idata[group].to_dataset()
            continue
        if model is None:
            raise ValueError(
                f"idata has no {group} group; pass the pm.Model it was sampled from (model=) "
                "so that it can be computed."
            )
        fn = pm.stats.compute_log_prior if kind == "prior" else pm.stats.compute_log_likelihood
        out = fn(idata, model=model, extend_inferencedata=False, progressbar=False)
        groups[group] = out.to_dataset() if hasattr(out, "to_dataset") else out
    return xr.DataTree.from_dict(groups)


def power_scale_sensitivity(
    idata: xr.DataTree,
    model: pm.Model | None = None,
    *,
    var_names: Sequence[str] = ("pi_bar",),
    threshold: float = 0.05,
    alphas: tuple[float, float] = (0.99, 1.01),
    per_model: bool | None = None,
) -> xr.Dataset:
    """Prior and likelihood power-scaling sensitivity of posterior variables (module docstring).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit from :func:`bayes_eval.models.sample` (or any tree with a ``posterior`` group).
    model : pymc.Model, optional
        The model of the fit; needed unless ``idata`` already has ``log_prior`` and
        ``log_likelihood`` groups (they are computed with ``pm.compute_log_prior`` and
        ``pm.compute_log_likelihood`` into a copy; ``idata`` is not modified).
    var_names : sequence of str, keyword-only
        Posterior variables to assess (default ``pi_bar``, the reported quantity).
    threshold : float, keyword-only
        Sensitivity at which a component counts as sensitive (0.05, as arviz-stats).
    alphas : (float, float), keyword-only
        Power-scaling exponents of the finite-difference derivative.
    per_model : bool, optional, keyword-only
        One computation per model from its own prior and likelihood terms. Default: when
        every log-density term has a ``model`` dim.

    Returns
    -------
    xarray.Dataset
        For each variable ``v`` of ``var_names``: ``v`` over ``(component, *dims of v)`` with
        ``component = ["prior", "likelihood"]``, and ``v_diagnosis`` (str) over the dims of
        ``v``. ``attrs``: ``threshold``, ``alphas``, ``per_model``, ``model_kind``.

    Examples
    --------
    A tree with its log densities already computed (here made up: a Beta(3, 1) prior and a
    likelihood of 6 successes and 3 failures on draws of ``pi_bar``):

    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.psense import power_scale_sensitivity
    >>> p = np.random.default_rng(0).beta(7, 4, size=(2, 200, 1))
    >>> dims, coords = ("chain", "draw", "model"), {"model": ["gpt"]}
    >>> fit = xr.DataTree.from_dict({
    ...     "posterior": xr.Dataset({"pi_bar": (dims, p)}, coords=coords),
    ...     "log_prior": xr.Dataset({"pi_bar": (dims, 2 * np.log(p))}, coords=coords),
    ...     "log_likelihood": xr.Dataset(
    ...         {"counts": (dims, 6 * np.log(p) + 3 * np.log1p(-p))}, coords=coords
    ...     ),
    ... })
    >>> sens = power_scale_sensitivity(fit)
    >>> sens["pi_bar"].dims, sens["pi_bar"].values.round(3).tolist()
    (('component', 'model'), [[0.103], [0.114]])
    >>> sens["pi_bar_diagnosis"].values.tolist()
    ['potential prior-data conflict']
    """
    from arviz_stats import psense

    if not 0 < threshold < 1:
        raise ValueError(f"threshold is {threshold!r}; expected a number in (0, 1).")
    if "posterior" not in idata.children:
        raise ValueError("idata has no posterior group; expected a fit from models.sample.")
    missing = [v for v in var_names if v not in idata["posterior"].data_vars]
    if missing:
        raise ValueError(
            f"var_names {missing} are not in the posterior; expected some of "
            f"{sorted(idata['posterior'].data_vars)}."
        )
    tree = _with_log_densities(idata, model)
    terms = [*tree["log_prior"].data_vars.values(), *tree["log_likelihood"].data_vars.values()]
    separable = all("model" in t.dims for t in terms) and "model" in tree["posterior"].dims
    if per_model is None:
        per_model = separable
    elif per_model and not separable:
        raise ValueError(
            "per_model=True needs a 'model' dim on every log-prior and log-likelihood term; "
            "this model shares parameters across models (e.g. the crossed model)."
        )

    def run(group, sel):
        log_dens = tree["log_prior" if group == "prior" else "log_likelihood"].to_dataset()
        log_dens = log_dens.sel(sel) if sel else log_dens
        total = sum(
            d.sum([x for x in d.dims if x not in ("chain", "draw")]) for d in log_dens.values()
        )
        if float(np.ptp(total.values)) == 0.0:
            # a flat component (the uniform Dirichlet): power-scaling leaves the posterior as
            # it is, sensitivity exactly 0 (PSIS cannot fit a tail to equal weights)
            post = tree["posterior"].to_dataset()[list(var_names)]
            post = post.sel(sel) if sel else post
            return xr.zeros_like(post.isel(chain=0, draw=0, drop=True), dtype=float)
        return psense(
            tree,
            var_names=list(var_names),
            group=group,
            coords=sel,
            alphas=alphas,
            group_coords=sel,
        )

    if per_model:
        models = tree["posterior"]["model"].values
        parts = {
            g: xr.concat([run(g, {"model": [m]}) for m in models], dim="model")
            for g in ("prior", "likelihood")
        }
    else:
        parts = {g: run(g, None) for g in ("prior", "likelihood")}
    joined = xr.concat([parts["prior"], parts["likelihood"]], dim="component")
    joined = joined.assign_coords(component=["prior", "likelihood"])
    for v in var_names:
        diag = _diagnose(
            joined[v].sel(component="prior").values,
            joined[v].sel(component="likelihood").values,
            threshold,
        )
        joined[f"{v}_diagnosis"] = (joined[v].dims[1:], diag)
    joined.attrs = {
        "threshold": float(threshold),
        "alphas": list(alphas),
        "per_model": int(per_model),
        "model_kind": str(idata.attrs.get("bayes_eval_model", "")),
        "method": "power-scaling, arviz_stats.psense (Kallioinen et al. 2024)",
    }
    return joined
