r"""NUTS SBC of the PyMC models: with simuk, and on one compiled model per worker.

For every estimator (:data:`ESTIMATORS`) a *template* model is built on ``n_models`` x ``M``
questions x ``N`` binary trials (the data values do not matter: each simulation replaces
them). Prior SBC (Talts et al., "Validating Bayesian Inference Algorithms with
Simulation-Based Calibration") then draws the parameters and data from the prior predictive,
refits, and ranks the true test quantities among the posterior draws (:mod:`.sbc`).

Two runners:

* :func:`simuk_sbc` calls :class:`simuk.SBC` (it rebuilds and recompiles the model for every
  simulation) and converts the ranks to the result shape of :func:`.sbc.sbc_dataset`; only
  the test quantities the model itself holds are ranked (``pi_bar`` of the models that
  integrate ``pi`` out needs the simulated counts, which simuk does not keep).
* :func:`run_block` is the fast path: one block of simulations on a model compiled once per
  worker process (:func:`nutpie.compile_pymc_model`; each simulation swaps the observed
  counts with ``.with_data(...)``, no recompilation). :mod:`.sbc_study` runs the blocks as
  cells of the resumable Dask runner (:mod:`.cell_runner`).

The observed counts of the Dirichlet-multinomial models are ``pm.Data`` (``count_data``) and
the number of trials per question is derived from it (``count_data.sum(-1)``): the prior
predictive draws of ``counts`` keep the template's ``N`` per question, so setting
``count_data`` to them keeps the model consistent. The crossed model observes
``successes`` with a separate ``n_trials``.

Test quantities (binary results, ``w = (0, 1)``):

* ``matching``: ``pi_bar[model-l]``, ``w.pi[model-0,question-q]`` (q = 0, 1), ``rank[model-l]``;
* ``hierarchical``: ``kappa[model-l]``, ``beta_top[model-l]``, ``pi_bar[model-l]``,
  ``rank[model-l]``; ``pi`` is drawn from its exact conditional
  :math:`\mathrm{Dir}(\kappa\beta + n)`, for the truth as for every posterior draw, so the
  joint (kappa, beta, pi, n) has the model's distribution;
* ``power-prior`` (learned ``a0``; the prior runs ``R0`` are 4 fixed trials per question,
  drawn once from ``seed``): ``a0[model-l]``, ``pi_bar``, ``rank`` (``pi`` from
  :math:`\mathrm{Dir}(1 + a_0 n^0 + n)`);
* ``crossed``: ``mu_theta``, ``sigma_theta``, ``sigma_b``, ``theta[model-l]``,
  ``b[question-0]``, ``pi_bar[model-l]``, ``rank[model-l]``;
* ``judges`` (:func:`bayes_eval.models.judges.judge_model` of Vossler et al., "LLMs Judging
  LLMs: A Simplex Perspective", at its defaults: strong constancy, ``beta_max`` 5; 3 judges
  score the ``n_models`` candidates' answers to ``M`` questions as wrong/right, ``N`` is
  unused): ``rho[judge-j]``, ``expected_score[model-l]``, ``rank[model-l]``.

``rank[model-l]`` is the competition rank of model ``l`` by ``pi_bar`` (1 = best), with ties
randomised (:func:`.sbc.randomised_rank`). The ``draws x chains`` posterior draws are thinned by
``thin`` before ranking: SBC assumes near-independent draws, and autocorrelated draws give
non-uniform ranks even for a correct sampler (Talts et al., §5.1). NUTS runs at the
``target_accept`` of :func:`bayes_eval.models.model_info` (0.95 for the crossed model).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayes_eval.ranking.ranks import rank
from bayes_eval.validation.sbc import randomised_rank, sbc_dataset

__all__ = ["ESTIMATORS", "quantities", "run_block", "simuk_sbc", "template_model"]

ESTIMATORS = ("matching", "hierarchical", "crossed", "power-prior", "judges")
#: Observed variable and the ``pm.Data`` container holding its values, per estimator.
OBSERVED = {
    "matching": ("counts", "count_data"),
    "hierarchical": ("counts", "count_data"),
    "power-prior": ("counts", "count_data"),
    "crossed": ("successes_obs", "successes"),
    "judges": ("scores", "counts"),
}
PRIOR_TRIALS = 4
#: Judges of the template judge model (its candidates are the ``n_models`` LLMs).
JUDGES = 3
_COMPILED: dict = {}


def template_model(estimator: str, M: int, N: int, n_models: int = 2, *, seed: int = 0):
    """The model of ``estimator`` on ``n_models x M x N`` binary trials (all failures)."""
    from bayes_eval import models

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator is {estimator!r}; expected one of {list(ESTIMATORS)}.")
    R = np.zeros((n_models, M, N), dtype=int)
    names = [f"model-{i}" for i in range(n_models)]
    if estimator == "matching":
        return models.matching_model(R, models=names)
    if estimator == "hierarchical":
        return models.hierarchical_model(R, models=names)
    if estimator == "crossed":
        return models.crossed_model(R, models=names)
    if estimator == "judges":
        return _judge_template(M, n_models)
    rng = np.random.default_rng([seed, 7])
    R0 = (rng.random((n_models, M, PRIOR_TRIALS)) < rng.random((n_models, M, 1))).astype(int)
    return models.power_prior_model(R, None, R0, models=names)


def _judge_template(M: int, n_models: int):
    """Judge model, strong constancy, ``beta_max`` 5 (the defaults of
    :func:`bayes_eval.models.judges.judge_model`): :data:`JUDGES` judges score the answers of
    ``n_models`` candidates to ``M`` questions as wrong/right (values 0, 1)."""
    from bayes_eval.judges.data import JudgeData
    from bayes_eval.models.judges import judge_model

    counts = np.zeros((JUDGES, n_models, 2), dtype=np.int64)
    counts[..., 0] = M
    data = JudgeData(
        counts=counts,
        mask=np.ones((JUDGES, n_models), dtype=bool),
        same_family=np.zeros((JUDGES, n_models), dtype=bool),
        candidates=tuple(f"model-{k}" for k in range(n_models)),
        judges=tuple(f"judge-{j}" for j in range(JUDGES)),
        true_levels=("0", "1"),
        assigned_levels=("0", "1"),
        values=np.array([0.0, 1.0]),
        correct_level=np.arange(2),
    )
    return judge_model(data)


def _conditional_pi_bar(a1, a0, successes, n, rng):
    """``pi_bar`` with ``pi_alpha ~ Beta(a1 + s, a0 + n - s)`` (binary Dirichlet)."""
    return rng.beta(a1 + successes, a0 + n - successes).mean(axis=-1)


def quantities(
    estimator: str, values: dict, successes, n_trials, rng, *, prior_counts=None
) -> tuple[np.ndarray, list[str]]:
    """Test quantities ``(..., V)`` and their names from draws ``values[name]`` ``(..., dims)``.

    ``successes`` ``(..., L, M)`` are the simulated data the draws condition on (broadcast
    against the draws' leading axes); ``None`` skips the quantities that need them.
    """
    parts: list = []
    names: list[str] = []

    def add(label, arr):
        arr = np.asarray(arr, dtype=float)
        if "{}" in label:
            parts.append(arr)
            names.extend(label.format(i) for i in range(arr.shape[-1]))
        else:
            parts.append(arr[..., None])
            names.append(label)

    pi_bar = None
    if estimator == "matching":
        pq = values["pi"][..., 1]
        pi_bar = pq.mean(axis=-1)
        add("pi_bar[model-{}]", pi_bar)
        for q in range(min(pq.shape[-1], 2)):
            add(f"w.pi[model-0,question-{q}]", pq[..., 0, q])
    elif estimator in ("hierarchical", "power-prior"):
        if estimator == "hierarchical":
            add("kappa[model-{}]", values["kappa"])
            add("beta_top[model-{}]", values["beta"][..., 1])
            conc = values["kappa"][..., None] * values["beta"]  # (..., L, 2)
            a0_, a1_ = conc[..., 0, None], conc[..., 1, None]
        else:
            add("a0[model-{}]", values["a0"])
            a = values["a0"][..., None]
            a0_ = 1 + a * (PRIOR_TRIALS - prior_counts)
            a1_ = 1 + a * prior_counts
        if successes is not None:
            pi_bar = _conditional_pi_bar(a1_, a0_, successes, n_trials, rng)
            add("pi_bar[model-{}]", pi_bar)
    elif estimator == "judges":
        add("rho[judge-{}]", values["rho"])
        pi_bar = values["expected_score"]
        add("expected_score[model-{}]", pi_bar)
    else:
        for name in ("mu_theta", "sigma_theta", "sigma_b"):
            add(name, values[name])
        add("theta[model-{}]", values["theta"])
        add("b[question-0]", values["b"][..., 0])
        pi_bar = values["pi_bar"]
        add("pi_bar[model-{}]", pi_bar)
    if pi_bar is not None and pi_bar.shape[-1] >= 2:
        add("rank[model-{}]", rank(pi_bar, axis=-1))
    shape = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
    return np.concatenate([np.broadcast_to(p, (*shape, p.shape[-1])) for p in parts], -1), names


def _target_accept(estimator: str, model) -> float:
    """The sampler setting the package uses for this model."""
    if estimator == "judges":
        from bayes_eval.models.judges import FitSettings

        return FitSettings().target_accept
    from bayes_eval.models import model_info

    return model_info(model).target_accept


def _compiled(estimator, M, N, n_models, seed):
    """``(model, compiled, target_accept)``, built once per worker process and kept."""
    key = (estimator, M, N, n_models, seed if estimator == "power-prior" else 0)
    if key not in _COMPILED:
        import nutpie

        model = template_model(estimator, M, N, n_models, seed=seed)
        target = _target_accept(estimator, model)
        _COMPILED[key] = (model, nutpie.compile_pymc_model(model), target)
    return _COMPILED[key]


def _values(ds: xr.Dataset, names, lead: tuple[str, ...]) -> dict:
    out = {}
    for name in names:
        da = ds[name]
        out[name] = da.transpose(*lead, *[d for d in da.dims if d not in lead]).values
    return out


_VARS = {
    "matching": ("pi",),
    "hierarchical": ("kappa", "beta"),
    "power-prior": ("a0",),
    "crossed": ("mu_theta", "sigma_theta", "sigma_b", "theta", "b", "pi_bar"),
    "judges": ("rho", "expected_score"),
}


def run_block(
    estimator: str,
    M: int,
    N: int,
    *,
    n_models: int = 2,
    start: int = 0,
    size: int = 10,
    draws: int = 200,
    tune: int = 200,
    chains: int = 2,
    thin: int = 4,
    seed: int = 0,
) -> xr.Dataset:
    """Simulations ``start .. start + size - 1`` of a NUTS SBC on one compiled model.

    The prior predictive draws, the sampler seeds and the tie-breaking are seeded by
    ``(seed, start)``, so a block gives the same ranks on any worker, in any order.

    Returns
    -------
    xarray.Dataset
        ``rank`` (simulation, variable) with global simulation numbers, ``divergences``
        (simulation), and attrs ``n_draws`` (``chains * draws // thin``) and ``variable``
        names.
    """
    import nutpie
    import pymc as pm

    model, compiled, target_accept = _compiled(estimator, M, N, n_models, seed)
    obs, container = OBSERVED[estimator]
    ss = np.random.SeedSequence([seed, start])
    prior_seed, sampler_seed, rank_seed = (int(s.generate_state(1)[0]) for s in ss.spawn(3))
    rng = np.random.default_rng(rank_seed)
    with model:
        pp = pm.sample_prior_predictive(draws=size, random_seed=prior_seed)
    prior = pp["prior"].to_dataset().isel(chain=0)
    data = pp["prior_predictive"][obs].isel(chain=0).values  # (size, L, M[, 2])
    succ = data if estimator == "crossed" else data[..., 1]
    n0 = None
    if estimator == "power-prior":
        n0 = model["prior_count_data"].get_value()[..., 1]
    truth, names = quantities(
        estimator, _values(prior, _VARS[estimator], ("draw",)), succ, N, rng, prior_counts=n0
    )
    seeds = np.random.default_rng(sampler_seed).integers(0, 2**31, size)
    ranks, divergent = [], []
    for i in range(size):
        fit = nutpie.sample(
            compiled.with_data(**{container: data[i]}),
            draws=draws,
            tune=tune,
            chains=chains,
            seed=int(seeds[i]),
            target_accept=target_accept,
            progress_bar=False,
        )
        post = fit["posterior"].to_dataset().stack(sample=("chain", "draw"))
        post = post.isel(sample=slice(None, None, thin))
        values = _values(post, _VARS[estimator], ("sample",))
        sampled, _ = quantities(estimator, values, succ[i], N, rng, prior_counts=n0)
        ranks.append(randomised_rank(truth[i], sampled, rng, axis=0))
        divergent.append(int(fit["sample_stats"]["diverging"].sum()))
    sims = np.arange(start, start + size)
    return xr.Dataset(
        {
            "rank": (("simulation", "variable"), np.array(ranks)),
            "divergences": ("simulation", np.array(divergent)),
        },
        coords={"simulation": sims, "variable": names},
        attrs={"n_draws": len(range(0, chains * draws, thin))},
    )


def simuk_sbc(
    estimator: str,
    M: int,
    N: int,
    *,
    n_models: int = 2,
    simulations: int = 20,
    draws: int = 200,
    tune: int = 200,
    chains: int = 2,
    thin: int = 4,
    seed: int = 0,
    sample_kwargs: dict | None = None,
) -> xr.Dataset:
    """NUTS SBC with :class:`simuk.SBC` (one model rebuilt per simulation), our result shape.

    simuk ranks against every posterior draw (its own ``prior_sbc`` group); here the
    posterior fits it keeps are thinned by ``thin`` and the test quantities of
    :func:`quantities` are ranked (ties randomised), those needing the simulated counts
    excepted. ``sample_kwargs`` go to ``pymc.sample`` (nutpie by default when installed).
    """
    import simuk

    model = template_model(estimator, M, N, n_models, seed=seed)
    kwargs = {"draws": draws, "tune": tune, "chains": chains}
    kwargs |= {"target_accept": _target_accept(estimator, model), **(sample_kwargs or {})}
    sbc = simuk.SBC(
        model, num_simulations=simulations, sample_kwargs=kwargs, seed=seed, progress_bar=False
    )
    sbc.run_simulations()
    if len(sbc.posteriors) < simulations:
        raise RuntimeError(f"simuk finished {len(sbc.posteriors)} of {simulations} simulations.")
    rng = np.random.default_rng([seed, 1])
    n0 = None
    if estimator == "power-prior":
        n0 = model["prior_count_data"].get_value()[..., 1]
    truth, names = quantities(
        estimator,
        _values(sbc.ref_params, _VARS[estimator], ("sample",)),
        None,
        N,
        rng,
        prior_counts=n0,
    )
    ranks = []
    for i, post in enumerate(sbc.posteriors):
        post = post.isel(sample=slice(None, None, thin))
        values = _values(post, _VARS[estimator], ("sample",))
        sampled, _ = quantities(estimator, values, None, N, rng, prior_counts=n0)
        ranks.append(randomised_rank(truth[i], sampled, rng, axis=0))
    n_draws = len(range(0, chains * draws, thin))
    return sbc_dataset(
        np.array(ranks),
        names,
        n_draws=n_draws,
        estimator=estimator,
        seed=seed,
        attrs={"M": M, "N": N, "n_models": n_models, "method": "simuk.SBC (NUTS)"},
    )
