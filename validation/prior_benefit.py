"""Study ``prior-benefit``: earlier runs as an informative prior.

After Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", App. C (Fig. 5).

Eight "original" models, model i with M = 30 success probabilities drawn once from
Beta(i + 3, 12 - i). In every replicate each model is "updated": its probabilities are drawn
afresh from Beta(i + 3 + s, 12 - i + s') with random signs s, s' = +-1. The updated models are
ranked by Bayes@N with D trials of the *original* model as the prior runs R0 (eq. 6) and
N trials of the updated model; the ranking is compared with the updated models' true
ranking by Kendall tau_b. D = 0 is the uniform prior.

Bayes@N with R0 ranks by the total successes in R and R0 (the denominators T are common), so
every replicate costs a few cumulative sums. The paper: D <= 4 helps at small N, D = 8 and 16
hurt at larger N; the mean tau between original and updated true rankings is about 0.88.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.ranking.convergence import pair_signs
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import PriorBenefitConfig

__all__ = ["plot", "run", "run_study", "summary"]


def _tau_rowwise(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """tau_b where every replicate (axis 0) has its own gold; scores (B, ..., L), gold (B, L)."""
    sx = pair_signs(scores)
    sg = pair_signs(gold).reshape(gold.shape[0], *([1] * (scores.ndim - 2)), -1)
    conc = (sx * sg).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return conc / np.sqrt(np.count_nonzero(sx, -1) * np.count_nonzero(sg, -1).astype(float))


#: Replicates drawn from one random stream: each block of this many replicates has its own
#: stream (seeded by ``seed`` and the block's index), so the results do not depend on
#: ``chunk``, which only sets how many replicates are held in memory at once.
_RNG_BLOCK = 50


def _block_draws(
    seed: int, first: int, size: int, original: np.ndarray, n_max: int, d_max: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random draws of replicates ``first .. first + size - 1`` (one block's stream).

    Returns the updated models' per-question rates ``(size, 8, M)``, their cumulative
    successes over N = 1..n_max ``(size, 8, n_max)`` and the original models' successes in
    ``d_max`` prior trials ``(size, 8, d_max)``.
    """
    rng = np.random.default_rng([seed, first // _RNG_BLOCK, 20261129])
    i = np.arange(1, 9)
    n_questions = original.shape[-1]
    s1 = rng.choice([-1, 1], size=(size, 8, 1))
    s2 = rng.choice([-1, 1], size=(size, 8, 1))
    updated = rng.beta(
        (i + 3)[None, :, None] + s1, (12 - i)[None, :, None] + s2, size=(size, 8, n_questions)
    )
    new_totals = np.cumsum(
        (rng.random((size, 8, n_questions, n_max)) < updated[..., None]).sum(2), axis=-1
    )
    prior = (rng.random((size, 8, n_questions, d_max)) < original[None, :, :, None]).sum(2)
    return updated, new_totals, prior


def run(
    *,
    replicates: int = 50_000,
    n_max: int = 30,
    depths: Sequence[int] = (0, 1, 2, 4, 8, 16),
    n_questions: int = 30,
    chunk: int = 250,
    seed: int = 0,
    progress: bool = True,
) -> xr.Dataset:
    """Mean tau versus N for each prior depth D, and the original-vs-updated tau histogram.

    Parameters
    ----------
    replicates : int, optional
        Simulated model updates, default 50000.
    n_max : int, optional
        Largest N, trials of the updated model, default 30.
    depths : sequence of int, optional
        Prior depths D, trials of the original model used as R0 (0: the uniform prior),
        default (0, 1, 2, 4, 8, 16).
    n_questions : int, optional
        Questions M, default 30.
    chunk : int, optional
        Replicates simulated at once (memory), default 250, rounded down to a multiple of 50
        (at least 50); the results do not depend on it (each block of 50 replicates draws
        from its own random stream).
    seed : int, optional
        Random seed, default 0.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``tau_mean``, ``tau_se`` and ``delta_tau`` (against D = 0, NaN without it) over
        ``(depth, n)``, ``tau_original_vs_updated`` over ``replicate`` and
        ``original_pi_bar`` over ``original_model``.

    Examples
    --------
    >>> from bayes_eval.validation.prior_benefit import run
    >>> ds = run(replicates=100, n_max=5, depths=(0, 2, 8), chunk=50, progress=False)
    >>> dict(ds.sizes)
    {'depth': 3, 'n': 5, 'replicate': 100, 'original_model': 8}
    >>> ds["tau_mean"].sel(depth=2).round(4).values.tolist()
    [0.8533, 0.8709, 0.8821, 0.9031, 0.9121]
    """
    rng = np.random.default_rng(seed)
    i = np.arange(1, 9)
    original = rng.beta((i + 3)[:, None], (12 - i)[:, None], size=(8, n_questions))
    depths = list(depths)
    d_max = max(depths)
    sums = np.zeros((len(depths), n_max))
    sq = np.zeros((len(depths), n_max))
    cnt = np.zeros((len(depths), n_max))
    tau_orig = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=replicates, desc="prior-benefit replicates", unit="rep")
    chunk = max(_RNG_BLOCK, chunk - chunk % _RNG_BLOCK)  # whole blocks of replicates
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        draws = [
            _block_draws(seed, first, min(_RNG_BLOCK, start + b - first), original, n_max, d_max)
            for first in range(start, start + b, _RNG_BLOCK)
        ]
        updated = np.concatenate([d[0] for d in draws])
        new_totals = np.concatenate([d[1] for d in draws])
        prior = np.concatenate([d[2] for d in draws])  # (b, 8, d_max)
        truth = updated.mean(-1)  # (b, 8)
        tau_orig.append(
            _tau_rowwise(np.broadcast_to(original.mean(-1), (b, 8)).copy()[:, None, :], truth)[:, 0]
        )
        prior_totals = np.concatenate([np.zeros((b, 8, 1)), np.cumsum(prior, axis=-1)], axis=-1)
        for j, d in enumerate(depths):
            scores = (new_totals + prior_totals[..., d : d + 1]).transpose(0, 2, 1)  # (b, N, 8)
            tau = _tau_rowwise(scores.astype(float), truth)
            good = ~np.isnan(tau)
            sums[j] += np.where(good, tau, 0).sum(0)
            sq[j] += np.where(good, tau**2, 0).sum(0)
            cnt[j] += good.sum(0)
        if bar is not None:
            bar.update(b)
    if bar is not None:
        bar.close()
    mean = sums / cnt
    se = np.sqrt(np.maximum(sq / cnt - mean**2, 0) / np.maximum(cnt - 1, 1))
    tau_orig = np.concatenate(tau_orig)
    ds = xr.Dataset(
        {
            "tau_mean": (("depth", "n"), mean),
            "tau_se": (("depth", "n"), se),
            "delta_tau": (
                ("depth", "n"),
                mean - mean[depths.index(0)] if 0 in depths else np.full_like(mean, np.nan),
            ),
            "tau_original_vs_updated": ("replicate", tau_orig),
            "original_pi_bar": ("original_model", original.mean(-1)),
        },
        coords={
            "depth": depths,
            "n": np.arange(1, n_max + 1),
            "replicate": np.arange(replicates),
            "original_model": np.arange(1, 9),
        },
        attrs={"replicates": replicates, "seed": seed, "n_questions": n_questions},
    )
    return ds


def run_study(config: PriorBenefitConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/prior_benefit.nc`` and ``.png``.

    Parameters
    ----------
    config : PriorBenefitConfig
        The study's options (``bayes_eval.validation.study_configs.PriorBenefitConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.prior_benefit.run`,
        the summary of :func:`bayes_eval.validation.prior_benefit.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.prior_benefit import run_study
    >>> from bayes_eval.validation.study_configs import PriorBenefitConfig
    >>> config = PriorBenefitConfig(replicates=100, n_max=5, depths=(0, 2, 8))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] prior_benefit.nc
    >>> result.summary["best_depth_by_n"]
    {1: 8, 2: 8, 3: 8, 4: 2, 5: 2}
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(
        replicates=config.replicates,
        n_max=config.n_max,
        depths=list(config.depths),
        n_questions=config.n_questions,
        seed=config.seed,
        progress=progress,
    )
    return finish(ds, out, "prior_benefit", plot, summary(ds), start)


def summary(ds: xr.Dataset) -> dict:
    """Mean tau at selected N per D, the D with the best tau at each N, and Fig. 5a's mean.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.prior_benefit.run`.

    Returns
    -------
    dict
        ``n`` (the selected N), ``tau_mean`` and ``delta_tau`` (D -> values at those N),
        ``best_depth_by_n``, ``mean_tau_original_vs_updated`` and
        ``fraction_of_updates_that_change_the_ranking``.

    Examples
    --------
    >>> from bayes_eval.validation.prior_benefit import run, summary
    >>> s = summary(run(replicates=100, n_max=5, depths=(0, 2, 8), chunk=50, progress=False))
    >>> s["n"], s["delta_tau"][2]
    ([1, 2, 3, 5], [0.0907, 0.0474, 0.023, 0.0145])
    >>> s["best_depth_by_n"], s["mean_tau_original_vs_updated"]
    ({1: 8, 2: 8, 3: 8, 4: 2, 5: 2}, 0.8843)
    """
    picks = [n for n in (1, 2, 3, 5, 10, 20, 30) if n <= ds.sizes["n"]]
    best = ds["depth"].values[np.nanargmax(ds["tau_mean"].values, axis=0)]
    return {
        "n": picks,
        "tau_mean": {
            int(d): np.round(ds["tau_mean"].sel(depth=d, n=picks).values, 4).tolist()
            for d in ds["depth"].values
        },
        "delta_tau": {
            int(d): np.round(ds["delta_tau"].sel(depth=d, n=picks).values, 4).tolist()
            for d in ds["depth"].values
        },
        "best_depth_by_n": dict(zip(ds["n"].values.tolist(), best.tolist(), strict=True)),
        "mean_tau_original_vs_updated": round(float(np.nanmean(ds["tau_original_vs_updated"])), 4),
        "fraction_of_updates_that_change_the_ranking": round(
            float(np.mean(ds["tau_original_vs_updated"] < 1)), 4
        ),
    }


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Fig. 5: (a) tau between original and updated rankings, (b) tau vs N per D, (c) delta tau.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.prior_benefit.run`.
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
    >>> from bayes_eval.validation.prior_benefit import plot, run
    >>> ds = run(replicates=100, n_max=5, depths=(0, 2, 8), chunk=50, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "prior_benefit.png")
    ...     print(png.name, png.exists())
    prior_benefit.png True
    """
    plt = pyplot()

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    axes[0].hist(ds["tau_original_vs_updated"].values, bins=np.linspace(-1, 1, 29), color="0.5")
    axes[0].set_xlabel("Kendall tau, original vs updated")
    axes[0].set_title("a) how much the updates reorder")
    for d in ds["depth"].values:
        style = "--" if d == 0 else "-"
        axes[1].plot(ds["n"], ds["tau_mean"].sel(depth=d), style, label=f"D = {d}")
        axes[2].plot(ds["n"], ds["delta_tau"].sel(depth=d), style, label=f"D = {d}")
    axes[1].set_title("b) mean tau vs N")
    axes[2].set_title("c) tau(D) - tau(D = 0)")
    axes[2].axhline(0, color="k", lw=0.7)
    for ax in axes[1:]:
        ax.set_xlabel("N (trials of the updated model)")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, path)
