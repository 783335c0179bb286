r"""Prior elicitation: from statements about accuracy to Beta/Dirichlet priors (and back).

A statement "accuracy is between ``lo`` and ``hi`` with probability ``p``" can mean two
different things, and the Bayes@N prior of Hariri et al. ("Don't Pass@k: A Bayesian Framework
for Large Language Model Evaluation", eq. 6) gives each question an *independent*
:math:`\mathrm{Dir}(\alpha)` prior, so the difference matters:

``level="question"``
    The statement is about **every single question**: each :math:`\pi_q` gets the Beta prior
    whose equal-tailed ``p`` interval is ``[lo, hi]``. The target
    :math:`\bar\pi = \frac1M\sum_q w\cdot\pi_q` is then a mean of M independent draws and its
    prior is about :math:`\sqrt M` times narrower than the statement: "between 0.3 and 0.6
    with probability 0.9" becomes :math:`\mathrm{Beta}(12.9, 15.9)` per question (worth 26.8
    trials on every question) and implies :math:`\bar\pi \in [0.421, 0.475]` at M = 30, 5.5
    times narrower than the belief stated.
``level="benchmark"``
    The statement is about **the model's accuracy on the benchmark**. The per-question prior
    becomes hierarchical, :math:`\pi_q \mid m \sim \mathrm{Beta}(s m, s(1-m))` independently,
    and the elicited Beta goes to the benchmark mean, :math:`m \sim \mathrm{Beta}(a, b)`; the
    spread of accuracies across questions is a separate statement, the concentration ``s``.
    The implied prior of :math:`\bar\pi` is a mixture over m; it is close to the statement
    but a little wider, because :math:`\bar\pi` is a finite average around m (both are
    reported). Binary results only.

Both levels always compute the implied central ``p`` interval of :math:`\bar\pi` for the
user's M and compare it with the stated one; a width ratio below ``warn_ratio`` (default 1/2)
or above ``1 / warn_ratio`` raises an :class:`ElicitationWarning`.

The Beta fit solves the two quantile equations :math:`F(lo) = (1-p)/2`, :math:`F(hi) = (1+p)/2`
for :math:`(a, b)` on the log scale (scipy). For a rubric, one statement per category gives the
Dirichlet whose Beta marginals :math:`\mathrm{Beta}(\alpha_k, A - \alpha_k)` match the
statements in the least-squares sense (question level only).

The implied *prior depth* is how many earlier trials the per-question prior is worth next to
the paper's uniform prior (eq. 6: :math:`n^0 = 1 + \text{counts of } R^0`):
:math:`D = \sum_k \alpha_k - (C + 1)`; negative D means vaguer than uniform. At benchmark level
the per-question prior given m sums to s, so :math:`D = s - 2`.

:func:`prior_predictive` draws pi-bar for M questions under the prior; :func:`sensitivity`
compares mu, sigma and ranks of real results under the uniform and the elicited prior.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.special import betaln, expit, log_expit, logsumexp, roots_jacobi
from scipy.stats import beta as beta_dist

from bayes_eval.bayes_at_n import bayes
from bayes_eval.exact_posterior import exact_posterior
from bayes_eval.inputs import tally
from bayes_eval.ranking import rank

__all__ = [
    "DEFAULT_CONCENTRATION",
    "DEFAULT_WARN_RATIO",
    "ElicitationWarning",
    "ElicitedPrior",
    "elicit_beta",
    "elicit_dirichlet",
    "prior_predictive",
    "sensitivity",
]

Level = Literal["question", "benchmark"]

#: Default spread across questions at benchmark level: :math:`\pi_q \mid m \sim
#: \mathrm{Beta}(m, 1 - m)`, U-shaped for every m (most questions nearly always or nearly
#: never solved). Beta-binomial maximum marginal likelihood fits of (m, s) on the shipped
#: real data give s = 0.17 (cruxeval_codellama7b, M = 1600), 0.90 (phi4_aime25, M = 30),
#: 1.5 (taubench_airline_gpt4o, M = 50) and a median of 0.42 over the 15 models of
#: matharena_aime25_i (M = 15 each, range 0.10-0.73); 1 is a round middle value.
DEFAULT_CONCENTRATION = 1.0
#: Warn when the implied interval of pi-bar is narrower than this fraction of the stated
#: interval (or wider than its inverse).
DEFAULT_WARN_RATIO = 0.5
#: Above this M, the benchmark-level Monte Carlo replaces the exact law of pi-bar given m
#: (a mean of M Beta draws) by the Beta law with the same mean and variance.
_EXACT_CONDITIONAL_MAX_M = 200


class ElicitationWarning(UserWarning):
    """The prior implied for pi-bar is much narrower (or wider) than the statement."""


@dataclass(frozen=True)
class ElicitedPrior:
    r"""An elicited prior, at question or benchmark level, with its implied prior on pi-bar.

    Attributes
    ----------
    level : {"question", "benchmark"}
        What the statement was about: each single question, or the model's accuracy on the
        benchmark.
    alpha : ndarray of shape ``(C + 1,)`` or None
        Question level: the per-question Dirichlet concentration (Beta: ``(b, a)`` for
        categories 0 = fail, 1 = pass), usable as ``alpha0`` of :func:`bayes_eval.bayes`.
        ``None`` at benchmark level (a hierarchical prior is not one Dirichlet; see
        :meth:`per_question_alpha` and :meth:`hyper_grid`).
    hyper_alpha : ndarray of shape ``(2,)`` or None
        Benchmark level: ``(b, a)``, the benchmark mean accuracy is
        :math:`m \sim \mathrm{Beta}(a, b)` (the mean vector ``(1 - m, m)`` is
        :math:`\mathrm{Dir}(b, a)`). ``None`` at question level.
    concentration : float or None
        Benchmark level: s in :math:`\pi_q \mid m \sim \mathrm{Beta}(s m, s (1 - m))`.
    depth : float
        Prior depth D per question (``sum(alpha) - (C + 1)``; benchmark level ``s - 2``).
    achieved : ndarray of shape ``(C + 1, 2)``
        Central ``prob`` intervals of the fitted marginals per category (question level: of
        :math:`\pi_q`; benchmark level: of the mean vector ``(1 - m, m)``).
    prob : float
        Probability of the stated interval(s).
    w : ndarray of shape ``(C + 1,)``
        Weights of the score :math:`w\cdot\pi` the intervals below refer to.
    stated : ndarray of shape ``(2,)``
        The stated interval of the score: ``[lo, hi]`` for binary accuracy; for a rubric,
        the central ``prob`` interval of :math:`w\cdot\pi` for one question under the
        per-category statements.
    n_questions : int
        M, the number of questions pi-bar averages over.
    implied : ndarray of shape ``(2,)``
        Central ``prob`` interval of the implied prior on pi-bar for M questions.
    implied_method : str
        How ``implied`` was computed ("exact lattice" or "Monte Carlo, ...").
    """

    level: Level
    alpha: NDArray[np.float64] | None
    hyper_alpha: NDArray[np.float64] | None
    concentration: float | None
    depth: float
    achieved: NDArray[np.float64]
    prob: float
    w: NDArray[np.float64]
    stated: NDArray[np.float64]
    n_questions: int
    implied: NDArray[np.float64]
    implied_method: str

    @property
    def width_ratio(self) -> float:
        """Width of the implied pi-bar interval over the width of the stated interval."""
        return float(np.diff(self.implied)[0] / np.diff(self.stated)[0])

    def per_question_alpha(self, m: ArrayLike) -> NDArray[np.float64]:
        """Per-question Beta prior given the benchmark mean accuracy m (benchmark level).

        Parameters
        ----------
        m : float or array_like
            Benchmark mean accuracy, in ``(0, 1)``.

        Returns
        -------
        ndarray of shape ``np.shape(m) + (2,)``
            ``(s (1 - m), s m)``: the Dirichlet concentration of categories (fail, pass).
        """
        if self.level != "benchmark":
            raise ValueError(
                "a question-level prior has one per-question concentration: use .alpha."
            )
        m = np.asarray(m, dtype=float)
        if not np.all((m > 0) & (m < 1)):
            raise ValueError("the benchmark mean accuracy m must lie in (0, 1).")
        s = float(self.concentration)
        return np.stack([s * (1.0 - m), s * m], axis=-1)

    def hyper_grid(
        self, n_nodes: int = 32, *, rule: Literal["gauss-jacobi", "quantile"] = "gauss-jacobi"
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        r"""Quadrature over the benchmark mean m, for integrated-prior code on the fast path.

        A benchmark-level prior is the mixture
        :math:`\int \prod_q \mathrm{Dir}(\pi_q; \alpha(m))\,\mathrm{Beta}(m; a, b)\,dm` with
        :math:`\alpha(m) = (s(1-m), s m)`; this returns nodes :math:`\alpha(m_j)` and
        normalised log weights :math:`\log\omega_j`, so that
        :math:`E[g(m)] \approx \sum_j \omega_j\, g(m_j)`. A posterior given results R is then
        the mixture of the closed-form Bayes@N posteriors at ``alpha0 = alpha_nodes[j]``
        with weights proportional to :math:`\omega_j\, p(R \mid \alpha(m_j))` (the
        Dirichlet-multinomial marginal likelihood). When the data pin m down to less than
        the node spacing (large M), refine the grid around the data, as
        :func:`sensitivity` does.

        Parameters
        ----------
        n_nodes : int
            Number of nodes.
        rule : {"gauss-jacobi", "quantile"}, keyword-only
            ``"gauss-jacobi"``: Gauss quadrature for the weight :math:`m^{a-1}(1-m)^{b-1}`,
            exact for polynomials in m of degree up to ``2 n_nodes - 1`` (mean and variance
            of m exactly). ``"quantile"``: the Beta quantiles at ``(j + 1/2) / n_nodes``
            with equal weights (every node carries the same prior mass).

        Returns
        -------
        alpha_nodes : ndarray of shape ``(n_nodes, 2)``
            Per-question Dirichlet concentrations (fail, pass) at the nodes.
        log_weights : ndarray of shape ``(n_nodes,)``
            Log quadrature weights, ``logsumexp(log_weights) == 0``.

        Notes
        -----
        A question-level prior is the degenerate case: one node ``alpha`` with log weight 0.
        """
        if self.level == "question":
            return self.alpha[None, :].copy(), np.zeros(1)
        if int(n_nodes) != n_nodes or n_nodes < 1:
            raise ValueError(f"n_nodes is {n_nodes!r}; expected a positive integer.")
        n_nodes = int(n_nodes)
        b, a = self.hyper_alpha
        if rule == "gauss-jacobi":
            with np.errstate(invalid="ignore", divide="ignore"):
                x, wq = roots_jacobi(n_nodes, b - 1.0, a - 1.0)  # weight (1-x)^(b-1) (1+x)^(a-1)
            m = 0.5 * (1.0 + x)
            with np.errstate(divide="ignore"):
                log_w = np.log(np.clip(wq, 0.0, None))
        elif rule == "quantile":
            m = beta_dist.ppf((np.arange(n_nodes) + 0.5) / n_nodes, a, b)
            log_w = np.zeros(n_nodes)
        else:
            raise ValueError(f"rule is {rule!r}; expected 'gauss-jacobi' or 'quantile'.")
        m = np.clip(m, np.finfo(float).tiny, 1.0 - np.finfo(float).eps)
        return self.per_question_alpha(m), log_w - logsumexp(log_w)

    def as_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "level": self.level,
            "alpha": None if self.alpha is None else self.alpha.tolist(),
            "hyper_alpha": None if self.hyper_alpha is None else self.hyper_alpha.tolist(),
            "concentration": self.concentration,
            "depth": self.depth,
            "achieved": self.achieved.tolist(),
            "prob": self.prob,
            "w": self.w.tolist(),
            "stated": self.stated.tolist(),
            "n_questions": self.n_questions,
            "implied_pi_bar": self.implied.tolist(),
            "width_ratio": self.width_ratio,
            "implied_method": self.implied_method,
        }


# ----------------------------------------------------------------------------- checks


def _check(lo: float, hi: float, prob: float) -> None:
    if not (0.0 < lo < hi < 1.0):
        raise ValueError(f"interval [{lo}, {hi}] must satisfy 0 < lo < hi < 1.")
    if not (0.0 < prob < 1.0):
        raise ValueError(f"probability is {prob!r}; expected a number in (0, 1).")


def _check_level(level, func: str) -> Level:
    if level is None:
        raise TypeError(
            f"{func}() needs level='benchmark' (the statement is about the model's accuracy on "
            "the benchmark, i.e. the prior of pi-bar) or level='question' (it holds for every "
            "single question; pi-bar's prior is then about sqrt(M) times narrower)."
        )
    if level not in ("question", "benchmark"):
        raise ValueError(f"level is {level!r}; expected 'question' or 'benchmark'.")
    return level


def _check_m(n_questions, func: str) -> int:
    if n_questions is None:
        raise TypeError(f"{func}() needs n_questions, the M of the benchmark the prior is for.")
    if isinstance(n_questions, bool) or int(n_questions) != n_questions or n_questions < 1:
        raise ValueError(f"n_questions is {n_questions!r}; expected a positive integer.")
    return int(n_questions)


def _check_ratio(warn_ratio: float) -> float:
    if not (0.0 <= warn_ratio < 1.0):
        raise ValueError(f"warn_ratio is {warn_ratio!r}; expected a number in [0, 1).")
    return float(warn_ratio)


def _check_concentration(s) -> float:
    s = float(s)
    if not (np.isfinite(s) and s > 0):
        raise ValueError(f"concentration is {s!r}; expected a finite number > 0.")
    return s


# ----------------------------------------------------------------------------- pi-bar


def _tails(prob: float) -> NDArray[np.float64]:
    return np.array([(1 - prob) / 2, (1 + prob) / 2])


def _implied_question(alpha: NDArray, w: NDArray, m: int, prob: float) -> NDArray:
    """Central interval of pi-bar for M iid Dir(alpha) questions (exact lattice law)."""
    return exact_posterior(np.tile(alpha, (m, 1)), w).ppf(_tails(prob))


def _benchmark_draws(
    a: float, b: float, s: float, m_questions: int, draws: int, rng: np.random.Generator
) -> tuple[NDArray, NDArray]:
    """Draws of (m, pi-bar) under m ~ Beta(a, b), pi_q | m ~ Beta(s m, s (1 - m)).

    m is stratified (one jittered draw per prior quantile stratum); pi-bar given m is exact
    (a mean of M Beta draws) up to ``_EXACT_CONDITIONAL_MAX_M`` questions, beyond that the Beta
    law with the same conditional mean m and variance m (1 - m) / ((s + 1) M).
    """
    u = (np.arange(draws) + rng.random(draws)) / draws
    m = beta_dist.ppf(u, a, b)
    m = np.clip(m, 1e-300, 1.0 - 1e-16)
    if m_questions <= _EXACT_CONDITIONAL_MAX_M:
        pi_bar = np.empty(draws)
        chunk = max(1, 2_000_000 // m_questions)
        for i in range(0, draws, chunk):
            mi = m[i : i + chunk, None]
            pi_bar[i : i + chunk] = rng.beta(
                s * mi, s * (1.0 - mi), size=(mi.shape[0], m_questions)
            ).mean(-1)
    else:
        kappa = (s + 1.0) * m_questions - 1.0
        pi_bar = rng.beta(m * kappa, (1.0 - m) * kappa)
    return m, pi_bar


def _warn_if_mismatched(prior: ElicitedPrior, warn_ratio: float) -> None:
    ratio = prior.width_ratio
    lo, hi = prior.implied
    slo, shi = prior.stated
    where = (
        f"the implied {prior.prob:.0%} interval of pi-bar over M = {prior.n_questions} "
        f"questions is [{lo:.3f}, {hi:.3f}]"
    )
    if ratio < warn_ratio:
        msg = (
            f"{prior.level}-level prior: {where}, {1 / ratio:.1f} times narrower than the "
            f"stated [{slo:.3f}, {shi:.3f}] (width ratio {ratio:.3f}). Each question gets this "
            f"prior independently (worth D = {prior.depth:.1f} trials on every question), so "
            "their mean is nearly fixed. If the statement is about the model's accuracy on "
            "the benchmark, use level='benchmark'."
        )
    elif warn_ratio > 0 and ratio > 1 / warn_ratio:
        msg = (
            f"{prior.level}-level prior: {where}, {ratio:.1f} times wider than the stated "
            f"[{slo:.3f}, {shi:.3f}] (width ratio {ratio:.3f}): with few questions pi-bar "
            "scatters around the benchmark mean m. A larger concentration (questions more "
            "alike) narrows it."
        )
    else:
        return
    warnings.warn(ElicitationWarning(msg), stacklevel=3)


# ----------------------------------------------------------------------------- elicitation


def _fit_beta(lo: float, hi: float, prob: float) -> tuple[float, float]:
    q = _tails(prob)

    def eqs(x):
        a, b = np.exp(x)
        return beta_dist.ppf(q, a, b) - np.array([lo, hi])

    mid = 0.5 * (lo + hi)
    # start from the Beta with the moments of a uniform-ish guess on [lo, hi]
    var = ((hi - lo) / 3.3) ** 2
    k = max(mid * (1 - mid) / var - 1, 0.5)
    sol = optimize.least_squares(eqs, np.log([mid * k, (1 - mid) * k]), xtol=1e-14, ftol=1e-14)
    a, b = np.exp(sol.x)
    achieved = beta_dist.ppf(q, a, b)
    if np.max(np.abs(achieved - [lo, hi])) > 1e-6:
        raise ValueError(
            f"no Beta prior has [{lo}, {hi}] as its central {prob:.0%} interval (closest: "
            f"[{achieved[0]:.4f}, {achieved[1]:.4f}]); widen the interval or lower the probability."
        )
    return float(a), float(b)


def elicit_beta(
    lo: float,
    hi: float,
    prob: float = 0.9,
    *,
    level: Level | None = None,
    n_questions: int | None = None,
    concentration: float = DEFAULT_CONCENTRATION,
    warn_ratio: float = DEFAULT_WARN_RATIO,
    draws: int = 20_000,
    seed: int = 0,
) -> ElicitedPrior:
    r"""Prior from "accuracy lies in ``[lo, hi]`` with probability ``prob``" (equal tails).

    Parameters
    ----------
    lo, hi : float
        The stated interval, ``0 < lo < hi < 1``.
    prob : float
        Its probability.
    level : {"benchmark", "question"}, keyword-only, required
        ``"benchmark"``: the statement is about the model's accuracy on the benchmark; the
        benchmark mean m gets :math:`\mathrm{Beta}(a, b)` with the stated interval and each
        question :math:`\mathrm{Beta}(s m, s(1-m))`. ``"question"``: the statement holds for
        every single question, each of which gets :math:`\mathrm{Beta}(a, b)` independently.
        There is no default: the two readings differ by a factor of about
        :math:`\sqrt M` in the width of the prior on pi-bar (5.5 at M = 30 for [0.3, 0.6]),
        earlier versions silently used the question level, and a changed default would
        change the meaning of existing calls without notice; a missing ``level`` raises
        ``TypeError``. A statement about "the model's accuracy" is usually benchmark-level.
    n_questions : int, keyword-only, required
        M, the number of questions of the benchmark; the implied interval of pi-bar is
        computed for it.
    concentration : float, keyword-only
        Benchmark level: s, the spread of accuracies across questions (smaller: more
        questions always or never solved). Default :data:`DEFAULT_CONCENTRATION` (1: the
        U-shaped :math:`\mathrm{Beta}(m, 1-m)`; fits on the shipped real data range from 0.17
        to 1.5). Ignored at question level.
    warn_ratio : float, keyword-only
        Issue an :class:`ElicitationWarning` when the implied interval of pi-bar is less than
        ``warn_ratio`` times as wide as the stated one, or more than ``1 / warn_ratio`` times
        (0 turns the check off). The default 1/2 flags a prior whose spread on pi-bar differs
        from the belief by more than a factor of 2 (4 in variance, i.e. in prior precision),
        far beyond the benchmark-level finite-M widening (ratio 1.23 for the example at
        M = 30, 1.07 at M = 100).
    draws, seed : int, keyword-only
        Monte Carlo draws and seed of the benchmark-level implied interval (the question
        level is computed exactly).

    Returns
    -------
    ElicitedPrior
        At question level ``alpha = (b, a)`` (category 0 = fail); at benchmark level
        ``hyper_alpha = (b, a)`` and ``concentration = s``.

    Warns
    -----
    ElicitationWarning
        When the implied prior on pi-bar is much narrower (or wider) than the statement.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", ElicitationWarning)
    ...     p = elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=30)
    >>> p.alpha.round(1).tolist(), p.implied.round(3).tolist()
    ([15.9, 12.9], [0.421, 0.475])
    >>> b = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=100)
    >>> b.hyper_alpha.round(1).tolist(), round(b.width_ratio, 2)
    ([15.9, 12.9], 1.07)
    """
    level = _check_level(level, "elicit_beta")
    m_questions = _check_m(n_questions, "elicit_beta")
    warn_ratio = _check_ratio(warn_ratio)
    _check(lo, hi, prob)
    a, b = _fit_beta(lo, hi, prob)
    q = _tails(prob)
    ach = np.array([beta_dist.ppf(q, b, a), beta_dist.ppf(q, a, b)])
    w = np.array([0.0, 1.0])
    stated = np.array([lo, hi], dtype=float)
    if level == "question":
        alpha = np.array([b, a])
        prior = ElicitedPrior(
            level="question",
            alpha=alpha,
            hyper_alpha=None,
            concentration=None,
            depth=float(alpha.sum() - 2),
            achieved=ach,
            prob=float(prob),
            w=w,
            stated=stated,
            n_questions=m_questions,
            implied=_implied_question(alpha, w, m_questions, prob),
            implied_method="exact lattice (bayes_eval.exact_posterior)",
        )
    else:
        s = _check_concentration(concentration)
        if int(draws) != draws or draws < 100:
            raise ValueError(f"draws is {draws!r}; expected an integer >= 100.")
        _, pi_bar = _benchmark_draws(a, b, s, m_questions, int(draws), np.random.default_rng(seed))
        prior = ElicitedPrior(
            level="benchmark",
            alpha=None,
            hyper_alpha=np.array([b, a]),
            concentration=s,
            depth=s - 2.0,
            achieved=ach,
            prob=float(prob),
            w=w,
            stated=stated,
            n_questions=m_questions,
            implied=np.quantile(pi_bar, q),
            implied_method=f"Monte Carlo, {int(draws)} draws, seed {seed}",
        )
    _warn_if_mismatched(prior, warn_ratio)
    return prior


def elicit_dirichlet(
    intervals: ArrayLike,
    prob: float = 0.9,
    *,
    level: Level | None = None,
    n_questions: int | None = None,
    w: ArrayLike | None = None,
    warn_ratio: float = DEFAULT_WARN_RATIO,
) -> ElicitedPrior:
    r"""Per-question Dirichlet prior from one ``[lo, hi]`` statement per rubric category.

    Each category probability lies in its interval with probability ``prob``; the Dirichlet
    is fitted by least squares on the quantiles of its Beta marginals.

    Parameters
    ----------
    intervals : array_like, shape ``(C + 1, 2)``
        ``[lo, hi]`` per category.
    prob : float
        Probability of each interval.
    level : {"question"}, keyword-only, required
        Only ``"question"`` is supported: the statements hold for every single question.
        ``"benchmark"`` raises ``ValueError`` (statements about the mean category shares
        over a benchmark need a Dirichlet hyperprior on the mean vector, not implemented).
        Required for the reason given in :func:`elicit_beta`.
    n_questions : int, keyword-only, required
        M for the implied prior on pi-bar.
    w : array_like, shape ``(C + 1,)``, keyword-only
        Weights of the score; default evenly spaced in ``[0, 1]``.
    warn_ratio : float, keyword-only
        As in :func:`elicit_beta`; the stated interval is that of :math:`w\cdot\pi` for one
        question.

    Returns
    -------
    ElicitedPrior
    """
    level = _check_level(level, "elicit_dirichlet")
    if level == "benchmark":
        raise ValueError(
            "benchmark-level statements are supported for binary accuracy only (elicit_beta): "
            "per-category statements about a model's mean shares over a benchmark need a "
            "Dirichlet hyperprior on the mean vector, which is not implemented. Use "
            "level='question' (the statements then hold for every question) and check the "
            "implied interval of pi-bar."
        )
    m_questions = _check_m(n_questions, "elicit_dirichlet")
    warn_ratio = _check_ratio(warn_ratio)
    iv = np.asarray(intervals, dtype=float)
    if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] < 2:
        raise ValueError(f"intervals has shape {iv.shape}; expected (C + 1, 2) with C >= 1.")
    for lo, hi in iv:
        _check(lo, hi, prob)
    if iv[:, 0].sum() > 1 or iv[:, 1].sum() < 1:
        raise ValueError("the category intervals cannot hold probabilities that sum to 1.")
    weights = np.linspace(0.0, 1.0, iv.shape[0]) if w is None else np.asarray(w, dtype=float)
    if weights.shape != (iv.shape[0],) or not np.isfinite(weights).all():
        raise ValueError(f"w has shape {weights.shape}; expected ({iv.shape[0]},) finite weights.")
    if np.ptp(weights) == 0:
        raise ValueError("w is constant: the score does not depend on the categories.")
    q = _tails(prob)

    def resid(x):
        alpha = np.exp(x)
        total = alpha.sum()
        return np.concatenate(
            [beta_dist.ppf(q, a, total - a) - row for a, row in zip(alpha, iv, strict=True)]
        )

    mids = iv.mean(1)
    start = np.log(mids / mids.sum() * 10)
    sol = optimize.least_squares(resid, start, xtol=1e-12, ftol=1e-12)
    alpha = np.exp(sol.x)
    ach = np.array([beta_dist.ppf(q, a, alpha.sum() - a) for a in alpha])
    prior = ElicitedPrior(
        level="question",
        alpha=alpha,
        hyper_alpha=None,
        concentration=None,
        depth=float(alpha.sum() - alpha.size),
        achieved=ach,
        prob=float(prob),
        w=weights,
        stated=_implied_question(alpha, weights, 1, prob),
        n_questions=m_questions,
        implied=_implied_question(alpha, weights, m_questions, prob),
        implied_method="exact lattice (bayes_eval.exact_posterior)",
    )
    _warn_if_mismatched(prior, warn_ratio)
    return prior


# ----------------------------------------------------------------------------- checks on data


def prior_predictive(
    prior: ElicitedPrior,
    w: ArrayLike | None = None,
    *,
    n_questions: int | None = None,
    draws: int = 20_000,
    seed: int = 0,
) -> dict:
    """Prior predictive distribution of pi-bar for M questions, and of one question's score.

    Parameters
    ----------
    prior : ElicitedPrior
        Question level: each :math:`\\pi_q \\sim \\mathrm{Dir}(\\alpha)`; benchmark level:
        m from the hyperprior, then each :math:`\\pi_q \\mid m` independently.
    w : array_like, optional
        Score weights; default ``prior.w``.
    n_questions : int, keyword-only
        M; default ``prior.n_questions``.
    draws, seed : int, keyword-only
        Monte Carlo draws and seed.

    Returns
    -------
    dict
        ``level``, ``n_questions``, quantiles, mean and sd of pi-bar, and quantiles of one
        question's score.
    """
    w = prior.w if w is None else np.asarray(w, float)
    m_questions = (
        prior.n_questions if n_questions is None else _check_m(n_questions, "prior_predictive")
    )
    rng = np.random.default_rng(seed)
    if prior.level == "question":
        pi_bar = (rng.dirichlet(prior.alpha, size=(draws, m_questions)) @ w).mean(-1)
        per_q = rng.dirichlet(prior.alpha, size=draws) @ w
    else:
        if w.shape != (2,):
            raise ValueError("a benchmark-level prior is binary: w needs 2 weights.")
        b, a = prior.hyper_alpha
        s = prior.concentration
        m, pi_bar = _benchmark_draws(a, b, s, m_questions, draws, rng)
        pi_bar = w[0] + (w[1] - w[0]) * pi_bar
        per_q = w[0] + (w[1] - w[0]) * rng.beta(s * m, s * (1.0 - m))
    qs = [0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975]
    return {
        "level": prior.level,
        "n_questions": m_questions,
        "pi_bar_quantiles": dict(
            zip(map(str, qs), np.quantile(pi_bar, qs).round(4).tolist(), strict=True)
        ),
        "pi_bar_mean": round(float(pi_bar.mean()), 4),
        "pi_bar_sd": round(float(pi_bar.std()), 4),
        "question_score_quantiles": dict(
            zip(map(str, qs), np.quantile(per_q, qs).round(4).tolist(), strict=True)
        ),
    }


def _posterior_nodes_over_m(
    counts: NDArray, a: float, b: float, s: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Nodes and normalised weights of the posterior of the benchmark mean m, one model.

    The log posterior density of :math:`z = \mathrm{logit}\, m` is
    :math:`a \log m + b \log(1-m) + \sum_q \log p(n_q \mid s m, s(1-m))` (Beta prior with
    the Jacobian, Beta-binomial marginal likelihood of each question's counts). It is
    evaluated on 2048 cells of ``z`` in [-30, 30], the hull of the cells within 40 log units of
    the maximum is re-gridded with 512 cells, and each cell of that second grid within 40
    log units gets 8 Gauss-Legendre nodes: a fixed prior grid would not resolve the
    posterior of m, whose sd falls like :math:`1/\sqrt M`.
    """
    rows, mult = np.unique(counts, axis=0, return_counts=True)
    k1 = rows[:, 1].astype(float)
    k0 = rows[:, 0].astype(float)

    def log_post(z):
        m1, m0 = s * expit(z)[:, None], s * expit(-z)[:, None]
        ll = (betaln(m1 + k1, m0 + k0) - betaln(m1, m0)) @ mult
        return a * log_expit(z) + b * log_expit(-z) + ll

    lo, hi, drop = -30.0, 30.0, 40.0
    for n_cells in (2048, 512):
        edges = np.linspace(lo, hi, n_cells + 1)
        lp = log_post(edges)
        keep = np.maximum(lp[:-1], lp[1:]) > lp.max() - drop
        keep[1:] |= keep[:-1].copy()
        keep[:-1] |= keep[1:].copy()
        cells = np.flatnonzero(keep)
        lo, hi = edges[cells[0]], edges[cells[-1] + 1]
    width = edges[1] - edges[0]
    x, wgl = np.polynomial.legendre.leggauss(8)
    z = (edges[cells][:, None] + 0.5 * width * (x + 1.0)).ravel()
    log_w = np.log(np.tile(0.5 * width * wgl, cells.size)) + log_post(z)
    return expit(z), np.exp(log_w - logsumexp(log_w))


def _benchmark_moments(counts: NDArray, w: NDArray, prior: ElicitedPrior) -> tuple[float, float]:
    """Posterior mean and sd of pi-bar for one model under a benchmark-level prior.

    The closed-form Bayes@N moments at each node m (Beta posteriors
    :math:`\\mathrm{Beta}(s m + k_q, s(1-m) + n_q - k_q)`), mixed with the posterior weights
    of m by the law of total variance.
    """
    b, a = prior.hyper_alpha
    s = prior.concentration
    m, omega = _posterior_nodes_over_m(counts, a, b, s)
    rows, mult = np.unique(counts, axis=0, return_counts=True)
    n_q = counts.shape[0]
    total = s + rows.sum(1)  # (U,)
    p1 = (s * m[:, None] + rows[:, 1]) / total  # (J, U)
    p0 = (s * (1.0 - m)[:, None] + rows[:, 0]) / total
    d = w[1] - w[0]
    mu = w[0] + d * (p1 @ mult) / n_q
    var = d**2 * ((p1 * p0 / (total + 1.0)) @ mult) / n_q**2
    mean = float(omega @ mu)
    return mean, float(np.sqrt(omega @ (var + (mu - mean) ** 2)))


def sensitivity(
    R: ArrayLike, prior: ElicitedPrior, w: ArrayLike | None = None, *, models=None
) -> xr.Dataset:
    """mu, sigma and competition ranks of L models under the uniform and the elicited prior.

    Parameters
    ----------
    R : array_like of int, shape ``(L, M, N)``
        Results (a ``numpy.ma.MaskedArray`` marks missing trials).
    prior : ElicitedPrior
        Question level: Bayes@N with ``alpha0 = prior.alpha``. Benchmark level: the mixture
        over the benchmark mean m of the closed-form posteriors, weighted by the posterior of
        m (prior times the Dirichlet-multinomial marginal likelihood of each model's counts;
        each model has its own m), mean and variance by the law of total variance.
    w : array_like, optional
        Score weights; default ``prior.w``.
    models : sequence of str, keyword-only, optional
        Model names.

    Returns
    -------
    xarray.Dataset
        ``mu``, ``sigma`` and ``rank`` with dims ``(prior, model)``,
        ``prior = ["uniform", "elicited"]``.
    """
    if np.ndim(R) != 3:
        raise ValueError(f"R has shape {np.shape(R)}; expected (L, M, N).")
    w = prior.w if w is None else np.asarray(w, dtype=float)
    mu_u, s_u = bayes(R, w)
    if prior.level == "question":
        mu_e, s_e = bayes(R, w, alpha0=prior.alpha)
        attrs = {"level": "question", "alpha": prior.alpha.tolist(), "depth": prior.depth}
    else:
        t, w = tally(R, w)
        if t.n_categories != 2:
            raise ValueError("a benchmark-level prior is binary: R must hold 0/1 results.")
        mu_e, s_e = np.array([_benchmark_moments(c, w, prior) for c in t.counts]).T
        attrs = {
            "level": "benchmark",
            "hyper_alpha": prior.hyper_alpha.tolist(),
            "concentration": prior.concentration,
            "depth": prior.depth,
        }
    names = list(models) if models is not None else [f"model_{i}" for i in range(len(mu_u))]
    return xr.Dataset(
        {
            "mu": (("prior", "model"), np.stack([mu_u, mu_e])),
            "sigma": (("prior", "model"), np.stack([s_u, s_e])),
            "rank": (("prior", "model"), np.stack([rank(mu_u), rank(mu_e)])),
        },
        coords={"prior": ["uniform", "elicited"], "model": names},
        attrs=attrs,
    )
