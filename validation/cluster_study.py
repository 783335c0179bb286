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
  (:func:`bayes_eval.validation.pairs_study.calibration`); with the clusters, under the
  commands' learned normal prior on a pair's difference and, as a third treatment
  (``clustered-flat``), under the flat prior
  (:func:`bayes_eval.ranking.paired.compare_pairs`).

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
from bayes_eval.ranking.paired import compare_pairs
from bayes_eval.ranking.population import population_leaderboard
from bayes_eval.validation.pairs_study import calibration
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import ClustersConfig

__all__ = ["TREATMENTS", "plot", "population_means", "run", "run_study", "simulate", "summary"]

#: The treatments compared: the clusters given (``--cluster``, the commands' learned prior on
#: a pair's difference), ignored, or given with a flat prior on a pair's difference
#: (``--prior-kind uniform``; its intervals are the clustered ones, only P(better) differs).
TREATMENTS = ("clustered", "unclustered", "clustered-flat")
_HERMITE = np.polynomial.hermite_e.hermegauss(80)


def population_means(theta: np.ndarray, sd: float) -> np.ndarray:
    r"""The population means of the models under a normal logit spread of the questions.

    :math:`E[\mathrm{expit}(\theta + Z)]`, :math:`Z \sim N(0, sd^2)`, for every
    :math:`\theta` (Gauss-Hermite quadrature, probabilists' weights).

    Parameters
    ----------
    theta : numpy.ndarray
        Logit abilities, one per model.
    sd : float
        The sd of :math:`Z`, the total logit spread of the questions.

    Returns
    -------
    numpy.ndarray
        The population means, the same length as ``theta``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.cluster_study import population_means
    >>> population_means(np.array([-1.0, 0.0, 1.0]), 1.5).round(4).tolist()
    [0.3293, 0.5, 0.6707]
    >>> population_means(np.array([-1.0, 0.0, 1.0]), 0.0).round(4).tolist()
    [0.2689, 0.5, 0.7311]
    """
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
    """One clustered board (module docstring).

    Returns abilities ``(L,)``, the cluster of every question ``(M,)`` (question q in cluster
    ``q mod G``), true rates ``(L, M)`` and binary results ``(L, M, N)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    n_models : int
        Models (LLMs) L.
    n_questions : int
        Questions M.
    n_clusters : int
        Clusters G.
    cluster_sd : float
        The sd ``s`` of the cluster effects on the logit difficulty.
    question_sd : float
        The sd of the question effects within a cluster.
    ability_sd : float
        The sd of the models' logit abilities.
    interaction_sd : float
        The sd of the LLM x question logit interaction.
    trials : int
        Trials N per question.
    cluster_interaction_sd : float, optional
        The sd of an LLM x cluster logit interaction, default 0 (none, and nothing drawn).

    Returns
    -------
    theta : numpy.ndarray of shape (L,)
        The logit abilities.
    group : numpy.ndarray of shape (M,)
        The cluster of every question.
    p : numpy.ndarray of shape (L, M)
        The true rates.
    R : numpy.ndarray of shape (L, M, N)
        The binary results (floats 0 and 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.cluster_study import simulate
    >>> theta, group, p, R = simulate(
    ...     np.random.default_rng(0), n_models=3, n_questions=6, n_clusters=2, cluster_sd=1.0,
    ...     question_sd=1.0, ability_sd=0.5, interaction_sd=1.0, trials=4,
    ... )
    >>> theta.round(4).tolist(), group.tolist()
    ([0.0629, -0.0661, 0.3202], [0, 1, 0, 1, 0, 1])
    >>> p.shape, R.shape
    ((3, 6), (3, 6, 4))
    """
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
    """Simulate ``replicates`` boards in every cell (cluster sd x number of clusters).

    Per model: the interval and posterior mean and sd; per pair: the paired P(better); for
    both treatments, and the truths.

    Parameters
    ----------
    config : ClustersConfig
        The study's options (``bayes_eval.validation.study_configs.ClustersConfig``): boards
        per cell, models, questions, the grids ``clusters`` and ``cluster_sd``, the other sd's
        and the bootstrap draws.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``lo``, ``hi``, ``mean`` and ``sd`` over
        ``(cluster_sd, clusters, treatment, board, model)``, ``p_paired`` over
        ``(cluster_sd, clusters, treatment, board, pair)``, and the truths ``truth_mu`` and
        ``truth_pair`` over ``(cluster_sd, clusters, board, model)`` and ``(..., pair)``.

    Examples
    --------
    >>> from bayes_eval.validation.cluster_study import run
    >>> from bayes_eval.validation.study_configs import ClustersConfig
    >>> config = ClustersConfig(
    ...     replicates=2, n_models=3, n_questions=12, clusters=(4,), cluster_sd=(0.0, 1.0),
    ...     draws=200,
    ... )
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'cluster_sd': 2, 'clusters': 1, 'treatment': 3, 'board': 2, 'model': 3, 'pair': 3}
    >>> ds["treatment"].values.tolist()
    ['clustered', 'unclustered', 'clustered-flat']
    >>> ds["truth_mu"].sel(cluster_sd=1.0, clusters=4).round(4).values.tolist()
    [[0.6172, 0.4662, 0.5404], [0.4461, 0.4386, 0.3242]]
    """
    S, G = len(config.cluster_sd), len(config.clusters)
    L, B = config.n_models, config.replicates
    n_pairs = L * (L - 1) // 2
    shape_m = (S, G, len(TREATMENTS), B, L)
    out = {k: np.full(shape_m, np.nan) for k in ("lo", "hi", "mean", "sd")}
    prob = np.full((S, G, len(TREATMENTS), B, n_pairs), np.nan)
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
                est, prob[a, c, :, r] = _treatments(R, group, names, config, rng)
                for k in out:
                    out[k][a, c, :, r] = est[k]
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


def _treatments(
    R: np.ndarray,
    group: np.ndarray,
    names: list[str],
    config: ClustersConfig,
    rng: np.random.Generator,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """One board under every treatment of :data:`TREATMENTS`.

    Returns ``lo``, ``hi``, ``mean`` and ``sd`` of shape ``(treatment, model)`` and the
    paired P(better) of shape ``(treatment, pair)``.
    """
    i, j = np.triu_indices(len(names), 1)
    out = {k: np.full((len(TREATMENTS), len(names)), np.nan) for k in ("lo", "hi", "mean", "sd")}
    prob = np.full((len(TREATMENTS), i.size), np.nan)
    da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
    for t, clusters in enumerate((group, None)):
        tab = population_leaderboard(
            da, cluster=clusters, confidence=config.confidence, draws=config.draws, seed=rng
        ).table  # in the order of ``names``
        for k, column in (("lo", "lo"), ("hi", "hi"), ("sd", "sigma"), ("mean", "mu")):
            out[k][t] = tab[column].values
        prob[t] = tab["prob_better"].values[i, j]
    for k in out:  # the flat prior changes P(better) only
        out[k][2] = out[k][0]
    prob[2] = compare_pairs(R, cluster=group, prior="uniform", independent=False).paired[i, j]
    return out, prob


def summary(ds: xr.Dataset) -> dict:
    """Summarise the boards per cell and treatment.

    Per cell and treatment: coverage of the population means (with its Monte Carlo standard
    error; over the intervals given, the share of models without one apart), mean posterior
    sd / RMSE of the posterior mean, and the ECE (with its floor) of the paired P(better).

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.cluster_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``estimand`` and ``cells``: per
        ``"s=SD G=CLUSTERS TREATMENT"``, ``coverage``, ``coverage_se``, ``no_interval``,
        ``sd_over_rmse``, ``ece``, ``ece_floor`` and ``brier``.

    Examples
    --------
    >>> from bayes_eval.validation.cluster_study import run, summary
    >>> from bayes_eval.validation.study_configs import ClustersConfig
    >>> config = ClustersConfig(
    ...     replicates=2, n_models=3, n_questions=12, clusters=(4,), cluster_sd=(0.0, 1.0),
    ...     draws=200,
    ... )
    >>> s = summary(run(config, progress=False))
    >>> {k: v["coverage"] for k, v in s["cells"].items()}
    {'s=0 G=4 clustered': 1.0, 's=0 G=4 unclustered': 1.0, 's=0 G=4 clustered-flat': 1.0,
     's=1 G=4 clustered': 1.0, 's=1 G=4 unclustered': 0.8333, 's=1 G=4 clustered-flat': 1.0}
    >>> s["cells"]["s=1 G=4 clustered"]["sd_over_rmse"]
    1.079
    """
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
    """Run the study with ``config``; write ``OUT/clusters.nc`` and ``OUT/clusters.png``.

    Parameters
    ----------
    config : ClustersConfig
        The study's options (``bayes_eval.validation.study_configs.ClustersConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.cluster_study.run`,
        the summary of :func:`bayes_eval.validation.cluster_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.cluster_study import run_study
    >>> from bayes_eval.validation.study_configs import ClustersConfig
    >>> config = ClustersConfig(
    ...     replicates=2, n_models=3, n_questions=12, clusters=(4,), cluster_sd=(0.0, 1.0),
    ...     draws=200,
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] clusters.nc
    >>> result.summary["estimand"]
    'new questions'
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "clusters", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot coverage and the ECE of P(better) against the number of clusters.

    Coverage (left) and ECE of P(better) (right), one line per cluster sd and treatment
    (solid: clustered, dashed: unclustered, dotted: clustered with a flat prior on a pair's
    difference, whose coverage is the clustered one).

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.cluster_study.run`.
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
    >>> from bayes_eval.validation.cluster_study import plot, run
    >>> from bayes_eval.validation.study_configs import ClustersConfig
    >>> config = ClustersConfig(
    ...     replicates=2, n_models=3, n_questions=12, clusters=(4,), cluster_sd=(0.0, 1.0),
    ...     draws=200,
    ... )
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "clusters.png")
    ...     print(png.name, png.exists())
    clusters.png True
    """
    plt = pyplot()
    rows = summary(ds)["cells"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    g = [int(x) for x in ds["clusters"].values]
    for k, s in enumerate(ds["cluster_sd"].values):
        for t, style in zip(TREATMENTS, ("-", "--", ":"), strict=True):
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
