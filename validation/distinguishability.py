"""Study ``distinguishability``: how many trials separate LLM10 and LLM9.

From Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
App. D (Fig. 6): LLM10 and LLM9 have true pi-bar 0.6213 and 0.608.

* Simulated: the probability that Bayes@N orders LLM10 above LLM9, and the mean ``|z|`` of §2.5,
  for N = 1..N_max over independent replicates (the paper: 83.7% and z ~ 1.14 at N = 80).
* Expected: the z of the true gap with the posterior sd at the expected counts
  (nu = N pi + 1), and the N where it reaches 1.645 and 1.96 (paper: about 199 and 285).
* Planner: :func:`bayes_eval.ranking.sample_size.trials_to_separate` applied to one simulated
  80-trial matrix, the number a practitioner would get from their data.

The per-question probabilities of the mimics are generated (the paper does not list them),
so the numbers differ from the paper's; the study reports both.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.ranking.sample_size import trials_to_separate
from bayes_eval.synthetic.biased_coin import mimic_probabilities, simulate_results
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import DistinguishabilityConfig

__all__ = ["plot", "run", "run_study", "summary"]

PAPER = {"p_correct_at_80": 0.837, "z_at_80": 1.14, "n_for_1.645": 199, "n_for_1.96": 285}


def _z(c_a, c_b, n, m):
    """|z| of §2.5 from per-question successes (binary, uniform prior); arrays (..., M)."""
    t = n + 2.0
    mu_a = ((c_a + 1) / t).mean(-1)
    mu_b = ((c_b + 1) / t).mean(-1)
    var_a = ((c_a + 1) * (n - c_a + 1) / (t**2 * (t + 1))).sum(-1) / m**2
    var_b = ((c_b + 1) * (n - c_b + 1) / (t**2 * (t + 1))).sum(-1) / m**2
    return (mu_a - mu_b) / np.sqrt(var_a + var_b)


def expected_z(p_a: np.ndarray, p_b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The z of the true gap with the posterior sds at the expected counts ``N pi``."""
    n = np.asarray(n, dtype=float)[:, None]
    return np.abs(_z(n * p_a[None], n * p_b[None], n, p_a.size))


def run(
    *,
    replicates: int = 10_000,
    n_max: int = 400,
    chunk: int = 200,
    seed: int = 0,
    progress: bool = True,
) -> xr.Dataset:
    """Simulate LLM10 vs LLM9 for N = 1..n_max.

    Parameters
    ----------
    replicates : int, optional
        Simulated evaluations, default 10000.
    n_max : int, optional
        Largest N, trials per question, default 400.
    chunk : int, optional
        Replicates simulated at once (memory), default 200.
    seed : int, optional
        Random seed, default 0.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``p_correct`` (probability that Bayes@N orders LLM10 above LLM9, ties counting one
        half), ``z_mean`` (mean ``|z|``) and ``z_expected`` over ``n``; the attributes hold
        the true pi-bars, the first N where the expected z reaches 1.645 and 1.96, and the
        planner's answers on one 80-trial matrix.

    Examples
    --------
    >>> from bayes_eval.validation.distinguishability import run
    >>> ds = run(replicates=50, n_max=20, chunk=25, progress=False)
    >>> dict(ds.sizes), list(ds.data_vars)
    ({'n': 20}, ['p_correct', 'z_mean', 'z_expected'])
    >>> ds["p_correct"].sel(n=20).round(4).item(), ds["z_expected"].sel(n=20).round(4).item()
    (0.6, 0.4928)
    >>> ds.attrs["n_expected_z_1.645"], ds.attrs["planner_n_for_1.645"]
    ('none up to N = 20', "beyond the planner's range")
    """
    p = mimic_probabilities(seed=seed)
    p10, p9 = p[9], p[8]
    m = p.shape[1]
    rng = np.random.default_rng(seed + 11)
    n = np.arange(1, n_max + 1)
    correct = np.zeros(n_max)
    z_sum = np.zeros(n_max)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=replicates, desc="distinguishability replicates", unit="rep")
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        # one draw per replicate, in replicate order: the results do not depend on ``chunk``
        u = rng.random((b, 2, m, n_max))
        c10 = np.cumsum(u[:, 0] < p10[None, :, None], axis=-1).transpose(0, 2, 1)
        c9 = np.cumsum(u[:, 1] < p9[None, :, None], axis=-1).transpose(0, 2, 1)
        t10, t9 = c10.sum(-1), c9.sum(-1)
        correct += ((t10 > t9) + 0.5 * (t10 == t9)).sum(0)
        z_sum += np.abs(_z(c10.astype(float), c9.astype(float), n[None, :, None], m)).sum(0)
        if bar is not None:
            bar.update(b)
    if bar is not None:
        bar.close()
    z_exp = expected_z(p10, p9, n)
    one = simulate_results(p[[9, 8]], 80, seed=seed + 12)
    plan_95 = trials_to_separate(one[0], one[1], z_target=1.645)
    plan_975 = trials_to_separate(one[0], one[1], z_target=1.96)

    def first(target):  # an N, or words when no N up to n_max reaches the target
        hit = np.flatnonzero(z_exp >= target)
        return int(n[hit[0]]) if hit.size else f"none up to N = {n_max}"

    def needed(plan):
        return plan.n_required if plan.n_required is not None else "beyond the planner's range"

    return xr.Dataset(
        {
            "p_correct": ("n", correct / replicates),
            "z_mean": ("n", z_sum / replicates),
            "z_expected": ("n", z_exp),
        },
        coords={"n": n},
        attrs={
            "replicates": replicates,
            "seed": seed,
            "true_pi_bar_llm10": float(p10.mean()),
            "true_pi_bar_llm9": float(p9.mean()),
            "n_expected_z_1.645": first(1.645),
            "n_expected_z_1.96": first(1.96),
            "planner_z_at_80": plan_95.z_now,
            "planner_n_for_1.645": needed(plan_95),
            "planner_n_for_1.96": needed(plan_975),
        },
    )


def run_study(
    config: DistinguishabilityConfig, out: str | Path, *, progress: bool = True
) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/distinguishability.nc`` and ``.png``.

    Parameters
    ----------
    config : DistinguishabilityConfig
        The study's options (``bayes_eval.validation.study_configs.DistinguishabilityConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.distinguishability.run`,
        the summary of :func:`bayes_eval.validation.distinguishability.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.distinguishability import run_study
    >>> from bayes_eval.validation.study_configs import DistinguishabilityConfig
    >>> config = DistinguishabilityConfig(replicates=50, n_max=20)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] distinguishability.nc
    >>> result.summary["p_correct"]
    {20: 0.6}
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(replicates=config.replicates, n_max=config.n_max, seed=config.seed, progress=progress)
    return finish(ds, out, "distinguishability", plot, summary(ds), start)


def summary(ds: xr.Dataset) -> dict:
    """JSON-friendly summary of the study, beside the paper's numbers.

    P(correct order), mean ``|z|`` and expected z at N = 80, 199 and 285 (those up to the
    largest N, else at the largest N), the dataset's attributes, and the paper's numbers.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.distinguishability.run`.

    Returns
    -------
    dict
        ``p_correct``, ``z_mean`` and ``z_expected`` (N -> value), the attributes of ``ds``
        (floats rounded) and ``paper``.

    Examples
    --------
    >>> from bayes_eval.validation.distinguishability import run, summary
    >>> s = summary(run(replicates=50, n_max=20, chunk=25, progress=False))
    >>> s["p_correct"], s["z_mean"], s["z_expected"]
    ({20: 0.6}, {20: 0.68}, {20: 0.493})
    >>> s["n_expected_z_1.96"], s["paper"]["n_for_1.96"]
    ('none up to N = 20', 285)
    """
    last = int(ds["n"].values[-1])
    at = {n: n for n in (80, 199, 285) if n <= last} or {last: last}  # short: at its largest N
    return {
        "p_correct": {n: round(float(ds["p_correct"].sel(n=n)), 4) for n in at},
        "z_mean": {n: round(float(ds["z_mean"].sel(n=n)), 3) for n in at},
        "z_expected": {n: round(float(ds["z_expected"].sel(n=n)), 3) for n in at},
        **{k: (round(v, 4) if isinstance(v, float) else v) for k, v in ds.attrs.items()},
        "paper": PAPER,
    }


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Fig. 6: probability of the correct order, and z, versus N.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.distinguishability.run`.
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
    >>> from bayes_eval.validation.distinguishability import plot, run
    >>> ds = run(replicates=50, n_max=20, chunk=25, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "distinguishability.png")
    ...     print(png.name, png.exists())
    distinguishability.png True
    """
    plt = pyplot()

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].plot(ds["n"], ds["p_correct"])
    axes[0].set_ylabel("P(LLM10 ranked above LLM9)")
    axes[1].plot(ds["n"], ds["z_mean"], label="mean |z| (simulated)")
    axes[1].plot(ds["n"], ds["z_expected"], "--", label="z at expected counts")
    for z in (1.645, 1.96):
        axes[1].axhline(z, color="0.6", lw=0.8)
    axes[1].set_ylabel("|z|")
    axes[1].legend(fontsize=8)
    for ax in axes:
        ax.set_xlabel("N trials")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_png(fig, path)
