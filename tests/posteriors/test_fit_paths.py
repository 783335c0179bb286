"""The learned prior's fast paths (issue 28) against independent computations: the moments
from four sums per model against every question's Dirichlet moments, the definiteness test
against eigenvalues, Newton's method on a batch against one group at a time, integer counts
against the same counts as floats, and the Chebyshev panel weights against the Lagrange
basis evaluated directly."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_eval.posteriors.posterior import sums_moments, total_sums
from bayes_eval.posteriors.prior_fit import _definite
from bayes_eval.posteriors.prior_statistics import _atoms, _chebyshev_weights, _compress
from bayes_eval.posteriors.priors import fit_prior


def _per_question(counts, nodes, w):
    """Mean and sd of pi-bar under each node from every question's Dirichlet posterior
    (eq. 15 of Hariri et al., "Don't Pass@k"), summed directly: (J, L)."""
    d = w - w[0]
    mus, sds = [], []
    for a in nodes:  # (G, K), G = 1 or L
        nu = counts + a[:, None, :]
        t = nu.sum(-1)
        mean = (nu @ d) / t
        var = (nu * (d - mean[..., None]) ** 2).sum(-1) / (t * (t + 1))
        mus.append(w[0] + mean.mean(-1))
        sds.append(np.sqrt(var.sum(-1)) / counts.shape[1])
    return np.array(mus), np.array(sds)


@pytest.mark.parametrize("case", ["equal totals, integers", "equal totals, shared nodes", "mixed"])
def test_sums_moments_match_every_question(case):
    # one row per model when every question has N trials (no keys, no bincount), integer
    # counts read without a float copy, nodes shared by every model (G = 1) broadcast: all
    # against the per-question sum; rounding only, so 1e-12 relative
    rng = np.random.default_rng(3)
    w = np.array([0.0, 0.25, 1.0])
    counts = rng.multinomial(6, rng.dirichlet([0.4, 1.0, 0.7], size=(4, 50)))
    if case == "mixed":
        counts = counts.astype(float)
        counts[2, :5] = 0.0  # some questions without trials: a second total
    g = 1 if case == "equal totals, shared nodes" else 4
    nodes = np.exp(rng.normal(0.0, 1.0, size=(7, g, 3)))
    sums = total_sums(counts, w)
    assert (sums.owner.size == 4) == case.startswith("equal")
    mu, sd = sums_moments(sums, nodes, w)
    ref_mu, ref_sd = _per_question(counts.astype(float), nodes, w)
    np.testing.assert_allclose(mu, ref_mu, rtol=1e-12)
    np.testing.assert_allclose(sd, ref_sd, rtol=1e-12)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_definite_is_least_eigenvalue_above_the_floor(k):
    # random symmetric matrices around the boundary (about half definite), and some within
    # 1e-6 of the floor: the elimination's verdict is the eigenvalues'
    rng = np.random.default_rng(k)
    a = rng.normal(size=(4000, k, k))
    h = a + np.swapaxes(a, 1, 2) + rng.uniform(0.0, 3.0 * k, size=(4000, 1, 1)) * np.eye(k)
    lam, vec = np.linalg.eigh(h)
    lam[:500, 0] = 1e-8 + rng.choice([-1e-6, 1e-6], size=500)
    h = (vec * lam[:, None, :]) @ np.swapaxes(vec, 1, 2)
    expected = np.linalg.eigvalsh(h)[:, 0] > 1e-8
    assert 0.2 < expected.mean() < 0.8
    np.testing.assert_array_equal(_definite(h, 1e-8), expected)


def test_batched_fit_is_each_group_fitted_alone():
    # Newton's iterations leave converged groups behind and the quadrature is per group, so a
    # batch must give each group what a fit of that group alone gives; groups chosen to
    # converge in different numbers of iterations (all solved, none, whole-question
    # outcomes, beta-binomial). The mode and its covariance: 1e-10 relative (the Chebyshev
    # interpolation across nodes uses the batch's largest point count, relative accuracy
    # 1e-15 each). The mixture's moments of pi-bar: 1e-8 relative, since a batch keeps a
    # node any group weighs above 1e-10 while a lone fit drops the node for that group
    # (at most J x 1e-10 = 1.2e-8 of its weight)
    from bayes_eval.posteriors.intervals import mixture_moments

    rng = np.random.default_rng(5)
    p = rng.beta(0.3, 0.5, size=(6, 60))
    counts = np.stack([8 - (y := rng.binomial(8, p)), y], axis=-1)
    counts[0] = [0, 8]  # every question solved
    counts[1] = [8, 0]
    counts[2, :, 1] = 8 * (counts[2, :, 1] > 4)  # whole-question outcomes
    counts[2, :, 0] = 8 - counts[2, :, 1]
    w = np.array([0.0, 1.0])
    batch = fit_prior(counts)
    b_mu, b_sd = mixture_moments(
        *sums_moments(total_sums(counts, w), batch.nodes, w), batch.weights
    )
    for g in range(6):
        one = fit_prior(counts[g])
        np.testing.assert_allclose(batch.alpha[g], one.alpha[0], rtol=1e-10)
        np.testing.assert_allclose(batch.log_alpha_cov[g], one.log_alpha_cov[0], rtol=1e-8)
        assert batch.converged[g] == one.converged[0]
        moments = sums_moments(total_sums(counts[g][None], w), one.nodes, w)
        mu, sd = mixture_moments(*moments, one.weights)
        np.testing.assert_allclose([b_mu[g], b_sd[g]], [mu[0], sd[0]], rtol=1e-8)


def test_integer_counts_compress_as_their_floats():
    rng = np.random.default_rng(8)
    counts = rng.multinomial(5, rng.dirichlet([1.0, 1.0, 1.0], size=(3, 40)))
    counts[1, :4] = 0
    as_int, as_float = _compress(counts), _compress(counts.astype(float))
    for field, a, b in zip(as_int._fields, as_int, as_float, strict=True):
        assert (a is None) == (b is None), field
        if a is not None:
            assert a.dtype == np.float64
            np.testing.assert_array_equal(a, b, err_msg=field)
    assert counts.dtype.kind == "i"  # the input is left as it was


@pytest.mark.parametrize("points", [1, 2, 3, 12])
def test_chebyshev_weights_are_the_lagrange_basis_summed(points):
    # W_sp = sum over the run's values of m_i l_p(t_i), l_p the Lagrange polynomial of the
    # Chebyshev points of the first kind: evaluated directly from its product form, summed
    # with np.add.at (runs of different lengths, one of a single value)
    rng = np.random.default_rng(9)
    size = np.array([1, 40, 120, 7, 132])
    t = rng.uniform(-1.0, 1.0, size=size.sum())
    mult = rng.integers(1, 5, size=size.sum()).astype(float)
    run = np.repeat(np.arange(size.size), size)
    tp = np.cos(np.pi * (np.arange(points) + 0.5) / points)
    lag = np.ones((t.size, points))
    for p in range(points):
        for q in range(points):
            if q != p:
                lag[:, p] *= (t - tp[q]) / (tp[p] - tp[q])
    ref = np.zeros((size.size, points))
    np.add.at(ref, run, mult[:, None] * lag)
    got = _chebyshev_weights(t, mult, np.cumsum(size) - size, points)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-11)


def test_atoms_are_the_distinct_values_or_exact_panel_moments():
    # every (group, column): its largest value; every value's power moments of degree < 12
    # reproduced (exact atoms trivially, each Chebyshev panel integrates the polynomials of
    # its degree exactly); a panel of many values but few distinct ones kept as those values
    # with their multiplicities; unanswered questions (all zeros) and zeros left out
    rng = np.random.default_rng(11)
    vals = np.round(rng.beta(0.5, 0.7, size=(3, 400)), 3)
    vals[:, :30] = 0.0
    vals[1] = rng.choice([0.6, 0.7, 0.8], size=400)  # 400 values, 3 distinct, one panel
    vals[2, :7] = rng.uniform(1e-6, 1e-4, size=7)  # below the tenth panel: exact
    arr = np.stack([1.0 - vals, vals], axis=-1)
    arr[:, 5] = 0.0  # a question without trials
    before = arr.copy()
    x, w, top = _atoms(arr)
    np.testing.assert_array_equal(arr, before)
    np.testing.assert_array_equal(top, arr.max(axis=1))
    assert x.shape[:2] == (3, 2) and w.shape == x.shape
    for g in range(3):
        for k in range(2):
            v = arr[g, :, k][arr[g, :, k] > 0]
            scale = v / v.max()
            xs = x[g, k] / v.max()
            for j in range(12):
                assert (w[g, k] * xs**j).sum() == pytest.approx((scale**j).sum(), rel=1e-10)
    row = w[1, 1] != 0
    np.testing.assert_array_equal(np.sort(x[1, 1][row]), [0.6, 0.7, 0.8])
    counts = [np.sum(arr[1, :, 1] == v) for v in np.sort(x[1, 1][row])]
    np.testing.assert_array_equal(w[1, 1][row][np.argsort(x[1, 1][row])], counts)


@pytest.mark.parametrize("shape", [(2, 0, 2), (0, 5, 2)])
def test_atoms_of_no_values_are_empty(shape):
    # no questions (or no groups): one zero-weight atom per row, largest value 0
    x, w, top = _atoms(np.zeros(shape))
    assert x.shape == w.shape == (shape[0], shape[2], 1)
    assert top.shape == (shape[0], shape[2])
    assert not w.any() and not top.any()
