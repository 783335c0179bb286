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
*Prior on kappa*: log-normal with median 5 and log-sd 1.5 (95% in
[0.26, 95]). LLM benchmarks are strongly heterogeneous (many questions always or never
solved: per-question accuracy is U-shaped, which needs ``kappa`` of order 1), while
``kappa`` in the hundreds would mean interchangeable questions; the prior covers both and is
weak at M of a few tens. ``kappa`` is weakly identified at small N, so its prior is a
sensitivity axis of :func:`bayes_eval.models.prior_sensitivity`.

**Crossed model for binary data** (:func:`crossed_model`): questions are shared by all
models of a benchmark, so difficulty is shared too,

.. math::
    \mathrm{logit}\, p_{l\alpha} = \theta_l - b_\alpha, \quad
    \theta_l = \mu_\theta + \sigma_\theta z_l, \quad b_\alpha = \sigma_b u_\alpha, \quad
    z_l \sim N(0, 1), \quad u \sim \mathrm{ZeroSumNormal}(1), \quad
    \bar\pi_l = \frac1M\sum_\alpha p_{l\alpha},

non-centred, with :math:`\mu_\theta \sim N(0, 1.5^2)`, :math:`\sigma_\theta \sim N^+(1)`,
:math:`\sigma_b \sim N^+(2)` (a difficulty sd of 2 on the logit scale spans questions solved
2% to 98% of the time). The difficulties sum to zero exactly (``u`` is a zero-sum normal),
so ``theta`` carries the overall level: with only a prior centring ``b`` at 0, ``mu_theta``
and the mean difficulty trade off along a ridge the data do not resolve (r-hat 1.03 on
``mu_theta`` with 2 chains x 800 draws).

*Sampler setting: target_accept 0.95.* Measured with PyMC's NUTS, 2 chains x 800 draws
after 800 tuning steps, on 5 models x 30 questions x 8 trials generated as in
``tests/models/test_models.py::test_crossed_model_recovers_abilities`` (data seeds 4, 1, 2, 3 x
sampler seeds 0-5: 24 runs, 38,400 draws). At PyMC's default 0.8 the former model
(independent normal difficulties) diverged 11 times, in 8 of the 24 runs; this one 18
times, in 9. At 0.95: none in 24 runs (37 gradient evaluations per draw instead of 25;
``mu_theta`` r-hat at most 1.009, bulk ESS at least 287; ``sigma_b`` is the slowest, bulk
ESS down to 140 and r-hat up to 1.03-1.05). The cause is not a funnel neck: the divergences sat
at ``sigma_theta`` 0.5 to 2.6, both ends of its posterior, whose 1% quantile is 0.4-0.6
(the data keep the models apart). It is the non-centred abilities under informative data:
each ``theta_l`` is pinned by 240 trials (standard error about 0.15) while 5 models leave
``sigma_theta`` wide, so given ``sigma_theta`` the ``z_l`` have scale
:math:`\mathrm{se}/\sigma_\theta`, which varies five-fold across its posterior, and no single
step size fits both ends. Centring the abilities, :math:`\theta_l \sim N(\mu_\theta,
\sigma_\theta^2)`, removes that (0 divergences in the 24 runs at 0.8, 8 gradient
evaluations per draw) but was rejected: when the models are close, ``sigma_theta`` reaches
towards 0 and the centred form has the classic funnel (5 models of equal ability, 6 runs:
1,005 divergences centred, 1 here at 0.95; abilities spread over +-0.2: 671 and 20), and with one
or two trials per question it diverges too (9 and 108 in 6 runs; here 0). So the
parametrisation stays non-centred and the steps smaller. With only two models
``sigma_theta`` is barely identified and every form diverges; raise ``target_accept``
further there and check. Pass ``target_accept=`` to :func:`sample` to override.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.models.model_data import (
    ModelData,
    ModelInfo,
    built_with,
    data_value,
    model_data,
    stored_data,
)

__all__ = [
    "KAPPA_PRIOR",
    "crossed_info",
    "crossed_model",
    "dirichlet_conditional",
    "hierarchical_info",
    "hierarchical_model",
]

#: Default (median, log-sd) of the log-normal prior on kappa.
KAPPA_PRIOR = (5.0, 1.5)
DIMS = ("model", "question", "category")
#: ``pm.Data`` containers and free variables that identify each model.
HIERARCHICAL = {"data": ("count_data", "kappa_median", "kappa_log_sd", "w"), "free": ("log_kappa",)}
CROSSED = {
    "data": ("successes", "n_trials"),
    "free": ("mu_theta", "sigma_theta", "sigma_b", "z_theta", "z_b"),
}
_NO_POOLING = "Bayes@N closed form with the uniform prior (no pooling), for comparison"


def dirichlet_conditional(concentration_fn, counts: np.ndarray, w: np.ndarray):
    """A ``conditional(posterior, rng)`` drawing ``pi ~ Dir(concentration + counts)`` per draw.

    ``concentration_fn(posterior)`` returns the prior concentration as an array of shape
    ``(chain, draw, L, M or 1, C + 1)``.
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
    kappa_prior: tuple[float, float] = KAPPA_PRIOR,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    """Dirichlet hierarchy over questions, ``pi`` integrated out (see the module docstring).

    Parameters
    ----------
    R, w, mask, models
        As in :func:`bayes_eval.models.matching_model`.
    kappa_prior : (float, float), keyword-only
        Median and log-sd of the log-normal prior on ``kappa`` (stored as ``pm.Data``, so a
        sensitivity grid reuses one compiled graph).

    Returns
    -------
    pymc.Model
        Variables ``beta`` (model, category), ``kappa`` (model) and the observed ``counts``;
        :func:`bayes_eval.models.sample` adds ``pi`` and ``pi_bar`` drawn exactly.
    """
    median, log_sd = (float(x) for x in kappa_prior)
    if not (median > 0 and log_sd > 0):
        raise ValueError(f"kappa_prior is {kappa_prior!r}; expected (median > 0, log-sd > 0).")
    data = model_data(R, w, None, mask=mask, models=models)
    with pm.Model(coords=data.coords) as model:
        counts = pm.Data("count_data", data.counts, dims=DIMS)
        pm.Data("w", data.w, dims="category")
        k_med = pm.Data("kappa_median", median)
        k_sd = pm.Data("kappa_log_sd", log_sd)
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


def crossed_model(
    R: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    """Binary results with question difficulty shared across models (module docstring).

    *Identification.* The likelihood sees only ``theta_l - b_alpha``, so a common shift of
    the abilities and the difficulties is not identified by the data. Here the mean
    difficulty is **enforced** to be 0, not merely centred by the prior: ``b = sigma_b * u``
    with ``u`` a ``ZeroSumNormal``, so every draw has ``sum_alpha b_alpha = 0`` up to rounding
    (measured: at most 1.1e-14 over 1,600 draws of 30 questions) and NUTS moves in the
    ``M - 1`` remaining directions. Hence ``theta_l`` is exactly the mean over this
    benchmark's questions of the logit of model ``l``'s success probability (abilities compare
    across models on the same question set only), and each ``b_alpha`` has marginal prior sd
    ``sigma_b * sqrt(1 - 1/M)``. What stays soft is the split of the abilities into
    ``mu_theta`` and ``sigma_theta * z_theta``: their mean is pinned by the data, and the
    ``N(0, 1)`` prior of ``z_theta`` decides how much of it ``mu_theta`` carries.

    Returns
    -------
    pymc.Model
        ``theta`` (model), ``b`` (question), ``p`` (model, question), ``pi_bar`` (model).
    """
    data = model_data(R, None, None, mask=mask, models=models)
    if data.counts.shape[-1] != 2:
        raise ValueError("crossed_model needs binary results (categories 0 and 1).")
    with pm.Model(coords={k: data.coords[k] for k in ("model", "question")}) as model:
        successes = pm.Data("successes", data.counts[..., 1], dims=("model", "question"))
        n_trials = pm.Data("n_trials", data.n_trials, dims=("model", "question"))
        mu_theta = pm.Normal("mu_theta", 0.0, 1.5)
        sigma_theta = pm.HalfNormal("sigma_theta", 1.0)
        sigma_b = pm.HalfNormal("sigma_b", 2.0)
        z = pm.Normal("z_theta", 0.0, 1.0, dims="model")
        u = pm.ZeroSumNormal("z_b", sigma=1.0, dims="question")
        theta = pm.Deterministic("theta", mu_theta + sigma_theta * z, dims="model")
        b = pm.Deterministic("b", sigma_b * u, dims="question")
        p = pm.Deterministic(
            "p", pm.math.invlogit(theta[:, None] - b[None, :]), dims=("model", "question")
        )
        pm.Binomial(
            "successes_obs", n=n_trials, p=p, observed=successes, dims=("model", "question")
        )
        pm.Deterministic("pi_bar", p.mean(axis=-1), dims="model")
    return model


def crossed_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`crossed_model` (else ``None``).

    The reference is the closed form of the binary results with the uniform prior, without
    pooling; NUTS runs at ``target_accept`` 0.95 (module docstring).
    """
    if not built_with(model, **CROSSED):
        return None
    successes = data_value(model, "successes").astype(np.int64)
    counts = np.stack([data_value(model, "n_trials").astype(np.int64) - successes, successes], -1)
    data = ModelData(
        counts=counts,
        n_trials=counts.sum(axis=-1),
        prior_counts=np.zeros_like(counts),
        w=np.array([0.0, 1.0]),
        alpha0=np.ones(2),
        coords={**{k: list(model.coords[k]) for k in ("model", "question")}, "category": [0, 1]},
    )
    return ModelInfo(
        kind="crossed",
        data=data,
        reference={"": data.alpha0 + data.counts},
        reference_note=_NO_POOLING,
        target_accept=0.95,
    )
