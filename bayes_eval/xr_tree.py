"""Exact draws of the closed-form posterior as an ArviZ-style ``DataTree``
(:func:`posterior_tree`, re-exported by :mod:`bayes_eval.xr`)."""

from __future__ import annotations

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

import bayes_eval.bayes_at_n as _bayes
from bayes_eval.inputs import shown
from bayes_eval.priors import Pool, PriorSpec
from bayes_eval.xr_base import _aligned_prior, _unpack, results_array

__all__ = ["posterior_tree"]

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
