r"""The prior on pi-bar implied by an elicited prior, for M questions (:mod:`.elicitation`).

Question level: M independent :math:`\pi_q \sim \mathrm{Dir}(\alpha)`, the exact lattice law
of :math:`\bar\pi = \frac1M\sum_q w\cdot\pi_q` (:mod:`bayes_eval.posteriors.exact`).
Benchmark level: Monte Carlo over :math:`m \sim \mathrm{Beta}(a, b)` (stratified), then
:math:`\pi_q \mid m \sim \mathrm{Beta}(s m, s(1-m))`; beyond
``_EXACT_CONDITIONAL_MAX_M`` questions :math:`\bar\pi \mid m` is replaced by the Beta law with
mean m and variance :math:`m(1-m)/((s+1)M)`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.stats import beta as beta_dist

from bayes_eval.posteriors.exact import exact_posterior
from bayes_eval.validation.elicitation_fit import _tails

__all__ = []

#: Above this M, the benchmark-level Monte Carlo replaces the exact law of pi-bar given m
#: (a mean of M Beta draws) by the Beta law with the same mean and variance.
_EXACT_CONDITIONAL_MAX_M = 200


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
