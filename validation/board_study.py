r"""Study ``board``: what a leaderboard prints, checked against the truth of simulated boards.

Every number ``bayes-eval rank`` prints on a board of binary results comes from one joint
posterior (:mod:`bayes_eval.posteriors.joint`). This study draws boards whose truth is known,
computes that posterior exactly as the command does (``bayes_eval.posterior(R)``, the default
prior), and scores the two kinds of statements it makes:

* **intervals** of each model's mean over the board's questions,
  :math:`\bar p_l = \frac1M\sum_q p_{lq}` (*these questions*): coverage at ``confidence``
  (with its Monte Carlo standard error; the intervals of one board share its questions, so
  the effective number is smaller) and *sharpness*, the mean posterior sd over the RMSE of the
  posterior mean (1 honest, below 0.9 overconfident, above 1.2 wasteful);
* **P(better)** of every pair: the expected calibration error (each P folded to >= 1/2, ten
  bins of width 0.05, ECE = sum of bin share x ``|mean P - hit rate|``), beside its noise floor
  (the ECE of outcomes drawn from the reported P themselves, mean of 200 draws).

Beside the joint posterior, each model's own closed form (the paper's Bayes@N with each
model's learned prior, ``post.closed_form``: the diagnostic the leaderboard shows where the two
differ) and the paper's uniform prior are scored on the same boards.

**Boards** (``rates``):

* ``matharena``: real rates. ``n_models`` of the 16 models of the shipped MathArena AIME 2025 I
  leaderboard (without replacement) on ``n_questions`` questions drawn from its 15 with
  replacement; each (model, question) rate is that model's mean over its 4 runs, and N trials
  are drawn from it (so rates of 0 and 1 occur, as on real boards);
* ``rasch``: :math:`\mathrm{logit}\,p_{lq} = \theta_l - b_q + e_{lq}`,
  :math:`\theta_l \sim N(0, \sigma_\theta^2)`, :math:`b_q \sim N(0, s^2)`,
  :math:`e_{lq} \sim N(0, \tau^2)` (``ability_sd``, ``difficulty_sd``, ``interaction_sd``;
  ``ability_sd`` 0.25 gives close models);
* ``prior``: the board model's own prior, every scale drawn from its hyperprior
  (:func:`~bayes_eval.validation.pairs_study.prior_rates`): where the intervals fail here the
  approximation fails, where they hold here and fail elsewhere the model's world is the cause.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr
from scipy.special import expit

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import THESE_QUESTIONS, posterior
from bayes_eval.validation.pairs_study import prior_rates, real_subset
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import BoardConfig

__all__ = ["ESTIMATORS", "ece", "plot", "run", "run_study", "summary"]

#: What is scored: name -> how the posterior is built from the board's results.
ESTIMATORS = ("joint", "closed form", "uniform")
_BINS = 10
_FLOOR_DRAWS = 200


def _rates(config: BoardConfig, rng: np.random.Generator, real: np.ndarray | None) -> np.ndarray:
    if real is not None:
        return real_subset(rng, real, n_models=config.n_models, n_questions=config.n_questions)[1]
    if config.rates == "prior":  # the board model's own world
        return prior_rates(rng, n_models=config.n_models, n_questions=config.n_questions)[1]
    theta = rng.normal(0.0, config.ability_sd, config.n_models)
    b = rng.normal(0.0, config.difficulty_sd, config.n_questions)
    e = rng.normal(0.0, config.interaction_sd, (config.n_models, config.n_questions))
    return expit(theta[:, None] - b[None, :] + e)


def _real_rates() -> np.ndarray:
    """The MathArena AIME 2025 I board's rates: each model's mean over its 4 runs (16, 15)."""
    from bayes_eval import datasets

    return np.nanmean(datasets.load("matharena_aime25_i")["results"].values, axis=-1)


def run(config: BoardConfig, *, progress: bool = True) -> xr.Dataset:
    """Simulate ``replicates`` boards for each N and record the estimators' results.

    Per estimator and model: the interval, the posterior mean and sd; per pair: the reported
    P; and the truths.

    Parameters
    ----------
    config : BoardConfig
        The study's options (``bayes_eval.validation.study_configs.BoardConfig``): boards per
        N, models, questions, the grid ``N``, the true ``rates`` and the interval level.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``lo``, ``hi``, ``mean`` and ``sd`` over ``(N, estimator, board, model)``, ``prob``
        (P(better) of each pair ``i < j``) over ``(N, estimator, board, pair)`` and ``truth``
        (each model's mean rate over the board's questions) over ``(N, board, model)``.

    Examples
    --------
    >>> from bayes_eval.validation.board_study import run
    >>> from bayes_eval.validation.study_configs import BoardConfig
    >>> config = BoardConfig(replicates=3, n_models=4, n_questions=10, N=(1, 4), rates="rasch")
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'N': 2, 'estimator': 3, 'board': 3, 'model': 4, 'pair': 6}
    >>> ds["estimator"].values.tolist()
    ['joint', 'closed form', 'uniform']
    >>> ds["truth"].sel(N=4).round(4).values.tolist()[0]
    [0.5131, 0.4516, 0.5827, 0.6369]
    """
    L, n_n = config.n_models, len(config.N)
    pairs = np.triu_indices(L, 1)
    shape = (n_n, len(ESTIMATORS), config.replicates, L)
    out = {k: np.full(shape, np.nan) for k in ("lo", "hi", "mean", "sd")}
    prob = np.full((n_n, len(ESTIMATORS), config.replicates, pairs[0].size), np.nan)
    truth = np.full((n_n, config.replicates, L), np.nan)
    real = _real_rates() if config.rates == "matharena" else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_n * config.replicates, desc="boards", unit="board")
    for a, trials in enumerate(config.N):
        rng = np.random.default_rng([config.seed, trials])
        for r in range(config.replicates):
            p = _rates(config, rng, real)
            R = (rng.random((L, config.n_questions, trials)) < p[..., None]).astype(np.int8)
            truth[a, r] = p.mean(axis=1)
            joint = posterior(R)
            posts = (joint, joint.closed_form, posterior(R, prior="uniform"))
            for c, post in enumerate(posts):
                lo, hi = post.interval(config.confidence)
                out["lo"][a, c, r], out["hi"][a, c, r] = lo, hi
                out["mean"][a, c, r], out["sd"][a, c, r] = post.mean, post.sd
                prob[a, c, r] = np.asarray(post.prob_better())[pairs]
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    dims = ("N", "estimator", "board", "model")
    data = {k: (dims, v) for k, v in out.items()}
    data["prob"] = (("N", "estimator", "board", "pair"), prob)
    data["truth"] = (("N", "board", "model"), truth)
    attrs = {f: getattr(config, f) for f in ("replicates", "n_models", "n_questions", "seed")}
    attrs |= {
        f: float(getattr(config, f))
        for f in ("ability_sd", "difficulty_sd", "interaction_sd", "confidence")
    }
    attrs |= {"rates": config.rates, "estimand": THESE_QUESTIONS}
    coords = {"N": list(config.N), "estimator": list(ESTIMATORS)}
    return xr.Dataset(data, coords=coords, attrs=attrs)


def ece(prob: np.ndarray, hit: np.ndarray) -> float:
    """Expected calibration error of probabilities folded to >= 1/2 (module docstring).

    Parameters
    ----------
    prob : numpy.ndarray
        Reported probabilities that the event happens (e.g. P(better) of each pair).
    hit : numpy.ndarray of bool
        Whether each event happened, same shape as ``prob``.

    Returns
    -------
    float
        The ECE: over ten bins of width 0.05 of the folded probabilities, the sum of each
        bin's share times ``|mean P - hit rate|``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.board_study import ece
    >>> rng = np.random.default_rng(0)
    >>> prob = rng.uniform(0, 1, 1000)
    >>> round(ece(prob, rng.random(1000) < prob), 4)
    0.031
    >>> round(ece(prob, prob >= 0.5), 4)
    0.2535
    """
    prob, hit = np.asarray(prob, float), np.asarray(hit, bool)
    folded = np.where(prob >= 0.5, prob, 1.0 - prob)
    right = np.where(prob >= 0.5, hit, ~hit)
    bins = np.minimum(((folded - 0.5) / (0.5 / _BINS)).astype(int), _BINS - 1)
    total = 0.0
    for b in np.unique(bins):
        sel = bins == b
        total += sel.mean() * abs(folded[sel].mean() - right[sel].mean())
    return float(total)


def _floor(prob: np.ndarray, seed: int) -> float:
    """The ECE of outcomes drawn from the probabilities themselves.

    This is what a calibrated P scores with this many pairs (the mean of 200 draws).
    """
    rng = np.random.default_rng(seed)
    return float(np.mean([ece(prob, rng.random(prob.size) < prob) for _ in range(_FLOOR_DRAWS)]))


def summary(ds: xr.Dataset) -> dict:
    """Summarise the boards per N and estimator.

    Per N and estimator: coverage (and its Monte Carlo standard error), sd/RMSE, RMSE, the
    ECE of P(better) and its noise floor.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.board_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``estimand`` and ``cells``: per
        ``"N=N ESTIMATOR"``, ``coverage``, ``coverage_se``, ``sd_over_rmse``, ``rmse``,
        ``ece`` and ``ece_floor``.

    Examples
    --------
    >>> from bayes_eval.validation.board_study import run, summary
    >>> from bayes_eval.validation.study_configs import BoardConfig
    >>> config = BoardConfig(replicates=3, n_models=4, n_questions=10, N=(1, 4), rates="rasch")
    >>> s = summary(run(config, progress=False))
    >>> list(s["cells"])
    ['N=1 joint', 'N=1 closed form', 'N=1 uniform', 'N=4 joint', 'N=4 closed form', 'N=4 uniform']
    >>> {k: s["cells"]["N=4 joint"][k] for k in ("coverage", "sd_over_rmse", "ece")}
    {'coverage': 1.0, 'sd_over_rmse': 1.18, 'ece': 0.1376}
    """
    L = int(ds.attrs["n_models"])
    i, j = np.triu_indices(L, 1)
    from bayes_eval.validation.study_output import interval_scores

    rows = {}
    for n in ds["N"].values:
        cell = ds.sel(N=n)
        t = cell["truth"].values  # (board, model)
        for name in ds["estimator"].values:
            one = cell.sel(estimator=name)
            err = one["mean"].values - t
            hit = (one["lo"].values <= t) & (t <= one["hi"].values)
            p = one["prob"].values.ravel()
            better = (t[:, i] > t[:, j]).ravel()
            keep = ~np.isclose(t[:, i], t[:, j], rtol=0, atol=1e-12).ravel()  # ties: no truth
            rows[f"N={int(n)} {name}"] = {
                **interval_scores(hit, err, float(one["sd"].mean())),
                "ece": round(ece(p[keep], better[keep]), 4),
                "ece_floor": round(_floor(p[keep], int(n)), 4),
            }
    return {"settings": dict(ds.attrs), "estimand": THESE_QUESTIONS, "cells": rows}


def run_study(config: BoardConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config``; write ``OUT/board.nc`` and ``OUT/board.png``.

    Parameters
    ----------
    config : BoardConfig
        The study's options (``bayes_eval.validation.study_configs.BoardConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.board_study.run`, the summary of
        :func:`bayes_eval.validation.board_study.summary` with the files written and the seconds
        taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.board_study import run_study
    >>> from bayes_eval.validation.study_configs import BoardConfig
    >>> config = BoardConfig(replicates=3, n_models=4, n_questions=10, N=(1, 4), rates="rasch")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] board.nc
    >>> result.summary["cells"]["N=4 joint"]["coverage"]
    1.0
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "board", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Coverage, sd/RMSE and the ECE of P(better) against N, one line per estimator.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.board_study.run`.
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
    >>> from bayes_eval.validation.board_study import plot, run
    >>> from bayes_eval.validation.study_configs import BoardConfig
    >>> config = BoardConfig(replicates=3, n_models=4, n_questions=10, N=(1, 4), rates="rasch")
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "board.png")
    ...     print(png.name, png.exists())
    board.png True
    """
    plt = pyplot()
    rows = summary(ds)["cells"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    x = [int(v) for v in ds["N"].values]
    for k, name in enumerate(ds["estimator"].values):
        cells = [rows[f"N={v} {name}"] for v in x]
        kw = {"color": f"C{k}", "marker": "o", "label": str(name)}
        for ax, key in zip(axes, ("coverage", "sd_over_rmse", "ece"), strict=True):
            ax.plot(x, [c[key] for c in cells], **kw)
    floors = [rows[f"N={v} joint"]["ece_floor"] for v in x]
    axes[2].plot(x, floors, color="0.5", ls="--", label="noise floor (joint)")
    axes[0].axhline(float(ds.attrs["confidence"]), color="0.5", lw=0.8)
    axes[1].axhline(1.0, color="0.5", lw=0.8)
    labels = (
        f"coverage of the {float(ds.attrs['confidence']):.0%} intervals",
        "mean posterior sd / RMSE",
        "ECE of P(better)",
    )
    for ax, label in zip(axes, labels, strict=True):
        ax.set_xlabel("trials per question N")
        ax.set_ylabel(label)
        ax.set_xticks(x)
        ax.grid(alpha=0.3)
    axes[1].set_ylim(bottom=0.0)
    axes[2].set_ylim(bottom=0.0)
    axes[0].legend(fontsize=7)
    axes[2].legend(fontsize=7)
    what = {
        "matharena": "MathArena AIME 2025 I rates",
        "prior": "boards from the board model's prior",
    }.get(ds.attrs["rates"], f"Rasch boards (ability sd {ds.attrs['ability_sd']:g})")
    fig.suptitle(
        f"leaderboard, these questions: {ds.attrs['n_models']} LLMs x "
        f"{ds.attrs['n_questions']} questions, {what}, {ds.attrs['replicates']} boards per N"
    )
    fig.tight_layout()
    return save_png(fig, path)
