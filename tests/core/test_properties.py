"""Property tests of Bayes@N and avg@N (hypothesis), each an exact identity.

Identities are checked to 1e-12 (double-precision round-off on O(1) quantities).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import bayes_eval as be

TOL = 1e-12

#: the identities hold under every prior: each example draws one (the learned default in a
#: third of them, which keeps the examples quick)
PRIORS = st.sampled_from(["empirical", "uniform", "jeffreys"])


@st.composite
def case(draw):
    m = draw(st.integers(1, 10))
    n = draw(st.integers(1, 12))
    c = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    R = rng.integers(0, c + 1, size=(m, n))
    w = np.array(draw(st.lists(st.floats(-2, 2, width=32), min_size=c + 1, max_size=c + 1)))
    return R, w, rng


@settings(max_examples=examples(200), deadline=None)
@given(case(), PRIORS)
def test_mu_within_weight_range_and_sigma_nonnegative(c, prior):
    R, w, _ = c
    mu, sigma = be.bayes(R, w, prior=prior)
    assert w.min() - TOL <= mu <= w.max() + TOL
    assert sigma >= 0.0
    a, sa = be.avg(R, w)
    assert w.min() - TOL <= a <= w.max() + TOL and sa >= 0.0


@settings(max_examples=examples(200), deadline=None)
@given(case(), PRIORS)
def test_invariant_to_permuting_trials_and_questions(c, prior):
    R, w, rng = c
    base = be.bayes(R, w, prior=prior)
    shuffled = np.take_along_axis(
        R, rng.permuted(np.tile(np.arange(R.shape[1]), (R.shape[0], 1)), axis=1), axis=1
    )
    np.testing.assert_allclose(be.bayes(shuffled, w, prior=prior), base, atol=TOL)
    permuted = R[rng.permutation(R.shape[0])]
    np.testing.assert_allclose(be.bayes(permuted, w, prior=prior), base, atol=TOL)


@settings(max_examples=examples(200), deadline=None)
@given(case(), st.floats(-3, 3), st.floats(-3, 3), PRIORS)
def test_affine_equivariance_in_w(c, scale, shift, prior):
    """w -> s w + t maps mu -> s mu + t and sigma -> |s| sigma (pi-bar is linear in w)."""
    R, w, _ = c
    mu, sigma = be.bayes(R, w, prior=prior)
    mu2, sigma2 = be.bayes(R, scale * w + shift, prior=prior)
    np.testing.assert_allclose(mu2, scale * mu + shift, atol=1e-11)
    np.testing.assert_allclose(sigma2, abs(scale) * sigma, atol=1e-11)


@settings(max_examples=examples(200), deadline=None)
@given(case(), st.integers(0, 5), PRIORS)
def test_prior_runs_equal_prepended_columns(c, d, prior):
    """R0 enters only through its counts: bayes(R, w, R0) == bayes([R0 | R], w)."""
    R, w, rng = c
    R0 = rng.integers(0, w.size, size=(R.shape[0], d))
    np.testing.assert_allclose(
        be.bayes(R, w, R0, prior=prior), be.bayes(np.hstack([R0, R]), w, prior=prior), atol=TOL
    )


@settings(max_examples=examples(200), deadline=None)
@given(case())
def test_avg_bayes_relations_appendix_b(c):
    """Eq. 19: mu = A + N/(1+C+N) a with A = sum(w)/(1+C+N); eq. 20: sigma_a = T/N sigma
    (under the uniform prior of the paper)."""
    R, w, _ = c
    _m, n = R.shape
    t = w.size + n  # 1 + C + N
    mu, sigma = be.bayes(R, w, prior="uniform")
    a, sigma_a = be.avg(R, w)
    np.testing.assert_allclose(a, w[R].mean(), atol=TOL)  # eq. 18 by brute force
    np.testing.assert_allclose(mu, w.sum() / t + n / t * a, atol=TOL)
    np.testing.assert_allclose(sigma_a, t / n * sigma, atol=TOL)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(2, 6), st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_bayes_and_avg_rank_models_identically(n_models, n, seed):
    """§2.6: under the uniform prior, Bayes@N and avg@N give the same order."""
    rng = np.random.default_rng(seed)
    R = rng.integers(0, 3, size=(n_models, 7, n))
    w = np.array([0.0, 0.3, 1.0])
    mu, _ = be.bayes(R, w, prior="uniform")
    a, _ = be.avg(R, w)
    same = np.sign(np.round(mu[:, None] - mu[None, :], 12)) == np.sign(
        np.round(a[:, None] - a[None, :], 12)
    )
    assert same.all()


def test_inputs_are_not_mutated(rng):
    R = rng.integers(0, 3, size=(4, 6))
    R0 = rng.integers(0, 3, size=(4, 2))
    w = np.array([0.0, 0.5, 1.0])
    mask = np.zeros_like(R, dtype=bool)
    mask[0, 0] = True
    copies = [x.copy() for x in (R, R0, w, mask)]
    for x in (R, R0, w, mask):
        x.setflags(write=False)  # any write raises
    be.bayes_ci(R, w, R0, mask=mask)  # the default, learned prior
    # the exact law of a fixed prior (a learned prior's is exact per quadrature node: slow)
    be.bayes_ci(R, w, R0, mask=mask, interval="exact", prior="uniform")
    be.avg_ci(R, w, mask=mask)
    Rb = (R > 0).astype(int)
    Rb.setflags(write=False)
    be.pass_at_k_ci(Rb, 2, mask=mask)
    be.g_pass_at_k_tau(Rb, 3, 0.5, mask=mask)
    for x, y in zip((R, R0, w, mask), copies, strict=True):
        np.testing.assert_array_equal(x, y)
