"""The one-pass Bayes@N moments (bayes_eval.posteriors.onepass) against the posterior's own
per-question Dirichlet moments (the counts path), on every branch of the label sums: one
trial, whole 64-bit words and the trials beyond them, labels too large for a word (> 31) or
for uint8 squares (> 15), many trials, and every input dtype.

Tolerance: relative 1e-12 (both are closed forms in float64 of the same integer counts; the
one-pass sums are exact integers, the counts path sums M rounded per-question terms).
"""

from __future__ import annotations

import numpy as np
import pytest

from bayes_eval import bayes, bayes_ci, posterior
from bayes_eval.inputs import labels
from bayes_eval.posteriors.onepass import affine_step, one_pass_moments, question_sums

RTOL = 1e-12


def _reference(R, w, prior):
    """The counts path: posterior(...).moments() builds the (L, M, C + 1) counts."""
    values, weights, top = labels(R, w)
    post = posterior(np.ma.masked_array(R, mask=np.zeros(np.shape(R), bool)), w, prior=prior)
    return post.moments(), (values, weights, top)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 17, 80, 300])
@pytest.mark.parametrize("c", [1, 2, 4, 15, 16, 31, 32, 40])
def test_matches_the_counts_path_on_every_branch(n, c):
    rng = np.random.default_rng(n * 100 + c)
    R = rng.integers(0, c + 1, size=(3, 5, n)).astype(np.int8)
    R[0, 0] = c  # a question always in the top category, one always in 0
    R[1, 2] = 0
    w = np.linspace(0.0, 1.0, c + 1)
    (mu_ref, sd_ref), (values, weights, top) = _reference(R, w, "uniform")
    mu, sd = one_pass_moments(values, weights, np.ones(c + 1), top)
    np.testing.assert_allclose(mu, mu_ref, rtol=RTOL)
    np.testing.assert_allclose(sd, sd_ref, rtol=RTOL)


@pytest.mark.parametrize(
    ("prior", "w"),
    [
        ("jeffreys", [0.0, 0.5, 1.0]),
        ([0.3, 2.0, 0.7], [1.0, 0.25, -0.5]),  # decreasing weights, w0 != 0
        (4.5, [-2.0, -1.0, 0.0, 1.0, 2.0]),
        ([1.5, 0.25], [0.2, 0.9]),
    ],
)
def test_fixed_priors_and_affine_weights(prior, w):
    rng = np.random.default_rng(7)
    R = rng.integers(0, len(w), size=(4, 6, 9))
    (mu_ref, sd_ref), _ = _reference(R, w, prior)
    mu, sd = bayes(R, w, prior=prior)
    np.testing.assert_allclose(mu, mu_ref, rtol=RTOL)
    np.testing.assert_allclose(sd, sd_ref, rtol=RTOL)


def test_every_input_dtype_and_layout_gives_the_same_numbers():
    # the one-pass path: a fixed prior (the default, learned one builds the counts)
    rng = np.random.default_rng(3)
    R = rng.random((4, 7, 10)) < 0.4
    expected = bayes(R.astype(np.int64), prior="uniform")
    for arr in (R, R.astype(np.int8), R.astype(np.uint8), R.astype(float), R.tolist()):
        np.testing.assert_allclose(bayes(arr, prior="uniform"), expected, rtol=RTOL)
    strided = np.ascontiguousarray(R.transpose(2, 1, 0)).transpose(2, 1, 0).astype(np.int8)
    assert not strided.flags.c_contiguous
    np.testing.assert_allclose(bayes(strided, prior="uniform"), expected, rtol=RTOL)
    mu, sd = bayes(R[0].astype(np.int8), prior="uniform")  # one model: floats
    assert isinstance(mu, float) and isinstance(sd, float)
    assert mu == pytest.approx(expected[0][0], rel=RTOL)


def test_the_paper_example_and_bayes_ci():
    """Hariri et al.'s worked example (the package's docstring value), and ``bayes_ci``'s
    normal interval and support bounds against the counts path."""
    R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    mu, sd = bayes(R, [0.0, 0.5, 1.0], prior="uniform")  # the paper's prior
    assert (round(mu, 6), round(sd, 6)) == (0.5625, 0.091998)
    rng = np.random.default_rng(1)
    R = rng.integers(0, 2, size=(5, 4, 3))
    R[0] = 1  # the normal interval crosses 1
    masked = np.ma.masked_array(R, mask=np.zeros(R.shape, bool))  # the counts path
    paper = {"confidence": 0.9, "prior": "uniform", "interval": "normal"}
    for bounds in (None, "support", (0.1, 0.95)):
        got = bayes_ci(R, bounds=bounds, **paper)
        ref = bayes_ci(masked, bounds=bounds, **paper)
        for a, b in zip(got, ref, strict=True):
            np.testing.assert_allclose(a, b, rtol=RTOL)


def test_non_affine_weights_fall_back_to_the_counts_path():
    w = np.array([0.0, 0.9, 1.0])
    assert affine_step(w) is None and affine_step(np.linspace(-1, 3, 7)) == pytest.approx(2 / 3)
    rng = np.random.default_rng(2)
    R = rng.integers(0, 3, size=(3, 5, 4))
    values, weights, top = labels(R, w)
    assert one_pass_moments(values, weights, np.ones(3), top) is None
    (mu_ref, sd_ref), _ = _reference(R, w, "uniform")
    np.testing.assert_allclose(bayes(R, w, prior="uniform"), (mu_ref, sd_ref), rtol=RTOL)


def test_question_sums_by_brute_force():
    rng = np.random.default_rng(5)
    for n, top in [(1, 9), (8, 31), (13, 31), (24, 2), (9, 200), (5, 255), (600, 255)]:
        x = rng.integers(0, top + 1, size=(50, n)).astype(np.uint8)
        np.testing.assert_array_equal(question_sums(x, top), x.sum(axis=1))


def test_bad_input_gives_the_same_errors_and_is_not_mutated():
    R = np.array([[0, 1, -1], [1, 1, 0]], dtype=np.int8)
    for fn in (bayes, lambda r: posterior(r).moments()):
        with pytest.raises(ValueError, match="negative category -1"):
            fn(R)
    with pytest.raises(ValueError, match="contains category 3"):
        bayes(np.array([[0, 3]]), [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        bayes(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="prior"):
        bayes(np.array([[0, 1]]), prior=[1.0, 2.0, 3.0])
    R = np.array([[[1, 0, 1]]], dtype=np.int8)
    before = R.copy()
    bayes(R)
    np.testing.assert_array_equal(R, before)
