r"""Study ``claims``: whether leaderboard claims keep their error rate on boards with known truth.

``bayes-eval rank`` and ``pairs`` state the board's orderings as a set
(:func:`bayes_eval.ranking.claims.board_claims`): the largest set of claims
"A better than B" whose *posterior expected* false discovery rate is at most q (Müller,
Parmigiani and Rice, "FDR and Bayesian multiple comparisons rules", 2006), P(best), and rank
intervals meant to hold for all models at once (Besag, Green, Higdon and Mengersen, "Bayesian
computation and stochastic systems", 1995). Whether the *realised* FDR over repeated boards
stays at q is a frequentist property that holds only where the pair probabilities are
calibrated; this study measures it.

**Boards** (estimand *these questions*: the truth of "A better than B" is
:math:`\bar p_A > \bar p_B`, the mean of the true per-question rates over the board's own
questions, :mod:`bayes_eval.validation.pairs_study`):

* ``spread`` and ``close``: :math:`p_{lq} = \mathrm{expit}(\theta_l - b_q + e_{lq})` with
  logit abilities of sd ``spread_sd`` or ``close_sd``, shared question difficulties of sd
  ``difficulty_sd`` and an LLM x question interaction of sd ``interaction_sd``;
* ``matharena``: ``n_models`` of the 16 MathArena AIME 2025 I models' real rates (each model's
  mean over its 4 runs) on questions resampled from its 15;
* ``prior`` (not in the default list): the board model's own prior, every scale drawn from
  its hyperprior (:func:`~bayes_eval.validation.pairs_study.prior_board`); where a number
  holds here and not on ``close``, those boards depart from the model's world.

Each board is analysed as ``rank`` does by default (the learned prior; on binary results the
joint posterior of the board model) with ``draws`` joint draws.

With ``estimand="new-questions"`` the claims are those of ``rank --estimand
new-questions``: read from the paired comparisons
(:func:`~bayes_eval.ranking.paired.compare_pairs`, the learned split prior), and "A better
than B" is true when A's mean over the population of questions is above B's (the Rasch
and prior boards' abilities order it; on the real board, each model's mean over its 15
questions).
That board gives no P(best) and no rank intervals (no joint law), so those are not measured.

**Rules compared**, each a set of claims per board:

* ``bayes_fdr``: the claims of ``rank`` at q = ``fdr``;
* ``naive``: every ordered pair with :math:`P \ge 0.95`;
* ``bh``: Benjamini and Hochberg, "Controlling the false discovery rate: a practical and
  powerful approach to multiple testing" (1995), at level q, on the two-sided p-values of a
  paired sign-flip permutation test of each pair's per-question score differences
  (``permutations`` random flips shared by the pairs of a board; at N = 1 this is the exact
  McNemar test up to Monte Carlo error), each rejection claiming the order of the observed
  means (a directional claim: a wrong direction is a false claim).

For each rule and board: the false discovery proportion
:math:`\mathrm{FDP} = F / \max(|D|, 1)` (F claims whose order is not the truth's; a tie in the
truth makes a claim false) and the power (true claims over the truly ordered pairs); the
realised FDR is the mean FDP over the boards, with its Monte Carlo standard error. Also the
*joint coverage* of the simultaneous rank intervals (every model's true rank inside its
interval; a model tied in the truth may take any of its tied places) and the calibration of
P(best) against "the model is truly best" (reliability, ECE and its noise floor,
:func:`bayes_eval.validation.pairs_study.calibration`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import posterior
from bayes_eval.ranking.claims import board_claims
from bayes_eval.validation.pairs_study import (
    _real_rates,
    calibration,
    prior_board,
    real_board,
    simulate_board,
)
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import ClaimsConfig

__all__ = ["RULES", "bh_claims", "permutation_pvalues", "plot", "run", "run_study", "summary"]

#: The claim rules compared, in the order of the result's ``rule`` coordinate.
RULES = ("bayes_fdr", "naive", "bh")
_NAIVE = 0.95


def permutation_pvalues(
    scores: np.ndarray, flips: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Two-sided sign-flip permutation p-values of every pair of models.

    ``scores`` ``(L, M)`` are the models' per-question mean scores, ``flips`` ``(K, M)`` random
    signs. For the pair (a, b) with differences :math:`d_q`, the statistic is
    :math:`|\sum_q d_q|` and the p-value :math:`(1 + \#\{k: |\sum_q s_{kq} d_q| \ge
    |\sum_q d_q|\}) / (K + 1)`. Returns the pairs ``(a, b)`` (``a < b``) and their p-values.

    Parameters
    ----------
    scores : numpy.ndarray of shape (L, M)
        The models' per-question mean scores.
    flips : numpy.ndarray of shape (K, M)
        Random signs (+1 or -1), shared by the pairs.

    Returns
    -------
    a, b : numpy.ndarray of int
        The pairs' first and second models, ``a < b`` (the upper triangle, row by row).
    p : numpy.ndarray
        The pairs' two-sided p-values, in (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.claims_study import permutation_pvalues
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array(
    ...     [[1, 1, 1, 1, 0, 1, 1, 1], [0, 1, 0, 0, 0, 1, 0, 0], [0, 1, 0, 1, 0, 1, 0, 0]]
    ... )
    >>> a, b, p = permutation_pvalues(scores, rng.choice([-1.0, 1.0], size=(999, 8)))
    >>> a.tolist(), b.tolist(), p.round(3).tolist()
    ([0, 0, 1], [1, 2, 2], [0.069, 0.142, 1.0])
    """
    a, b = np.triu_indices(scores.shape[0], 1)
    d = scores[a] - scores[b]  # (pairs, M)
    observed = np.abs(d.sum(axis=1))
    null = np.abs(flips @ d.T)  # (K, pairs)
    p = (1.0 + (null >= observed[None, :] - 1e-12).sum(axis=0)) / (flips.shape[0] + 1.0)
    return a, b, p


def bh_claims(scores: np.ndarray, p: np.ndarray, a: np.ndarray, b: np.ndarray, q: float):
    """Benjamini-Hochberg at level ``q`` on the pairs' p-values.

    Each rejected pair claims the order of its observed means. Returns (better, worse).

    Parameters
    ----------
    scores : numpy.ndarray of shape (L, M)
        The models' per-question mean scores.
    p : numpy.ndarray
        The pairs' p-values (:func:`bayes_eval.validation.claims_study.permutation_pvalues`).
    a, b : numpy.ndarray of int
        The pairs' first and second models, aligned with ``p``.
    q : float
        The level of the false discovery rate.

    Returns
    -------
    better, worse : numpy.ndarray of int
        For each rejected pair, the model with the larger observed mean and the other.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.claims_study import bh_claims
    >>> scores = np.array([[0.9, 0.8, 1.0], [0.2, 0.1, 0.3], [0.5, 0.6, 0.4]])
    >>> a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> better, worse = bh_claims(scores, np.array([0.001, 0.02, 0.3]), a, b, q=0.05)
    >>> better.tolist(), worse.tolist()
    ([0, 0], [1, 2])
    """
    m = p.size
    order = np.argsort(p, kind="stable")
    below = p[order] <= q * np.arange(1, m + 1) / m
    k = int(np.flatnonzero(below).max()) + 1 if below.any() else 0
    chosen = order[:k]
    ahead = scores[a[chosen]].mean(axis=1) >= scores[b[chosen]].mean(axis=1)
    better = np.where(ahead, a[chosen], b[chosen])
    worse = np.where(ahead, b[chosen], a[chosen])
    return better, worse


def _score(better: np.ndarray, worse: np.ndarray, truth: np.ndarray) -> tuple[int, int]:
    """(claims, false claims) of a set of claims against the true means."""
    false = int(np.count_nonzero(truth[better] <= truth[worse]))
    return int(better.size), false


def _joint_covered(truth: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether every model's true rank (any of its places when tied) is inside [lo, hi]."""
    higher = (truth[None, :] > truth[:, None]).sum(axis=1)
    equal = (truth[None, :] == truth[:, None]).sum(axis=1)
    return bool(np.all((lo <= higher + equal) & (hi >= higher + 1)))


def _new_questions(config: ClaimsConfig, R: np.ndarray, population: np.ndarray) -> dict:
    """The claims on new questions of one board (``estimand="new-questions"``).

    From the paired matrix of ``rank --estimand new-questions`` (its learned split prior),
    scored against ``population`` (any values ordered as the population means); no joint law,
    so no P(best) and no rank intervals (NaN).
    """
    from bayes_eval.ranking.claims import fdr_claims
    from bayes_eval.ranking.paired import compare_pairs

    prob = compare_pairs(R, prior="empirical", independent=False).paired
    np.fill_diagonal(prob, 0.5)
    claims = fdr_claims(prob, config.fdr)
    out = {"bayes_fdr": _score(claims.better, claims.worse, population)}
    naive_b, naive_w = np.nonzero(
        np.where(np.eye(population.size, dtype=bool), 0.0, prob) >= _NAIVE
    )
    out["naive"] = _score(naive_b, naive_w, population)
    out["expected_fdr"] = claims.expected_fdr
    out["joint"] = np.nan
    out["p_best"] = out["is_best"] = np.full(population.size, np.nan)
    return out


def _board(config: ClaimsConfig, scenario: str, trials: int, rng, rates) -> dict:
    if scenario == "matharena":
        population, p, R = real_board(
            rng, rates, n_models=config.n_models, n_questions=config.n_questions, trials=trials
        )
    elif scenario == "prior":  # the board model's own world; the abilities order new questions
        population, p, R = prior_board(
            rng, n_models=config.n_models, n_questions=config.n_questions, trials=trials
        )
    else:
        sd = config.spread_sd if scenario == "spread" else config.close_sd
        population, p, R = simulate_board(
            rng,
            n_models=config.n_models,
            n_questions=config.n_questions,
            trials=trials,
            ability_sd=sd,
            difficulty_sd=config.difficulty_sd,
            interaction_sd=config.interaction_sd,
        )
    if config.estimand == "new-questions":  # the abilities order the population means
        out = _new_questions(config, R, population)
        truth = population
    else:
        out = _these_questions(config, R, p.mean(axis=1), rng)
        truth = p.mean(axis=1)
    scores = R.mean(axis=-1)
    flips = rng.choice([-1.0, 1.0], size=(config.permutations, config.n_questions))
    a, b, pv = permutation_pvalues(scores, flips)
    out["bh"] = _score(*bh_claims(scores, pv, a, b, config.fdr), truth)
    i, j = np.triu_indices(truth.size, 1)
    out["ordered"] = int(np.count_nonzero(truth[i] != truth[j]))
    out["truth"] = truth
    return out


def _these_questions(config: ClaimsConfig, R: np.ndarray, truth: np.ndarray, rng) -> dict:
    """The claims on these questions of one board: those of ``rank`` (the joint posterior)."""
    post = posterior(R, prior="empirical")
    prob = np.array(post.prob_better(method=post.prob_method()), dtype=float)
    bc = board_claims(
        post,
        prob,
        q=config.fdr,
        confidence=config.confidence,
        draws=config.draws,
        seed=int(rng.integers(2**31)),
    )
    out = {}
    out["bayes_fdr"] = _score(bc.claims.better, bc.claims.worse, truth)
    naive_b, naive_w = np.nonzero(np.where(np.eye(truth.size, dtype=bool), 0.0, prob) >= _NAIVE)
    out["naive"] = _score(naive_b, naive_w, truth)
    out["expected_fdr"] = bc.claims.expected_fdr
    out["joint"] = _joint_covered(truth, bc.intervals.lo, bc.intervals.hi)
    best = truth == truth.max()
    out["p_best"] = bc.ranks.p_best
    out["is_best"] = best / best.sum()  # a tie for the best shares the event
    return out


def run(config: ClaimsConfig, *, progress: bool = True) -> xr.Dataset:
    """Simulate every board of every scenario and N and record the rules' claims.

    Per board: claims and false claims per rule, the truly ordered pairs, the joint coverage,
    P(best) and the truth.

    Parameters
    ----------
    config : ClaimsConfig
        The study's options (``bayes_eval.validation.study_configs.ClaimsConfig``): boards per
        scenario and N, models, questions, the scenarios, q and the draws.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        ``claims`` and ``false_claims`` over ``(scenario, N, board, rule)``;
        ``ordered_pairs``, ``expected_fdr`` and ``joint_covered`` over
        ``(scenario, N, board)``; ``p_best``, ``is_best`` and ``truth`` (what orders the
        models for the estimand: the mean rates on these questions, or the abilities, or the
        real board's means, on new questions) over ``(scenario, N, board, model)``.

    Examples
    --------
    >>> from bayes_eval.validation.claims_study import run
    >>> from bayes_eval.validation.study_configs import ClaimsConfig
    >>> config = ClaimsConfig(
    ...     replicates=2, n_models=3, n_questions=10, N=(1,), scenarios=("spread",),
    ...     draws=200, permutations=100,
    ... )
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'scenario': 1, 'N': 1, 'board': 2, 'rule': 3, 'model': 3}
    >>> ds["rule"].values.tolist()
    ['bayes_fdr', 'naive', 'bh']
    >>> ds["claims"].sel(scenario="spread", N=1).values.tolist()
    [[0, 0, 0], [2, 2, 0]]
    """
    shape = (len(config.scenarios), len(config.N), config.replicates)
    claims = np.zeros((*shape, len(RULES)), dtype=np.int64)
    false = np.zeros_like(claims)
    ordered = np.zeros(shape, dtype=np.int64)
    expected = np.zeros(shape)
    joint = np.zeros(shape)  # 1 covered, 0 not; NaN: no rank intervals (new questions)
    p_best = np.zeros((*shape, config.n_models))
    is_best = np.zeros_like(p_best)
    truth = np.zeros_like(p_best)
    rates = _real_rates() if "matharena" in config.scenarios else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=int(np.prod(shape)), desc="claims boards", unit="board")
    for s, scenario in enumerate(config.scenarios):
        for k, trials in enumerate(config.N):
            rng = np.random.default_rng([config.seed, s, trials])
            for r in range(config.replicates):
                one = _board(config, scenario, trials, rng, rates)
                for u, rule in enumerate(RULES):
                    claims[s, k, r, u], false[s, k, r, u] = one[rule]
                ordered[s, k, r], expected[s, k, r] = one["ordered"], one["expected_fdr"]
                joint[s, k, r] = one["joint"]
                p_best[s, k, r], is_best[s, k, r] = one["p_best"], one["is_best"]
                truth[s, k, r] = one["truth"]
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    dims = ("scenario", "N", "board")
    attrs = {
        f: getattr(config, f)
        for f in ("replicates", "n_models", "n_questions", "draws", "permutations", "bins", "seed")
    }
    attrs["estimand"] = config.estimand
    attrs |= {
        f: float(getattr(config, f))
        for f in ("spread_sd", "close_sd", "difficulty_sd", "interaction_sd", "fdr", "confidence")
    }
    return xr.Dataset(
        {
            "claims": ((*dims, "rule"), claims),
            "false_claims": ((*dims, "rule"), false),
            "ordered_pairs": (dims, ordered),
            "expected_fdr": (dims, expected),
            "joint_covered": (dims, joint),
            "p_best": ((*dims, "model"), p_best),
            "is_best": ((*dims, "model"), is_best),
            "truth": ((*dims, "model"), truth),
        },
        coords={"scenario": list(config.scenarios), "N": list(config.N), "rule": list(RULES)},
        attrs=attrs,
    )


def _cell(ds: xr.Dataset) -> dict:
    """The numbers of one (scenario, N) cell."""
    n_boards = ds.sizes["board"]
    fdp = ds["false_claims"] / np.maximum(ds["claims"], 1)
    true = ds["claims"] - ds["false_claims"]
    power = true / np.maximum(ds["ordered_pairs"], 1)
    rules = {}
    for rule in RULES:
        f = fdp.sel(rule=rule).values
        rules[rule] = {
            "realised_fdr": round(float(f.mean()), 4),
            "fdr_se": round(float(f.std(ddof=1) / np.sqrt(n_boards)) if n_boards > 1 else 0.0, 4),
            "power": round(float(power.sel(rule=rule).values.mean()), 4),
            "claims_per_board": round(float(ds["claims"].sel(rule=rule).values.mean()), 2),
        }
    cov = ds["joint_covered"].values.astype(float)
    out: dict = {
        "rules": rules,
        "expected_fdr": round(float(ds["expected_fdr"].values.mean()), 4),
        "joint_coverage": None,
        "joint_coverage_se": None,
        "p_best_ece": None,
        "p_best_ece_floor": None,
        "boards": int(n_boards),
    }
    if np.isnan(cov).any():  # new questions: no joint law, no rank intervals, no P(best)
        return out
    c = calibration(ds["p_best"].values, ds["is_best"].values, int(ds.attrs["bins"]))
    out["joint_coverage"] = round(float(cov.mean()), 4)
    out["joint_coverage_se"] = round(
        float(np.sqrt(max(cov.mean() * (1 - cov.mean()), 1e-12) / n_boards)), 4
    )
    out["p_best_ece"], out["p_best_ece_floor"] = round(c["ece"], 4), round(c["ece_floor"], 4)
    return out


def summary(ds: xr.Dataset) -> dict:
    """Summarise the claims per scenario and N, with an overall verdict.

    Per scenario and N: each rule's realised FDR (with its Monte Carlo standard error),
    power and claims per board; the claims' mean posterior expected FDR; the joint coverage of
    the rank intervals; the ECE of P(best) with its noise floor. ``verdict``: whether the
    claims' realised FDR is within two standard errors of q, the largest P(best) ECE and the
    smallest joint coverage over the cells.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.claims_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``cells`` (per ``"SCENARIO N=N"``: ``rules``,
        ``expected_fdr``, ``joint_coverage``, ``joint_coverage_se``, ``p_best_ece``,
        ``p_best_ece_floor``, ``boards``) and ``verdict``.

    Examples
    --------
    >>> from bayes_eval.validation.claims_study import run, summary
    >>> from bayes_eval.validation.study_configs import ClaimsConfig
    >>> config = ClaimsConfig(
    ...     replicates=2, n_models=3, n_questions=10, N=(1,), scenarios=("spread",),
    ...     draws=200, permutations=100,
    ... )
    >>> s = summary(run(config, progress=False))
    >>> s["cells"]["spread N=1"]["rules"]["bayes_fdr"]
    {'realised_fdr': 0.0, 'fdr_se': 0.0, 'power': 0.3333, 'claims_per_board': 1.0}
    >>> s["verdict"]
    {'claims_fdr_within_q': True, 'largest_p_best_ece': 0.2417, 'smallest_joint_coverage': 1.0}
    """
    cells = {
        f"{sc} N={int(n)}": _cell(ds.sel(scenario=sc, N=n))
        for sc in ds["scenario"].values
        for n in ds["N"].values
    }
    q = float(ds.attrs["fdr"])
    worst = max(
        c["rules"]["bayes_fdr"]["realised_fdr"] - q - 2 * c["rules"]["bayes_fdr"]["fdr_se"]
        for c in cells.values()
    )
    eces = [c["p_best_ece"] for c in cells.values() if c["p_best_ece"] is not None]
    covs = [c["joint_coverage"] for c in cells.values() if c["joint_coverage"] is not None]
    verdict = {
        "claims_fdr_within_q": bool(worst <= 0.0),
        "largest_p_best_ece": max(eces) if eces else None,
        "smallest_joint_coverage": min(covs) if covs else None,
    }
    return {"settings": dict(ds.attrs), "cells": cells, "verdict": verdict}


def run_study(config: ClaimsConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/claims.nc`` and ``OUT/claims.png``.

    Parameters
    ----------
    config : ClaimsConfig
        The study's options (``bayes_eval.validation.study_configs.ClaimsConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.claims_study.run`,
        the summary of :func:`bayes_eval.validation.claims_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.claims_study import run_study
    >>> from bayes_eval.validation.study_configs import ClaimsConfig
    >>> config = ClaimsConfig(
    ...     replicates=2, n_models=3, n_questions=10, N=(1,), scenarios=("spread",),
    ...     draws=200, permutations=100,
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] claims.nc
    >>> result.summary["cells"]["spread N=1"]["boards"]
    2
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "claims", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot the rules' realised FDR, their power and the reliability of P(best).

    Three panels: the realised FDR of each rule per cell (two standard errors, q dashed),
    their power, and the reliability of P(best) per cell.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.claims_study.run`.
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
    >>> from bayes_eval.validation.claims_study import plot, run
    >>> from bayes_eval.validation.study_configs import ClaimsConfig
    >>> config = ClaimsConfig(
    ...     replicates=2, n_models=3, n_questions=10, N=(1,), scenarios=("spread",),
    ...     draws=200, permutations=100,
    ... )
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "claims.png")
    ...     print(png.name, png.exists())
    claims.png True
    """
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    cells = [(sc, n) for sc in ds["scenario"].values for n in ds["N"].values]
    labels = [f"{sc}\nN={int(n)}" for sc, n in cells]
    x = np.arange(len(cells))
    numbers = [_cell(ds.sel(scenario=sc, N=n)) for sc, n in cells]
    for u, rule in enumerate(RULES):
        shift = (u - 1) * 0.22
        fdr = [c["rules"][rule]["realised_fdr"] for c in numbers]
        se = [2 * c["rules"][rule]["fdr_se"] for c in numbers]
        axes[0].errorbar(x + shift, fdr, yerr=se, fmt="o", ms=4, capsize=2, label=rule)
        axes[1].plot(x + shift, [c["rules"][rule]["power"] for c in numbers], "o", label=rule)
    axes[0].axhline(float(ds.attrs["fdr"]), ls="--", color="0.4", lw=1, label="q")
    axes[0].set_title("realised FDR (mean false discovery proportion)")
    axes[1].set_title("power (true claims / truly ordered pairs)")
    for ax in axes[:2]:
        ax.set_xticks(x, labels, fontsize=8)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    ax = axes[2]
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
    bins = int(ds.attrs["bins"])
    for (sc, n), c in zip(cells, numbers, strict=True):
        if c["p_best_ece"] is None:  # new questions: no P(best)
            continue
        cell = ds.sel(scenario=sc, N=n)
        rel = calibration(cell["p_best"].values, cell["is_best"].values, bins)
        ok = rel["count"] > 0
        ax.plot(
            rel["mean_p"][ok],
            rel["frequency"][ok],
            "o-",
            ms=3,
            label=f"{sc} N={int(n)}: ECE {c['p_best_ece']:.3f}",
        )
    if all(c["p_best_ece"] is None for c in numbers):
        ax.text(0.5, 0.5, "no P(best) on new questions", ha="center", va="center")
    else:
        ax.legend(fontsize=7)
    ax.set_title("P(best): observed frequency of the truly best model")
    ax.set_xlabel("reported P(best)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_png(fig, path)
