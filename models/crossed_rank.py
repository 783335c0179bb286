r"""The leaderboard table of a crossed-model fit: scores, intervals and ranks from the draws.

:func:`crossed_rank_table` gives the variables of
:func:`bayes_eval.ranking.leaderboard.rank_table` for the posterior draws of
:math:`\bar\pi_l` (``pi_bar``) of :func:`bayes_eval.models.crossed_model`,
with every probability read from the draws instead of the Gaussian approximation of
Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.5): for S draws :math:`\bar\pi^{(s)}`,

.. math::
    P(\bar\pi_i > \bar\pi_j) \approx \frac1S\sum_s \Big(\mathbb 1[\bar\pi_i^{(s)} >
    \bar\pi_j^{(s)}] + \tfrac12\,\mathbb 1[\bar\pi_i^{(s)} = \bar\pi_j^{(s)}]\Big)

(0.5 on the diagonal), which replaces :math:`\Phi(z)` in the CI-aware rank of §2.7.1 (chaining
ties between consecutive models, :func:`bayes_eval.ranking.ranks.rank_with_ci`) and in the
non-chaining rank interval (:func:`bayes_eval.ranking.ranks.rank_interval`). The draws also give
each model's rank in every draw (:func:`bayes_eval.ranking.ranks.rank` along the model axis) and so
an equal-tailed interval of its rank.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayes_eval.inputs import shown
from bayes_eval.models.crossed import crossed_likelihood
from bayes_eval.ranking.ranks import dense_ci_ranks, rank

__all__ = ["crossed_rank_table", "draw_prob_better"]

#: Convergence attributes :func:`bayes_eval.models.sample` stores and the table copies.
_DIAGNOSTICS = (
    "max_rhat",
    "min_ess_bulk",
    "min_ess_tail",
    "divergences",
    "divergence_rate",
    "converged",
    "convergence_messages",
)


def draw_prob_better(draws: np.ndarray) -> np.ndarray:
    r"""``P(row > column)`` for every pair of models from draws of shape ``(S, L)``.

    See the module docstring; ties count one half, so the diagonal is 0.5.

    Parameters
    ----------
    draws : numpy.ndarray of shape (S, L)
        S posterior draws of the scores of L models.

    Returns
    -------
    numpy.ndarray of shape (L, L)
        The share of draws in which the row's model scores above the column's, ties
        counting one half.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.crossed_rank import draw_prob_better
    >>> draws = np.array([[0.6, 0.5], [0.7, 0.5], [0.4, 0.5], [0.5, 0.5]])
    >>> draw_prob_better(draws).tolist()
    [[0.5, 0.625], [0.375, 0.5]]
    """
    x = np.asarray(draws, dtype=float)
    out = np.empty((x.shape[1], x.shape[1]))
    for i in range(x.shape[1]):  # L rows of an (S, L) comparison: memory S * L, not S * L^2
        out[i] = (x[:, i, None] > x).mean(0) + 0.5 * (x[:, i, None] == x).mean(0)
    return out


def crossed_rank_table(idata: xr.DataTree, *, confidence: float = 0.95) -> xr.Dataset:
    r"""Leaderboard of a crossed-model fit, from the posterior draws of ``pi_bar``.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of :func:`bayes_eval.models.crossed_model` (:func:`bayes_eval.models.sample`),
        or any tree whose ``posterior`` holds ``pi_bar`` over ``(chain, draw, model)``.
    confidence : float, keyword-only
        Mass of the intervals and the threshold of the pairwise decisions.

    Returns
    -------
    xarray.Dataset
        Over ``model``: ``mu``, ``sigma`` (posterior mean and sd of ``pi_bar``), ``lo``,
        ``hi`` (equal-tailed ``confidence`` quantiles of the draws), ``rank`` (competition
        rank by ``mu``), ``rank_ci`` (dense; consecutive models by ``mu`` tie when
        :math:`P(\text{better}) <` ``confidence``, ties chain), ``rank_lower``,
        ``rank_upper`` (``1 + #`` models confidently better, ``L - #`` confidently worse,
        where *i confidently beats j* when :math:`\mu_i > \mu_j` and :math:`P(\bar\pi_i >
        \bar\pi_j) \ge` ``confidence``), ``rank_draw_lo``, ``rank_draw_hi`` (equal-tailed
        ``confidence`` interval of the model's competition rank over the draws); over
        ``(model, model_bis)``: ``prob_better``. ``attrs``: ``estimator="crossed"``,
        ``likelihood`` (read from the fit's ``observed_data`` and ``constant_data``;
        "unknown" without them),
        ``confidence``, ``draws`` and the convergence diagnostics
        :func:`~bayes_eval.models.sampling.sample` stored.

    Raises
    ------
    ValueError
        For a ``confidence`` outside (0, 1), or no ``pi_bar`` over ``chain``, ``draw`` and
        ``model`` in the posterior.

    Examples
    --------
    Made-up draws of three models' ``pi_bar`` in place of a fit:

    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import crossed_rank_table
    >>> draws = np.random.default_rng(0).normal([0.6, 0.5, 0.3], 0.05, size=(2, 200, 3))
    >>> posterior = xr.Dataset(
    ...     {"pi_bar": (("chain", "draw", "model"), draws)}, coords={"model": ["a", "b", "c"]}
    ... )
    >>> table = crossed_rank_table(xr.DataTree.from_dict({"posterior": posterior}))
    >>> table["mu"].values.round(3).tolist(), table["rank"].values.tolist()
    ([0.593, 0.501, 0.302], [1, 2, 3])
    >>> table["rank_ci"].values.tolist(), table["prob_better"].values[0].round(3).tolist()
    ([1, 1, 2], [0.5, 0.908, 1.0])
    """
    if isinstance(confidence, bool) or not (
        isinstance(confidence, (int, float)) and 0 < confidence < 1
    ):
        raise ValueError(f"confidence is {shown(confidence)}; expected a probability in (0, 1).")
    if "posterior" not in idata.children or "pi_bar" not in idata["posterior"].data_vars:
        raise ValueError("idata has no posterior pi_bar; expected a fit of crossed_model.")
    da = idata["posterior"]["pi_bar"]
    if set(da.dims) != {"chain", "draw", "model"}:
        raise ValueError(f"pi_bar has dims {da.dims}; expected ('chain', 'draw', 'model').")
    da = da.transpose("chain", "draw", "model")
    draws = np.asarray(da.values, dtype=float).reshape(-1, da.sizes["model"])
    mu, sigma = draws.mean(0), draws.std(0, ddof=1) if draws.shape[0] > 1 else draws.std(0)
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    prob = draw_prob_better(draws)
    beats = (mu[:, None] > mu[None, :]) & (prob >= confidence)
    ranks = rank(draws, axis=-1)
    r_lo, r_hi = np.quantile(ranks, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    models = da["model"].values
    ds = xr.Dataset(
        {
            "mu": ("model", mu),
            "sigma": ("model", sigma),
            "lo": ("model", lo),
            "hi": ("model", hi),
            "rank": ("model", rank(mu)),
            "rank_ci": ("model", dense_ci_ranks(mu, prob, confidence)),
            "rank_lower": ("model", 1 + beats.sum(axis=0)),
            "rank_upper": ("model", mu.size - beats.sum(axis=1)),
            "rank_draw_lo": ("model", r_lo.astype(np.int64)),
            "rank_draw_hi": ("model", r_hi.astype(np.int64)),
            "prob_better": (("model", "model_bis"), prob),
        },
        coords={"model": models, "model_bis": models},
    )
    names = [
        name
        for group in ("constant_data", "observed_data")
        if group in idata.children
        for name in idata[group].data_vars
    ]
    ds.attrs = {
        "estimator": "crossed",
        "likelihood": crossed_likelihood(names) or "unknown",
        "confidence": float(confidence),
        "draws": int(draws.shape[0]),
        **{k: idata.attrs[k] for k in _DIAGNOSTICS if k in idata.attrs},
    }
    return ds
