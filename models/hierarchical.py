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
    \theta_l \sim N(\mu_\theta, \sigma_\theta^2), \quad b_\alpha \sim N(0, \sigma_b^2), \quad
    \bar\pi_l = \frac1M\sum_\alpha p_{l\alpha},

with :math:`\mu_\theta \sim N(0, 1.5^2)`, :math:`\sigma_\theta \sim N^+(1)`,
:math:`\sigma_b \sim N^+(2)` (a difficulty sd of 2 on the logit scale spans questions solved
2% to 98% of the time). The mean difficulty is 0 only in the prior, so ``theta`` carries the
overall level.

*Parametrisation* (the model above, exactly; only the coordinates NUTS moves in differ). The
likelihood sees ``theta - b`` only, so a common shift of ``theta``, ``mu_theta`` and ``b`` is
fixed by the prior alone; and with a few models ``sigma_theta`` is weakly identified while
each ``theta_l`` is pinned by hundreds of trials. The sampler therefore moves in

* the difficulty deviations :math:`d = b - \bar b = \sigma_b\,\mathrm{ZeroSumNormal}(1)`
  (independent of the mean difficulty :math:`\bar b \sim N(0, \sigma_b^2/M)`) and the level
  :math:`\nu = \mu_\theta - \bar b \sim N(0, V)`, :math:`V = 1.5^2 + \sigma_b^2/M`;
* :math:`\bar b \mid \nu \sim N(-\nu\,\sigma_b^2/(MV),\ 1.5^2\sigma_b^2/(MV))`, drawn from a
  standard normal the likelihood never sees, so the shift direction mixes perfectly
  (``theta = eta + bbar``, ``b = bbar + d``, ``mu_theta = nu + bbar``);
* the abilities relative to the mean difficulty, :math:`\eta_l = \theta_l - \bar b
  \sim N(\nu, \sigma_\theta^2)`, *centred* when every model has at least 100 observed trials
  (its data pin :math:`\eta_l` much tighter than :math:`\sigma_\theta`) and non-centred
  (:math:`\eta_l = \nu + \sigma_\theta z_l`) below that; ``centred=`` overrides the choice.

Measured with PyMC's NUTS at its default ``target_accept`` 0.8, 2 chains x 800 draws after
800 tuning steps, 5 models x 30 questions x 8 trials as in
``tests/test_models.py::test_crossed_model_recovers_abilities`` (data seeds 4, 1, 2, 3 x
sampler seeds 0-5, 24 runs, 38,400 draws). The former fully non-centred form
(:math:`\theta = \mu_\theta + \sigma_\theta z`, :math:`b = \sigma_b u`) diverged 12 times in 10
of the 24 runs, at :math:`\sigma_\theta` 0.5-2.6 (both ends of its posterior, not a funnel
neck: its 1% quantile is 0.4-0.6). The cause is the non-centred abilities: given
:math:`\sigma_\theta` the :math:`z_l` have scale :math:`\approx\mathrm{se}(\theta_l)/\sigma_\theta`,
which changes five-fold over the :math:`\sigma_\theta` posterior (an inverted funnel), so no
single step size fits. Centring the abilities alone gave 0 divergences in 24 runs; removing
the shift direction alone (non-centred abilities) still gave 16; ``sigma_b`` is not involved
(its non-centred form is kept). The shift direction made ``mu_theta`` mix badly (bulk ESS
52-480 of 1,600, r-hat up to 1.06 over the sampler settings tried). This parametrisation:
0 divergences in 24 runs, ``mu_theta`` ESS 1,160-2,050, r-hat of the hyperparameters at most
1.018, and 8 gradient evaluations per draw instead of 21. Raising ``target_accept`` to 0.95
also removed the divergences (0 in 24 runs) but cost 37 gradient evaluations per draw and
left ``mu_theta`` mixing badly (ESS down to 93, r-hat up to 1.036), so it hid the geometry
rather than fixing it. With weak data the centred form diverges (5 models x 30 questions x
1-2 trials: 9 and 108 divergences in 6 runs, non-centred 0 and 1), hence the switch at 100
trials per model (5 x 30 x 4 and 5 x 100 x 1-2: centred 0 divergences in 6 runs each).
With only two models ``sigma_theta`` is barely identified and every form diverges; pass
``target_accept=0.95`` (or more) to :func:`bayes_eval.models.sample` there.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.models.model_data import ModelInfo, model_data

__all__ = [
    "CENTRE_MIN_TRIALS",
    "KAPPA_PRIOR",
    "crossed_model",
    "dirichlet_conditional",
    "hierarchical_model",
]

#: Default (median, log-sd) of the log-normal prior on kappa.
KAPPA_PRIOR = (5.0, 1.5)
DIMS = ("model", "question", "category")


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

    def concentration(posterior: xr.Dataset) -> np.ndarray:
        k = posterior["kappa"].transpose("chain", "draw", "model").values
        b = posterior["beta"].transpose("chain", "draw", "model", "category").values
        return (k[..., None] * b)[:, :, :, None, :]

    model.bayes_eval_info = ModelInfo(
        kind="hierarchical",
        data=data,
        reference={"": data.alpha0 + data.counts},
        reference_note="Bayes@N closed form with the uniform prior (no pooling), for comparison",
        conditional=dirichlet_conditional(concentration, data.counts, data.w),
    )
    return model


#: Fewest observed trials of every model for which :func:`crossed_model` centres the abilities.
CENTRE_MIN_TRIALS = 100


def crossed_model(
    R: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
    centred: bool | None = None,
) -> pm.Model:
    """Binary results with question difficulty shared across models (module docstring).

    Parameters
    ----------
    R, mask, models
        As in :func:`bayes_eval.models.matching_model`; results must be 0/1.
    centred : bool, optional, keyword-only
        Centred abilities ``eta ~ N(nu, sigma_theta)`` (True) or non-centred
        ``eta = nu + sigma_theta * z_theta`` (False). Default: centred when every model has
        at least ``CENTRE_MIN_TRIALS`` (100) observed trials. The posterior is the same
        either way; only how well NUTS explores it differs.

    Returns
    -------
    pymc.Model
        Hyperparameters ``mu_theta``, ``sigma_theta``, ``sigma_b``; ``theta`` (model),
        ``b`` (question), ``p`` (model, question), ``pi_bar`` (model). The sampler's own
        coordinates are ``z_level``, ``z_mean_b``, ``z_b`` and ``eta`` or ``z_theta``.
    """
    data = model_data(R, None, None, mask=mask, models=models)
    if data.counts.shape[-1] != 2:
        raise ValueError("crossed_model needs binary results (categories 0 and 1).")
    if centred is None:
        centred = bool(data.n_trials.sum(axis=1).min() >= CENTRE_MIN_TRIALS)
    n_questions = data.counts.shape[1]
    mu_sd = 1.5  # prior sd of mu_theta
    with pm.Model(coords={k: data.coords[k] for k in ("model", "question")}) as model:
        successes = pm.Data("successes", data.counts[..., 1], dims=("model", "question"))
        n_trials = pm.Data("n_trials", data.n_trials, dims=("model", "question"))
        sigma_theta = pm.HalfNormal("sigma_theta", 1.0)
        sigma_b = pm.HalfNormal("sigma_b", 2.0)
        # mean difficulty bbar ~ N(0, var_bbar) and level nu = mu_theta - bbar, drawn as nu and
        # bbar | nu so that the shift direction the likelihood cannot see is a free N(0, 1)
        var_bbar = sigma_b**2 / n_questions
        var_nu = mu_sd**2 + var_bbar
        nu = pt.sqrt(var_nu) * pm.Normal("z_level", 0.0, 1.0)
        bbar = -var_bbar / var_nu * nu + pt.sqrt(var_bbar * mu_sd**2 / var_nu) * pm.Normal(
            "z_mean_b", 0.0, 1.0
        )
        if centred:
            eta = pm.Normal("eta", nu, sigma_theta, dims="model")
        else:
            eta = nu + sigma_theta * pm.Normal("z_theta", 0.0, 1.0, dims="model")
        d = sigma_b * pm.ZeroSumNormal("z_b", sigma=1.0, dims="question")
        pm.Deterministic("mu_theta", nu + bbar)
        pm.Deterministic("theta", eta + bbar, dims="model")
        pm.Deterministic("b", bbar + d, dims="question")
        logit_p = eta[:, None] - d[None, :]  # = theta - b
        p = pm.Deterministic("p", pm.math.invlogit(logit_p), dims=("model", "question"))
        pm.Binomial(
            "successes_obs",
            n=n_trials,
            logit_p=logit_p,
            observed=successes,
            dims=("model", "question"),
        )
        pm.Deterministic("pi_bar", p.mean(axis=-1), dims="model")
    model.bayes_eval_info = ModelInfo(
        kind="crossed",
        data=data,
        reference={"": data.alpha0 + data.counts},
        reference_note="Bayes@N closed form with the uniform prior (no pooling), for comparison",
    )
    return model
