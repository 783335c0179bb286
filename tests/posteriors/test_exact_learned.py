"""The exact interval under the learned prior against a brute-force computation.

The reference is written here, independently of the package: binary data, the prior
Beta(a0, a1) of every question integrated over its hyperparameters on a trapezoid grid in
(u, v) = (logit mean, log concentration) (the map to eta = log a has Jacobian 1), weights the
exact Beta-binomial marginal likelihood times the hyperprior the fit used (imported at run
time: ``prior_likelihood._hyper`` with the fitted prior's ``kappa_prior``, so no number of today's
hyperprior is written here), and at each grid point the law of pi-bar as a lattice
convolution of the questions' Beta posteriors (linear binning of step h from closed-form
E[(t - Y)+], FFT). The grid covers every point within 30 of the maximal log density.

Resolution: against a 240 x 72 grid with h = 1/400 the 120 x 40 grid with h = 1/100 used
here moved the 95% endpoints by at most 0.0015 posterior sd for mixed outcomes (M from 1 to
30, N = 1 and 4) and by up to 0.0025 sd when none or all questions are solved (M = 20 and 30,
N = 1 and 4); linear binning keeps every conditional mean and adds at most h^2/4 per question
to the variance (a 1e-4 sd change of an endpoint at M = 20). The tolerance, 0.01 posterior
sd, is the one the issue asks for (0.015 at N = 4); the 13-point Gauss-Hermite mixture the
package used before was 0.1-0.3 sd off at N = 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import fft as sfft
from scipy.special import betainc, betaln, expit

import bayes_eval as be
from bayes_eval.posteriors import prior_fit, prior_likelihood

PROBS = np.array([0.025, 0.975])


def _log_hyperpost(u, v, succ, fail, kappa_prior):
    m, kappa = expit(u), np.exp(v)
    a1, a0 = kappa * m, kappa * (1.0 - m)
    lp = prior_likelihood._hyper(np.stack([np.log(a0), np.log(a1)], axis=-1), kappa_prior)[0]
    types, mult = np.unique(np.stack([succ, fail], axis=1), axis=0, return_counts=True)
    ll = sum(
        k * (betaln(a1 + s, a0 + f) - betaln(a1, a0)) for (s, f), k in zip(types, mult, strict=True)
    )
    return lp + ll


def _binned_beta(p, q, h):
    """Linear binning of Beta(p, q) (one row per pair) on the points j h of [0, 1]:
    second differences of G(t) = E[(t - Y)+] = t I_t(p, q) - p/(p+q) I_t(p+1, q)."""
    t = np.arange(-1, round(1 / h) + 2)[None, :] * h
    z = np.clip(t, 0.0, 1.0)
    p, q = p[:, None], q[:, None]
    g = t * betainc(p, q, z) - p / (p + q) * betainc(p + 1.0, q, z)
    return np.clip((g[:, 2:] - 2.0 * g[:, 1:-1] + g[:, :-2]) / h, 0.0, None)


def reference_quantiles(succ, fail, kappa_prior, probs=PROBS, n_u=120, n_v=40, h=1 / 100):
    """Quantiles of pi-bar under the hierarchical Beta prior, by brute force."""
    succ, fail = np.asarray(succ, float), np.asarray(fail, float)
    m_q = succ.size
    uu, vv = np.meshgrid(np.linspace(-20, 20, 401), np.linspace(-15, 20, 351), indexing="ij")
    lp = _log_hyperpost(uu, vv, succ, fail, kappa_prior)
    box = lp > lp.max() - 30.0
    u = np.linspace(uu[box].min() - 0.1, uu[box].max() + 0.1, n_u)
    v = np.linspace(vv[box].min() - 0.1, vv[box].max() + 0.1, n_v)
    uu, vv = (a.ravel() for a in np.meshgrid(u, v, indexing="ij"))
    lw = _log_hyperpost(uu, vv, succ, fail, kappa_prior)
    wt = np.exp(lw - lw.max())
    keep = wt > 1e-12 * wt.sum()
    uu, vv, wt = uu[keep], vv[keep], wt[keep] / wt[keep].sum()
    a1, a0 = np.exp(vv) * expit(uu), np.exp(vv) * expit(-uu)
    types, mult = np.unique(np.stack([succ, fail], axis=1), axis=0, return_counts=True)
    size = m_q * round(1 / h) + 1  # lattice of the sum: points j h, j = 0 .. M / h
    n_fft = sfft.next_fast_len(size, real=True)
    mix = np.zeros(size)
    for start in range(0, uu.size, 512):
        part = slice(start, start + 512)
        spec = 1.0
        for (s, f), k in zip(types, mult, strict=True):
            pmf = _binned_beta(a1[part] + s, a0[part] + f, h)
            spec = spec * sfft.rfft(pmf, n_fft, axis=1) ** k
        pmf = np.clip(sfft.irfft(spec, n_fft, axis=1)[:, :size], 0.0, None)
        mix += wt[part] @ (pmf / pmf.sum(axis=1, keepdims=True))
    edges = (np.arange(size + 1) - 0.5) * h / m_q  # CDF linear across each cell of pi-bar
    cdf = np.concatenate([[0.0], np.cumsum(mix)])
    rising = np.concatenate([[True], np.diff(cdf) > 0])
    return np.clip(np.interp(probs, cdf[rising], edges[rising]), 0.0, 1.0)


def _results(m, solved, n):
    """M questions, N trials each; question i solved ``solved[i]`` times."""
    solved = np.broadcast_to(np.asarray(solved), (m,))
    return (np.arange(n)[None, :] < solved[:, None]).astype(float), solved.astype(float)


def _check(m, solved, n, tol=0.01):
    R, succ = _results(m, solved, n)
    post = be.posterior(R, prior="empirical")
    hyper = post.fitted.kappa_prior
    hyper = post.prior.kappa_prior if hyper is None else tuple(hyper[0])
    ref = reference_quantiles(succ, n - succ, hyper)
    lo, hi = post.interval(0.95, kind="exact")
    err = (np.array([lo, hi]) - ref) / post.sd
    assert np.abs(err).max() < tol, (ref, (lo, hi), err)
    assert 0.0 <= lo < hi <= 1.0


@pytest.mark.parametrize(("m", "solved"), [(1, 0), (2, [1, 0]), (3, [1, 1, 0]), (5, 0), (5, 1)])
def test_few_questions_one_trial_match_the_grid(m, solved):
    _check(m, solved, 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("m", "solved", "n", "tol"),
    [
        (20, [1] * 8 + [0] * 12, 1, 0.01),  # the case
        (10, [1] + [0] * 9, 1, 0.01),
        (30, [1] * 29 + [0], 1, 0.01),
        (20, 0, 1, 0.01),  # none solved
        (20, 1, 1, 0.01),  # all solved
        (30, 0, 1, 0.01),
        (30, 1, 1, 0.01),
        (12, [4] * 5 + [0] * 7, 4, 0.015),
        (30, 4, 4, 0.015),  # all solved at N = 4 (the fine grid once found a false mode)
    ],
)
def test_tails_match_the_grid(m, solved, n, tol):
    _check(m, solved, n, tol)


def test_fine_grid_keeps_to_where_the_likelihood_is_exact():
    """Every question solved N = 4 times: along the ridge a0 -> 0, a1 -> infinity the
    likelihood tends to 1, and at a ~ 1e17 its log-gamma differences lose hundreds to
    cancellation. The fine grid must stay where they are exact and reproduce the moments of
    the Gauss-Hermite integration (an independent quadrature of the same hyperposterior):
    the 2.5% point is 0.976 (brute-force grid), not 1 - 3e-6 as a grid at the false maximum
    gave."""
    R, succ = _results(30, 4, 4)
    post = be.posterior(R, prior="empirical")
    fitted = post.fitted
    hyper = post.prior.kappa_prior if fitted.kappa_prior is None else tuple(fitted.kappa_prior[0])
    counts = np.column_stack([4.0 - succ, succ])  # categories in the order of w = (0, 1)
    fine = prior_fit._fine_grid(counts, fitted.alpha[0], fitted.log_alpha_cov[0], hyper)
    assert fine is not None
    nodes, wts = fine
    assert np.log(nodes).max() <= prior_fit._FINE_ETA_MAX
    # E[pi-bar | a] for all-solved rows is (a1 + 4) / (a0 + a1 + 4), averaged over the grid
    mean = wts @ ((nodes[:, 1] + 4.0) / (nodes.sum(axis=1) + 4.0))
    assert abs(mean - float(post.mean)) < 0.05 * float(post.sd), (mean, post.mean, post.sd)


# --------------------------------------------------------------- three or more levels
LEVEL_CASES = [
    ((0.0, 0.5, 1.0), (0.3, 0.2, 0.4)),  # infinite densities at every level
    ((0.0, 0.5, 1.0), (3.0, 1.0, 2.0)),
    ((0.0, 0.5, 1.0), (0.1, 5.0, 0.2)),  # a spike at the middle level
    ((0.0, 0.5, 1.0), (20.0, 30.0, 10.0)),
    ((0.0, 0.3, 1.0), (1.2, 0.05, 0.3)),
    ((0.0, 0.25, 0.75, 1.0), (0.4, 2.0, 0.7, 3.0)),
]


@pytest.mark.parametrize(("levels", "nu"), LEVEL_CASES)
def test_level_lattice_moves_the_dirichlet_law_by_its_binnings_only(levels, nu):
    """The lattice law of w.pi from stick-breaking (``mixture._level_pmf``) against the exact
    law (Imhof's inversion, ``imhof._imhof_exact``, accurate to 1e-9): each of its
    b = 2 K - 1 linear binnings (K + 1 levels) moves the value by at most h and keeps its
    conditional mean, so the mean is exact, the variance exceeds the exact one by at most
    b h^2 / 4, and the lattice CDF lies between F(x - b h) and F(x + b h)."""
    from bayes_eval.posteriors.imhof import _imhof_exact
    from bayes_eval.posteriors.mixture import _level_pmf

    c, nu = np.array(levels), np.array(nu)
    n = 48
    h = 1.0 / n
    binnings = 2 * (c.size - 1) - 1
    pmf = _level_pmf(nu[None, :], c, n)[0]
    x = np.arange(n + 1) * h
    p = nu / nu.sum()
    mean = p @ c
    var = (p @ c**2 - mean**2) / (nu.sum() + 1.0)
    assert abs(pmf.sum() - 1.0) < 1e-9
    assert abs(pmf @ x - mean) < 1e-10
    lat_var = pmf @ x**2 - (pmf @ x) ** 2
    assert var - 1e-10 <= lat_var <= var + binnings * h * h / 4.0
    at = np.concatenate([x, x[:-1] + 0.5 * h])
    cdf = np.cumsum(pmf)[np.floor(at / h + 1e-9).astype(int)]
    lo = _imhof_exact(at - binnings * h, c, nu)
    hi = _imhof_exact(at + binnings * h, c, nu)
    assert np.all(cdf >= lo - 1e-8) and np.all(cdf <= hi + 1e-8)


def _rubric_board(m, n, alpha, seed):
    rng = np.random.default_rng(seed)
    rates = rng.dirichlet(alpha, m)
    return np.array([rng.choice(len(alpha), size=n, p=r) for r in rates])


def _lattice_against_laws(R, w):
    """The 95% endpoints of the shared lattice against those of the exact laws at the same
    nodes (``method="laws"``, within 1e-4 sd of their own limit), in posterior sd."""
    from bayes_eval.posteriors import exact

    post = be.posterior(R, w=w, prior="empirical")
    counts = post.data.reshape(-1, *post.data.shape[-2:])[0]
    nodes, wts = post.fitted.nodes[:, 0], post.weights.reshape(post.n_nodes, -1)[:, 0]
    fast = exact.mixture_interval(counts, post.w, 0.95, nodes, wts)
    ref = exact.mixture_interval(counts, post.w, 0.95, nodes, wts, method="laws")
    assert tuple(post.interval(0.95, kind="exact")) == pytest.approx(tuple(fast), abs=1e-12)
    return np.abs(np.array(fast) - np.array(ref)) / float(post.sd)


def test_rubric_interval_matches_the_exact_laws():
    """Tolerance 0.006 posterior sd: over 114 measured boards (three and four levels, M 5-100,
    N 1-8) the largest difference was 0.004 sd, 0.0003 sd with 50 cells per sd and 1e-5 sd
    with 200 (the lattice's resolution, not a bias: the binnings keep every conditional
    mean)."""
    err = _lattice_against_laws(_rubric_board(5, 1, [0.3, 1.0, 4.0], 0), [0, 0.5, 1])
    assert err.max() < 0.006, err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("m", "n", "alpha", "w"),
    [
        (10, 2, [0.4, 0.4, 0.4], [0, 0.5, 1]),
        (30, 4, [2.0, 6.0, 2.0], [0, 0.5, 1]),
        (30, 1, [0.3, 1.0, 4.0], [0, 0.3, 1]),
        (5, 8, [2.0, 6.0, 2.0], [0, 0.5, 1]),
        (10, 4, [1.0, 3.0, 3.0, 1.0], [0, 0.25, 0.75, 1]),
    ],
)
def test_rubric_intervals_match_the_exact_laws(m, n, alpha, w):
    err = _lattice_against_laws(_rubric_board(m, n, alpha, 1), w)
    assert err.max() < 0.006, err
