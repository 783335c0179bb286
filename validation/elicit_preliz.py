r"""Prior elicitation through PreliZ, where PreliZ covers the statement.

Which solver answers which statement (the semantics of :mod:`.elicitation` hold for all of
them: a statement about the model's accuracy on the benchmark is a prior on pi-bar, via the
benchmark mean m, and the implied prior on pi-bar is always computed and compared):

=====================================================  =======================================
statement                                              solver
=====================================================  =======================================
"accuracy in [lo, hi] with probability p", equal tails  scipy (:func:`.elicitation.elicit_beta`,
                                                       the default and the CLI's): PreliZ has
                                                       no equal-tailed solver
same, maximum-entropy Beta with mass p in [lo, hi]     ``preliz.maxent`` (:func:`maxent_beta`,
                                                       ``elicit_beta(..., method="maxent")``)
quartiles "25% below q1, median q2, 75% below q3"      ``preliz.quartile``
                                                       (:func:`elicit_quantiles`)
rubric: one [lo, hi] interval per category             scipy least squares on the Beta
                                                       marginals (:func:`.elicitation
                                                       .elicit_dirichlet`): PreliZ has none
rubric: mode of the shares, each within +-bound of it  ``preliz.dirichlet_mode``
with probability p                                     (:func:`elicit_dirichlet_mode`)
=====================================================  =======================================

The maximum-entropy and equal-tailed criteria differ: both put mass p in [lo, hi], but maxent
picks among those Betas the one of largest entropy and leaves the tails free, while the
equal-tailed fit asks for :math:`(1-p)/2` in each tail. For intervals symmetric about 1/2 the
two coincide (Beta(8.0011, 8.0011) for [0.3, 0.7] at 0.9 from both, to about 1e-7
relative); for [0.3, 0.6] at 0.9 they differ by 0.6% (maxent Beta(13.00, 15.86), tails
0.047 / 0.053; equal tails Beta(12.92, 15.92)); near the boundary more ([0.05, 0.2]:
Beta(6.11, 42.2) against Beta(5.43, 41.5)). :func:`beta_fits` returns both side by side.

PreliZ's Dirichlet (Michael et al.'s mode-and-mass method, as implemented in
``preliz.dirichlet_mode``) fixes the concentration :math:`\alpha_k = 1 + \tau\,\mathrm{mode}_k`
and solves the one-dimensional equation "mean over categories of
:math:`P(\pi_k < \mathrm{mode}_k - \mathrm{bound})` equals :math:`(1 - p)/2`" for
:math:`\tau`; the per-category masses within ``mode +- bound`` then vary around p (reported
in ``achieved``). PreliZ's Dirichlet has no ``to_pymc``; :meth:`ElicitedPrior.to_pymc` passes
its ``alpha`` to ``pm.Dirichlet``.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import beta as beta_dist

from bayes_eval.validation.elicited_prior import (
    DEFAULT_CONCENTRATION,
    DEFAULT_WARN_RATIO,
    ElicitedPrior,
    Level,
    _beta_prior,
    _check,
    _check_level,
    _check_m,
    _check_ratio,
    _fit_beta,
    _implied_question,
    _tails,
    _warn_if_mismatched,
)

__all__ = [
    "BetaFits",
    "beta_fits",
    "dirichlet_mode_alpha",
    "elicit_dirichlet_mode",
    "elicit_quantiles",
    "maxent_beta",
    "quartile_beta",
]

#: largest relative error of a PreliZ fit (mass or quartile probabilities) that is accepted
_TOLERANCE = 1e-3


def _preliz():
    import preliz as pz

    return pz


def maxent_beta(lo: float, hi: float, prob: float = 0.9) -> tuple[float, float]:
    """``(a, b)`` of the maximum-entropy Beta with mass ``prob`` in ``[lo, hi]``
    (``preliz.maxent(pz.Beta(), lo, hi, mass=prob, plot=False)``).

    Raises
    ------
    ValueError
        When the fitted Beta's mass in ``[lo, hi]`` misses ``prob`` by more than 1e-3.
    """
    _check(lo, hi, prob)
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # checked below, with a clearer message
        dist = pz.maxent(pz.Beta(), lo, hi, mass=prob, plot=False)
    a, b = float(dist.alpha), float(dist.beta)
    mass = beta_dist.cdf(hi, a, b) - beta_dist.cdf(lo, a, b)
    if abs(mass - prob) > _TOLERANCE:
        raise ValueError(
            f"preliz.maxent found no Beta with mass {prob} in [{lo}, {hi}] (closest: "
            f"{mass:.4f}); widen the interval or lower the probability."
        )
    return a, b


def quartile_beta(q1: float, q2: float, q3: float) -> tuple[float, float]:
    """``(a, b)`` of the Beta with quartiles ``q1 < q2 < q3``, least squares
    (``preliz.quartile(pz.Beta(), q1, q2, q3, plot=False)``).

    Raises
    ------
    ValueError
        When a quartile is outside (0, 1) or out of order, or the fitted Beta's CDF at the
        three values misses 0.25, 0.5, 0.75 by more than 0.01 (a Beta has two parameters, so
        three quartiles only hold together approximately).
    """
    q = np.array([q1, q2, q3], dtype=float)
    if not (np.all((q > 0) & (q < 1)) and q1 < q2 < q3):
        raise ValueError(f"quartiles {q.tolist()} must satisfy 0 < q1 < q2 < q3 < 1.")
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dist = pz.quartile(pz.Beta(), q1, q2, q3, plot=False)
    a, b = float(dist.alpha), float(dist.beta)
    cdf = beta_dist.cdf(q, a, b)
    if np.abs(cdf - [0.25, 0.5, 0.75]).max() > 0.01:
        raise ValueError(
            f"no Beta has quartiles {q.tolist()}: the closest, Beta({a:.3g}, {b:.3g}), puts "
            f"{np.round(cdf, 3).tolist()} below them (expected 0.25, 0.5, 0.75). A Beta's "
            "median lies between its quartiles in a way fixed by its two parameters; restate."
        )
    return a, b


class BetaFits(NamedTuple):
    """The two Beta fits of one interval statement (:func:`beta_fits`)."""

    equal_tailed: tuple[float, float]
    maxent: tuple[float, float]
    tails_equal_tailed: tuple[float, float]
    tails_maxent: tuple[float, float]
    max_relative_difference: float


def beta_fits(lo: float, hi: float, prob: float = 0.9) -> BetaFits:
    """Equal-tailed (scipy) and maximum-entropy (PreliZ) Beta for ``[lo, hi]`` at ``prob``,
    with the mass each leaves below ``lo`` and above ``hi``, and the largest relative
    difference of ``(a, b)``."""
    et = _fit_beta(lo, hi, prob)
    me = maxent_beta(lo, hi, prob)

    def tails(ab):
        return float(beta_dist.cdf(lo, *ab)), float(beta_dist.sf(hi, *ab))

    rel = float(np.max(np.abs(np.subtract(me, et)) / np.asarray(et)))
    return BetaFits(et, me, tails(et), tails(me), rel)


def elicit_quantiles(
    q1: float,
    q2: float,
    q3: float,
    *,
    level: Level | None = None,
    n_questions: int | None = None,
    concentration: float = DEFAULT_CONCENTRATION,
    warn_ratio: float = DEFAULT_WARN_RATIO,
    draws: int = 20_000,
    seed: int = 0,
) -> ElicitedPrior:
    r"""Prior from quartiles: "accuracy is below q1, q2, q3 with probability 1/4, 1/2, 3/4".

    The Beta comes from ``preliz.quartile`` (:func:`quartile_beta`); ``level``,
    ``n_questions``, ``concentration``, ``warn_ratio``, ``draws`` and ``seed`` are as in
    :func:`~bayes_eval.validation.elicitation.elicit_beta` (a statement about the model's
    accuracy on the benchmark is ``level="benchmark"``, a prior on the benchmark mean m).
    The stated interval is the interquartile range ``[q1, q3]`` with probability 1/2, and the
    implied central 50% interval of pi-bar is compared with it.

    Returns
    -------
    ElicitedPrior
        As from ``elicit_beta``, with ``prob = 0.5``, ``stated = [q1, q3]``.

    Examples
    --------
    >>> p = elicit_quantiles(0.4, 0.5, 0.6, level="benchmark", n_questions=100)
    >>> p.hyper_alpha.round(2).tolist(), p.fit
    ([5.82, 5.82], 'quartiles (preliz.quartile)')
    """
    level = _check_level(level, "elicit_quantiles")
    m_questions = _check_m(n_questions, "elicit_quantiles")
    warn_ratio = _check_ratio(warn_ratio)
    a, b = quartile_beta(q1, q2, q3)
    prior = _beta_prior(
        a,
        b,
        stated=np.array([q1, q3], dtype=float),
        prob=0.5,
        level=level,
        n_questions=m_questions,
        concentration=concentration,
        draws=draws,
        seed=seed,
        fit="quartiles (preliz.quartile)",
    )
    _warn_if_mismatched(prior, warn_ratio)
    return prior


def dirichlet_mode_alpha(mode: ArrayLike, mass: float = 0.9, bound: float = 0.01) -> np.ndarray:
    """Concentration of ``preliz.dirichlet_mode(mode, mass, bound, plot=False)`` (module
    docstring), after checking the inputs (PreliZ renormalises a mode that does not sum to 1;
    here that is an error)."""
    m = np.asarray(mode, dtype=float)
    if m.ndim != 1 or m.size < 2 or not np.all(m > 0) or abs(m.sum() - 1) > 1e-9:
        raise ValueError(f"mode is {m.tolist()}; expected C + 1 >= 2 shares > 0 that sum to 1.")
    if not 0 < mass < 1:
        raise ValueError(f"mass is {mass!r}; expected a probability in (0, 1).")
    if not 0 < bound < m.min():
        raise ValueError(
            f"bound is {bound!r}; expected a number in (0, {m.min():g}) (every mode - bound > 0)."
        )
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, dist = pz.dirichlet_mode(list(m), mass=mass, bound=bound, plot=False)
    return np.asarray(dist.alpha, dtype=float)


def elicit_dirichlet_mode(
    mode: ArrayLike,
    mass: float = 0.9,
    *,
    bound: float = 0.01,
    level: Level | None = None,
    n_questions: int | None = None,
    w: ArrayLike | None = None,
    warn_ratio: float = DEFAULT_WARN_RATIO,
) -> ElicitedPrior:
    r"""Rubric prior from "the most likely shares are ``mode``; each lies within ``+-bound``
    of its mode with probability ``mass``" (``preliz.dirichlet_mode``, module docstring).

    Question level only, as :func:`~bayes_eval.validation.elicitation.elicit_dirichlet`
    (which fits one ``[lo, hi]`` interval per category by least squares instead).

    Returns
    -------
    ElicitedPrior
        ``achieved`` holds each category's central ``mass`` interval; ``stated`` the central
        ``mass`` interval of one question's score :math:`w\cdot\pi`; ``implied`` that of
        pi-bar over M questions.
    """
    level = _check_level(level, "elicit_dirichlet_mode")
    if level == "benchmark":
        raise ValueError(
            "benchmark-level rubric statements need a Dirichlet hyperprior on the mean shares, "
            "which is not implemented; use level='question' and check the implied pi-bar."
        )
    m_questions = _check_m(n_questions, "elicit_dirichlet_mode")
    warn_ratio = _check_ratio(warn_ratio)
    alpha = dirichlet_mode_alpha(mode, mass, bound)
    weights = np.linspace(0.0, 1.0, alpha.size) if w is None else np.asarray(w, dtype=float)
    if weights.shape != alpha.shape or not np.isfinite(weights).all() or np.ptp(weights) == 0:
        raise ValueError(f"w has shape {weights.shape}; expected {alpha.size} finite weights.")
    q = _tails(mass)
    prior = ElicitedPrior(
        level="question",
        alpha=alpha,
        hyper_alpha=None,
        concentration=None,
        depth=float(alpha.sum() - alpha.size),
        achieved=np.array([beta_dist.ppf(q, a, alpha.sum() - a) for a in alpha]),
        prob=float(mass),
        w=weights,
        stated=_implied_question(alpha, weights, 1, mass),
        n_questions=m_questions,
        implied=_implied_question(alpha, weights, m_questions, mass),
        implied_method="exact lattice (bayes_eval.posteriors.exact)",
        fit=f"mode and mass (preliz.dirichlet_mode, bound {bound:g})",
    )
    _warn_if_mismatched(prior, warn_ratio)
    return prior
