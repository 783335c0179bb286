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
the statements it covers (table below): the maximum-entropy Beta
(``elicit_beta(..., method="maxent")``, ``preliz.maxent``), quartiles (:func:`elicit_quantiles`,
``preliz.quartile``) and a rubric mode with mass (:func:`elicit_dirichlet_mode`,
``preliz.dirichlet_mode``). :meth:`ElicitedPrior.to_closed_form` and
:meth:`ElicitedPrior.to_pymc` run the same prior on the closed form and in PyMC.

For a rubric, one statement per category gives the Dirichlet whose Beta marginals
:math:`\mathrm{Beta}(\alpha_k, A - \alpha_k)` match the statements in the least-squares sense
(question level only).

The implied *prior depth* is how many earlier trials the per-question prior is worth next to
the paper's uniform prior (eq. 6: :math:`n^0 = 1 + \text{counts of } R^0`):
:math:`D = \sum_k \alpha_k - (C + 1)`; negative D means vaguer than uniform. At benchmark level
the per-question prior given m sums to s, so :math:`D = s - 2`.

**PreliZ.** Which solver answers which statement (the semantics above hold for all of them:
a statement about the model's accuracy on the benchmark is a prior on pi-bar, via the
benchmark mean m, and the implied prior on pi-bar is always computed and compared):

+--------------------------------------------------------+-----------------------------------------+
| statement                                              | solver                                  |
+========================================================+=========================================+
| "accuracy in [lo, hi] with probability p", equal tails | scipy (:func:`elicit_beta`, the         |
|                                                        | default and the CLI's): PreliZ has no   |
|                                                        | equal-tailed solver                     |
+--------------------------------------------------------+-----------------------------------------+
| same, maximum-entropy Beta with mass p in [lo, hi]     | ``preliz.maxent`` (:func:`maxent_beta`, |
|                                                        | ``elicit_beta(..., method="maxent")``)  |
+--------------------------------------------------------+-----------------------------------------+
| quartiles "25% below q1, median q2, 75% below q3"      | ``preliz.quartile``                     |
|                                                        | (:func:`elicit_quantiles`)              |
+--------------------------------------------------------+-----------------------------------------+
| rubric: one [lo, hi] interval per category             | scipy least squares on the Beta         |
|                                                        | marginals (:func:`elicit_dirichlet`):   |
|                                                        | PreliZ has none                         |
+--------------------------------------------------------+-----------------------------------------+
| rubric: mode of the shares, each within +-bound of it  | ``preliz.dirichlet_mode``               |
| with probability p                                     | (:func:`elicit_dirichlet_mode`)         |
+--------------------------------------------------------+-----------------------------------------+

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

**Checks on data.** :func:`prior_predictive` draws pi-bar for M questions under the prior
(:func:`predictive_draws`, :func:`predictive_summary`); :func:`sensitivity` compares mu, sigma
and ranks of real results under the uniform and the elicited prior. The ``elicit`` study of
the registry is :mod:`.elicit_study`.

The private engines live beside this module: :mod:`.elicitation_fit` (scipy and PreliZ
fits), :mod:`.elicitation_implied` (the implied prior of pi-bar), :mod:`.elicitation_mixture`
(the benchmark-level prior as a mixture over m: quadrature, posterior of m, moments) and
:mod:`.elicitation_checks` (argument checks and warning texts).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.stats import beta as beta_dist

from bayes_eval.inputs import tally
from bayes_eval.metrics.bayes import bayes
from bayes_eval.ranking.ranks import rank
from bayes_eval.validation.elicitation_checks import (
    _check,
    _check_concentration,
    _check_level,
    _check_m,
    _check_ratio,
    _mismatch_message,
    _unattainable_message,
)
from bayes_eval.validation.elicitation_fit import (
    _dirichlet_mode,
    _fit_beta,
    _fit_dirichlet,
    _marginal_intervals,
    _maxent,
    _quartile,
    _tails,
)
from bayes_eval.validation.elicitation_implied import _benchmark_draws, _implied_question
from bayes_eval.validation.elicitation_mixture import _benchmark_moments, _hyper_nodes

__all__ = [
    "DEFAULT_CONCENTRATION",
    "DEFAULT_WARN_RATIO",
    "BetaFits",
    "ElicitationWarning",
    "ElicitedPrior",
    "Level",
    "beta_fits",
    "dirichlet_mode_alpha",
    "elicit_beta",
    "elicit_dirichlet",
    "elicit_dirichlet_mode",
    "elicit_quantiles",
    "maxent_beta",
    "predictive_draws",
    "predictive_summary",
    "prior_predictive",
    "quartile_beta",
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


class ElicitationWarning(UserWarning):
    """The prior implied for pi-bar is much narrower (or wider) than the statement.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.validation.elicitation import ElicitationWarning, elicit_beta
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     prior = elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=30)
    >>> caught[0].category is ElicitationWarning, round(prior.width_ratio, 3)
    (True, 0.182)
    """


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

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import elicit_beta
    >>> prior = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30, draws=2000)
    >>> prior.level, prior.hyper_alpha.round(3).tolist(), prior.concentration
    ('benchmark', [15.923, 12.919], 1.0)
    >>> prior.stated.tolist(), prior.implied.round(3).tolist()
    ([0.3, 0.6], [0.272, 0.637])
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
        m, log_w = _hyper_nodes(a, b, n_nodes, rule)
        return self.per_question_alpha(m), log_w

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


def _warn_if_mismatched(prior: ElicitedPrior, warn_ratio: float) -> None:
    msg = _mismatch_message(
        level=prior.level,
        prob=prior.prob,
        n_questions=prior.n_questions,
        depth=prior.depth,
        stated=prior.stated,
        implied=prior.implied,
        ratio=prior.width_ratio,
        warn_ratio=warn_ratio,
    )
    if msg is None:
        return
    warnings.warn(ElicitationWarning(msg), stacklevel=3)


# ----------------------------------------------------------------------------- elicitation


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
        (:func:`maxent_beta`), which leaves the tails
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

    The least-squares fit then returns a compromise; this says so instead of passing it off
    as the stated prior (the text: ``elicitation_checks._unattainable_message``).
    """
    if np.abs(achieved - stated).max() <= CATEGORY_TOLERANCE:
        return
    warnings.warn(ElicitationWarning(_unattainable_message(stated, achieved, prob)), stacklevel=3)


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
        At question level, ``alpha`` the fitted per-question Dirichlet concentration, with
        the intervals ``achieved`` per category and the implied interval of pi-bar.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.validation.elicitation import elicit_dirichlet
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the implied pi-bar is far narrower: a warning
    ...     p = elicit_dirichlet([[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]], 0.9, level="question",
    ...                          n_questions=30)
    >>> p.alpha.round(3).tolist(), p.stated.round(3).tolist()
    ([7.116, 5.392, 15.892], [0.521, 0.777])
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
    alpha, ach = _fit_dirichlet(iv, prob)
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


# ----------------------------------------------------------------------------- PreliZ


def maxent_beta(lo: float, hi: float, prob: float = 0.9) -> tuple[float, float]:
    """``(a, b)`` of the maximum-entropy Beta with mass ``prob`` in ``[lo, hi]``.

    As ``preliz.maxent(pz.Beta(), lo, hi, mass=prob, plot=False)``.

    Parameters
    ----------
    lo, hi : float
        The stated interval, ``0 < lo < hi < 1``.
    prob : float, optional
        The mass in ``[lo, hi]``, default 0.9.

    Returns
    -------
    tuple of float
        ``(a, b)``.

    Raises
    ------
    ValueError
        When the fitted Beta's mass in ``[lo, hi]`` misses ``prob`` by more than 1e-3.

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import maxent_beta
    >>> [round(x, 1) for x in maxent_beta(0.05, 0.2, 0.9)]
    [6.1, 42.2]
    """
    _check(lo, hi, prob)
    return _maxent(lo, hi, prob)


def quartile_beta(q1: float, q2: float, q3: float) -> tuple[float, float]:
    """``(a, b)`` of the Beta with quartiles ``q1 < q2 < q3``, least squares.

    As ``preliz.quartile(pz.Beta(), q1, q2, q3, plot=False)``.

    Parameters
    ----------
    q1, q2, q3 : float
        The stated quartiles (below each with probability 1/4, 1/2, 3/4), in (0, 1).

    Returns
    -------
    tuple of float
        ``(a, b)``.

    Raises
    ------
    ValueError
        When a quartile is outside (0, 1) or out of order, or the fitted Beta's CDF at the
        three values misses 0.25, 0.5, 0.75 by more than 0.01 (a Beta has two parameters, so
        three quartiles only hold together approximately).

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import quartile_beta
    >>> [round(x, 3) for x in quartile_beta(0.4, 0.5, 0.6)]
    [5.816, 5.816]
    """
    q = np.array([q1, q2, q3], dtype=float)
    if not (np.all((q > 0) & (q < 1)) and q1 < q2 < q3):
        raise ValueError(f"quartiles {q.tolist()} must satisfy 0 < q1 < q2 < q3 < 1.")
    return _quartile(q1, q2, q3)


class BetaFits(NamedTuple):
    """The two Beta fits of one interval statement (:func:`beta_fits`).

    Attributes
    ----------
    equal_tailed : tuple of float
        ``(a, b)`` of the Beta whose central ``prob`` interval is ``[lo, hi]`` (scipy).
    maxent : tuple of float
        ``(a, b)`` of PreliZ's maximum-entropy Beta with mass ``prob`` in ``[lo, hi]``.
    tails_equal_tailed : tuple of float
        The mass the equal-tailed Beta leaves below ``lo`` and above ``hi``.
    tails_maxent : tuple of float
        The mass the maximum-entropy Beta leaves below ``lo`` and above ``hi``.
    max_relative_difference : float
        The largest relative difference of ``(a, b)`` between the two fits.

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import beta_fits
    >>> fits = beta_fits(0.05, 0.2, 0.9)
    >>> [round(x, 2) for x in fits.tails_maxent], round(fits.max_relative_difference, 2)
    ([0.03, 0.07], 0.13)
    """

    equal_tailed: tuple[float, float]
    maxent: tuple[float, float]
    tails_equal_tailed: tuple[float, float]
    tails_maxent: tuple[float, float]
    max_relative_difference: float


def beta_fits(lo: float, hi: float, prob: float = 0.9) -> BetaFits:
    """Equal-tailed (scipy) and maximum-entropy (PreliZ) Beta for ``[lo, hi]`` at ``prob``.

    With the mass each leaves below ``lo`` and above ``hi``, and the largest relative
    difference of ``(a, b)``.

    Parameters
    ----------
    lo, hi : float
        The stated interval, ``0 < lo < hi < 1``.
    prob : float, optional
        Its probability, default 0.9.

    Returns
    -------
    BetaFits
        Both fits, their tail masses and their largest relative difference.

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import beta_fits
    >>> fits = beta_fits(0.05, 0.2, 0.9)
    >>> [round(x, 3) for x in fits.equal_tailed], [round(x, 1) for x in fits.maxent]
    ([5.426, 41.489], [6.1, 42.2])
    """
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
    """Prior from quartiles: "accuracy is below q1, q2, q3 with probability 1/4, 1/2, 3/4".

    The Beta comes from ``preliz.quartile`` (:func:`quartile_beta`); ``level``,
    ``n_questions``, ``concentration``, ``warn_ratio``, ``draws`` and ``seed`` are as in
    :func:`~bayes_eval.validation.elicitation.elicit_beta` (a statement about the model's
    accuracy on the benchmark is ``level="benchmark"``, a prior on the benchmark mean m).
    The stated interval is the interquartile range ``[q1, q3]`` with probability 1/2, and the
    implied central 50% interval of pi-bar is compared with it.

    Parameters
    ----------
    q1, q2, q3 : float
        The stated quartiles of the accuracy, ``0 < q1 < q2 < q3 < 1``.
    level : {"benchmark", "question"}, keyword-only, required
        What the statement is about, as in ``elicit_beta``.
    n_questions : int, keyword-only, required
        M, the number of questions of the benchmark.
    concentration : float, keyword-only
        Benchmark level: s, the spread of accuracies across questions; default
        :data:`DEFAULT_CONCENTRATION`.
    warn_ratio : float, keyword-only
        Width ratio that triggers an :class:`ElicitationWarning`; default
        :data:`DEFAULT_WARN_RATIO`.
    draws : int, keyword-only
        Monte Carlo draws of the benchmark-level implied interval, default 20000.
    seed : int, keyword-only
        Their seed, default 0.

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
    """Concentration of ``preliz.dirichlet_mode(mode, mass, bound, plot=False)``.

    See the module docstring. The inputs are checked first (PreliZ renormalises a mode that
    does not sum to 1; here that is an error).

    Parameters
    ----------
    mode : array_like of shape (C + 1,)
        The most likely category shares, each > 0, summing to 1.
    mass : float, optional
        The probability that each share lies within ``bound`` of its mode, default 0.9.
    bound : float, optional
        The half-width around each mode, in ``(0, min(mode))``; default 0.01.

    Returns
    -------
    numpy.ndarray of shape (C + 1,)
        The Dirichlet concentration ``alpha``.

    Raises
    ------
    ValueError
        A mode that is not a vector of shares, or ``mass`` or ``bound`` out of range.

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import dirichlet_mode_alpha
    >>> dirichlet_mode_alpha([0.2, 0.3, 0.5], mass=0.9, bound=0.1).round(3).tolist()
    [10.946, 15.92, 25.866]
    """
    m = np.asarray(mode, dtype=float)
    if m.ndim != 1 or m.size < 2 or not np.all(m > 0) or abs(m.sum() - 1) > 1e-9:
        raise ValueError(f"mode is {m.tolist()}; expected C + 1 >= 2 shares > 0 that sum to 1.")
    if not 0 < mass < 1:
        raise ValueError(f"mass is {mass!r}; expected a probability in (0, 1).")
    if not 0 < bound < m.min():
        raise ValueError(
            f"bound is {bound!r}; expected a number in (0, {m.min():g}) (every mode - bound > 0)."
        )
    return _dirichlet_mode(m, mass, bound)


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
    r"""Rubric prior from the most likely shares ``mode`` and how close each lies to it.

    The statement: "the most likely shares are ``mode``; each lies within ``+-bound`` of its
    mode with probability ``mass``" (``preliz.dirichlet_mode``, module docstring).

    Question level only, as :func:`~bayes_eval.validation.elicitation.elicit_dirichlet`
    (which fits one ``[lo, hi]`` interval per category by least squares instead).

    Parameters
    ----------
    mode : array_like of shape (C + 1,)
        The most likely category shares, each > 0, summing to 1.
    mass : float, optional
        The probability that each share lies within ``bound`` of its mode, default 0.9.
    bound : float, keyword-only
        The half-width around each mode, in ``(0, min(mode))``; default 0.01.
    level : {"question"}, keyword-only, required
        Only ``"question"`` is supported, as in ``elicit_dirichlet``.
    n_questions : int, keyword-only, required
        M for the implied prior on pi-bar.
    w : array_like of shape (C + 1,), keyword-only
        Weights of the score; default evenly spaced in ``[0, 1]``.
    warn_ratio : float, keyword-only
        As in :func:`elicit_beta`; default :data:`DEFAULT_WARN_RATIO`.

    Returns
    -------
    ElicitedPrior
        ``achieved`` holds each category's central ``mass`` interval; ``stated`` the central
        ``mass`` interval of one question's score :math:`w\cdot\pi`; ``implied`` that of
        pi-bar over M questions.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.validation.elicitation import elicit_dirichlet_mode
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the implied pi-bar is far narrower: a warning
    ...     p = elicit_dirichlet_mode([0.2, 0.3, 0.5], 0.9, bound=0.1, level="question",
    ...                               n_questions=30)
    >>> p.alpha.round(3).tolist(), p.stated.round(3).tolist(), p.implied.round(3).tolist()
    ([10.946, 15.92, 25.866], [0.551, 0.727], [0.625, 0.657])
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
    prior = ElicitedPrior(
        level="question",
        alpha=alpha,
        hyper_alpha=None,
        concentration=None,
        depth=float(alpha.sum() - alpha.size),
        achieved=_marginal_intervals(alpha, mass),
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


# ----------------------------------------------------------------------------- checks on data


def prior_predictive(
    prior: ElicitedPrior,
    w: ArrayLike | None = None,
    *,
    n_questions: int | None = None,
    draws: int = 20_000,
    seed: int = 0,
) -> dict:
    r"""Prior predictive distribution of pi-bar for M questions, and of one question's score.

    Parameters
    ----------
    prior : ElicitedPrior
        Question level: each :math:`\pi_q \sim \mathrm{Dir}(\alpha)`; benchmark level:
        m from the hyperprior, then each :math:`\pi_q \mid m` independently.
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

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import elicit_beta, prior_predictive
    >>> prior = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30, draws=2000)
    >>> pred = prior_predictive(prior, draws=2000, seed=0)
    >>> pred["pi_bar_mean"], pred["pi_bar_sd"], pred["pi_bar_quantiles"]["0.05"]
    (0.4472, 0.1118, 0.2723)
    """
    pi_bar, per_q = predictive_draws(prior, w, n_questions=n_questions, draws=draws, seed=seed)
    m_questions = prior.n_questions if n_questions is None else int(n_questions)
    return predictive_summary(prior, pi_bar, per_q, m_questions)


def predictive_summary(prior: ElicitedPrior, pi_bar, per_q, m_questions: int) -> dict:
    """The dict of :func:`prior_predictive` from the draws of :func:`predictive_draws`.

    Parameters
    ----------
    prior : ElicitedPrior
        The prior the draws come from (its ``level`` is reported).
    pi_bar : numpy.ndarray
        Draws of pi-bar over M questions.
    per_q : numpy.ndarray
        Draws of one question's score.
    m_questions : int
        M, reported as ``n_questions``.

    Returns
    -------
    dict
        ``level``, ``n_questions``, ``pi_bar_quantiles``, ``pi_bar_mean``, ``pi_bar_sd`` and
        ``question_score_quantiles`` (quantiles 0.025 to 0.975, keyed by their level).

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import (
    ...     elicit_beta, predictive_draws, predictive_summary)
    >>> prior = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30, draws=2000)
    >>> pi_bar, per_q = predictive_draws(prior, draws=2000, seed=0)
    >>> summary = predictive_summary(prior, pi_bar, per_q, 30)
    >>> summary["pi_bar_mean"], summary["pi_bar_quantiles"]["0.5"]
    (0.4472, 0.4418)
    """
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


def predictive_draws(
    prior: ElicitedPrior,
    w: ArrayLike | None = None,
    *,
    n_questions: int | None = None,
    draws: int = 20_000,
    seed: int = 0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The draws behind :func:`prior_predictive` (same arguments, same seed: same draws).

    ``pi_bar`` over M questions and one question's score, each of shape ``(draws,)``.

    Parameters
    ----------
    prior : ElicitedPrior
        The elicited prior.
    w : array_like, optional
        Score weights; default ``prior.w``.
    n_questions : int, keyword-only
        M; default ``prior.n_questions``.
    draws : int, keyword-only
        Monte Carlo draws, default 20000.
    seed : int, keyword-only
        Their seed, default 0.

    Returns
    -------
    pi_bar : numpy.ndarray of shape (draws,)
        Draws of pi-bar over M questions.
    per_q : numpy.ndarray of shape (draws,)
        Draws of one question's score.

    Examples
    --------
    >>> from bayes_eval.validation.elicitation import elicit_beta, predictive_draws
    >>> prior = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30, draws=2000)
    >>> pi_bar, per_q = predictive_draws(prior, draws=2000, seed=0)
    >>> pi_bar.shape, per_q.shape, round(float(pi_bar.mean()), 4)
    ((2000,), (2000,), 0.4472)
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
    return pi_bar, per_q


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

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.elicitation import elicit_beta, sensitivity
    >>> rates = np.array([0.3, 0.5, 0.7])[:, None, None]
    >>> R = (np.random.default_rng(0).random((3, 30, 4)) < rates).astype(int)
    >>> prior = elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30, draws=2000)
    >>> ds = sensitivity(R, prior, models=["a", "b", "c"])
    >>> ds["mu"].values.round(4).tolist(), ds["rank"].sel(prior="elicited").values.tolist()
    ([[0.2765, 0.4662, 0.6167], [0.2867, 0.4672, 0.6097]], [3, 2, 1])
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
        mu_e, s_e = np.array(
            [_benchmark_moments(c, w, prior.hyper_alpha, prior.concentration) for c in t.counts]
        ).T
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
