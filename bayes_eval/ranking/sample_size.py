r"""Sample-size planning: how many trials per question separate two models, with assurance.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation"
(App. D) ask how many trials per question make the z-score of §2.5 between two models reach
1.645 (95% ranking confidence). This module answers with an *assurance*: the posterior
predictive probability that the evaluation, continued to ``n`` trials per question, separates
the models in the direction of the current leader.

Separation
    Let :math:`L` be the model with the larger posterior mean now (the *leader*) and :math:`O`
    the other. After ``n`` trials per question the Bayes@N posterior (eq. 15) gives
    :math:`\mu_L(n), \sigma_L(n), \mu_O(n), \sigma_O(n)`, and the models are *separated* when

    .. math:: z(n) = \frac{\mu_L(n) - \mu_O(n)}{\sqrt{\sigma_L^2(n) + \sigma_O^2(n)}}
              \ \ge\ z^\ast \qquad (z^\ast = 1.645 \text{ by default}).

    The sign is kept: a reversal of the order, however clear, is not the separation planned.

Assurance
    Under the posterior predictive distribution of both models (O'Hagan, Stevens and
    Campbell, "Assurance in clinical trial design"; Spiegelhalter and Freedman, "A predictive
    approach to selecting the size of a clinical trial, based on subjective clinical
    opinion"): for each model and question :math:`\alpha`,
    :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)` (the current posterior), the
    :math:`n - N_\alpha` new trials are :math:`x_\alpha \sim \mathrm{Mult}(n - N_\alpha,
    \pi_\alpha)`, and :math:`z(n)` is eq. 15 evaluated at :math:`\nu_\alpha + x_\alpha`:

    .. math:: A(n) = P\big(z(n) \ge z^\ast \mid \text{data}\big).

    :func:`trials_to_separate` returns the smallest ``n`` with :math:`A(n) \ge` ``assurance``
    (0.8 by default). If the truth is drawn from the prior the posterior was built with, the
    models then separate with probability ``A(n)`` (a guarantee on average over that prior;
    ``tests/ranking/test_sample_size.py`` checks it by simulation). Measured with the truth drawn
    from the prior, M = 20 questions, N = 4 trials observed, 2000 planning episodes, 2000
    draws, mean assurance 0.801: continuations from the truth separated in
    0.807 +/- 0.014 (binary, uniform prior), 0.825 +/- 0.016 (binary, ``alpha0 = 0.3``: most
    rates near 0 or 1) and 0.793 +/- 0.015 (three categories) of the planned episodes.

The limit
    As :math:`n \to \infty` every :math:`\pi_\alpha` becomes known, :math:`z(n) \to \pm\infty`
    with the sign of :math:`\bar\pi_L - \bar\pi_O`, and
    :math:`A(n) \to P(\bar\pi_L > \bar\pi_O \mid \text{data})` (about :math:`\Phi(z_{now})`).
    When this probability is below the target -- in particular when the gap may be zero, where
    it is near 1/2 -- no finite ``n`` reaches the target and the plan says so.

Monte Carlo with common random numbers
    Each of the ``draws`` simulations is one posterior draw of every :math:`\pi_\alpha` and one
    infinite sequence of future trials, shared by every ``n``: counts beyond the largest ``n``
    evaluated so far are added by multinomial draws, counts between two evaluated ``n`` are
    split from their difference by multivariate hypergeometric draws (the categories of the
    first ``k`` of ``m`` exchangeable trials given the ``m`` trials' totals). The estimated
    :math:`A(n)` is therefore smooth in ``n``; the search starts where a normal
    approximation of :math:`A` reaches the target, brackets the crossing of the simulated
    :math:`A` geometrically, then bisects (5-10 evaluations). Everything is vectorised over
    simulations, models and questions.

Priors
    The posterior is a :class:`~bayes_eval.posteriors.posterior.Posterior` under any prior
    (``plan_separation`` takes a board's posterior, so ``plan`` and ``rank`` speak of the
    same one). Under a learned prior each simulation first draws the hyperparameters' node
    from their posterior; :math:`z(n)` mixes the nodes with their current weights.

The board
    On a board the leaderboard's numbers come from the joint posterior
    (:mod:`~bayes_eval.posteriors.joint`), which shrinks the models' abilities towards each
    other and shares the questions' difficulty; the futures above come from each model's own
    closed form, which does not. Simulated and decided by the closed form, the plan
    over-promised: on boards of 6 close models (``bayes-eval validate plan``) the plans kept
    0.61 of the time against 0.83 promised, the top two models' lead being partly the
    winner's curse the joint posterior corrects. So what the board adds is written as a
    Gaussian pseudo-prior on :math:`(\bar\pi_L, \bar\pi_O)`: with the joint's mean and
    covariance :math:`(m_J, C_J)` of the pair and the closed forms' :math:`(m_C, C_C)`,
    :math:`P_0 = C_J^{-1} - C_C^{-1}` and :math:`h_0 = C_J^{-1}m_J - C_C^{-1}m_C`. Each
    simulation is weighted by :math:`\exp(-x^\top P_0 x/2 + h_0^\top x)` at its
    :math:`x = (\bar\pi_L, \bar\pi_O)` (importance sampling from the closed form to the
    joint), and :math:`z(n)` is that of the closed form's normal law after the extra trials
    times the pseudo-prior (at ``n_now`` the joint's own). The README gives the measured
    share kept.

The refit law
    ``plan_separation(..., preposterior="refit")`` (``plan A B --preposterior refit``)
    continues the search from the normal law's n over the board's future boards themselves
    (:mod:`~bayes_eval.ranking.refit_law`): every cell's rate drawn from the board model's
    joint posterior, the pair's extra trials drawn at those rates, the whole board refitted
    (its scales re-learned, as they will be after more trials) and z of the leader over the
    other read from it. It costs a board fit per simulation and n tried.

:func:`projected_z` keeps the earlier *plug-in* projection (the observed proportions persist
and only :math:`T_\alpha` grows); it is a point projection of z, not an assurance. At the n it
suggests, the audit that motivated this module found separation in only 69-88% of
continuations, and a finite n even when the true gap was zero.

The simulated futures are ``_Futures``: counts beyond the largest ``n`` drawn so far are
added by multinomial draws (``_multinomial``), counts between two drawn ``n`` split from
their difference by multivariate hypergeometric draws (``_split``); ``_normal_guess``
starts the search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri

from bayes_eval.inputs import Tally, check_memory, shown
from bayes_eval.posteriors.intervals import mixture_moments, mixture_support
from bayes_eval.posteriors.posterior import (
    THESE_QUESTIONS,
    DirichletPosterior,
    Posterior,
    posterior,
)
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec
from bayes_eval.ranking.refit_law import RefitBoards, check_preposterior

__all__ = ["SeparationPlan", "projected_z", "separation_assurance", "trials_to_separate"]


@dataclass(frozen=True)
class SeparationPlan:
    r"""Result of :func:`trials_to_separate`.

    Attributes
    ----------
    leader : {"a", "b"}
        The model with the larger posterior mean now (``"a"`` on an exact tie); the plan is to
        confirm this order.
    z_now : float
        :math:`\Phi^{-1}(P(\bar\pi_L > \bar\pi_O))` with the current data (>= 0): for
        independent posteriors :math:`(\mu_L - \mu_O)/\sqrt{\sigma_L^2 + \sigma_O^2}`
        (§2.5), on a board the same with the joint posterior's covariance.
    n_now : int
        Current trials per question (the largest :math:`N_\alpha` of the two models).
    n_required : int or None
        Smallest total number of trials per question with assurance >= ``assurance_target``
        (``n_now`` when already separated); ``None`` when none exists or none up to
        ``max_trials`` (see ``reason``).
    extra_trials : int or None
        ``n_required - n_now``. Every question of both models is topped up to ``n_required``
        trials, so a question with fewer than ``n_now`` trials gets more than this.
    z_target : float
    assurance_target : float
    assurance_at_required : float or None
        Monte Carlo assurance at ``n_required`` (1 when already separated).
    prob_leader_better : float
        :math:`P(\bar\pi_L > \bar\pi_O \mid \text{data})` from :meth:`Posterior.prob_better
        <bayes_eval.posteriors.posterior.Posterior.prob_better>` (the board model when the
        posterior has one, else the ranking confidence of §2.5: the number ``rank`` and
        ``pairs`` report under the same prior).
    reason : str or None
        Why ``n_required`` is ``None``.
    draws : int
        Monte Carlo simulations.
    max_trials : int
    assurance_limit : float
        The limit of the simulated assurance as :math:`n \to \infty`: the Monte Carlo
        estimate of ``prob_leader_better`` over the simulations' posterior draws (under the
        refit law, over its rate draws). No plan is made when ``prob_leader_better`` is below
        the target.
    prior : str
        The prior's label.
    estimand : str
        ``"these questions"``.
    prob_leader_better_from : str
        What ``prob_leader_better`` was computed from (:meth:`Posterior.prob_label
        <bayes_eval.posteriors.posterior.Posterior.prob_label>`).
    effective_draws : float
        Kish's effective number of the simulations (``draws`` without a board; fewer on a
        board, whose joint posterior reweights them; ``draws`` under the refit law, whose
        simulations are unweighted).
    note : str or None
        A caution when a plan on a board rests on one or two trials per question
        (``FEW_TRIALS_NOTE``, checked by simulation: ``bayes-eval validate plan --N 1,2``;
        under the refit law, ``REFIT_FEW_TRIALS_NOTE``).
    preposterior : str
        The law of the future trials the assurance is over, as asked: ``"normal"`` (the
        closed forms' simulated futures, weighted to the board on a board) or ``"refit"``
        (refitted boards, :class:`~bayes_eval.ranking.refit_law.RefitBoards`). A pair
        separated already, or with ``prob_leader_better`` below the target, is answered
        before the refit law is drawn: its ``effective_draws`` and ``assurance_limit`` are
        then the normal law's.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(9)
    >>> p = rng.random((30, 1))
    >>> Ra = (rng.random((30, 8)) < np.clip(p + 0.1, 0, 1)).astype(int)
    >>> Rb = (rng.random((30, 8)) < p).astype(int)
    >>> plan = trials_to_separate(Ra, Rb, prior="uniform", draws=500)
    >>> plan.leader, plan.n_now, plan.n_required, plan.extra_trials
    ('a', 8, 31, 23)
    >>> plan.prior, plan.estimand, plan.z_target
    ('uniform', 'these questions', 1.645)
    """

    leader: Literal["a", "b"]
    z_now: float
    n_now: int
    n_required: int | None
    extra_trials: int | None
    z_target: float
    assurance_target: float
    assurance_at_required: float | None
    prob_leader_better: float
    reason: str | None
    draws: int
    max_trials: int
    assurance_limit: float = float("nan")
    prior: str = "uniform"
    estimand: str = THESE_QUESTIONS
    prob_leader_better_from: str = "uniform"
    effective_draws: float = float("nan")
    note: str | None = None
    preposterior: str = "normal"


#: said when a pair plan under the refit law on a board asks for more trials from one or two
#: trials per question (``bayes-eval validate plan --N 1 --preposterior refit``)
REFIT_FEW_TRIALS_NOTE = (
    "note: plans of a pair over refitted boards from one trial per question kept their "
    "promise on boards drawn from the board model's own prior (0.80 +- 0.04 of 84 plans, "
    "0.81 promised) but not where the models are close (logit ability sd 0.3: 0.58 +- 0.10 "
    "of 26 plans, 0.80 promised): there the board posterior overstates the lead, which no "
    "law of the future trials mends (bayes-eval validate plan --N 1 --preposterior refit, "
    "with --rates prior). If your models are close, aim higher."
)

#: said when a plan of two models on a board asks for more trials from one or two trials per
#: question (``bayes-eval validate plan --N 1,2``: 6 LLMs x 30 questions, close or spread)
FEW_TRIALS_NOTE = (
    "note: plans of a pair on a board from one or two trials per question kept their promise "
    "(assurance 0.81) less often than stated in simulation where the models are close (logit "
    "ability sd 0.3: 0.62 of plans from one trial, 0.75 from two, 0.72 from two without a "
    "shared question difficulty), from one trial also where they are moderately spread (sd "
    "0.5: 0.66; 0.79 from two, within one s.e.), and on boards whose ability sd was drawn "
    "from the board model's hyperprior (0.77-0.78); plans of at most 9 trials fell short too "
    "(0.44-0.76; 0.07 of 15 at sd 0.15). On boards drawn from the board model's whole prior "
    "they came within one s.e. (0.774 +- 0.034 against 0.805 from one trial, 0.833 from two) "
    "and on real MathArena rates they kept it (bayes-eval validate plan --N 1,2, with "
    "--ability-sd 0.5, --ability-from-prior, --rates prior, --rates matharena, --difficulty-sd "
    "0). From one trial per question, or if your models are close, aim higher."
)


# ---------------------------------------------------------------- plug-in projection (old)


def _projection(
    R: ArrayLike, w: ArrayLike | None, R0: ArrayLike | None, alpha0: ArrayLike
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], int, int]:
    post = posterior(R, w, prior=Prior.parse(alpha0, runs=R0, name="alpha0")).dirichlet
    if post.nu.ndim != 2:
        raise ValueError("expected the results of one model, shape (M, N).")
    mean, var = post.question_moments()
    total = post.total
    v = var * (total + 1.0)  # V_alpha
    mu = post.w[0] + mean.mean()
    return mu, v, total, mean.size, int(post.tally.n_trials.max())


def _sigma2(v: NDArray[np.float64], total: NDArray[np.float64], m: int, extra: int) -> float:
    return (v / (total + extra + 1.0)).sum() / m**2


def projected_z(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    extra_trials: int = 0,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike = 1.0,
) -> float:
    r"""Plug-in projection of :math:`|z|` after ``extra_trials`` more trials per question.

    The z-score of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
    Model Evaluation" (§2.5, with the Bayes@N sd of eq. 15), projected as in their App. D.
    Assumes the observed category proportions persist: question :math:`\alpha` contributes
    :math:`V_\alpha/(T_\alpha + n + 1)` to :math:`M^2\sigma^2(n)`, with
    :math:`V_\alpha = \sum_j p_{\alpha j}(w_j - \bar w_\alpha)^2`, :math:`p = \nu/T`, and

    .. math:: z(n) = \frac{|\mu_a - \mu_b|}{\sqrt{\sigma_a^2(n) + \sigma_b^2(n)}}.

    This is a point projection, not a probability: it ignores the uncertainty of the gap and
    its sign. For planning use :func:`trials_to_separate` (assurance).

    Parameters
    ----------
    R_a, R_b : array_like of int, shape ``(M, N_a)`` and ``(M, N_b)``
        Current results of the two models on the same M questions (same rubric).
    w, R0_a, R0_b, alpha0
        As in :func:`bayes_eval.bayes`.
    extra_trials : int, keyword-only
        More trials per question, n.

    Returns
    -------
    float
        :math:`z(n)`; ``inf`` for a gap with zero projected sd, 0 for no gap.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(9)
    >>> p = rng.random((30, 1))
    >>> Ra = (rng.random((30, 8)) < np.clip(p + 0.1, 0, 1)).astype(int)
    >>> Rb = (rng.random((30, 8)) < p).astype(int)
    >>> round(projected_z(Ra, Rb), 4), round(projected_z(Ra, Rb, extra_trials=24), 4)
    (1.6115, 2.8746)
    """
    mu_a, v_a, t_a, m_a, _ = _projection(R_a, w, R0_a, alpha0)
    mu_b, v_b, t_b, m_b, _ = _projection(R_b, w, R0_b, alpha0)
    s2 = _sigma2(v_a, t_a, m_a, extra_trials) + _sigma2(v_b, t_b, m_b, extra_trials)
    diff = abs(mu_a - mu_b)
    return float(diff / np.sqrt(s2)) if s2 > 0 else (np.inf if diff > 0 else 0.0)


# ---------------------------------------------------------------- validation


def _pair_posterior(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None,
    R0_a: ArrayLike | None,
    R0_b: ArrayLike | None,
    alpha0: ArrayLike | None,
    prior: PriorSpec | Prior | None,
) -> Posterior:
    """The posterior of two models' results (their own trial counts, padded and masked)."""
    arrays = []
    for name, R in (("R_a", R_a), ("R_b", R_b)):
        arr = R if isinstance(R, np.ma.MaskedArray) else np.asarray(R)
        if arr.ndim != 2:
            raise ValueError(
                f"{name} has shape {np.shape(arr)} (models, questions); expected the results of "
                "one model, shape (M, N)."
            )
        arrays.append(arr)
    if arrays[0].shape[0] != arrays[1].shape[0]:
        raise ValueError(
            f"R_a has {arrays[0].shape[0]} questions and R_b {arrays[1].shape[0]}; expected the "
            "same M questions for both models."
        )
    if alpha0 is not None:
        if prior is not None:
            raise ValueError(
                f"both prior={shown(prior)} and alpha0={shown(alpha0)} were given; alpha0 is "
                "the older name of a fixed prior: pass prior= only."
            )
        prior = Prior.parse(alpha0, name="alpha0")
    elif prior is None:
        prior = DEFAULT_PRIOR
    n = max(a.shape[1] for a in arrays)
    R = np.ma.masked_all((2, arrays[0].shape[0], n), dtype=np.int64)
    for i, a in enumerate(arrays):
        R[i, :, : a.shape[1]] = a
    runs = None
    if R0_a is not None or R0_b is not None:
        d = max(np.shape(x)[1] if x is not None else 0 for x in (R0_a, R0_b))
        runs = np.ma.masked_all((2, arrays[0].shape[0], d), dtype=np.int64)
        for i, x in enumerate((R0_a, R0_b)):
            if x is not None:
                runs[i, :, : np.shape(x)[1]] = x
    spec = Prior.parse(prior, runs=runs)
    return posterior(R, w, prior=spec)


def _setup(
    post: Posterior, z_target: float, draws: int, seed: int | np.random.Generator
) -> tuple[Literal["a", "b"], float, int, _Futures, float, int, float]:
    """Leader, z now, trials now and the simulated futures of a two-model posterior."""
    z_target = _positive_real(z_target, "z_target", "a positive number such as 1.645")
    draws = _positive_int(draws, "draws")
    if not post.batched or post.n_models != 2:
        raise ValueError(
            f"the posterior has {post.n_models} model(s); planning separates exactly two."
        )
    if post.answered is not None or post.fractional:
        raise ValueError(
            "planning needs complete categorical results (no incomplete design, no fractional "
            "counts)."
        )
    mu = np.asarray(post.mean)
    leader: Literal["a", "b"] = "a" if mu[0] >= mu[1] else "b"
    i, j = (0, 1) if leader == "a" else (1, 0)
    # the leader's probability and its z from the posterior every other number comes from
    # (on a board the joint posterior, whose covariance enters the difference's sd)
    p_better = float(np.asarray(post.prob_better())[i, j])
    z_now = float(ndtri(min(max(p_better, 0.5), 1.0 - 1e-16)))
    n_now = int(post.tally.n_trials.max())
    cells = float(np.prod(np.shape(post.tally.counts)[1:]))  # questions x categories
    check_memory(
        8.0 * 4 * draws * 2 * max(cells, 16.0),
        f"{draws} simulations on 2 models x {int(np.shape(post.tally.counts)[1])} questions",
        "fewer simulations (a few thousand give the assurance to about 0.01)",
    )
    futures = _Futures(post.closed_form, (i, j), draws, np.random.default_rng(seed))
    if post.joint is not None:  # the joint posterior's mean and covariance of the pair
        from bayes_eval.ranking.claims import score_moments

        mean, cov = score_moments(post)
        futures.board(mean[[i, j]], cov[np.ix_([i, j], [i, j])])
    return leader, z_now, n_now, futures, z_target, draws, p_better


def _positive_real(value: object, name: str, hint: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} is {shown(value)}; expected {hint}.")
    if value <= 0:
        raise ValueError(f"{name} is {shown(value)}; expected {hint}.")
    return float(value)


def _probability(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not (0.0 < float(value) < 1.0):
        raise ValueError(f"{name} is {shown(value)}; expected a probability in (0, 1) such as 0.8.")
    return float(value)


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} is {shown(value)}; expected a positive integer.")
    return int(value)


def separation_assurance(
    R_a: ArrayLike,
    R_b: ArrayLike,
    n: ArrayLike,
    w: ArrayLike | None = None,
    *,
    z_target: float = 1.645,
    draws: int = 2000,
    seed: int | np.random.Generator = 0,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike | None = None,
    prior: PriorSpec | Prior | None = None,
) -> NDArray[np.float64]:
    r"""Assurance :math:`A(n) = P(z(n) \ge z^\ast \mid \text{data})` for the current leader.

    See the module docstring for the definition. All ``n`` are evaluated on the same
    ``draws`` simulated futures (common random numbers), so differences between them are
    accurate beyond the Monte Carlo error ``sqrt(A (1 - A) / draws)`` of each value.

    Parameters
    ----------
    R_a, R_b : array_like of int, shape ``(M, N_a)`` and ``(M, N_b)``
        Current results of the two models on the same M questions (same rubric).
    n : int or array_like of int
        Total trials per question, each >= the current largest :math:`N_\alpha`.
    w, R0_a, R0_b, alpha0
        As in :func:`bayes_eval.bayes`.
    z_target, draws, seed : keyword-only
        As in :func:`trials_to_separate`.
    prior : Prior or str, keyword-only
        The prior or its words (not with ``alpha0``); default None, ``"empirical"``.

    Returns
    -------
    ndarray of float, the shape of ``n``
        The assurance at each ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(9)
    >>> p = rng.random((30, 1))
    >>> Ra = (rng.random((30, 8)) < np.clip(p + 0.1, 0, 1)).astype(int)
    >>> Rb = (rng.random((30, 8)) < p).astype(int)
    >>> separation_assurance(Ra, Rb, [8, 16, 32, 64], prior="uniform", draws=500).round(4).tolist()
    [0.0, 0.72, 0.808, 0.852]
    """
    post = _pair_posterior(R_a, R_b, w, R0_a, R0_b, alpha0, prior)
    _leader, _z, n_now, futures, z_target, _, _ = _setup(post, z_target, draws, seed)
    n_arr = np.asarray(n)
    if n_arr.dtype.kind not in "iu" or (n_arr < n_now).any():
        raise ValueError(
            f"n is {shown(n)}; expected integers >= {n_now}, the current trials per question."
        )
    flat = n_arr.ravel()
    out = np.empty(flat.shape)
    for k in np.argsort(flat, kind="stable"):
        out[k] = futures.assurance(int(flat[k]), z_target)
    return out.reshape(n_arr.shape)


def trials_to_separate(
    R_a: ArrayLike,
    R_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    z_target: float = 1.645,
    assurance: float = 0.8,
    draws: int = 2000,
    max_trials: int = 10_000,
    seed: int | np.random.Generator = 0,
    R0_a: ArrayLike | None = None,
    R0_b: ArrayLike | None = None,
    alpha0: ArrayLike | None = None,
    prior: PriorSpec | Prior | None = None,
) -> SeparationPlan:
    r"""Trials per question that confirm the current leader at ``z_target`` with assurance.

    Returns the smallest total ``n`` of trials per question with

    .. math:: A(n) = P\Big(\frac{\mu_L(n) - \mu_O(n)}{\sqrt{\sigma_L^2(n) + \sigma_O^2(n)}}
              \ge z^\ast \,\Big|\, \text{data}\Big) \ \ge\ \text{assurance},

    where :math:`L` is the current leader, :math:`\mu, \sigma` are the Bayes@N posterior
    (eq. 15 of Hariri et al., "Don't Pass@k") after the questions are topped up to ``n``
    trials, and the probability is over the posterior predictive distribution of both
    models' future trials (module docstring). As :math:`n \to \infty`,
    :math:`A(n) \to P(\bar\pi_L > \bar\pi_O \mid \text{data})`; when that is below
    ``assurance`` no finite ``n`` exists and ``n_required`` is ``None``.

    Parameters
    ----------
    R_a, R_b : array_like of int, shape ``(M, N_a)`` and ``(M, N_b)``
        Current results of the two models on the same M questions (same rubric); a
        ``numpy.ma.MaskedArray`` marks missing trials.
    w, R0_a, R0_b, alpha0
        As in :func:`bayes_eval.bayes`.
    z_target : float, keyword-only
        Separation threshold (> 0): 1.645 is the paper's 95% ranking confidence, 1.96 97.5%.
    assurance : float, keyword-only
        Target probability of separation, in (0, 1).
    draws : int, keyword-only
        Monte Carlo simulations (the assurance has Monte Carlo error about
        ``sqrt(0.16 / draws)``: 0.009 for 2000).
    max_trials : int, keyword-only
        Largest total trials per question considered.
    seed : int or numpy.random.Generator, keyword-only
        Seed of the simulations; the plan is deterministic for an integer seed.
    prior : Prior or str, keyword-only
        The prior or its words (not with ``alpha0``); default None, ``"empirical"``.

    Returns
    -------
    SeparationPlan
        The leader, the trials per question now and required, the assurance reached and,
        when no plan exists, the reason.

    Notes
    -----
    The search starts at the ``n`` where a normal approximation of the assurance reaches
    the target, steps geometrically (ratios 1.25, 1.25^2, ...) up or down until the
    simulated assurance crosses the target, then bisects to 1% of ``n`` (one trial below
    n = 200). The simulated assurance is monotone in ``n`` up to Monte Carlo noise, and all
    ``n`` share the same simulated futures, so the search sees a smooth curve.

    Near the target the assurance often rises slowly with ``n`` (it levels off towards
    ``prob_leader_better``), so its Monte Carlo error moves ``n_required`` by far more than
    that error suggests: with 2000 draws, different seeds can give values 10-30% apart when
    ``prob_leader_better`` is within about 0.1 of the target. Increase ``draws`` for a
    stable number; ``assurance_at_required`` is the probability that matters.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(9)
    >>> p = rng.random((30, 1))
    >>> Ra = (rng.random((30, 8)) < np.clip(p + 0.1, 0, 1)).astype(int)
    >>> Rb = (rng.random((30, 8)) < p).astype(int)
    >>> plan = trials_to_separate(Ra, Rb, prior="uniform")  # the paper's prior
    >>> plan.leader, round(plan.z_now, 2), round(plan.prob_leader_better, 4)
    ('a', 1.61, 0.9465)
    >>> plan.n_required, round(plan.assurance_at_required, 3)
    (31, 0.801)
    >>> trials_to_separate(Ra, Rb).n_required  # the learned prior: separated already
    8
    """
    post = _pair_posterior(R_a, R_b, w, R0_a, R0_b, alpha0, prior)
    return plan_separation(
        post,
        z_target=z_target,
        assurance=assurance,
        draws=draws,
        max_trials=max_trials,
        seed=seed,
    )


def plan_separation(
    post: Posterior,
    *,
    z_target: float = 1.645,
    assurance: float = 0.8,
    draws: int = 2000,
    max_trials: int = 10_000,
    seed: int | np.random.Generator = 0,
    preposterior: str = "normal",
    progress: Callable[[str], None] | None = None,
) -> SeparationPlan:
    """:func:`trials_to_separate` for the two models of a posterior already built.

    Use it for a board's posterior restricted to two models (``post[["a", "b"]]``), so that the plan
    and the leaderboard speak of the same posterior; model ``"a"`` is the first.

    Under a learned prior each simulation draws the hyperparameters' node from their
    posterior (one per model, or one shared by a benchmark-pooled prior), then every
    question's probabilities from that node's Dirichlet posterior; z(n) is computed with the
    node weights held at their current values (more trials per question move them little;
    the heaviest 16 nodes, renormalised). On a board (the joint posterior) the simulations
    are weighted, and z(n) computed, as the joint posterior would (module docstring, "The
    board").

    With ``preposterior="refit"`` (a board under the board model) the search goes on from
    the normal law's n over refitted boards
    (:class:`~bayes_eval.ranking.refit_law.RefitBoards`: every cell's rate drawn from the
    board model's posterior, the two models' extra trials drawn at those rates, the whole
    board refitted and its z of the leader over the other read), to 10% of n; ``progress``
    is called with a line after each n it tries.
    """
    assurance = _probability(assurance, "assurance")
    max_trials = _positive_int(max_trials, "max_trials")
    check_preposterior(post, preposterior)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    leader, z_now, n_now, fut, z_target, draws, p_better = _setup(post, z_target, draws, rng)
    limit, effective = fut.prob_leader_better(), fut.effective_draws
    few = post.joint is not None and n_now <= 2
    notes = {"normal": FEW_TRIALS_NOTE, "refit": REFIT_FEW_TRIALS_NOTE}

    def plan(n: int | None, a: float | None, reason: str | None = None) -> SeparationPlan:
        return SeparationPlan(
            leader=leader,
            z_now=z_now,
            n_now=n_now,
            n_required=n,
            extra_trials=None if n is None else n - n_now,
            z_target=z_target,
            assurance_target=assurance,
            assurance_at_required=a,
            prob_leader_better=p_better,
            reason=reason,
            draws=draws,
            max_trials=max_trials,
            assurance_limit=limit,
            prior=post.prior_label,
            prob_leader_better_from=post.prob_label(),
            effective_draws=effective,
            note=notes[preposterior] if few and n is not None and n > n_now else None,
            preposterior=preposterior,
        )

    if z_now >= z_target:
        return plan(n_now, 1.0)
    if p_better < assurance:
        return plan(
            None,
            None,
            f"P(leader better) = {p_better:.3f} < assurance {assurance}: the gap may be "
            "zero or reversed, and no finite number of trials reaches the target.",
        )
    refit = None  # the refit law, drawn once the normal law's search is done
    if (fut.n_obs < n_now).any():  # incomplete questions are topped up already at n_now
        if preposterior == "refit":
            refit = _refit_pair(post, leader, z_target, draws, rng, progress)
            limit, effective = refit.limit, float(draws)
        a = fut.assurance(n_now, z_target) if refit is None else refit.assurance(n_now)
        if a >= assurance:
            return plan(n_now, a)
    if n_now >= max_trials:
        return plan(None, None, f"not within max_trials = {max_trials} (n_now = {n_now}).")
    guess = _normal_guess(fut, n_now, max_trials, z_target, assurance)
    n, a = first_reaching(lambda n: fut.assurance(n, z_target), n_now, guess, max_trials, assurance)
    if preposterior == "refit":  # from the normal law's answer, by refitted boards
        refit = refit or _refit_pair(post, leader, z_target, draws, rng, progress)
        limit, effective = refit.limit, float(draws)
        # to 10% of n: each n tried costs a board fit per simulation
        n, a = first_reaching(
            refit.assurance, n_now, n or max_trials, max_trials, assurance, resolution=0.1
        )
    if n is None:
        return plan(
            None,
            None,
            f"not within max_trials = {max_trials}: the assurance there is {a:.3f} "
            + (
                f"(its limit is P(leader better) = {p_better:.3f})."
                if refit is None
                else f"(its limit, P(leader better) over the refit law's {draws} rate draws, "
                f"is {limit:.3f})."
            ),
        )
    return plan(n, a)


class _RefitPair(NamedTuple):
    """The refit law of a pair plan, and its limit."""

    assurance: Callable[[int], float]
    limit: float


def _refit_pair(
    post: Posterior,
    leader: Literal["a", "b"],
    z_target: float,
    draws: int,
    rng: np.random.Generator,
    progress: Callable[[str], None] | None,
) -> _RefitPair:
    """Refitted boards decide for the pair when the leader's z over the other is z_target."""
    i, j = (0, 1) if leader == "a" else (1, 0)

    def decide(mean: NDArray[np.float64], cov: NDArray[np.float64]) -> bool:
        gap = float(mean[i] - mean[j])
        sd = math.sqrt(max(float(cov[i, i] + cov[j, j] - 2.0 * cov[i, j]), 0.0))
        return gap > 0.0 and gap >= z_target * sd

    law = RefitBoards(post, draws, rng, decide=decide, progress=progress)
    return _RefitPair(law.assurance, float(law.prob_better()[i, j]))


def first_reaching(
    assure: Callable[[int], float],
    n_now: int,
    guess: int,
    max_trials: int,
    target: float,
    resolution: float = 0.01,
) -> tuple[int | None, float]:
    """The smallest ``n`` in ``(n_now, max_trials]`` with ``assure(n) >= target``.

    Returns ``n`` and ``assure(n)``; the search is to ``resolution`` (1%) of ``n`` (at least
    one trial);
    ``(None, assure(max_trials))`` when even ``max_trials`` falls short.

    From ``guess`` the search steps geometrically (ratios 1.25, 1.25^2, ...) down or up until
    ``assure`` crosses the target, then bisects: ``assure`` increases with ``n`` up to Monte
    Carlo noise (common random numbers keep it smooth), and near the target its Monte Carlo
    error is worth far more than 1% of ``n``.
    """
    lo, hi, a_hi = n_now, None, None
    a = assure(guess)
    if a >= target:  # step down geometrically from the guess until below the target
        hi, a_hi, ratio = guess, a, 1.25
        while hi - 1 > n_now:
            n = min(hi - 1, max(n_now, math.floor(hi / ratio)))
            if n == n_now:
                break
            a = assure(n)
            if a < target:
                lo = n
                break
            hi, a_hi, ratio = n, a, ratio * ratio
    else:  # step up geometrically until the target is reached
        lo, ratio = guess, 1.25
        while hi is None:
            if lo >= max_trials:
                return None, a
            n = min(max_trials, max(lo + 1, math.ceil(lo * ratio)))
            a = assure(n)
            if a >= target:
                hi, a_hi = n, a
            else:
                lo, ratio = n, ratio * ratio
    while hi - lo > max(1, math.floor(hi * resolution)):
        mid = (lo + hi) // 2
        a_mid = assure(mid)
        if a_mid >= target:
            hi, a_hi = mid, a_mid
        else:
            lo = mid
    assert a_hi is not None  # set together with hi
    return hi, float(a_hi)


def _multinomial(
    rng: np.random.Generator, trials: ArrayLike, p: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Multinomial counts, shape ``p.shape``, by a chain of binomials (vectorised)."""
    k = p.shape[-1]
    left = np.array(np.broadcast_to(trials, p.shape[:-1]), dtype=np.int64)
    if k == 2:
        x = rng.binomial(left, p[..., 0])
        return np.stack([x, left - x], axis=-1)
    # mass of categories j..K-1, summed from the right (accurate for tiny tail masses)
    tail = np.cumsum(p[..., ::-1], axis=-1)[..., ::-1]
    out = np.empty(p.shape, dtype=np.int64)
    for j in range(k - 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(tail[..., j] > 0, p[..., j] / tail[..., j], 0.0)
        x = rng.binomial(left, np.clip(q, 0.0, 1.0))
        out[..., j] = x
        left -= x
    out[..., -1] = left
    return out


def _split(rng: np.random.Generator, counts: NDArray[np.int64], k: ArrayLike) -> NDArray[np.int64]:
    """Categories of the first ``k`` of the trials tallied in ``counts``.

    Multivariate hypergeometric, by a chain of hypergeometrics. ``k`` broadcasts against
    ``counts.shape[:-1]``; every row of ``counts`` sums to >= its ``k``.
    """
    total = counts.sum(axis=-1)
    sample = np.array(np.broadcast_to(k, total.shape), dtype=np.int64)
    out = np.empty_like(counts)
    for j in range(counts.shape[-1] - 1):
        good = counts[..., j]
        x = rng.hypergeometric(good, total - good, sample)
        out[..., j] = x
        total = total - good
        sample = sample - x
    out[..., -1] = sample
    return out


#: heaviest nodes of a learned prior used to simulate futures and to score them
_PLAN_NODES = 16


class _Futures:
    """Posterior-predictive futures of the leader (index 0) and the other model (index 1).

    One posterior draw of every ``pi`` and one infinite trial sequence per simulation, shared
    by every ``n`` (common random numbers): :meth:`extra_counts` at a new ``n`` extends the
    sequence forward or splits an interval between two ``n`` already drawn. Under a learned
    prior each simulation first draws a node (per model, or shared by a pooled prior).
    """

    def __init__(
        self, post: Posterior, order: tuple[int, int], draws: int, rng: np.random.Generator
    ) -> None:
        self.rng = rng
        self.w = post.w
        idx = list(order)
        self.tally = Tally(
            post.tally.counts[idx], post.tally.n_trials[idx], post.tally.n_categories, True
        )
        self.data = post.data[idx]  # (2, M, K)
        self.n_obs = post.tally.n_trials[idx]  # (2, M)
        nodes, wts = post.fitted.nodes, post.weights.reshape(post.n_nodes, -1)[:, idx]
        g = np.array(idx) if nodes.shape[1] > 1 else np.zeros(2, int)
        if post.n_nodes == 1:
            self.alpha = nodes[0, g][None]  # (1, 2, K)
            self.node_w = np.ones((1, 2))
            self.nu = self.data + self.alpha[0][:, None, :]  # (2, M, K)
            g_draw = rng.standard_gamma(self.nu, size=(draws, *self.nu.shape))
            nu_draw = self.nu
        else:
            keep = np.stack([mixture_support(wts[:, i], 1.0 - 1e-4)[:_PLAN_NODES] for i in (0, 1)])
            if post.shared_nodes:
                keep[1] = keep[0]
            n_keep = keep.shape[1] if keep.ndim == 2 else 1
            self.alpha = np.stack([nodes[keep[i], g[i]] for i in (0, 1)], axis=1)  # (J, 2, K)
            w_keep = np.stack([wts[keep[i], i] for i in (0, 1)], axis=1)
            self.node_w = w_keep / w_keep.sum(axis=0)
            cdf = np.cumsum(self.node_w, axis=0)
            u = rng.random((draws, 1 if post.shared_nodes else 2))
            j = (u[:, None, :] > cdf[None, :, : u.shape[1]]).sum(axis=1).clip(max=n_keep - 1)
            j = np.broadcast_to(j, (draws, 2))
            nu_draw = self.data[None] + self.alpha[j, [0, 1]][:, :, None, :]  # (S, 2, M, K)
            self.nu = self.data + np.einsum("jm,jmk->mk", self.node_w, self.alpha)[:, None, :]
            g_draw = rng.standard_gamma(nu_draw)
        s = g_draw.sum(axis=-1, keepdims=True)
        # all K gammas underflowing to 0 (only for tiny nu): fall back to the posterior mean
        mean = nu_draw / nu_draw.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.pi = np.where(s > 0, g_draw / s, mean)  # (S, 2, M, K)
        self._n: list[int] = []  # evaluated n, sorted
        self._counts: list[NDArray[np.int64]] = []  # extra counts at each, (S, 2, M, K)
        self.weight = np.full(draws, 1.0 / draws)  # of each simulation
        self.p0: NDArray[np.float64] | None = None
        self.h0: NDArray[np.float64] | None = None

    def board(self, mean: NDArray[np.float64], cov: NDArray[np.float64]) -> None:
        r"""Simulate and decide as the board's joint posterior would.

        ``mean`` and ``cov`` are its mean and covariance of the pair (leader first).

        What the board adds to the closed form is the Gaussian pseudo-prior
        :math:`P_0 = C_J^{-1} - C_C^{-1}`, :math:`h_0 = C_J^{-1} m_J - C_C^{-1} m_C` (a
        direction where the joint is the wider has a negative precision), with
        :math:`(m_C, C_C)` the closed form's moments as :meth:`z` computes them (independent
        models) and :math:`(m_J, C_J)` the joint's, so that the closed form's normal law
        times :math:`\exp(-x^\top P_0 x/2 + h_0^\top x)` is the joint's. Each simulation
        is weighted by it at its :math:`x = (\bar\pi_L, \bar\pi_O)` (importance sampling
        from the closed form to the joint), and :meth:`z` combines the closed form's moments
        after the extra trials with it.
        """
        mu, sigma = self._moments(self.data[None])
        p_j, p_c = np.linalg.inv(cov), np.diag(1.0 / sigma[0] ** 2)
        self.p0, self.h0 = p_j - p_c, p_j @ mean - p_c @ mu[0]
        p0, h0 = self.p0, self.h0
        x = (self.pi @ self.w).mean(axis=-1)  # (S, 2)
        log_w = -0.5 * np.einsum("si,ij,sj->s", x, p0, x) + x @ h0
        weight = np.exp(log_w - log_w.max())
        self.weight = weight / weight.sum()

    @property
    def effective_draws(self) -> float:
        r"""Kish's effective number of simulations, :math:`1/\sum_s w_s^2`."""
        return float(1.0 / np.sum(self.weight**2))

    def prob_leader_better(self) -> float:
        pibar = (self.pi @ self.w).mean(axis=-1)  # (S, 2)
        ahead = (pibar[:, 0] > pibar[:, 1]) + 0.5 * (pibar[:, 0] == pibar[:, 1])
        return float(self.weight @ ahead)

    def extra_counts(self, n: int) -> NDArray[np.int64]:
        i = int(np.searchsorted(self._n, n))
        if i < len(self._n) and self._n[i] == n:
            return self._counts[i]
        if i == len(self._n):  # beyond every n drawn so far: extend the sequences
            base: int | NDArray[np.int64]
            add: int | NDArray[np.int64]
            if i == 0:
                base, add = 0, n - self.n_obs
            else:
                base, add = self._counts[-1], n - self._n[-1]
            counts = base + _multinomial(self.rng, add, self.pi)
        else:  # between two drawn n (or below the first): split the later counts
            hi = self._counts[i]
            if i == 0:  # the first n - N_alpha of the trials drawn up to the first n
                counts = _split(self.rng, hi, n - self.n_obs)
            else:
                lo = self._counts[i - 1]
                counts = lo + _split(self.rng, hi - lo, n - self._n[i - 1])
        self._n.insert(i, n)
        self._counts.insert(i, counts)
        return counts

    def z(self, n: int) -> NDArray[np.float64]:
        """Signed z of the leader over the other model after ``n`` trials, shape ``(S,)``."""
        mu, sigma = self._moments(self.data + self.extra_counts(n))
        if self.p0 is None:
            return (mu[:, 0] - mu[:, 1]) / np.sqrt(sigma[:, 0] ** 2 + sigma[:, 1] ** 2)
        # the joint's: the closed form's normal law times the board's pseudo-prior (where that
        # is not a proper law, a simulation whose data widened the closed form, the closed
        # form's own z)
        precision = self.p0 + np.einsum("si,ij->sij", 1.0 / sigma**2, np.eye(2))
        det = precision[:, 0, 0] * precision[:, 1, 1] - precision[:, 0, 1] ** 2
        proper = (det > 0) & (precision[:, 0, 0] > 0)
        precision[~proper] = np.eye(2)
        cov = np.linalg.inv(precision)
        mean = np.einsum("sij,sj->si", cov, mu / sigma**2 + self.h0)
        var_d = cov[:, 0, 0] + cov[:, 1, 1] - 2.0 * cov[:, 0, 1]
        own = (mu[:, 0] - mu[:, 1]) / np.sqrt(sigma[:, 0] ** 2 + sigma[:, 1] ** 2)
        return np.where(proper, (mean[:, 0] - mean[:, 1]) / np.sqrt(var_d), own)

    def _moments(self, counts: NDArray) -> tuple[NDArray, NDArray]:
        """The closed form's mean and sd of both models for ``counts`` ``(S, 2, M, K)``."""
        mus, sds = [], []
        for j in range(self.alpha.shape[0]):  # the node weights held at their current values
            post = DirichletPosterior(counts + self.alpha[j][:, None, :], self.w, self.tally)
            mu_j, sd_j = post.moments()  # (S, 2)
            mus.append(mu_j)
            sds.append(sd_j)
        if len(mus) == 1:  # arrays, of shape (S, 2)
            return cast(NDArray[np.float64], mus[0]), cast(NDArray[np.float64], sds[0])
        return mixture_moments(np.stack(mus), np.stack(sds), self.node_w[:, None, :])

    def assurance(self, n: int, z_target: float) -> float:
        return float(self.weight @ (self.z(n) >= z_target))


def _normal_guess(
    fut: _Futures, n_now: int, max_trials: int, z_target: float, target: float
) -> int:
    r"""Starting point of the search.

    The first ``n`` of a geometric grid where the normal approximation of the assurance reaches the
    target (``max_trials`` if none does).

    With :math:`d = \mu_L - \mu_O`, :math:`s_0^2 = \sigma_L^2 + \sigma_O^2` now and the plug-in
    :math:`\sigma^2(n)` of :func:`projected_z`, the posterior mean after ``n`` trials is about
    :math:`N(d, s_0^2 - \sigma^2(n))` a priori, so
    :math:`A(n) \approx \Phi\big((d - z^\ast\sigma(n)) / \sqrt{s_0^2 - \sigma^2(n)}\big)`.
    """
    grid = np.unique(np.geomspace(n_now + 1, max(max_trials, n_now + 1), 200).astype(np.int64))
    grid = grid[grid <= max_trials]
    if grid.size == 0:
        return max_trials
    post = DirichletPosterior(nu=fut.nu, w=fut.w, tally=fut.tally)
    mean, var = post.question_moments()  # (2, M)
    total = fut.nu.sum(axis=-1)
    m = mean.shape[-1]
    d = mean[0].mean() - mean[1].mean()
    s0 = var.sum() / m**2
    extra = grid[:, None, None] - fut.n_obs  # (G, 2, M)
    s_n = (var * (total + 1.0) / (total + extra + 1.0)).sum(axis=(-1, -2)) / m**2
    with np.errstate(divide="ignore", invalid="ignore"):
        a = ndtr((d - z_target * np.sqrt(s_n)) / np.sqrt(np.maximum(s0 - s_n, 0.0)))
    hit = np.flatnonzero(a >= target)
    return int(grid[hit[0]]) if hit.size else int(grid[-1])
