"""The evaluations of the judges model of Vossler et al.

From "LLMs Judging LLMs: A Simplex Perspective": Table 1 on real data, the synthetic
self-preference experiment (App. E.3) and the sensitivity analysis (§5.4).

* :func:`run_table1`: MT-Bench (Table D.2 counts, shipped as ``mtbench_judges``; ground
  truth = the human order gpt-4 > claude-v1 > gpt-3.5-turbo > vicuna > alpaca > llama,
  inferred so that the paper's own Table 1 baselines, simple average 0.943 and single
  judge 0.971, are reproduced exactly) and SummEval (shipped as ``summeval_judges``; 4
  dimensions, truth = mean expert score): Spearman correlation with the true ranking and
  coverage of the 95% rank intervals for the Bayesian model (base ``omega = 0,
  beta_max = 5`` and integrated) and the baselines (simple average, single judge,
  bootstrap, Bradley-Terry with ties, PPI with 10% labels on SummEval).
* :func:`run_synthetic`: judges with known monotone confusion matrices, a self-preference
  injection (a judge raises its own family's score by one level with probability 0.8),
  repeated over seeds: Bayesian with the same-family exclusion, Bayesian without it, and
  the baselines.

Both return an ``xarray.Dataset`` over ``(estimator, metric)`` (and ``dataset``/``replicate``)
and have :func:`plot` / :func:`summary`, like the other studies in this package;
:func:`run_study` (``bayes-eval validate judges``) and :func:`run_synthetic_study`
(``validate judges-synthetic``) are the registry's entries, which also write NetCDF and PNG.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.judges import baselines as jb
from bayes_eval.judges.data import (
    JudgeData,
    from_count_table,
    from_scores,
    summeval,
    summeval_table,
)
from bayes_eval.ranking.ranks import rank
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import JudgesConfig, JudgesSyntheticConfig

__all__ = [
    "MTBENCH_TRUTH",
    "plot",
    "run_study",
    "run_synthetic",
    "run_synthetic_study",
    "run_table1",
    "summary",
    "synthetic_judges",
]

#: Human MT-Bench order (higher = better) used as ground truth for Table D.2.
MTBENCH_TRUTH = {
    "GPT-4": 6,
    "Claude v1": 5,
    "GPT-3.5 Turbo": 4,
    "Vicuna 13B v1.2": 3,
    "Alpaca 13B": 2,
    "Llama 13B": 1,
}
METHODS = (
    "bayes_base",
    "bayes_integrated",
    "bootstrap",
    "bradley_terry",
    "simple_average",
    "single_judge",
    "ppi_10pct",
)


def _metrics(data: JudgeData, fits: dict, seed: int, gold=None) -> dict[str, tuple[float, float]]:
    out = {}
    for name, fit in fits.items():
        r = fit["ranking"].to_dataset()
        cov = jb.rank_coverage(r["rank_lo"].values, r["rank_hi"].values, data.truth)
        out[name] = (jb.spearman(r["mu_mean"].values, data.truth), cov)
    boot = jb.bootstrap_rank_intervals(data, seed=seed)
    out["bootstrap"] = (
        jb.spearman(boot.scores, data.truth),
        jb.rank_coverage(boot.lo, boot.hi, data.truth),
    )
    bt = jb.bradley_terry_ties(data, seed=seed)
    out["bradley_terry"] = (
        jb.spearman(bt.scores, data.truth),
        jb.rank_coverage(bt.lo, bt.hi, data.truth),
    )
    out["simple_average"] = (
        jb.spearman(jb.simple_average(data), data.truth),
        jb.rank_coverage(boot.rank, boot.rank, data.truth),
    )
    single = jb.single_judge_scores(data)
    out["single_judge"] = (
        float(np.mean([jb.spearman(s, data.truth) for s in single])),
        float(np.mean([jb.rank_coverage(rank(s), rank(s), data.truth) for s in single])),
    )
    if gold is not None:
        ppi = jb.ppi_rank_intervals(data, gold, labelled_fraction=0.1, seed=seed)
        out["ppi_10pct"] = (
            jb.spearman(ppi.scores, data.truth),
            jb.rank_coverage(ppi.lo, ppi.hi, data.truth),
        )
    return out


def _summeval_gold(table, data: JudgeData) -> np.ndarray:
    d = table[table["dim"] == data.meta["dim"]]
    return (
        d.pivot_table(index="doc_id", columns="system", values="expert_mean")
        .reindex(columns=list(data.candidates))
        .sort_index()
        .to_numpy()
    )


def run_table1(
    mtbench: str | Path = "dataset:mtbench_judges",
    summeval_path: str | Path = "dataset:summeval_judges",
    *,
    settings=None,
    integrated: bool = True,
    progress: bool = False,
    seed: int = 0,
) -> xr.Dataset:
    """Table 1 rows for MT-Bench and SummEval (module docstring).

    ``mtbench`` is a count table in the layout of the shipped ``dataset:mtbench_judges``;
    ``summeval_path`` a SummEval table (:func:`bayes_eval.judges.data.summeval_table`); both
    default to the datasets shipped with the package.

    Parameters
    ----------
    mtbench : str or pathlib.Path, optional
        The MT-Bench count table, default ``"dataset:mtbench_judges"``.
    summeval_path : str or pathlib.Path, optional
        The SummEval table, default ``"dataset:summeval_judges"``.
    settings : bayes_eval.nuts.NutsSettings, optional
        NUTS settings (``bayes_eval.nuts.NutsSettings``), default None (the
        models' own, with ``seed`` and ``progress``).
    integrated : bool, optional
        Also fit the integrated model (hyperpriors on ``beta_max`` and ``omega``), default
        True.
    progress : bool, optional
        Show the samplers' progress when ``settings`` is None, default False.
    seed : int, optional
        Random seed of the fits (when ``settings`` is None) and the baselines, default 0.

    Returns
    -------
    xarray.Dataset
        ``value`` over ``(dataset, estimator, metric)`` (Spearman correlation with the true
        ranking and coverage of the rank intervals; NaN where a method does not apply) and
        ``fit_seconds`` over ``(dataset, fit)``; the samplers' diagnostics as the attribute
        ``diagnostics``.

    Examples
    --------
    Every dataset is fitted by NUTS, so the example is shown, not run::

        from bayes_eval.nuts import NutsSettings
        from bayes_eval.validation.judges_study import run_table1
        ds = run_table1(settings=NutsSettings(draws=500, tune=500))
        dict(ds.sizes)  # {'dataset': 5, 'estimator': 7, 'metric': 2, 'fit': 2}
    """
    from bayes_eval.models.judges import fit_judges
    from bayes_eval.nuts import NutsSettings

    settings = settings or NutsSettings(seed=seed, progress=progress)
    mt = from_count_table(mtbench, truth=MTBENCH_TRUTH)
    table = summeval_table(summeval_path)
    jobs = [("mtbench", mt, None)]
    for dim in ("coherence", "consistency", "fluency", "relevance"):
        d = summeval(summeval_path, dim)
        jobs.append((f"summeval_{dim}", d, _summeval_gold(table, d)))
    values = np.full((len(jobs), len(METHODS), 2), np.nan)
    seconds = np.full((len(jobs), 2), np.nan)
    diag = {}
    for i, (name, data, gold) in enumerate(jobs):
        fits = {}
        for j, (label, integ) in enumerate((("bayes_base", False), ("bayes_integrated", True))):
            if integ and not integrated:
                continue
            t = time.perf_counter()
            fits[label] = fit_judges(data, integrated=integ, nuts=settings)
            seconds[i, j] = time.perf_counter() - t
            keys = ("max_rhat", "min_ess_bulk", "divergences")
            diag[f"{name}/{label}"] = {k: fits[label].attrs[k] for k in keys}
        for m, (rho, cov) in _metrics(data, fits, seed, gold).items():
            values[i, METHODS.index(m)] = (rho, cov)
    ds = xr.Dataset(
        {
            "value": (("dataset", "estimator", "metric"), values),
            "fit_seconds": (("dataset", "fit"), seconds),
        },
        coords={
            "dataset": [j[0] for j in jobs],
            "estimator": list(METHODS),
            "metric": ["spearman", "coverage"],
            "fit": ["base", "integrated"],
        },
        attrs={"study": "judges-table1", "diagnostics": str(diag)},
    )
    return ds


def synthetic_judges(
    *,
    K: int = 8,
    J: int = 3,
    M: int = 3,
    n: int = 400,
    self_preference: float = 0.8,
    beta_max: float = 10.0,
    seed: int = 0,
) -> JudgeData:
    """Scores from known monotone confusion matrices with a self-preference injection.

    Candidates' prevalences ``pi_k ~ Dirichlet(1.5, ...)``; a shared true level per
    (question, candidate); judge ``j`` confusion matrix = a stochastically ordered matrix drawn
    like the DAG prior with ``beta_max`` (numpy, no PyMC); judge ``j`` belongs to the family of
    candidate ``j`` (``j < J``) and raises that candidate's score by one level with
    probability ``self_preference``. Truth = expected true score ``sum_m m pi_{k,m}``.

    Parameters
    ----------
    K : int, optional
        Candidates, default 8.
    J : int, optional
        Judges (judge ``j`` favours candidate ``j``; at most ``K``), default 3.
    M : int, optional
        Score levels, default 3.
    n : int, optional
        Questions, default 400.
    self_preference : float, optional
        Probability that a judge raises its own family's score by one level, default 0.8.
    beta_max : float, optional
        Strength of the confusion matrices' diagonal, default 10.
    seed : int, optional
        Random seed, default 0.

    Returns
    -------
    JudgeData
        The scores (levels 1..M) with ``same_family`` and ``truth``; ``meta`` holds the
        confusion matrices ``theta`` ``(J, M, M)`` and the prevalences ``pi`` ``(K, M)``.

    Examples
    --------
    >>> from bayes_eval.validation.judges_study import synthetic_judges
    >>> data = synthetic_judges(K=4, J=2, M=3, n=50, seed=0)
    >>> type(data).__name__, list(data.candidates), list(data.judges)
    ('JudgeData', ['cand0', 'cand1', 'cand2', 'cand3'], ['judge0', 'judge1'])
    >>> data.truth.round(4).tolist(), data.meta["theta"].shape
    ([1.8423, 1.4073, 2.6654, 1.6702], (2, 3, 3))
    """
    if not 1 <= J <= K:
        raise ValueError(
            f"J is {J} judges for K = {K} candidates; expected 1 <= J <= K (judge j favours "
            "candidate j's family)."
        )
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.full(M, 1.5), size=K)
    theta = np.empty((J, M, M))
    for j in range(J):
        rho = rng.beta(1, 1)
        boost = np.eye(M)
        row = rng.dirichlet(1 + rho * beta_max * boost[0])
        theta[j, 0] = row
        for m in range(M - 1):
            nxt = np.zeros(M)
            for a in range(M):
                if a == M - 1:
                    nxt[a] += row[a]
                    continue
                w = rng.dirichlet(1 + rho * beta_max * boost[m + 1][a:])
                nxt[a:] += row[a] * w
            theta[j, m + 1] = row = nxt
    true = np.stack([rng.choice(M, size=n, p=pi[k]) for k in range(K)], axis=1)  # (n, K)
    scores = np.empty((n, J, K))
    for j in range(J):
        u = rng.random((n, K))
        cdf = np.cumsum(theta[j][true], axis=-1)  # (n, K, M)
        s = (u[..., None] > cdf).sum(-1)
        s = np.minimum(s, M - 1)
        if j < K:
            bump = rng.random(n) < self_preference
            s[:, j] = np.where(bump, np.minimum(s[:, j] + 1, M - 1), s[:, j])
        scores[:, j] = s + 1
    fam = np.zeros((J, K), bool)
    fam[np.arange(J), np.arange(J)] = True
    truth = pi @ np.arange(1, M + 1)
    data = from_scores(
        scores,
        candidates=[f"cand{k}" for k in range(K)],
        judges=[f"judge{j}" for j in range(J)],
        n_levels=M,
        same_family=fam,
        truth=truth,
    )
    return JudgeData(**{**data.__dict__, "meta": {"theta": theta, "pi": pi}})


def run_synthetic(
    *, replicates: int = 10, settings=None, progress: bool = False, seed: int = 0, **kwargs
) -> xr.Dataset:
    """Appendix E.3's protocol on synthetic judges (module docstring).

    Parameters
    ----------
    replicates : int, optional
        Synthetic data sets, default 10.
    settings : bayes_eval.nuts.NutsSettings, optional
        NUTS settings (``bayes_eval.nuts.NutsSettings``), default None (4 chains x
        1000 draws + 1000 tuning steps, with ``seed``).
    progress : bool, optional
        Show a progress bar over the replicates, default False.
    seed : int, optional
        Random seed: replicate ``r`` uses data seed ``1000 seed + r``, default 0.
    **kwargs
        Options of :func:`bayes_eval.validation.judges_study.synthetic_judges` (``K``, ``J``, ``M``,
        ``n``, ``self_preference``, ``beta_max``).

    Returns
    -------
    xarray.Dataset
        ``value`` over ``(replicate, estimator, metric)``: the Spearman correlation with
        the true ranking and the coverage of the rank intervals of each method.

    Examples
    --------
    Every replicate is fitted twice by NUTS, so the example is shown, not run::

        from bayes_eval.nuts import NutsSettings
        from bayes_eval.validation.judges_study import run_synthetic
        settings = NutsSettings(draws=20, tune=20, chains=1, sampler="pymc", warn=False)
        ds = run_synthetic(replicates=1, settings=settings, K=3, J=2, M=2, n=20)
        dict(ds.sizes)  # {'replicate': 1, 'estimator': 6, 'metric': 2}
    """
    from bayes_eval.models.judges import fit_judges, judge_model
    from bayes_eval.nuts import NutsSettings

    settings = settings or NutsSettings(draws=1000, tune=1000, chains=4, seed=seed)
    names = (
        "bayes_adjusted",
        "bayes_unadjusted",
        "bootstrap",
        "bradley_terry",
        "simple_average",
        "single_judge",
    )
    values = np.full((replicates, len(names), 2), np.nan)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=replicates, desc="synthetic replicates")
    models = {}
    for r in range(replicates):
        data = synthetic_judges(seed=seed * 1000 + r, **kwargs)
        fits = {}
        for label, excl in (("bayes_adjusted", True), ("bayes_unadjusted", False)):
            key = excl
            if key not in models:  # one compiled graph per pair set
                models[key] = judge_model(data, exclude_same_family=excl)
            fits[label] = fit_judges(
                data, exclude_same_family=excl, nuts=settings, model=models[key]
            )
        for m, (rho, cov) in _metrics(data, fits, seed + r).items():
            values[r, names.index(m)] = (rho, cov)
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    return xr.Dataset(
        {"value": (("replicate", "estimator", "metric"), values)},
        coords={
            "replicate": np.arange(replicates),
            "estimator": list(names),
            "metric": ["spearman", "coverage"],
        },
        attrs={"study": "judges-synthetic", **{k: str(v) for k, v in kwargs.items()}},
    )


def _settings(config, progress: bool):
    from bayes_eval.nuts import NutsSettings

    return NutsSettings(
        draws=config.draws,
        tune=config.tune,
        chains=config.chains,
        seed=config.seed,
        progress=progress,
    )


def run_study(config: JudgesConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Table 1 (:func:`run_table1`) with ``config``; writes ``OUT/judges.nc`` and ``.png``.

    Parameters
    ----------
    config : JudgesConfig
        The study's options (``bayes_eval.validation.study_configs.JudgesConfig``): the
        tables, whether to fit the integrated model, and the NUTS settings.
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show the samplers' progress, default True.

    Returns
    -------
    StudyResult
        The dataset, the summary of :func:`bayes_eval.validation.judges_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    Every dataset is fitted by NUTS, so the example is shown, not run::

        from bayes_eval.validation.judges_study import run_study
        from bayes_eval.validation.study_configs import JudgesConfig
        result = run_study(JudgesConfig(draws=500, tune=500), "out")
        sorted(result.files)  # ['netcdf', 'plot']
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run_table1(
        config.mtbench,
        config.summeval,
        settings=_settings(config, progress),
        integrated=config.integrated,
        seed=config.seed,
    )
    return finish(ds, out, "judges", plot, summary(ds), start)


def run_synthetic_study(
    config: JudgesSyntheticConfig, out: str | Path, *, progress: bool = True
) -> StudyResult:
    """Run App. E.3 (:func:`run_synthetic`) with ``config``.

    Writes ``OUT/judges_synthetic.nc`` and ``.png``.

    Parameters
    ----------
    config : JudgesSyntheticConfig
        The study's options (``bayes_eval.validation.study_configs.JudgesSyntheticConfig``):
        replicates, the synthetic judges' sizes and the NUTS settings.
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show progress, default True.

    Returns
    -------
    StudyResult
        The dataset, the summary of :func:`bayes_eval.validation.judges_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    Every replicate is fitted twice by NUTS, so the example is shown, not run::

        from bayes_eval.validation.judges_study import run_synthetic_study
        from bayes_eval.validation.study_configs import JudgesSyntheticConfig
        config = JudgesSyntheticConfig(replicates=2, n_questions=50, draws=200, tune=200)
        result = run_synthetic_study(config, "out")
        sorted(result.files)  # ['netcdf', 'plot']
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run_synthetic(
        replicates=config.replicates,
        settings=_settings(config, progress),
        progress=progress,
        seed=config.seed,
        n=config.n_questions,
        K=config.candidates,
        J=config.judges,
        M=config.levels,
        self_preference=config.self_preference,
        beta_max=config.beta_max,
    )
    return finish(ds, out, "judges_synthetic", plot, summary(ds), start)


def summary(ds: xr.Dataset) -> dict:
    """Mean Spearman and coverage per method (and dataset / SummEval mean).

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.judges_study.run_table1` or
        :func:`bayes_eval.validation.judges_study.run_synthetic`.

    Returns
    -------
    dict
        Synthetic: per method, ``spearman`` and ``coverage`` as [mean, standard error] over
        the replicates. Table 1: per dataset and method, [Spearman, coverage], the same
        averaged over the SummEval dimensions (``summeval_mean``), ``fit_seconds`` and
        ``diagnostics``.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> values = np.array([[[0.9, 1.0], [0.7, 0.5]], [[0.8, 1.0], [0.5, 0.5]]])
    >>> ds = xr.Dataset(
    ...     {"value": (("replicate", "estimator", "metric"), values)},
    ...     coords={"estimator": ["bayes_adjusted", "simple_average"],
    ...             "metric": ["spearman", "coverage"]},
    ...     attrs={"study": "judges-synthetic"},
    ... )
    >>> from bayes_eval.validation.judges_study import summary
    >>> summary(ds)
    {'bayes_adjusted': {'spearman': [0.85, 0.05], 'coverage': [1.0, 0.0]},
     'simple_average': {'spearman': [0.6, 0.1], 'coverage': [0.5, 0.0]}}
    """
    if ds.attrs.get("study") == "judges-synthetic":
        m = ds["value"].mean("replicate")
        se = ds["value"].std("replicate", ddof=1) / np.sqrt(ds.sizes["replicate"])
        out = {}
        for meth in ds["estimator"].values:
            row = {}
            for metric in ("spearman", "coverage"):
                sel = {"estimator": meth, "metric": metric}
                row[metric] = [round(float(m.sel(sel)), 3), round(float(se.sel(sel)), 3)]
            out[str(meth)] = row
        return out
    out = {}

    def rounded(arr) -> list[float]:
        return [round(float(v), 3) for v in np.ravel(arr)]

    methods = [str(m) for m in ds["estimator"].values]
    for d in ds["dataset"].values:
        out[str(d)] = {m: rounded(ds["value"].sel(dataset=d, estimator=m).values) for m in methods}
    se_sets = [d for d in ds["dataset"].values if str(d).startswith("summeval")]
    se = ds["value"].sel(dataset=se_sets).mean("dataset")
    out["summeval_mean"] = {m: rounded(se.sel(estimator=m).values) for m in methods}
    out["fit_seconds"] = {
        str(d): rounded(ds["fit_seconds"].sel(dataset=d).values) for d in ds["dataset"].values
    }
    out["diagnostics"] = ds.attrs.get("diagnostics", "")
    return out


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Grouped bars of Spearman and coverage per method.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.judges_study.run_table1` or
        :func:`bayes_eval.validation.judges_study.run_synthetic` (averaged over the replicates).
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
    >>> import xarray as xr
    >>> values = np.array([[[0.9, 1.0], [0.7, 0.5]], [[0.8, 1.0], [0.5, 0.5]]])
    >>> ds = xr.Dataset(
    ...     {"value": (("replicate", "estimator", "metric"), values)},
    ...     coords={"estimator": ["bayes_adjusted", "simple_average"],
    ...             "metric": ["spearman", "coverage"]},
    ...     attrs={"study": "judges-synthetic"},
    ... )
    >>> from bayes_eval.validation.judges_study import plot
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "judges_synthetic.png")
    ...     print(png.name, png.exists())
    judges_synthetic.png True
    """
    from bayes_eval.plotting.figure import pyplot, save_png

    plt = pyplot()
    if ds.attrs.get("study") == "judges-synthetic":
        vals = ds["value"].mean("replicate")
        groups = ["synthetic"]
        vals = vals.expand_dims(dataset=groups)
    else:
        vals = ds["value"]
        groups = [str(d) for d in ds["dataset"].values]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    methods = [str(m) for m in vals["estimator"].values]
    width = 0.8 / len(methods)
    for ax, metric in zip(axes, ("spearman", "coverage"), strict=True):
        for i, meth in enumerate(methods):
            v = vals.sel(estimator=meth, metric=metric).values
            ax.bar(np.arange(len(groups)) + i * width, v, width, label=meth)
        ax.set_xticks(np.arange(len(groups)) + 0.4 - width / 2, groups, rotation=20, ha="right")
        ax.set_title(metric)
        ax.axhline(0.95 if metric == "coverage" else 1.0, color="0.5", lw=0.8, ls="--")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save_png(fig, path)
