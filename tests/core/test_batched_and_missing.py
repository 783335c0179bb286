"""Batched (L, M, N) input, missing trials and a general alpha0, against independent computations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats

import bayes_eval as be

TOL = 1e-12


def test_batched_equals_loop(rng):
    R = rng.integers(0, 3, size=(5, 8, 11))
    R0 = rng.integers(0, 3, size=(5, 8, 2))
    w = [0.0, 0.4, 1.0]
    out = be.bayes_ci(R, w, R0, confidence=0.9)
    assert all(np.shape(x) == (5,) for x in out)
    for i in range(5):
        np.testing.assert_allclose(
            [x[i] for x in out], be.bayes_ci(R[i], w, R0[i], confidence=0.9), atol=TOL
        )
    # binary results of a batch share questions: the default prior would read them as one
    # board; the replicates here are independent, so each model gets its own learned prior
    Rb = (R > 0).astype(np.int8)
    own = {"prior": be.Prior("empirical", pool="model")}
    for name, args, kw in [
        ("pass_at_k_ci", (3,), own),
        ("pass_hat_k_ci", (2,), own),
        ("mg_pass_at_k_ci", (4,), own),
        ("g_pass_at_k_tau_ci", (4, 0.5), own),
        ("pass_at_k", (5,), {}),
        ("avg_ci", (), own),
    ]:
        fn = getattr(be, name)
        batched = fn(Rb, *args, **kw)
        for i in range(5):
            np.testing.assert_allclose(
                np.asarray(batched)[..., i], fn(Rb[i], *args, **kw), atol=TOL
            )


def test_int8_bool_and_int64_inputs_agree(rng):
    R = rng.integers(0, 5, size=(3, 40, 70))
    w = np.linspace(0, 1, 5)
    ref = be.bayes(R.astype(np.int64), w)
    np.testing.assert_allclose(be.bayes(R.astype(np.int8), w), ref, atol=TOL)
    np.testing.assert_allclose(be.bayes(R.astype(np.uint8), w), ref, atol=TOL)
    np.testing.assert_allclose(be.bayes(R.astype(float), w), ref, atol=TOL)
    Rb = R > 2
    np.testing.assert_allclose(be.bayes(Rb), be.bayes(Rb.astype(int)), atol=TOL)


def _brute_force_question(counts, alpha0, w):
    """Mean and variance of w.pi for pi ~ Dir(alpha0 + counts) from scipy's Dirichlet."""
    d = stats.dirichlet(np.asarray(alpha0, float) + counts)
    mean = d.mean() @ w
    cov = np.diag(d.var())
    alpha = d.alpha
    t = alpha.sum()
    for i, j in itertools.combinations(range(alpha.size), 2):
        cov[i, j] = cov[j, i] = -alpha[i] * alpha[j] / (t**2 * (t + 1))
    return mean, w @ cov @ w


@pytest.mark.parametrize("alpha0", [1.0, 0.5, [0.2, 1.0, 3.0]])
def test_missing_trials_and_alpha0_against_per_question_brute_force(rng, alpha0):
    R = rng.integers(0, 3, size=(9, 12))
    mask = rng.random(R.shape) < 0.3
    mask[:, 0] = False  # at least one trial per question
    R0 = rng.integers(0, 3, size=(9, 3))
    R0_mask = rng.random(R0.shape) < 0.5
    w = np.array([0.0, 0.25, 1.0])
    mu, sigma = be.bayes(R, w, R0, alpha0=alpha0, mask=mask, R0_mask=R0_mask)
    means, variances = [], []
    for a in range(R.shape[0]):
        counts = np.bincount(R[a][~mask[a]], minlength=3) + np.bincount(
            R0[a][~R0_mask[a]], minlength=3
        )
        m, v = _brute_force_question(counts, alpha0, w)
        means.append(m)
        variances.append(v)
    np.testing.assert_allclose(mu, np.mean(means), atol=TOL)
    np.testing.assert_allclose(sigma, np.sqrt(np.sum(variances)) / R.shape[0], atol=TOL)
    # a masked array gives the same answer
    np.testing.assert_allclose(
        be.bayes(np.ma.masked_array(R, mask), w, np.ma.masked_array(R0, R0_mask), alpha0=alpha0),
        (mu, sigma),
        atol=TOL,
    )
    # NaN-marked missing trials with an explicit mask
    Rf = R.astype(float)
    Rf[mask] = np.nan
    np.testing.assert_allclose(
        be.bayes(Rf, w, R0, alpha0=alpha0, mask=np.isnan(Rf), R0_mask=R0_mask),
        (mu, sigma),
        atol=TOL,
    )


def test_avg_with_missing_trials_is_question_weighted(rng):
    R = rng.integers(0, 2, size=(6, 10))
    mask = rng.random(R.shape) < 0.4
    mask[:, :2] = False
    a, sigma_a = be.avg(R, mask=mask)
    per_q = [R[i][~mask[i]].mean() for i in range(6)]
    np.testing.assert_allclose(a, np.mean(per_q), atol=TOL)
    # per-question eq. 20: sigma_a^2 = sum (T_a/N_a)^2 Var_a / M^2
    var = []
    for i in range(6):
        n = (~mask[i]).sum()
        c = R[i][~mask[i]].sum()
        t = n + 2
        var.append((t / n) ** 2 * stats.beta(c + 1, n - c + 1).var())
    np.testing.assert_allclose(sigma_a, np.sqrt(np.sum(var)) / 6, atol=TOL)


def _subset_average(row, k, credit):
    """The unbiased estimator by definition: average credit over all k-subsets of the trials."""
    vals = [credit(sum(s), k) for s in itertools.combinations(row, k)]
    return float(np.mean(vals))


CREDITS = {
    "pass_at_k": lambda j, k: float(j >= 1),
    "pass_hat_k": lambda j, k: float(j == k),
    "mg_pass_at_k": lambda j, k: 2.0 / k * max(j - (k + 1) // 2, 0),
}


@pytest.mark.parametrize("name", sorted(CREDITS))
def test_pass_point_estimates_by_subset_enumeration_with_missing_trials(rng, name):
    R = (rng.random((7, 9)) < rng.random((7, 1))).astype(int)
    mask = rng.random(R.shape) < 0.25
    mask[:, :4] = False
    for k in (1, 2, 3, 4):
        want = np.mean([_subset_average(R[i][~mask[i]], k, CREDITS[name]) for i in range(7)])
        np.testing.assert_allclose(getattr(be, name)(R, k, mask=mask), want, atol=TOL)
        tau_want = np.mean(
            [
                _subset_average(R[i][~mask[i]], k, lambda j, kk: float(j >= max(1, -(-kk // 2))))
                for i in range(7)
            ]
        )
        np.testing.assert_allclose(be.g_pass_at_k_tau(R, k, 0.5, mask=mask), tau_want, atol=TOL)


@pytest.mark.parametrize("kind", ["pass", "hat", "mg", "tau"])
def test_pass_posterior_moments_by_quadrature(kind):
    """E[g(p)] and Var[g(p)] for p ~ Beta(a, b) by adaptive quadrature (1e-10)."""
    rng = np.random.default_rng(11)
    for _ in range(4):
        n = int(rng.integers(3, 12))
        k = int(rng.integers(1, n + 1))
        c = int(rng.integers(0, n + 1))
        a0, b0 = rng.uniform(0.3, 3, size=2)
        R = np.array([[1] * c + [0] * (n - c)])
        j = np.arange(k + 1)
        credit = {
            "pass": (j >= 1).astype(float),
            "hat": (j == k).astype(float),
            "mg": 2.0 / k * np.maximum(j - (k + 1) // 2, 0),
            "tau": (j >= max(1, -(-3 * k // 5))).astype(float),
        }[kind]

        def g(p, credit=credit, k=k):
            return float(credit @ stats.binom.pmf(np.arange(k + 1), k, p))

        post = stats.beta(a0 + c, b0 + n - c)
        m1 = integrate.quad(lambda p, post=post: g(p) * post.pdf(p), 0, 1, epsabs=1e-13)[0]
        m2 = integrate.quad(
            lambda p, post=post, m1=m1: (g(p) - m1) ** 2 * post.pdf(p), 0, 1, epsabs=1e-13
        )[0]
        fn = {
            "pass": be.pass_at_k_ci,
            "hat": be.pass_hat_k_ci,
            "mg": be.mg_pass_at_k_ci,
            "tau": lambda R, k, **kw: be.g_pass_at_k_tau_ci(R, k, 0.6, **kw),
        }[kind]
        mu, sigma, _, _ = fn(R, k, alpha0=a0, beta0=b0)
        np.testing.assert_allclose(mu, m1, atol=1e-10)
        np.testing.assert_allclose(sigma, np.sqrt(m2), atol=1e-8)
