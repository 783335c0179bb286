"""Reports of judges fits: the numbers and the figure ``bayes-eval judges`` prints and writes.

The judges model is that of Vossler et al., "LLMs Judging LLMs: A Simplex Perspective".
A fit comes from :func:`bayes_eval.models.judges.fit_judges` (PyMC); this module reads it.
:func:`fit_report` summarises the posterior ranking and compares it with the truth when known
(Spearman correlation, rank-interval coverage) and, on request, with the frequentist baselines
of :mod:`bayes_eval.judges.baselines`; :func:`plot_fit` draws the ternary plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import xarray as xr

    from bayes_eval.judges.data import JudgeData

__all__ = [
    "fit_report",
    "mean_over_datasets",
    "numbered",
    "plot_fit",
    "sensitivity_table",
]


def numbered(path: str | Path, label: str, n: int) -> Path:
    """``path`` for one of ``n`` data sets: ``<stem>_<label><suffix>`` when ``n > 1``.

    Parameters
    ----------
    path : str or pathlib.Path
        The output path of a single data set.
    label : str
        Label of the data set (e.g. a SummEval dimension).
    n : int
        Number of data sets written.

    Returns
    -------
    pathlib.Path
        ``path`` itself when ``n == 1``, else ``path`` with ``_<label>`` added to its stem.

    Examples
    --------
    >>> from bayes_eval.judges.report import numbered
    >>> numbered("out/judges.png", "coherence", 4).as_posix()
    'out/judges_coherence.png'
    >>> numbered("out/judges.png", "all", 1).as_posix()
    'out/judges.png'
    """
    path = Path(path)
    return path if n == 1 else path.with_name(f"{path.stem}_{label}{path.suffix}")


def _baselines(data: JudgeData, seed: int) -> dict:
    from bayes_eval.judges import baselines as jb

    assert data.truth is not None  # fit_report compares with the truth only when it is known
    boot = jb.bootstrap_rank_intervals(data, seed=seed)
    bt = jb.bradley_terry_ties(data, seed=seed)
    single = jb.single_judge_scores(data)
    avg = jb.simple_average(data)
    return {
        "simple_average": {"spearman": jb.spearman(avg, data.truth)},
        "single_judge": {
            "spearman": float(np.nanmean([jb.spearman(s, data.truth) for s in single]))
        },
        "bootstrap": {
            "spearman": jb.spearman(boot.scores, data.truth),
            "coverage": jb.rank_coverage(boot.lo, boot.hi, data.truth),
        },
        "bradley_terry": {
            "spearman": jb.spearman(bt.scores, data.truth),
            "coverage": jb.rank_coverage(bt.lo, bt.hi, data.truth),
        },
    }


def fit_report(
    label: str, data: JudgeData, fit: xr.DataTree, *, seconds: float, baselines: bool, seed: int = 0
) -> dict:
    """A JSON-ready report of one fit of :func:`bayes_eval.models.judges.fit_judges`.

    The fit is to ``data`` (a :class:`~bayes_eval.judges.data.JudgeData` labelled ``label``).
    The report holds the fit's settings and convergence diagnostics and, per candidate, the
    posterior mean score with its 95% interval and the rank with its 95% rank credible interval;
    when the truth is known, the ``bayesian`` Spearman correlation and rank-interval coverage,
    and with ``baselines`` those of the simple average, single judges, the bootstrap and
    Bradley-Terry with ties (seeded by ``seed``).

    Parameters
    ----------
    label : str
        Label of the data set in the report.
    data : bayes_eval.judges.data.JudgeData
        The data the model was fitted to.
    fit : xarray.DataTree
        The result of :func:`bayes_eval.models.judges.fit_judges` (its ``ranking`` group and
        its attributes are read).
    seconds : float
        Wall-clock time of the fit, reported rounded to 0.1.
    baselines : bool
        Add the frequentist baselines (when the truth is known).
    seed : int, optional
        Seed of the baselines' bootstraps, default 0.

    Returns
    -------
    dict
        ``dataset``, ``seconds``, ``settings``, ``diagnostics``, ``candidates`` and, with a
        truth, ``bayesian`` (and ``baselines``).

    Examples
    --------
    A stand-in for a fit (the ``ranking`` group and the attributes that
    :func:`bayes_eval.models.judges.fit_judges` writes):

    >>> import pandas as pd
    >>> import xarray as xr
    >>> from bayes_eval.judges.data import from_count_table
    >>> from bayes_eval.judges.report import fit_report
    >>> table = pd.DataFrame({"candidate": ["a", "a", "b", "b"], "judge": ["j"] * 4,
    ...                       "score": [1, 2, 1, 2], "count": [3, 1, 1, 3]})
    >>> data = from_count_table(table, truth={"a": 1.0, "b": 2.0})
    >>> ranking = xr.Dataset({"mu_mean": ("candidate", [1.3, 1.7]),
    ...     "mu_lo": ("candidate", [1.1, 1.5]), "mu_hi": ("candidate", [1.5, 1.9]),
    ...     "rank": ("candidate", [2, 1]), "rank_lo": ("candidate", [2, 1]),
    ...     "rank_hi": ("candidate", [2, 1])})
    >>> fit = xr.DataTree.from_dict({"ranking": ranking})
    >>> fit.attrs.update(omega=0.0, beta_max=5.0, exclude_same_family=1, max_rhat=1.0,
    ...                  min_ess_bulk=900.0, divergences=0, converged=True)
    >>> report = fit_report("toy", data, fit, seconds=2.0, baselines=False)
    >>> report["candidates"][0]
    {'candidate': 'a', 'mu': 1.3, 'mu_interval': [1.1, 1.5], 'rank': 2, 'rank_interval': [2, 2]}
    >>> report["bayesian"]["coverage"]
    1.0
    """
    from bayes_eval.judges import baselines as jb

    r = fit["ranking"].to_dataset()
    entry = {
        "dataset": label,
        "seconds": round(seconds, 1),
        "settings": {k: fit.attrs[k] for k in ("omega", "beta_max", "exclude_same_family")},
        "diagnostics": {
            k: fit.attrs[k] for k in ("max_rhat", "min_ess_bulk", "divergences", "converged")
        },
        "candidates": [
            {
                "candidate": c,
                "mu": float(r["mu_mean"][i]),
                "mu_interval": [float(r["mu_lo"][i]), float(r["mu_hi"][i])],
                "rank": int(r["rank"][i]),
                "rank_interval": [int(r["rank_lo"][i]), int(r["rank_hi"][i])],
            }
            for i, c in enumerate(data.candidates)
        ],
    }
    if data.truth is not None:
        entry["bayesian"] = {
            "spearman": jb.spearman(r["mu_mean"].values, data.truth),
            "coverage": jb.rank_coverage(r["rank_lo"].values, r["rank_hi"].values, data.truth),
        }
        if baselines:
            entry["baselines"] = _baselines(data, seed)
    return entry


def mean_over_datasets(reports: Sequence[dict]) -> dict | None:
    """Mean ``bayesian`` Spearman and coverage over several reports that all have a truth.

    The reports are e.g. those of the SummEval dimensions; None otherwise.

    Parameters
    ----------
    reports : sequence of dict
        Reports of :func:`fit_report`.

    Returns
    -------
    dict or None
        The mean ``spearman`` and ``coverage``; ``None`` for fewer than two reports or
        when one has no truth.

    Examples
    --------
    >>> from bayes_eval.judges.report import mean_over_datasets
    >>> reports = [{"bayesian": {"spearman": 1.0, "coverage": 1.0}},
    ...            {"bayesian": {"spearman": 0.5, "coverage": 0.5}}]
    >>> mean_over_datasets(reports)
    {'spearman': 0.75, 'coverage': 0.75}
    >>> mean_over_datasets(reports[:1]) is None
    True
    """
    if len(reports) < 2 or not all("bayesian" in e for e in reports):
        return None
    return {
        k: float(np.mean([e["bayesian"][k] for e in reports])) for k in ("spearman", "coverage")
    }


def sensitivity_table(ds: xr.Dataset) -> dict[str, float]:
    """Spearman correlation with the base fit per setting of a sensitivity analysis.

    The analysis is that of :func:`bayes_eval.models.judges.judge_sensitivity`.

    Parameters
    ----------
    ds : xarray.Dataset
        The result of :func:`bayes_eval.models.judges.judge_sensitivity` (its
        ``spearman_vs_base`` over ``setting`` is read).

    Returns
    -------
    dict of str to float
        The Spearman correlation with the base fit of each setting.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayes_eval.judges.report import sensitivity_table
    >>> ds = xr.Dataset({"spearman_vs_base": ("setting", [1.0, 0.9])},
    ...                 coords={"setting": ["omega=0", "omega=8"]})
    >>> sensitivity_table(ds)
    {'omega=0': 1.0, 'omega=8': 0.9}
    """
    return {
        str(k): float(v)
        for k, v in zip(ds["setting"].values, ds["spearman_vs_base"].values, strict=True)
    }


#: Five score levels are collapsed to three for the ternary plot: {1, 2}, {3}, {4, 5}.
FIVE_TO_THREE = ([0, 1], [2], [3, 4])


def plot_fit(
    fit: xr.DataTree, data: JudgeData, path: str | Path, *, title: str | None = None
) -> Path:
    """Ternary plot of a fit's posterior means (Vossler et al., Figures 2-4).

    It draws each judge's confusion vertices ``theta[j, m]`` and the candidates' expected
    score distributions ``gamma[j, k] = sum_m pi[k, m] theta[j, m]`` inside them
    (:func:`bayes_eval.judges.simplex.plot_simplex`). Three levels are drawn as they are;
    five are collapsed to {1, 2}, {3}, {4, 5} (true and scored levels alike).

    Parameters
    ----------
    fit : xarray.DataTree
        The result of :func:`bayes_eval.models.judges.fit_judges` (the posterior of
        ``theta`` and ``pi`` is read).
    data : bayes_eval.judges.data.JudgeData
        The data the model was fitted to (names of the candidates and judges).
    path : str or pathlib.Path
        Where to write the PNG.
    title : str, optional
        Title of the figure.

    Returns
    -------
    pathlib.Path
        The path of the PNG written.

    Raises
    ------
    ValueError
        For a scale of other than 3 or 5 levels.

    Examples
    --------
    A stand-in for a fit: one draw of ``theta`` (judge, true, assigned) and ``pi``
    (candidate, true) on three levels.

    >>> import tempfile
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.judges.data import from_scores
    >>> from bayes_eval.judges.report import plot_fit
    >>> rng = np.random.default_rng(0)
    >>> data = from_scores(rng.integers(1, 4, (5, 1, 2)), candidates=["a", "b"],
    ...                    judges=["j"], n_levels=3)
    >>> theta = rng.dirichlet(np.ones(3), (1, 1, 1, 3))  # (chain, draw, judge, m, s)
    >>> pi = rng.dirichlet(np.ones(3), (1, 1, 2))  # (chain, draw, candidate, m)
    >>> post = xr.Dataset({"theta": (("chain", "draw", "judge", "m", "s"), theta),
    ...                    "pi": (("chain", "draw", "candidate", "m"), pi)})
    >>> fit = xr.DataTree.from_dict({"posterior": post})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_fit(fit, data, folder + "/judges.png")
    ...     png.name, png.is_file()
    ('judges.png', True)
    """
    from bayes_eval.judges.simplex import plot_simplex

    post = fit["posterior"].to_dataset()
    theta = post["theta"].mean(("chain", "draw")).values  # (J, M, L)
    pi = post["pi"].mean(("chain", "draw")).values  # (K, M)
    levels: tuple[str, ...]
    if theta.shape[1:] == (5, 5):
        groups = FIVE_TO_THREE
        theta = np.stack(
            [np.stack([theta[:, g].mean(1)[:, h].sum(-1) for h in groups], -1) for g in groups], 1
        )
        pi = np.stack([pi[:, g].sum(-1) for g in groups], -1)
        levels = ("1-2", "3", "4-5")
    elif theta.shape[1:] == (3, 3):
        levels = tuple(data.assigned_levels)
    else:
        raise ValueError("the simplex plot needs 3 levels, or 5 levels (collapsed to 3).")
    gamma = np.einsum("km,jms->jks", pi, theta)
    return plot_simplex(
        theta,
        gamma,
        path,
        candidates=data.candidates,
        judges=data.judges,
        levels=levels,
        title=title,
    )
