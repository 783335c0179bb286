r"""Study ``hyperprior``: the hyperprior on the concentration, learned from real benchmarks.

The learned prior gives each question :math:`\pi_q \sim \mathrm{Beta}(\kappa m, \kappa(1-m))`
(binary; a Dirichlet for rubrics) and integrates over :math:`(m, \kappa)`
(:mod:`bayes_eval.posteriors.priors`). With N >= 2 trials per question one model's results
identify :math:`\kappa`; with one trial they do not, and the hyperprior on
:math:`\kappa` decides the width of the interval. This study learns that hyperprior from the
real benchmarks shipped with the package (the ``SOURCES``; every model of every source with at
least two trials per question is one *unit*) and checks it on benchmarks it did not see.

**Per unit.** The log marginal likelihood of :math:`\log\kappa` on a grid, :math:`m`
integrated under the uniform prior of the hierarchical model (Beta-binomial per question):

.. math::
    L_u(\kappa) = \int_0^1 \prod_q \mathrm{BetaBin}(k_q \mid n_q, \kappa m, \kappa(1-m))\,dm.

**Meta-analysis.** Three levels, because units of one source (models on the same questions)
resemble each other more than units of different sources:
:math:`\log\kappa_u = \mu + c_{s(u)} + e_u`, :math:`c_s \sim N(0, \omega^2)` (between
sources), :math:`e_u \sim N(0, \tau^2)` (within a source), :math:`\mu` flat,
:math:`\tau, \omega \sim \text{half-}N(0, 1)`; the joint posterior of
:math:`(\mu, \tau, \omega)` on a grid, each unit's :math:`\kappa_u` and each source's
:math:`c_s` integrated exactly on theirs. The hyperprior for a model on a **new benchmark** is
the predictive of :math:`\log\kappa` for a unit of a new source, summarised as a normal:
median :math:`e^{E\mu}`, log-sd :math:`\sqrt{E[\tau^2 + \omega^2] + \mathrm{Var}\,\mu}`. With
four sources, :math:`\omega` is poorly known and the predictive is wide on purpose.

**Held-out check** (leave one source out). The hyperprior is learned without source s, then
used on *real-rate* benchmarks of source s: M question rates drawn with replacement from that
source's per-(model, question) success rates, N trials each; the truth is the mean of the
drawn rates (the these-questions estimand). For every (N, M) the report gives the 95%
coverage of the learned prior's interval :math:`\mu \mp z\sigma` (one model: ``pool="model"``)
and its sharpness, mean posterior sd / RMSE of the posterior mean (1 is honest; above 1.25
wasteful; below 0.9 overconfident), beside the default weakly informative hyperprior
:math:`\log\kappa \sim N(\log 5, 1.5^2)` (:data:`~bayes_eval.posteriors.priors.KAPPA_PRIOR`).

**What it found** (the reason the learned hyperprior, shipped as
:data:`~bayes_eval.posteriors.priors.META_KAPPA_PRIOR` = (0.5, 1.26), is not the default): from
N = 2 it is calibrated and sharp on benchmarks it never saw, but with one trial per question
the four benchmarks' concentrations differ tenfold, and held out they cover 0.85-1.00: too
narrow on two of them. The default errs wide there instead (0.97-1.00), and a leaderboard's
other models identify the concentration (the board table below).

**Boards.** A second table checks the default, ``pool="board"`` (on binary boards the board's
joint posterior, :mod:`bayes_eval.posteriors.joint`; elsewhere each model's concentration
learned from the other models on the same questions, :mod:`bayes_eval.posteriors.board`),
against ``pool="model"`` on boards of M = 30 questions: simulated
(6 LLMs, logit p = theta - b + e, theta ~ N(0, 0.5^2), b ~ N(0, 2^2), e ~ N(0, tau^2), tau in
{0, 1}) and real (the 16 MathArena models' rates on questions resampled from its 15).

Outputs: ``hyperprior.nc`` (the table, each unit's estimate, the fits as attributes) and
``hyperprior.png`` (each unit's estimate and the hyperprior for a new benchmark).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import xarray as xr
from scipy.special import betaln, logsumexp
from scipy.stats import halfnorm, norm

from bayes_eval.inputs import Tally
from bayes_eval.posteriors.posterior import Posterior
from bayes_eval.posteriors.priors import KAPPA_PRIOR, META_KAPPA_PRIOR, Prior
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import HyperpriorConfig

__all__ = [
    "BOARDS",
    "FORMER_KAPPA_PRIOR",
    "SOURCES",
    "MetaFit",
    "Unit",
    "board_table",
    "heldout_table",
    "meta_analysis",
    "plot",
    "run",
    "run_study",
    "summary",
    "unit_log_likelihood",
    "units",
]

#: Shipped binary datasets with repeated trials: the benchmarks the hyperprior learns from.
SOURCES = ("matharena_aime25_i", "phi4_aime25", "taubench_airline_gpt4o", "cruxeval_codellama7b")
#: The default, weakly informative hyperprior, for comparison: (median, log-sd).
FORMER_KAPPA_PRIOR = KAPPA_PRIOR
#: log kappa grid of the per-unit likelihoods
LOG_KAPPA = np.linspace(-6.0, 8.0, 281)
_LOGIT_M = np.linspace(-14.0, 14.0, 561)
_MU = np.linspace(-4.0, 4.0, 121)
_TAU = np.linspace(0.01, 2.5, 41)
_OMEGA = np.linspace(0.0, 3.0, 61)
_CENTRE = np.linspace(-8.0, 8.0, 321)
_Z, _WZ = np.polynomial.hermite_e.hermegauss(31)
_LWZ = np.log(_WZ / _WZ.sum())


class Unit(NamedTuple):
    """One model on one benchmark: binary ``counts`` (M, 2) = (failures, successes).

    Attributes
    ----------
    source : str
        The shipped dataset (benchmark) the unit comes from.
    model : str
        The model's name (with `` [TASK]`` for a dataset with tasks).
    counts : numpy.ndarray of shape (M, 2)
        Failures and successes per question (questions with at least one trial).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.hyperprior_study import Unit
    >>> u = Unit("phi4_aime25", "phi-4", np.array([[3.0, 1.0], [0.0, 4.0]]))
    >>> u.model, u.counts.sum(axis=-1).tolist()
    ('phi-4', [4.0, 4.0])
    """

    source: str
    model: str
    counts: np.ndarray


class MetaFit(NamedTuple):
    r"""The meta-analysis: predictive hyperprior for a new benchmark and its parts.

    Attributes
    ----------
    median : float
        The predictive median of :math:`\kappa` for a unit of a new source,
        :math:`e^{E\mu}`.
    log_sd : float
        The predictive sd of :math:`\log\kappa`.
    mu : float
        The posterior mean of :math:`\mu`.
    tau : float
        The posterior mean of :math:`\tau`, the sd within a source.
    omega : float
        The posterior mean of :math:`\omega`, the sd between sources.
    units : int
        The units fitted.
    sources : int
        The sources fitted.

    Examples
    --------
    >>> from bayes_eval.validation.hyperprior_study import MetaFit
    >>> fit = MetaFit(median=1.6, log_sd=1.3, mu=0.47, tau=0.5, omega=1.0, units=40, sources=4)
    >>> fit.kappa_prior
    (1.6, 1.3)
    """

    median: float
    log_sd: float
    mu: float
    tau: float
    omega: float
    units: int
    sources: int

    @property
    def kappa_prior(self) -> tuple[float, float]:
        """``(median, log-sd)``: the hyperprior the learned prior takes."""
        return (self.median, self.log_sd)


def units(sources: tuple[str, ...] = SOURCES) -> list[Unit]:
    """Every (source, model) with binary results.

    A dataset with a ``task`` coordinate (CRUXEval input and output prediction) gives one unit
    per task.

    Parameters
    ----------
    sources : tuple of str, optional
        Shipped datasets of binary results, default ``SOURCES``.

    Returns
    -------
    list of Unit
        One per (source, model, task) with at least one question of two or more trials.

    Raises
    ------
    ValueError
        When a source holds no results or scores other than 0 and 1.

    Examples
    --------
    >>> from bayes_eval.validation.hyperprior_study import units
    >>> [(u.source, u.model, u.counts.shape) for u in units(("phi4_aime25",))]
    [('phi4_aime25', 'Phi-4-reasoning', (30, 2))]
    """
    from bayes_eval import datasets

    out = []
    for name in sources:
        ds = datasets.load(name)
        if "results" not in ds:
            raise ValueError(
                f"source {name!r} holds no results of models on questions (its variables: "
                f"{sorted(map(str, ds.data_vars))}); expected shipped datasets of binary results "
                f"with repeated trials, e.g. {', '.join(SOURCES[:2])}."
            )
        R = ds["results"].values
        seen = R[~np.isnan(R)]
        if not np.isin(seen, (0.0, 1.0)).all():
            raise ValueError(
                f"source {name!r} has scores other than 0 and 1; the hyperprior study needs "
                "binary results."
            )
        k = np.nansum(R, axis=-1)
        n = (~np.isnan(R)).sum(axis=-1)
        counts = np.stack([n - k, k], axis=-1).astype(float)  # (L, M, 2)
        groups = [("", np.ones(R.shape[1], bool))]
        if "task" in ds.coords and ds["task"].dims == ("question",):
            tasks = ds["task"].values
            groups = [(f" [{t}]", tasks == t) for t in np.unique(tasks)]
        for i, model in enumerate(ds["model"].values):
            for suffix, sel in groups:
                c = counts[i, sel]
                if (c.sum(axis=-1) >= 2).any():
                    out.append(Unit(name, f"{model}{suffix}", c[c.sum(axis=-1) > 0]))
    return out


def unit_log_likelihood(counts: np.ndarray, log_kappa: np.ndarray = LOG_KAPPA) -> np.ndarray:
    r"""The log likelihood :math:`\log L_u(\kappa)` of one unit on ``log_kappa``.

    See the module docstring; :math:`m \sim U(0, 1)` is integrated on a logit grid.

    Parameters
    ----------
    counts : ndarray, shape ``(M, 2)``
        Failures and successes per question.
    log_kappa : ndarray, shape ``(K,)``
        The grid of :math:`\log\kappa`, default ``LOG_KAPPA`` (-6 to 8).

    Returns
    -------
    ndarray, shape ``(K,)``
        :math:`\log L_u(\kappa)` at each grid point, up to a constant in :math:`\kappa`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.hyperprior_study import LOG_KAPPA, unit_log_likelihood
    >>> rng = np.random.default_rng(0)
    >>> k = rng.binomial(4, rng.beta(2.0, 2.0, 30))
    >>> ll = unit_log_likelihood(np.stack([4 - k, k], axis=-1))
    >>> ll.shape, round(float(LOG_KAPPA[np.argmax(ll)]), 2)
    ((281,), 1.4)
    """
    rows, mult = np.unique(np.asarray(counts, dtype=float), axis=0, return_counts=True)
    f, k = rows[:, 0], rows[:, 1]
    m = 1.0 / (1.0 + np.exp(-_LOGIT_M))[:, None, None]  # (G, 1, 1)
    kap = np.exp(log_kappa)[None, :, None]
    a, b = m * kap, (1.0 - m) * kap
    # BetaBin up to the binomial coefficient (constant in kappa): B(a + k, b + f) / B(a, b)
    ll = (mult * (betaln(a + k, b + f) - betaln(a, b))).sum(axis=-1)  # (G, K)
    log_jac = np.log(m[:, 0, 0]) + np.log1p(-m[:, 0, 0])
    step = _LOGIT_M[1] - _LOGIT_M[0]
    return logsumexp(ll + log_jac[:, None], axis=0) + np.log(step)


def meta_analysis(
    loglik: np.ndarray, source: np.ndarray, log_kappa: np.ndarray = LOG_KAPPA
) -> MetaFit:
    r"""The three-level meta-analysis of the module docstring on a grid.

    Parameters
    ----------
    loglik : ndarray, shape ``(U, K)``
        Each unit's log likelihood of :math:`\log\kappa` on ``log_kappa``.
    source : array_like, shape ``(U,)``
        Each unit's source.
    log_kappa : ndarray, shape ``(K,)``
        The grid of ``loglik``, default ``LOG_KAPPA``.

    Returns
    -------
    MetaFit
        The predictive hyperprior for a new benchmark (``median``, ``log_sd``) and the
        posterior means of :math:`\mu`, :math:`\tau` and :math:`\omega`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.hyperprior_study import meta_analysis, unit_log_likelihood
    >>> rng = np.random.default_rng(0)
    >>> def unit(kappa):
    ...     k = rng.binomial(4, rng.beta(kappa / 2, kappa / 2, 30))
    ...     return unit_log_likelihood(np.stack([4 - k, k], axis=-1))
    >>> loglik = np.stack([unit(2.0), unit(3.0), unit(5.0), unit(8.0)])
    >>> fit = meta_analysis(loglik, np.array(["a", "a", "b", "b"]))
    >>> fit.units, fit.sources, round(fit.median, 3), round(fit.log_sd, 3)
    (4, 2, 9.714, 1.787)
    """
    loglik = np.asarray(loglik, dtype=float)
    source = np.asarray(source)
    names = np.unique(source)
    log_post = np.empty((_MU.size, _TAU.size, _OMEGA.size))
    top = loglik.max(axis=1, keepdims=True)
    centres = _MU[:, None, None] + _OMEGA[None, :, None] * _Z[None, None, :]
    pos = np.clip((centres - _CENTRE[0]) / (_CENTRE[1] - _CENTRE[0]), 0.0, _CENTRE.size - 1.000001)
    lower = pos.astype(int)
    frac = pos - lower
    for j, tau in enumerate(_TAU):
        # the normal kernel on the grid, normalised on it (exact also when tau < the step)
        kern = norm.logpdf(log_kappa[None, :], _CENTRE[:, None], tau)
        kern = np.exp(kern - logsumexp(kern, axis=1, keepdims=True))  # (C, K), rows sum to 1
        # (a floor instead of log 0: centres far from a unit's likelihood have no mass)
        per_unit = np.log(np.maximum(np.exp(loglik - top) @ kern.T, 1e-300)) + top  # (U, C)
        rows = np.stack([per_unit[source == name].sum(axis=0) for name in names])  # (S, C)
        # linear interpolation on the uniform centre grid, shared by the sources
        val = rows[:, lower] * (1.0 - frac) + rows[:, lower + 1] * frac  # (S, MU, OMEGA, Z)
        total = logsumexp(_LWZ + val, axis=-1).sum(axis=0)
        log_post[:, j, :] = total
    log_post += halfnorm.logpdf(_TAU)[None, :, None] + halfnorm.logpdf(_OMEGA)[None, None, :]
    p = np.exp(log_post - log_post.max())
    p /= p.sum()
    mu = float((p.sum(axis=(1, 2)) * _MU).sum())
    var_mu = float((p.sum(axis=(1, 2)) * (_MU - mu) ** 2).sum())
    second = float((p * (_TAU[None, :, None] ** 2 + _OMEGA[None, None, :] ** 2)).sum())
    return MetaFit(
        median=float(np.exp(mu)),
        log_sd=float(np.sqrt(second + var_mu)),
        mu=mu,
        tau=float((p.sum(axis=(0, 2)) * _TAU).sum()),
        omega=float((p.sum(axis=(0, 1)) * _OMEGA).sum()),
        units=int(loglik.shape[0]),
        sources=int(names.size),
    )


def _real_rates(unit_list: list[Unit]) -> np.ndarray:
    return np.concatenate([u.counts[:, 1] / u.counts.sum(axis=-1) for u in unit_list])


def heldout_table(
    unit_list: list[Unit],
    loglik: np.ndarray,
    *,
    N: tuple[int, ...],
    M: tuple[int, ...],
    replicates: int,
    confidence: float,
    seed: int,
    progress: bool = False,
) -> tuple[xr.Dataset, dict[str, MetaFit]]:
    """Coverage and sharpness on each source's real rates, the hyperprior learned without it.

    See the module docstring; also the default weakly informative hyperprior, for comparison.

    Parameters
    ----------
    unit_list : list of Unit
        The units (:func:`bayes_eval.validation.hyperprior_study.units`).
    loglik : numpy.ndarray of shape (U, K)
        Their log likelihoods on ``LOG_KAPPA``
        (:func:`bayes_eval.validation.hyperprior_study.unit_log_likelihood`).
    N : tuple of int
        Trials per question (grid).
    M : tuple of int
        Questions per benchmark (grid).
    replicates : int
        Real-rate benchmarks per (source, N, M) cell.
    confidence : float
        Level of the intervals.
    seed : int
        Random seed.
    progress : bool, optional
        Print each held-out fit, default False.

    Returns
    -------
    ds : xarray.Dataset
        ``coverage``, ``coverage_mc_se`` and ``sd_over_rmse`` over
        ``(source, hyperprior, N, M)``, ``hyperprior`` being ``held-out`` and ``default``.
    fits : dict of str to MetaFit
        The fit learned without each source.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.hyperprior_study import heldout_table, unit_log_likelihood, units
    >>> us = units(("phi4_aime25", "taubench_airline_gpt4o"))
    >>> loglik = np.stack([unit_log_likelihood(u.counts) for u in us])
    >>> ds, fits = heldout_table(
    ...     us, loglik, N=(1, 4), M=(15,), replicates=50, confidence=0.95, seed=0
    ... )
    >>> dict(ds.sizes), len(fits)
    ({'source': 2, 'hyperprior': 2, 'N': 2, 'M': 1}, 2)
    >>> ds["coverage"].sel(M=15).round(3).values.tolist()
    [[[0.94, 0.9], [1.0, 0.9]], [[0.96, 0.94], [0.98, 0.94]]]
    """
    from scipy.special import ndtri

    z = float(ndtri(0.5 + confidence / 2))
    sources = np.array([u.source for u in unit_list])
    names = list(dict.fromkeys(sources))
    hyper = ("held-out", "default")
    cov = np.full((len(names), len(hyper), len(N), len(M)), np.nan)
    sharp = np.full_like(cov, np.nan)
    cov_se = np.full_like(cov, np.nan)
    fits = {}
    w = np.array([0.0, 1.0])
    for i, held in enumerate(names):
        fit = meta_analysis(loglik[sources != held], sources[sources != held])
        fits[held] = fit
        rates = _real_rates([u for u in unit_list if u.source == held])
        for a, n in enumerate(N):
            for b, m in enumerate(M):
                rng = np.random.default_rng([seed, i, n, m])
                p = rng.choice(rates, size=(replicates, m))
                truth = p.mean(axis=-1)
                k = rng.binomial(n, p).astype(float)
                counts = np.stack([n - k, k], axis=-1)
                tally = Tally(counts, counts.sum(axis=-1), 2, True)
                for h, kp in enumerate((fit.kappa_prior, FORMER_KAPPA_PRIOR)):
                    prior = Prior("empirical", pool="model", kappa_prior=kp)
                    post = Posterior.from_tally(tally, w, prior=prior)
                    err = post.mean - truth
                    cov[i, h, a, b] = np.mean(np.abs(err) <= z * post.sd)
                    sharp[i, h, a, b] = post.sd.mean() / np.sqrt(np.mean(err**2))
                    c = cov[i, h, a, b]
                    cov_se[i, h, a, b] = np.sqrt(c * (1 - c) / replicates)
        if progress:
            print(f"held out {held}: hyperprior {fit.median:.3f}, log-sd {fit.log_sd:.2f}")
    dims = ("source", "hyperprior", "N", "M")
    ds = xr.Dataset(
        {
            "coverage": (dims, cov),
            "coverage_mc_se": (dims, cov_se),
            "sd_over_rmse": (dims, sharp),
        },
        coords={"source": names, "hyperprior": list(hyper), "N": list(N), "M": list(M)},
        attrs={
            "confidence": confidence,
            "replicates": replicates,
            "estimand": "these questions",
            "prior": "empirical (per model, integrated)",
        },
    )
    return ds, fits


#: Boards of the second table: (name, source of the rates).
BOARDS = ("rasch tau=0", "rasch tau=1", "matharena (real rates)")


def _board_rates(name: str, rng: np.random.Generator, m: int, real: np.ndarray) -> np.ndarray:
    """True rates (L, M) of one board, simulated or resampled from real rates.

    Either 6 LLMs with logit p = theta_l - b_q + e_lq, theta ~ N(0, 0.5^2), b ~ N(0, 2^2),
    e ~ N(0, tau^2); or the MathArena board's 16 models on M questions resampled from its 15
    (each model's mean over 4 runs).
    """
    if name.startswith("rasch"):
        tau = float(name.split("=")[1])
        theta = rng.normal(0.0, 0.5, 6)
        b = rng.normal(0.0, 2.0, m)
        e = rng.normal(0.0, tau, (6, m))
        return 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :] + e)))
    return real[:, rng.integers(0, real.shape[1], m)]


def board_table(
    *, N: tuple[int, ...], M: int, replicates: int, confidence: float, seed: int
) -> xr.Dataset:
    """Coverage and sd/RMSE of every model's interval on simulated and real-rate boards.

    The concentration is learned from the board (``pool="board"``, the default) and from each
    model alone (``pool="model"``).

    Parameters
    ----------
    N : tuple of int
        Trials per question (grid).
    M : int
        Questions per board.
    replicates : int
        Boards per (board kind, N).
    confidence : float
        Level of the intervals.
    seed : int
        Random seed.

    Returns
    -------
    xarray.Dataset
        ``board_coverage`` and ``board_sd_over_rmse`` over ``(board, pool, N)``, the boards
        being ``BOARDS``.

    Examples
    --------
    >>> from bayes_eval.validation.hyperprior_study import board_table
    >>> ds = board_table(N=(1,), M=10, replicates=2, confidence=0.95, seed=0)
    >>> dict(ds.sizes), ds["board"].values.tolist()
    ({'board': 3, 'pool': 2, 'N': 1}, ['rasch tau=0', 'rasch tau=1', 'matharena (real rates)'])
    >>> ds["board_coverage"].sel(N=1).round(3).values.tolist()
    [[0.917, 0.917], [1.0, 1.0], [1.0, 1.0]]
    """
    from scipy.special import ndtri

    from bayes_eval import datasets
    from bayes_eval.posteriors.posterior import posterior

    z = float(ndtri(0.5 + confidence / 2))
    real = np.nanmean(datasets.load("matharena_aime25_i")["results"].values, axis=-1)
    pools = ("board", "model")
    cov = np.full((len(BOARDS), len(pools), len(N)), np.nan)
    sharp = np.full_like(cov, np.nan)
    for i, name in enumerate(BOARDS):
        for a, n in enumerate(N):
            rng = np.random.default_rng([seed, 7, i, n])
            err = {p: [] for p in pools}
            sds = {p: [] for p in pools}
            for _ in range(replicates):
                p_true = _board_rates(name, rng, M, real)
                R = (rng.random((*p_true.shape, n)) < p_true[..., None]).astype(float)
                for pool in pools:
                    post = posterior(R, prior=Prior("empirical", pool=pool))
                    err[pool].append(post.mean - p_true.mean(axis=1))
                    sds[pool].append(post.sd)
            for h, pool in enumerate(pools):
                e, sd = np.concatenate(err[pool]), np.concatenate(sds[pool])
                cov[i, h, a] = np.mean(np.abs(e) <= z * sd)
                sharp[i, h, a] = sd.mean() / np.sqrt(np.mean(e**2))
    dims = ("board", "pool", "N")
    return xr.Dataset(
        {"board_coverage": (dims, cov), "board_sd_over_rmse": (dims, sharp)},
        coords={"board": list(BOARDS), "pool": list(pools), "N": list(N)},
    )


def run(config: HyperpriorConfig, *, progress: bool = True) -> xr.Dataset:
    """The fit and the held-out table as one dataset.

    ``coverage``, ``coverage_mc_se``, ``sd_over_rmse`` over (source, hyperprior, N, M); each
    unit's flat-prior ``log_kappa_mean`` and ``log_kappa_sd``; the fits (all sources and each
    held-out one) as attributes.

    Parameters
    ----------
    config : HyperpriorConfig
        The study's options (``bayes_eval.validation.study_configs.HyperpriorConfig``): the
        sources, the replicates of both tables, the grids ``N`` and ``M``, the level.
    progress : bool, optional
        Print each held-out fit, default True.

    Returns
    -------
    xarray.Dataset
        The held-out table of :func:`bayes_eval.validation.hyperprior_study.heldout_table`;
        with ``board_replicates``, the board table of
        :func:`bayes_eval.validation.hyperprior_study.board_table` (over ``board_N``); and over
        ``unit``: ``log_kappa_mean``, ``log_kappa_sd``, ``unit_source`` and ``unit_questions``.

    Examples
    --------
    >>> from bayes_eval.validation.hyperprior_study import run
    >>> from bayes_eval.validation.study_configs import HyperpriorConfig
    >>> config = HyperpriorConfig(
    ...     sources=("phi4_aime25", "taubench_airline_gpt4o"), replicates=50, board_replicates=0,
    ...     N=(1,), M=(15,),
    ... )
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'source': 2, 'hyperprior': 2, 'N': 1, 'M': 1, 'unit': 2}
    >>> ds["coverage"].sel(N=1, M=15).round(3).values.tolist()
    [[0.94, 1.0], [0.96, 0.98]]
    """
    unit_list = units(config.sources)
    loglik = np.stack([unit_log_likelihood(u.counts) for u in unit_list])
    sources = np.array([u.source for u in unit_list])
    fit = meta_analysis(loglik, sources)
    ds, fits = heldout_table(
        unit_list,
        loglik,
        N=config.N,
        M=config.M,
        replicates=config.replicates,
        confidence=config.confidence,
        seed=config.seed,
        progress=progress,
    )
    if config.board_replicates:
        boards = board_table(
            N=config.N,
            M=30,
            replicates=config.board_replicates,
            confidence=config.confidence,
            seed=config.seed,
        )
        ds = xr.merge([ds, boards.rename(N="board_N")], combine_attrs="override")
    post = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    mean = post @ LOG_KAPPA
    ds["log_kappa_mean"] = ("unit", mean)
    ds["log_kappa_sd"] = ("unit", np.sqrt(np.maximum(post @ LOG_KAPPA**2 - mean**2, 0.0)))
    ds["unit_source"] = ("unit", sources.astype(str))
    ds["unit_questions"] = ("unit", np.array([u.counts.shape[0] for u in unit_list]))
    ds = ds.assign_coords(unit=[u.model for u in unit_list])
    ds.attrs.update(
        {
            "fit": json.dumps(fit._asdict()),
            "heldout_fits": json.dumps({k: f._asdict() for k, f in fits.items()}),
            "shipped_kappa_prior": list(META_KAPPA_PRIOR),
            "default_kappa_prior": list(KAPPA_PRIOR),
        }
    )
    return ds


def summary(ds: xr.Dataset) -> dict:
    """Summarise the fit, the held-out sources and the boards.

    The fit, the shipped constant (``META_KAPPA_PRIOR``), and per held-out source and cell:
    coverage and sd/RMSE under the held-out and the default hyperprior; and the boards'
    table.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.hyperprior_study.run`.

    Returns
    -------
    dict
        ``estimand``, ``prior``, ``fit``, ``shipped_kappa_prior``, ``heldout_fits``, the
        coverage and sd/RMSE per hyperprior (rows ``"SOURCE N=N"``, columns ``"M=M"``) and,
        with boards, the board table.

    Examples
    --------
    >>> from bayes_eval.validation.hyperprior_study import run, summary
    >>> from bayes_eval.validation.study_configs import HyperpriorConfig
    >>> config = HyperpriorConfig(
    ...     sources=("phi4_aime25", "taubench_airline_gpt4o"), replicates=50, board_replicates=0,
    ...     N=(1,), M=(15,),
    ... )
    >>> s = summary(run(config, progress=False))
    >>> s["coverage, one model, held-out hyperprior"]
    {'phi4_aime25 N=1': {'M=15': 0.94}, 'taubench_airline_gpt4o N=1': {'M=15': 0.96}}
    """
    out = {
        "estimand": ds.attrs["estimand"],
        "prior": ds.attrs["prior"],
        "fit": json.loads(ds.attrs["fit"]),
        "shipped_kappa_prior": list(ds.attrs["shipped_kappa_prior"]),
        "heldout_fits": json.loads(ds.attrs["heldout_fits"]),
    }
    for h in ds["hyperprior"].values:
        for var, key in (("coverage", "coverage"), ("sd_over_rmse", "sd/RMSE")):
            out[f"{key}, one model, {h} hyperprior"] = {
                f"{s} N={int(n)}": {
                    f"M={int(m)}": round(float(ds[var].sel(source=s, hyperprior=h, N=n, M=m)), 3)
                    for m in ds["M"].values
                }
                for s in ds["source"].values
                for n in ds["N"].values
            }
    if "board_coverage" in ds:
        for var, key in (("board_coverage", "coverage"), ("board_sd_over_rmse", "sd/RMSE")):
            out[f"{key}, boards of M = 30 (pool board | model)"] = {
                str(b): {
                    f"N={int(n)}": " | ".join(
                        f"{float(ds[var].sel(board=b, pool=p, board_N=n)):.3f}"
                        for p in ds["pool"].values
                    )
                    for n in ds["board_N"].values
                }
                for b in ds["board"].values
            }
    return out


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Each unit's log kappa (flat prior, 95% band) and the predictive for a new benchmark.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.hyperprior_study.run`.
    path : str or pathlib.Path
        The PNG file to write.

    Returns
    -------
    pathlib.Path
        The PNG written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.hyperprior_study import plot, run
    >>> from bayes_eval.validation.study_configs import HyperpriorConfig
    >>> config = HyperpriorConfig(
    ...     sources=("phi4_aime25", "taubench_airline_gpt4o"), replicates=50, board_replicates=0,
    ...     N=(1,), M=(15,),
    ... )
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "hyperprior.png")
    ...     print(png.name, png.exists())
    hyperprior.png True
    """
    from bayes_eval.plotting.figure import pyplot, save_png

    plt = pyplot()
    fit = json.loads(ds.attrs["fit"])
    mean, sd = ds["log_kappa_mean"].values, ds["log_kappa_sd"].values
    names = [f"{s}: {u}" for s, u in zip(ds["unit_source"].values, ds["unit"].values, strict=True)]
    fig, ax = plt.subplots(figsize=(7, 0.28 * len(names) + 1.5))
    y = np.arange(len(names))
    ax.errorbar(mean, y, xerr=1.96 * sd, fmt="o", ms=3)
    centre = np.log(fit["median"])
    ax.axvspan(
        centre - 1.96 * fit["log_sd"],
        centre + 1.96 * fit["log_sd"],
        alpha=0.15,
        label="hyperprior for a new benchmark (95%)",
    )
    ax.axvline(centre, lw=1)
    ax.set_yticks(y, names, fontsize=7)
    ax.set_xlabel("log kappa of each model on each benchmark (flat prior; 95%)")
    ax.set_xlim(-6, 6)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_png(fig, path)


def run_study(config: HyperpriorConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/hyperprior.nc`` and ``OUT/hyperprior.png``.

    Parameters
    ----------
    config : HyperpriorConfig
        The study's options (``bayes_eval.validation.study_configs.HyperpriorConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.hyperprior_study.run`,
        the summary of :func:`bayes_eval.validation.hyperprior_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.hyperprior_study import run_study
    >>> from bayes_eval.validation.study_configs import HyperpriorConfig
    >>> config = HyperpriorConfig(
    ...     sources=("phi4_aime25", "taubench_airline_gpt4o"), replicates=50, board_replicates=0,
    ...     N=(1,), M=(15,),
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] hyperprior.nc
    >>> result.summary["fit"]["units"]
    2
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "hyperprior", plot, summary(ds), start)
