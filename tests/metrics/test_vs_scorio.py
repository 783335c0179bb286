"""Randomised agreement with the peer package scorio 0.2.3 (a test-only dependency), to 1e-12.

The inputs are drawn by hypothesis: shapes, categories, weights (including negative and
repeated ones), prior runs, k, tau, Beta priors and confidence levels. Both sides evaluate
the same closed forms in double precision; 1e-12 absolute (the quantities are O(1)) covers
summation-order differences with a wide margin. The one exception is a posterior sd computed
as ``sqrt(E[X^2] - E[X]^2)`` near a boundary: the subtraction cancels, the variance carries
an absolute error of a few machine epsilons whatever the implementation, and the sd an error
of about ``eps / sigma`` (``pass_close`` allows ``1e-12 + 8 eps / sigma`` on sigma and
``z`` times that on the interval ends).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from scorio import eval as se

import bayes_eval as be

TOL = 1e-12
EPS = np.finfo(float).eps


def pass_close(ours, theirs, confidence: float, name: str = "") -> None:
    """(mu, sigma, lo, hi) agree: mu to TOL, sigma and the ends to TOL + the cancellation
    error of the variance (module docstring)."""
    from scipy.special import ndtri

    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    sigma = max(float(theirs[1]), 1e-300)
    slack = 8 * EPS / sigma
    z = float(ndtri(0.5 + confidence / 2))
    tol = np.array([TOL, TOL + slack, TOL + z * slack, TOL + z * slack])
    assert (np.abs(ours - theirs) <= tol).all(), (name, ours, theirs, tol)


@st.composite
def categorical_case(draw):
    m = draw(st.integers(1, 12))
    n = draw(st.integers(1, 15))
    c = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    R = rng.integers(0, c + 1, size=(m, n))
    w = draw(st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=c + 1, max_size=c + 1))
    d = draw(st.integers(0, 4))
    R0 = rng.integers(0, c + 1, size=(m, d)) if draw(st.booleans()) else None
    return R, np.array(w, dtype=float), R0


@st.composite
def binary_case(draw):
    m = draw(st.integers(1, 12))
    n = draw(st.integers(1, 20))
    seed = draw(st.integers(0, 2**32 - 1))
    p = draw(st.floats(0.0, 1.0))
    R = (np.random.default_rng(seed).random((m, n)) < p).astype(int)
    k = draw(st.integers(1, n))
    return R, k


confidences = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99])
bounds = st.sampled_from([None, (0.0, 1.0), (-1.0, 2.0)])


@settings(max_examples=examples(150), deadline=None)
@given(categorical_case(), confidences, bounds)
def test_bayes_and_avg_agree(case, confidence, bnd):
    R, w, R0 = case
    np.testing.assert_allclose(
        be.bayes(R, w, R0, prior="uniform"), se.bayes(R, w, R0), rtol=0, atol=TOL
    )
    np.testing.assert_allclose(
        be.bayes_ci(
            R, w, R0, confidence=confidence, bounds=bnd, prior="uniform", interval="normal"
        ),
        se.bayes_ci(R, w, R0, confidence=confidence, bounds=bnd),
        rtol=0,
        atol=TOL,
    )
    np.testing.assert_allclose(
        be.avg_ci(
            R, w, confidence=confidence, bounds=bnd, scale="latent", prior="uniform"
        ),  # scorio: eq. 20
        se.avg_ci(R, w, confidence=confidence, bounds=bnd),
        rtol=0,
        atol=TOL,
    )


@settings(max_examples=examples(150), deadline=None)
@given(binary_case())
def test_pass_point_estimates_agree(case):
    R, k = case
    for name in ("pass_at_k", "pass_hat_k", "mg_pass_at_k"):
        np.testing.assert_allclose(getattr(be, name)(R, k), getattr(se, name)(R, k), atol=TOL)


@settings(max_examples=examples(150), deadline=None)
@given(binary_case(), st.floats(1e-3, 1.0), confidences, st.floats(0.2, 5.0), st.floats(0.2, 5.0))
# all 13 trials correct: sigma = 8.5e-5 from a cancelling variance (docstring)
@pytest.mark.slow
@example((np.ones((1, 13), dtype=int), 12), 0.125, 0.5, 1.0, 1.0)
def test_pass_posteriors_agree(case, tau, confidence, a0, b0):
    R, k = case
    kw = {"confidence": confidence, "alpha0": a0, "beta0": b0}
    for name in ("pass_at_k_ci", "pass_hat_k_ci", "mg_pass_at_k_ci"):
        ours = getattr(be, name)(R, k, **kw)
        theirs = getattr(se, name)(R, k, **kw)
        pass_close(ours, theirs, confidence, name)
    np.testing.assert_allclose(
        be.g_pass_at_k_tau(R, k, tau), se.g_pass_at_k_tau(R, k, tau), atol=TOL
    )
    pass_close(
        be.g_pass_at_k_tau_ci(R, k, tau, **kw),
        se.g_pass_at_k_tau_ci(R, k, tau, **kw),
        confidence,
        "g_pass_at_k_tau_ci",
    )


@pytest.mark.slow
def test_large_k_posterior_agrees():
    """A 30 x 80 bank with k up to 80: the Bernstein sums have 161 terms."""
    rng = np.random.default_rng(3)
    R = (rng.random((30, 80)) < rng.random((30, 1))).astype(int)
    for k in (8, 33, 80):
        for tau in (0.3, 0.5, 0.75):
            np.testing.assert_allclose(
                be.g_pass_at_k_tau_ci(R, k, tau, prior="uniform"),
                se.g_pass_at_k_tau_ci(R, k, tau),
                atol=TOL,
            )
        np.testing.assert_allclose(
            be.mg_pass_at_k_ci(R, k, prior="uniform"), se.mg_pass_at_k_ci(R, k), atol=TOL
        )
        np.testing.assert_allclose(
            be.pass_at_k_ci(R, k, prior="uniform"), se.pass_at_k_ci(R, k), atol=TOL
        )
