r"""The board model as a PyMC model: NUTS for the joint posterior of a leaderboard.

The model of :mod:`bayes_eval.posteriors.joint` (the default on a board of binary results),
written out for NUTS so that its closed-form approximation can be checked against draws:

.. math::
    k_{lq} \sim \mathrm{BetaBinomial}\big(n_{lq}, \kappa m_{lq}, \kappa(1 - m_{lq})\big),\quad
    m_{lq} = \mathrm{expit}(\theta_l - b_q),

:math:`\theta_l = \mu + \sigma z_l`, :math:`b_q = s u_q` (non-centred: :math:`z, u \sim N(0,
1)`), :math:`\mu` flat, :math:`s \sim \mathrm{HalfNormal}(3)`, :math:`\sigma \sim
\mathrm{HalfNormal}(2)`, :math:`\log\kappa \sim N(\log 7, 1)`: the same hyperpriors
(:data:`~bayes_eval.posteriors.joint.DIFFICULTY_SD_SCALE`,
:data:`~bayes_eval.posteriors.joint.ABILITY_SD_SCALE`,
:data:`~bayes_eval.posteriors.joint.DISPERSION_PRIOR`). The cells' rates are integrated out
(the Beta-binomial); given a draw of :math:`(\theta, b, \kappa)` each rate's posterior is
:math:`\mathrm{Beta}(\kappa m + k, \kappa(1 - m) + n - k)`, from which :func:`joint_pi_bar`
draws :math:`\bar\pi_l = \frac1{M_l}\sum_q p_{lq}` (the questions model l answered).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.posteriors.joint import (
    ABILITY_SD_SCALE,
    DIFFICULTY_SD_SCALE,
    DISPERSION_PRIOR,
)

__all__ = ["joint_model", "joint_pi_bar"]


def _counts(counts: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(counts)
    if counts.ndim != 3 or counts.shape[-1] != 2 or counts.shape[0] < 2:
        raise ValueError(
            f"counts has shape {counts.shape}; expected (L, M, 2) failures and successes of "
            "two or more models."
        )
    if not np.allclose(counts, np.round(counts)) or (counts < 0).any():
        raise ValueError("counts must be whole numbers >= 0 (binary results).")
    counts = np.round(counts).astype(np.int64)
    return counts.sum(axis=-1), counts[..., 1]


def joint_model(counts: ArrayLike, *, models: list[str] | None = None) -> pm.Model:
    """The board model of binary counts ``(L, M, 2)`` as a ``pm.Model``.

    Counts are failures, successes (a question without trials: zeros); the model has coords
    ``model`` and ``question`` (module docstring). Cells without trials are left out of the
    likelihood.

    Parameters
    ----------
    counts : array_like, shape ``(L, M, 2)``
        Failures and successes of each of the L >= 2 models on each of the M questions
        (whole numbers).
    models : list of str, keyword-only, optional
        Names of the L models (default ``model_0``, ``model_1``, ...).

    Returns
    -------
    pymc.Model
        Free variables ``mu``, ``sigma``, ``difficulty_sd``, ``kappa``, ``z`` (model) and
        ``u`` (question); Deterministics ``theta`` (model) and ``b`` (question); the observed
        successes ``k`` over the cells with trials (coord ``cell``, data ``trials`` and
        ``successes``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import joint_model
    >>> counts = np.array([[[1, 2], [0, 3], [2, 1]], [[3, 0], [1, 2], [2, 1]]])
    >>> model = joint_model(counts, models=["a", "b"])
    >>> [v.name for v in model.free_RVs]
    ['mu', 'sigma', 'difficulty_sd', 'kappa', 'z', 'u']
    >>> [v.name for v in model.deterministics], len(model.coords["cell"])
    (['theta', 'b'], 6)
    """
    n, k = _counts(counts)
    n_models, n_questions = n.shape
    names = list(models) if models is not None else [f"model_{i}" for i in range(n_models)]
    if len(names) != n_models:
        raise ValueError(f"models has {len(names)} names; counts has {n_models} models.")
    rows, cols = np.nonzero(n > 0)
    coords = {"model": names, "question": np.arange(n_questions), "cell": np.arange(rows.size)}
    with pm.Model(coords=coords) as model:
        trials = pm.Data("trials", n[rows, cols], dims="cell")
        successes = pm.Data("successes", k[rows, cols], dims="cell")
        mu = pm.Flat("mu")
        sigma = pm.HalfNormal("sigma", ABILITY_SD_SCALE)
        s = pm.HalfNormal("difficulty_sd", DIFFICULTY_SD_SCALE)
        kappa = pm.LogNormal("kappa", np.log(DISPERSION_PRIOR[0]), DISPERSION_PRIOR[1])
        z = pm.Normal("z", 0.0, 1.0, dims="model")
        u = pm.Normal("u", 0.0, 1.0, dims="question")
        theta = pm.Deterministic("theta", mu + sigma * z, dims="model")
        b = pm.Deterministic("b", s * u, dims="question")
        m = pm.math.invlogit(theta[rows] - b[cols])
        pm.BetaBinomial(
            "k",
            n=trials,
            alpha=kappa * m,
            beta=kappa * (1.0 - m),
            observed=successes,
            dims="cell",
        )
    return model


def joint_pi_bar(
    posterior: xr.Dataset, counts: ArrayLike, *, answered: ArrayLike | None = None, seed: int = 0
) -> xr.DataArray:
    r"""Draws of every model's :math:`\bar\pi` from a fit of the joint model.

    The fit is one of :func:`~bayes_eval.models.joint.joint_model`: for each posterior draw of
    :math:`(\theta, b, \kappa)`, every rate from its Beta posterior given its cell (module
    docstring), averaged over the questions each model answered (or ``answered``). Dims
    ``(chain, draw, model)``.

    Parameters
    ----------
    posterior : xarray.Dataset
        Posterior of the fit, with ``theta`` (chain, draw, model), ``b`` (chain, draw,
        question) and ``kappa`` (chain, draw).
    counts : array_like, shape ``(L, M, 2)``
        The failures and successes the model was fitted to.
    answered : array_like of bool or float, shape ``(L, M)``, optional, keyword-only
        Weights of the questions in each model's mean (normalised per model); default the
        questions with trials.
    seed : int, keyword-only
        Seed of the Beta draws of the rates, default 0.

    Returns
    -------
    xarray.DataArray
        ``pi_bar`` with dims ``(chain, draw, model)``.

    Raises
    ------
    ValueError
        If ``answered`` has the wrong shape or negative weights, or a model has no question
        to average over.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import joint_pi_bar
    >>> counts = np.array([[[1, 2], [0, 3], [2, 1]], [[3, 0], [1, 2], [2, 1]]])
    >>> rng = np.random.default_rng(0)
    >>> posterior = xr.Dataset(
    ...     {
    ...         "theta": (("chain", "draw", "model"), rng.normal(size=(1, 5, 2))),
    ...         "b": (("chain", "draw", "question"), rng.normal(size=(1, 5, 3))),
    ...         "kappa": (("chain", "draw"), np.full((1, 5), 10.0)),
    ...     },
    ...     coords={"model": ["a", "b"]},
    ... )
    >>> pi_bar = joint_pi_bar(posterior, counts, seed=0)
    >>> pi_bar.dims, pi_bar.mean("draw").values.round(4).tolist()
    (('chain', 'draw', 'model'), [[0.6153, 0.4393]])
    """
    n, k = _counts(counts)
    share = np.asarray(n > 0 if answered is None else answered, float)
    if share.shape != n.shape or not np.all(np.isfinite(share)) or np.any(share < 0):
        raise ValueError(
            f"answered has shape {share.shape} with values {share.min():g} to {share.max():g}; "
            f"expected non-negative finite weights of shape {n.shape} (models, questions)."
        )
    total = share.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        empty = int(np.flatnonzero(total[:, 0] <= 0)[0])
        raise ValueError(
            f"model {empty} has no question to average over (no trials, or zero weight in "
            "answered); expected at least one answered question per model."
        )
    share = share / total
    theta = posterior["theta"].values  # (C, D, L)
    b = posterior["b"].values  # (C, D, M)
    kappa = posterior["kappa"].values[..., None, None]
    m = 1.0 / (1.0 + np.exp(-(theta[..., :, None] - b[..., None, :])))
    rng = np.random.default_rng(seed)
    p = rng.beta(kappa * m + k, kappa * (1.0 - m) + n - k)
    bar = (p * share).sum(axis=-1)
    return xr.DataArray(
        bar,
        dims=("chain", "draw", "model"),
        coords={"model": posterior["theta"]["model"].values},
        name="pi_bar",
    )
