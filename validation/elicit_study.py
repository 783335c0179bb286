"""Study ``elicit``: from a stated accuracy interval to a prior, and what it implies.

``bayes-eval validate elicit --lo 0.3 --hi 0.6 --prob 0.9`` elicits the prior of
:func:`bayes_eval.validation.elicitation.elicit_beta` (or, with ``categories``, the rubric
Dirichlet of :func:`~bayes_eval.validation.elicitation.elicit_dirichlet`), reports the implied
prior on pi-bar for M questions next to the statement (with the
:class:`~bayes_eval.validation.elicitation.ElicitationWarning` when they disagree), the prior
predictive distribution and, given results FILE, the sensitivity of mu, sigma and ranks to the
prior (uniform against elicited). Writes ``elicit.nc`` (the numbers and the predictive draws)
and ``elicit.png`` (the prior predictive of pi-bar and of one question's score).
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import THESE_QUESTIONS
from bayes_eval.validation.elicitation import (
    DEFAULT_CONCENTRATION,
    ElicitationWarning,
    ElicitedPrior,
    beta_fits,
    elicit_beta,
    elicit_dirichlet,
    predictive_draws,
    predictive_summary,
    sensitivity,
)
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import ElicitConfig

__all__ = ["plot", "run_study"]

#: The M of the implied prior when neither ``questions`` nor a results file gives it.
DEFAULT_QUESTIONS = 30


def _results(config: ElicitConfig) -> tuple[np.ndarray, list[str]]:
    """The results of FILE read with the data treatment of every command.

    Read by :func:`bayes_eval.logs.scored.load_scored` (graded scores need ``score_levels``).
    """
    from bayes_eval.logs.scored import load_scored

    path = config.file
    scored = load_scored(
        path,
        format=config.format,
        weights=config.weights,
        score_levels=config.score_levels,
        cli_names=True,
        offer_fractional=False,
    )
    R = scored.R
    if np.isnan(R.values).any():
        raise ValueError(
            f"{path}: the sensitivity report needs complete results (no missing trials)."
        )
    return R.values.astype(np.int64), [str(m) for m in R["model"].values]


def _elicit(config: ElicitConfig, level: str, n_q: int, w) -> tuple[ElicitedPrior, list[str]]:
    """The prior, and the messages of the ElicitationWarnings it raised (others re-issued)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ElicitationWarning)
        if config.categories:
            prior = elicit_dirichlet(
                config.category_intervals(), config.prob, level=level, n_questions=n_q, w=w
            )
        else:
            prior = elicit_beta(
                config.lo,
                config.hi,
                config.prob,
                level=level,
                n_questions=n_q,
                concentration=(
                    DEFAULT_CONCENTRATION if config.concentration is None else config.concentration
                ),
                draws=config.simulations,
                seed=config.seed,
                method=config.method,
            )
    for c in caught:
        if c.category is not ElicitationWarning:
            warnings.showwarning(c.message, c.category, c.filename, c.lineno)
    return prior, [str(c.message) for c in caught if c.category is ElicitationWarning]


def _maxent(config: ElicitConfig) -> dict | None:
    """PreliZ's maximum-entropy Beta for the interval statement.

    Given beside the equal-tailed fit the study uses
    (:func:`~bayes_eval.validation.elicitation.beta_fits`); ``None`` when PreliZ is not
    installed (it is in the ``pymc`` extra) or finds no Beta.
    """
    try:
        fits = beta_fits(config.lo, config.hi, config.prob)
    except (ImportError, ValueError):
        return None
    return {
        "a_b": list(fits.maxent),
        "tails": list(fits.tails_maxent),
        "equal_tailed_a_b": list(fits.equal_tailed),
        "max_relative_difference": fits.max_relative_difference,
    }


def _note(config: ElicitConfig) -> str:
    if config.level is None:
        return (
            "level: benchmark (default): the statement is read as a prior on the model's "
            "accuracy over the benchmark (pi-bar); --level question applies it to every "
            "single question instead."
        )
    if config.level == "benchmark":
        return "level: benchmark: the statement is a prior on the model's benchmark accuracy."
    return "level: question: the statement holds for every single question, independently."


def _report(
    config: ElicitConfig, prior: ElicitedPrior, out: dict, mismatch: list[str]
) -> list[str]:
    """The human-readable lines ``bayes-eval validate elicit`` prints without ``--json``."""
    lines = [out["note"]]
    if prior.level == "benchmark":
        b, a = prior.hyper_alpha
        lines.append(
            f"prior: benchmark mean accuracy m ~ Beta({a:.3f}, {b:.3f}); each question "
            f"Beta(s m, s (1 - m)) with s = {prior.concentration:g} (depth D = {prior.depth:.2f})"
        )
    else:
        alpha = ", ".join(f"{x:.3f}" for x in prior.alpha)
        lines.append(f"prior: every question Dir({alpha}) (depth D = {prior.depth:.2f} trials)")
    pct = f"{prior.prob:.0%}"
    lo, hi = prior.stated
    if config.categories:
        lines.append(f"{pct} interval of one question's score under it: [{lo:.3f}, {hi:.3f}]")
    else:
        lines.append(f"stated {pct} interval: [{lo:.3f}, {hi:.3f}]")
    if config.categories:
        lines.append(
            f"achieved {pct} intervals of the category shares: "
            + ", ".join(
                f"{c}: [{a:.3f}, {b:.3f}] (stated [{s:.3f}, {t:.3f}])"
                for c, ((a, b), (s, t)) in enumerate(
                    zip(prior.achieved, config.category_intervals(), strict=True)
                )
            )
        )
    lo, hi = prior.implied
    lines.append(
        f"implied {pct} interval of pi-bar for M = {prior.n_questions} questions: "
        f"[{lo:.3f}, {hi:.3f}] (width ratio {prior.width_ratio:.3f}; {prior.implied_method})"
    )
    lines.append(f"fit: {prior.fit}")
    if "maxent" in out:
        mx = out["maxent"]
        lines.append(
            "PreliZ maximum-entropy Beta for the same statement: Beta({:.3f}, {:.3f}), mass "
            "{:.3f} below lo and {:.3f} above hi (equal tails: {:.3f} each); largest relative "
            "difference in (a, b): {:.2%}".format(
                *mx["a_b"], *mx["tails"], (1 - prior.prob) / 2, mx["max_relative_difference"]
            )
        )
    for msg in mismatch:
        lines.append("warning: " + msg.replace("level='benchmark'", "--level benchmark"))
    pred = out["prior_predictive"]
    qs = pred["pi_bar_quantiles"]
    lines.append(
        f"prior predictive of pi-bar: mean {pred['pi_bar_mean']}, sd {pred['pi_bar_sd']}, "
        f"95% [{qs['0.025']}, {qs['0.975']}]"
    )
    for model, cells in out.get("sensitivity", {}).items():
        lines.append(
            f"{model}: "
            + "; ".join(
                "{p} {mu:.4f} ± {sigma:.4f} (#{rank})".format(p=p, **cells[p])
                for p in ("uniform", "elicited")
            )
        )
    return lines


def run_study(config: ElicitConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Elicit the prior of ``config``; writes ``OUT/elicit.nc`` and ``OUT/elicit.png``.

    The summary holds ``level``, ``n_questions``, ``stated``, ``implied_pi_bar``,
    ``width_ratio``, ``warning`` (the first ElicitationWarning, or None), ``warnings`` (all
    of them), ``prior``
    (:meth:`ElicitedPrior.as_dict`), ``prior_predictive``, ``sensitivity`` (with FILE),
    ``note`` (how the statement was read), ``maxent`` (PreliZ's maximum-entropy Beta for an
    interval statement, beside the equal-tailed fit used; when PreliZ is installed) and
    ``report`` (the lines to print).

    Parameters
    ----------
    config : ElicitConfig
        The statement and settings (:class:`bayes_eval.validation.study_configs.ElicitConfig`).
    out : str or pathlib.Path
        The output folder.
    progress : bool, optional
        Not used (the study has no progress bar); default True.

    Returns
    -------
    StudyResult
        The Dataset (stated and implied intervals, the prior's parameters, the prior predictive
        quantiles and draws, and with FILE ``mu``, ``sigma`` and ``rank`` per prior), the
        summary and the files written.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.elicit_study import run_study
    >>> from bayes_eval.validation.study_configs import ElicitConfig
    >>> cfg = ElicitConfig(lo=0.3, hi=0.6, prob=0.9, simulations=2000)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(cfg, tmp)
    >>> result.summary["level"], result.summary["n_questions"], sorted(result.files)
    ('benchmark', 30, ['netcdf', 'plot'])
    >>> result.dataset["stated"].values.tolist()
    [0.3, 0.6]
    """
    from bayes_eval.validation.study_output import finish

    del progress  # seconds of work: no progress bar
    start = time.perf_counter()
    level = config.level or "benchmark"
    R, names = _results(config) if config.file else (None, [])
    n_q = config.n_questions or (R.shape[1] if R is not None else DEFAULT_QUESTIONS)
    w = list(config.weights) if config.weights else None
    prior, mismatch = _elicit(config, level, n_q, w)
    pi_bar, per_q = predictive_draws(
        prior, w, n_questions=n_q, draws=config.simulations, seed=config.seed
    )
    pred = predictive_summary(prior, pi_bar, per_q, n_q)  # = prior_predictive(prior, w, ...)
    summary = {
        "estimand": THESE_QUESTIONS,
        "level": level,
        "n_questions": n_q,
        "stated": prior.stated.tolist(),
        "implied_pi_bar": prior.implied.tolist(),
        "width_ratio": prior.width_ratio,
        "warning": mismatch[0] if mismatch else None,
        "warnings": mismatch,
        "prior": prior.as_dict(),
        "prior_predictive": pred,
        "note": _note(config),
    }
    if not config.categories:
        maxent = _maxent(config)
        if maxent is not None:
            summary["maxent"] = maxent
    ds = _dataset(prior, pred, pi_bar, per_q, summary["warning"])
    if R is not None:
        sens = sensitivity(R, prior, w, models=names)
        ds = ds.assign(mu=sens["mu"], sigma=sens["sigma"], rank=sens["rank"]).assign_attrs(
            source=str(config.file)
        )
        summary["sensitivity"] = {
            m: {
                p: {v: sens[v].sel(prior=p, model=m).item() for v in ("mu", "sigma", "rank")}
                for p in ("uniform", "elicited")
            }
            for m in names
        }
    summary["report"] = _report(config, prior, summary, mismatch)
    return finish(ds, out, "elicit", plot, summary, start)


def _dataset(prior: ElicitedPrior, pred: dict, pi_bar, per_q, warning: str | None) -> xr.Dataset:
    quantiles = [float(q) for q in pred["pi_bar_quantiles"]]
    data = {
        "stated": ("bound", prior.stated),
        "implied_pi_bar": ("bound", prior.implied),
        "achieved": (("category", "bound"), prior.achieved),
        "w": ("category", prior.w),
        "pi_bar_quantile": ("quantile", list(pred["pi_bar_quantiles"].values())),
        "question_score_quantile": ("quantile", list(pred["question_score_quantiles"].values())),
        "pi_bar_draw": ("draw", pi_bar),
        "question_score_draw": ("draw", per_q),
    }
    attrs = {
        "level": prior.level,
        "n_questions": prior.n_questions,
        "prob": prior.prob,
        "depth": prior.depth,
        "width_ratio": prior.width_ratio,
        "implied_method": prior.implied_method,
        "fit": prior.fit,
        "warning": warning or "",
    }
    if prior.level == "question":
        data["alpha"] = ("category", prior.alpha)
    else:
        data["hyper_alpha"] = ("category", prior.hyper_alpha)
        attrs["concentration"] = prior.concentration
    return xr.Dataset(
        data,
        coords={
            "bound": ["lo", "hi"],
            "category": np.arange(prior.w.size),
            "quantile": quantiles,
        },
        attrs=attrs,
    )


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot the prior predictive of pi-bar and of one question's score.

    The stated and implied intervals of pi-bar are marked; with results, mu -/+ sigma of
    every model under both priors.

    Parameters
    ----------
    ds : xarray.Dataset
        The Dataset of :func:`run_study`.
    path : str or pathlib.Path
        The PNG file to write.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.elicit_study import plot, run_study
    >>> from bayes_eval.validation.study_configs import ElicitConfig
    >>> cfg = ElicitConfig(lo=0.3, hi=0.6, prob=0.9, simulations=2000)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds = run_study(cfg, tmp).dataset
    ...     print(plot(ds, Path(tmp) / "again.png").name)
    again.png
    """
    plt = pyplot()
    panels = 3 if "mu" in ds else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.6 * panels, 3.8))
    pct = f"{100 * ds.attrs['prob']:g}%"
    ax = axes[0]
    ax.hist(ds["pi_bar_draw"].values, bins=60, range=(0, 1), density=True, color="0.6")
    ax.axvspan(*ds["stated"].values, color="C0", alpha=0.2, label=f"stated {pct}")
    for x in ds["implied_pi_bar"].values:
        ax.axvline(x, color="C3", lw=1.2)
    ax.plot([], [], color="C3", label=f"implied {pct} of pi-bar")
    ax.set_title(f"pi-bar, M = {ds.attrs['n_questions']} ({ds.attrs['level']} level)")
    ax.legend(fontsize=7)
    axes[1].hist(ds["question_score_draw"].values, bins=60, density=True, color="0.6")
    axes[1].set_title("one question's score")
    for a in axes[:2]:
        a.set_xlabel("score")
    if panels == 3:
        ax = axes[2]
        y = np.arange(ds.sizes["model"])
        for k, p in enumerate(("uniform", "elicited")):
            cell = ds.sel(prior=p)
            ax.errorbar(
                cell["mu"], y + 0.15 * (2 * k - 1), xerr=cell["sigma"], fmt="o", ms=3, label=p
            )
        ax.set_yticks(y, [str(m) for m in ds["model"].values])
        ax.set_xlabel("mu -/+ sigma")
        ax.legend(fontsize=7)
        ax.set_title("sensitivity to the prior")
    fig.tight_layout()
    return save_png(fig, path)
