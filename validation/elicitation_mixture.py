r"""A benchmark-level elicited prior as a mixture over the benchmark mean m (:mod:`.elicitation`).

The prior is :math:`\int \prod_q \mathrm{Dir}(\pi_q; \alpha(m))\,\mathrm{Beta}(m; a, b)\,dm`
with :math:`\alpha(m) = (s(1-m), s m)`. Here: quadrature nodes of m under the prior
(Gauss-Jacobi for the weight :math:`m^{a-1}(1-m)^{b-1}`, or equal-mass Beta quantiles); the
posterior of m given one model's counts (Beta prior times the Beta-binomial marginal
likelihood of each question, on an adaptive grid of :math:`\mathrm{logit}\, m`); and the
posterior mean and sd of pi-bar, the closed-form Bayes@N moments (Hariri et al., "Don't
Pass@k", eq. 6) at each node mixed by the law of total variance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import betaln, expit, log_expit, logsumexp, roots_jacobi
from scipy.stats import beta as beta_dist

__all__ = []


def _hyper_nodes(
    a: float, b: float, n_nodes: int, rule: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes m in (0, 1) of the prior ``Beta(a, b)`` and their normalised log weights."""
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
    return m, log_w - logsumexp(log_w)


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


def _benchmark_moments(
    counts: NDArray, w: NDArray, hyper_alpha: NDArray, s: float
) -> tuple[float, float]:
    r"""Posterior mean and sd of pi-bar for one model under a benchmark-level prior.

    The closed-form Bayes@N moments at each node m (Beta posteriors
    :math:`\mathrm{Beta}(s m + k_q, s(1-m) + n_q - k_q)`), mixed with the posterior weights
    of m by the law of total variance; ``hyper_alpha = (b, a)`` and ``s`` as in
    :class:`~bayes_eval.validation.elicitation.ElicitedPrior`.
    """
    b, a = hyper_alpha
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
