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

**A mixture of Dirichlet hierarchies** (:func:`mixture_model`): each LLM's questions of two
or more kinds, each kind with its own ``beta`` and ``kappa``, for rubrics whose easy and hard
questions fill opposite ends of the scale (one Dirichlet then makes every interval too wide).

The crossed (model x question) model lives in :mod:`bayes_eval.models.crossed`
(:func:`~bayes_eval.models.crossed.crossed_model`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from numpy.typing import ArrayLike
from scipy.special import gammaln

from bayes_eval.models.model_data import (
    ModelData,
    ModelInfo,
    built_with,
    model_data,
    stored_data,
)
from bayes_eval.posteriors.priors import KAPPA_PRIOR

__all__ = [
    "dirichlet_conditional",
    "hierarchical_info",
    "hierarchical_model",
    "mixture_info",
    "mixture_model",
    "relabel_groups",
]

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


#: ``pm.Data`` containers and free variables that identify a mixture of Dirichlet hierarchies.
MIXTURE = {
    "data": ("count_data", "kappa_median", "kappa_log_sd", "w"),
    "free": ("log_kappa", "group_weight"),
}


def mixture_model(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    groups: int = 2,
    kappa_prior: tuple[float, float] | None = None,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    r"""A mixture of Dirichlet hierarchies: the questions fall into ``groups`` kinds.

    For model ``l`` and group ``g``,

    .. math::
        \lambda_l \sim \mathrm{Dirichlet}(2), \quad \beta_{lg} \sim \mathrm{Dirichlet}(1),
        \quad \log\kappa_{lg} \sim N(\log\kappa_{med}, s^2), \quad
        n_{l\alpha} \sim \sum_g \lambda_{lg}\,
        \mathrm{DirichletMultinomial}(N_{l\alpha}, \kappa_{lg}\beta_{lg}),

    each question's ``pi`` drawn from ``Dir(kappa_g beta_g)`` of its own (unobserved) group
    ``g`` (``lambda`` is ``group_weight``). Every LLM has its own groups: a question's kind is
    a property of the (LLM, question) cell, as its concentration is in
    :func:`hierarchical_model`. One Dirichlet ties the spread of every category to their
    mean; where the questions form kinds (easy ones scored mostly in the top categories,
    hard ones in the bottom) it fits one low concentration spanning them and each question's
    posterior is wider than the data warrant (the Validation page measures it).
    ``lambda ~ Dirichlet(2)`` keeps a group from vanishing into a boundary of the simplex.
    The groups are exchangeable, so a chain may settle on either labelling:
    :func:`bayes_eval.models.sample` relabels every draw so that the groups' mean scores
    ``beta_g . w`` increase (an ordering constraint applied after sampling; Stephens,
    "Dealing with label switching in mixture models", JRSS B, 2000), then draws each
    question's group from its posterior probabilities and ``pi`` from its Dirichlet. Where
    the results are of one kind the ordering identifies the groups only weakly, and their
    variables' r-hat says so while ``pi_bar`` (which no labelling changes) has converged:
    judge such fits by ``pi_bar``.

    Parameters
    ----------
    R, w, mask, models
        As in :func:`bayes_eval.models.matching_model`.
    groups : int, keyword-only
        The number of kinds of question (at least 2; default 2).
    kappa_prior : (float, float), keyword-only
        Median and log-sd of the log-normal prior on every group's ``kappa`` (default the
        closed form's :data:`bayes_eval.posteriors.priors.KAPPA_PRIOR`).

    Returns
    -------
    pymc.Model
        Variables ``group_weight`` (``lambda``; model, group), ``beta`` (model, group,
        category; a Deterministic of ``beta_top`` (model, group) with two categories),
        ``log_kappa`` and ``kappa`` (model, group) and the observed ``counts``;
        :func:`bayes_eval.models.sample` adds ``pi`` and ``pi_bar``. Sample it with PyMC's
        sampler (compiled in PyTensor's C VM: ``pymc_mode`` of
        :class:`~bayes_eval.models.model_data.ModelInfo`) or nutpie.

    Raises
    ------
    ValueError
        ``groups`` below 2, or a ``kappa_prior`` that is not (median > 0, log-sd > 0).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import mixture_model
    >>> R = np.array([[0, 1, 2], [2, 2, 1], [1, 2, 2], [0, 0, 1]])
    >>> model = mixture_model(R, w=[0, 0.5, 1])
    >>> [v.name for v in model.free_RVs]
    ['group_weight', 'beta', 'log_kappa']
    >>> model.named_vars_to_dims["beta"]
    ('model', 'group', 'category')
    """
    if isinstance(groups, bool) or not isinstance(groups, int | np.integer) or groups < 2:
        raise ValueError(f"groups is {groups!r}; expected an integer of at least 2.")
    data = model_data(R, w, None, mask=mask, models=models)
    median, log_sd = KAPPA_PRIOR if kappa_prior is None else kappa_prior
    if not (np.ndim(median) == 0 and np.ndim(log_sd) == 0 and median > 0 and log_sd > 0):
        raise ValueError(f"kappa_prior is {kappa_prior!r}; expected (median > 0, log-sd > 0).")
    n_cat = data.counts.shape[-1]
    coords = {**data.coords, "group": np.arange(int(groups))}
    with pm.Model(coords=coords) as model:
        counts = pm.Data("count_data", data.counts, dims=DIMS)
        pm.Data("w", data.w, dims="category")
        # stored per model, the shape hierarchical_model gives per-model hyperpriors
        n_models = data.counts.shape[0]
        k_med = pm.Data("kappa_median", np.full(n_models, float(median)), dims="model")
        k_sd = pm.Data("kappa_log_sd", np.full(n_models, float(log_sd)), dims="model")
        weight = pm.Dirichlet("group_weight", a=np.full(int(groups), 2.0), dims=("model", "group"))
        if n_cat == 2:  # Beta(1, 1) directly, as in hierarchical_model
            top = pm.Beta("beta_top", alpha=1.0, beta=1.0, dims=("model", "group"))
            beta = pm.Deterministic(
                "beta", pt.stack([1.0 - top, top], axis=-1), dims=("model", "group", "category")
            )
        else:
            beta = pm.Dirichlet("beta", a=np.ones(n_cat), dims=("model", "group", "category"))
        log_kappa = pm.Normal(
            "log_kappa", mu=pt.log(k_med)[:, None], sigma=k_sd[:, None], dims=("model", "group")
        )
        kappa = pm.Deterministic("kappa", pt.exp(log_kappa), dims=("model", "group"))
        a = kappa[..., None] * beta  # (model, group, category)
        n_trials = counts.sum(axis=-1)
        shape = counts.shape  # symbolic: pm.set_data may change the models and questions
        comps = [
            pm.DirichletMultinomial.dist(
                n=n_trials, a=pt.broadcast_to(a[:, g, None, :], shape), shape=shape
            )
            for g in range(int(groups))
        ]
        mix_w = pt.broadcast_to(weight[:, None, :], (shape[0], shape[1], int(groups)))
        pm.Mixture("counts", w=mix_w, comp_dists=comps, observed=counts, dims=DIMS)
    return model


def _pooled_concentration(posterior: xr.Dataset) -> np.ndarray:
    """``kappa beta`` per draw, shape ``(chain, draw, model, 1, category)``."""
    k = posterior["kappa"].transpose("chain", "draw", "model").values
    b = posterior["beta"].transpose("chain", "draw", "model", "category").values
    return (k[..., None] * b)[:, :, :, None, :]


def hierarchical_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`hierarchical_model` (else ``None``).

    ``pi`` is drawn from ``Dir(kappa beta + n)`` per draw; the reference is the closed form
    with the uniform prior, without pooling. A :func:`mixture_model` has the same containers
    and more variables: it is left to :func:`mixture_info`.

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
    if not built_with(model, **HIERARCHICAL) or built_with(model, **MIXTURE):
        return None
    data = stored_data(model)
    conditional = dirichlet_conditional(_pooled_concentration, data.counts, data.w)
    return _unpooled_info("hierarchical", data, conditional)


def _unpooled_info(kind: str, data: ModelData, conditional: Callable, **options: Any) -> ModelInfo:
    """A pooling model's info: its reference the closed form with the uniform prior, unpooled."""
    reference = {"": data.alpha0 + data.counts}
    return ModelInfo(kind, data, reference, _NO_POOLING, conditional, **options)


_GROUP_VARS = ("group_weight", "beta", "beta_top", "log_kappa", "kappa")
_DRAW_BLOCK = 250  # draws per block of the groups' posterior probabilities (bounds memory)


def relabel_groups(posterior: xr.Dataset, w: np.ndarray) -> xr.Dataset:
    """The mixture posterior with every draw's groups ordered by their mean score.

    The groups of :func:`mixture_model` are exchangeable; sorting each draw's groups by
    ``beta_g . w`` (ties keep their order) gives every chain the same labelling, so r-hat and
    ESS of the group variables mean what they say.

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws of ``group_weight``, ``beta``, ``log_kappa`` and ``kappa`` (and ``beta_top``
        with two categories), dims ``(chain, draw, model, group[, category])``.
    w : numpy.ndarray, shape ``(C + 1,)``
        Rubric weights.

    Returns
    -------
    xarray.Dataset
        The same variables, their groups permuted draw by draw; the input is not changed.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.hierarchical import relabel_groups
    >>> beta = np.array([[[[[0.1, 0.9], [0.8, 0.2]]]]])  # one draw, groups out of order
    >>> dims = ("chain", "draw", "model", "group")
    >>> post = xr.Dataset({"beta": (dims + ("category",), beta),
    ...                    "kappa": (dims, [[[[3.0, 7.0]]]])})
    >>> relabel_groups(post, np.array([0.0, 1.0]))["kappa"].values.ravel().tolist()
    [7.0, 3.0]
    """
    beta = posterior["beta"].transpose("chain", "draw", "model", "group", "category")
    order = np.argsort(beta.values @ w, axis=-1, kind="stable")  # (chain, draw, model, group)
    out = {}
    for name in _GROUP_VARS:
        if name not in posterior:
            continue
        da = posterior[name]
        lead = ("chain", "draw", "model", "group")
        da = da.transpose(*lead, ...)
        idx = order.reshape(order.shape + (1,) * (da.ndim - 4))
        out[name] = da.copy(data=np.take_along_axis(da.values, idx, axis=3))
    return posterior.assign(out)


def _group_draws(
    a: np.ndarray, weight: np.ndarray, counts: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    r"""Each question's ``pi`` given one block of draws: its group, then its Dirichlet.

    ``a`` is ``(draw, model, group, category)``, ``weight`` ``(draw, model, group)``,
    ``counts`` ``(model, question, category)``; returns ``pi`` of shape
    ``(draw, model, question, category)``. The group's posterior probability is
    :math:`\propto \lambda_g\,\mathrm{DirMult}(n \mid \kappa_g\beta_g)` (the multinomial
    coefficient cancels).
    """
    n = counts[None, :, :, None, :]  # (1, model, question, 1, category)
    ag = a[:, :, None]  # (draw, model, 1, group, category)
    big_a = ag.sum(-1)
    log_p = (
        np.log(weight)[:, :, None]
        + gammaln(big_a)
        - gammaln(big_a + counts.sum(-1)[None, :, :, None])
        + (gammaln(n + ag) - gammaln(ag)).sum(-1)
    )  # (draw, model, question, group)
    prob = np.exp(log_p - log_p.max(-1, keepdims=True))
    cum = np.cumsum(prob, axis=-1)
    u = rng.random((*cum.shape[:-1], 1)) * cum[..., -1:]
    group = np.minimum((cum < u).sum(-1), cum.shape[-1] - 1)  # (draw, model, question)
    conc = np.take_along_axis(a[:, :, None], group[..., None, None], axis=3)[:, :, :, 0]
    g = rng.standard_gamma(conc + counts[None])
    return g / g.sum(axis=-1, keepdims=True)


def _mixture_conditional(counts: np.ndarray, w: np.ndarray):
    """``conditional(posterior, rng)``: relabel the groups, then draw ``pi`` and ``pi_bar``."""

    def conditional(posterior: xr.Dataset, rng: np.random.Generator) -> dict[str, xr.DataArray]:
        post = relabel_groups(posterior, w)
        lead = ("chain", "draw", "model", "group")
        kappa = post["kappa"].transpose(*lead).values
        a = kappa[..., None] * post["beta"].transpose(*lead, "category").values
        weight = post["group_weight"].transpose(*lead).values
        n_chain, n_draw = kappa.shape[:2]
        pi = np.empty((n_chain, n_draw, *counts.shape))
        for c in range(n_chain):
            for start in range(0, n_draw, _DRAW_BLOCK):
                block = slice(start, start + _DRAW_BLOCK)
                pi[c, block] = _group_draws(a[c, block], weight[c, block], counts, rng)
        coords = {"chain": posterior["chain"], "draw": posterior["draw"]}
        out = {name: post[name] for name in _GROUP_VARS if name in post}
        out["pi"] = xr.DataArray(pi, dims=("chain", "draw", *DIMS), coords=coords)
        out["pi_bar"] = xr.DataArray(
            (pi @ w).mean(axis=-1), dims=("chain", "draw", "model"), coords=coords
        )
        return out

    return conditional


def mixture_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`mixture_model` (else ``None``).

    After sampling, the groups are relabelled (:func:`relabel_groups`), each question's group
    drawn from its posterior probabilities and ``pi`` from ``Dir(kappa_g beta_g + n)``; the
    reference is the closed form with the uniform prior, without pooling.

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model; recognised by its ``pm.Data`` containers (``count_data``,
        ``kappa_median``, ``kappa_log_sd``, ``w``) and free variables ``log_kappa`` and
        ``group_weight``.

    Returns
    -------
    ModelInfo or None
        Kind ``mixture``, the stored data, the unpooled closed-form reference and the
        conditional draw; ``None`` for another kind of model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import mixture_model
    >>> from bayes_eval.models.hierarchical import mixture_info
    >>> info = mixture_info(mixture_model(np.array([[0, 1, 1], [1, 1, 0], [1, 1, 1]])))
    >>> info.kind, info.reference[""].shape
    ('mixture', (1, 3, 2))
    """
    if not built_with(model, **MIXTURE):
        return None
    data = stored_data(model)
    conditional = _mixture_conditional(data.counts, data.w)
    # pymc_mode: PyMC's own NUTS compiled by Numba fails on the Mixture's log density and
    # gradient (PyTensor's vectorised code generation); nutpie and the other compilations do not
    return _unpooled_info("mixture", data, conditional, pymc_mode="CVM")
