r"""The Pass@k family: unbiased point estimates and posteriors of the latent metric.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix H. Every member scores a question by a *credit* :math:`A_j` for exactly ``j``
successes among ``k`` attempts, ``j = 0..k``:

============  ===============================================================  ======
metric        credit :math:`A_j`                                               App. H
============  ===============================================================  ======
Pass@k        :math:`1[j \ge 1]`                                               eq. 21
Pass^k        :math:`1[j = k]`                                                 eq. 22
G-Pass@k_tau  :math:`1[j \ge j_0]`, :math:`j_0 = \max(1,\lceil\tau k\rceil)`   eq. 23
mG-Pass@k     :math:`\frac{2}{k}\max(j - m, 0)`, :math:`m = \lceil k/2\rceil`  eq. 24
============  ===============================================================  ======

**Unbiased estimates** (``pass_at_k`` and friends; N trials with c successes):
:math:`\sum_j A_j\,\mathrm{Hyp}(j; N, c, k)` per question (k of the N trials drawn without
replacement), averaged over questions.

**Posterior of the latent metric** (``*_ci``). Each question's success probability has the
posterior :math:`p_\alpha \sim \mathrm{Beta}(a_1 + c_\alpha, a_0 + N_\alpha - c_\alpha)`, where
:math:`(a_0, a_1)` is the Dirichlet prior of the categories (fail, success): the Beta prior
:math:`\mathrm{Beta}(\alpha_0, \beta_0)` of scorio is :math:`(a_0, a_1) = (\beta_0, \alpha_0)`.
The latent metric of a question is the k-attempt i.i.d. version
:math:`g(p) = \sum_j A_j \binom{k}{j}p^j(1-p)^{k-j}
= \sum_{j \ge 1} (A_j - A_{j-1})\, I_p(j, k - j + 1)` (:math:`I` the regularised incomplete
Beta function), and the target is :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)`.

*Moments.* :math:`E[g] = \sum_j A_j\,\mathrm{BB}(j; k, a, b)` and
:math:`\mathrm{Var}[g] = \sum_t h_t\,\mathrm{BB}(t; 2k, a, b)` (beta-binomial
probabilities), where :math:`h` are the degree-2k Bernstein coefficients of
:math:`(g - E g)^2` (centred, so no cancellation). For Pass@k and Pass^k the closed forms
:math:`E[(1-p)^k] = \prod_{i<k}\frac{b+i}{a+b+i}` and
:math:`E[(1-p)^{2k}]/E[(1-p)^k]^2 = \prod_{i<k}\big(1 + \frac{ak}{(a+b+k+i)(b+i)}\big)`
are used. Then :math:`\mu = \frac1M\sum_\alpha E[g_\alpha]` and
:math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g_\alpha]}`.

*Intervals.* ``interval="normal"`` (default, scorio 0.2.3's): :math:`\mu \mp z\sigma` clipped
into ``bounds``. Its mass is not ``confidence``: for Pass^4 of one question with 4 of 4
correct it is [0.015, 1] while the equal-tailed 95% interval is [0.052, 0.980].
``interval="exact"``: equal-tailed quantiles of the true posterior of :math:`\bar g`. Each
:math:`g` is nondecreasing in p (the credits are nondecreasing in j for all four metrics:
mG-Pass's :math:`\max(j - m, 0)` included), so :math:`P(g(p) \le y) = I_{x}(a, b)` at
:math:`x = g^{-1}(y)`: in closed form for Pass@k and Pass^k, by Newton's method in
:math:`\log x` for G-Pass and mG-Pass (each half of the range inverted from its own end, so
tails keep their relative accuracy). For M = 1 the quantiles are :math:`g` of the Beta
(mixture) quantiles, found by bisection in :math:`\log x`. For M > 1 the law of the mean is
built on a lattice of 200 cells per posterior sd from exact cell probabilities (PCHIP
between ~2048 exact points on long windows), identical questions grouped and convolved by
FFT (a power of the transform per group, the circular window sized by a Chernoff bound)
and moment matched to the exact mean and sd. Within 2048 cells of either end of the support
the lattice is replaced by nested finer ones: :math:`P(\bar g \le s)` depends only on each
question's law on :math:`[0, s]`, so each level discretises the questions on a shorter
range (8192+ cells, rounding to the nearest point) and convolves the truncated laws
exactly; levels shrink 8-fold, or faster where the CDF is flat in :math:`\log s`. Tails
that pile up against a bound (questions never or always solved) thereby keep their mass,
down to quantiles of order 1e-68. A learned prior mixes the node CDFs (nodes holding
:math:`1 - 10^{-6}` of the weight) and inverts the mixture by bisection in :math:`\log s`.
Endpoints lie in :math:`[0, g(1)]`. Tail masses agree with 10^6 posterior draws within
Monte Carlo error, and the lattice quantiles with a 20-times finer one to ~5e-5 of tail
mass (tests/metrics/test_pass_and_avg.py).

**Learned priors** (``prior="empirical"``, ``"empirical-plugin"``; see
:mod:`bayes_eval.posteriors.priors`): the per-question Beta prior is learned from the
questions' counts
(Dirichlet-multinomial hyperposterior); the posterior is the mixture over its quadrature
nodes, with moments mixed by the law of total variance and exact intervals from the mixture
CDF.

**Unbiased estimate versus posterior mean.** ``pass_at_k(R, k)`` estimates the metric of the
*observed* questions without bias; ``pass_at_k_ci(R, k).posterior_mean`` is the posterior mean
of the latent metric under the stated prior, and the two can differ by far more than the
posterior sd. The audit's example: M = 30 questions, N = 4 trials, 8% successes, in the
pattern of a hard benchmark (21 questions never solved, 8 solved once, 1 solved twice: 10 of
120 trials), k = 2:

=========================  ===============  =======  ================  ================
quantity                   value            sd       normal 95%        exact 95%
=========================  ===============  =======  ================  ================
``pass_at_k`` (unbiased)   0.161
posterior, uniform         0.3635           0.039    [0.286, 0.441]    [0.288, 0.442]
posterior, jeffreys        0.273            0.038    [0.198, 0.348]    [0.201, 0.350]
posterior, empirical       0.170            0.044    [0.085, 0.256]    [0.096, 0.257]
posterior, plug-in         0.171            0.021    [0.130, 0.212]    [0.132, 0.213]
=========================  ===============  =======  ================  ================

The uniform prior gives every never-solved question a Pass@2 of 2/7 = 0.286 a posteriori
(p ~ Beta(1, 5)), which 4 failures cannot overcome: the posterior mean lies 5.1 posterior
sd above the unbiased estimate and the interval excludes it. The learned prior (posterior
mode Beta(1.31, 12.5): mean success probability 0.095, concentration 13.8) closes 96% of
the gap between the posterior mean and the unbiased estimate, and its interval contains
0.161; ``"empirical"`` integrates over the uncertainty of that prior and is wider than the
plug-in. Reproduce with
``R = (np.arange(4) < np.repeat([0, 1, 2], [21, 8, 1])[:, None]).astype(int)`` and
``pass_at_k_ci(R, 2, prior=..., interval=...)``.

Work is done once per distinct ``(N_alpha, c_alpha)`` state (and prior node) and gathered
back, so batches of models and bootstrap replicates cost little more than their number of
distinct states.

Layout: the unbiased point estimates and the scorio-named ``*_ci`` functions are here; the
credits, the latent metric, its moments and exact intervals are the posterior's
(:mod:`bayes_eval.posteriors.latent_pass`, asked through
:meth:`Posterior.pass_metric <bayes_eval.posteriors.posterior.Posterior.pass_metric>`).

Differences from scorio 0.2.3 (deliberate): ``tau`` must lie in (0, 1] (eq. 23 defines tau in
(0, 1]; scorio also accepts 0 as Pass@k); ``confidence``/``bounds``/priors are keyword-only;
``R`` may be batched ``(L, M, N)`` and may have masked (missing) trials; results are
:class:`PassPosterior` named tuples (they unpack as ``mu, sigma, lo, hi`` as scorio's do).

**The unbiased estimates** draw k of the N trials without replacement:

.. math:: \hat g_\alpha = \sum_{j=0}^{k} A_j\,\mathrm{Hyp}(j; N_\alpha, c_\alpha, k),
          \qquad \widehat{\mathrm{metric}} = \frac1M\sum_\alpha \hat g_\alpha

(Chen et al., "Evaluating Large Language Models Trained on Code", for Pass@k), once per
distinct ``(N_alpha, c_alpha)`` state and gathered back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import (
    check_beta_prior,
    check_bounds,
    check_confidence,
    check_k,
    check_tau,
    distinct_states,
    shown,
)
from bayes_eval.posteriors.intervals import Estimate, as_estimate
from bayes_eval.posteriors.latent_pass import (
    PassPosterior,
    binary_tally,
    mg_credit,
    tau_threshold,
    threshold_credit,
)
from bayes_eval.posteriors.posterior import Interval, Posterior, check_interval
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Pool, Prior, PriorSpec

__all__ = [
    "g_pass_at_k",
    "g_pass_at_k_ci",
    "g_pass_at_k_tau",
    "g_pass_at_k_tau_ci",
    "mg_pass_at_k",
    "mg_pass_at_k_ci",
    "pass_at_k",
    "pass_at_k_ci",
    "pass_hat_k",
    "pass_hat_k_ci",
    "pass_prior",
]


def _prior_spec(
    prior: PriorSpec | Prior | None, alpha0: float | None, beta0: float | None
) -> PriorSpec | Prior:
    """``alpha0``/``beta0`` (scorio's Beta prior) as a Dirichlet vector over (fail, success).

    No prior at all is the default, the learned one.
    """
    if alpha0 is None and beta0 is None:
        return DEFAULT_PRIOR if prior is None else prior
    if prior is not None:
        raise ValueError(
            f"both prior={shown(prior)} and alpha0/beta0 were given; alpha0 and beta0 are the "
            "older way to give a fixed Beta prior: pass prior= only (prior=[beta0, alpha0], the "
            "categories being (fail, success))."
        )
    a0, b0 = check_beta_prior(1.0 if alpha0 is None else alpha0, 1.0 if beta0 is None else beta0)
    return np.array([b0, a0])


def pass_prior(
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    **_ignored: object,
) -> Prior:
    """The :class:`~bayes_eval.posteriors.priors.Prior` of the Pass family's arguments.

    The arguments are scorio-style (``alpha0``/``beta0``: the Beta prior of scorio,
    Beta(alpha0, beta0) on the success probability).

    Parameters
    ----------
    prior : Prior, str, float or array_like, optional
        As in :func:`~bayes_eval.metrics.passk.pass_at_k_ci`; None (default) is
        ``"empirical"`` unless ``alpha0`` or ``beta0`` is given.
    pool : {"board", "model", "benchmark"}, optional
        How a learned prior is pooled across models (default ``"board"``).
    alpha0, beta0 : float, optional
        scorio's fixed prior Beta(alpha0, beta0) on the success probability, i.e. the
        Dirichlet vector ``[beta0, alpha0]`` over (fail, success); a missing one is 1.
    **_ignored
        Other keyword arguments, accepted and ignored.

    Returns
    -------
    Prior
        The parsed prior.

    Raises
    ------
    ValueError
        Both ``prior`` and ``alpha0``/``beta0``.

    Examples
    --------
    >>> pass_prior().kind
    'empirical'
    >>> p = pass_prior(alpha0=2.0, beta0=1.0)
    >>> p.kind, p.alpha.tolist()
    ('fixed', [1.0, 2.0])
    """
    return Prior.parse(_prior_spec(prior, alpha0, beta0), pool=pool)


def _ci(
    metric: str,
    R: ArrayLike,
    k: int,
    tau: float | None,
    confidence: float,
    bounds: tuple[float, float] | None,
    interval: Interval,
    prior: PriorSpec | Prior | None,
    pool: Pool | None,
    alpha0: float | None,
    beta0: float | None,
    mask: ArrayLike | None,
) -> PassPosterior:
    """The posterior of a latent Pass metric: the one implementation of the five ``*_ci`` functions.

    The metric ``metric`` is a name :meth:`Posterior.pass_metric
    <bayes_eval.posteriors.posterior.Posterior.pass_metric>` knows; its posterior comes from the
    binary tally of ``R`` and its :class:`~bayes_eval.posteriors.posterior.Posterior` under the
    prior of ``prior``/``pool``/``alpha0``/``beta0``. The other arguments are the public ones,
    in their order; ``tau`` is None but for ``"g_pass_at_k_tau"``.
    """
    if metric == "g_pass_at_k_tau":
        tau = check_tau(cast(float, tau))  # a None is refused there
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    check_interval(interval, ("normal", "exact"))
    spec = pass_prior(prior, pool, alpha0, beta0)
    post = Posterior.from_tally(binary_tally(R, mask), prior=spec)
    return post.pass_metric(
        metric, k, tau=tau, confidence=confidence, interval=interval, bounds=bounds
    )


def pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    interval: Interval = "normal",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    mask: ArrayLike | None = None,
) -> PassPosterior:
    r"""Posterior mean, sd and credible interval of the latent Pass@k.

    Pass@k is the probability that at least one of k attempts at a question succeeds
    (Hariri et al. [1]_, App. H eq. 21). From :math:`c_\alpha` successes in :math:`N_\alpha`
    trials of question :math:`\alpha`, its unbiased estimate is the estimator of Chen et
    al. [2]_ averaged over the M questions, :func:`pass_at_k`:

    .. math:: \widehat{\mathrm{Pass@}k}
              = \frac1M\sum_\alpha 1 - \binom{N_\alpha - c_\alpha}{k}\Big/\binom{N_\alpha}{k}

    This function gives the posterior of the latent metric instead. Under the prior
    :math:`(a_0, a_1)` on (fail, success), the success probability of question
    :math:`\alpha` has the posterior
    :math:`p_\alpha \sim \mathrm{Beta}(a_1 + c_\alpha, a_0 + N_\alpha - c_\alpha)`, and the
    target is the mean of the k-attempt i.i.d. metric (moments and intervals in
    :mod:`bayes_eval.metrics.passk`):

    .. math:: \bar g = \frac1M\sum_\alpha g(p_\alpha), \qquad g(p) = 1 - (1 - p)^k

    ``posterior_mean`` is the posterior mean of :math:`\bar g` under the stated prior, not the
    unbiased estimate, and can differ from it by several posterior sd when most questions are
    never (or always) solved: the uniform prior pulls each question toward p = 1/2.
    ``prior="empirical"`` learns the prior from the questions and closes most of the gap (the
    module's example: 0.3635 against 0.161 under the uniform prior, 0.170 under the learned
    one).

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results; a ``numpy.ma.MaskedArray`` marks missing trials.
    k : int
        ``1 <= k <= N`` (the smallest per-question trial count with missing trials).
    confidence : float, keyword-only, default 0.95
        Credibility level in (0, 1).
    bounds : (float, float) or None, keyword-only, default (0, 1)
        Clip both endpoints to ``[lo, hi]`` (as scorio); None does not clip.
    interval : {"normal", "exact"}, keyword-only, default "normal"
        ``"normal"`` (scorio's): :math:`\mu \mp z\sigma`, whose mass is not ``confidence``
        when the posterior is skewed. ``"exact"``: the equal-tailed interval of the exact
        posterior of :math:`\bar g` (numerical, see :mod:`bayes_eval.metrics.passk`); it lies
        within the support of the metric.
    prior : str, float or array_like, keyword-only, optional
        ``"empirical"`` (the default, also when None: a Beta prior learned from the
        questions, integrated over its uncertainty, the default of every command),
        ``"uniform"`` (Beta(1, 1), the paper's and scorio's), ``"jeffreys"`` (Beta(1/2,
        1/2)), ``"empirical-plugin"`` (learned, plugged in), a positive number (both
        parameters) or a vector ``(a_0, a_1)`` for (fail, success).
    pool : {"board", "model", "benchmark"}, keyword-only, optional
        Learned priors: one per model with its concentration informed by the other models of
        ``R`` (``"board"``, default), one per model alone, or one for all models of ``R``
        (the Pass family reads each question's success probability, so it uses each model's
        own closed form, never the joint posterior of a board).
    alpha0, beta0 : float, keyword-only, optional
        The older way to give a fixed prior, :math:`\mathrm{Beta}(\alpha_0, \beta_0)`
        (``prior=[beta0, alpha0]``); a missing one is 1. Not together with another ``prior``.
    mask : array_like of bool, keyword-only, optional
        ``True`` where a trial is missing.

    Returns
    -------
    PassPosterior
        ``(posterior_mean, sigma, lo, hi)``: floats, or arrays of shape ``(L,)``. Unpacks as
        ``mu, sigma, lo, hi``.

    Raises
    ------
    ValueError
        Non-binary ``R``, ``k`` outside ``1..N``, an unknown ``interval``, ``prior`` or
        ``pool``, or both ``prior`` and ``alpha0``/``beta0``.

    See Also
    --------
    pass_at_k : The unbiased estimate of Pass@k.

    References
    ----------
    .. [1] Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
       Evaluation", Appendix H, eq. 21 (Pass@k).
    .. [2] Chen et al., "Evaluating Large Language Models Trained on Code".

    Examples
    --------
    Two questions, four trials each. Under the uniform prior the posteriors are Beta(4, 2)
    and Beta(2, 4), so the posterior mean is (6/7 + 11/21) / 2 = 29/42, below the unbiased
    estimate 3/4:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> [round(x, 4) for x in pass_at_k_ci(R, 2, prior="uniform")]
    [0.6905, 0.1326, 0.4307, 0.9503]
    >>> round(pass_at_k(R, 2), 6)
    0.75
    """
    return _ci(
        "pass_at_k", R, k, None, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
    )


def pass_hat_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    interval: Interval = "normal",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    mask: ArrayLike | None = None,
) -> PassPosterior:
    r"""Posterior mean, sd and credible interval of the latent Pass^k.

    Pass^k is the probability that all k attempts at a question succeed (Hariri et al. [1]_,
    App. H eq. 22; the metric of Yao et al. [2]_). Its unbiased estimate from
    :math:`c_\alpha` successes in :math:`N_\alpha` trials, averaged over the M questions, is
    :func:`pass_hat_k`:

    .. math:: \widehat{\mathrm{Pass}^k}
              = \frac1M\sum_\alpha \binom{c_\alpha}{k}\Big/\binom{N_\alpha}{k}

    This function gives the posterior of the latent metric
    :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)`, :math:`g(p) = p^k`, each :math:`p_\alpha`
    having its Beta posterior as in :func:`pass_at_k_ci`, whose note on the posterior mean
    against the unbiased estimate holds here too.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results; a ``numpy.ma.MaskedArray`` marks missing trials.
    k : int
        Number of attempts that must all succeed, ``1 <= k <= N``.
    confidence, bounds, interval, prior, pool, alpha0, beta0, mask : keyword-only
        As in :func:`pass_at_k_ci`; ``interval="exact"`` inverts :math:`g(p) = p^k` in
        closed form.

    Returns
    -------
    PassPosterior
        ``(posterior_mean, sigma, lo, hi)`` of the latent Pass^k: floats, or arrays of shape
        ``(L,)``.

    Raises
    ------
    ValueError
        As :func:`pass_at_k_ci`: non-binary ``R``, ``k`` outside ``1..N``, an unknown option or
        two priors.

    See Also
    --------
    pass_hat_k : The unbiased estimate of Pass^k.

    References
    ----------
    .. [1] Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
       Evaluation", Appendix H, eq. 22 (Pass^k).
    .. [2] Yao et al., "tau-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
       Domains".

    Examples
    --------
    The questions of :func:`pass_at_k_ci`: the posterior mean is
    (E[p^2 | Beta(4, 2)] + E[p^2 | Beta(2, 4)]) / 2 = (20/42 + 6/42) / 2 = 13/42:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> [round(x, 4) for x in pass_hat_k_ci(R, 2, prior="uniform")]
    [0.3095, 0.1326, 0.0497, 0.5693]
    """
    return _ci(
        "pass_hat_k", R, k, None, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
    )


def g_pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    interval: Interval = "normal",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    mask: ArrayLike | None = None,
) -> PassPosterior:
    r"""Posterior mean, sd and credible interval of the latent G-Pass@k at tau = 1 (Pass^k).

    G-Pass@k (Hariri et al. [1]_, App. H eq. 23; Liu et al. [2]_) with tau = 1 asks all k
    attempts to succeed, so it is Pass^k, :math:`g(p) = p^k`, with the unbiased estimate
    :math:`\frac1M\sum_\alpha \binom{c_\alpha}{k}/\binom{N_\alpha}{k}`
    (:func:`g_pass_at_k`). scorio's alias of :func:`pass_hat_k_ci`, with the same results;
    :func:`g_pass_at_k_tau_ci` takes other thresholds.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results, as in :func:`pass_hat_k_ci`.
    k : int
        ``1 <= k <= N``.
    confidence, bounds, interval, prior, pool, alpha0, beta0, mask : keyword-only
        As in :func:`pass_hat_k_ci`.

    Returns
    -------
    PassPosterior
        The same as :func:`pass_hat_k_ci`.

    See Also
    --------
    g_pass_at_k : The unbiased estimate of G-Pass@k (tau = 1).

    References
    ----------
    .. [1] Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
       Evaluation", Appendix H, eq. 23 with tau = 1 (G-Pass@k).
    .. [2] Liu et al., "Are Your LLMs Capable of Stable Reasoning?".

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> g_pass_at_k_ci(R, 2, prior="uniform") == pass_hat_k_ci(R, 2, prior="uniform")
    True
    """
    return _ci(
        "pass_hat_k", R, k, None, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
    )


def g_pass_at_k_tau_ci(
    R: ArrayLike,
    k: int,
    tau: float,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    interval: Interval = "normal",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    mask: ArrayLike | None = None,
) -> PassPosterior:
    r"""Posterior mean, sd and credible interval of the latent G-Pass@k_tau.

    G-Pass@k_tau is the probability that at least :math:`j_0 = \max(1, \lceil\tau k\rceil)` of
    k attempts at a question succeed (Hariri et al. [1]_, App. H eq. 23; the metric of Liu et
    al. [2]_). Its unbiased estimate from :math:`c_\alpha` successes in :math:`N_\alpha`
    trials, averaged over the M questions, is :func:`g_pass_at_k_tau`:

    .. math:: \frac1M\sum_\alpha \sum_{j=j_0}^{k}
              \frac{\binom{c_\alpha}{j}\binom{N_\alpha-c_\alpha}{k-j}}{\binom{N_\alpha}{k}}

    This function gives the posterior of the latent metric
    :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)` with
    :math:`g(p) = P(\mathrm{Binomial}(k, p) \ge j_0)`, each :math:`p_\alpha` having its Beta
    posterior as in :func:`pass_at_k_ci`, whose note on the posterior mean against the
    unbiased estimate holds here too.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results; a ``numpy.ma.MaskedArray`` marks missing trials.
    k : int
        ``1 <= k <= N``.
    tau : float
        Threshold in (0, 1]; see :func:`~bayes_eval.posteriors.latent_pass.tau_threshold`
        for the exact ceiling.
    confidence, bounds, interval, prior, pool, alpha0, beta0, mask : keyword-only
        As in :func:`pass_at_k_ci`; ``interval="exact"`` inverts :math:`g` by Newton's method.

    Returns
    -------
    PassPosterior
        ``(posterior_mean, sigma, lo, hi)`` of the latent G-Pass@k_tau: floats, or arrays of
        shape ``(L,)``.

    Raises
    ------
    ValueError
        ``tau`` outside (0, 1], or as :func:`pass_at_k_ci`.

    See Also
    --------
    g_pass_at_k_tau : The unbiased estimate, from k of the N trials drawn without replacement.

    References
    ----------
    .. [1] Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
       Evaluation", Appendix H, eq. 23 (G-Pass@k_tau).
    .. [2] Liu et al., "Are Your LLMs Capable of Stable Reasoning?" (G-Pass@k_tau).

    Examples
    --------
    At least 2 of 3 attempts (tau = 0.5) for the questions of :func:`pass_at_k_ci`; their
    posteriors Beta(4, 2) and Beta(2, 4) mirror each other, so the mean is 1/2:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> [round(x, 4) for x in g_pass_at_k_tau_ci(R, 3, 0.5, prior="uniform")]
    [0.5, 0.1587, 0.1889, 0.8111]
    """
    return _ci(
        "g_pass_at_k_tau", R, k, tau, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
    )


def mg_pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    interval: Interval = "normal",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: float | None = None,
    beta0: float | None = None,
    mask: ArrayLike | None = None,
) -> PassPosterior:
    r"""Posterior mean, sd and credible interval of the latent mG-Pass@k.

    mG-Pass@k is the discrete area of G-Pass@k_tau over tau in [0.5, 1] (Hariri et al. [1]_,
    App. H eq. 24; Liu et al. [2]_): a question scores :math:`\frac2k\max(j - m, 0)` for j
    successes among k attempts, :math:`m = \lceil k/2\rceil`. Its unbiased estimate from
    :math:`c_\alpha` successes in :math:`N_\alpha` trials, averaged over the M questions, is
    :func:`mg_pass_at_k`:

    .. math:: \frac1M\sum_\alpha \sum_{j=0}^{k} \frac{2}{k}\max(j-m, 0)\,
              \mathrm{Hyp}(j; N_\alpha, c_\alpha, k)

    This function gives the posterior of the latent metric
    :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)` with
    :math:`g(p) = \frac2k\sum_j \max(j - m, 0)\binom{k}{j}p^j(1-p)^{k-j}`, each
    :math:`p_\alpha` having its Beta posterior as in :func:`pass_at_k_ci`, whose note on the
    posterior mean against the unbiased estimate holds here too.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results; a ``numpy.ma.MaskedArray`` marks missing trials.
    k : int
        ``1 <= k <= N``; credit starts above :math:`m = \lceil k/2\rceil` successes.
    confidence, bounds, interval, prior, pool, alpha0, beta0, mask : keyword-only
        As in :func:`pass_at_k_ci`; ``interval="exact"`` inverts :math:`g`, nondecreasing in
        p, by Newton's method.

    Returns
    -------
    PassPosterior
        The posterior of mG-Pass@k, in [0, 1], as ``(posterior_mean, sigma, lo, hi)``: floats,
        or arrays of shape ``(L,)``.

    Raises
    ------
    ValueError
        As :func:`pass_at_k_ci`.

    See Also
    --------
    mg_pass_at_k : The unbiased estimate.
    g_pass_at_k_tau_ci : The thresholds that mG-Pass@k averages.

    References
    ----------
    .. [1] Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
       Evaluation", Appendix H, eq. 24 (mG-Pass@k).
    .. [2] Liu et al., "Are Your LLMs Capable of Stable Reasoning?", for mG-Pass@k as the area
       under G-Pass@k_tau.

    Examples
    --------
    k = 4 (m = 2) for the questions of :func:`pass_at_k_ci`: the posterior mean is 17/63:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> res = mg_pass_at_k_ci(R, 4, prior="uniform")
    >>> round(res.posterior_mean, 4), round(res.sigma, 4)
    (0.2698, 0.1373)
    """
    return _ci(
        "mg_pass_at_k", R, k, None, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
    )


_CHUNK = 2**21  # elements per chunk of (states x terms) work arrays


def _point(
    R: ArrayLike,
    k: int,
    credit_fn: Callable[[int], NDArray[np.float64]],
    mask: ArrayLike | None,
) -> Estimate:
    t = binary_tally(R, mask)
    n, c = t.n_trials, t.counts[..., 1]
    k = check_k(k, n)
    credit = credit_fn(k)
    un, uc, inv = distinct_states(n, c)
    nz = np.flatnonzero(credit)
    from scipy.stats import hypergeom  # scipy.stats takes 0.4 s to import: only here

    if nz.size and np.all(credit[nz[0] :] == 1.0):
        values = hypergeom.sf(nz[0] - 1, un, uc, k)  # P(X >= j0)
    else:
        j = np.arange(k + 1)
        values = np.empty(un.size)
        step = max(1, _CHUNK // (k + 1))
        for s in range(0, un.size, step):
            pmf = hypergeom.pmf(j[None, :], un[s : s + step, None], uc[s : s + step, None], k)
            values[s : s + step] = pmf @ credit
    return as_estimate(np.asarray(values, dtype=float)[inv].mean(axis=-1))


def pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased Pass@k, the probability that at least one of k attempts succeeds.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 21; the estimator of Chen et al., "Evaluating Large Language Models Trained on
    Code":

    .. math:: \mathrm{Pass@}k = \frac1M\sum_\alpha 1 - \binom{N-c_\alpha}{k}\Big/\binom{N}{k}

    This is the unbiased estimate of the metric of the observed questions, not the posterior
    mean that :func:`~bayes_eval.metrics.passk.pass_at_k_ci` returns (see
    :mod:`bayes_eval.metrics.passk` for the difference).

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
    k : int
        ``1 <= k <= N`` (the smallest per-question trial count when trials are masked).
    mask : array_like of bool, optional, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
        The estimate of Pass@k averaged over the M questions, one per model for batched
        ``R``.

    Examples
    --------
    >>> import numpy as np
    >>> round(pass_at_k(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), 2), 6)
    0.95
    """
    return _point(R, k, lambda kk: threshold_credit(kk, 1), mask)


def pass_hat_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased Pass^k, the probability that k attempts all succeed.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 22; the metric of Yao et al., "tau-bench: A Benchmark for Tool-Agent-User
    Interaction in Real-World Domains":

    .. math:: \mathrm{Pass}^k = \frac1M\sum_\alpha \binom{c_\alpha}{k}\Big/\binom{N}{k}

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
        The estimate of Pass^k averaged over the M questions, one per model for batched
        ``R``.

    Examples
    --------
    Question 1 has 3 of 4 trials correct (Pass^2 = 3/6), question 2 one (Pass^2 = 0):

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> round(pass_hat_k(R, 2), 6)
    0.25
    """
    return _point(R, k, lambda kk: threshold_credit(kk, kk), mask)


def g_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    """G-Pass@k, the tau = 1 member of App. H eq. 23: identical to :func:`pass_hat_k`.

    scorio's alias (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
    Model Evaluation", App. H).

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results.
    k : int
        Number of attempts that must all succeed, ``1 <= k <= N`` (the smallest
        per-question trial count when trials are masked).
    mask : array_like of bool, optional, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
        The estimate of G-Pass@k (= Pass^k) averaged over the M questions, one per model for
        batched ``R``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> g_pass_at_k(R, 2) == pass_hat_k(R, 2)
    True
    """
    return pass_hat_k(R, k, mask=mask)


def g_pass_at_k_tau(R: ArrayLike, k: int, tau: float, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased G-Pass@k_tau, the probability that at least ``j0`` of k attempts succeed.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 23; the metric of Liu et al., "Are Your LLMs Capable of Stable Reasoning?":

    .. math:: \frac1M\sum_\alpha \sum_{j=j_0}^{k}
              \frac{\binom{c_\alpha}{j}\binom{N-c_\alpha}{k-j}}{\binom{N}{k}},
              \qquad j_0 = \max(1, \lceil \tau k\rceil)

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.
    tau : float
        Threshold in (0, 1]; see :func:`~bayes_eval.posteriors.latent_pass.tau_threshold`
        for the exact ceiling.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
        The estimate of G-Pass@k_tau averaged over the M questions, one per model for
        batched ``R``.

    Examples
    --------
    At least 2 of 3 attempts (tau = 0.5): 3 of 4 trials correct gives 5/6, one gives 1/6:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> round(g_pass_at_k_tau(R, 3, 0.5), 6)
    0.5
    """
    tau = check_tau(tau)
    return _point(R, k, lambda kk: threshold_credit(kk, tau_threshold(tau, kk)), mask)


def mg_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased mG-Pass@k, the discrete area of G-Pass@k_tau over tau in [0.5, 1].

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 24 (Liu et al., "Are Your LLMs Capable of Stable Reasoning?"):

    .. math:: \frac{2}{k}\sum_{i=m+1}^{k}\mathrm{G\text{-}Pass@}k_{i/k}
              = \frac1M\sum_\alpha \sum_j \frac{2}{k}\max(j-m, 0)\,\mathrm{Hyp}(j; N, c_\alpha, k),
              \qquad m = \lceil k/2\rceil

    Parameters
    ----------
    R, k, mask
        As in :func:`pass_at_k`.

    Returns
    -------
    float, or ndarray of shape ``(L,)``
        The estimate of mG-Pass@k averaged over the M questions, one per model for batched
        ``R``.

    Examples
    --------
    k = 4 (m = 2): 3 of 4 trials correct earns 2/4 x (3 - 2) = 0.5, one correct earns 0:

    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    >>> round(mg_pass_at_k(R, 4), 6)
    0.25
    """
    return _point(R, k, mg_credit, mask)
