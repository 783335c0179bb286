r"""Study ``graded``: the Bayes@N intervals on graded scores read as fractional counts.

``--fractional`` (``fractional=True``) counts a graded score :math:`s \in [0, 1]` as
:math:`s` correct and :math:`1 - s` wrong, the Dirichlet-multinomial update of Hariri et al.
("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", eq. 6) with
fractional counts: a quasi-likelihood (Wedderburn, "Quasi-likelihood functions, generalized
linear models, and the Gauss-Newton method") with the right mean. A grade that is not
all-or-nothing varies less than a Bernoulli trial around its expectation, so each grade is
counted as the trials its spread shows (:func:`bayes_eval.inputs.grade_trials`, here from the
board's two-way residuals: one grade per question); this study measures whether the
intervals then cover, and how wide they are.

**Boards** (:func:`bayes_eval.synthetic.leaderboard.simulate_leaderboard`, complete): model
ability :math:`\theta_l \sim N(0.5, 1)`, question difficulty :math:`b_q \sim N(0, s^2)`,
expected score :math:`p_{lq} = \mathrm{expit}(\theta_l - b_q)`; with probability
``inflation`` a grade is a Bernoulli draw (a grader giving full or no credit), else
:math:`\mathrm{Beta}(p\phi, (1 - p)\phi)` rounded to 0.001, so that
:math:`\mathrm{Var}(s) = p(1 - p)\,[\iota + (1 - \iota)/(1 + \phi)]`: a fraction
:math:`\iota + (1 - \iota)/(1 + \phi)` of the Bernoulli variance (1 at inflation 1; 0.38 at
0.3 with :math:`\phi = 8`; 0.11 at 0). ``trials`` grades per question and LLM (repeated
grading: the grades' spread is then read from each model's own repeats, moderated towards the
board's) and a model x question interaction (``interaction_sd``, on the logit scale, which the
board's two-way fit takes for spread: conservative) are options. ``rates`` replaces the Rasch
truth by real rates (``matharena``: ``n_models`` of the shipped MathArena AIME 2025 I board's
16 models, each model's mean over its 4 runs, on questions resampled from its 15, most of them
0 or 1, so few questions show the grades' spread) or by the board model's own prior
(``prior``); ``n_models`` 1 is one model on its own. The estimand is each model's mean expected
score over the board's questions, :math:`\bar p_l = \frac1M\sum_q p_{lq}` (*these questions*).

**Priors**: the paper's uniform Dirichlet(1, 1), and the learned prior of the library's
commands (integrated over its hyperparameters) with ``pool="model"`` and with the default
``pool="board"``. Reported per cell: coverage of :math:`\bar p_l` (with its Monte Carlo
standard error; intervals of one board share its questions, so the effective number is
smaller), mean posterior sd over the RMSE of the posterior mean (1 honest, below 0.9
overconfident, above 1.2 wasteful) and the RMSE itself.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.metrics.bayes import bayes_ci
from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import THESE_QUESTIONS
from bayes_eval.synthetic.leaderboard import simulate_leaderboard
from bayes_eval.validation.pairs_study import _real_rates, prior_rates, real_subset
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import GradedConfig

__all__ = ["PRIORS", "plot", "run", "run_study", "summary", "variance_share"]

#: The priors compared: name -> the options of :func:`bayes_eval.metrics.bayes.bayes_ci`.
PRIORS: dict[str, dict] = {
    "uniform": {"prior": "uniform"},
    "empirical pool=model": {"prior": "empirical", "pool": "model"},
    "empirical pool=board": {"prior": "empirical", "pool": "board"},
}


def variance_share(inflation: float, precision: float) -> float:
    r"""The grades' variance as a share of the Bernoulli variance :math:`p(1 - p)`.

    The share is :math:`\iota + (1 - \iota)/(1 + \phi)` (a Beta(:math:`p\phi, (1 - p)\phi`)
    draw has variance :math:`p(1 - p)/(1 + \phi)`; rounding to 0.001 is ignored).

    Parameters
    ----------
    inflation : float
        The probability :math:`\iota` that a grade is all-or-nothing (a Bernoulli draw).
    precision : float
        The Beta precision :math:`\phi` of the other grades.

    Returns
    -------
    float
        The share, in (0, 1]; 1 for binary grades.

    Examples
    --------
    >>> from bayes_eval.validation.graded_study import variance_share
    >>> [round(variance_share(x, 8.0), 4) for x in (0.0, 0.3, 1.0)]
    [0.1111, 0.3778, 1.0]
    """
    return float(inflation + (1.0 - inflation) / (1.0 + precision))


def _expected(
    config: GradedConfig, rng: np.random.Generator, real: np.ndarray | None
) -> np.ndarray | None:
    """A board's expected scores for ``rates`` other than rasch (None: the Rasch truth)."""
    if real is not None:
        return real_subset(rng, real, n_models=config.n_models, n_questions=config.n_questions)[1]
    if config.rates == "prior":
        return prior_rates(rng, n_models=config.n_models, n_questions=config.n_questions)[1]
    return None


def run(config: GradedConfig, *, progress: bool = True) -> xr.Dataset:
    """Simulate ``replicates`` boards for every inflation and record the priors' results.

    Per prior and model: the interval, the posterior mean and sd, and the true mean over the
    board's questions.

    Parameters
    ----------
    config : GradedConfig
        The study's options (``bayes_eval.validation.study_configs.GradedConfig``): boards per
        inflation, models, questions, the grid ``inflation``, the Beta precision, the sd's
        and the grades per question.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``lo``, ``hi``, ``mean`` and ``sd`` over ``(inflation, prior, board, model)``,
        ``truth`` over ``(inflation, board, model)`` and ``variance_share`` over
        ``inflation``.

    Examples
    --------
    >>> from bayes_eval.validation.graded_study import run
    >>> from bayes_eval.validation.study_configs import GradedConfig
    >>> config = GradedConfig(replicates=2, n_models=4, n_questions=20, inflation=(0.0, 1.0))
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'inflation': 2, 'prior': 3, 'board': 2, 'model': 4}
    >>> ds["prior"].values.tolist()
    ['uniform', 'empirical pool=model', 'empirical pool=board']
    >>> ds["variance_share"].round(4).values.tolist()
    [0.1111, 1.0]
    """
    cells, names = config.inflation, list(PRIORS)
    shape = (len(cells), len(names), config.replicates, config.n_models)
    out = {k: np.full(shape, np.nan) for k in ("lo", "hi", "mean", "sd")}
    truth = np.full((len(cells), config.replicates, config.n_models), np.nan)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(cells) * config.replicates, desc="graded boards", unit="board")
    real = _real_rates() if config.rates == "matharena" else None
    for a, inflation in enumerate(cells):
        rng = np.random.default_rng([config.seed, a])
        for r in range(config.replicates):
            board = simulate_leaderboard(
                config.n_models,
                config.n_questions,
                scores="graded",
                inflation=float(inflation),
                precision=float(config.precision),
                difficulty_sd=float(config.difficulty_sd),
                interaction_sd=float(config.interaction_sd),
                n_trials=int(config.trials),
                expected=_expected(config, rng, real),
                seed=rng,
            )
            truth[a, r] = board.true_mean
            for c, name in enumerate(names):
                mu, sd, lo, hi = bayes_ci(
                    board.scores, fractional=True, confidence=config.confidence, **PRIORS[name]
                )
                out["mean"][a, c, r], out["sd"][a, c, r] = mu, sd
                out["lo"][a, c, r], out["hi"][a, c, r] = lo, hi
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    dims = ("inflation", "prior", "board", "model")
    data = {k: (dims, v) for k, v in out.items()}
    data["truth"] = (("inflation", "board", "model"), truth)
    data["variance_share"] = (
        ("inflation",),
        np.array([variance_share(x, config.precision) for x in cells]),
    )
    attrs = {
        f: getattr(config, f) for f in ("replicates", "n_models", "n_questions", "trials", "seed")
    }
    attrs |= {
        f: float(getattr(config, f))
        for f in ("precision", "difficulty_sd", "interaction_sd", "confidence")
    }
    attrs |= {"rates": config.rates, "estimand": THESE_QUESTIONS}
    coords = {"inflation": [float(x) for x in cells], "prior": names}
    return xr.Dataset(data, coords=coords, attrs=attrs)


def summary(ds: xr.Dataset) -> dict:
    """Summarise the boards per inflation and prior.

    Per inflation and prior: coverage (with its Monte Carlo standard error), mean posterior
    sd / RMSE of the posterior mean, the RMSE and the grades' variance share.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.graded_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``estimand`` and ``cells``: per
        ``"inflation=X PRIOR"``, ``coverage``, ``coverage_se``, ``sd_over_rmse``, ``rmse`` and
        ``variance_share``.

    Examples
    --------
    >>> from bayes_eval.validation.graded_study import run, summary
    >>> from bayes_eval.validation.study_configs import GradedConfig
    >>> config = GradedConfig(replicates=2, n_models=4, n_questions=20, inflation=(0.0, 1.0))
    >>> s = summary(run(config, progress=False))
    >>> s["cells"]["inflation=0 uniform"]
    {'coverage': 0.75, 'coverage_se': 0.1531, 'sd_over_rmse': 0.602, 'rmse': 0.04605,
     'variance_share': 0.111}
    """
    from bayes_eval.validation.study_output import interval_scores

    rows = {}
    for x in ds["inflation"].values:
        cell = ds.sel(inflation=x)
        for name in ds["prior"].values:
            one = cell.sel(prior=name)
            err = (one["mean"] - cell["truth"]).values
            hit = ((one["lo"] <= cell["truth"]) & (cell["truth"] <= one["hi"])).values
            rows[f"inflation={x:g} {name}"] = {
                **interval_scores(hit, err, float(one["sd"].mean())),
                "variance_share": round(float(cell["variance_share"]), 3),
            }
    return {"settings": dict(ds.attrs), "estimand": THESE_QUESTIONS, "cells": rows}


def run_study(config: GradedConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config``; write ``OUT/graded.nc`` and ``OUT/graded.png``.

    Parameters
    ----------
    config : GradedConfig
        The study's options (``bayes_eval.validation.study_configs.GradedConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.graded_study.run`,
        the summary of :func:`bayes_eval.validation.graded_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.graded_study import run_study
    >>> from bayes_eval.validation.study_configs import GradedConfig
    >>> config = GradedConfig(replicates=2, n_models=4, n_questions=20, inflation=(0.0, 1.0))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] graded.nc
    >>> result.summary["cells"]["inflation=1 uniform"]["variance_share"]
    1.0
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "graded", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot coverage and sd/RMSE against the share of all-or-nothing grades.

    Coverage (left) and sd/RMSE (right), one line per prior.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.graded_study.run`.
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
    >>> from bayes_eval.validation.graded_study import plot, run
    >>> from bayes_eval.validation.study_configs import GradedConfig
    >>> config = GradedConfig(replicates=2, n_models=4, n_questions=20, inflation=(0.0, 1.0))
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "graded.png")
    ...     print(png.name, png.exists())
    graded.png True
    """
    plt = pyplot()
    rows = summary(ds)["cells"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    x = [float(v) for v in ds["inflation"].values]
    for k, name in enumerate(ds["prior"].values):
        cells = [rows[f"inflation={v:g} {name}"] for v in x]
        kw = {"color": f"C{k}", "marker": "o", "label": str(name)}
        left.plot(x, [c["coverage"] for c in cells], **kw)
        right.plot(x, [c["sd_over_rmse"] for c in cells], **kw)
    left.axhline(float(ds.attrs["confidence"]), color="0.5", lw=0.8)
    right.axhline(1.0, color="0.5", lw=0.8)
    left.set_ylabel(f"coverage of the {float(ds.attrs['confidence']):.0%} intervals")
    right.set_ylabel("mean posterior sd / RMSE")
    right.set_ylim(bottom=0.0)
    for ax in (left, right):
        ax.set_xlabel("share of full-or-no-credit grades (1: binary)")
        ax.grid(alpha=0.3)
    left.legend(fontsize=7)
    fig.suptitle(
        f"--fractional, these questions: {ds.attrs['n_models']} LLMs x "
        f"{ds.attrs['n_questions']} questions x {ds.attrs['trials']} grades, "
        f"{ds.attrs.get('rates', 'rasch')} rates, Beta precision {ds.attrs['precision']:g}"
    )
    fig.tight_layout()
    return save_png(fig, path)
