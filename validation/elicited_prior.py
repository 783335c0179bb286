r"""The elicited prior (:class:`ElicitedPrior`), its checks and its implied prior on pi-bar.

Shared by :mod:`bayes_eval.validation.elicitation` (the elicitation) and
:mod:`bayes_eval.validation.elicitation_data` (prior predictive, sensitivity to real results).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.special import logsumexp, roots_jacobi
from scipy.stats import beta as beta_dist

from bayes_eval.posteriors.exact import exact_posterior

__all__ = [
    "DEFAULT_CONCENTRATION",
    "DEFAULT_WARN_RATIO",
    "ElicitationWarning",
    "ElicitedPrior",
    "Level",
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
    fit : str
        Which criterion fitted the prior to the statement ("equal-tailed quantiles", "maximum
        entropy (preliz.maxent)", "quartiles (preliz.quartile)", ...).
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
    fit: str = "equal-tailed quantiles (scipy least squares)"

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
            "fit": self.fit,
        }

    def to_closed_form(self) -> NDArray[np.float64]:
        r"""The ``prior=`` argument of :func:`bayes_eval.bayes`/:func:`bayes_eval.bayes_ci`.

        Question level: the per-question Dirichlet concentration ``alpha`` (a copy), which
        :func:`bayes_eval.posteriors.priors.resolve_prior` accepts as a fixed prior and
        :func:`bayes_eval.models.matching_model` as ``alpha0``: both paths then use
        :math:`\pi_q \sim \mathrm{Dir}(\alpha)`, so the closed form and NUTS agree exactly
        (up to Monte Carlo error).

        Raises
        ------
        ValueError
            At benchmark level: the prior is a mixture over the benchmark mean m, not one
            Dirichlet. Its closed form is the mixture over m of Bayes@N posteriors
            (:func:`bayes_eval.validation.elicitation.sensitivity`, or :meth:`hyper_grid`).
        """
        if self.level == "benchmark":
            raise ValueError(
                "a benchmark-level prior is a mixture over the benchmark mean m, not one "
                "Dirichlet prior=: use bayes_eval.validation.elicitation.sensitivity(R, prior) "
                "for its closed-form posterior (or .hyper_grid() for the nodes), and "
                ".to_pymc(...) for the PyMC hierarchy."
            )
        return np.array(self.alpha, dtype=float)

    def to_pymc(self, name: str, *, dims: tuple[str, ...] | str | None = None):
        r"""The elicited prior as a PyMC random variable, inside a ``pm.Model`` context.

        Question level: ``pm.Dirichlet(name, a=alpha, dims=dims)`` (PreliZ's ``Dirichlet``
        has no ``to_pymc``, so the concentration is passed on directly). Benchmark level: the
        hierarchy of :func:`~bayes_eval.validation.elicitation.elicit_beta`,
        ``{name}_m ~ Beta(a, b)`` over ``dims[:-2]`` (one benchmark mean per model) and
        ``name ~ Dirichlet(s (1 - m), s m)`` per question.

        Parameters
        ----------
        name : str
            Name of the variable (the benchmark mean is ``f"{name}_m"``).
        dims : str or tuple of str, keyword-only
            Dims of the variable; the last one is the category dim (size C + 1). At
            benchmark level at least ``(question, category)``.

        Returns
        -------
        pytensor.tensor.TensorVariable
            The Dirichlet random variable.
        """
        import pymc as pm
        import pytensor.tensor as pt

        if self.level == "question":
            return pm.Dirichlet(name, a=self.alpha, dims=dims)
        dims = (dims,) if isinstance(dims, str) else tuple(dims or ())
        if len(dims) < 2:
            raise ValueError(
                f"dims is {dims!r}; a benchmark-level prior needs at least "
                "(question, category) dims, e.g. ('model', 'question', 'category')."
            )
        b, a = self.hyper_alpha
        s = float(self.concentration)
        m = pm.Beta(f"{name}_m", alpha=a, beta=b, dims=dims[:-2] or None)
        conc = s * pt.stack([1.0 - m, m], axis=-1)[..., None, :]
        return pm.Dirichlet(name, a=conc, dims=dims)


def _fit_beta(lo: float, hi: float, prob: float) -> tuple[float, float]:
    """Equal-tailed Beta: ``F(lo) = (1 - prob) / 2``, ``F(hi) = (1 + prob) / 2`` (scipy)."""
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


def _beta_prior(
    a: float,
    b: float,
    *,
    stated: NDArray,
    prob: float,
    level: Level,
    n_questions: int,
    concentration: float,
    draws: int,
    seed: int,
    fit: str,
) -> ElicitedPrior:
    """The :class:`ElicitedPrior` of a fitted ``Beta(a, b)`` at either level (no warning)."""
    q = _tails(prob)
    ach = np.array([beta_dist.ppf(q, b, a), beta_dist.ppf(q, a, b)])
    w = np.array([0.0, 1.0])
    common = dict(achieved=ach, prob=float(prob), w=w, stated=np.asarray(stated, dtype=float))
    if level == "question":
        alpha = np.array([b, a])
        return ElicitedPrior(
            level="question",
            alpha=alpha,
            hyper_alpha=None,
            concentration=None,
            depth=float(alpha.sum() - 2),
            n_questions=n_questions,
            implied=_implied_question(alpha, w, n_questions, prob),
            implied_method="exact lattice (bayes_eval.posteriors.exact)",
            fit=fit,
            **common,
        )
    s = _check_concentration(concentration)
    if int(draws) != draws or draws < 100:
        raise ValueError(f"draws is {draws!r}; expected an integer >= 100.")
    _, pi_bar = _benchmark_draws(a, b, s, n_questions, int(draws), np.random.default_rng(seed))
    return ElicitedPrior(
        level="benchmark",
        alpha=None,
        hyper_alpha=np.array([b, a]),
        concentration=s,
        depth=s - 2.0,
        n_questions=n_questions,
        implied=np.quantile(pi_bar, q),
        implied_method=f"Monte Carlo, {int(draws)} draws, seed {seed}",
        fit=fit,
        **common,
    )


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
