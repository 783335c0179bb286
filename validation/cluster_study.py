r"""Study ``clusters``: the new-questions estimand when questions come in clusters.

Miller ("Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations",
2024) shows that questions drawn in groups (passages, subjects, templates) make the
question-level standard error too small. This study checks the two new-questions outputs
that take ``--cluster``, each with and without the clusters:

* the interval of every model's population mean (``bayes-eval rank --estimand
  new-questions``, :func:`bayes_eval.ranking.population.population_leaderboard`): coverage
  of the truth, and width as mean posterior sd / RMSE of the posterior mean (1 is honest,
  below 0.9 overconfident, above 1.2 wasteful);
* the paired P(A better than B) (``bayes-eval pairs``, the same number ``rank`` uses):
  expected calibration error against the truth, with its noise floor
  (:func:`bayes_eval.validation.pairs_study.calibration`).

**Boards.** :math:`G` clusters of :math:`M/G` questions; cluster effects
:math:`c_g \sim N(0, s^2)` shared by the questions of a group, question effects
:math:`u_q \sim N(0, \sigma_u^2)`, difficulty :math:`b_q = c_{g(q)} + u_q`; abilities
:math:`\theta_l \sim N(0, \sigma_\theta^2)`; LLM x question interactions
:math:`e_{lq} \sim N(0, \tau^2)`, optionally plus LLM x cluster ones
:math:`f_{l g(q)} \sim N(0, \omega^2)` (``cluster_interaction_sd``, 0 by default: a model
strong on some subjects); :math:`p_{lq} = \mathrm{expit}(\theta_l - b_q + e_{lq})` and
``trials`` Bernoulli trials per cell. The population of questions is the population of
clusters and of questions within them, so the truth is

.. math:: \mu_l = E\big[\mathrm{expit}(\theta_l + Z)\big], \qquad
          Z \sim N(0, s^2 + \sigma_u^2 + \tau^2 + \omega^2),

computed by 80-node Gauss-Hermite quadrature (error far below 1e-6 at these scales), and A
is better than B on new questions exactly when :math:`\theta_A > \theta_B` (:math:`\mu` is
increasing in :math:`\theta`). With :math:`s = 0` clusters do not matter and both treatments
should hold; with :math:`s > 0` the unclustered intervals should undercover. Cluster
effects shared by every model move every model alike, so they matter little for P(better);
LLM x cluster interactions (:math:`\omega > 0`) are what makes the unclustered paired
comparison overconfident.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr
from scipy.special import expit

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import NEW_QUESTIONS
from bayes_eval.ranking.population import population_leaderboard
from bayes_eval.validation.pairs_study import calibration
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import ClustersConfig

__all__ = ["TREATMENTS", "plot", "population_means", "run", "run_study", "simulate", "summary"]

#: The two treatments compared: the clusters given (``--cluster``), or ignored.
TREATMENTS = ("clustered", "unclustered")
_HERMITE = np.polynomial.hermite_e.hermegauss(80)


def population_means(theta: np.ndarray, sd: float) -> np.ndarray:
    r""":math:`E[\mathrm{expit}(\theta + Z)]`, :math:`Z \sim N(0, sd^2)`, for every
    :math:`\theta` (Gauss-Hermite quadrature, probabilists' weights)."""
    x, wt = _HERMITE
    return (expit(np.asarray(theta)[:, None] + sd * x[None]) * wt).sum(axis=1) / wt.sum()


def simulate(
    rng: np.random.Generator,
    *,
    n_models: int,
    n_questions: int,
    n_clusters: int,
    cluster_sd: float,
    question_sd: float,
    ability_sd: float,
    interaction_sd: float,
    trials: int,
    cluster_interaction_sd: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One clustered board (module docstring): abilities ``(L,)``, the cluster of every
    question ``(M,)`` (question q in cluster ``q mod G``), true rates ``(L, M)`` and binary
    results ``(L, M, N)``."""
    theta = rng.normal(0.0, ability_sd, n_models)
    group = np.arange(n_questions) % n_clusters
    b = rng.normal(0.0, cluster_sd, n_clusters)[group] + rng.normal(0.0, question_sd, n_questions)
    e = rng.normal(0.0, interaction_sd, (n_models, n_questions))
    if cluster_interaction_sd > 0:  # drawn only when asked: the default boards stay the same
        e = e + rng.normal(0.0, cluster_interaction_sd, (n_models, n_clusters))[:, group]
    p = expit(theta[:, None] - b[None, :] + e)
    R = (rng.random((n_models, n_questions, trials)) < p[..., None]).astype(np.float64)
    return theta, group, p, R


def run(config: ClustersConfig, *, progress: bool = True) -> xr.Dataset:
    """Every cell (cluster sd x number of clusters) with ``replicates`` boards: per model the
    interval and posterior mean and sd, per pair the paired P(better), for both treatments,
    and the truths."""
    S, G = len(config.cluster_sd), len(config.clusters)
    L, B = config.n_models, config.replicates
    n_pairs = L * (L - 1) // 2
    shape_m = (S, G, 2, B, L)
    out = {k: np.full(shape_m, np.nan) for k in ("lo", "hi", "mean", "sd")}
    prob = np.full((S, G, 2, B, n_pairs), np.nan)
    truth_mu = np.full((S, G, B, L), np.nan)
    truth_pair = np.zeros((S, G, B, n_pairs), dtype=bool)
    i, j = np.triu_indices(L, 1)
    names = [f"m{k}" for k in range(L)]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=S * G * B, desc="clustered boards", unit="board")
    total_sd = config.question_sd**2 + config.interaction_sd**2 + config.cluster_interaction_sd**2
    for a, s in enumerate(config.cluster_sd):
        for c, n_clusters in enumerate(config.clusters):
            rng = np.random.default_rng([config.seed, a, n_clusters])
            for r in range(B):
                theta, group, _, R = simulate(
                    rng,
                    n_models=L,
                    n_questions=config.n_questions,
                    n_clusters=n_clusters,
                    cluster_sd=s,
                    question_sd=config.question_sd,
                    ability_sd=config.ability_sd,
                    interaction_sd=config.interaction_sd,
                    trials=config.trials,
                    cluster_interaction_sd=config.cluster_interaction_sd,
                )
                truth_mu[a, c, r] = population_means(theta, np.sqrt(s**2 + total_sd))
                truth_pair[a, c, r] = theta[i] > theta[j]
                da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
                for t, clusters in enumerate((group, None)):
                    board = population_leaderboard(
                        da,
                        cluster=clusters,
                        confidence=config.confidence,
                        draws=config.draws,
                        seed=rng,
                    )
                    tab = board.table  # in the order of ``names``
                    for k in ("lo", "hi", "sd"):
                        out[k][a, c, t, r] = tab["sigma" if k == "sd" else k].values
                    out["mean"][a, c, t, r] = tab["mu"].values
                    prob[a, c, t, r] = tab["prob_better"].values[i, j]
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    dims_m = ("cluster_sd", "clusters", "treatment", "board", "model")
    dims_p = ("cluster_sd", "clusters", "treatment", "board", "pair")
    data = {k: (dims_m, v) for k, v in out.items()}
    data["p_paired"] = (dims_p, prob)
    data["truth_mu"] = (("cluster_sd", "clusters", "board", "model"), truth_mu)
    data["truth_pair"] = (("cluster_sd", "clusters", "board", "pair"), truth_pair)
    attrs = {
        f: getattr(config, f)
        for f in ("replicates", "n_models", "n_questions", "trials", "draws", "bins", "seed")
    }
    attrs |= {
        f: float(getattr(config, f))
        for f in (
            "question_sd",
            "ability_sd",
            "interaction_sd",
            "cluster_interaction_sd",
            "confidence",
        )
    }
    attrs["estimand"] = NEW_QUESTIONS
    coords = {
        "cluster_sd": list(map(float, config.cluster_sd)),
        "clusters": list(config.clusters),
        "treatment": list(TREATMENTS),
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


def summary(ds: xr.Dataset) -> dict:
    """Per cell and treatment: coverage of the population means (with its Monte Carlo
    standard error; over the intervals given, the share of models without one apart), mean
    posterior sd / RMSE of the posterior mean, and the ECE (with its
    floor) of the paired P(better)."""
    rows = {}
    bins = int(ds.attrs["bins"])
    for s in ds["cluster_sd"].values:
        for g in ds["clusters"].values:
            cell = ds.sel(cluster_sd=s, clusters=g)
            mu = cell["truth_mu"]
            for t in TREATMENTS:
                one = cell.sel(treatment=t)
                # a model whose cluster means are all equal gets no interval (NaN): counted
                # apart, coverage is over the intervals given
                given = (np.isfinite(one["lo"]) & np.isfinite(one["hi"])).values
                hit = ((one["lo"] <= mu) & (mu <= one["hi"])).values[given]
                rmse = float(np.sqrt(((one["mean"] - mu) ** 2).mean()))
                c = calibration(one["p_paired"].values, cell["truth_pair"].values, bins)
                rows[f"s={s:g} G={int(g)} {t}"] = {
                    "coverage": round(float(hit.mean()), 4),
                    "coverage_se": round(
                        float(np.sqrt(hit.mean() * (1 - hit.mean()) / hit.size)), 4
                    ),
                    "no_interval": round(float(1.0 - given.mean()), 4),
                    "sd_over_rmse": round(float(one["sd"].mean()) / rmse, 3),
                    "ece": round(c["ece"], 4),
                    "ece_floor": round(c["ece_floor"], 4),
                    "brier": round(c["brier"], 4),
                }
    return {"settings": dict(ds.attrs), "estimand": NEW_QUESTIONS, "cells": rows}


def run_study(config: ClustersConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config``; write ``OUT/clusters.nc`` and ``OUT/clusters.png``."""
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "clusters", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Coverage (left) and ECE of P(better) (right) against the number of clusters, one line
    per cluster sd and treatment (solid: clustered, dashed: unclustered)."""
    plt = pyplot()
    rows = summary(ds)["cells"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    g = [int(x) for x in ds["clusters"].values]
    for k, s in enumerate(ds["cluster_sd"].values):
        for t, style in zip(TREATMENTS, ("-", "--"), strict=True):
            cells = [rows[f"s={s:g} G={x} {t}"] for x in g]
            kw = {"color": f"C{k}", "ls": style, "marker": "o", "label": f"s = {s:g}, {t}"}
            left.plot(g, [c["coverage"] for c in cells], **kw)
            right.plot(g, [c["ece"] for c in cells], **kw)
    left.axhline(float(ds.attrs["confidence"]), color="0.5", lw=0.8)
    left.set_ylabel(f"coverage of the {float(ds.attrs['confidence']):.0%} intervals")
    right.set_ylabel("ECE of the paired P(better)")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xticks(g, [str(x) for x in g])
        ax.minorticks_off()
        ax.set_xlabel("clusters G")
        ax.grid(alpha=0.3)
    left.legend(fontsize=7)
    fig.suptitle(f"new questions, {ds.attrs['n_questions']} questions in G clusters")
    fig.tight_layout()
    return save_png(fig, path)
