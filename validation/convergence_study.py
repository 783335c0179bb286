"""Study ``convergence``: convergence@n of a results file, Hariri et al., "Don't Pass@k: A
Bayesian Framework for Large Language Model Evaluation", §3.3 (Figs. 1, 4, 9-11).

For binary results of L models (M questions x N_max trials each), the gold standard is the
Bayes@N_max ranking of the data (= avg@N_max, §2.7). Replicates permute each model's trials
(column scheme without replacement, so the full data give the gold ranking and App. I.1's
definition applies) or resample them (``--replace``). For every method: the PMF and CDF of
convergence@n, the probability of no convergence, the mean tau_b curve with a percentile
bootstrap interval, and the rank trajectory of the worst replicate (Fig. 9). Optionally the
same over random subsets of ``subset_size`` models (Fig. 4).

The results are read by :func:`bayes_eval.logs.read_eval_log` (any log format; a long table's
trials are ordered by its ``trial`` column within each model and question). Shipped datasets
that publish correct counts only (no recorded trial order) are refused.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import THESE_QUESTIONS
from bayes_eval.ranking.convergence import (
    DEFAULT_METHODS,
    convergence_pmf,
    random_subsets,
    stability,
    tau_interval,
)
from bayes_eval.ranking.ranks import rank
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import ConvergenceConfig

__all__ = ["from_file", "plot", "run", "run_study", "summary"]


def from_file(path: str, file_format: str | None = None) -> tuple[np.ndarray, list[str]]:
    """Binary, complete results ``(L, M, N)`` and model names from a results file in any
    format :func:`bayes_eval.logs.read_eval_log` reads (a long table: ``model, question,
    trial, score``), or from a shipped dataset written ``dataset:NAME`` whose trial order is
    recorded. Trials keep the order of the ``trial`` column."""
    from bayes_eval.logs.dataset import dataset_name
    from bayes_eval.logs.scored import load_scored

    name = dataset_name(path)
    if name is not None:
        from bayes_eval import datasets

        if name in datasets.DATASETS:
            order = datasets.load(name).attrs.get("trial_order", "")
            if "unknown" in str(order):
                raise ValueError(
                    f"{path} publishes correct counts only, so the trial order this study "
                    "resamples is not defined; use a dataset with recorded trials "
                    "(dataset:taubench_airline_gpt4o, dataset:cruxeval_codellama7b)."
                )
    # the data treatment of every command: graded scores are refused (this study needs 0/1)
    da = load_scored(str(path), format=file_format, cli_names=True).R
    values = da.values
    if np.isnan(values).any():
        raise ValueError(
            f"{path}: {int(np.isnan(values).sum())} missing trials; convergence@n needs every "
            "model to have the same N trials on every question."
        )
    if not np.isin(values, (0, 1)).all():
        raise ValueError(f"{path}: scores must be 0/1 for the convergence study.")
    if values.shape[0] < 2:
        raise ValueError(
            f"{path}: 1 model; convergence@n follows a ranking of two or more models as trials "
            "are added: expected at least two models."
        )
    return values.astype(np.int8), [str(m) for m in da["model"].values]


def run(
    R: np.ndarray,
    models: Sequence[str] | None = None,
    *,
    methods: Sequence[str] = DEFAULT_METHODS,
    replicates: int = 10_000,
    replace: bool = False,
    confidence: float = 0.95,
    subset_size: int | None = None,
    subset_count: int = 20,
    seed: int = 0,
    progress: bool = True,
) -> xr.Dataset:
    """convergence@n distributions, tau curves and worst trajectories (module docstring)."""
    R = np.asarray(R)
    if R.ndim != 3 or R.shape[0] < 2:
        raise ValueError(
            f"R has shape {R.shape}; expected (L, M, N) with L >= 2 models (a ranking)."
        )
    n_models, _, n_max = R.shape
    models = list(models) if models is not None else [f"model_{i}" for i in range(n_models)]
    st = stability(
        R,
        methods,
        scheme="column",
        replicates=replicates,
        replace=replace,
        seed=seed,
        progress=progress,
    )
    pmfs, nones, means = [], [], []
    for conv in st.convergence:
        pmf, none = convergence_pmf(conv, n_max)
        pmfs.append(pmf)
        nones.append(none)
        ok = conv[conv > 0]
        means.append(float(ok.mean()) if ok.size else np.nan)
    pmf = np.stack(pmfs)
    lo, hi = tau_interval(st.tau, confidence)
    worst_ranks = np.stack(
        [
            np.stack([rank(s) if np.isfinite(s).all() else np.zeros(n_models, int) for s in scores])
            for scores in st.worst_scores
        ]
    )
    ds = xr.Dataset(
        {
            "pmf": (("metric", "n"), pmf),
            "cdf": (("metric", "n"), np.cumsum(pmf, axis=1)),
            "p_no_convergence": ("metric", np.asarray(nones)),
            "mean_convergence": ("metric", np.asarray(means)),
            "tau_mean": (("metric", "n"), st.tau_mean),
            "tau_lo": (("metric", "n"), lo),
            "tau_hi": (("metric", "n"), hi),
            "worst_ranks": (("metric", "n", "model"), worst_ranks),
            "worst_replicate": ("metric", st.worst_replicate),
            "gold_rank": ("model", rank(R.sum(axis=(1, 2)).astype(float))),
        },
        coords={"metric": list(st.methods), "n": np.arange(1, n_max + 1), "model": models},
        attrs={
            "replicates": replicates,
            "replace": int(replace),
            "seed": seed,
            "confidence": confidence,
        },
    )
    if subset_size:
        # subset_count is an upper bound: with few models every subset is used
        available = math.comb(n_models, subset_size) if 2 <= subset_size <= n_models else 0
        subsets = random_subsets(n_models, subset_size, min(subset_count, available), seed=seed)
        sub_means = np.full((len(subsets), len(st.methods)), np.nan)
        sub_none = np.zeros((len(subsets), len(st.methods)))
        for i, idx in enumerate(subsets):
            sub = stability(
                R[idx],
                methods,
                scheme="column",
                replicates=max(replicates // 10, 100),
                replace=replace,
                seed=seed + i + 1,
                keep_tau=False,
            )
            for j, conv in enumerate(sub.convergence):
                ok = conv[conv > 0]
                sub_means[i, j] = ok.mean() if ok.size else np.nan
                sub_none[i, j] = np.mean(conv < 0)
        ds["subset_mean_convergence"] = (("subset", "metric"), sub_means)
        ds["subset_p_no_convergence"] = (("subset", "metric"), sub_none)
        ds["subset_members"] = (("subset", "member"), np.stack(subsets))
        ds.attrs["subset_size"] = subset_size
    return ds


def run_study(config: ConvergenceConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Read ``config.file``, run the study and write ``OUT/convergence.nc`` and ``.png``."""
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    R, names = from_file(config.file, config.format)
    ds = run(
        R,
        names,
        methods=list(config.methods),
        replicates=config.replicates,
        replace=config.replace,
        confidence=config.confidence,
        subset_size=config.subset_size,
        subset_count=config.subset_count,
        seed=config.seed,
        progress=progress,
    )
    ds.attrs["source"] = str(config.file)
    return finish(ds, out, "convergence", plot, summary(ds), start)


def summary(ds: xr.Dataset) -> dict:
    out = {
        "prior": "uniform (Bayes@N ranks as avg@N under any fixed prior, Hariri et al. §2.6)",
        "estimand": THESE_QUESTIONS,
        "gold_ranking": dict(
            zip(ds["model"].values.tolist(), ds["gold_rank"].values.tolist(), strict=True)
        ),
        "methods": {},
    }
    for m in ds["metric"].values:
        cell = ds.sel(metric=m)
        out["methods"][str(m)] = {
            "mean_convergence": None
            if np.isnan(cell["mean_convergence"])
            else round(float(cell["mean_convergence"]), 2),
            "p_no_convergence": round(float(cell["p_no_convergence"]), 4),
            "tau_at_n": {
                int(n): round(float(cell["tau_mean"].sel(n=n)), 4)
                for n in (1, 2, 4, 8, 16, 32, 64)
                if n <= ds.sizes["n"] and np.isfinite(cell["tau_mean"].sel(n=n))
            },
        }
    if "subset_mean_convergence" in ds:
        values = ds["subset_mean_convergence"].values
        seen = np.isfinite(values)
        means = np.where(
            seen.any(0), np.where(seen, values, 0).sum(0) / np.maximum(seen.sum(0), 1), np.nan
        )
        out["subsets"] = {
            "size": int(ds.attrs["subset_size"]),
            "mean_convergence": {
                m: (None if np.isnan(v) else round(float(v), 2))
                for m, v in zip(ds["metric"].values.tolist(), means, strict=True)
            },
            "p_no_convergence": dict(
                zip(
                    ds["metric"].values.tolist(),
                    np.round(ds["subset_p_no_convergence"].values.mean(0), 4).tolist(),
                    strict=True,
                )
            ),
        }
    return out


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """PMF (Fig. 1) and CDF (Fig. 11) of convergence@n, with the no-convergence mass."""
    plt = pyplot()

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for m in ds["metric"].values:
        cell = ds.sel(metric=m)
        label = f"{m} (none: {float(cell['p_no_convergence']):.0%})"
        axes[0].plot(ds["n"], cell["pmf"], label=label)
        axes[1].plot(ds["n"], cell["cdf"], label=str(m))
        axes[2].plot(ds["n"], cell["tau_mean"], label=str(m))
        axes[2].fill_between(ds["n"], cell["tau_lo"], cell["tau_hi"], alpha=0.1)
    axes[0].set_title("PMF of convergence@n")
    axes[1].set_title("CDF of convergence@n")
    axes[2].set_title(f"mean tau_b ({100 * ds.attrs['confidence']:g}% bootstrap band)")
    for ax in axes:
        ax.set_xlabel("n trials")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save_png(fig, path)
