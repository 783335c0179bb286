"""Bayesian ranking of candidates from imperfect LLM judges (Vossler et al., "LLMs Judging
LLMs: A Simplex Perspective", §5 and App. B).

The model, written out for a general number of levels ``M`` (every choice the paper leaves
open is listed, with its reason, in :data:`CHOICES`):

* **Likelihood** (eq. 5.1 / B.3). For each judge ``j`` and candidate ``k`` with
  ``mask[j, k]``, the counts ``N[j, k, :]`` are multinomial with probabilities
  ``gamma_jk = sum_m pi^(j)_{k,m} theta^(j)_{m,:}``: the latent true score is marginalised
  separately per judge (the sum over ``m`` computed in probability space, which equals
  ``exp(logsumexp_m(log pi_m + log theta_{m,s}))``).
* **Judge confusion matrices** ``theta^(j)`` (rows = true level ``m``, columns = assigned
  level ``s``) from the weight-propagation DAG prior (§5.3, App. B.3): edges
  ``(m, a) -> (m+1, b)`` only for ``b >= a``, Dirichlet edge weights
  ``1 + rho_j beta_max 1[b = t(m+1)]`` (the tail from ``a`` of a vector of ones boosted at the
  next level's correct score), ``theta_{m+1} = A_m^T theta_m``, ``rho_j ~ Beta(1, 1)``; the
  root row ``theta_1 ~ Dirichlet(1 + rho_j beta_max e_{t(1)})``. Every draw is stochastically
  ordered (``theta_1 <=_st theta_2 <=_st ...``), so label switching cannot occur.
* **Random effects** on prevalences (§5.2, App. B.2) when ``omega > 0``:
  ``Z_k ~ Dirichlet(delta)``, ``R_j ~ Beta(omega J, J)``, ``W_k ~ Beta(omega K, K)``,
  ``pi^(j)_k = (1 - W_k R_j) pi_k + W_k R_j Z_k``; ``omega = 0`` is strong constancy
  (no random effects).
* **Base prevalences** ``pi_k ~ Dirichlet(1_M)``; the ranking target is the expected true
  score ``mu_k = sum_m v_m pi_{k,m}``.
* **Integrated model**: hyperpriors ``beta_max ~ Uniform(0, 20)``, ``omega ~ Uniform(0, 8)``
  (the sensitivity ranges of §5.4), random effects always on.

:func:`fit_judges` samples with NUTS and returns an ``xarray.DataTree`` with ``posterior``
(including ``expected_score`` and ``rank``), ``sample_stats``, ``observed_data`` and a
``ranking`` group (posterior mean and 95% interval of ``mu``, point rank, 95% rank credible
interval) and convergence diagnostics in ``attrs`` (:func:`fit_diagnostics`; a
:class:`~bayes_eval.models.sampling.ConvergenceWarning` when a check fails).
:func:`judge_sensitivity` runs the §5.4 grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr

from bayes_eval.judges.data import JudgeData
from bayes_eval.models.sampling import Diagnostics, diagnostics, warn_if_unconverged
from bayes_eval.ranking.ranks import rank

__all__ = [
    "CHOICES",
    "FitSettings",
    "dag_prior_draws",
    "delta_preset",
    "fit_diagnostics",
    "fit_judges",
    "judge_model",
    "judge_sensitivity",
]

#: Choices where Vossler et al. leave the model open, as implemented, each with its reason.
CHOICES = {
    "likelihood": "marginal per judge (eq. B.3), the paper's own likelihood: the counts are "
    "then sufficient statistics, so a count table such as Table D.2 is complete data (a "
    "latent truth shared across judges would need per-question scores)",
    "pi_prior": "Dirichlet(1_M): uniform over a candidate's prevalences, no level favoured",
    "root_prior": "Dirichlet(1 + rho_j beta_max e_t(1)): the first row is boosted at its "
    "correct level like every DAG edge, so all rows get the same kind of prior "
    "(switch: root='uniform')",
    "dag_rule": "tail-of-boosted-vector rule: reproduces the M = 3 matrices of App. B.3.2 "
    "exactly, is defined for every M, and keeps every draw stochastically ordered",
    "delta": "inflation delta_m = 10^((m-1)/(M-1)): geometric from 1 to 10, the endpoints of "
    "the paper's M = 3 example [1, 4, 10] (M = 3 gives [1, 3.2, 10]), defined for every M",
    "hyperpriors": "beta_max ~ U(0, 20), omega ~ U(0, 8): uniform over the ranges of the "
    "paper's sensitivity grid (§5.4), so the integrated model averages over what it varied",
    "omega_zero": "no random-effect block: omega = 0 makes R_j ~ Beta(0, J) a point mass at 0, "
    "so the effects vanish (and a degenerate Beta cannot be sampled)",
    "abstention": "M = 2 true levels, L = 3 ordered assigned levels incorrect < abstain < "
    "correct: abstaining is better than a wrong answer and worse than a right one",
    "missing": "unparseable scores are missing (imputing a level would invent data); "
    "fractional scores are rounded half up, the same way for every judge",
    "self_preference": "same-family (judge, candidate) pairs excluded from the likelihood "
    "(footnote 1 of the paper): a judge's self-preference would bias its family's score",
    "ranks": "1 + #{k': mu_k' > mu_k} per draw (competition ranks); point rank = rank of the "
    "posterior mean mu",
    "sensitivity_base": "omega = 0, beta_max = 5, the paper's base setting",
    "rho": "one rho_j per judge, shared by its DAG nodes: reliability is a trait of the judge, "
    "and per-node strengths are not identified from counts",
}


def delta_preset(name: str | Sequence[float], M: int) -> np.ndarray:
    """Concentration ``delta`` of ``Z_k`` (App. B.2.3): ``"inflation"`` (default,
    ``10^((m-1)/(M-1))``), ``"deflation"`` (its reverse), ``"uniform"`` (ones), ``"central"``
    (peaked in the middle), or explicit values."""
    if not isinstance(name, str):
        d = np.asarray(name, dtype=float)
        if d.shape != (M,) or (d <= 0).any():
            raise ValueError(f"delta must be {M} positive numbers.")
        return d
    grid = np.arange(M) / max(M - 1, 1)
    if name == "inflation":
        return 10.0**grid
    if name == "deflation":
        return (10.0**grid)[::-1].copy()
    if name == "uniform":
        return np.ones(M)
    if name == "central":
        return 10.0 ** (1 - np.abs(2 * grid - 1))
    raise ValueError(
        f"delta is {name!r}; expected inflation, deflation, uniform, central or values."
    )


def _dag_theta(boost, J: int, M: int, L: int, correct: np.ndarray, root: str):
    """Confusion matrices ``(J, M, L)`` from the DAG prior; ``boost = rho * beta_max`` (J,).

    The out-edge weights of every node ``(m, a)`` with ``a < L`` are one Dirichlet vector over
    ``b = a..L``; the vectors of the ``M - 1`` layers that share ``a`` are stacked into one
    ``Dirichlet`` variable ``edge_from_<a>`` of shape ``(J, M - 1, L - a + 1)`` (fewer graph
    nodes, same prior). Node ``(m, L)`` has the single out-edge ``(m+1, L)`` of weight 1.
    """
    onehot = np.eye(L)
    if root == "boosted":
        conc_root = 1.0 + boost[:, None] * onehot[correct[0]][None, :]
    elif root == "uniform":
        conc_root = pt.ones((J, L))
    else:
        raise ValueError(f"root is {root!r}; expected 'boosted' or 'uniform'.")
    theta_root = pm.Dirichlet("theta_root", a=conc_root, shape=(J, L))
    if M == 1:
        return theta_root[:, None, :]
    A = pt.zeros((J, M - 1, L, L))
    for a in range(L - 1):
        tails = np.stack([onehot[int(correct[m + 1])][a:] for m in range(M - 1)])  # (M-1, L-a)
        conc = 1.0 + boost[:, None, None] * tails[None]
        edge = pm.Dirichlet(f"edge_from_{a + 1}", a=conc, shape=(J, M - 1, L - a))
        A = pt.set_subtensor(A[:, :, a, a:], edge)
    A = pt.set_subtensor(A[:, :, L - 1, L - 1], 1.0)
    rows = [theta_root]
    for m in range(M - 1):
        rows.append((rows[-1][:, :, None] * A[:, m]).sum(axis=1))
    return pt.stack(rows, axis=1)


def judge_model(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
) -> pm.Model:
    """Build the judges model (module docstring) for ``data``.

    Parameters
    ----------
    data : JudgeData
    omega : float, keyword-only
        Random-effect strength (0 = strong constancy, no random effects). A ``pm.Data``
        variable, so fits over an ``omega`` grid (> 0) reuse one compiled graph.
    beta_max : float, keyword-only
        DAG prior strength (0 = all Dirichlet parameters 1); ``pm.Data``.
    integrated : bool, keyword-only
        Hyperpriors on ``omega`` and ``beta_max`` instead of fixed values.
    delta : str or sequence, keyword-only
        Concentration of ``Z_k`` (:func:`delta_preset`).
    root : {"boosted", "uniform"}, keyword-only
        Prior of the root row ``theta_1``.
    exclude_same_family : bool, keyword-only
        Drop same-family pairs from the likelihood (footnote 1 of Vossler et al.).
    """
    if not (np.isfinite(omega) and omega >= 0):
        raise ValueError(f"omega is {omega!r}; expected a number >= 0.")
    if not (np.isfinite(beta_max) and beta_max >= 0):
        raise ValueError(f"beta_max is {beta_max!r}; expected a number >= 0.")
    data = data.with_mask(exclude_same_family)
    J, K, L = data.counts.shape
    M = data.n_true
    jj, kk = np.nonzero(data.mask)
    if jj.size == 0:
        raise ValueError("no (judge, candidate) pair is left to fit after the exclusions.")
    unjudged = [data.candidates[k] for k in range(K) if not data.mask[:, k].any()]
    if unjudged:
        raise ValueError(f"candidate(s) {unjudged} have no admissible judge scores.")
    pairs = _pairs(data)
    coords = {
        "candidate": list(data.candidates),
        "judge": list(data.judges),
        "level": list(data.true_levels),
        "assigned": list(data.assigned_levels),
        "pair": pairs,
    }
    with pm.Model(coords=coords) as model:
        counts = pm.Data("counts", data.counts[jj, kk], dims=("pair", "assigned"))
        values = pm.Data("values", data.values, dims="level")
        if integrated:
            bmax = pm.Uniform("beta_max", 0.0, 20.0)
            om = pm.Uniform("omega", 0.0, 8.0)
        else:
            bmax = pm.Data("beta_max", float(beta_max))
            om = pm.Data("omega", float(omega))
        rho = pm.Beta("rho", 1.0, 1.0, dims="judge")
        theta = pm.Deterministic(
            "theta",
            _dag_theta(rho * bmax, J, M, L, data.correct_level, root),
            dims=("judge", "level", "assigned"),
        )
        pi = pm.Dirichlet("pi", a=np.ones(M), dims=("candidate", "level"))
        if integrated or omega > 0:
            Z = pm.Dirichlet("Z", a=delta_preset(delta, M), dims=("candidate", "level"))
            R = pm.Beta("R", alpha=om * J, beta=float(J), dims="judge")
            W = pm.Beta("W", alpha=om * K, beta=float(K), dims="candidate")
            lam = R[:, None] * W[None, :]
            pi_jk = (1 - lam)[:, :, None] * pi[None] + lam[:, :, None] * Z[None]
        else:
            pi_jk = pt.broadcast_to(pi[None], (J, K, M))
        gamma = (pi_jk[:, :, :, None] * theta[:, None, :, :]).sum(axis=2)
        gamma_pair = gamma[jj, kk]
        pm.Multinomial(
            "scores", n=counts.sum(axis=1), p=gamma_pair, observed=counts, dims=("pair", "assigned")
        )
        pm.Deterministic("expected_score", (pi * values[None, :]).sum(axis=1), dims="candidate")
    return model


def _pairs(data: JudgeData) -> list[str]:
    """Labels ``judge|candidate`` of the pairs in the likelihood (``pair`` coordinate)."""
    jj, kk = np.nonzero(data.mask)
    return [f"{data.judges[j]}|{data.candidates[k]}" for j, k in zip(jj, kk, strict=True)]


def dag_prior_draws(
    M: int,
    L: int | None = None,
    *,
    J: int = 1,
    beta_max: float = 5.0,
    draws: int = 1000,
    correct_level: Sequence[int] | None = None,
    root: str = "boosted",
    seed: int = 0,
) -> np.ndarray:
    """Prior draws ``(draws, J, M, L)`` of the confusion matrices (for checks and plots)."""
    L = M if L is None else L
    correct = np.arange(M) if correct_level is None else np.asarray(correct_level)
    with pm.Model():
        rho = pm.Beta("rho", 1.0, 1.0, shape=J)
        theta = pm.Deterministic("theta", _dag_theta(rho * beta_max, J, M, L, correct, root))
    return pm.draw(theta, draws=draws, random_seed=seed)


@dataclass(frozen=True)
class FitSettings:
    """NUTS settings for :func:`fit_judges` (the paper: 4 chains x 1000 + 1000).

    ``warn`` issues a :class:`bayes_eval.models.sampling.ConvergenceWarning` when a fit fails a
    check of :func:`fit_diagnostics` (default); the diagnostics are stored either way.
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    seed: int = 0
    target_accept: float = 0.9
    progress: bool = False
    cores: int | None = None
    sampler: str = "pymc"
    warn: bool = True

    def __post_init__(self) -> None:
        for name, least in (("draws", 1), ("tune", 0), ("chains", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                kind = "a positive" if least else "a non-negative"
                raise ValueError(f"{name} is {value!r}; expected {kind} integer.")


def fit_diagnostics(idata: xr.DataTree) -> Diagnostics:
    """Convergence diagnostics of a judges fit (:func:`bayes_eval.models.sampling.diagnostics`).

    Every variable NUTS produced is checked (``rho``, the DAG edge weights, ``theta``, ``pi``,
    the random effects, the hyperparameters and ``expected_score``), not ``rank``, which is
    computed from ``expected_score`` afterwards and is discrete. ``converged`` requires r-hat
    at most 1.01, bulk and tail ESS at least 100 per chain and *no* divergence (PyMC's
    thresholds): a divergence means NUTS could not explore part of the posterior, which can
    bias every estimate, so no rate of them is treated as negligible.
    """
    names = [v for v in idata["posterior"].to_dataset().data_vars if v != "rank"]
    return diagnostics(idata, var_names=names)


def _ranking_dataset(post: xr.Dataset, data: JudgeData, prob: float = 0.95) -> xr.Dataset:
    mu = post["expected_score"].stack(sample=("chain", "draw")).transpose("sample", "candidate")
    ranks = post["rank"].stack(sample=("chain", "draw")).transpose("sample", "candidate").values
    lo_q, hi_q = (1 - prob) / 2, 1 - (1 - prob) / 2
    mean = mu.mean("sample").values
    point = rank(mean)
    ds = xr.Dataset(
        {
            "mu_mean": ("candidate", mean),
            "mu_sd": ("candidate", mu.std("sample").values),
            "mu_lo": ("candidate", np.quantile(mu.values, lo_q, axis=0)),
            "mu_hi": ("candidate", np.quantile(mu.values, hi_q, axis=0)),
            "rank": ("candidate", point),
            "rank_lo": ("candidate", np.quantile(ranks, lo_q, axis=0, method="inverted_cdf")),
            "rank_hi": ("candidate", np.quantile(ranks, hi_q, axis=0, method="inverted_cdf")),
            "rank_mean": ("candidate", ranks.mean(axis=0)),
        },
        coords={"candidate": list(data.candidates)},
        attrs={"interval_prob": prob},
    )
    if data.truth is not None:
        ds["truth"] = ("candidate", data.truth)
    return ds


def fit_judges(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
    settings: FitSettings | None = None,
    model: pm.Model | None = None,
) -> xr.DataTree:
    """Fit the judges model with NUTS and summarise the ranking.

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (with ``expected_score`` and ``rank`` over ``candidate``),
        ``sample_stats``, ``observed_data``, ``constant_data`` and ``ranking`` (posterior mean,
        sd and 95% equal-tailed interval of ``mu``; point rank; 95% rank credible interval;
        ``truth`` if known). ``attrs`` hold the settings and the convergence diagnostics of
        :func:`fit_diagnostics` (``max_rhat``, ``min_ess_bulk``, ``min_ess_tail``,
        ``divergences``, ``divergence_rate``, ``converged`` as 0/1 and
        ``convergence_messages``; read them back with
        :meth:`bayes_eval.models.sampling.Diagnostics.from_attrs`). ``converged`` is 1 only
        without divergences and with every checked variable within PyMC's r-hat and ESS
        thresholds.

    ``model`` may be a model built earlier by :func:`judge_model` for the same data and
    structure; then only its ``omega``/``beta_max`` data are set (no new graph).
    """
    s = settings or FitSettings()
    used = data.with_mask(exclude_same_family)
    if model is None:
        model = judge_model(
            data,
            omega=omega,
            beta_max=beta_max,
            integrated=integrated,
            delta=delta,
            root=root,
            exclude_same_family=exclude_same_family,
        )
    else:  # reuse a built model: same pairs, new counts and prior settings
        built = model.coords.get("pair"), model.coords.get("candidate")
        if built != (tuple(_pairs(used)), tuple(used.candidates)):
            raise ValueError("model was built for other (judge, candidate) pairs; rebuild it.")
        jj, kk = np.nonzero(used.mask)
        new = {"counts": used.counts[jj, kk]}
        if not integrated:
            new.update({"omega": float(omega), "beta_max": float(beta_max)})
        with model:
            pm.set_data(new)
    import os

    cores = s.cores or max(1, min(s.chains, len(os.sched_getaffinity(0))))
    idata = pm.sample(
        draws=s.draws,
        tune=s.tune,
        chains=s.chains,
        cores=cores,
        random_seed=s.seed,
        target_accept=s.target_accept,
        model=model,
        progressbar=s.progress,
        compute_convergence_checks=False,
        nuts_sampler=s.sampler,
    )
    post = idata["posterior"].to_dataset()
    post["rank"] = (("chain", "draw", "candidate"), rank(post["expected_score"].values))
    idata["posterior"] = xr.DataTree(post)
    idata["ranking"] = xr.DataTree(_ranking_dataset(post, used))
    diag = fit_diagnostics(idata)
    idata.attrs.update(
        {
            "omega": "integrated" if integrated else float(omega),
            "beta_max": "integrated" if integrated else float(beta_max),
            "exclude_same_family": int(exclude_same_family),
            **diag.to_attrs(),
        }
    )
    if s.warn:
        warn_if_unconverged(diag, "judges model fit")
    return idata


def judge_sensitivity(
    data: JudgeData,
    *,
    omegas: Sequence[float] = (0, 1, 2, 4, 8),
    beta_maxes: Sequence[float] = (0, 1, 5, 10, 20),
    base: tuple[float, float] = (0.0, 5.0),
    settings: FitSettings | None = None,
    progress: bool = False,
) -> xr.Dataset:
    """§5.4's sensitivity analysis: Spearman correlation of each setting's point ranking
    with the base fit (``omega = 0, beta_max = 5``), and the rank intervals of each fit.

    The omega grid runs at the base ``beta_max``, the beta_max grid at the base ``omega``.
    Fits with ``omega = 0`` share one compiled graph and fits with ``omega > 0`` another.
    """
    from scipy import stats

    settings = settings or FitSettings(draws=500, tune=500, chains=2)
    grid = [("omega", o, float(o), base[1]) for o in omegas]
    grid += [("beta_max", b, base[0], float(b)) for b in beta_maxes]
    if (base[0], base[1]) not in [(g[2], g[3]) for g in grid]:
        grid.insert(0, ("base", 0, base[0], base[1]))
    models: dict[bool, pm.Model] = {}
    fits: dict[tuple[float, float], xr.Dataset] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len({(g[2], g[3]) for g in grid}), desc="sensitivity fits")
    for _, _, om, bm in grid:
        if (om, bm) in fits:
            continue
        key = om > 0
        if key not in models:
            models[key] = judge_model(data, omega=om, beta_max=bm)
        fit = fit_judges(data, omega=om, beta_max=bm, settings=settings, model=models[key])
        fits[(om, bm)] = fit["ranking"].to_dataset()
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    base_rank = fits[(base[0], base[1])]["mu_mean"].values
    rows = []
    for axis, value, om, bm in grid:
        r = fits[(om, bm)]
        rho = float(stats.spearmanr(base_rank, r["mu_mean"].values).statistic)
        rows.append(
            (axis, float(value), rho, r["rank"].values, r["rank_lo"].values, r["rank_hi"].values)
        )
    setting = [f"{a}={v:g}" for a, v, *_ in rows]
    return xr.Dataset(
        {
            "spearman_vs_base": ("setting", [r[2] for r in rows]),
            "rank": (("setting", "candidate"), np.array([r[3] for r in rows])),
            "rank_lo": (("setting", "candidate"), np.array([r[4] for r in rows])),
            "rank_hi": (("setting", "candidate"), np.array([r[5] for r in rows])),
        },
        coords={
            "setting": setting,
            "axis": ("setting", [r[0] for r in rows]),
            "value": ("setting", [r[1] for r in rows]),
            "candidate": list(data.candidates),
        },
        attrs={"base": f"omega={base[0]:g}, beta_max={base[1]:g}"},
    )
