r"""Planning for a leaderboard's claims: trials per question until they name the top-k set.

The claims are made at a posterior expected FDR, and the plan holds with assurance.

The claims of a leaderboard (:func:`~bayes_eval.ranking.claims.fdr_claims`) are read from one
normal law of the models' scores :math:`\bar\pi \sim N(m, C)` (its moments
:func:`~bayes_eval.ranking.claims.score_moments`: the board's joint posterior). The claims
**name the top-k set** when, for the k models with the largest posterior means, every
ordering "s better than t" with s among them and t not is claimed at FDR q (the leaderboard's
tie groups then split after the k-th model; no other set can be named, since a claim
"a > b" needs the larger mean). This module answers: after how many trials per question of
every model do the claims name the top-k set, with probability ``assurance`` under the
posterior predictive distribution (O'Hagan, Stevens and Campbell, "Assurance in clinical
trial design")? The set named may differ from today's top k: the plan buys a resolved top
k, not a confirmation of today's (:attr:`ClaimsPlan.prob_top_set` says how likely today's
set is the one).

Preposterior law (normal)
    More trials add to each model's own information and nothing else: with :math:`s_l^2` the
    closed form's variance of model l now (Hariri et al., "Don't Pass@k", eq. 15) and
    :math:`s_l^2(n)` after its questions are topped up to n trials (``_Spread``),

    .. math:: C(n)^{-1} = C^{-1} + \mathrm{diag}\big(s_l^{-2}(n) - s_l^{-2}\big),

    the board's information (what the joint adds to the closed forms, :math:`C^{-1} -
    \mathrm{diag}(s_l^{-2})`) held fixed. Each question's Dirichlet variance of the weighted
    score falls as :math:`1/(T + 1)` in its total count T (its posterior mean held). The
    posterior mean after the trials is, before they are seen,
    :math:`m(n) \sim N(m, C - C(n))` (a normal prior and a normal likelihood), and the pair
    probabilities then are :math:`\Phi\big((m_a(n) - m_b(n)) / \mathrm{sd}_{C(n)}(\bar\pi_a -
    \bar\pi_b)\big)`.

Assurance
    :math:`A(n) = P(\text{the claims at FDR } q \text{ name the top-k set after } n)`, by
    Monte Carlo over ``draws`` simulations of :math:`m(n) = m + (C - C(n))^{1/2} z` with the
    same standard normal z at every n (common random numbers: A is smooth in n). It tends to
    1 as :math:`n \to \infty` (every score becomes known). The search is that of
    ``plan_separation``.

Refit law (``preposterior="refit"``)
    The normal law holds the board's information fixed; after more trials the board model
    re-learns its scales (from one trial per question its dispersion is not identified, from
    two it is). The refit law simulates the future boards themselves: per simulation every
    cell's rate is drawn from the board model's joint posterior
    (:meth:`~bayes_eval.posteriors.joint.JointPosterior.rate_draws`), the extra successes
    of :math:`n - N` trials at that rate by the inverse binomial distribution function at
    one uniform per cell kept for every n (common random numbers: no cell's successes fall
    as n grows), and the board model is refitted and its claims read. The search starts from
    the normal law's n and stops at 10% of n.

For two named models, ``plan A B --fdr q`` plans the claim "A better than B" at FDR q with
``plan_separation`` at confidence :math:`1 - q`: a pair
with :math:`P \ge 1 - q` is in the claims whatever the other pairs, since every pair sorted
before it has :math:`1 - v \le q`.

Checked by simulation in ``bayes-eval validate plan --target top`` (the plan carried out
from the truth, the board refitted and its claims read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

from bayes_eval.inputs import check_memory, shown
from bayes_eval.posteriors.posterior import THESE_QUESTIONS, DirichletPosterior, Posterior
from bayes_eval.ranking.claims import _check_q, claimed_prefix, psd_root, score_moments
from bayes_eval.ranking.refit_law import RefitBoards, check_preposterior
from bayes_eval.ranking.sample_size import (
    _positive_int,
    _probability,
    first_reaching,
)

__all__ = [
    "ClaimsPlan",
    "Preposterior",
    "plan_top",
    "preposterior",
    "top_assurance",
]


@dataclass(frozen=True)
class ClaimsPlan:
    r"""Result of :func:`plan_top`.

    Attributes
    ----------
    members : tuple of int
        Today's top-k set S: the k models with the largest posterior means, best first.
    top : int
        k.
    q : float
        The posterior expected FDR of the claims.
    n_now : int
        Trials per question now (the largest of any model and question).
    n_required : int or None
        Smallest total trials per question (every model, every question topped up) with
        assurance >= ``assurance_target``; ``n_now`` when the claims name the top-k set
        already; ``None`` when none up to ``max_trials`` (``reason``).
    extra_trials : int or None
        ``n_required - n_now``.
    assurance_target : float
    assurance_at_required : float or None
        Monte Carlo assurance at ``n_required`` (1 when claimed already).
    prob_top_set : float
        :math:`P(S \text{ is the top-k set} \mid \text{data})` (normal law, ``draws``
        draws): how likely the set the plan's claims will name is today's.
    claimed_now : bool
        Whether the claims at FDR q already name the top-k set (then it is S).
    weakest : float or None
        When they do, the smallest P(s better than t) among those orderings: the FDR budget is
        shared by all the claims, so on a board of many near-certain pairs it can be far
        below ``1 - q`` (compare ``prob_top_set``).
    reason : str or None
        Why ``n_required`` is None.
    draws : int
    max_trials : int
    prior : str
    estimand : str
    note : str or None
        A caution when the plan rests on one trial per question on a board (checked by
        simulation: ``bayes-eval validate plan --target top --N 1``, with ``--refit-check
        100`` for the refit law's; measured for the top model at assurance 0.8).
    preposterior : str
        The law the assurance was computed under: ``"normal"`` or ``"refit"``
        (:func:`plan_top`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> rng = np.random.default_rng(1)
    >>> p = np.array([0.8, 0.6, 0.55, 0.5])[:, None] * np.ones((4, 40))
    >>> R = (rng.random((4, 40, 2)) < p[..., None]).astype(int)
    >>> plan = plan_top(posterior(R, prior="uniform"), top=1, draws=500)
    >>> plan.members, plan.n_now, plan.n_required, plan.extra_trials, plan.claimed_now
    ((0,), 2, 29, 27, False)
    >>> round(plan.prob_top_set, 4), plan.prior, plan.estimand
    (0.828, 'uniform', 'these questions')
    """

    members: tuple[int, ...]
    top: int
    q: float
    n_now: int
    n_required: int | None
    extra_trials: int | None
    assurance_target: float
    assurance_at_required: float | None
    prob_top_set: float
    claimed_now: bool
    weakest: float | None
    reason: str | None
    draws: int
    max_trials: int
    prior: str
    estimand: str = THESE_QUESTIONS
    note: str | None = None
    preposterior: str = "normal"


#: said of a plan under the normal law when every question has one trial (``bayes-eval
#: validate plan --target top --N 1``)
ONE_TRIAL_NOTE = (
    "note: plans from one trial per question on a board kept their promise less often than "
    "stated in simulation: 0.70 of plans at assurance 0.8 on close models (about 0.50 of "
    "those asking for at most 9 trials), 0.75 where the abilities' sd was drawn from the "
    "board model's hyperprior and 0.77-0.78 on boards drawn from its whole prior; on real "
    "MathArena rates they kept it (bayes-eval validate plan --target top --N 1, with "
    "--ability-from-prior, --rates prior, --rates matharena); aim higher, or plan over refitted "
    "boards (plan --preposterior refit): plans made under it were kept in 0.77 of cases "
    "against 0.81 on close models and 0.79 against 0.82 on the model's prior (s.e. 0.05-0.07; "
    "top model, assurance 0.8)."
)

#: said of a plan made under the refit law when every question has one trial
REFIT_ONE_TRIAL_NOTE = (
    "note: from one trial per question, plans made under the refit law were kept in 0.78 +- "
    "0.04 of cases against 0.81 promised (109 plans for the top model at assurance 0.8, on "
    "close models and on boards drawn from the board model's prior; bayes-eval validate plan "
    "--target top --N 1 --preposterior refit); at the normal law's plans its assurance was also "
    "about 0.03 above the share kept; aim a little higher."
)


class _Spread:
    r"""Per model, the closed form's variance once every question is topped up to ``n`` trials.

    It is :math:`s_l^2(n) = \sum_\alpha v_{l\alpha}(n) / M^2`.

    Under a fixed prior the refit keeps it, and the expected posterior variance of a
    question's Dirichlet after :math:`n - N_\alpha` more trials is exactly
    :math:`v_\alpha (T_\alpha + 1) / (T_\alpha + n - N_\alpha + 1)`, with :math:`v_\alpha`
    its variance and :math:`T_\alpha` its total count now. Under a learned prior the refit
    re-learns it from the extra trials, and the question's variance is the data's:
    :math:`v_\alpha(n) = E[s^2(\pi_\alpha)] / (n + 1)`, where
    :math:`s^2(\pi) = \sum_k w_k^2 \pi_k - (\sum_k w_k \pi_k)^2` is one trial's variance and
    its expectation under today's posterior (each node's Dirichlet, weighted) is
    :math:`\sum_j w_j v_{j\alpha} T_{j\alpha}`. Checked against refitted boards in
    ``tests/ranking/test_claims_plan.py``.
    """

    def __init__(self, post: Posterior):
        nodes = post.fitted.nodes  # (J, G, K)
        L = post.n_models
        g = np.arange(L) if nodes.shape[1] > 1 else np.zeros(L, int)
        wts = np.asarray(post.weights).reshape(post.n_nodes, L)
        self.learned = bool(post.prior.learned)
        self.n_obs = post.tally.n_trials  # (L, M)
        self.m = post.data.shape[1]
        self.one_trial = np.zeros(self.n_obs.shape)  # E[s^2(pi)] per question
        for j in np.flatnonzero(wts.max(axis=1) > 1e-12):  # one node at a time: (L, M, K)
            nu = post.data + nodes[j, g][:, None, :]
            var = DirichletPosterior(nu=nu, w=post.w, tally=post.tally).question_moments()[1]
            total = nu.sum(axis=-1)
            if not self.learned:  # one node
                self.var, self.total = var, total
                break
            self.one_trial += wts[j][:, None] * var * total

    def __call__(self, n: int) -> NDArray[np.float64]:
        if self.learned:
            return self.one_trial.sum(axis=-1) / (n + 1.0) / self.m**2
        extra = np.maximum(n - self.n_obs, 0)
        later = self.var * (self.total + 1.0) / (self.total + extra + 1.0)
        return later.sum(axis=-1) / self.m**2


class _TopSet:
    """Whether the claims at FDR q name a top-k set, under the normal preposterior law."""

    def __init__(
        self, post: Posterior, top: int, q: float, draws: int, rng: np.random.Generator
    ) -> None:
        self.q, self.top = q, top
        self.mean, self.cov = score_moments(post)
        L = self.mean.size
        self.members = np.argsort(-self.mean, kind="stable")[:top]
        self.inside = np.zeros(L, dtype=bool)  # today's top-k set
        self.inside[self.members] = True
        self.i, self.j = np.triu_indices(L, k=1)
        closed = np.asarray(post.closed_form.sd, dtype=float).reshape(L)
        self.info_now = 1.0 / closed**2
        self.spread = _Spread(post)
        self.precision = np.linalg.inv(self.cov)
        self.z = rng.standard_normal((draws, L))

    def _moments_after(self, n: int) -> tuple[NDArray, NDArray]:
        """:math:`C(n)` and a square root of :math:`C - C(n)`."""
        gain = np.maximum(1.0 / self.spread(n) - self.info_now, 0.0)
        cov_n = np.linalg.inv(self.precision + np.diag(gain))
        cov_n = 0.5 * (cov_n + cov_n.T)
        return cov_n, psd_root(self.cov - cov_n)

    def claimed(self, means: NDArray, cov: NDArray) -> NDArray[np.bool_]:
        """Per row s: whether the claims at FDR q under ``N(means[s], cov)`` name the top set.

        That is, whether they order each of the ``top`` models with the largest means above each
        of the others (no other set can be: a claim "a > b" needs the larger mean).
        """
        i, j = self.i, self.j
        sd = np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2.0 * cov[i, j], 1e-300))
        p = ndtr((means[:, i] - means[:, j]) / sd)  # (S, pairs): P(i > j)
        v = np.maximum(p, 1.0 - p)
        ordered = -np.sort(-v, axis=1)
        _, keep = claimed_prefix(ordered, self.q)
        rows = np.arange(v.shape[0])
        thr = np.where(keep > 0, ordered[rows, np.maximum(keep - 1, 0)], 2.0)
        inside = np.zeros(means.shape, dtype=bool)
        best = np.argsort(-means, axis=1, kind="stable")[:, : self.top]
        inside[rows[:, None], best] = True
        cross = inside[:, i] != inside[:, j]
        return ((v >= thr[:, None]) | ~cross).all(axis=1)

    def weakest(self) -> float:
        """The smallest P(s better than t) today, s in the top-k set and t not."""
        inside = self.inside
        sd = np.sqrt(np.add.outer(np.diag(self.cov), np.diag(self.cov)) - 2.0 * self.cov)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = ndtr(np.subtract.outer(self.mean, self.mean) / sd)
        return float(p[np.ix_(inside, ~inside)].min())

    def assurance(self, n: int) -> float:
        cov_n, root = self._moments_after(n)
        return float(self.claimed(self.mean + self.z @ root.T, cov_n).mean())

    def prob_top_set(self) -> float:
        """P(the current top-k set is the top-k set) over normal draws of the scores."""
        x = self.mean + self.z @ psd_root(self.cov).T
        inside = self.inside
        return float((x[:, inside].min(axis=1) > x[:, ~inside].max(axis=1)).mean())


def _refit_top(
    post: Posterior,
    board: _TopSet,
    draws: int,
    rng: np.random.Generator,
    progress: Callable[[str], None] | None,
) -> RefitBoards:
    """The refit law of a top-k plan: the refitted board's claims name a top-k set."""
    return RefitBoards(
        post,
        draws,
        rng,
        decide=lambda mean, cov: bool(board.claimed(mean[None], cov)[0]),
        progress=progress,
    )


def _check_n(post: Posterior, n: object) -> int:
    """``n`` as trials per question after a plan; ValueError below today's most."""
    n_now = int(post.tally.n_trials.max())
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < n_now:
        raise ValueError(f"n is {shown(n)}; expected whole trials per question, at least {n_now}.")
    return int(n)


def _check_board(post: Posterior, top: object) -> None:
    """Raise ValueError unless ``post`` is a board of complete results and ``top`` a set size."""
    if not post.batched or post.n_models < 2:
        raise ValueError(
            f"the posterior has {post.n_models} model(s); a top-k set needs at least two."
        )
    if (
        isinstance(top, bool)
        or not isinstance(top, (int, np.integer))
        or not 1 <= top < post.n_models
    ):
        raise ValueError(
            f"top is {shown(top)}; expected a set size from 1 to {post.n_models - 1} (one fewer "
            "than the models)."
        )
    if post.answered is not None or post.fractional:
        raise ValueError(
            "planning needs complete categorical results (no incomplete design, no fractional "
            "counts)."
        )


def plan_top(
    post: Posterior,
    *,
    top: int = 1,
    q: float = 0.05,
    assurance: float = 0.8,
    draws: int = 2000,
    max_trials: int = 10_000,
    seed: int | np.random.Generator = 0,
    preposterior: str = "normal",
    progress: Callable[[str], None] | None = None,
) -> ClaimsPlan:
    r"""Trials per question of every model until the claims at FDR ``q`` name the top-k set.

    The plan reaches it with probability ``assurance``.

    The claims at posterior expected FDR ``q`` (:func:`~bayes_eval.ranking.claims.fdr_claims`:
    Müller, Parmigiani and Rice, "FDR and Bayesian multiple comparisons rules") name the
    top-k set when they order each of the ``top`` models with the largest posterior means
    above each of the others. The assurance is over the normal preposterior law of the
    scores (module docstring), or with ``preposterior="refit"`` over boards refitted after
    simulated trials: every cell's rate drawn from the board model's joint posterior, the
    extra trials drawn at those rates, the board model refitted (its scales re-learned) and
    its claims read, as the board will be read after the trials. The refit law costs one
    board fit per simulation and value of n searched (seconds to minutes; give fewer
    ``draws``, the CLI uses 200). From one trial per question, where the normal law
    over-promises, its assurance at the normal law's plans' n was about 0.03 above the share
    of those plans kept, and plans made under it were kept in 0.78 +- 0.04 of cases against
    0.81 promised (the top model at assurance 0.8; *Validation*, Plans).

    Parameters
    ----------
    post : Posterior
        A leaderboard's posterior (several models; complete categorical results).
    top : int, keyword-only
        k, from 1 to the number of models minus one.
    q : float, keyword-only
        Posterior expected FDR of the claims, in (0, 1).
    assurance : float, keyword-only
        Target probability, in (0, 1).
    draws : int, keyword-only
        Monte Carlo simulations (the assurance has Monte Carlo sd about
        ``sqrt(0.16 / draws)``).
    max_trials : int, keyword-only
        Largest total trials per question considered.
    seed : int or numpy.random.Generator, keyword-only
        Seed of the simulations (default 0); the plan is deterministic for an integer seed.
    preposterior : {"normal", "refit"}, keyword-only
        The law of the future boards: the normal preposterior law (default, fast) or refitted
        boards (``draws`` refits per n searched; binary results under the board model only).
    progress : callable, keyword-only
        Called with a line after each n the refit law tries (None: silent).

    Returns
    -------
    ClaimsPlan
        Today's top-k set, the trials per question now and required, the assurance reached
        and, when no plan exists, the reason.

    Raises
    ------
    ValueError
        For a posterior of one model or of incomplete or fractional results, ``top`` out of
        range, a level outside (0, 1), a bad number of simulations or ``max_trials``, an
        unknown law, the refit law where the board model does not apply, or simulations that
        would not fit in memory.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> from bayes_eval.ranking.claims_plan import plan_top
    >>> rng = np.random.default_rng(1)
    >>> p = np.array([0.8, 0.6, 0.55, 0.5])[:, None] * np.ones((4, 40))
    >>> R = (rng.random((4, 40, 2)) < p[..., None]).astype(int)
    >>> plan = plan_top(posterior(R), top=1)
    >>> plan.members, plan.n_required is not None
    ((0,), True)
    """
    assurance = _probability(assurance, "assurance")
    q = _check_q(q)
    draws = _positive_int(draws, "draws")
    max_trials = _positive_int(max_trials, "max_trials")
    _check_board(post, top)
    check_preposterior(post, preposterior)
    L = post.n_models
    check_memory(
        8.0 * 6 * draws * L * (L - 1) / 2,
        f"{draws} simulations of the claims among {L} models",
        "fewer simulations",
    )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    board = _TopSet(post, int(top), q, draws, rng)
    n_now = int(post.tally.n_trials.max())
    members = tuple(int(m) for m in board.members)
    now = bool(board.claimed(board.mean[None], board.cov)[0])
    weakest = board.weakest() if now else None
    limit = board.prob_top_set()

    def plan(n: int | None, a: float | None, reason: str | None = None) -> ClaimsPlan:
        return ClaimsPlan(
            members=members,
            top=int(top),
            q=q,
            n_now=n_now,
            n_required=n,
            extra_trials=None if n is None else n - n_now,
            assurance_target=assurance,
            assurance_at_required=a,
            prob_top_set=limit,
            claimed_now=now,
            weakest=weakest,
            reason=reason,
            draws=draws,
            max_trials=max_trials,
            prior=post.prior_label,
            note=(
                (ONE_TRIAL_NOTE if preposterior == "normal" else REFIT_ONE_TRIAL_NOTE)
                if n_now == 1 and post.joint is not None
                else None
            ),
            preposterior=preposterior,
        )

    if now:
        return plan(n_now, 1.0)
    if n_now >= max_trials:
        return plan(None, None, f"not within max_trials = {max_trials} (n_now = {n_now}).")
    n, a = first_reaching(board.assurance, n_now, n_now + 1, max_trials, assurance)
    if preposterior == "refit":  # from the normal law's answer, by refitted boards
        refit = _refit_top(post, board, draws, rng, progress)
        # to 10% of n: each n tried costs a refit per simulation, and the assurance's Monte
        # Carlo error is worth more than that
        n, a = first_reaching(
            refit.assurance, n_now, n or max_trials, max_trials, assurance, resolution=0.1
        )
    if n is None:
        return plan(
            None,
            None,
            f"not within max_trials = {max_trials}: the assurance there is {a:.3f}.",
        )
    return plan(n, a)


@dataclass(frozen=True)
class Preposterior:
    r"""The preposterior law :func:`plan_top` plans with, at ``n`` trials per question.

    Returned by :func:`preposterior`; its methods place a realised future in the law, the
    diagnostics of ``bayes-eval validate plan --target top``.

    Attributes
    ----------
    n : int
        Trials per question after the plan.
    top : int
        k, the size of the set the claims are to name.
    mean, cov : ndarray, shapes ``(L,)`` and ``(L, L)``
        Today's posterior mean m and covariance C of the scores.
    cov_after : ndarray, shape ``(L, L)``
        :math:`C(n)`, the covariance the law gives the posterior after the trials.
    means_after : ndarray, shape ``(draws, L)``
        Draws of the posterior mean after the trials, :math:`m(n) \sim N(m, C - C(n))`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> rng = np.random.default_rng(1)
    >>> p = np.array([0.8, 0.6, 0.55, 0.5])[:, None] * np.ones((4, 40))
    >>> R = (rng.random((4, 40, 2)) < p[..., None]).astype(int)
    >>> from bayes_eval.ranking.claims_plan import preposterior
    >>> law = preposterior(posterior(R, prior="uniform"), 20, draws=500)
    >>> law.means_after.shape, law.cov_after.shape
    ((500, 4), (4, 4))
    >>> bool(np.all(np.diag(law.cov_after) < np.diag(law.cov)))
    True
    """

    n: int
    top: int
    mean: NDArray[np.float64]
    cov: NDArray[np.float64]
    cov_after: NDArray[np.float64]
    means_after: NDArray[np.float64]

    def margin(self, means: ArrayLike) -> NDArray[np.float64]:
        r"""The claims' margin: the smallest standardised gap across the top-k set's edge.

        Per row of ``means``: :math:`\min_{s \in S, t \notin S} (x_s - x_t) /
        \mathrm{sd}_{C(n)}(\bar\pi_s - \bar\pi_t)`, S the k largest entries of the row.

        Parameters
        ----------
        means : array_like, shape ``(L,)`` or ``(S, L)``
            Posterior means after the trials, one row per future.

        Returns
        -------
        ndarray, shape ``(S,)``
            The margin of each row (its own top-k set).
        """
        x = np.atleast_2d(np.asarray(means, dtype=float))
        c = self.cov_after
        sd = np.sqrt(np.maximum(np.add.outer(np.diag(c), np.diag(c)) - 2.0 * c, 1e-300))
        order = np.argsort(-x, axis=1, kind="stable")
        inside, outside = order[:, : self.top], order[:, self.top :]
        rows = np.arange(x.shape[0])[:, None, None]
        a, b = inside[:, :, None], outside[:, None, :]
        z = (x[rows, a] - x[rows, b]) / sd[a, b]
        return z.reshape(x.shape[0], -1).min(axis=1)

    def _one(self, means: ArrayLike) -> NDArray[np.float64]:
        x = np.asarray(means, dtype=float)
        if x.shape != self.mean.shape:
            raise ValueError(
                f"means have shape {x.shape}; expected one posterior mean per model, shape "
                f"{self.mean.shape}."
            )
        return x

    def margin_pit(self, means: ArrayLike) -> float:
        """The law's probability that the margin falls at or below that of ``means``.

        Uniform over boards when realised futures follow the law.

        Parameters
        ----------
        means : array_like, shape ``(L,)``
            A realised posterior mean after the trials.

        Returns
        -------
        float
            The share of the law's draws whose margin is at most that of ``means``.
        """
        x = self._one(means)
        return float((self._law_margins <= self.margin(x)[0]).mean())

    @cached_property
    def _law_margins(self) -> NDArray[np.float64]:
        """The margins of the law's draws (computed once)."""
        return self.margin(self.means_after)

    def move(self, means: ArrayLike) -> float:
        r"""The squared Mahalanobis distance of ``means - m`` under :math:`C - C(n)`, per dimension.

        1 on average when realised futures follow the law (pseudo-inverse over the
        dimensions :math:`C - C(n)` spans).

        Parameters
        ----------
        means : array_like, shape ``(L,)``
            A realised posterior mean after the trials.

        Returns
        -------
        float
            :math:`d^\top (C - C(n))^{+} d / r`, :math:`d` = ``means - m``, r the rank.
        """
        d = self._one(means) - self.mean
        vals, vecs = np.linalg.eigh(self.cov - self.cov_after)
        keep = vals > 1e-12 * max(float(vals.max()), 1e-300)
        proj = vecs[:, keep].T @ d
        return float((proj**2 / vals[keep]).sum() / max(int(keep.sum()), 1))

    def gap_variance_ratio(self, cov: ArrayLike) -> float:
        """The gap variances of ``cov`` over those of :math:`C(n)`, geometric mean.

        Over the pairs across today's top-k set (the k largest entries of ``mean``); below 1:
        ``cov`` is surer than the law foresaw.

        Parameters
        ----------
        cov : array_like, shape ``(L, L)``
            A realised posterior covariance after the trials.

        Returns
        -------
        float
        """
        c = np.asarray(cov, dtype=float)
        if c.shape != self.cov.shape:
            raise ValueError(f"cov has shape {c.shape}; expected {self.cov.shape}.")
        inside = np.argsort(-self.mean, kind="stable")[: self.top]
        outside = np.setdiff1d(np.arange(self.mean.size), inside)
        a, b = inside[:, None], outside[None, :]

        def gaps(m: NDArray) -> NDArray:
            return m[a, a] + m[b, b] - 2.0 * m[a, b]

        return float(np.exp(np.log(gaps(c) / gaps(self.cov_after)).mean()))


def preposterior(
    post: Posterior, n: int, *, top: int = 1, draws: int = 2000, seed: int = 0
) -> Preposterior:
    r"""The normal preposterior law of :func:`plan_top` at ``n`` trials per question.

    :math:`C(n)^{-1} = C^{-1} + \mathrm{diag}(s_l^{-2}(n) - s_l^{-2})` and
    :math:`m(n) \sim N(m, C - C(n))` (module docstring), with ``draws`` draws of
    :math:`m(n)`.

    Parameters
    ----------
    post : Posterior
        A leaderboard's posterior (as for :func:`plan_top`).
    n : int
        Trials per question after the plan, at least the most any model has now.
    top : int, keyword-only
        k.
    draws : int, keyword-only
        Draws of the posterior mean after the trials.
    seed : int, keyword-only
        Seed of the draws (the same as :func:`plan_top`'s gives its simulations).

    Returns
    -------
    Preposterior
        Today's mean and covariance, :math:`C(n)` and the draws of :math:`m(n)`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> rng = np.random.default_rng(1)
    >>> p = np.array([0.8, 0.6, 0.55, 0.5])[:, None] * np.ones((4, 40))
    >>> R = (rng.random((4, 40, 2)) < p[..., None]).astype(int)
    >>> from bayes_eval.ranking.claims_plan import preposterior
    >>> law = preposterior(posterior(R, prior="uniform"), 29, draws=500)
    >>> pit = law.margin_pit(law.means_after[0])  # a future drawn from the law itself
    >>> 0.0 <= pit <= 1.0, law.gap_variance_ratio(law.cov_after)
    (True, 1.0)
    """
    _check_board(post, top)
    draws = _positive_int(draws, "draws")
    n = _check_n(post, n)
    board = _TopSet(post, int(top), 0.05, draws, np.random.default_rng(seed))
    cov_n, root = board._moments_after(n)
    return Preposterior(
        n=n,
        top=int(top),
        mean=board.mean,
        cov=board.cov,
        cov_after=cov_n,
        means_after=board.mean + board.z @ root.T,
    )


def top_assurance(
    post: Posterior,
    n: int,
    *,
    top: int = 1,
    q: float = 0.05,
    draws: int = 2000,
    seed: int = 0,
    preposterior: str = "normal",
) -> float:
    r"""P(the claims at FDR ``q`` name the top-k set after ``n`` trials per question).

    The assurance :func:`plan_top` computes at one ``n`` (every model's questions topped up to
    ``n`` trials), under the normal preposterior law or over refitted boards (module
    docstring; :func:`plan_top`): for a budget fixed in advance, or to check a plan's n under
    the other law.

    Parameters
    ----------
    post : Posterior
        A leaderboard's posterior (as for :func:`plan_top`).
    n : int
        Trials per question after the extra trials, at least the most any model has now.
    top : int, keyword-only
        k, from 1 to the number of models minus one.
    q : float, keyword-only
        Posterior expected FDR of the claims, in (0, 1).
    draws : int, keyword-only
        Simulations (with ``"refit"``, each a board fit).
    seed : int, keyword-only
        Seed of the simulations (with the same seed and law, the number :func:`plan_top`
        computed at ``n``).
    preposterior : {"normal", "refit"}, keyword-only
        The law of the future boards.

    Returns
    -------
    float
        The share of the simulated futures whose claims name a top-k set.

    Raises
    ------
    ValueError
        For an ``n`` below today's trials per question, or as :func:`plan_top`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> rng = np.random.default_rng(1)
    >>> p = np.array([0.8, 0.6, 0.55, 0.5])[:, None] * np.ones((4, 40))
    >>> R = (rng.random((4, 40, 2)) < p[..., None]).astype(int)
    >>> post = posterior(R, prior="uniform")
    >>> plan = plan_top(post, draws=500)
    >>> top_assurance(post, plan.n_required, draws=500) == plan.assurance_at_required
    True
    """
    q = _check_q(q)
    draws = _positive_int(draws, "draws")
    _check_board(post, top)
    check_preposterior(post, preposterior)
    n = _check_n(post, n)
    rng = np.random.default_rng(seed)
    board = _TopSet(post, int(top), q, draws, rng)
    if preposterior == "refit":
        return _refit_top(post, board, draws, rng, None).assurance(n)
    return board.assurance(n)
