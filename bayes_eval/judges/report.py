"""Reports of judges fits (Vossler et al., "LLMs Judging LLMs: A Simplex Perspective"), the
numbers and the figure ``bayes-eval judges`` prints and writes.

A fit comes from :func:`bayes_eval.models.judges.fit_judges` (PyMC); this module reads it.
:func:`fit_report` summarises the posterior ranking and compares it with the truth when known
(Spearman correlation, rank-interval coverage) and, on request, with the frequentist baselines
of :mod:`bayes_eval.judges.baselines`; :func:`plot_fit` draws the ternary plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "fit_report",
    "mean_over_datasets",
    "numbered",
    "plot_fit",
    "sensitivity_table",
]


def numbered(path: str | Path, label: str, n: int) -> Path:
    """``path`` for one of ``n`` data sets: ``<stem>_<label><suffix>`` when ``n > 1``."""
    path = Path(path)
    return path if n == 1 else path.with_name(f"{path.stem}_{label}{path.suffix}")


def _baselines(data, seed: int) -> dict:
    from bayes_eval.judges import baselines as jb

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


def fit_report(label: str, data, fit, *, seconds: float, baselines: bool, seed: int = 0) -> dict:
    """A JSON-ready report of one fit of :func:`bayes_eval.models.judges.fit_judges` to
    ``data`` (a :class:`~bayes_eval.judges.data.JudgeData` labelled ``label``).

    Holds the fit's settings and convergence diagnostics and, per candidate, the posterior
    mean score with its 95% interval and the rank with its 95% rank credible interval; when
    the truth is known, the ``bayesian`` Spearman correlation and rank-interval coverage,
    and with ``baselines`` those of the simple average, single judges, the bootstrap and
    Bradley-Terry with ties (seeded by ``seed``).
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
    """Mean ``bayesian`` Spearman and coverage over several reports that all have a truth
    (e.g. the SummEval dimensions); None otherwise."""
    if len(reports) < 2 or not all("bayesian" in e for e in reports):
        return None
    return {
        k: float(np.mean([e["bayesian"][k] for e in reports])) for k in ("spearman", "coverage")
    }


def sensitivity_table(ds) -> dict[str, float]:
    """Spearman correlation with the base fit per setting, from
    :func:`bayes_eval.models.judges.judge_sensitivity`."""
    return {
        str(k): float(v)
        for k, v in zip(ds["setting"].values, ds["spearman_vs_base"].values, strict=True)
    }


#: Five score levels are collapsed to three for the ternary plot: {1, 2}, {3}, {4, 5}.
FIVE_TO_THREE = ([0, 1], [2], [3, 4])


def plot_fit(fit, data, path: str | Path, *, title: str | None = None) -> Path:
    """Ternary plot of a fit's posterior means (Vossler et al., Figures 2-4): each judge's
    confusion vertices ``theta[j, m]`` and the candidates' expected score distributions
    ``gamma[j, k] = sum_m pi[k, m] theta[j, m]`` inside them
    (:func:`bayes_eval.judges.simplex.plot_simplex`). Three levels are drawn as they are;
    five are collapsed to {1, 2}, {3}, {4, 5} (true and scored levels alike).

    Raises
    ------
    ValueError
        For a scale of other than 3 or 5 levels.
    """
    from bayes_eval.judges.simplex import plot_simplex

    post = fit["posterior"].to_dataset()
    theta = post["theta"].mean(("chain", "draw")).values  # (J, M, L)
    pi = post["pi"].mean(("chain", "draw")).values  # (K, M)
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
