r"""Hierarchical per-question priors: partial pooling across the questions of a benchmark.

**Dirichlet hierarchy** (:func:`hierarchical_model`). For model ``l``,

.. math::
    \beta_l \sim \mathrm{Dirichlet}(1), \quad \log\kappa_l \sim N(\log \kappa_{med}, s^2),
    \quad \pi_{l\alpha} \sim \mathrm{Dirichlet}(\kappa_l\beta_l), \quad
    n_{l\alpha} \sim \mathrm{Multinomial}(N_{l\alpha}, \pi_{l\alpha}).

``beta_l`` is the model's typical outcome distribution and ``kappa_l`` how alike its
questions are (its prior sample size). The sampler sees the marginal
:math:`n_{l\alpha} \sim \mathrm{DirichletMultinomial}(N_{l\alpha}, \kappa_l\beta_l)`; ``pi`` is then
drawn exactly from :math:`\mathrm{Dir}(\kappa_l\beta_l + n_{l\alpha})` for every posterior draw.
This parametrisation mixes: sampling ``pi`` jointly with ``kappa`` (the centred form) puts
the sampler in a funnel, ``pi`` tightening around ``beta`` as ``kappa`` grows, and gave a
bulk ESS of only 320-800 of 4000 draws on ``kappa``; the marginal has no such funnel.
*Prior on kappa*: the closed form's, :data:`bayes_eval.posteriors.priors.KAPPA_PRIOR`:
log-normal with median 5 and log-sd 1.5 (95% in [0.26, 95]), weakly informative.
LLM benchmarks are strongly heterogeneous (many questions always or never solved:
per-question accuracy is U-shaped, which needs ``kappa`` of order 1). ``kappa`` is weakly
identified at small N (not at all with one trial per question), so its prior is a
sensitivity axis of :func:`bayes_eval.models.prior_sensitivity`; on a leaderboard the closed
form's default first updates it per model from the other models (``pool="board"``), and
``kappa_prior`` then takes one median and log-sd per model.

The crossed (model x question) model lives in :mod:`bayes_eval.models.crossed`
(:func:`~bayes_eval.models.crossed.crossed_model`).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.models.model_data import (
    ModelInfo,
    built_with,
    model_data,
    stored_data,
)
from bayes_eval.posteriors.priors import KAPPA_PRIOR

__all__ = ["dirichlet_conditional", "hierarchical_info", "hierarchical_model"]

DIMS = ("model", "question", "category")
#: ``pm.Data`` containers and free variables that identify each model.
HIERARCHICAL = {"data": ("count_data", "kappa_median", "kappa_log_sd", "w"), "free": ("log_kappa",)}
_NO_POOLING = "Bayes@N closed form with the uniform prior (no pooling), for comparison"


def dirichlet_conditional(concentration_fn, counts: np.ndarray, w: np.ndarray):
    """A ``conditional(posterior, rng)`` drawing ``pi ~ Dir(concentration + counts)`` per draw.

    ``concentration_fn(posterior)`` returns the prior concentration as an array of shape
    ``(chain, draw, L, M or 1, C + 1)``.

    Parameters
    ----------
    concentration_fn : callable
        ``concentration_fn(posterior)``: the prior concentration of ``pi`` for every draw of
        the posterior ``xarray.Dataset``, shape ``(chain, draw, L, M or 1, C + 1)``.
    counts : numpy.ndarray of int, shape ``(L, M, C + 1)``
        Category counts ``n`` of the L models on the M questions.
    w : numpy.ndarray, shape ``(C + 1,)``
        Rubric weights.

    Returns
    -------
    callable
        ``conditional(posterior, rng)`` returning a dict of DataArrays: ``pi`` with dims
        ``(chain, draw, model, question, category)`` and ``pi_bar`` with dims
        ``(chain, draw, model)``, the weighted mean of ``pi`` over the questions
        (the ``conditional`` of :class:`~bayes_eval.models.model_data.ModelInfo`).

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.hierarchical import dirichlet_conditional
    >>> counts = np.array([[[1, 2], [0, 3]]])  # one model, two questions, binary
    >>> uniform = lambda posterior: np.ones((1, 4, 1, 1, 2))
    >>> conditional = dirichlet_conditional(uniform, counts, np.array([0.0, 1.0]))
    >>> posterior = xr.Dataset(coords={"chain": [0], "draw": np.arange(4)})
    >>> draws = conditional(posterior, np.random.default_rng(0))
    >>> draws["pi"].dims, draws["pi_bar"].shape
    (('chain', 'draw', 'model', 'question', 'category'), (1, 4, 1))
    """

    def conditional(posterior: xr.Dataset, rng: np.random.Generator) -> dict[str, xr.DataArray]:
        conc = concentration_fn(posterior) + counts[None, None]
        g = rng.standard_gamma(conc)
        pi = g / g.sum(axis=-1, keepdims=True)
        coords = {"chain": posterior["chain"], "draw": posterior["draw"]}
        pi_da = xr.DataArray(pi, dims=("chain", "draw", *DIMS), coords=coords)
        pi_bar = xr.DataArray(
            (pi @ w).mean(axis=-1), dims=("chain", "draw", "model"), coords=coords
        )
        return {"pi": pi_da, "pi_bar": pi_bar}

    return conditional


def hierarchical_model(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    kappa_prior: tuple[float, float] | None = None,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    """Dirichlet hierarchy over questions, ``pi`` integrated out (see the module docstring).

    Parameters
    ----------
    R, w, mask, models
        As in :func:`bayes_eval.models.matching_model`.
    kappa_prior : (float, float) or (array, array), keyword-only
        Median and log-sd of the log-normal prior on ``kappa`` (stored as ``pm.Data``, so a
        sensitivity grid reuses one compiled graph): numbers, or one per model (the
        board-informed hyperpriors of the closed form, ``FittedPrior.kappa_prior``). Default:
        the closed form's, :data:`bayes_eval.posteriors.priors.KAPPA_PRIOR`.

    Returns
    -------
    pymc.Model
        Variables ``beta`` (model, category), ``kappa`` (model) and the observed ``counts``;
        :func:`bayes_eval.models.sample` adds ``pi`` and ``pi_bar`` drawn exactly. The free
        variables are ``log_kappa`` and ``beta`` (``beta_top`` with two categories, where
        ``beta`` is a Deterministic).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import hierarchical_model
    >>> R = np.array([[0, 1, 2], [2, 2, 1], [1, 2, 2]])
    >>> model = hierarchical_model(R, w=[0, 0.5, 1])
    >>> [v.name for v in model.free_RVs], [v.name for v in model.deterministics]
    (['beta', 'log_kappa'], ['kappa'])
    >>> [v.name for v in hierarchical_model(np.array([[0, 1, 1], [1, 1, 0]])).free_RVs]
    ['beta_top', 'log_kappa']
    """
    data = model_data(R, w, None, mask=mask, models=models)
    if kappa_prior is None:
        kappa_prior = KAPPA_PRIOR
    median, log_sd = (np.asarray(x, dtype=float) for x in kappa_prior)
    if not (np.all(median > 0) and np.all(log_sd > 0)):
        raise ValueError(f"kappa_prior is {kappa_prior!r}; expected (median > 0, log-sd > 0).")
    n_models = data.counts.shape[0]
    per_model = median.ndim > 0 or log_sd.ndim > 0
    if per_model:  # one hyperprior per model (the board-informed prior of the closed form)
        try:
            median, log_sd = (np.broadcast_to(x, (n_models,)).copy() for x in (median, log_sd))
        except ValueError:
            raise ValueError(
                f"kappa_prior has {median.size} medians and {log_sd.size} log-sds; expected "
                f"numbers or one per model ({n_models})."
            ) from None
    with pm.Model(coords=data.coords) as model:
        counts = pm.Data("count_data", data.counts, dims=DIMS)
        pm.Data("w", data.w, dims="category")
        dims = "model" if per_model else None
        k_med = pm.Data("kappa_median", median, dims=dims)
        k_sd = pm.Data("kappa_log_sd", log_sd, dims=dims)
        if data.counts.shape[-1] == 2:
            # Dirichlet(1, 1) is Beta(1, 1): parametrised directly, which also sidesteps a
            # PyTensor/Numba failure of the stick-breaking transform on a (1, 1) array
            top = pm.Beta("beta_top", alpha=1.0, beta=1.0, dims="model")
            beta = pm.Deterministic(
                "beta", pt.stack([1.0 - top, top], axis=-1), dims=("model", "category")
            )
        else:
            beta = pm.Dirichlet(
                "beta", a=np.ones(data.counts.shape[-1]), dims=("model", "category")
            )
        log_kappa = pm.Normal("log_kappa", mu=pt.log(k_med), sigma=k_sd, dims="model")
        kappa = pm.Deterministic("kappa", pt.exp(log_kappa), dims="model")
        a = pt.broadcast_to((kappa[:, None] * beta)[:, None, :], counts.shape)
        pm.DirichletMultinomial("counts", n=counts.sum(axis=-1), a=a, observed=counts, dims=DIMS)
    return model


def _pooled_concentration(posterior: xr.Dataset) -> np.ndarray:
    """``kappa beta`` per draw, shape ``(chain, draw, model, 1, category)``."""
    k = posterior["kappa"].transpose("chain", "draw", "model").values
    b = posterior["beta"].transpose("chain", "draw", "model", "category").values
    return (k[..., None] * b)[:, :, :, None, :]


def hierarchical_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`hierarchical_model` (else ``None``).

    ``pi`` is drawn from ``Dir(kappa beta + n)`` per draw; the reference is the closed form
    with the uniform prior, without pooling.

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model; recognised by its ``pm.Data`` containers (``count_data``,
        ``kappa_median``, ``kappa_log_sd``, ``w``) and free variable ``log_kappa``.

    Returns
    -------
    ModelInfo or None
        Kind ``hierarchical``, the stored data, the unpooled closed-form reference and the
        exact conditional draw of ``pi``; ``None`` for another kind of model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import hierarchical_model
    >>> from bayes_eval.models.hierarchical import hierarchical_info
    >>> info = hierarchical_info(hierarchical_model(np.array([[0, 1, 1], [1, 1, 0], [1, 1, 1]])))
    >>> info.kind, info.reference[""].tolist()
    ('hierarchical', [[[2.0, 3.0], [2.0, 3.0], [1.0, 4.0]]])
    """
    if not built_with(model, **HIERARCHICAL):
        return None
    data = stored_data(model)
    return ModelInfo(
        kind="hierarchical",
        data=data,
        reference={"": data.alpha0 + data.counts},
        reference_note=_NO_POOLING,
        conditional=dirichlet_conditional(_pooled_concentration, data.counts, data.w),
    )
