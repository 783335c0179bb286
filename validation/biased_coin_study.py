"""Study ``biased-coin``: §2.7 / Fig. 2 and §2.7.1 / Table 1 of Hariri et al.

The paper is Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation".

Eleven biased-coin LLM mimics with the paper's true scores (M = 30 questions,
:mod:`bayes_eval.synthetic.biased_coin`). Mean Kendall tau_b with the *true* ranking (ties included)
versus the number of trials n, for every method:

* panel a: ``independent`` fresh R matrices of N_max trials (Fig. 2a);
* panel b: column bootstrap of one R matrix (resample trial indices, Fig. 2b);
* panel c: row bootstrap of the same matrix (resample each question's answers, Fig. 2c).

The paper finds b and c "nearly identical" to a; :func:`run` reports the largest gap between
the panels next to the Monte Carlo error of a. Table 1: the true ranks, and Bayes@N_max ranks
of the single matrix without and with the 95% CI rule.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.metrics.bayes import bayes
from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.ranking.convergence import DEFAULT_METHODS, stability
from bayes_eval.ranking.ranks import rank, rank_with_ci
from bayes_eval.synthetic.biased_coin import PAPER_PI_BAR, mimic_probabilities, simulate_results
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import BiasedCoinConfig

__all__ = ["plot", "run", "run_study", "summary"]

PANELS = ("independent", "column", "row")


def run(
    *,
    independent: int = 1000,
    bootstrap: int = 10_000,
    n_max: int = 80,
    n_questions: int = 30,
    methods: Sequence[str] = DEFAULT_METHODS,
    seed: int = 0,
    progress: bool = True,
) -> xr.Dataset:
    """Run the study; returns tau curves ``(panel, method, n)`` and Table 1 ``(model)``.

    Parameters
    ----------
    independent : int, optional
        Panel a: fresh R matrices of ``n_max`` trials each, default 1000.
    bootstrap : int, optional
        Panels b and c: column and row bootstrap replicates of the single matrix,
        default 10000.
    n_max : int, optional
        Trials per question, N_max, default 80.
    n_questions : int, optional
        Questions M of the mimics, default 30.
    methods : sequence of str, optional
        The ranking methods (``"bayes"``, ``"pass_at_k:2"``, ...), default
        ``bayes_eval.ranking.convergence.DEFAULT_METHODS``.
    seed : int, optional
        Random seed, default 0.
    progress : bool, optional
        Show progress bars, default True.

    Returns
    -------
    xarray.Dataset
        ``tau_mean`` and ``tau_se`` over ``(panel, metric, n)``; Table 1 over ``model``
        (``pi_bar``, ``gold_rank``, ``mu``, ``sigma``, ``rank_without_ci``, ``rank_with_ci``);
        ``max_gap_vs_independent`` over ``(panel_b, metric)`` and
        ``mc_se_independent_max`` over ``metric``.

    Examples
    --------
    >>> from bayes_eval.validation.biased_coin_study import run
    >>> ds = run(independent=20, bootstrap=20, n_max=4, methods=["bayes"], progress=False)
    >>> dict(ds.sizes)
    {'panel': 3, 'metric': 1, 'n': 4, 'model': 11, 'panel_b': 2}
    >>> ds["tau_mean"].sel(panel="independent", metric="bayes").round(4).values.tolist()
    [0.754, 0.8196, 0.8658, 0.8774]
    """
    p = mimic_probabilities(n_questions=n_questions, seed=seed)
    gold = np.asarray(PAPER_PI_BAR)
    fresh = simulate_results(np.broadcast_to(p, (independent, *p.shape)), n_max, seed=seed + 1)
    single = simulate_results(p, n_max, seed=seed + 2)
    results = {
        "independent": stability(
            fresh, methods, gold, scheme="given", seed=seed, progress=progress
        ),
        "column": stability(
            single,
            methods,
            gold,
            scheme="column",
            replicates=bootstrap,
            replace=True,
            seed=seed + 3,
            progress=progress,
        ),
        "row": stability(
            single,
            methods,
            gold,
            scheme="row",
            replicates=bootstrap,
            replace=True,
            seed=seed + 4,
            progress=progress,
        ),
    }
    tau_mean = np.stack([results[k].tau_mean for k in PANELS])
    tau_se = np.stack([results[k].tau_se for k in PANELS])
    mu, sigma = bayes(single)
    names = [f"LLM{i + 1}" for i in range(len(gold))]
    ds = xr.Dataset(
        {
            "tau_mean": (("panel", "metric", "n"), tau_mean),
            "tau_se": (("panel", "metric", "n"), tau_se),
            "pi_bar": ("model", gold),
            "gold_rank": ("model", rank(gold, method="dense")),
            "mu": ("model", mu),
            "sigma": ("model", sigma),
            "rank_without_ci": ("model", rank(mu, method="dense")),
            "rank_with_ci": ("model", rank_with_ci(mu, sigma, z_threshold=1.645)),
        },
        coords={
            "panel": list(PANELS),
            "metric": list(methods),
            "n": np.arange(1, n_max + 1),
            "model": names,
        },
        attrs={
            "independent": independent,
            "bootstrap": bootstrap,
            "seed": seed,
            "n_questions": n_questions,
        },
    )
    gap = np.abs(tau_mean[1:] - tau_mean[0])
    # fmax ignores NaN (n beyond a metric's k) and gives NaN for an all-NaN row, silently
    ds["max_gap_vs_independent"] = (("panel_b", "metric"), np.fmax.reduce(gap, axis=-1))
    ds = ds.assign_coords(panel_b=["column", "row"])
    ds["mc_se_independent_max"] = ("metric", np.fmax.reduce(tau_se[0], axis=-1))
    return ds


def run_study(config: BiasedCoinConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/biased_coin.nc`` and ``.png``.

    Parameters
    ----------
    config : BiasedCoinConfig
        The study's options (``bayes_eval.validation.study_configs.BiasedCoinConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show progress bars, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.biased_coin_study.run`, the summary of
        :func:`bayes_eval.validation.biased_coin_study.summary` with the files written and
        the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.biased_coin_study import run_study
    >>> from bayes_eval.validation.study_configs import BiasedCoinConfig
    >>> config = BiasedCoinConfig(independent=20, replicates=20, methods=("bayes",), n_max=4)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] biased_coin.nc
    >>> result.summary["table1"]["LLM11"]
    {'gold': 1, 'without_ci': 1, 'with_ci': 1}
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(
        independent=config.independent,
        bootstrap=config.replicates,
        n_max=config.n_max,
        n_questions=config.n_questions,
        methods=list(config.methods),
        seed=config.seed,
        progress=progress,
    )
    return finish(ds, out, "biased_coin", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Fig. 2: mean tau versus n, one panel per replicate scheme.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.biased_coin_study.run`.
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
    >>> from bayes_eval.validation.biased_coin_study import plot, run
    >>> ds = run(independent=20, bootstrap=20, n_max=4, methods=["bayes"], progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "biased_coin.png")
    ...     print(png.name, png.exists())
    biased_coin.png True
    """
    plt = pyplot()

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    titles = {
        "independent": "a) independent R",
        "column": "b) column bootstrap",
        "row": "c) row bootstrap",
    }
    for ax, panel in zip(axes, PANELS, strict=True):
        for method in ds["metric"].values:
            y = ds["tau_mean"].sel(panel=panel, metric=method)
            ax.plot(ds["n"], y, label=str(method), lw=2.2 if method == "bayes" else 1.2)
        ax.set_title(titles[panel])
        ax.set_xlabel("number of trials n")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean Kendall tau_b vs true ranking")
    axes[-1].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_png(fig, path)


def summary(ds: xr.Dataset) -> dict:
    """JSON-friendly summary: tau at selected n, gaps between panels, Table 1.

    Tau has one labelled row per panel and n, one column per metric; None where a metric needs more
    trials.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.biased_coin_study.run`.

    Returns
    -------
    dict
        ``tau_mean`` (rows ``"PANEL, n = N"``, a value per metric), ``n`` (the selected n),
        ``max_gap_vs_independent`` (per bootstrap panel and metric) and ``table1`` (per
        model: ``gold``, ``without_ci`` and ``with_ci`` ranks).

    Examples
    --------
    >>> from bayes_eval.validation.biased_coin_study import run, summary
    >>> ds = run(independent=20, bootstrap=20, n_max=4, methods=["bayes"], progress=False)
    >>> s = summary(ds)
    >>> s["n"], s["tau_mean"]["independent, n = 4"]
    ([1, 2, 4], {'bayes': 0.8774})
    """
    picks = [n for n in (1, 2, 4, 8, 16, 32, 80) if n <= ds.sizes["n"]]
    return {
        "tau_mean": {
            f"{panel}, n = {n}": {
                m: None if np.isnan(v) else round(float(v), 4)
                for m, v in zip(
                    ds["metric"].values.tolist(),
                    ds["tau_mean"].sel(panel=panel, n=n).values,
                    strict=True,
                )
            }
            for panel in PANELS
            for n in picks
        },
        "n": picks,
        "max_gap_vs_independent": {
            b: dict(
                zip(
                    ds["metric"].values.tolist(),
                    np.round(ds["max_gap_vs_independent"].sel(panel_b=b).values, 4).tolist(),
                    strict=True,
                )
            )
            for b in ("column", "row")
        },
        "table1": {
            str(m): {
                "gold": int(ds["gold_rank"].sel(model=m)),
                "without_ci": int(ds["rank_without_ci"].sel(model=m)),
                "with_ci": int(ds["rank_with_ci"].sel(model=m)),
            }
            for m in ds["model"].values
        },
    }
