r"""Study ``plan``: whether the assurance of ``bayes-eval plan`` holds when the plan is carried out.

``bayes-eval plan`` (:func:`bayes_eval.ranking.leaderboard.plan_pair`,
``bayes_eval.ranking.sample_size.plan_separation``) answers "how many trials per
question until the leader of two models is separated at the ranking confidence, with
assurance a" (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", App. D; O'Hagan, Stevens and Campbell, "Assurance in clinical trial design").
The promise is a probability over the posterior predictive distribution; this study checks
it against the truth.

**Boards** as in :mod:`bayes_eval.validation.pairs_study`: :math:`p_{lq} =
\mathrm{expit}(\theta_l - b_q + e_{lq})` with close logit abilities (``ability_sd``), a
shared question difficulty and an LLM x question interaction, ``N`` trials per cell. The two
models with the largest posterior means (the default learned prior: the board's joint
posterior) are planned at ``assurance`` and ``confidence``; a board counts when the plan asks
for more trials (not yet separated, and a plan exists within ``max_trials``). The plan is
then carried out: both models' questions get ``n_required`` trials drawn from the truth, the
other models keep theirs, the board is refitted, and the plan is *kept* when the refitted
P(leader better) is at least ``confidence``. The share kept, with its binomial standard
error, is compared with the mean assurance promised; plans of at most 9 trials are reported
apart.

With ``target="top"`` the plan is ``bayes-eval plan --top K`` instead
(:func:`bayes_eval.ranking.claims_plan.plan_top`): every model's questions get
``n_required`` trials from the truth, and the plan is kept when the refitted board's claims
at posterior expected FDR ``fdr`` name its top-k set (order each of its ``top`` models with
the largest means above each of the others). The dataset's ``prob_now`` is P(leader
better) (pair) or P(today's top-k set is the top k) (top) before the plan, and
``true_now`` whether that is true of the truth (these questions' mean rates): a plan cannot
be kept more often than its leader, or its set, is right, so the two show whether a shortfall
comes from the probability the plan starts from or from its law of the future trials.
``gap_z`` (pair) is where the planned pair's true gap sits in the posterior the plan starts
from, :math:`(\Delta - E[D]) / \mathrm{sd}[D]` with :math:`D = \bar\pi_L - \bar\pi_O`: 0 on
average where that posterior is calibrated, negative where it overstates the lead.

With target top the refitted board is also placed in the plan's own preposterior law at the
trials planned (:func:`~bayes_eval.ranking.claims_plan.preposterior`): ``margin_pit``, the
law's probability that the claims' margin (the smallest standardised gap across the top-k
set's edge, under the law's :math:`C(n)`) falls at or below the refitted means' (uniform
where the law is right: a shortfall shows as too many small values); ``move``, the squared
Mahalanobis distance of the means' change under :math:`C - C(n)` per dimension (1 on
average where the law is right); ``cov_ratio``, the refit's gap variances across today's
top-k set over :math:`C(n)`'s (geometric mean; below 1: the refit is surer than the law).
With ``refit_check`` S > 0, ``refit_assurance`` is the refit law's assurance at the plan's
trials (:func:`~bayes_eval.ranking.claims_plan.top_assurance` over S refitted boards drawn
from the posterior before the plan): where that law is right, kept minus it averages 0.
With ``preposterior="refit"`` the plans themselves are made under that law (targets top
and pair).

With ``target="questions"`` the plan is ``bayes-eval plan A B --estimand new-questions``
(:func:`~bayes_eval.ranking.questions_plan.plan_new_questions`): more questions until P(leader
better on new questions) reaches ``confidence``. The board's questions are a sample of a
population (the Rasch model's difficulties and interactions, or the real board's 15
questions); the plan is carried out with new questions from it for every model, each with
``N`` trials, the paired comparison refitted (:func:`~bayes_eval.ranking.paired.compare_pairs`,
its learned split prior re-learned), and the plan is kept when the refitted P(leader better on
new questions) is at least ``confidence``; ``true_now`` compares the two models' means over
the population. ``pair`` picks the two models: the two with the largest means (``top``,
picked after seeing the results, as a user picks the pair to settle) or two fixed before the
results (``random``), which separates the plan's law from the winner's curse of the pick.
A pair tied on the population (real rates only: two of MathArena's 120 pairs) has no better
model and is left out, as ``validate pairs`` leaves it out.

With ``target="top-questions"`` the plan is ``bayes-eval plan --top K --estimand
new-questions`` (:func:`~bayes_eval.ranking.questions_plan.plan_top_questions`): more
questions until the claims at posterior expected FDR ``fdr`` on the paired new-questions
matrix name the top-k set. It is carried out as the questions target's, and kept when the
refitted matrix's claims name the top-k set of the board's mean scores after the new
questions; ``prob_now`` is the plan's P(today's set is the top-k set on new questions) and
``true_now`` whether it is, over the population. A board whose population ties across the
top-k edge is left out.

**Rates** (``rates``): ``rasch`` as above (with ``ability_from_prior``, each board's ability
sd drawn from the board model's own hyperprior,
:data:`~bayes_eval.posteriors.joint.ABILITY_SD_SCALE`; the difficulty sd and the logit-normal
interaction stay fixed);
``matharena``, ``n_models`` of the 16 MathArena AIME 2025 I models' real rates (each model's
mean over its 4 runs) on ``n_questions`` questions resampled from its 15
(:func:`~bayes_eval.validation.pairs_study.real_board`); ``prior``, the board model's own
prior with every scale drawn from its hyperprior
(:func:`~bayes_eval.validation.pairs_study.prior_board`: targets pair and top). Where a plan
keeps its promise on ``prior`` boards and not on ``rasch`` ones, the ``rasch`` boards'
departure from the board model's world (a logit-normal interaction, fixed scales), not the
plan's law, is the cause.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval import xr as bxr
from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.joint import ABILITY_SD_SCALE
from bayes_eval.posteriors.posterior import Posterior
from bayes_eval.ranking.claims import fdr_claims, score_moments
from bayes_eval.ranking.claims_plan import preposterior, top_assurance
from bayes_eval.ranking.leaderboard import plan_pair, plan_top_set
from bayes_eval.ranking.sample_size import SeparationPlan
from bayes_eval.validation.pairs_study import (
    _real_rates,
    prior_board,
    real_board,
    simulate_board,
)
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import PlanConfig

__all__ = ["plot", "run", "run_study", "summary"]

_SHORT = 9  # plans of at most this many trials per question are reported apart


#: where the refitted board falls in the plan's preposterior law (target top; module docstring)
_LAW_CHECKS: tuple[str, ...] = ("margin_pit", "move", "cov_ratio", "refit_assurance")


def _questions_board(
    config: PlanConfig, trials: int, rng: np.random.Generator, real: np.ndarray | None
) -> tuple | None:
    """One board's check of a plan of more questions (``target="questions"``), or None.

    The question population is the Rasch model's (new difficulties and interactions, the
    board's abilities) or the real board's 15 questions; the plan is carried out with new
    questions of every model, each with ``trials`` trials, and the board's paired comparison
    refitted (its learned split prior re-learned).
    """
    from scipy.special import expit

    from bayes_eval.ranking.paired import compare_pairs
    from bayes_eval.ranking.questions_plan import plan_new_questions

    if real is not None:  # rates matharena: new questions drawn from its 15
        models = rng.choice(real.shape[0], config.n_models, replace=False)
        truth = real[models].mean(axis=1)

        def rates(k: int) -> np.ndarray:
            return real[np.ix_(models, rng.integers(0, real.shape[1], k))]

    else:
        ability_sd = config.ability_sd
        if config.ability_from_prior:
            ability_sd = abs(float(rng.normal(0.0, ABILITY_SD_SCALE)))
        theta = rng.normal(0.0, ability_sd, config.n_models)
        truth = theta  # every model sees the same question law: theta orders the population means

        def rates(k: int) -> np.ndarray:
            b = rng.normal(0.0, config.difficulty_sd, k)
            e = rng.normal(0.0, config.interaction_sd, (config.n_models, k))
            return expit(theta[:, None] - b[None, :] + e)

    def results(k: int) -> np.ndarray:
        p = rates(k)
        return (rng.random((*p.shape, trials)) < p[..., None]).astype(np.float64)

    R = results(config.n_questions)
    names = [f"m{i}" for i in range(config.n_models)]
    da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
    if config.target == "top-questions":
        return _top_questions_plan(config, da, truth, results, rng)
    best = (
        rng.choice(config.n_models, 2, replace=False)
        if config.pair == "random"
        else np.argsort(-R.mean(axis=(1, 2)), kind="stable")[:2]
    )
    if np.isclose(truth[best[0]], truth[best[1]], rtol=0.0, atol=1e-12):
        return None  # a tie on the population (real rates only): no better model to plan for
    plan = plan_new_questions(
        da,
        names[best[0]],
        names[best[1]],
        confidence=config.confidence,
        assurance=config.assurance,
        simulations=config.simulations,
        max_questions=config.max_questions,
        seed=int(rng.integers(2**31)),
    )
    if plan.extra_questions is None or plan.extra_questions == 0:
        return None
    lead, other = (best[0], best[1]) if plan.leader == "a" else (best[1], best[0])
    later = np.concatenate([R, results(plan.extra_questions)], axis=1)
    refit = compare_pairs(later, prior="empirical", independent=False)
    kept = bool(refit.paired[lead, other] >= config.confidence)
    true_now = bool(truth[lead] > truth[other])
    return (
        plan.assurance_at_required,
        kept,
        plan.m_required,
        plan.prob_leader_better,
        true_now,
        np.nan,
        *(np.nan for _ in _LAW_CHECKS),
    )


def _top_questions_plan(
    config: PlanConfig, da: xr.DataArray, truth: np.ndarray, results, rng: np.random.Generator
) -> tuple | None:
    """One board's check of a top-k plan of more questions (``target="top-questions"``)."""
    from bayes_eval.ranking.paired import compare_pairs
    from bayes_eval.ranking.questions_plan import plan_top_questions

    top = config.top
    ordered = np.sort(truth)[::-1]
    if np.isclose(ordered[top - 1], ordered[top], rtol=0.0, atol=1e-12):
        return None  # a tie across the top-k edge of the population: no top-k set to claim
    plan = plan_top_questions(
        da,
        top=top,
        fdr=config.fdr,
        assurance=config.assurance,
        simulations=config.simulations,
        max_questions=config.max_questions,
        seed=int(rng.integers(2**31)),
    )
    if plan.extra_questions is None or plan.extra_questions == 0:
        return None
    later = np.concatenate([da.values, results(plan.extra_questions)], axis=1)
    refit = compare_pairs(later, prior="empirical", independent=False).paired
    claims = fdr_claims(np.where(np.isnan(refit), 0.5, refit), config.fdr)
    made = set(zip(claims.better.tolist(), claims.worse.tolist(), strict=True))
    best = np.argsort(-later.mean(axis=(1, 2)), kind="stable")
    kept = all((a, b) in made for a in best[:top] for b in best[top:])
    true_now = set(plan.members) == set(np.argsort(-truth, kind="stable")[:top].tolist())
    return (
        plan.assurance_at_required,
        kept,
        plan.m_required,
        plan.prob_top_set,
        true_now,
        np.nan,
        *(np.nan for _ in _LAW_CHECKS),
    )


def _top_kept(
    config: PlanConfig, da: xr.DataArray, refit: Posterior, n: int, seed: int
) -> tuple[bool, tuple[float, float, float, float]]:
    """Whether the refitted board's claims name its top k, and where it sits in the plan's law.

    ``da``: the board before the plan; ``refit``: its posterior after; the law's checks are
    ``margin_pit``, ``move`` and ``cov_ratio``, and ``refit_assurance`` (NaN without
    ``refit_check``; module docstring).
    """
    claims = fdr_claims(np.asarray(refit.prob_better()), config.fdr)
    made = set(zip(claims.better.tolist(), claims.worse.tolist(), strict=True))
    best = np.argsort(-np.asarray(refit.mean), kind="stable")
    inside, rest = best[: config.top].tolist(), best[config.top :].tolist()
    kept = all((a, b) in made for a in inside for b in rest)
    before = bxr.posterior(da, skipna=True)
    law = preposterior(before, n, top=config.top, draws=config.simulations, seed=seed)
    m_after, c_after = score_moments(refit)
    checked = np.nan
    if config.refit_check:  # the refit law's assurance at the plan's n
        checked = top_assurance(
            before,
            n,
            top=config.top,
            q=config.fdr,
            draws=config.refit_check,
            seed=seed + 1,
            preposterior="refit",
        )
    return kept, (
        law.margin_pit(m_after),
        law.move(m_after),
        law.gap_variance_ratio(c_after),
        checked,
    )


def _pair_plan(
    config: PlanConfig, da: xr.DataArray, rng: np.random.Generator, settings: dict
) -> tuple[Posterior, SeparationPlan, list[int]]:
    """The board's posterior, the plan of its pair (``config.pair``) and the pair, leader first."""
    names = [str(m) for m in da["model"].values]
    post = bxr.posterior(da, skipna=True)
    best = (
        rng.choice(config.n_models, 2, replace=False)
        if config.pair == "random"
        else np.argsort(-np.asarray(post.mean), kind="stable")[:2]
    )
    pair = plan_pair(
        da,
        names[best[0]],
        names[best[1]],
        confidence=config.confidence,
        preposterior=config.preposterior,
        **settings,
    )
    assert isinstance(pair.plan, SeparationPlan)
    return post, pair.plan, [names.index(pair.leader), names.index(pair.other)]


def _board(
    config: PlanConfig, trials: int, rng: np.random.Generator, real: np.ndarray | None
) -> tuple | None:
    """One board's plan check, or None when there is no plan to check.

    The check is (promised assurance, kept, n_required, the probability the plan confirms
    now, whether what that probability is about is true, gap_z: NaN with target top or
    questions, and with target top the refitted board placed in the plan's preposterior law:
    margin_pit, move and cov_ratio, and refit_assurance, else NaN).
    """
    if config.target in ("questions", "top-questions"):
        return _questions_board(config, trials, rng, real)
    names = [f"m{i}" for i in range(config.n_models)]
    if real is not None:  # rates matharena
        _, p, R = real_board(
            rng,
            real,
            n_models=config.n_models,
            n_questions=config.n_questions,
            trials=trials,
        )
    elif config.rates == "prior":  # the board model's own world
        _, p, R = prior_board(
            rng, n_models=config.n_models, n_questions=config.n_questions, trials=trials
        )
    else:
        ability_sd = config.ability_sd
        if config.ability_from_prior:  # the board model's hyperprior on the abilities' sd
            ability_sd = abs(float(rng.normal(0.0, ABILITY_SD_SCALE)))
        _, p, R = simulate_board(
            rng,
            n_models=config.n_models,
            n_questions=config.n_questions,
            trials=trials,
            ability_sd=ability_sd,
            difficulty_sd=config.difficulty_sd,
            interaction_sd=config.interaction_sd,
        )
    da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
    seed = int(rng.integers(2**31))
    settings = dict(
        assurance=config.assurance,
        simulations=config.simulations,
        max_trials=config.max_trials,
        seed=seed,
    )
    gap_z = np.nan
    if config.target == "top":
        top = plan_top_set(
            da, top=config.top, fdr=config.fdr, preposterior=config.preposterior, **settings
        )
        plan, movers, p_now = top.plan, range(config.n_models), top.plan.prob_top_set
        truth = np.argsort(-p.mean(axis=1), kind="stable")[: config.top]
        true_now = set(top.plan.members) == set(truth.tolist())
    else:
        post, plan, planned = _pair_plan(config, da, rng, settings)
        p_now, movers = plan.prob_leader_better, planned
        true_now = bool(p[planned[0]].mean() > p[planned[1]].mean())
    if plan.n_required is None or plan.n_required <= trials:
        return None
    if config.target != "top":  # where the true gap sits in the plan's posterior, in its sds
        mean, cov = score_moments(post)
        (i, j), gap = planned, p[planned[0]].mean() - p[planned[1]].mean()
        gap_z = (gap - (mean[i] - mean[j])) / np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
    n = plan.n_required
    more = np.full((config.n_models, config.n_questions, n), np.nan)
    more[:, :, :trials] = R
    for i in movers:  # the plan carried out: its models' trials drawn from the truth
        more[i, :, trials:] = rng.random((config.n_questions, n - trials)) < p[i][:, None]
    later = xr.DataArray(more, dims=("model", "question", "trial"), coords={"model": names})
    refit = bxr.posterior(later, skipna=True)
    if config.target == "top":  # the claims name the top k of the refitted board
        kept, law_check = _top_kept(config, da, refit, n, seed)
    else:
        prob = np.asarray(refit.prob_better())
        kept = bool(prob[planned[0], planned[1]] >= config.confidence)
        law_check = tuple(np.nan for _ in _LAW_CHECKS)
    return (plan.assurance_at_required, kept, n, p_now, true_now, gap_z, *law_check)


def run(config: PlanConfig, *, progress: bool = True) -> xr.Dataset:
    """Simulate every board of every N and check its plan.

    Per board: whether it had a plan to check, the assurance promised, whether the plan was
    kept, the trials it asked for.

    Parameters
    ----------
    config : PlanConfig
        The study's options (``bayes_eval.validation.study_configs.PlanConfig``): boards per
        N, models, questions, the grid ``N``, the sd's, the assurance, confidence and target
        of the plans, their simulations and ``max_trials``.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        Over ``(N, board)``: ``planned`` (the board had a plan to check), ``promised`` (the
        assurance at the trials required, NaN without a plan), ``kept``, ``n_required`` (0
        without a plan), ``prob_now``, ``true_now`` and ``gap_z`` (module docstring; NaN
        without a plan or with target top), and with target top ``margin_pit``, ``move``,
        ``cov_ratio`` (the refitted board in the plan's law, module docstring) and
        ``refit_assurance`` (with ``refit_check``; NaN without a plan, with another target or
        without ``refit_check``).

    Examples
    --------
    >>> from bayes_eval.validation.plan_study import run
    >>> from bayes_eval.validation.study_configs import PlanConfig
    >>> config = PlanConfig(
    ...     replicates=4, n_models=3, n_questions=10, N=(2,), simulations=100, max_trials=20
    ... )
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'N': 1, 'board': 4}
    >>> ds["planned"].values.tolist(), ds["kept"].values.tolist()
    ([[False, False, True, False]], [[False, False, True, False]])

    The trials a plan asks for and the assurance it promises come from a Monte Carlo search,
    so their last digits move with the platform's floating point; the promise meets the
    assurance asked for (0.8):

    >>> bool((ds["n_required"] > 0).equals(ds["planned"])), float(ds["promised"].max()) >= 0.8
    (True, True)
    """
    shape = (len(config.N), config.replicates)
    planned = np.zeros(shape, dtype=bool)
    promised = np.full(shape, np.nan)
    kept = np.zeros(shape, dtype=bool)
    required = np.zeros(shape, dtype=np.int64)
    p_now = np.full(shape, np.nan)
    true_now = np.zeros(shape, dtype=bool)
    gap_z = np.full(shape, np.nan)
    law = {k: np.full(shape, np.nan) for k in _LAW_CHECKS}
    real = _real_rates() if config.rates == "matharena" else None
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=int(np.prod(shape)), desc="plan boards", unit="board")
    for k, trials in enumerate(config.N):
        rng = np.random.default_rng([config.seed, trials])
        for r in range(config.replicates):
            one = _board(config, trials, rng, real)
            if one is not None:
                planned[k, r] = True
                (
                    promised[k, r],
                    kept[k, r],
                    required[k, r],
                    p_now[k, r],
                    true_now[k, r],
                    gap_z[k, r],
                    *checks,
                ) = one
                for key, value in zip(_LAW_CHECKS, checks, strict=True):
                    law[key][k, r] = value
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    dims = ("N", "board")
    attrs = {
        f: getattr(config, f)
        for f in (
            "replicates",
            "n_models",
            "n_questions",
            "seed",
            "target",
            "top",
            "rates",
            "pair",
            "preposterior",
        )
    }
    attrs["ability_from_prior"] = int(config.ability_from_prior)
    attrs |= {
        f: int(getattr(config, f))
        for f in ("simulations", "max_trials", "max_questions", "refit_check")
    }
    attrs |= {
        f: float(getattr(config, f))
        for f in ("ability_sd", "difficulty_sd", "interaction_sd", "assurance", "confidence", "fdr")
    }
    return xr.Dataset(
        {
            "planned": (dims, planned),
            "promised": (dims, promised),
            "kept": (dims, kept),
            "n_required": (dims, required),
            "prob_now": (dims, p_now),
            "true_now": (dims, true_now),
            "gap_z": (dims, gap_z),
            **{key: (dims, value) for key, value in law.items()},
        },
        coords={"N": list(config.N)},
        attrs=attrs,
    )


def _share(kept: np.ndarray, promised: np.ndarray) -> dict:
    n = int(kept.size)
    if n == 0:
        return {"plans": 0, "promised": None, "kept": None, "kept_se": None}
    rate = float(kept.mean())
    return {
        "plans": n,
        "promised": round(float(promised.mean()), 4),
        "kept": round(rate, 4),
        "kept_se": round(float(np.sqrt(max(rate * (1 - rate), 1e-12) / n)), 4),
    }


def _law_rows(cell: xr.Dataset, mask: np.ndarray) -> dict:
    """The refitted boards in the plan's law (target top; other targets: no entries).

    Shares of ``margin_pit`` at most 0.1 and 0.2 (0.1 and 0.2 where the law is right), the
    mean ``move`` (1) and the geometric mean ``cov_ratio`` (1), with the standard errors of
    the last two (``cov_ratio_se`` by the delta method on the mean log ratio); None without
    plans.
    """
    if cell.attrs.get("target") != "top" or "margin_pit" not in cell:
        return {}
    refit = _refit_rows(cell, mask)
    pit = cell["margin_pit"].values[mask]
    pit = pit[np.isfinite(pit)]
    keys = ("margin_pit_below_10", "margin_pit_below_20", "move", "move_se", "cov_ratio")
    if not pit.size:
        return dict.fromkeys((*keys, "cov_ratio_se")) | refit
    move = cell["move"].values[mask]
    log_ratio = np.log(cell["cov_ratio"].values[mask])
    ratio = float(np.exp(log_ratio.mean()))
    se = 1.0 / np.sqrt(max(pit.size - 1, 1))
    return {
        "margin_pit_below_10": round(float((pit <= 0.1).mean()), 4),
        "margin_pit_below_20": round(float((pit <= 0.2).mean()), 4),
        "move": round(float(move.mean()), 3),
        "move_se": round(float(move.std() * se), 3),
        "cov_ratio": round(ratio, 3),
        "cov_ratio_se": round(float(ratio * log_ratio.std() * se), 3),
    } | refit


def _refit_rows(cell: xr.Dataset, mask: np.ndarray) -> dict:
    """The refit law's assurance at the plans' N (``refit_check``), and kept minus it.

    Their means (the second 0 where that law is right) with standard errors; empty when not
    computed.
    """
    if "refit_assurance" not in cell:
        return {}
    values = cell["refit_assurance"].values[mask]
    ok = np.isfinite(values)
    if not ok.any():
        return {}
    values, kept = values[ok], cell["kept"].values[mask][ok].astype(float)
    root = np.sqrt(max(values.size - 1, 1))
    return {
        "refit_assurance": round(float(values.mean()), 4),
        "refit_assurance_se": round(float(values.std() / root), 4),
        "kept_minus_refit": round(float((kept - values).mean()), 4),
        "kept_minus_refit_se": round(float((kept - values).std() / root), 4),
    }


def summary(ds: xr.Dataset) -> dict:
    """Summarise the plans per N, with an overall verdict.

    Per N: the plans checked, the mean assurance promised, the share kept with its standard
    error, the median trials asked for, and the same for the short plans; ``verdict``: whether
    every N keeps its promise within two standard errors.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.plan_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``cells`` (per ``"N=N"``: ``plans``,
        ``promised``, ``kept``, ``kept_se``, ``median_trials`` (``median_questions`` with
        target questions), ``short_plans``, and
        ``prob_now`` and ``true_now``: the probability the plans start from, mean stated
        and share true, and ``gap_z`` with its standard error ``gap_z_se``: the mean of the
        pair's true gap in posterior sds, None with target top; with target top also
        ``margin_pit_below_10`` and ``margin_pit_below_20``, the shares of ``margin_pit`` at
        most 0.1 and 0.2, ``move`` (mean) and ``cov_ratio`` (geometric mean) with their
        standard errors ``move_se`` and ``cov_ratio_se``: module docstring; with
        ``refit_check``, ``refit_assurance``, the refit law's assurance at the plans' N, and
        ``kept_minus_refit``, each with its ``_se``) and ``verdict`` (``promise_kept``).

    Examples
    --------
    >>> from bayes_eval.validation.plan_study import run, summary
    >>> from bayes_eval.validation.study_configs import PlanConfig
    >>> config = PlanConfig(
    ...     replicates=4, n_models=3, n_questions=10, N=(2,), simulations=100, max_trials=20
    ... )
    >>> s = summary(run(config, progress=False))
    >>> {k: s["cells"]["N=2"][k] for k in ("plans", "kept")}
    {'plans': 1, 'kept': 1.0}
    >>> s["cells"]["N=2"]["promised"] >= 0.8, s["cells"]["N=2"]["median_trials"] > 2
    (True, True)
    >>> s["verdict"]
    {'promise_kept': True}
    """
    cells, ok = {}, True
    for n in ds["N"].values:
        cell = ds.sel(N=n)
        mask = cell["planned"].values
        kept, promised = cell["kept"].values[mask], cell["promised"].values[mask]
        required = cell["n_required"].values[mask]
        row = _share(kept, promised)
        # the trials per question asked for, or (target questions) the questions
        unit = "questions" if "questions" in str(ds.attrs.get("target")) else "trials"
        row[f"median_{unit}"] = float(np.median(required)) if required.size else None
        short = required <= _SHORT
        row["short_plans"] = _share(kept[short], promised[short])
        # the probability the plans start from, stated and true (its limit: a plan cannot be
        # kept more often than its leader, or its set, is right)
        now = cell["prob_now"].values[mask]
        row["prob_now"] = round(float(now.mean()), 4) if now.size else None
        row["true_now"] = (
            round(float(cell["true_now"].values[mask].mean()), 4) if now.size else None
        )
        # the pair's true gap in the posterior's sds (0 on average where it is calibrated)
        gz = cell["gap_z"].values[mask]
        gz = gz[np.isfinite(gz)]
        row["gap_z"] = round(float(gz.mean()), 3) if gz.size else None
        row["gap_z_se"] = round(float(gz.std() / np.sqrt(gz.size)), 3) if gz.size > 1 else None
        row |= _law_rows(cell, mask)
        if row["plans"]:
            ok &= row["kept"] >= row["promised"] - 2 * row["kept_se"]
        cells[f"N={int(n)}"] = row
    return {"settings": dict(ds.attrs), "cells": cells, "verdict": {"promise_kept": bool(ok)}}


def run_study(config: PlanConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/plan.nc`` and ``OUT/plan.png``.

    Parameters
    ----------
    config : PlanConfig
        The study's options (``bayes_eval.validation.study_configs.PlanConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.plan_study.run`,
        the summary of :func:`bayes_eval.validation.plan_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.plan_study import run_study
    >>> from bayes_eval.validation.study_configs import PlanConfig
    >>> config = PlanConfig(
    ...     replicates=4, n_models=3, n_questions=10, N=(2,), simulations=100, max_trials=20
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] plan.nc
    >>> result.summary["verdict"]
    {'promise_kept': True}
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "plan", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot the share of plans kept beside the assurance promised, per N.

    The share kept has two standard errors; for all plans and for the short ones.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.plan_study.run`.
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
    >>> from bayes_eval.validation.plan_study import plot, run
    >>> from bayes_eval.validation.study_configs import PlanConfig
    >>> config = PlanConfig(
    ...     replicates=4, n_models=3, n_questions=10, N=(2,), simulations=100, max_trials=20
    ... )
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "plan.png")
    ...     print(png.name, png.exists())
    plan.png True
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    numbers = summary(ds)["cells"]
    x = np.arange(len(numbers))
    for shift, key, label in ((-0.12, None, "all plans"), (0.12, "short_plans", "<= 9 trials")):
        rows = [c if key is None else c[key] for c in numbers.values()]
        kept = [np.nan if r["kept"] is None else r["kept"] for r in rows]
        err = [0.0 if r["kept_se"] is None else 2 * r["kept_se"] for r in rows]
        promised = [np.nan if r["promised"] is None else r["promised"] for r in rows]
        ax.errorbar(x + shift, kept, yerr=err, fmt="o", capsize=3, label=f"kept, {label}")
        ax.plot(x + shift, promised, "_", ms=18, mew=2, color="0.3")
    ax.plot([], [], "_", ms=18, mew=2, color="0.3", label="assurance promised")
    ax.set_xticks(x, list(numbers))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of plans kept")
    what = {
        "top": f"the top-{ds.attrs.get('top', 1)} set claimed at FDR {ds.attrs.get('fdr', 0.05):g}",
        "questions": "a pair separated on new questions by more questions",
        "top-questions": "the top-k set claimed on new questions by more questions",
    }.get(str(ds.attrs.get("target")), "the top two separated")
    ax.set_title(f"bayes-eval plan ({what}): promised against kept")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_png(fig, path)
