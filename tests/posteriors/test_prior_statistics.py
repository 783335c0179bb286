"""The learned prior's compressed likelihood (histograms of whole-number counts, Chebyshev
atoms of fractional ones) against the sum over every question, term by term."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln

from bayes_eval.posteriors.prior_likelihood import _derivatives, _loglik
from bayes_eval.posteriors.prior_statistics import _compress


def _brute(eta: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The Dirichlet-multinomial log likelihood summed over every question (no grouping of
    equal rows, no statistics): eta (J, G, K), counts (G, M, K) -> (J, G)."""
    a = np.exp(eta)[:, :, None, :]  # (J, G, 1, K)
    s = a.sum(axis=-1)
    n = counts[None]
    tot = n.sum(axis=-1)
    term = gammaln(s) - gammaln(s + tot) + (gammaln(a + n) - gammaln(a)).sum(axis=-1)
    return np.where(tot > 0, term, 0.0).sum(axis=-1)


def _etas(rng, g: int, k: int) -> np.ndarray:
    # concentrations from 1e-3 to 1e4: the range the Newton steps and the nodes visit
    return rng.uniform(np.log(1e-3), np.log(1e4), size=(40, g, k))


@pytest.mark.parametrize(
    ("k", "n", "m"), [(2, 1, 30), (2, 16, 30), (3, 4, 100), (5, 8, 20), (2, 40, 30), (3, 24, 20)]
)
def test_histogram_likelihood_is_the_sum_over_questions(k, n, m):
    # whole numbers: sum_{j<n} log(a + j) is log Gamma(a + n) - log Gamma(a) exactly, so the
    # two agree to rounding: 1e-9 of the likelihood's size (gammaln differences at a = 1e4
    # lose about eps * a * log a ~ 1e-11 per term)
    rng = np.random.default_rng(k * 100 + n)
    counts = rng.multinomial(n, rng.dirichlet(np.ones(k), size=(4, m))).astype(float)
    counts[0, :3] = 0.0  # questions without trials
    data = _compress(counts)
    assert data.hist is not None
    # every question n trials: the totals' sum by log-gammas when that is cheaper (n >= 16);
    # n > 16: the sums over trials by one contraction, not slice by slice
    assert (data.x_total is not None) == (n >= 16)
    eta = _etas(rng, 4, k)
    ref = _brute(eta, counts)
    np.testing.assert_allclose(_loglik(eta, data), ref, rtol=1e-9, atol=1e-8)


def _graded(rng, g: int, m: int) -> np.ndarray:
    """Fractional counts (1 - s, s) of graded scores: about m distinct grades per model, a
    fifth of them exactly 0 or 1, some tiny ones."""
    s = rng.beta(0.4, 0.6, size=(g, m))
    s[:, : m // 10] = 0.0
    s[:, m // 10 : m // 5] = 1.0
    s[:, m // 5 : m // 5 + 5] = 10.0 ** rng.uniform(-6, -3, size=(g, 5))
    return np.stack([1.0 - s, s], axis=-1)


def test_atoms_likelihood_is_the_sum_over_questions():
    # ~1000 distinct fractional grades per model, compressed to Chebyshev points on dyadic
    # panels: the interpolation error falls like (3 + 2 sqrt 2)^-16 ~ 1e-12 per unit weight,
    # so the sum over 1000 questions is right to ~1e-9 absolute; the tolerance 1e-7 leaves
    # room for rounding in sums of size ~1e3-1e4
    rng = np.random.default_rng(7)
    counts = _graded(rng, 3, 1000)
    data = _compress(counts)
    assert data.hist is None
    assert data.x.shape[-1] < 400  # the compression: ~1000 distinct values -> < 400 atoms
    eta = _etas(rng, 3, 2)
    np.testing.assert_allclose(_loglik(eta, data), _brute(eta, counts), rtol=0, atol=1e-7)


def test_atoms_of_several_trials_and_categories():
    # fractional counts over N = 3 graded trials and three categories (values up to 3)
    rng = np.random.default_rng(8)
    counts = rng.dirichlet([0.5, 0.7, 0.9], size=(2, 600)) * 3.0
    data = _compress(counts)
    eta = _etas(rng, 2, 3)
    np.testing.assert_allclose(_loglik(eta, data), _brute(eta, counts), rtol=0, atol=1e-7)


@pytest.mark.parametrize("case", ["whole", "totals as atoms", "graded"])
def test_derivatives_match_differences_of_the_brute_sum(case):
    # gradient and Hessian in eta against central differences of the sum over questions
    # (step 1e-4: truncation ~1e-8 of the curvature, rounding ~1e-12 / 1e-4 of the values)
    rng = np.random.default_rng(9)
    if case == "graded":
        counts = _graded(rng, 2, 400)
    elif case == "whole":
        counts = rng.multinomial(6, rng.dirichlet([1.0, 1.0, 1.0], size=(2, 50))).astype(float)
    else:  # 40 or 36 trials per question: histograms of the categories, the totals as atoms
        counts = rng.multinomial(40, rng.dirichlet([1.0, 1.0, 1.0], size=(2, 50))).astype(float)
        counts[:, :10] = rng.multinomial(36, rng.dirichlet([1.0, 1.0, 1.0], size=(2, 10)))
        data = _compress(counts)
        assert data.hist is not None and data.x_total is not None
        assert data.x_total.shape[1] == 2
    k = counts.shape[-1]
    eta = rng.normal(0.0, 1.0, size=(2, k))
    grad, hess = _derivatives(eta, _compress(counts))
    h = 1e-4
    for i in range(k):
        e = np.zeros(k)
        e[i] = h
        up, down = _brute((eta + e)[None], counts)[0], _brute((eta - e)[None], counts)[0]
        np.testing.assert_allclose(grad[:, i], (up - down) / (2 * h), rtol=1e-6, atol=1e-6)
        gu = _derivatives(eta + e, _compress(counts))[0]
        gd = _derivatives(eta - e, _compress(counts))[0]
        np.testing.assert_allclose(hess[:, :, i], (gu - gd) / (2 * h), rtol=1e-6, atol=1e-5)


def test_forced_forms_agree():
    # the same whole-number counts through the histograms and through the atoms
    rng = np.random.default_rng(10)
    counts = rng.multinomial(9, rng.dirichlet([0.3, 0.6], size=(3, 70))).astype(float)
    eta = _etas(rng, 3, 2)
    hist = _loglik(eta, _compress(counts, histogram=True))
    atoms = _loglik(eta, _compress(counts, histogram=False))
    np.testing.assert_allclose(hist, atoms, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("case", ["graded", "rubric", "answered"])
def test_node_moments_from_statistics_match_every_question(case):
    # the mixture's per-node mean and sd of pi-bar from four sums per (model, total) against
    # the Dirichlet moments of every question under every node (eq. 15 of Hariri et al.),
    # summed directly; agreement to 1e-12 relative (rounding only)
    from bayes_eval.posteriors.posterior import _node_moments

    rng = np.random.default_rng(12)
    answered = None
    if case == "rubric":
        counts = rng.multinomial(5, rng.dirichlet([0.5, 1.0, 2.0], size=(3, 80))).astype(float)
        counts[1, :4] = 0.0  # unanswered questions count with the prior's moments
        w = np.array([0.0, 0.3, 1.0])
    else:
        counts = _graded(rng, 3, 300)
        counts[:, ::7] *= 2.0  # two graded trials on some questions: a second total
        w = np.array([0.0, 1.0])
        if case == "answered":
            answered = rng.random((3, 300)) < 0.8
    nodes = np.exp(rng.normal(0.0, 1.0, size=(5, 3, counts.shape[-1])))
    mu, sd = _node_moments(counts, nodes, w, answered)
    ans = np.ones(counts.shape[:2], bool) if answered is None else answered
    d = w - w[0]
    for j in range(5):
        nu = counts + nodes[j][:, None, :]
        t = nu.sum(-1)
        mean = (nu @ d) / t
        var = ((nu * (d - mean[..., None]) ** 2).sum(-1)) / (t * (t + 1))
        m = ans.sum(1)
        np.testing.assert_allclose(mu[j], w[0] + np.where(ans, mean, 0).sum(1) / m, rtol=1e-12)
        ref_sd = np.sqrt(np.where(ans, var, 0).sum(1)) / m
        np.testing.assert_allclose(sd[j], ref_sd, rtol=1e-10)


def test_trigamma_matches_scipy():
    # psi_1 by recurrence and the asymptotic series against scipy's polygamma(1, x) and Hurwitz
    # zeta(2, x), from 1e-6 to 1e8: relative 1e-13 (the series' first omitted term is < 3e-14
    # of the value)
    from scipy.special import polygamma, zeta

    from bayes_eval.posteriors.prior_likelihood import _trigamma

    x = np.geomspace(1e-6, 1e8, 2001)
    np.testing.assert_allclose(_trigamma(x), zeta(2, x), rtol=1e-13)
    np.testing.assert_allclose(_trigamma(x), polygamma(1, x), rtol=1e-13)


@pytest.mark.parametrize("complete", [True, False])
def test_board_profile_is_the_direct_likelihood(complete):
    # the board step's rewritten objective (log(1 - p) = log p - eta, and one sum over the
    # models when every model answered every question) against the direct
    # sum_l [y log p + (n - y) log(1 - p)] and central differences of it for the gradient
    from scipy.special import log_expit, logsumexp

    from bayes_eval.posteriors.board import _LOG_WEIGHTS, _NODES, _neg_profile

    rng = np.random.default_rng(13)
    n_models, m = 5, 40
    n = np.ones((n_models, m)) if complete else (rng.random((n_models, m)) < 0.8).astype(float)
    y = n * rng.random((n_models, m))
    s = np.array([0.3, 1.0, 2.5])
    theta = rng.normal(0.0, 1.0, size=(s.size, n_models))

    def direct(th):
        eta = th.reshape(s.size, -1)[:, None, :] - s[:, None, None] * _NODES[None, :, None]
        ll = log_expit(eta) @ y + log_expit(-eta) @ (n - y)
        return -float(logsumexp(_LOG_WEIGHTS[None, :, None] + ll, axis=1).sum())

    value, grad = _neg_profile(theta.ravel(), y, n, s)
    assert value == pytest.approx(direct(theta.ravel()), rel=1e-12)
    h = 1e-6
    for i in range(0, theta.size, 4):
        e = np.zeros(theta.size)
        e[i] = h
        fd = (direct(theta.ravel() + e) - direct(theta.ravel() - e)) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("case", ["whole", "fractional", "mixed groups"])
def test_sums_interpolated_across_the_nodes_are_the_direct_sums(case):
    # the quadrature nodes' likelihood from Chebyshev interpolants of each one-dimensional sum
    # (chosen for 1e-15 relative error, Trefethen Thm 8.2) against the sums at every node:
    # what the node weights see, the differences between one group's nodes, to 1e-8
    from bayes_eval.posteriors.prior_fit import _grid, _newton
    from bayes_eval.posteriors.prior_likelihood import _loglik_nodes

    rng = np.random.default_rng(12)
    if case == "fractional":  # three graded trials per question: atoms, log-gammas
        counts = rng.dirichlet([0.5, 0.7], size=(4, 1500)) * 3.0
    else:
        counts = rng.multinomial(60, rng.dirichlet([1.0, 1.0], size=(4, 500))).astype(float)
    if case == "mixed groups":  # a wide hyperposterior (20 questions, every trial failed):
        counts[0] = 0.0  # that group is summed at every node, the others interpolated
        counts[0, :20] = [60.0, 0.0]
    data = _compress(counts)
    hyper = (np.full(4, 5.0), np.full(4, 1.5))
    eta, neg_h, _ = _newton(data, hyper)
    z, _ = _grid(2, 7)
    lam, vec = np.linalg.eigh(np.linalg.inv(neg_h))
    root = (vec * np.sqrt(lam)[:, None, :]) @ np.swapaxes(vec, 1, 2)
    nodes = eta[None] + np.einsum("gij,nj->ngi", root, z)
    reach = np.abs(z).max() * np.abs(root).sum(axis=-1).max(axis=-1)
    direct = _loglik(nodes, data)
    interp = _loglik_nodes(nodes, data, reach)
    assert not np.array_equal(interp[:, 1:], direct[:, 1:])  # the interpolants were used
    if case == "mixed groups":
        np.testing.assert_array_equal(interp[:, 0], direct[:, 0])
    np.testing.assert_allclose(interp, direct, rtol=1e-13)
    spread = (interp - interp.max(0)) - (direct - direct.max(0))
    assert np.abs(spread).max() < 1e-8
