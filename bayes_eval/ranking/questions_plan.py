r"""Planning new questions: how many more questions settle a pair on new questions, with assurance.

On the *new-questions* estimand (:data:`~bayes_eval.posteriors.posterior.NEW_QUESTIONS`) two
models are compared by their mean scores on the population of questions the benchmark
samples (:func:`~bayes_eval.ranking.paired.compare_pairs`, the number ``rank --estimand
new-questions`` and ``pairs`` print). More trials of today's questions cannot settle that
comparison (the questions' own sampling noise stays); more questions can. This module answers:
after how many more questions, evaluated as today's were, is P(leader better on new
questions) at least ``confidence``, with probability ``assurance`` under the posterior
predictive distribution (O'Hagan, Stevens and Campbell, "Assurance in clinical trial design")?

The model (the paired comparison's)
    With :math:`d_q = s^A_q - s^B_q` the difference of the two models' mean scores on
    question q (scaled to [0, 1]), the distinct values :math:`v` of d with counts
    :math:`c_v`, and the two corners :math:`\pm 1` carrying prior masses
    :math:`(a_+, a_-)` (Rubin, "The Bayesian bootstrap"; a learned prior is a mixture over
    nodes of these masses), :math:`\pi \sim \mathrm{Dir}(c + a)` and the population difference
    is :math:`D = \sum_v v\,\pi_v`; the leader L is the model with
    :math:`P(D_L > 0 \mid R) \ge 1/2`.

Preposterior
    A new question's difference is a draw from :math:`\pi`: the K new questions give counts
    :math:`x \sim \mathrm{Mult}(K, \pi)` on the same values, with :math:`\pi` (and a learned
    prior's node) drawn from the posterior, and afterwards
    :math:`P_K = P(D_L > 0 \mid c + x)`. For binary differences the corners' masses are a
    prior on the *split* of the discordant questions, not on how many are discordant, so
    :math:`\pi` is drawn as the split :math:`s \sim \mathrm{Beta}(a_+ + n_+, a_- + n_-)` and
    the share discordant :math:`q \sim \mathrm{Beta}(2 + n_+ + n_-, 2 + n_0)` (the uniform
    table's), :math:`\pi = (q(1 - s), 1 - q, qs)` on :math:`(-1, 0, 1)`: under a learned
    split prior of large :math:`\kappa` the corners as Dirichlet masses would make the new
    questions far more often discordant than today's. The assurance is

    .. math:: A(K) = P(P_K \ge \text{confidence} \mid R),

    which tends to :math:`P(D_L > 0 \mid R)` as :math:`K \to \infty`: when that is below the
    target no number of questions reaches it. A new question is scored as today's were (the
    same trials per question): its difference is one the pair has shown or a corner, the
    Bayesian bootstrap's predictive (under the learned normal prior on the difference, one
    the pair has shown, with :math:`\pi` drawn as *The decision after K questions* says).

The decision after K questions
    Binary differences (every :math:`d_q \in \{-1, 0, 1\}`: one binary trial per question)
    give :math:`P_K = P(\mathrm{Beta}(a_+ + n_+ + x_+, a_- + n_- + x_-) > 1/2)` exactly, the
    Beta formula of :mod:`bayes_eval.ranking.paired`. Otherwise :math:`P_K` is the normal law
    with the exact mean and variance of D (for :math:`\nu = c + x + a` with total
    :math:`\nu_0`: :math:`E D = \sum_v v\nu_v/\nu_0`, :math:`\mathrm{Var} D = (\sum_v v^2
    \nu_v/\nu_0 - (E D)^2)/(\nu_0 + 1)`), where ``compare_pairs`` inverts the characteristic
    function; ``bayes-eval validate plan --target questions`` carries the plans out and
    refits with ``compare_pairs`` itself. A learned prior's nodes and weights are held at
    today's values (the refit re-learns them). Under the learned normal prior on the
    difference (``tau_weights``) :math:`P_K` is ``compare_pairs``' formula on the n + K
    questions: the normal likelihood of the mean difference with variance :math:`s^2/n`
    (divisor n - 1), shrunk by the prior; the futures' :math:`\pi` is then drawn from
    :math:`\mathrm{Dir}(c\,(n - 2)/n)` (no corners), whose D has today's mean difference and
    variance :math:`s^2/n`, and reweighted by importance to the prior.

Common random numbers
    Each of the ``draws`` simulations is one posterior draw of :math:`\pi` and one infinite
    sequence of new questions, shared by every K (``_NewQuestions``, as the trials' futures of
    :mod:`bayes_eval.ranking.sample_size`), so the estimated :math:`A(K)` is smooth in K; the
    search starts where a normal approximation reaches the target, brackets the crossing
    geometrically and bisects (``first_reaching``).

The top-k set on new questions (:func:`plan_top_questions`)
    The claims of ``rank --estimand new-questions --fdr Q`` on the paired matrix name the
    top-k set when they order each of the k models with the largest mean scores above each of
    the others. The law of the new questions is normal (``_TopQuestions``): the models'
    population means have the posterior of the normal likelihood of today's mean scores
    under the board's learned normal prior on the differences (its tau learned as
    ``compare_pairs`` learns it for graded scores, on binary results too), and the mean of K
    new questions is normal around them with the questions' covariance over K; each pair is
    then decided with the prior's weights held at today's (``_PairRule``: ``compare_pairs``'
    formula for binary results and for other scores under the learned prior, a normal law
    with the exact moments under a fixed one and for pairs whose differences are all equal),
    and :math:`A(K)` is the share of simulations whose claims name the top-k set
    (:math:`A(K) \to 1`: every strict ordering is claimed in the end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import betainc, logsumexp, ndtr, ndtri

from bayes_eval.inputs import check_memory, shown
from bayes_eval.posteriors.intervals import mixture_support
from bayes_eval.posteriors.posterior import NEW_QUESTIONS
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, PriorSpec
from bayes_eval.ranking.claims import _check_q, _check_top, claimed_prefix, fdr_claims, psd_root
from bayes_eval.ranking.difference_prior import TAU_NODES, shrink_z
from bayes_eval.ranking.paired import (
    _LEARNED,
    _MIN_SHARED,
    EXACT_LEVELS,
    _graded_tau,
    _mean_and_se2,
    _table_priors,
    compare_pairs,
    question_scores,
)
from bayes_eval.ranking.paired import (
    _NODES as _PAIRED_NODES,
)
from bayes_eval.ranking.paired_exact import _levels, _sign_probs
from bayes_eval.ranking.paired_matrices import _heaviest
from bayes_eval.ranking.sample_size import (
    _multinomial,
    _positive_int,
    _probability,
    _split,
    first_reaching,
)

__all__ = [
    "ONE_TRIAL_NOTE",
    "SEVERAL_TRIALS_NOTE",
    "TOP_QUESTIONS_NOTE",
    "QuestionsPlan",
    "TopQuestionsPlan",
    "plan_new_questions",
    "plan_questions",
    "plan_top_questions",
]

#: heaviest nodes of a learned prior used to simulate the new questions and decide after them
_NODES = 16


@dataclass(frozen=True)
class QuestionsPlan:
    r"""Result of :func:`plan_questions`.

    Attributes
    ----------
    leader : {"a", "b"}
        The model with :math:`P(D > 0) \ge 1/2` on new questions now (``"a"`` on a tie).
    m_now : int
        Questions both models answered now.
    m_required : int or None
        The smallest total number of questions (to within 1%, the search's resolution) with
        assurance >= ``assurance_target``
        (``m_now`` when the claim is already made); None when none exists or none up to
        ``max_questions`` (see ``reason``).
    extra_questions : int or None
        ``m_required - m_now``: new questions, each evaluated for both models as today's were.
    confidence : float
        P(leader better on new questions) to reach.
    assurance_target : float
    assurance_at_required : float or None
        Monte Carlo assurance at ``m_required`` (1 when the claim is already made).
    prob_leader_better : float
        :math:`P(D_L > 0 \mid R)` now, exactly as :func:`~bayes_eval.ranking.paired.compare_pairs`
        computes it under the same prior.
    assurance_limit : float
        The Monte Carlo estimate of ``prob_leader_better`` (the assurance's limit as the
        questions grow) over the simulations' posterior draws: a check of the simulations,
        not the limit the plan is judged by (``prob_leader_better`` itself).
    reason : str or None
        Why ``m_required`` is None.
    draws : int
        Monte Carlo simulations.
    max_questions : int
    prior : str
        The label of the prior of the pair's joint table.
    estimand : str
        ``"new questions"``.
    decision : str
        How ``P_K`` is computed in the simulations: ``"exact (Beta)"`` for binary differences,
        else ``"normal (exact moments)"``, or under the learned normal prior on the
        difference ``"normal (mean difference, standard error s/sqrt(n)), learned normal prior
        on the difference"``.
    note : str or None
        What the plans kept in simulation, said when more questions are planned
        (:data:`ONE_TRIAL_NOTE` from one binary trial per question, else
        :data:`SEVERAL_TRIALS_NOTE`; measured by ``bayes-eval validate plan --target
        questions``).

    Examples
    --------
    Binary, one trial, 40 questions: 10 only A solved, 4 only B, 26 both or neither; B given
    first:

    >>> a = [1.0] * 10 + [0.0] * 4 + [1.0] * 26
    >>> b = [0.0] * 10 + [1.0] * 4 + [1.0] * 26
    >>> plan = plan_questions(b, a, draws=1000)
    >>> plan.leader, plan.m_now, round(plan.prob_leader_better, 4)
    ('b', 40, 0.9408)
    >>> plan.estimand, plan.decision, plan.prior
    ('new questions', 'exact (Beta)', 'uniform')
    """

    leader: Literal["a", "b"]
    m_now: int
    m_required: int | None
    extra_questions: int | None
    confidence: float
    assurance_target: float
    assurance_at_required: float | None
    prob_leader_better: float
    assurance_limit: float
    reason: str | None
    draws: int
    max_questions: int
    prior: str = "uniform"
    estimand: str = NEW_QUESTIONS
    decision: str = "exact (Beta)"
    note: str | None = None


#: said when more questions are planned from one binary trial per question (``bayes-eval
#: validate plan --target questions --N 1``: 6 LLMs x 30 questions, 2,500 boards per cell)
ONE_TRIAL_NOTE = (
    "note: from binary differences (every question's -1, 0 or 1, as with one binary trial per "
    "question), plans of more questions for the top two models of a board (picked after "
    "seeing the results) kept their promise less often than stated in "
    "simulation (0.75 of plans against 0.80 on real MathArena rates and on boards whose "
    "ability sd is drawn from the hyperprior; 0.80 on Rasch boards): the P(leader better) of "
    "a pair picked as the best two was too high (0.90 stated, 0.86-0.89 true). Plans for a "
    "pair fixed in advance kept it (0.77-0.83). If you picked the pair from these results, "
    "aim higher (bayes-eval validate plan --target questions)."
)

#: said when more questions are planned from two or more trials per question (the same study)
SEVERAL_TRIALS_NOTE = (
    "note: from two trials per question these plans kept their promise in simulation 0.77 of "
    "the time against 0.80 for the top two models of boards whose abilities are spread, 0.67 "
    "for the top two of close models and 0.73 for "
    "a pair fixed in advance on boards whose ability sd is drawn from the hyperprior; a fixed "
    "pair on real MathArena rates kept it (0.85-0.90, measured before the learned prior on "
    "the difference) "
    "(bayes-eval validate plan --target questions [--pair random] [--ability-from-prior])."
)


class _NewQuestions:
    r"""Posterior-predictive new questions of the pair (leader first), shared by every K.

    One posterior draw of :math:`\pi` (after one node of the prior) and one infinite sequence
    of new questions per simulation; :meth:`counts` at a new K extends the sequence forward
    or splits an interval between two K already drawn (multivariate hypergeometric).
    """

    def __init__(
        self,
        levels: NDArray[np.float64],
        counts: NDArray[np.float64],
        corners: NDArray[np.float64],
        weights: NDArray[np.float64],
        draws: int,
        rng: np.random.Generator,
        tau_weights: NDArray[np.float64] | None = None,
    ) -> None:
        self.rng, self.levels, self.data = rng, levels, counts
        self.corners, self.weights = corners, weights  # (J, 2): masses at +1 and -1
        self.plus, self.minus = (
            int(np.flatnonzero(levels == 1.0)[0]),
            int(np.flatnonzero(levels == -1.0)[0]),
        )
        node = np.minimum(
            np.searchsorted(np.cumsum(weights), rng.random(draws) * weights.sum()), len(weights) - 1
        )
        # with the learned prior on the difference every pair takes the graded path, as in
        # compare_pairs (a pair's differences may all be -1, 0 or 1 on a graded board)
        self.binary = tau_weights is None and bool(np.all(np.isin(levels, (-1.0, 0.0, 1.0))))
        if self.binary:  # the split from the corners' prior, the discordance from the table's
            zero = levels == 0.0
            n_plus, n_minus = counts[self.plus], counts[self.minus]
            split = rng.beta(corners[node, 0] + n_plus, corners[node, 1] + n_minus)
            discordant = rng.beta(2.0 + n_plus + n_minus, 2.0 + counts[zero].sum(), size=draws)
            self.pi = np.zeros((draws, levels.size))
            self.pi[:, self.plus] = discordant * split
            self.pi[:, self.minus] = discordant * (1.0 - split)
            self.pi[:, zero] = (1.0 - discordant)[:, None]
        else:
            nu = np.repeat(counts[None], draws, axis=0)
            if tau_weights is not None:  # D's spread matched to the likelihood's s^2/n
                total_now = float(counts.sum())
                nu = nu * (max(total_now - 2.0, 1.0) / total_now)
            nu[:, self.plus] += corners[node, 0]
            nu[:, self.minus] += corners[node, 1]
            g = rng.standard_gamma(nu)
            total = g.sum(axis=1, keepdims=True)
            mean = nu / nu.sum(1)[:, None]
            self.pi = np.where(total > 0, g / np.where(total > 0, total, 1.0), mean)
        self._k: list[int] = []
        self._counts: list[NDArray[np.int64]] = []
        self.tau = tau_weights
        self.iw = np.full(draws, 1.0 / draws)  # the simulations' weights
        if self.tau is not None:  # flat draws of D reweighted to the learned normal prior
            # w_s = sum_tau p(tau | R) N(D_s; 0, tau^2) / mean_s' N(D_s'; 0, tau^2), in logs
            log_n = -0.5 * (self.pi @ levels)[:, None] ** 2 / TAU_NODES**2 - np.log(TAU_NODES)
            ratio = np.exp(log_n - logsumexp(log_n, axis=0) + np.log(draws))  # column means 1
            self.iw = ratio @ self.tau / draws

    def limit(self) -> float:
        """The Monte Carlo P(D_L > 0) over the simulations' draws of pi."""
        d = self.pi @ self.levels
        return float(self.iw @ ((d > 0) + 0.5 * (d == 0)))

    def counts(self, k: int) -> NDArray[np.int64]:
        """Counts of the first ``k`` new questions on every level, shape ``(S, levels)``."""
        i = int(np.searchsorted(self._k, k))
        if i < len(self._k) and self._k[i] == k:
            return self._counts[i]
        if i == len(self._k):  # beyond every K drawn: extend the sequences
            base = self._counts[-1] if i else 0
            out = base + _multinomial(self.rng, k - (self._k[-1] if i else 0), self.pi)
        else:  # below a K drawn: the first questions of the later counts
            hi = self._counts[i]
            lo = self._counts[i - 1] if i else np.zeros_like(hi)
            out = lo + _split(self.rng, hi - lo, k - (self._k[i - 1] if i else 0))
        self._k.insert(i, k)
        self._counts.insert(i, out)
        return out

    def prob(self, k: int) -> NDArray[np.float64]:
        """``P_K`` of every simulation after ``k`` new questions (module docstring)."""
        c = self.data[None] + self.counts(k)  # (S, levels)
        if self.tau is not None:  # the learned prior, tau's weights held at today's
            return _shrunk(c, self.levels, self.tau)
        a_plus, a_minus = self.corners[:, 0], self.corners[:, 1]
        if self.binary:
            m_plus = c[:, self.plus, None] + a_plus[None]
            m_minus = c[:, self.minus, None] + a_minus[None]
            return betainc(m_minus, m_plus, 0.5) @ self.weights
        return _corner_normal(
            c @ self.levels, c @ self.levels**2, c.sum(axis=1), self.corners, self.weights
        )

    def assurance(self, k: int, confidence: float) -> float:
        return float(self.iw @ (self.prob(k) >= confidence))


#: How P_K is decided: (binary, learned prior on the difference) -> name.
_DECISIONS = {
    (True, False): "exact (Beta)",
    (False, False): "normal (exact moments)",
    (False, True): "normal (mean difference, standard error s/sqrt(n)), learned normal prior "
    "on the difference",
}


def _confidence(confidence: float) -> float:
    """A checked ``confidence``: a probability in (0.5, 1)."""
    conf = _probability(confidence, "confidence")
    if not 0.5 < conf < 1.0:
        raise ValueError(
            f"confidence is {shown(confidence)}; expected a probability in (0.5, 1), e.g. 0.95."
        )
    return conf


def _p_start(
    levels: NDArray,
    counts: NDArray,
    corners: NDArray,
    weights: NDArray,
    tau_weights: ArrayLike | None,
) -> tuple[float, NDArray | None]:
    """P(A better on new questions) now, as compare_pairs gives it, and the checked tau weights.

    The exact Bayesian bootstrap with the corners, or with ``tau_weights`` (graded differences)
    the learned normal prior on the difference; as in compare_pairs, a pair of fewer than
    ``_MIN_SHARED`` questions or whose differences are all equal keeps the corners.
    """
    tau = _tau_weights(tau_weights)
    if tau is not None and counts.sum() >= _MIN_SHARED and _shrunk_applies(counts, levels):
        return float(_shrunk(counts[None], levels, tau)[0]), tau
    return float(_sign_probs(levels, counts, corners, EXACT_LEVELS)[0] @ weights), None


def _tau_weights(tau_weights: ArrayLike | None) -> NDArray | None:
    """Checked weights of the learned normal prior's tau nodes (None: the flat prior)."""
    if tau_weights is None:
        return None
    w = np.asarray(tau_weights, dtype=float)
    if w.shape != TAU_NODES.shape or not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(
            f"tau_weights has shape {w.shape}; expected {TAU_NODES.size} finite non-negative "
            "weights of the learned prior's tau nodes, not all 0."
        )
    return w / w.sum()


def _shrunk_applies(counts: NDArray, levels: NDArray) -> bool:
    """Whether today's differences are not all equal: the learned prior applies.

    Otherwise the flat prior's exact probability is today's, as in compare_pairs.
    """
    return bool(_moments(counts[None], levels)[2][0] > 0)


def _moments(counts: NDArray, levels: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Per row of ``counts``: the sum of the differences, their mean and V = s^2/n.

    Sums that cancel are exactly 0; a spread of rounding size (all differences equal) is V = 0.
    """
    return _mean_and_se2(counts @ levels, counts @ levels**2, counts.sum(axis=1))


def _shrunk(counts: NDArray, levels: NDArray, tau: NDArray) -> NDArray:
    r"""P(D > 0) per row of ``counts`` under the learned normal prior, tau's weights ``tau``.

    The normal likelihood of the mean difference (no corners), shrunk as
    :func:`~bayes_eval.ranking.paired.compare_pairs` does: mean
    :math:`\bar d = \sum_v v c_v / n`, :math:`V = s^2/n = (\sum_v v^2 c_v / n - \bar
    d^2)/(n - 1)`.
    A row whose differences are all equal (V = 0) keeps the flat prior, as ``compare_pairs``
    does: here the normal law of the bootstrap with the uniform corners.
    """
    s1, mean, var = _moments(counts, levels)
    return _shrunk_sums(s1, counts @ levels**2, counts.sum(axis=1), mean, var, var > 0, tau)


def _shrunk_sums(
    s1: NDArray,
    s2: NDArray,
    n: NDArray | int,
    mean: NDArray,
    var: NDArray,
    ok: NDArray,
    tau: NDArray,
) -> NDArray:
    """P(D > 0) from the sums of n differences and of their squares, and ``mean`` and V.

    Where ``ok``, the learned prior's shrunk normal law (tau's weights ``tau``); elsewhere the
    normal law of the bootstrap with the uniform corners (mass 1 at +1 and at -1).
    """
    flat_mean = s1 / (n + 2.0)
    flat_var = ((s2 + 2.0) / (n + 2.0) - flat_mean**2) / (n + 3.0)
    z = np.where(ok, mean, flat_mean) / np.sqrt(np.where(ok, var, flat_var))
    return np.where(ok, shrink_z(z, np.where(ok, var, 1.0), tau), ndtr(z))


def _corner_normal(
    s1: NDArray, s2: NDArray, n: NDArray | int, corners: NDArray, weights: NDArray
) -> NDArray:
    """P(D > 0) under the normal law of the Bayesian bootstrap with corner masses.

    From the sums of n differences and of their squares, with the exact mean and variance of
    D under each node's masses ``corners`` (J, 2) at +1 and -1, averaged with ``weights``.
    """
    a_plus, a_minus = corners[:, 0], corners[:, 1]
    total = np.asarray(n)[..., None] + (a_plus + a_minus)
    mean = (np.asarray(s1)[..., None] + (a_plus - a_minus)) / total
    second = (np.asarray(s2)[..., None] + (a_plus + a_minus)) / total
    var = np.maximum(second - mean**2, 0.0) / (total + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, mean / np.sqrt(var), np.sign(mean) * np.inf)
    return ndtr(z) @ weights


def _normal_guess(
    levels: NDArray, counts: NDArray, corners: NDArray, weights: NDArray, conf: float, **kw: float
) -> int:
    r"""Where the normal approximation of :math:`A(K)` first reaches the target.

    With :math:`m` and :math:`s_0^2` the mean and variance of D now and the per-question
    variance :math:`v = s_0^2(\nu_0 + 1)`, the posterior mean after K questions is about
    :math:`N(m, s_0^2 - s_K^2)` a priori with :math:`s_K^2 = v/(\nu_0 + K + 1)`, so
    :math:`A(K) \approx \Phi\big((m - z^\ast s_K)/\sqrt{s_0^2 - s_K^2}\big)`.
    """
    a = weights @ corners
    nu = counts.copy()
    nu[levels == 1.0] += a[0]
    nu[levels == -1.0] += a[1]
    total = nu.sum()
    m = nu @ levels / total
    v = nu @ levels**2 / total - m**2
    s0 = v / (total + 1.0)
    grid = np.unique(np.geomspace(1, kw["max_extra"], 200).astype(np.int64))
    s_k = v / (total + grid + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        assure = ndtr((m - ndtri(conf) * np.sqrt(s_k)) / np.sqrt(np.maximum(s0 - s_k, 0.0)))
    hit = np.flatnonzero(assure >= kw["target"])
    return int(grid[hit[0]]) if hit.size else int(grid[-1])


def _checked(
    s_a: ArrayLike,
    s_b: ArrayLike,
    prior: ArrayLike,
    prior_weights: ArrayLike | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The differences ``s_a - s_b``, the corner masses ``(J, 2)`` and their weights, checked."""
    a = np.asarray(s_a, dtype=float)
    b = np.asarray(s_b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(
            f"s_a and s_b have shapes {a.shape} and {b.shape}; expected two vectors of the same "
            "length, one score per question both models answered (at least one)."
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("s_a and s_b hold NaN or infinite scores; expected scores in [0, 1].")
    if (a < 0).any() or (a > 1).any() or (b < 0).any() or (b > 1).any():
        raise ValueError("s_a and s_b hold scores outside [0, 1]; expected scores in [0, 1].")
    bad_prior = ValueError(
        f"prior is {shown(prior)}; expected finite positive corner masses (only A, only B), "
        "one row per node."
    )
    try:
        corners = np.atleast_2d(np.asarray(prior, dtype=float))
    except (TypeError, ValueError):
        raise bad_prior from None
    if corners.ndim != 2 or corners.shape[1] != 2 or corners.shape[0] == 0:
        raise bad_prior
    if not (np.isfinite(corners).all() and (corners > 0).all()):
        raise bad_prior
    bad_weights = ValueError(
        f"prior_weights is {shown(prior_weights)}; expected {len(corners)} finite non-negative "
        "weights, not all zero."
    )
    try:
        wts = (
            np.full(len(corners), 1.0 / len(corners))
            if prior_weights is None
            else np.asarray(prior_weights, dtype=float)
        )
    except (TypeError, ValueError):
        raise bad_weights from None
    if wts.shape != (len(corners),) or not np.isfinite(wts).all():
        raise bad_weights
    if (wts < 0).any() or wts.sum() <= 0:
        raise bad_weights
    return a - b, corners, wts / wts.sum()


def plan_questions(
    s_a: ArrayLike,
    s_b: ArrayLike,
    *,
    prior: ArrayLike = (1.0, 1.0),
    prior_weights: ArrayLike | None = None,
    prior_label: str | None = None,
    tau_weights: ArrayLike | None = None,
    confidence: float = 0.95,
    assurance: float = 0.8,
    draws: int = 2000,
    max_questions: int = 100_000,
    seed: int = 0,
) -> QuestionsPlan:
    r"""More questions until the leader of two models is better on new questions, with assurance.

    The smallest total number of questions :math:`M + K` with :math:`A(K) \ge` ``assurance``,
    where :math:`A(K)` is the posterior predictive probability that after K more questions
    (each evaluated for both models as today's were) P(leader better on new questions)
    reaches ``confidence`` (module docstring).

    Parameters
    ----------
    s_a, s_b : array_like, shape ``(M,)``
        The two models' mean scores in [0, 1] on the questions both answered
        (:func:`~bayes_eval.ranking.paired.question_scores`).
    prior : array_like, shape ``(2,)`` or ``(J, 2)``, keyword-only
        Prior masses of the corners (only A right, only B right), or one row per node of a
        learned prior; default (1, 1), the uniform Dirichlet(1, 1, 1, 1).
    prior_weights : array_like, shape ``(J,)``, optional
        Weights of the nodes (default equal).
    prior_label : str, optional
        The prior's name in the result (default ``"uniform"`` for (1, 1), else
        ``"fixed corners"``).
    tau_weights : array_like, shape ``(241,)``, optional
        The weights of the learned normal prior
        :math:`N(0, \tau^2)` on the pair's difference over its 241 nodes of tau (what
        :func:`plan_new_questions` learns over the board, as
        :func:`~bayes_eval.ranking.paired.compare_pairs` does; held at today's values).
        Default None: the flat prior.
    confidence : float, keyword-only
        P(leader better on new questions) to reach, in (0.5, 1); default 0.95.
    assurance : float, keyword-only
        The probability of reaching it with the questions planned; default 0.8.
    draws : int, keyword-only
        Posterior predictive simulations; default 2000.
    max_questions : int, keyword-only
        The largest total number of questions searched; default 100000.
    seed : int, keyword-only
        Seed of the simulations; default 0.

    Returns
    -------
    QuestionsPlan
        The leader, the questions now and required, the assurance, P(leader better) now and
        the prior and estimand.

    Raises
    ------
    ValueError
        For scores outside [0, 1] or of different lengths, no question, a bad prior, or a
        confidence, assurance, number of draws or ``max_questions`` out of range.

    Examples
    --------
    Binary, one trial, 40 questions: 10 only A solved, 4 only B, 26 both or neither, so
    P(A better on new questions) = P(Beta(11, 5) > 1/2) under the uniform prior:

    >>> a = [1.0] * 10 + [0.0] * 4 + [1.0] * 26
    >>> b = [0.0] * 10 + [1.0] * 4 + [1.0] * 26
    >>> plan = plan_questions(a, b, draws=1000)
    >>> plan.leader, round(plan.prob_leader_better, 4), plan.confidence
    ('a', 0.9408, 0.95)

    The questions planned come from a Monte Carlo search whose assurance flattens towards its
    limit (0.94), so they move with the seed and the platform's floating point (about 100 to
    170 more questions over seeds 0 to 2):

    >>> 50 < plan.extra_questions < 300, plan.assurance_at_required >= 0.8
    (True, True)
    """
    conf = _confidence(confidence)
    target = _probability(assurance, "assurance")
    draws = _positive_int(draws, "draws")
    max_questions = _positive_int(max_questions, "max_questions")
    d, corners, wts = _checked(s_a, s_b, prior, prior_weights)
    label = prior_label or (
        "uniform" if corners.shape == (1, 2) and np.allclose(corners, 1.0) else "fixed corners"
    )
    m_now = int(d.size)
    levels, counts = _levels(np.concatenate([d, [-1.0, 0.0, 1.0]]))
    base = (counts - np.isin(levels, (-1.0, 0.0, 1.0))).astype(float)  # 0 and the corners
    p_a, tau = _p_start(levels, base, corners, wts, tau_weights)
    leader: Literal["a", "b"] = "a" if p_a >= 0.5 else "b"
    if leader == "b":  # orient: the leader's differences, the corners swapped
        levels, base, corners = -levels[::-1], base[::-1], corners[:, ::-1]
    p_now = p_a if leader == "a" else 1.0 - p_a
    keep = mixture_support(wts, 1.0 - 1e-4)[:_NODES]
    corners, wts = corners[keep], wts[keep] / wts[keep].sum()
    if tau is not None:  # the learned prior replaces the corners, as in compare_pairs
        corners, wts = np.zeros((1, 2)), np.ones(1)
    check_memory(8.0 * 4 * draws * levels.size, f"draws {draws}", "fewer draws")
    fut = _NewQuestions(levels, base, corners, wts, draws, np.random.default_rng(seed), tau)
    decision = _DECISIONS[fut.binary, tau is not None]
    limit = fut.limit()
    common = dict(
        leader=leader,
        m_now=m_now,
        confidence=conf,
        assurance_target=target,
        prob_leader_better=p_now,
        assurance_limit=limit,
        draws=draws,
        max_questions=max_questions,
        prior=label,
        decision=decision,
    )

    def result(k: int | None, reached: float | None, why: str | None = None) -> QuestionsPlan:
        note = None if not k else ONE_TRIAL_NOTE if fut.binary else SEVERAL_TRIALS_NOTE
        return QuestionsPlan(
            m_required=None if k is None else m_now + k,
            extra_questions=k,
            assurance_at_required=reached,
            reason=why,
            note=note,
            **common,  # type: ignore[arg-type]
        )

    if p_now >= conf:
        return result(0, 1.0)
    if p_now < target:  # the exact limit of the assurance as the questions grow
        return result(
            None,
            None,
            f"P(leader better on new questions) = {p_now:.3f} now; however many questions are "
            f"added the assurance cannot exceed it, and the target is {target}.",
        )
    if max_questions <= m_now:
        raise ValueError(
            f"max_questions is {max_questions}; expected more than the {m_now} questions "
            "answered now."
        )
    max_extra = max_questions - m_now
    guess = _normal_guess(
        levels, base, corners, wts, conf, max_extra=float(max_extra), target=target
    )
    k, reached = first_reaching(
        lambda k: fut.assurance(k, conf), 0, min(guess, max_extra), max_extra, target
    )
    if k is None:
        return result(
            None,
            None,
            f"even {max_questions} questions reach the claim with probability {reached:.3f} "
            f"only (target {target}): the assurance tends to P(leader better) = {p_now:.3f} as "
            "the questions grow, so a target this close to it needs many more questions, or a "
            "lower assurance.",
        )
    return result(k, reached)


def plan_new_questions(
    R: xr.DataArray,
    model_a: str,
    model_b: str,
    w: ArrayLike | None = None,
    *,
    pair_prior: PriorSpec = DEFAULT_PRIOR,
    fractional: bool = False,
    confidence: float = 0.95,
    assurance: float = 0.8,
    simulations: int = 2000,
    max_questions: int = 100_000,
    seed: int = 0,
) -> QuestionsPlan:
    """More questions until the leader of two models of ``R`` is better on new questions.

    :func:`plan_questions` on the two models' scores on the questions both answered, under the
    prior of the joint table that ``bayes-eval pairs`` uses: with ``pair_prior`` learned
    (``"empirical"``), the split prior learned on every pair of the board (binary results with
    one trial), otherwise the learned normal prior on the pair's difference (its tau weights
    learned over the board's pairs, ``tau_weights``; a pair sharing fewer than five questions,
    or whose differences are all equal, keeps the uniform corners). ``prob_leader_better`` is
    then the paired new-questions number ``pairs`` and ``rank --estimand new-questions``
    report.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``: categories ``0..C`` (graded
        scores with ``fractional``); NaN marks a missing trial.
    model_a, model_b : str
        The two models (names along ``model``).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    pair_prior : str, float or array_like, keyword-only
        The prior of the joint table (``prior`` of
        :func:`~bayes_eval.ranking.paired.compare_pairs`); default ``"empirical"``.
    fractional : bool, keyword-only
        ``R`` holds graded scores; default False.
    confidence, assurance, simulations, max_questions, seed
        As :func:`plan_questions` (``simulations`` is its ``draws``).

    Returns
    -------
    QuestionsPlan
        The plan; its ``leader`` is ``"a"`` for ``model_a``.

    Raises
    ------
    ValueError
        For an unknown or repeated model, two models without a question both answered, or the
        errors of :func:`plan_questions`.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(5)
    >>> p = rng.random((1, 50, 1))
    >>> R = xr.DataArray((rng.random((3, 50, 1)) < p + [[[0.0]], [[0.1]], [[0.2]]]) * 1.0,
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b", "c"]})
    >>> plan = plan_new_questions(R, "b", "c", simulations=500)
    >>> plan.leader, plan.m_now, plan.prior
    ('b', 50, 'empirical (split of discordant questions, board, integrated)')
    """
    from bayes_eval.ranking.paired import (
        _LEARNED,
        _graded_label,
        _graded_tau,
        _table_priors,
        question_scores,
    )

    names = [str(m) for m in R["model"].values]
    for m in (model_a, model_b):
        if m not in names:
            raise ValueError(f"model {shown(m)} is not in the results; expected one of {names}.")
    if model_a == model_b:
        raise ValueError(f"model {shown(model_a)} is given twice; expected two different models.")
    R = R.transpose("model", "question", "trial")
    values = R.values.astype(float)
    scores = question_scores(values, w, fractional=fractional)
    answered = ~np.isnan(scores)
    pair, _ = _table_priors(scores, answered, pair_prior, values)
    label, tau = pair.label, None
    i, j = names.index(model_a), names.index(model_b)
    binary = bool(np.all((scores == 0) | (scores == 1) | ~answered))
    if not binary and isinstance(pair_prior, str) and pair_prior in _LEARNED:
        tau, summary, _, _, _ = _graded_tau(scores, answered, pair_prior)
        label = _graded_label(summary, pair_prior)
        if (answered[i] & answered[j]).sum() < _MIN_SHARED:  # plan_questions keeps the corners
            label = f"{pair.label} (the pair shares fewer than {_MIN_SHARED} questions)"
    both = answered[i] & answered[j]
    if not both.any():
        raise ValueError(
            f"{model_a} and {model_b} answered no question in common; expected shared questions."
        )
    return plan_questions(
        scores[i, both],
        scores[j, both],
        prior=pair.masses,
        prior_weights=pair.weights,
        prior_label=label,
        tau_weights=tau,
        confidence=confidence,
        assurance=assurance,
        draws=simulations,
        max_questions=max_questions,
        seed=seed,
    )


# ------------------------------------------------------------------ the top-k set on new questions

#: prior variance of the models' grand mean in the top-k plan's law (scores lie in [0, 1]:
#: flat)
_GRAND_VARIANCE = 1e4


@dataclass(frozen=True)
class TopQuestionsPlan:
    r"""Result of :func:`plan_top_questions`.

    Attributes
    ----------
    members : tuple of int
        Today's top-k set: the k models with the largest mean scores, best first.
    top : int
        k.
    q : float
        The posterior expected FDR of the claims.
    m_now : int
        Questions now (every model answered every one).
    m_required : int or None
        The smallest total number of questions (to within 1%, the search's resolution) with
        assurance >= ``assurance_target``; ``m_now`` when the claims name the top-k set
        already; None when none up to ``max_questions`` (``reason``).
    extra_questions : int or None
        ``m_required - m_now``: new questions, each evaluated for every model as today's were.
    assurance_target : float
    assurance_at_required : float or None
        Monte Carlo assurance at ``m_required`` (1 when claimed already).
    prob_top_set : float
        P(today's set is the top-k set on new questions) under the plan's law of the models'
        population means.
    claimed_now : bool
        Whether today's claims on new questions name the top-k set.
    weakest : float or None
        When they do, the smallest P(s better than t) of those orderings.
    reason : str or None
        Why ``m_required`` is None.
    draws : int
    max_questions : int
    prior : str
        The prior of the paired comparisons (the label ``rank --estimand new-questions``
        prints).
    estimand : str
        ``"new questions"``.
    decision : str
        How the paired probabilities after the new questions are computed.
    note : str or None
        What such plans kept in simulation (``bayes-eval validate plan --target
        top-questions``), said when more questions are planned.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random((1, 60, 1)) + np.array([0.1, 0.0, -0.05])[:, None, None]
    >>> R = xr.DataArray((rng.random((3, 60, 1)) < p) * 1.0, dims=("model", "question", "trial"))
    >>> plan = plan_top_questions(R, top=1, simulations=500)
    >>> plan.members, plan.m_now, plan.claimed_now, plan.estimand
    ((0,), 60, False, 'new questions')
    """

    members: tuple[int, ...]
    top: int
    q: float
    m_now: int
    m_required: int | None
    extra_questions: int | None
    assurance_target: float
    assurance_at_required: float | None
    prob_top_set: float
    claimed_now: bool
    weakest: float | None
    reason: str | None
    draws: int
    max_questions: int
    prior: str
    estimand: str
    decision: str
    note: str | None = None


#: said when a top-k plan of more questions is made (``bayes-eval validate plan --target
#: top-questions``)
TOP_QUESTIONS_NOTE = (
    "note: carried out in simulation (6 LLMs x 30 questions, new questions from the same "
    "population), these plans kept their promise of 0.80 where the abilities are spread "
    "(0.84), on close models from four trials per question (0.82) and on real MathArena rates "
    "from one trial (0.85), but fell short on close models from one trial (0.64), on boards "
    "whose ability sd is drawn from the hyperprior (0.72-0.77) and on MathArena rates from "
    "four trials (0.72-0.77); aim higher where the models are close (bayes-eval validate plan "
    "--target top-questions)."
)


class _PairRule:
    r"""The paired comparison's P(row better than column) from each pair's mean difference.

    After n questions with mean differences :math:`d` (pairs ``i``, ``j``): for binary
    scores the Beta formula of :func:`~bayes_eval.ranking.paired.compare_pairs` on the
    discordant counts :math:`n_\pm = (n\,\delta \pm n d)/2` (rounded), :math:`\delta` today's
    share of discordant questions; otherwise, with :math:`s^2` today's variance of the
    differences (divisor n - 1), under the learned normal prior ``compare_pairs``' shrunk
    normal law with :math:`V = s^2/n` (a pair whose differences are all equal, or shared by
    fewer than five questions: the normal law with the uniform corners), and under a fixed
    prior the normal law with the exact moments of the Bayesian bootstrap with its corners.
    """

    def __init__(
        self, scores: NDArray, masses: NDArray, weights: NDArray, tau_weights: NDArray | None
    ):
        n_models, m_now = scores.shape
        self.i, self.j = np.triu_indices(n_models, k=1)
        self.binary = bool(np.all((scores == 0) | (scores == 1)))
        self.masses, self.weights, self.tau_weights = masses, weights, tau_weights
        diff = scores[self.i] - scores[self.j]  # (pairs, M)
        self.share = np.abs(diff).mean(axis=1)  # discordant (binary)
        _, _, var = _mean_and_se2(
            diff.sum(axis=1), (diff**2).sum(axis=1), np.full(self.i.size, float(m_now))
        )
        self.s2 = var * m_now  # the differences' variance, divisor n - 1 (0: all equal)

    def prob(self, d: NDArray, n: int) -> NDArray:
        """P(i better than j), shape ``(S, pairs)``, from mean differences ``d`` after ``n``."""
        if self.binary:
            disc = np.rint(n * self.share)
            plus = np.clip(np.rint((disc + n * d) / 2.0), 0.0, disc)
            key = np.stack([plus, disc - plus], axis=-1).reshape(-1, 2).astype(np.int64)
            pairs, back = np.unique(key, axis=0, return_inverse=True)  # one mixture per count
            mix = betainc(pairs[:, 1:] + self.masses[:, 1], pairs[:, :1] + self.masses[:, 0], 0.5)
            prob = np.clip(mix @ self.weights, 0.0, 1.0)
            return prob[back.ravel()].reshape(d.shape)
        second = (n - 1.0) * self.s2 + n * d**2  # the sum of the squared differences
        if self.tau_weights is not None:
            var = np.broadcast_to(self.s2 / n, d.shape)
            ok = (var > 0) & (n >= _MIN_SHARED)
            return _shrunk_sums(n * d, second, n, d, var, ok, self.tau_weights)
        return _corner_normal(n * d, second, n, self.masses, self.weights)


class _TopQuestions:
    r"""The plan's normal law of the new questions and the claims it leads to.

    The models' population means are :math:`\mu \sim N(m_\tau, C_\tau)`, the posterior of
    the normal likelihood :math:`\hat m \sim N(\mu, S/M)` (:math:`S` the covariance of the
    models' scores over today's questions) under the prior on the contrasts whose pair
    differences are :math:`N(0, \tau^2)` and a flat grand mean, with :math:`\tau` drawn from
    the board's learned weights (no prior: the flat posterior). The mean of K new questions is
    :math:`\bar x_K \sim N(\mu, S/K)`, and the means after them
    :math:`(M\hat m + K\bar x_K)/(M + K)`. One draw of :math:`\tau`, :math:`\mu` and the
    normal variables per simulation serves every K (common random numbers).
    """

    def __init__(
        self,
        scores: NDArray,
        rule: _PairRule,
        top: int,
        q: float,
        draws: int,
        rng: np.random.Generator,
    ) -> None:
        n_models, self.m_now = scores.shape
        self.rule, self.top, self.q = rule, top, q
        self.mean = scores.mean(axis=1)
        self.cov = np.atleast_2d(np.cov(scores))
        self.root = psd_root(self.cov)
        tau = rule.tau_weights
        pick = (
            np.zeros(draws, dtype=np.int64)
            if tau is None
            else rng.choice(TAU_NODES.size, size=draws, p=tau / tau.sum())
        )
        z = rng.standard_normal((2, draws, n_models))
        self.mu = np.empty((draws, n_models))
        for node in np.unique(pick):  # the nodes of tau drawn: the posterior of mu under each
            sel = pick == node
            centre, cov = self._posterior(None if tau is None else TAU_NODES[node])
            self.mu[sel] = centre + z[0, sel] @ psd_root(cov).T
        self.noise = z[1] @ self.root.T  # sqrt(K) (x_K - mu), shared by every K

    def _posterior(self, tau: float | None) -> tuple[NDArray, NDArray]:
        """The mean and covariance of the population means given tau (None: flat)."""
        like = self.cov / self.m_now
        if tau is None:
            return self.mean, like
        size = self.mean.size
        ones = np.full((size, size), 1.0 / size)
        prior = 0.5 * tau**2 * (np.eye(size) - ones) + _GRAND_VARIANCE * ones
        gain = np.linalg.solve(prior + like, prior).T  # prior (prior + like)^-1
        cov = prior - gain @ prior
        return gain @ self.mean, 0.5 * (cov + cov.T)

    def claimed(self, k: int) -> NDArray[np.bool_]:
        """Per simulation: whether the claims after ``k`` questions name the top-k set."""
        n = self.m_now + k
        means = (self.m_now * self.mean + k * self.mu + np.sqrt(k) * self.noise) / n
        i, j = self.rule.i, self.rule.j
        d = means[:, i] - means[:, j]
        block = _block(d.shape[1])  # simulations per block: the rule's arrays stay small
        p = np.concatenate([self.rule.prob(d[s : s + block], n) for s in range(0, len(d), block)])
        p = np.where(np.abs(p - 0.5) < 1e-12, 0.5, p)  # rounding at a tie is no claim
        better = np.where(p >= 0.5, i, j)
        worse = np.where(p >= 0.5, j, i)
        v = np.maximum(p, 1.0 - p)
        order = np.lexsort((worse, better, -v), axis=-1)  # fdr_claims' order
        rows = np.arange(v.shape[0])[:, None]
        _, keep = claimed_prefix(v[rows, order], self.q)
        made = np.zeros(v.shape, dtype=bool)
        made[rows, order] = np.arange(v.shape[1])[None] < keep[:, None]
        inside = np.zeros(means.shape, dtype=bool)
        inside[rows, np.argsort(-means, axis=1, kind="stable")[:, : self.top]] = True
        cross = inside[:, i] != inside[:, j]
        winner = np.where(inside[:, i], i, j)
        return ((made & (better == winner)) | ~cross).all(axis=1)

    def assurance(self, k: int) -> float:
        return float(self.claimed(k).mean())


#: bytes of the rule's largest arrays per block of simulations (pairs x nodes of the prior)
_BLOCK_BYTES = 64e6


def _block(pairs: int) -> int:
    """Simulations per block of the rule: 4 arrays of (block, pairs, tau's nodes) in float64."""
    return max(1, int(_BLOCK_BYTES // (4 * 8.0 * pairs * TAU_NODES.size)))


def _top_rule(values: NDArray, scores: NDArray, pair_prior: PriorSpec) -> _PairRule:
    """The decision rule of the top-k plan: ``compare_pairs``' prior on today's scores."""
    answered = np.ones(scores.shape, dtype=bool)
    pair, _ = _table_priors(scores, answered, pair_prior, values)
    binary = bool(np.all((scores == 0) | (scores == 1)))
    tau_weights = None
    if isinstance(pair_prior, str) and pair_prior in _LEARNED:
        tau_weights = _graded_tau(scores, answered, str(pair_prior))[0]
    if not binary:  # the nodes compare_pairs' graded paths use
        pair = _heaviest(pair, _PAIRED_NODES)
    return _PairRule(scores, pair.masses, pair.weights, tau_weights)


def _decision(rule: _PairRule) -> str:
    """How the plan decides after the new questions, in words."""
    if rule.binary:
        return "exact (Beta) on the counts of the simulated differences, today's share discordant"
    if rule.tau_weights is not None:
        return "normal (mean difference, standard error s/sqrt(n)), learned normal prior"
    return "normal (exact moments)"


def _top_scores(
    R: xr.DataArray, w: ArrayLike | None, fractional: bool, top: int
) -> tuple[NDArray, NDArray]:
    """The results ``(L, M, N)`` and each model's score per question, checked for the plan."""
    values = R.transpose("model", "question", "trial").values.astype(float)
    if values.shape[0] < 2:
        raise ValueError(f"the results have {values.shape[0]} model; expected at least two.")
    _check_top(top, values.shape[0] - 1)
    scores = question_scores(values, w, fractional=fractional)
    if np.isnan(scores).any():
        raise ValueError(
            "some model did not answer some question; a top-k plan of new questions needs every "
            "model on every question (keep only the questions every model answered)."
        )
    if scores.shape[1] < 2:
        raise ValueError(
            f"the results have {scores.shape[1]} question; a plan of new questions needs at "
            "least two "
            "(their spread is the new questions' law)."
        )
    return values, scores


def plan_top_questions(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    *,
    top: int = 1,
    fdr: float = 0.05,
    pair_prior: PriorSpec = DEFAULT_PRIOR,
    fractional: bool = False,
    assurance: float = 0.8,
    simulations: int = 2000,
    max_questions: int = 100_000,
    seed: int = 0,
) -> TopQuestionsPlan:
    r"""More questions until the claims on new questions name the top-k set, with assurance.

    The claims are those of ``rank --estimand new-questions --fdr Q`` (Müller, Parmigiani and
    Rice, "FDR and Bayesian multiple comparisons rules", 2006) on the paired new-questions
    matrix of :func:`~bayes_eval.ranking.paired.compare_pairs`; they name the top-k set when
    they order each of the k models with the largest mean scores above each of the others.
    The plan is the smallest total :math:`M + K` with :math:`A(K) = P(\text{named after K more
    questions} \mid R) \ge` ``assurance`` (O'Hagan, Stevens and Campbell, "Assurance in
    clinical trial design"). The law of the new questions is normal: the models' population
    means :math:`\mu` have the posterior of the normal likelihood of today's mean scores
    (covariance :math:`S/M`, :math:`S` the scores' covariance over the questions) under the
    board's learned normal prior on the differences (:math:`\tau` with the weights
    ``compare_pairs`` learns over the board's pairs for graded scores, learned so on binary
    results too, whose paired matrix itself uses the split prior; a flat prior for a fixed
    ``pair_prior``),
    and the mean of K new questions is :math:`N(\mu, S/K)`. After them each pair is decided
    with the prior's weights held at today's: binary scores by ``compare_pairs``' Beta formula
    on the discordant counts the simulated difference implies at today's share of discordant
    questions, other scores on the mean difference with today's spread (under the learned
    prior ``compare_pairs``' shrunk normal law, but the normal law with the uniform corners for
    a pair whose differences are all equal; under a fixed prior a normal law with the exact
    moments, where ``compare_pairs`` inverts the exact one). As K grows every strict
    ordering is claimed, so :math:`A(K) \to 1`.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("model", "question", "trial")``: categories ``0..C`` (graded
        scores with ``fractional``); every model must have answered every question.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    top : int, keyword-only
        k, from 1 to L - 1; default 1.
    fdr : float, keyword-only
        The claims' posterior expected FDR, in (0, 1); default 0.05.
    pair_prior : str, float or array_like, keyword-only
        The prior of the paired comparisons (``prior`` of
        :func:`~bayes_eval.ranking.paired.compare_pairs`); default ``"empirical"``.
    fractional : bool, keyword-only
        ``R`` holds graded scores; default False.
    assurance : float, keyword-only
        The probability of naming the top-k set with the questions planned; default 0.8.
    simulations : int, keyword-only
        Posterior predictive simulations; default 2000.
    max_questions : int, keyword-only
        The largest total number of questions searched; default 100000.
    seed : int, keyword-only
        Seed of the simulations; default 0.

    Returns
    -------
    TopQuestionsPlan
        Today's top-k set, the questions now and required, the assurance, whether the claims
        name the set already, the prior, the estimand and the rule of the decision.

    Raises
    ------
    ValueError
        For a model without an answer to some question, fewer than two models or questions,
        ``top`` outside 1 to L - 1, an FDR, assurance, number of simulations or
        ``max_questions`` out of range, or simulations that would need more memory than the
        limit (:func:`~bayes_eval.inputs.check_memory`).

    Examples
    --------
    Three models, one binary trial on 60 questions:

    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random((1, 60, 1)) + np.array([0.1, 0.0, -0.05])[:, None, None]
    >>> R = xr.DataArray((rng.random((3, 60, 1)) < p) * 1.0, dims=("model", "question", "trial"))
    >>> plan = plan_top_questions(R, top=1, simulations=1000)
    >>> plan.members, plan.m_now, plan.claimed_now
    ((0,), 60, False)

    The questions planned come from a Monte Carlo search, so they move with the seed (about
    840 to 1,020 in all over seeds 0 to 3):

    >>> 400 < plan.m_required < 2500, plan.assurance_at_required >= 0.8
    (True, True)
    """
    q = _check_q(fdr, "fdr")
    target = _probability(assurance, "assurance")
    draws = _positive_int(simulations, "simulations")
    max_questions = _positive_int(max_questions, "max_questions")
    values, scores = _top_scores(R, w, fractional, top)
    n_models, m_now = scores.shape
    pairs = n_models * (n_models - 1) // 2
    check_memory(  # the simulations' means, pair differences and claims; one block of the rule
        8.0 * 8 * draws * pairs + 2.0 * max(_BLOCK_BYTES, 32.0 * pairs * TAU_NODES.size),
        f"{draws} simulations of {pairs} pairs",
        "fewer simulations",
    )
    now = compare_pairs(values, w, fractional=fractional, prior=pair_prior, independent=False)
    rule = _top_rule(values, scores, pair_prior)
    members = np.argsort(-scores.mean(axis=1), kind="stable")[:top]
    inside = np.isin(np.arange(n_models), members)
    claims = fdr_claims(np.where(np.isnan(now.paired), 0.5, now.paired), q)
    made = set(zip(claims.better.tolist(), claims.worse.tolist(), strict=True))
    cross = [(int(a), int(b)) for a in members for b in np.flatnonzero(~inside)]
    law = _TopQuestions(scores, rule, int(top), q, draws, np.random.default_rng(seed))
    above = law.mu[:, inside].min(axis=1) > law.mu[:, ~inside].max(axis=1)  # strictly
    common = dict(
        members=tuple(int(m) for m in members),
        top=int(top),
        q=q,
        m_now=m_now,
        assurance_target=target,
        prob_top_set=float(above.mean()),
        draws=draws,
        max_questions=max_questions,
        prior=now.prior,
        estimand=NEW_QUESTIONS,
        decision=_decision(rule),
    )
    if all(c in made for c in cross):
        weakest = min(float(now.paired[a, b]) for a, b in cross)
        return TopQuestionsPlan(
            m_required=m_now,
            extra_questions=0,
            assurance_at_required=1.0,
            claimed_now=True,
            weakest=weakest,
            reason=None,
            **common,
        )
    if max_questions <= m_now:
        raise ValueError(
            f"max_questions is {max_questions}; expected more than the {m_now} questions "
            "answered now."
        )
    extra = max_questions - m_now
    k, reached = first_reaching(law.assurance, 0, min(m_now, extra), extra, target)
    reason = None
    if k is None:
        reason = (
            f"even {max_questions} questions name the top-{top} set with probability "
            f"{reached:.3f} only (target {target}): the models are too close for so few "
            "questions; allow more questions, or aim lower."
        )
    return TopQuestionsPlan(
        m_required=None if k is None else m_now + k,
        extra_questions=k,
        assurance_at_required=None if k is None else reached,
        claimed_now=False,
        weakest=None,
        reason=reason,
        note=None if k is None else TOP_QUESTIONS_NOTE,
        **common,
    )
