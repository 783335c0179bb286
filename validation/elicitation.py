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
for :math:`(a, b)` on the log scale (scipy; PreliZ has no equal-tailed solver). PreliZ answers
the statements it covers (:mod:`.elicit_preliz`): the maximum-entropy Beta
(``elicit_beta(..., method="maxent")``, ``preliz.maxent``), quartiles (``elicit_quantiles``,
``preliz.quartile``) and a rubric mode with mass (``elicit_dirichlet_mode``,
``preliz.dirichlet_mode``). :meth:`ElicitedPrior.to_closed_form` and
:meth:`ElicitedPrior.to_pymc` run the same prior on the closed form and in PyMC.

For a rubric, one statement per category gives the Dirichlet whose Beta marginals
:math:`\mathrm{Beta}(\alpha_k, A - \alpha_k)` match the statements in the least-squares sense
(question level only).

The implied *prior depth* is how many earlier trials the per-question prior is worth next to
the paper's uniform prior (eq. 6: :math:`n^0 = 1 + \text{counts of } R^0`):
:math:`D = \sum_k \alpha_k - (C + 1)`; negative D means vaguer than uniform. At benchmark level
the per-question prior given m sums to s, so :math:`D = s - 2`.

:func:`prior_predictive` draws pi-bar for M questions under the prior; :func:`sensitivity`
compares mu, sigma and ranks of real results under the uniform and the elicited prior (both
in :mod:`.elicitation_data`; :class:`ElicitedPrior` and its checks are in
:mod:`.elicited_prior`; the ``elicit`` study of the registry is :mod:`.elicit_study`).
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.stats import beta as beta_dist

from bayes_eval.validation.elicit_preliz import maxent_beta
from bayes_eval.validation.elicited_prior import (
    DEFAULT_CONCENTRATION,
    DEFAULT_WARN_RATIO,
    ElicitationWarning,
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

__all__ = ["elicit_beta", "elicit_dirichlet"]


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
    method: Literal["equal-tailed", "maxent"] = "equal-tailed",
) -> ElicitedPrior:
    r"""Prior from "accuracy lies in ``[lo, hi]`` with probability ``prob``".

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
    method : {"equal-tailed", "maxent"}, keyword-only
        ``"equal-tailed"`` (default, and what ``bayes-eval validate elicit`` uses): the Beta
        whose central ``prob`` interval is ``[lo, hi]``, i.e. ``(1 - prob) / 2`` below ``lo``
        and above ``hi``; solved here with scipy, because PreliZ has no equal-tailed solver
        (``preliz.maxent`` uses another criterion and ``preliz.match_quantiles`` matches the
        quantiles of a given distribution, not stated values). ``"maxent"``: PreliZ's
        maximum-entropy Beta with mass ``prob`` in ``[lo, hi]``
        (:func:`~bayes_eval.validation.elicit_preliz.maxent_beta`), which leaves the tails
        free. For an interval symmetric about 1/2 the two coincide (to about 1e-7 in
        ``(a, b)``); otherwise maxent puts unequal mass in the tails ([0.05, 0.2] at 0.9:
        Beta(6.11, 42.2) with tails 0.026 / 0.074, against Beta(5.43, 41.5) with 0.05 / 0.05).

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
    if method == "equal-tailed":
        a, b = _fit_beta(lo, hi, prob)
        fit = "equal-tailed quantiles (scipy least squares)"
    elif method == "maxent":
        a, b = maxent_beta(lo, hi, prob)
        fit = "maximum entropy (preliz.maxent)"
    else:
        raise ValueError(f"method is {method!r}; expected 'equal-tailed' or 'maxent'.")
    prior = _beta_prior(
        a,
        b,
        stated=np.array([lo, hi], dtype=float),
        prob=prob,
        level=level,
        n_questions=m_questions,
        concentration=concentration,
        draws=draws,
        seed=seed,
        fit=fit,
    )
    _warn_if_mismatched(prior, warn_ratio)
    return prior


#: largest gap (share units) between a stated and an achieved category endpoint before the
#: category statements are reported as unattainable together
CATEGORY_TOLERANCE = 0.05


def _warn_if_unattainable(stated: NDArray, achieved: NDArray, prob: float) -> None:
    """ElicitationWarning when no Dirichlet meets every category statement (within tolerance).

    The shares sum to one, so the statements constrain each other: for two categories
    ``[lo_0, hi_0]`` fixes ``[1 - hi_0, 1 - lo_0]`` for the other one, and stating
    ``0.5:0.9`` for both asks each share to exceed one half with probability ``prob``.
    The least-squares fit then returns a compromise; this says so instead of passing it off
    as the stated prior.
    """
    gap = np.abs(achieved - stated)
    if gap.max() <= CATEGORY_TOLERANCE:
        return
    worst = int(np.argmax(gap.max(axis=1)))
    pairs = "; ".join(
        f"category {c}: stated [{s[0]:.3f}, {s[1]:.3f}], achieved [{a[0]:.3f}, {a[1]:.3f}]"
        for c, (s, a) in enumerate(zip(stated, achieved, strict=True))
    )
    hint = ""
    if len(stated) == 2:
        lo, hi = stated[0]
        hint = (
            f" With two categories the shares are s and 1 - s: category 0 in "
            f"[{lo:.3f}, {hi:.3f}] means category 1 in [{1 - hi:.3f}, {1 - lo:.3f}]."
        )
    warnings.warn(
        ElicitationWarning(
            f"the category statements do not hold together: no Dirichlet puts {prob:.0%} of "
            f"every category's share in its interval (the shares sum to 1); the closest one "
            f"misses category {worst} by {gap.max():.3f}. {pairs}.{hint} Restate the "
            "intervals so that they can hold together."
        ),
        stacklevel=3,
    )


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
    _warn_if_unattainable(iv, ach, prob)
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
        implied_method="exact lattice (bayes_eval.posteriors.exact)",
    )
    _warn_if_mismatched(prior, warn_ratio)
    return prior
