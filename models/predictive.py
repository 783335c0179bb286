r"""Prior and posterior predictive checks of the bayes_eval models.

The test statistics are ones that matter for evaluation data.

The replicated data come from PyMC (:func:`pymc.sample_prior_predictive`,
:func:`pymc.sample_posterior_predictive`) for the observed variable of each model
(``counts`` of the matching, hierarchical and power-prior models, ``successes_obs`` of the
crossed model). What a replicate *is* differs between the models, and the p-values must be
read with that in mind:

* matching (and a fixed power prior): :math:`\tilde n_{l\alpha} \sim
  \mathrm{Mult}(N_{l\alpha}, \pi_{l\alpha})` with :math:`\pi_{l\alpha}` drawn from its posterior:
  the *same* questions again. Each cell has its own parameter, so the replicates follow the
  data closely and the check is conservative (Gelman, Meng and Stern, "Posterior predictive
  assessment of model fitness via realized discrepancies", Statistica Sinica, 1996);
* hierarchical (and a learned power prior): ``pi`` is integrated out of the model that PyMC
  samples, so the replicate is :math:`\tilde n_{l\alpha} \sim \mathrm{DirMult}(N_{l\alpha},
  \kappa_l\beta_l)`: a *new* question drawn from the LLM's population of questions (the
  "mixed" predictive). It checks whether a single Dirichlet per LLM can produce the spread of
  per-question results, and it draws the questions of different LLMs independently;
* crossed: :math:`\tilde s_{l\alpha} \sim \mathrm{Bin}(N_{l\alpha}, p_{l\alpha})` with the
  posterior abilities and difficulties: the same questions, difficulty shared across LLMs.

**Test statistics** (:func:`ppc_statistics`), per LLM ``l`` over its ``M`` questions, with
:math:`k_{l\alpha}` the number of trials in the top-weighted category ("correct" for binary
results) and :math:`s_{l\alpha} = w\cdot n_{l\alpha}/N_{l\alpha}` the per-question mean score:

* ``mean_score``: :math:`\frac1M\sum_\alpha s_{l\alpha}` (what Bayes@N estimates);
* ``sd_score``: the sd over questions of :math:`s_{l\alpha}` (``ddof=1``): the spread of
  question difficulty, the **over-dispersion statistic** (binomial noise around one common
  success rate gives :math:`\sqrt{p(1-p)/N}`);
* ``frac_none`` and ``frac_all``: the shares of questions with :math:`k = 0` and
  :math:`k = N`, the two ends of the histogram of correct counts;
* ``corr_others``: the correlation over questions of :math:`s_{l\alpha}` with the mean score
  of the other LLMs on the same question (shared difficulty; NaN with one LLM);
* the histogram of :math:`k` (``hist_*`` variables, dim ``count``), pooled over questions.

The Bayesian p-value of a statistic :math:`T` is the mid-p value
:math:`P(T(\tilde y) > T(y)) + \tfrac12 P(T(\tilde y) = T(y))` over the predictive draws: the
statistics are discrete, and the mid-p convention makes the p-value of a well-fitting model
centred at 1/2 rather than pulled towards 1 by ties. Values near 0 or 1 flag misfit. A
statistic undefined for a replicate (``corr_others`` when a replicate's scores are all
equal) is left out of that statistic's p-value and predictive summary.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pymc as pm
import xarray as xr

__all__ = [
    "STATISTICS",
    "observed_name",
    "plot_ppc",
    "posterior_predictive",
    "ppc_statistics",
    "prior_predictive",
]

#: The per-LLM test statistics of :func:`ppc_statistics` (module docstring).
STATISTICS = ("mean_score", "sd_score", "frac_none", "frac_all", "corr_others")
_SAMPLE = ("chain", "draw")


def observed_name(model: pm.Model) -> str:
    """The name of the one observed variable of a bayes_eval model.

    Parameters
    ----------
    model : pymc.Model
        A model built by :mod:`bayes_eval.models`.

    Returns
    -------
    str
        ``counts`` (matching, hierarchical, power prior) or the crossed model's
        ``successes_obs``, ``scores_obs`` or ``levels_obs``.

    Raises
    ------
    ValueError
        If the model has no observed variable or several.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import crossed_model, matching_model
    >>> from bayes_eval.models.predictive import observed_name
    >>> R = np.array([[0, 1, 1], [1, 1, 0]])
    >>> observed_name(matching_model(R)), observed_name(crossed_model(R))
    ('counts', 'successes_obs')
    """
    names = [v.name for v in model.observed_RVs]
    if len(names) != 1:
        raise ValueError(f"model has observed variables {names}; expected exactly one.")
    return names[0]


def _check_positive(name: str, value: int) -> None:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} is {value!r}; expected a positive integer.")


def prior_predictive(model: pm.Model, *, draws: int = 500, seed: int = 0) -> xr.DataTree:
    """Prior predictive draws of a bayes_eval model (:func:`pymc.sample_prior_predictive`).

    Parameters
    ----------
    model : pymc.Model
        A model built by :mod:`bayes_eval.models`.
    draws : int, keyword-only
        Number of prior draws, default 500.
    seed : int, keyword-only
        Random seed, default 0.

    Returns
    -------
    xarray.DataTree
        Groups ``prior``, ``prior_predictive`` (the observed variable, ``chain`` of size 1),
        ``observed_data`` and ``constant_data``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, ppc_statistics, prior_predictive
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> prior = prior_predictive(model, draws=50, seed=0)
    >>> sorted(prior.children)
    ['constant_data', 'observed_data', 'prior', 'prior_predictive']
    >>> prior["prior_predictive"]["counts"].shape  # (chain, draw, model, question, category)
    (1, 50, 1, 3, 2)
    """
    _check_positive("draws", draws)
    return pm.sample_prior_predictive(draws=int(draws), model=model, random_seed=int(seed))


def posterior_predictive(idata: xr.DataTree, model: pm.Model, *, seed: int = 0) -> xr.DataTree:
    """``idata`` with a ``posterior_predictive`` group added (the input is not changed).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model`` (:func:`bayes_eval.models.sample`).
    model : pymc.Model
        The model that was sampled; its observed variable is replicated once per posterior
        draw (:func:`pymc.sample_posterior_predictive`; see the module docstring for what a
        replicate is for each model).
    seed : int, keyword-only
        Random seed of the replicates, default 0.

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` with the ``posterior_predictive`` group (the observed variable
        over ``chain``, ``draw`` and its own dims).

    Examples
    --------
    Made-up draws of ``pi`` in place of a fit, with the data groups a fit has:

    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, ppc_statistics, prior_predictive
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> prior = prior_predictive(model, draws=50, seed=0)
    >>> import xarray as xr
    >>> from bayes_eval.models import posterior_predictive
    >>> pi = np.random.default_rng(0).dirichlet([2, 4], size=(1, 100, 1, 3))
    >>> dims = ("chain", "draw", "model", "question", "category")
    >>> posterior = xr.Dataset({"pi": (dims, pi)}, coords={"chain": [0], "draw": np.arange(100)})
    >>> fit = xr.DataTree.from_dict({
    ...     "posterior": posterior,
    ...     "observed_data": prior["observed_data"].to_dataset(),
    ...     "constant_data": prior["constant_data"].to_dataset(),
    ... })
    >>> pred = posterior_predictive(fit, model, seed=0)
    >>> pred["posterior_predictive"]["counts"].shape
    (1, 100, 1, 3, 2)
    >>> ppc_statistics(pred)["p_value"].sel(statistic="mean_score").values.round(2).tolist()
    [0.7]
    """
    if "posterior" not in idata.children:
        raise ValueError("idata has no posterior group; expected a fit from models.sample.")
    name = observed_name(model)
    pp = pm.sample_posterior_predictive(
        idata, model=model, var_names=[name], random_seed=int(seed), progressbar=False
    )
    out = idata.copy()
    out["posterior_predictive"] = xr.DataTree(pp["posterior_predictive"].to_dataset())
    return out


def _cells(da: xr.DataArray, tree: xr.DataTree) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
    """Correct counts ``k``, trials ``N`` and scores ``s`` per (model, question) cell."""
    const = tree["constant_data"].to_dataset() if "constant_data" in tree.children else None
    if "category" in da.dims:
        if const is not None and "w" in const:
            w = const["w"]
        else:
            w = xr.DataArray(np.arange(da.sizes["category"]) / (da.sizes["category"] - 1))
            w = w.rename({w.dims[0]: "category"})
        top = int(np.argmax(np.asarray(w)))
        n = da.sum("category")
        k = da.isel(category=top, drop=True)
        s = (da * w).sum("category") / n
        return k, n, s
    if const is None or "n_trials" not in const:
        raise ValueError("binary successes need constant_data.n_trials (the crossed model).")
    n = const["n_trials"]
    return da, n, da / n


def _statistics(k: xr.DataArray, n: xr.DataArray, s: xr.DataArray) -> xr.Dataset:
    """The :data:`STATISTICS` per model (and per draw, if ``k`` has draws)."""
    M = s.sizes["question"]
    mean = s.mean("question")
    sd = s.std("question", ddof=1) if M > 1 else xr.full_like(mean, np.nan)
    L = s.sizes["model"]
    if L > 1 and M > 2:
        others = (s.sum("model") - s) / (L - 1)
        a = s - s.mean("question")
        b = others - others.mean("question")
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = (a * b).sum("question") / np.sqrt(
                (a**2).sum("question") * (b**2).sum("question")
            )
    else:
        corr = xr.full_like(mean, np.nan)
    out = xr.Dataset(
        {
            "mean_score": mean,
            "sd_score": sd,
            "frac_none": (k == 0).mean("question"),
            "frac_all": (k == n).mean("question"),
            "corr_others": corr,
        }
    )
    return out.to_dataarray("statistic")


def _histogram(k: xr.DataArray, n_max: int) -> xr.DataArray:
    """Questions with each correct count ``0..n_max``, per model (dim ``count``)."""
    grid = xr.DataArray(np.arange(n_max + 1), dims="count", coords={"count": np.arange(n_max + 1)})
    return (k == grid).sum("question")


def _mid_p(rep: xr.DataArray, obs: xr.DataArray, dims) -> xr.DataArray:
    """``P(rep > obs) + P(rep == obs) / 2`` over the draws (``dims``) where ``rep`` is defined.

    NaN where ``obs`` is NaN or no replicate is.
    """
    defined = np.isfinite(rep)
    n = defined.sum(dims)
    hits = (rep > obs).sum(dims) + 0.5 * (rep == obs).sum(dims)
    return (hits / n).where(np.isfinite(obs) & (n > 0))


def ppc_statistics(
    pred: xr.DataTree, *, group: str = "posterior_predictive", prob: float = 0.95
) -> xr.Dataset:
    """Observed test statistics, their predictive distribution and Bayesian p-values.

    Parameters
    ----------
    pred : xarray.DataTree
        With ``observed_data`` and ``group`` (from :func:`posterior_predictive` or
        :func:`prior_predictive`), and ``constant_data`` (rubric weights ``w``; ``n_trials``
        of the crossed model).
    group : {"posterior_predictive", "prior_predictive"}, keyword-only
        Which predictive group to compare with the data (default the posterior's).
    prob : float, keyword-only
        Mass of the central predictive interval ``rep_lo``, ``rep_hi`` (default 0.95).

    Returns
    -------
    xarray.Dataset
        Over ``(statistic, model)``: ``observed``, ``rep_mean``, ``rep_sd``, ``rep_lo``,
        ``rep_hi`` and the mid-p value ``p_value`` (module docstring); over ``(model, count)``:
        ``hist_observed``, ``hist_rep_mean``, ``hist_rep_lo``, ``hist_rep_hi`` and
        ``hist_p_value`` for the number of questions with each correct count.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, ppc_statistics, prior_predictive
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> prior = prior_predictive(model, draws=50, seed=0)
    >>> checks = ppc_statistics(prior, group="prior_predictive")
    >>> checks["statistic"].values.tolist()
    ['mean_score', 'sd_score', 'frac_none', 'frac_all', 'corr_others']
    >>> checks["observed"].sel(statistic="mean_score").values.round(4).tolist()
    [0.5833]
    >>> checks["hist_observed"].values.tolist()  # questions with 0, 1, ..., 4 correct trials
    [[0, 1, 0, 2, 0]]
    """
    if group not in pred.children or "observed_data" not in pred.children:
        raise ValueError(f"pred needs the groups observed_data and {group!r}.")
    if not 0 < prob < 1:
        raise ValueError(f"prob is {prob!r}; expected a number in (0, 1).")
    rep_ds = pred[group].to_dataset()
    obs_ds = pred["observed_data"].to_dataset()
    name = next(iter(obs_ds.data_vars))
    if name not in rep_ds:
        raise ValueError(f"{group} has no variable {name!r} (the observed variable).")
    k_obs, n, s_obs = _cells(obs_ds[name], pred)
    k_rep, _, s_rep = _cells(rep_ds[name], pred)
    t_obs = _statistics(k_obs, n, s_obs)
    t_rep = _statistics(k_rep, n, s_rep)
    n_max = int(n.max())
    h_obs = _histogram(k_obs, n_max)
    h_rep = _histogram(k_rep, n_max)
    tail = (1 - prob) / 2
    with warnings.catch_warnings():
        # a statistic undefined for every replicate (corr_others with one LLM, sd_score with
        # one question) is NaN by design; numpy's all-NaN warning would only repeat that
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        return _summaries(t_obs, t_rep, h_obs, h_rep, tail, group, rep_ds, prob)


def _summaries(t_obs, t_rep, h_obs, h_rep, tail, group, rep_ds, prob) -> xr.Dataset:
    out = {
        "observed": t_obs,
        "rep_mean": t_rep.mean(_SAMPLE),
        "rep_sd": t_rep.std(_SAMPLE),
        "rep_lo": t_rep.quantile(tail, _SAMPLE).drop_vars("quantile"),
        "rep_hi": t_rep.quantile(1 - tail, _SAMPLE).drop_vars("quantile"),
        "p_value": _mid_p(t_rep, t_obs, _SAMPLE),
        "hist_observed": h_obs,
        "hist_rep_mean": h_rep.mean(_SAMPLE),
        "hist_rep_lo": h_rep.quantile(tail, _SAMPLE).drop_vars("quantile"),
        "hist_rep_hi": h_rep.quantile(1 - tail, _SAMPLE).drop_vars("quantile"),
        "hist_p_value": _mid_p(h_rep, h_obs, _SAMPLE),
    }
    return xr.Dataset(
        out,
        attrs={
            "group": group,
            "p_value": "mid-p: P(T_rep > T_obs) + P(T_rep == T_obs) / 2",
            "draws": int(np.prod([rep_ds.sizes[d] for d in _SAMPLE])),
            "prob": prob,
        },
    )


def plot_ppc(pred: xr.DataTree, path: str | Path, *, group: str = "posterior_predictive") -> Path:
    """Rootogram of the correct counts per question, one panel per LLM, written as PNG.

    Draws :func:`arviz_plots.plot_ppc_rootogram` (Kleiber and Zeileis, "Visualizing Count
    Data Regressions Using Rootograms", The American Statistician, 2016): for every count
    ``k`` the observed number of questions with ``k`` correct trials against the predictive
    mean and interval, on a square-root scale.

    Parameters
    ----------
    pred : xarray.DataTree
        With ``observed_data`` and ``group`` (from
        :func:`~bayes_eval.models.predictive.posterior_predictive` or
        :func:`~bayes_eval.models.predictive.prior_predictive`), and ``constant_data``.
    path : str or pathlib.Path
        The image to write; its suffix gives the format (PNG when it has none).
    group : {"posterior_predictive", "prior_predictive"}, keyword-only
        Which predictive group to draw (default the posterior's).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, ppc_statistics, prior_predictive
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> prior = prior_predictive(model, draws=50, seed=0)
    >>> import os
    >>> import tempfile
    >>> from bayes_eval.models import plot_ppc
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = plot_ppc(prior, os.path.join(tmp, "ppc.png"), group="prior_predictive")
    ...     print(path.name, path.exists())
    ppc.png True
    """
    import arviz_plots

    rep_ds = pred[group].to_dataset()
    obs_ds = pred["observed_data"].to_dataset()
    name = next(iter(obs_ds.data_vars))
    k_obs, _, _ = _cells(obs_ds[name], pred)
    k_rep, _, _ = _cells(rep_ds[name], pred)
    names = [str(m) for m in k_obs["model"].values]

    def per_llm(k: xr.DataArray) -> xr.Dataset:
        return xr.Dataset({m: k.isel(model=i, drop=True) for i, m in enumerate(names)})

    tree = xr.DataTree.from_dict(
        {group: per_llm(k_rep), "observed_data": per_llm(k_obs.astype(k_rep.dtype))}
    )
    pc = arviz_plots.plot_ppc_rootogram(tree, group=group, backend="matplotlib", col_wrap=4)
    from bayes_eval.files import write_file

    kind = Path(path).suffix.lstrip(".").lower() or "png"
    return write_file(path, lambda tmp: pc.savefig(tmp, format=kind))
