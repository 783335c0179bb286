r"""Checks of an elicited prior on data: prior predictive draws of pi-bar, and the
sensitivity of mu, sigma and ranks of real results to the prior (uniform against elicited)."""

from __future__ import annotations

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import betaln, expit, log_expit, logsumexp

from bayes_eval.inputs import tally
from bayes_eval.metrics.bayes import bayes
from bayes_eval.ranking.ranks import rank
from bayes_eval.validation.elicited_prior import ElicitedPrior, _benchmark_draws, _check_m

__all__ = ["predictive_draws", "predictive_summary", "prior_predictive", "sensitivity"]


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
    pi_bar, per_q = predictive_draws(prior, w, n_questions=n_questions, draws=draws, seed=seed)
    m_questions = prior.n_questions if n_questions is None else int(n_questions)
    return predictive_summary(prior, pi_bar, per_q, m_questions)


def predictive_summary(prior: ElicitedPrior, pi_bar, per_q, m_questions: int) -> dict:
    """The dict of :func:`prior_predictive` from the draws of :func:`predictive_draws`."""
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
    """The draws behind :func:`prior_predictive` (same arguments, same seed: same draws):
    ``pi_bar`` over M questions and one question's score, each of shape ``(draws,)``."""
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
