"""Study ``convergence``: convergence@n of a results file.

After Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", §3.3 (Figs. 1, 4, 9-11).

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
    r"""Binary, complete results ``(L, M, N)`` and model names from a results file.

    The file is in any format :func:`bayes_eval.logs.read_eval_log` reads (a long table:
    ``model, question, trial, score``), or a shipped dataset written ``dataset:NAME`` whose
    trial order is recorded. Trials keep the order of the ``trial`` column.

    Parameters
    ----------
    path : str
        A results file (any log format), or ``dataset:NAME`` of a shipped dataset.
    file_format : str, optional
        The log format, default None (detected from the file).

    Returns
    -------
    R : numpy.ndarray of int8, shape (L, M, N)
        The binary results, every model with the same N trials on every question.
    names : list of str
        The model names.

    Raises
    ------
    ValueError
        When the results have missing trials, scores other than 0/1, a single model, or a
        shipped dataset without a recorded trial order.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.convergence_study import from_file
    >>> lines = ["model,question,trial,score"] + [
    ...     f"{m},q{q},{t},{int(m == 'b' or t == q)}"
    ...     for m in "ab" for q in range(3) for t in range(2)
    ... ]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "results.csv"
    ...     _ = path.write_text("\n".join(lines) + "\n")
    ...     R, names = from_file(str(path))
    >>> R.shape, names
    ((2, 3, 2), ['a', 'b'])
    >>> R[0].tolist()
    [[1, 0], [0, 1], [0, 0]]
    """
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
                    "resamples is not defined; expected results of two or more models with "
                    "their trials in the order they were run (e.g. a CSV with columns model, "
                    "question, trial, score)."
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
    """convergence@n distributions, tau curves and worst trajectories (module docstring).

    Parameters
    ----------
    R : numpy.ndarray of shape (L, M, N)
        Binary results of L >= 2 models, M questions x N trials.
    models : sequence of str, optional
        The model names, default None (``model_0``, ``model_1``, ...).
    methods : sequence of str, optional
        The ranking methods (``"bayes"``, ``"pass_at_k:2"``, ...), default
        ``bayes_eval.ranking.convergence.DEFAULT_METHODS``.
    replicates : int, optional
        Permutations (or resamples) of each model's trials, default 10000.
    replace : bool, optional
        Resample the trials with replacement instead of permuting them, default False.
    confidence : float, optional
        Level of the percentile bootstrap band of the tau curves, default 0.95.
    subset_size : int, optional
        Also study random subsets of this many models, default None (no subsets).
    subset_count : int, optional
        Largest number of random model subsets, default 20.
    seed : int, optional
        Random seed, default 0.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``pmf``, ``cdf``, ``tau_mean``, ``tau_lo`` and ``tau_hi`` over ``(metric, n)``;
        ``p_no_convergence``, ``mean_convergence`` and ``worst_replicate`` over ``metric``;
        ``worst_ranks`` over ``(metric, n, model)``; ``gold_rank`` over ``model``; with
        ``subset_size``, ``subset_mean_convergence``, ``subset_p_no_convergence`` and
        ``subset_members``.

    Raises
    ------
    ValueError
        When ``R`` is not three-dimensional with at least two models.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.convergence_study import run
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 20, 8)) < np.array([0.3, 0.5, 0.7])[:, None, None]).astype(np.int8)
    >>> ds = run(R, ["a", "b", "c"], methods=["bayes", "pass_at_k:2"], replicates=200,
    ...          progress=False)
    >>> dict(ds.sizes)
    {'metric': 2, 'n': 8, 'model': 3}
    >>> ds["gold_rank"].values.tolist(), ds["p_no_convergence"].round(4).values.tolist()
    ([3, 2, 1], [0.0, 0.0])
    >>> ds["tau_mean"].sel(metric="bayes").round(4).values.tolist()
    [0.9229, 0.9954, 0.9982, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
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
    r"""Read ``config.file``, run the study and write ``OUT/convergence.nc`` and ``.png``.

    Parameters
    ----------
    config : ConvergenceConfig
        The study's options (``bayes_eval.validation.study_configs.ConvergenceConfig``): the
        results ``file`` and its ``format``, and the options of
        :func:`bayes_eval.validation.convergence_study.run`.
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.convergence_study.run`,
        the summary of :func:`bayes_eval.validation.convergence_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from bayes_eval.validation.convergence_study import run_study
    >>> from bayes_eval.validation.study_configs import ConvergenceConfig
    >>> rng = np.random.default_rng(0)
    >>> lines = ["model,question,trial,score"] + [
    ...     f"{m},q{q},{t},{int(rng.random() < p)}"
    ...     for m, p in (("a", 0.3), ("b", 0.7)) for q in range(10) for t in range(4)
    ... ]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "results.csv"
    ...     _ = path.write_text("\n".join(lines) + "\n")
    ...     config = ConvergenceConfig(file=str(path), replicates=100, methods=("bayes",))
    ...     result = run_study(config, Path(tmp) / "out", progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] convergence.nc
    >>> result.summary["gold_ranking"]
    {'a': 2, 'b': 1}
    """
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
    """JSON-friendly summary of the study.

    The prior, the estimand, the gold ranking, and per method the mean convergence@n,
    P(no convergence) and mean tau_b at selected n; with subsets, their mean convergence@n and
    P(no convergence) per method.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.convergence_study.run`.

    Returns
    -------
    dict
        ``prior``, ``estimand``, ``gold_ranking`` (model -> rank), ``methods`` (per method:
        ``mean_convergence``, ``p_no_convergence`` and ``tau_at_n``) and, with subsets,
        ``subsets``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.convergence_study import run, summary
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 20, 8)) < np.array([0.3, 0.5, 0.7])[:, None, None]).astype(np.int8)
    >>> s = summary(run(R, ["a", "b", "c"], methods=["bayes"], replicates=200, progress=False))
    >>> s["gold_ranking"]
    {'a': 3, 'b': 2, 'c': 1}
    >>> s["methods"]["bayes"]
    {'mean_convergence': 1.24, 'p_no_convergence': 0.0,
     'tau_at_n': {1: 0.9229, 2: 0.9954, 4: 1.0, 8: 1.0}}
    """
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
    """PMF (Fig. 1) and CDF (Fig. 11) of convergence@n, with the no-convergence mass.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.convergence_study.run`.
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
    >>> import numpy as np
    >>> from bayes_eval.validation.convergence_study import plot, run
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 20, 8)) < np.array([0.3, 0.5, 0.7])[:, None, None]).astype(np.int8)
    >>> ds = run(R, ["a", "b", "c"], methods=["bayes"], replicates=200, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "convergence.png")
    ...     print(png.name, png.exists())
    convergence.png True
    """
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
